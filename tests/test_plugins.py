"""A task from outside duologue plugs in with no edit to duologue: by `register` or an entry point.

The throwaway task (`tests/plugins/handshake`) brings its own move kind and event; it must pass
the conformance checker, be listed by `duologue tasks`, play in the terminal, and keep its own
events through a stored dialogue.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from duologue.cli import app
from duologue.core.schema import Dialogue
from duologue.tasks import TASKS, register, spec
from duologue.testing import check_task

PLUGINS = Path(__file__).parent / "plugins"
runner = CliRunner()


@pytest.fixture
def handshake(monkeypatch):
    monkeypatch.syspath_prepend(str(PLUGINS))
    from handshake import HandshakeTask

    task_id = register(HandshakeTask)
    yield task_id
    TASKS.pop(task_id, None)


def test_a_registered_plug_in_passes_the_checker_and_keeps_its_own_events(handshake):
    assert spec(handshake).title.startswith("Handshake")
    check_task(handshake, episodes=10)
    from duologue.agents import make_agent
    from duologue.core.episode import play_episode
    from duologue.tasks import make

    task = make(handshake)
    dialogue = play_episode(task, {p: make_agent("random", task) for p in task.party_ids}, seed=3)
    back = Dialogue.model_validate_json(dialogue.model_dump_json())
    assert [e.kind for e in back.events] == [e.kind for e in dialogue.events] and "wave" in [e.kind for e in back.events]
    assert type(back.events[-1]).__name__ == "Waved"


def entry_point_env(tmp_path: Path) -> dict[str, str]:
    """A folder on PYTHONPATH that declares the plug-in as an installed distribution would."""
    dist = tmp_path / "handshake-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: handshake\nVersion: 0.1\n", encoding="utf-8")
    (dist / "entry_points.txt").write_text("[duologue.tasks]\nhandshake-v0 = handshake:HandshakeTask\n", encoding="utf-8")
    env = dict(os.environ)
    env["COLUMNS"] = "250"
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), str(PLUGINS), env.get("PYTHONPATH", "")])
    return env


def duologue(*args: str, env: dict[str, str], input: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "duologue.cli", *args], env=env, input=input, capture_output=True, text=True, timeout=300)


def test_an_entry_point_plug_in_is_listed_and_plays_in_the_terminal(tmp_path: Path):
    env = entry_point_env(tmp_path)
    listed = duologue("tasks", env=env)
    assert listed.returncode == 0, listed.stderr
    assert "handshake-v0" in listed.stdout
    out = tmp_path / "chat.jsonl"
    played = duologue("chat", "--task", "handshake-v0", "--vs", "random", "--seed", "2", "--out", str(out), env=env, input="/help\nleft?\n/wave 3\n/wave left\n" + "/wave left\n" * 5)
    assert played.returncode == 0, played.stdout + played.stderr
    assert "/wave <hand: left|right>" in played.stdout and "Wave a hand." in played.stdout, "help comes from the plug-in's schema"
    assert "choose one of left, right" in played.stdout, "a bad value is refused with the schema's own choices"
    dialogue = json.loads(out.read_text(encoding="utf-8").splitlines()[0])
    assert dialogue["task"] == "handshake" and any(e["kind"] == "wave" and e["party"] == "a" for e in dialogue["events"])


def test_a_broken_entry_point_does_not_take_the_built_in_tasks_down(tmp_path: Path):
    env = entry_point_env(tmp_path)
    (tmp_path / "handshake-0.1.dist-info" / "entry_points.txt").write_text("[duologue.tasks]\nbroken-v0 = no_such_module:Nothing\n", encoding="utf-8")
    played = duologue("play", "--task", "casino-v0", "--agents", "random", "--agents", "random", "-n", "1", "-o", str(tmp_path / "p.jsonl"), env=env)
    assert played.returncode == 0, played.stderr


def test_a_plugins_move_may_not_take_a_built_in_kind_even_under_the_same_class_name():
    """A plug-in's own `Offer` with kind "offer" would replace CraigslistBargain's in every reader."""
    from typing import Literal

    from duologue.core import actions
    from duologue.core.schema import EventBase

    class Offer(actions.Action):
        kind: Literal["offer"] = "offer"
        hands: int = 0

    class OfferEvent(EventBase):
        kind: Literal["offer"] = "offer"

    with pytest.raises(ValueError, match="move kind 'offer' is already duologue.core.actions.Offer"):
        actions.register_move(Offer, OfferEvent)
    assert actions.BY_KIND["offer"] is actions.Offer


def test_a_broken_plugin_is_named_and_left_out_while_the_built_in_tasks_go_on(monkeypatch):
    from duologue import tasks
    from duologue.web.study import default_studies

    monkeypatch.setitem(tasks.TASKS, "broken-v0", "no_such_module_for_duologue:Task")
    monkeypatch.setitem(tasks.TASKS, "renamed-v0", "toy_task:CoinSplit")  # its spec says coins-v0
    for task_id, words in (("broken-v0", "no_such_module_for_duologue"), ("renamed-v0", "its spec's id is 'coins-v0'")):
        with pytest.raises(tasks.LoadError, match=f"task {task_id} .* cannot be loaded: .*{words}"):
            tasks.make(task_id)
    assert "broken-v0" not in tasks.loadable_task_ids() and "casino-v0" in tasks.loadable_task_ids()
    studies = {s.task for s in default_studies()}
    assert "casino-v0" in studies and "broken-v0" not in studies
    listed = runner.invoke(app, ["tasks"], env={"COLUMNS": "300"})
    assert listed.exit_code == 0 and "cannot be loaded" in listed.output and "casino-v0" in listed.output
    played = runner.invoke(app, ["play", "--task", "broken-v0", "--agents", "random", "-n", "1"])
    assert played.exit_code == 2 and "cannot be loaded" in played.output and "Traceback" not in played.output


def test_a_newer_version_of_a_task_gets_its_own_default_study(monkeypatch):
    from duologue import tasks
    from duologue.web.study import default_studies

    monkeypatch.setitem(tasks.TASKS, "coins-v0", "toy_task:CoinSplit")
    monkeypatch.setitem(tasks.TASKS, "coins-v1", "toy_task:CoinSplitV1")
    ids = {s.task: s.id for s in default_studies()}
    assert ids["coins-v0"] == "coins" and ids["coins-v1"] == "coins-v1" and ids["casino-v0"] == "casino"


# --------------------------------------------------------------------------- a plug-in that writes only rules and score


@pytest.fixture
def joboffer(monkeypatch):
    monkeypatch.syspath_prepend(str(PLUGINS))
    from joboffer import JobOfferTask

    before = TASKS.get("joboffer-v0")  # installed as an entry point, it stays registered after the test
    task_id = register(JobOfferTask) if before is None else "joboffer-v0"
    yield task_id
    if before is None:
        TASKS.pop(task_id, None)


def test_a_plugin_with_rules_and_score_only_gets_the_rest_from_its_schema(joboffer):
    import random

    from duologue.core import actions
    from duologue.core.episode import play_episode
    from duologue.core.task import Task
    from duologue.agents import make_agent
    from duologue.tasks import make

    check_task(joboffer, episodes=10)
    task = make(joboffer)
    for name in ("sample_action", "judge", "episode_metrics"):
        assert getattr(type(task), name) is getattr(Task, name), f"{name} is duologue's default"
    event = actions.EVENT_OF["job-offer"]
    assert event.__name__ == "JobOfferMoveEvent" and set(event.model_fields) >= {"party", "time", "salary", "start", "remote"}
    dialogues = [play_episode(task, {p: make_agent("random", task) for p in task.party_ids}, seed=seed) for seed in range(40)]
    deals = [d for d in dialogues if d.outcome.agreed]
    assert deals and all(d.outcome.deal["remote"] in range(6) for d in deals)
    assert all(Dialogue.model_validate_json(d.model_dump_json()).outcome == task.judge(d) for d in dialogues), "the replayed judge agrees"
    figures = task.episode_metrics(dialogues[0])
    assert figures["score_recruiter"] == dialogues[0].outcome.scores["recruiter"] and "score_candidate" in figures
    task.reset(seed=1)
    assert task.observe("candidate").role == "candidate" == task.to_dialogue().parties[1].role, "one source of roles"
    assert isinstance(task.sample_action(task.to_move, random.Random(0)), actions.Action)


def _offer_schema(task_id):
    from duologue.tasks import make

    task = make(task_id)
    task.reset(seed=2)
    return task, task.action_schema(task.to_move)


def test_the_rl_menu_covers_every_value_of_an_enum_and_a_small_integer_range_and_every_kind(joboffer):
    import random

    from duologue.core import moves

    _, schema = _offer_schema(joboffer)
    entries, cut = moves.menu(schema, random.Random(0), 128)
    offers = [e for e in entries if e["kind"] == "job-offer"]
    assert {e["remote"] for e in offers} == set(range(6)), "a learner can choose every remote day"
    assert len(offers) == 4 * 3 * 6 and not cut
    assert {e["kind"] for e in entries} == set(moves.kinds(schema))
    small, cut = moves.menu(schema, random.Random(0), 10)
    assert {e["kind"] for e in small} == set(moves.kinds(schema)), "every kind keeps an entry"
    assert len(small) == 10 and cut == {"job-offer": 72 - 8}


def test_the_environment_says_what_its_menu_cut(joboffer):
    pytest.importorskip("gymnasium")
    import warnings

    from duologue.envs import gymnasium_env
    from duologue.envs.spaces import MenuCutWarning

    env = gymnasium_env(joboffer, partner="random", max_actions=8)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for seed in range(6):
            _, info = env.reset(seed=seed)
            if "menu_cut" in info:
                break
    assert info["menu_cut"]["job-offer"] == 72 - 6
    assert any(issubclass(w.category, MenuCutWarning) and "job-offer" in str(w.message) for w in caught)


def test_the_llm_and_the_terminal_list_an_enums_choices_and_an_integer_ranges_bounds(joboffer):
    from duologue.agents.human import help_text
    from duologue.agents.llm import describe_moves

    _, schema = _offer_schema(joboffer)
    line = describe_moves(schema, 100)
    assert '"salary": 60|70|80|90' in line and '"start": "june"|"july"|"september"' in line and '"remote": <0..5>' in line
    assert "<value>" not in line
    shown = help_text(schema)
    assert "/job-offer <salary: 60|70|80|90> <start: june|july|september> <remote 0..5>" in shown


def test_a_plugin_with_values_gets_baselines_outcome_analytics_surplus_ratings_and_the_figure(joboffer, tmp_path):
    """Issue's promise for an author who declares values and nothing more: the classic negotiators
    reach deals, `report` prints the Pareto and Nash figures and rates by surplus, and its HTML
    report draws the utility space."""
    import re
    from html import unescape

    from typer.testing import CliRunner

    from duologue.cli import app
    from duologue.tasks import make

    runner = CliRunner()
    listing = runner.invoke(app, ["tasks", "--json"])
    assert listing.exit_code == 0, listing.output
    listed = next(row for row in json.loads(listing.output) if row["id"] == joboffer)
    assert {"boulware", "conceder", "tit-for-tat"} <= {name.strip() for name in listed["agents"].split(",")}
    out = tmp_path / "joboffer.jsonl"
    played = runner.invoke(app, ["play", "-t", joboffer, "-a", "conceder,tit-for-tat", "-n", "12", "--seed", "0", "--out", str(out)])
    assert played.exit_code == 0, played.output
    dialogues = [Dialogue.model_validate_json(line) for line in out.read_text().splitlines()]
    assert sum(bool(d.outcome and d.outcome.agreed) for d in dialogues) >= len(dialogues) // 2, "the baselines reach deals"
    task = make(joboffer)
    figures = task.episode_metrics(next(d for d in dialogues if d.outcome and d.outcome.agreed))
    assert {"pareto_efficient", "frontier_distance", "nash_distance", "surplus"} <= set(figures)
    page = tmp_path / "report.html"
    report = runner.invoke(app, ["report", str(out), "--ratings", "--html", str(page)], env={"COLUMNS": "240"})
    assert report.exit_code == 0, report.output
    text = " ".join(report.output.split())
    assert "Pareto share" in text and "distance to Nash" in text and "surplus over walk-away" in text
    assert "larger surplus over one's own walk-away wins" in text, "ratings compare as the spec says"
    alts = [unescape(alt) for alt in re.findall(r'<img alt="([^"]*)" src="data:image/png;base64,', page.read_text())]
    assert any("utility space" in alt for alt in alts)

"""Round-robin tournaments: pairings, seats, resuming, the leaderboards they end with, and `duologue tournament`."""

import json
from html.parser import HTMLParser
from pathlib import Path

import pytest
from typer.testing import CliRunner

from duologue.arena import tournament as tournament_module
from duologue.arena.tournament import (
    episodes_done,
    loads_a_model,
    pairing_file,
    pairings,
    play_pairing,
    run_tournament,
    total_episodes,
)
from duologue.cli import app
from duologue.core import actions
from duologue.core.agent import Agent

runner = CliRunner()


def board(tournament, method="bradley-terry", role=None):
    return next(b for b in tournament.leaderboards if b.method == method and b.role == role)


def rating(leaderboard, name):
    return next(row for row in leaderboard.rows if row.name == name)


def test_every_ordered_pair_plays_including_self_pairs_and_repeats_are_dropped():
    assert pairings(["rule", "random", "rule"]) == [("rule", "rule"), ("rule", "random"), ("random", "rule"), ("random", "random")]
    assert len(pairings(["a", "b", "c"])) == 9


def test_a_local_llm_is_recognised_and_gets_its_own_episode_count():
    assert loads_a_model("llm:local") and not loads_a_model("llm:openai/gpt-4o-mini") and not loads_a_model("rule")
    assert total_episodes(["rule", "llm:local"], episodes=10, llm_episodes=2) == 10 + 2 + 2 + 2
    assert total_episodes(["rule", "llm:local"], episodes=10) == 40


def test_pairing_files_have_safe_names(tmp_path: Path):
    path = pairing_file(tmp_path, "casino-v0", ("llm:openai/gpt-4o-mini", "rule"))
    assert path.parent == tmp_path and path.name == "casino-v0__llm_openai_gpt-4o-mini__vs__rule.jsonl"


def test_rule_is_rated_above_random_on_casino():
    result = run_tournament("casino-v0", ["rule", "random"], episodes=10, seed=0, bootstrap=200)
    assert [(p.first, p.second) for p in result.pairings] == pairings(["rule", "random"])
    assert all(p.episodes == 10 for p in result.pairings) and len(result.dialogues) == 40
    for method in ("bradley-terry", "elo"):
        pooled = board(result, method)
        assert [row.name for row in pooled.rows] == ["rule", "random"]
        assert rating(pooled, "rule").rating > 1000 > rating(pooled, "random").rating
        assert rating(pooled, "rule").games == 20  # the two mixed pairings; self-play left out
    for role in ("mturk_agent_1", "mturk_agent_2"):
        assert rating(board(result, role=role), "rule").rating > rating(board(result, role=role), "random").rating


def test_the_first_spec_sits_in_the_first_seat():
    result, dialogues = play_pairing("craigslist-v0", ("random", "rule"), episodes=3, seed=1)
    assert (result.first, result.second, result.episodes) == ("random", "rule", 3)
    for dialogue in dialogues:
        assert dialogue.meta["agents"] == {"0": "random", "1": "rule"}
        assert {p.id: p.role for p in dialogue.parties} == {"0": "buyer", "1": "seller"}


def test_a_rerun_resumes_and_plays_only_the_missing_episodes(tmp_path: Path):
    played = []
    first = run_tournament("casino-v0", ["rule", "random"], episodes=3, out_dir=tmp_path, bootstrap=0, on_episode=played.append)
    assert len(played) == 12 and len(first.dialogues) == 12
    assert episodes_done(tmp_path, "casino-v0", ["rule", "random"], episodes=5, seed=0) == 12
    played.clear()
    second = run_tournament("casino-v0", ["rule", "random"], episodes=5, out_dir=tmp_path, bootstrap=0, on_episode=played.append)
    assert len(played) == 4 * 2  # two more episodes in each of the four pairings
    assert len(second.dialogues) == 20 and all(p.episodes == 5 for p in second.pairings)
    for pair in pairings(["rule", "random"]):
        lines = pairing_file(tmp_path, "casino-v0", pair).read_text().splitlines()
        assert sorted(json.loads(line)["meta"]["episode"] for line in lines) == [0, 1, 2, 3, 4]
    played.clear()
    again = run_tournament("casino-v0", ["rule", "random"], episodes=5, out_dir=tmp_path, bootstrap=0, on_episode=played.append)
    assert played == [] and len(again.dialogues) == 20
    # the episodes read back are the ones first played: the same games, the same ratings
    assert {d.id for d in again.dialogues} == {d.id for d in second.dialogues}
    assert again.leaderboards == second.leaderboards


def test_backend_options_are_passed_through_only_when_asked(monkeypatch):
    calls = []
    real = tournament_module.run_selfplay

    def spy(config, **kwargs):
        calls.append(dict(kwargs))
        kwargs.pop("backend", None), kwargs.pop("address", None)
        return real(config, **kwargs)

    monkeypatch.setattr(tournament_module, "run_selfplay", spy)
    play_pairing("casino-v0", ("rule", "random"), episodes=1)
    assert "backend" not in calls[-1] and "address" not in calls[-1]
    play_pairing("casino-v0", ("rule", "random"), episodes=1, backend="ray", address="auto")
    assert calls[-1]["backend"] == "ray" and calls[-1]["address"] == "auto"


def test_the_report_has_a_leaderboard_figure_per_board_and_no_external_urls(tmp_path: Path):
    pytest.importorskip("matplotlib")
    from duologue.arena.tournament import tournament_report

    result = run_tournament("casino-v0", ["rule", "random"], episodes=3, bootstrap=50)
    report = tournament_report(result)
    path = report.write(tmp_path / "t.html")
    text = path.read_text()

    class Images(HTMLParser):
        sources: list[str] = []

        def handle_starttag(self, tag, attrs):
            if tag == "img":
                self.sources.append(dict(attrs)["src"])

    parser = Images()
    parser.feed(text)
    assert len([b for b in result.leaderboards if b.rows]) == 6
    assert len(parser.sources) == 6 + 1  # and the utility-space figure: CaSiNo declares values
    assert "utility space" in text
    assert all(src.startswith("data:image/png;base64,") for src in parser.sources)
    assert "http://" not in text and "https://" not in text
    assert "rule (mturk_agent_1) vs random (mturk_agent_2)" in text


# --------------------------------------------------------------------------- the command


def run(*args: str):
    return runner.invoke(app, ["tournament", *args])


def test_the_command_prints_the_pairings_and_the_leaderboards():
    result = run("--task", "casino-v0", "--agents", "rule,random", "-n", "4", "--bootstrap", "50")
    assert result.exit_code == 0, result.output
    assert "casino-v0 tournament" in result.stdout
    assert "Bradley-Terry, both roles pooled" in result.stdout and "Elo as mturk_agent_2" in result.stdout
    assert "95% interval" in result.stdout and "order sd" in result.stdout


def test_json_output_and_a_resumable_out_folder(tmp_path: Path):
    out = tmp_path / "run"
    result = run("-t", "casino-v0", "-a", "rule", "-a", "random", "-n", "2", "--bootstrap", "20", "--out", str(out), "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["agents"] == ["rule", "random"] and len(data["pairings"]) == 4
    assert {b["method"] for b in data["leaderboards"]} == {"bradley-terry", "elo"}
    assert "dialogues" not in data
    assert len(list(out.glob("*.jsonl"))) == 4
    again = run("-t", "casino-v0", "-a", "rule,random", "-n", "2", "--bootstrap", "20", "--out", str(out), "--format", "json")
    assert again.exit_code == 0 and "resumed: 8 episode(s)" in again.stderr
    assert json.loads(again.stdout)["leaderboards"] == data["leaderboards"]


def test_report_option_writes_html(tmp_path: Path):
    pytest.importorskip("matplotlib")
    report = tmp_path / "t.html"
    result = run("-t", "casino-v0", "-a", "rule,random", "-n", "2", "--bootstrap", "20", "--report", str(report))
    assert result.exit_code == 0, result.output
    assert report.read_text().startswith("<!DOCTYPE html>")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-t", "casino-v0", "-a", "rule,randm"], "Did you mean 'random'"),
        (["-t", "casno-v0", "-a", "rule,random"], "Did you mean 'casino-v0'"),
        (["-t", "casino-v0", "-a", "rule"], "at least two different agent specs"),
        (["-t", "casino-v0", "-a", "rule,rule"], "at least two different agent specs"),
        (["-t", "casino-v0", "-a", "rule,random", "--format", "xml"], "use table or json"),
        (["-t", "casino-v0", "-a", "rule,random", "--backend", "slurm"], "choose one of local, ray"),
        (["-t", "casino-v0", "-a", "rule,random", "--report", "out.pdf"], ".html file"),
        (["-t", "casino-v0", "-a", "rule,random", "--address", "auto"], "use it with --backend ray"),
    ],
)
def test_bad_input_is_a_clear_message_and_exit_1(args, message):
    result = run(*args)
    assert result.exit_code == 1
    assert message in result.stderr
    assert "Traceback" not in result.output


def test_an_out_path_that_is_a_file_is_refused(tmp_path: Path):
    taken = tmp_path / "file.jsonl"
    taken.write_text("")
    result = run("-t", "casino-v0", "-a", "rule,random", "--out", str(taken))
    assert result.exit_code == 1 and "is a file" in result.stderr


# --------------------------------------------------------------------------- a task from outside duologue


class Greedy(Agent):
    """Asks for 8 of the toy task's 10 coins and takes any offer: it should beat a random player."""

    def act(self, observation):
        return actions.Accept() if "accept" in observation.legal else actions.Offer(price=8)


@pytest.fixture
def greedy_coins(monkeypatch):
    """The toy task (tests/toy_task.py) with one more agent, registered from outside the package."""
    from duologue import tasks
    from toy_task import CoinSplit

    class CoinsWithGreedy(CoinSplit):
        agents = {"greedy": Greedy}

    monkeypatch.setitem(tasks.TASKS, CoinsWithGreedy.spec.id, CoinsWithGreedy)
    return CoinsWithGreedy.spec.id


def test_a_task_registered_from_outside_is_rated_with_its_spec_metrics(greedy_coins):
    result = run_tournament(greedy_coins, ["greedy", "random"], episodes=20, seed=0, bootstrap=100)
    pooled = board(result)
    assert pooled.kind == "competitive" and [row.name for row in pooled.rows] == ["greedy", "random"]
    assert rating(pooled, "greedy").rating > 1000 > rating(pooled, "random").rating
    assert all("agreement" in p.metrics for p in result.pairings)


def test_the_command_rates_a_task_registered_from_outside(greedy_coins):
    result = run("--task", greedy_coins, "--agents", "greedy,random", "-n", "6", "--bootstrap", "20")
    assert result.exit_code == 0, result.output
    assert "no score" not in result.output and "could be rated" not in result.output
    assert "Bradley-Terry, both roles pooled" in result.stdout and "agreement" in result.stdout

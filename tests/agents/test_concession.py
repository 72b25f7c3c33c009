"""The classic baselines (Boulware, linear, Conceder, tit-for-tat) on every task that declares values:
listed, accepted as a study's bot partner, refused elsewhere, reaching deals against the rule bots,
and saying only the offer they make next."""

from __future__ import annotations

import pytest

from duologue.agents import AgentSpecError, agent_kinds, check_agent, declares_values, make_agent
from duologue.agents.concession import aspiration
from duologue.arena.selfplay import PlayConfig, run_selfplay
from duologue.core.schema import Dialogue
from duologue.tasks import make, task_ids

BASELINES = ("boulware", "linear", "conceder", "tit-for-tat")
VALUED = [t for t in task_ids() if declares_values(make(t))]


def test_the_values_tasks_are_the_negotiations():
    assert {"casino-v0", "dealornodeal-v0", "craigslist-v0"} <= set(VALUED)
    assert "mutualfriends-v0" not in VALUED and "openchat-v0" not in VALUED


def test_aspiration_follows_the_time_based_schedule():
    assert aspiration(0.0, 0.2) == 1.0 and aspiration(1.0, 5.0) == 0.0
    assert aspiration(0.5, 0.2) == pytest.approx(1 - 0.5**5)  # Boulware holds firm
    assert aspiration(0.5, 2.0) == pytest.approx(1 - 0.5**0.5)  # Conceder gives way early
    assert aspiration(0.5, 0.2) > aspiration(0.5, 1.0) > aspiration(0.5, 2.0)


@pytest.mark.parametrize("task_id", VALUED)
def test_listed_and_buildable_where_values_are_declared(task_id):
    task = make(task_id)
    assert set(BASELINES) <= set(agent_kinds(task))
    for spec in BASELINES:
        check_agent(spec, make(task_id))


def test_refused_with_a_reason_where_no_values_are_declared():
    task = make("mutualfriends-v0")
    assert not set(BASELINES) & set(agent_kinds(task))
    with pytest.raises(AgentSpecError, match="declares no values"):
        check_agent("boulware", task)
    with pytest.raises(AgentSpecError, match="exponent"):
        check_agent("boulware:soft", make("casino-v0"))


def test_a_study_takes_a_baseline_as_its_bot_partner():
    from duologue.web.study import Study, Partner
    from duologue.web.study_check import study_problems

    study = Study(id="b", task="casino-v0", partners=[Partner(kind="human"), Partner(kind="bot", agent="tit-for-tat")], quotas={"bot:tit-for-tat": 2})
    assert study_problems(study) == []
    wrong = Study(id="c", task="mutualfriends-v0", partners=[Partner(kind="bot", agent="conceder")], quotas={})
    assert any("declares no values" in p for p in study_problems(wrong))


def _play(task_id: str, pair: list[str], episodes: int) -> list[Dialogue]:
    return [Dialogue.model_validate_json(line) for line in run_selfplay(PlayConfig(task=task_id, agents=pair, episodes=episodes, seed=0))]


@pytest.mark.parametrize("task_id", VALUED)
@pytest.mark.parametrize("baseline", BASELINES)
def test_baselines_reach_deals_against_the_rule_bot_in_both_seats(task_id, baseline):
    played = [*_play(task_id, [baseline, "rule"], 6), *_play(task_id, ["rule", baseline], 6)]
    agreed = sum(bool(d.outcome and d.outcome.agreed) for d in played)
    assert agreed >= 8, f"{baseline} on {task_id}: {agreed}/12 deals"


@pytest.mark.parametrize("task_id", VALUED)
def test_two_baselines_reach_deals_with_each_other(task_id):
    played = _play(task_id, ["boulware", "tit-for-tat"], 4) + _play(task_id, ["conceder", "boulware"], 4)
    assert all(d.outcome and d.outcome.agreed for d in played), [d.outcome.reason for d in played if d.outcome]


@pytest.mark.parametrize("task_id", VALUED)
def test_what_a_baseline_says_is_the_offer_it_makes_next(task_id):
    task = make(task_id)
    checked = 0
    for dialogue in _play(task_id, ["conceder", "rule"], 4):
        seat = next(p for p, a in dialogue.meta["agents"].items() if a == "conceder")
        values = task.values(dialogue.scenario)
        mine = [e for e in dialogue.events if e.party == seat]
        for said, then in zip(mine, mine[1:], strict=False):
            offer = values.proposed(then, task.other(seat))
            if said.kind == "message" and offer is not None:
                assert said.text == values.describe(seat, offer)
                checked += 1
    if task_id != "dealornodeal-v0":  # there an offer is made in words alone
        assert checked


def test_a_baseline_beats_nobody_by_breaking_rules():
    task = make("casino-v0")
    dialogue = _play("casino-v0", ["boulware", "conceder"], 3)
    assert all(sum(d.meta["illegal_actions"].values()) == 0 for d in dialogue)
    assert make_agent("boulware:0.5", task).exponent == 0.5


def test_duologue_tasks_lists_the_baselines_for_the_tasks_with_values():
    from typer.testing import CliRunner

    from duologue.cli import app

    listed = CliRunner().invoke(app, ["tasks"], env={"COLUMNS": "400"})
    assert listed.exit_code == 0, listed.output
    rows = {line.split("│")[1].strip(): line for line in listed.stdout.splitlines() if line.count("│") > 2 and line.split("│")[1].strip()}
    assert "boulware, linear, conceder, tit-for-tat" in rows["casino-v0"]
    assert "boulware" not in rows["mutualfriends-v0"]

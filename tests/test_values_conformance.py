"""Declared values agree with the rules on every registered task that declares them, and the check
catches values that disagree with the judge."""

from __future__ import annotations

import pytest

from duologue.agents import declares_values
from duologue.tasks import TASKS, make, register, task_ids
from duologue.tasks.casino.task import CasinoTask
from duologue.tasks.casino.values import CasinoValues
from duologue.testing import ConformanceError
from duologue.testing_values import check_values, value_problems


@pytest.mark.parametrize("task_id", [t for t in task_ids() if declares_values(make(t))])
def test_every_task_with_values_passes(task_id):
    check_values(task_id)


class Inflated(CasinoValues):
    def value(self, party, deal):
        return super().value(party, deal) + 1  # one point more than the judge gives


class WrongWalk(CasinoValues):
    def walk_away(self, party):
        return 0.0  # the judge gives 5


class InflatedCasino(CasinoTask):
    spec = CasinoTask.spec.model_copy(update={"id": "casino-inflated-v0"})

    def values(self, scenario):
        return Inflated(self.party_ids, scenario)


@pytest.fixture
def inflated():
    task_id = register(InflatedCasino)
    yield task_id
    TASKS.pop(task_id, None)


def test_values_that_disagree_with_the_judge_are_named(inflated):
    with pytest.raises(ConformanceError, match=r"is worth \d+(\.\d+)? to mturk_agent_\d by the values but scores"):
        check_values(inflated)


def test_a_walk_away_value_that_is_not_the_no_deal_score_is_named(monkeypatch):
    from duologue.core import actions
    from duologue.testing_values import _outcome_problems

    task = make("casino-v0")
    task.reset(seed=0)
    task.step(actions.WalkAway())
    dialogue = task.to_dialogue()
    assert _outcome_problems(task, dialogue) == []
    monkeypatch.setattr(CasinoTask, "values", lambda self, scenario: WrongWalk(self.party_ids, scenario))
    found = _outcome_problems(task, dialogue)
    assert len(found) == 2 and all("scores 5.0" in p and "walk-away value is 0.0" in p for p in found)


def test_comparing_by_surplus_without_values_is_named():
    from duologue.tasks.mutualfriends.task import MutualFriendsTask

    class Surplus(MutualFriendsTask):
        spec = MutualFriendsTask.spec.model_copy(update={"id": "mutualfriends-surplus-v0", "compare": "surplus"})

    task_id = register(Surplus)
    try:
        assert value_problems(task_id) == ["spec.compare is 'surplus', which needs declared values (Task.values), and the task declares none"]
        assert value_problems("mutualfriends-v0") == []
    finally:
        TASKS.pop(task_id, None)

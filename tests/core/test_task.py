"""The Task base class, the episode loop and the conformance checker, on the toy task of tests/toy_task.py."""

import random

import pytest

from duologue import tasks
from duologue.core import actions
from duologue.core.agent import Agent, RandomAgent
from duologue.core.episode import play_episode
from duologue.core.task import IllegalAction
from duologue.testing import ConformanceError, check_task
from toy_task import CoinSplit


def test_unknown_task_ids_suggest_close_ones(coins):
    with pytest.raises(KeyError, match="Did you mean 'coins-v0'"):
        tasks.make("coin-v0")


def test_a_registered_task_passes_the_checker(coins):
    check_task(coins, episodes=10)


def test_the_checker_catches_a_leak(coins, monkeypatch):
    monkeypatch.setattr(CoinSplit, "leak", True)
    with pytest.raises(ConformanceError, match="private value 'word"):
        check_task(coins, episodes=2)


def test_the_checker_catches_nondeterminism(coins, monkeypatch):
    original = CoinSplit.generate_scenario
    monkeypatch.setattr(CoinSplit, "generate_scenario", lambda self, rng: original(self, random.Random()))
    with pytest.raises(ConformanceError, match="same seed"):
        check_task(coins, episodes=2)


def test_illegal_moves_are_refused_counted_and_change_nothing(coins):
    task = tasks.make(coins)
    task.reset(seed=1)
    mover = task.to_move
    with pytest.raises(IllegalAction, match="offer between 0 and 10"):
        task.step(actions.Offer(price=11))
    with pytest.raises(IllegalAction, match="accept is not allowed now"):
        task.step(actions.Accept())
    with pytest.raises(IllegalAction, match="turn"):
        task.step(actions.Say(text="me first"), task.other(mover))
    assert task.illegal == {mover: 2, task.other(mover): 1}
    assert task.events == []


def test_turn_limit_truncates_and_is_recorded(coins):
    task = tasks.make(coins, max_turns=2)
    task.reset(seed=3)
    task.step(actions.Say(text="a"))
    task.step(actions.Say(text="b"))
    terminated, truncated, outcome = task.last()
    assert (terminated, truncated) == (False, True)
    assert outcome.reason == "turn_limit"
    assert task.events[-1].kind == "system"


class Stubborn(Agent):
    name = "stubborn"

    def act(self, observation):
        return actions.Offer(price=99)


def test_an_agent_that_keeps_breaking_the_rules_ends_the_episode(coins):
    task = tasks.make(coins)
    dialogue = play_episode(task, {"0": Stubborn(), "1": Stubborn()}, seed=0)
    assert dialogue.outcome.reason == "illegal_actions"
    assert sum(dialogue.meta["illegal_actions"].values()) == 3
    assert [p.agent for p in dialogue.parties] == ["stubborn", "stubborn"]


def test_episodes_are_reproducible_and_seeds_differ(coins):
    a = play_episode(tasks.make(coins), {"0": RandomAgent(), "1": RandomAgent()}, seed=5)
    b = play_episode(tasks.make(coins), {"0": RandomAgent(), "1": RandomAgent()}, seed=5)
    c = play_episode(tasks.make(coins), {"0": RandomAgent(), "1": RandomAgent()}, seed=6)
    assert a == b
    assert a.scenario != c.scenario


@pytest.mark.parametrize("parties", [("a", "a"), ("", " "), (" a", "b")])
def test_a_spec_needs_two_different_visible_party_ids(parties):
    from pydantic import ValidationError

    from toy_task import CoinSplit

    with pytest.raises(ValidationError, match="part(y|ies)"):
        CoinSplit.spec.model_validate({**CoinSplit.spec.model_dump(), "parties": parties})


# --------------------------------------------------------------------------- one clear name each


def test_a_variant_is_registered_with_options_and_carries_its_own_id():
    from duologue.tasks import TASKS, VARIANTS, register, spec
    from duologue.testing import check_task

    task_id = register(CoinSplit, id="coins-short-v0", kwargs={"max_turns": 4})
    try:
        task = tasks.make(task_id)
        assert task.max_turns == 4 and task.id == task_id and spec(task_id).id == task_id
        assert tasks.make(task_id, max_turns=6).max_turns == 6, "options given to make() win over the variant's"
        task.reset(seed=1)
        dialogue = task.to_dialogue()
        assert dialogue.task_id == task_id and dialogue.family == "coins" == dialogue.task
        check_task(task_id, episodes=2)
        with pytest.raises(KeyError, match="max_turn"):
            register(CoinSplit, id="coins-bad-v0", kwargs={"max_turn": 4})
    finally:
        TASKS.pop(task_id, None)
        VARIANTS.pop(task_id, None)


def test_status_is_last_under_a_clear_name_and_the_default_judge_agrees_with_it():
    from duologue.core.agent import RandomAgent
    from duologue.core.episode import play_episode

    task = CoinSplit()
    dialogue = play_episode(task, {p: RandomAgent() for p in task.party_ids}, seed=4)
    assert task.status() == task.last() and task.status()[2] == dialogue.outcome


def test_roles_come_from_the_parties_of_the_episode_whoever_built_them():
    from duologue.core.schema import Party

    class Roles(CoinSplit):
        def make_parties(self, scenario):
            return [Party(id=p, kind="bot", role=f"role{p}") for p in self.party_ids]

    task = Roles()
    task.reset(seed=1, parties=[Party(id="0", kind="human"), Party(id="1", kind="bot")])
    assert [task.observe(p).role for p in task.party_ids] == ["role0", "role1"]
    assert [p.role for p in task.to_dialogue().parties] == ["role0", "role1"]

"""The Task base class, the episode loop and the conformance checker, on a toy task defined here."""

import random

import pytest

from duologue import tasks
from duologue.core import actions
from duologue.core.agent import Agent, RandomAgent
from duologue.core.episode import play_episode
from duologue.core.schema import Dialogue, Outcome, Scenario
from duologue.core.task import IllegalAction, Task
from duologue.testing import ConformanceError, check_task


class CoinSplit(Task):
    """Two parties split 10 coins: one offers a number for itself, the other accepts or rejects.

    Each party has a private "lucky word" that must never reach the other party.
    """

    id = "coins-v0"
    family = "craigslist"
    party_ids = ("0", "1")
    default_max_turns = 12
    leak = False

    def generate_scenario(self, rng):
        return Scenario(public={"coins": 10}, private={p: {"lucky": f"word{rng.randrange(10**6)}"} for p in self.party_ids})

    def _on_reset(self):
        self.pending = None

    def _legal_kinds(self, party):
        return ["accept", "reject"] if self.pending else ["say", "offer", "quit"]

    def _check(self, party, action):
        if isinstance(action, actions.Offer) and not 0 <= action.price <= 10:
            return "offer between 0 and 10 coins"
        return None

    def _apply(self, party, action):
        if isinstance(action, actions.Offer):
            self.pending = action.price
        elif isinstance(action, actions.Reject):
            self.pending = None
        elif isinstance(action, (actions.Accept, actions.Quit)):
            self._terminate(action.kind)

    def observe(self, party):
        observation = super().observe(party)
        if self.leak:
            observation.feedback.append(str(self.scenario.private[self.other(party)]["lucky"]))
        return observation

    def judge(self, dialogue: Dialogue) -> Outcome:
        events = dialogue.events
        if events and events[-1].kind == "accept":
            offer = events[-2]
            return Outcome(reason="agreement", agreed=True, deal={"price": offer.price}, scores={offer.party: offer.price, "01".replace(offer.party, ""): 10 - offer.price})
        reason = events[-1].name if events and events[-1].kind == "system" else "quit"
        return Outcome(reason=reason, agreed=False)

    def sample_action(self, party, rng):
        kind = rng.choice(self._legal_kinds(party))
        if kind == "offer":
            return actions.Offer(price=rng.randint(0, 10))
        if kind == "say":
            return actions.Say(text=rng.choice(["hi", "give me more", "fair?"]))
        return actions.BY_KIND[kind]()


@pytest.fixture
def coins(monkeypatch):
    monkeypatch.setitem(tasks.TASKS, "coins-v0", f"{__name__}:CoinSplit")
    return "coins-v0"


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

"""Every registered task must pass the conformance checker shipped in the library, and the checker
must catch tasks that break the contracts (a checker that passes everything proves nothing)."""

from __future__ import annotations

from typing import Literal

import pytest

from duologue.core import actions, moves
from duologue.core.schema import EventBase, Message
from duologue.tasks import TASKS, register, task_ids
from duologue.tasks.casino.task import CasinoTask
from duologue.tasks.craigslist.task import CraigslistTask
from duologue.tasks.dealornodeal.task import Choose, DealOrNoDealTask
from duologue.testing import ConformanceError, check_task
from toy_task import CoinSplit


@pytest.mark.parametrize("task_id", task_ids())
def test_task_conforms(task_id: str):
    check_task(task_id, episodes=15, seed=0)


# --------------------------------------------------------------------------- broken variants the checker must catch


class LeakyPriorities(CasinoTask):
    """Appends the partner's priorities (short labels that also appear in the public view) to every observation."""

    spec = CasinoTask.spec.model_copy(update={"id": "leaky-priorities-v0"})

    def observe(self, party):
        observation = super().observe(party)
        partner = self.scenario.private[self.other(party)]["priorities"]
        observation.feedback.append(" ".join(partner[issue] for issue in sorted(partner)))
        return observation


class LeakyDigit(CraigslistTask):
    """Shows the first digit of the partner's target price: one character, a number."""

    spec = CraigslistTask.spec.model_copy(update={"id": "leaky-digit-v0"})

    def observe(self, party):
        observation = super().observe(party)
        target = self.scenario.private[self.other(party)]["target"]
        observation.feedback.append(str(target)[0])
        return observation


class LooseSchema(CoinSplit):
    """Its action schema admits offers its rules refuse."""

    spec = CoinSplit.spec.model_copy(update={"id": "loose-schema-v0"})

    def move_schema(self, party, kind):
        if kind == "offer":
            return moves.move(kind, {"price": {"type": "integer", "minimum": 50, "maximum": 60}})
        return super().move_schema(party, kind)


class NoSpec(CoinSplit):
    spec = None  # type: ignore[assignment]


class WrongClosingMove(DealOrNoDealTask):
    """Answers the other party's private choice with the same choice, which closes no deal."""

    spec = DealOrNoDealTask.spec.model_copy(update={"id": "wrong-closing-v0"})

    def closing_moves(self, party):
        return [Choose(mine=dict(c.mine), theirs=dict(c.theirs)) for p, c in self.chosen.items() if p != party and party not in self.chosen]


class LeakyItems(CoinSplit):
    """Shows the partner's lucky word in the rows beside the chat (a slip in `items`, not `observe`)."""

    spec = CoinSplit.spec.model_copy(update={"id": "leaky-items-v0"})

    def items(self, observation):
        return [{"lucky": self.scenario.private[self.other(observation.party)]["lucky"]}]


class NarrowSchema(CoinSplit):
    """Its schema admits offers up to 5, its rules and random play up to 10: people could never ask for 6."""

    spec = CoinSplit.spec.model_copy(update={"id": "narrow-schema-v0"})

    def move_schema(self, party, kind):
        if kind == "offer":
            return moves.move(kind, {"price": {"type": "integer", "minimum": 0, "maximum": 5}})
        return super().move_schema(party, kind)


class RaisingJudge(CoinSplit):
    spec = CoinSplit.spec.model_copy(update={"id": "raising-judge-v0"})

    def judge(self, dialogue):
        raise KeyError("2")


class EndlessTurns(CoinSplit):
    spec = CoinSplit.spec.model_copy(update={"id": "endless-v0"})
    default_max_turns = 10**9


@pytest.mark.parametrize(
    "variant, words",
    [
        (LeakyItems, "private value"),
        (NarrowSchema, "which action_schema does not admit"),
        (RaisingJudge, "the episode checks crashed: KeyError"),
        (EndlessTurns, "max_turns is 1000000000"),
    ],
)
def test_checker_catches_what_a_first_plugin_gets_wrong_and_names_it(registered, variant, words):
    with pytest.raises(ConformanceError, match=words):
        check_task(registered(variant), episodes=10)


@pytest.fixture
def registered():
    added: list[str] = []

    def add(cls, task_id=None):
        added.append(register(cls, id=task_id) if task_id else register(cls))
        return added[-1]

    yield add
    for task_id in added:
        TASKS.pop(task_id, None)


def test_checker_catches_a_leak_of_short_labels_that_the_public_view_also_uses(registered):
    with pytest.raises(ConformanceError, match="depends on 'mturk_agent_\\d'.s private view"):
        check_task(registered(LeakyPriorities), episodes=2)


def test_checker_catches_a_leak_of_one_digit_of_a_private_number(registered):
    with pytest.raises(ConformanceError, match="private view"):
        check_task(registered(LeakyDigit), episodes=2)


def test_checker_catches_an_action_schema_that_admits_illegal_moves(registered):
    with pytest.raises(ConformanceError, match="refuses a move its own action schema admits"):
        check_task(registered(LooseSchema), episodes=2)


def test_checker_catches_a_closing_move_that_closes_no_deal(registered):
    with pytest.raises(ConformanceError, match="not a legal move that closes a deal"):
        check_task(registered(WrongClosingMove), episodes=4)


def test_a_task_without_a_spec_is_the_checker_s_own_error(registered):
    with pytest.raises(ConformanceError, match="has no `spec`"):
        check_task(registered(NoSpec, "nospec-v0"), episodes=1)


def test_the_honest_variants_pass(registered):
    check_task(registered(CoinSplit), episodes=3)


# --------------------------------------------------------------------------- the secret search compares whole JSON values


class LeakyTenths(CoinSplit):
    """Each party privately holds a share in tenths; the observer is shown its own share only,
    while the partner's share (0.9) is a prefix of the observer's own (0.94) as text."""

    spec = CoinSplit.spec.model_copy(update={"id": "leaky-tenths-v0"})
    shown_share = "own"

    def generate_scenario(self, rng):
        scenario = super().generate_scenario(rng)
        scenario.private["0"]["share"], scenario.private["1"]["share"] = 0.9, 0.94
        scenario.private["0"]["code"], scenario.private["1"]["code"] = 3, 8
        return scenario

    def observe(self, party):
        observation = super().observe(party)
        mine = self.scenario.private[party]
        observation.feedback.append(f"your share is {mine['share']}")
        if self.shown_share == "partner-code":
            observation.feedback.append(f"hint: {self.scenario.private[self.other(party)]['code']}")
        return observation


class LeakyOneDigit(LeakyTenths):
    spec = CoinSplit.spec.model_copy(update={"id": "leaky-one-digit-v0"})
    shown_share = "partner-code"


def test_the_secret_search_finds_no_number_inside_a_longer_one_nor_a_party_id():
    from duologue.testing_privacy import leaks

    task = LeakyTenths()
    task.reset(seed=1)
    task.scenario.private["1"]["role"] = "0"  # a party id the other side also holds as a value: public
    assert leaks(task, task.observe("1")) is None, "0.9 is not shown inside 0.94"
    assert leaks(task, task.observe("0")) is None


def test_the_secret_search_finds_a_one_digit_secret():
    from duologue.testing_privacy import leaks

    task = LeakyOneDigit()
    task.reset(seed=1)
    assert leaks(task, task.observe("0")) == 8
    assert leaks(task, task.observe("1")) == 3


def test_checker_passes_a_share_shown_only_to_its_owner_and_catches_a_one_digit_leak(registered):
    check_task(registered(LeakyTenths), episodes=2)
    with pytest.raises(ConformanceError, match="private value 8|private value 3|private view"):
        check_task(registered(LeakyOneDigit), episodes=2)


# --------------------------------------------------------------------------- every legal kind reaches every front end


class Tag(actions.Action):
    """Tag the offer with words (a list: no front end of duologue can write one)."""

    kind: Literal["tag-words"] = "tag-words"
    labels: list[str]


actions.register_move(Tag)


class UnreachableKind(CoinSplit):
    """A move whose one field is a list: the RL menu, the LLM prompt, the terminal and the page form cannot make it."""

    spec = CoinSplit.spec.model_copy(update={"id": "unreachable-kind-v0"})

    def _legal_kinds(self, party):
        return super()._legal_kinds(party) + ([] if self.pending else ["tag-words"])

    def move_schema(self, party, kind):
        if kind == "tag-words":
            return moves.move(kind, {"labels": {"type": "array", "items": {"type": "string"}, "minItems": 1}})
        return super().move_schema(party, kind)

    def sample_action(self, party, rng):
        kind = rng.choice(self._legal_kinds(party))
        if kind == "tag-words":
            return Tag(labels=["fair"])
        if kind == "offer":
            return actions.Offer(price=rng.randint(0, 10))
        return actions.Say(text="ok") if kind == "say" else actions.BY_KIND[kind]()


def test_checker_fails_a_task_whose_front_ends_cannot_reach_a_kind(registered):
    with pytest.raises(ConformanceError) as failed:
        check_task(registered(UnreachableKind), episodes=1)
    for front in ("the RL move menu", "the LLM prompt", "the terminal", "the page form"):
        assert f"'tag-words' cannot be reached from {front}" in str(failed.value)


# --------------------------------------------------------------------------- stored events must replay


class Bid(actions.Action):
    """Name a number of coins, for talk only."""

    kind: Literal["bid-conformance"] = "bid-conformance"
    coins: int

    def to_event(self, party, time):
        return BidMade(party=party, time=time, amount=self.coins)  # stored under another name


class BidMade(EventBase):
    kind: Literal["bid-made-conformance"] = "bid-made-conformance"
    amount: int


actions.register_move(Bid, BidMade)


class RenamedBids(CoinSplit):
    """Stores its own move under another field name and never says how to read it back: every
    dialogue with a bid would stall on the platform's other workers."""

    spec = CoinSplit.spec.model_copy(update={"id": "renamed-bids-v0"})

    def _legal_kinds(self, party):
        kinds = super()._legal_kinds(party)
        return [*kinds, "bid-conformance"] if "offer" in kinds else kinds

    def sample_action(self, party, rng):
        kind = rng.choice(self._legal_kinds(party))
        if kind.startswith("bid"):
            return actions.BY_KIND[kind](coins=rng.randint(0, 10))
        if kind == "offer":
            return actions.Offer(price=rng.randint(0, 10))
        return actions.Say(text="hi") if kind == "say" else actions.BY_KIND[kind]()


class BidFromItsEvent(Bid):
    kind: Literal["bid-mapped-conformance"] = "bid-mapped-conformance"

    def to_event(self, party, time):
        return MappedBidMade(party=party, time=time, amount=self.coins)

    @classmethod
    def from_event(cls, event):
        return cls(coins=event.amount)


class MappedBidMade(BidMade):
    kind: Literal["bid-made-mapped-conformance"] = "bid-made-mapped-conformance"


actions.register_move(BidFromItsEvent, MappedBidMade)


class MappedBids(RenamedBids):
    """The same, with the task's own mapping from the stored event back to the move."""

    spec = CoinSplit.spec.model_copy(update={"id": "mapped-bids-v0"})

    def _legal_kinds(self, party):
        return [k.replace("bid-conformance", "bid-mapped-conformance") for k in super()._legal_kinds(party)]


class MoodyFeedback(CoinSplit):
    """Tells a party something drawn from the process's global RNG: a rebuilt engine shows another thing."""

    spec = CoinSplit.spec.model_copy(update={"id": "moody-feedback-v0"})

    def _apply(self, party, action):
        import random

        self.feedback[party].append(f"mood {random.random()}")
        super()._apply(party, action)


class ChattyEnd(CoinSplit):
    """Says goodbye for a party when the platform ends the dialogue: a stored message no move made."""

    spec = CoinSplit.spec.model_copy(update={"id": "chatty-end-v0"})

    def end(self, reason):
        if not self.done:
            self.events.append(Message(party=self.party_ids[0], time=self._now(), text="goodbye"))
        super().end(reason)


def test_checker_fails_a_task_whose_dialogues_ended_from_outside_do_not_replay(registered):
    with pytest.raises(ConformanceError, match=r"ended from outside the rules \(Task.end\) does not replay"):
        check_task(registered(ChattyEnd), episodes=3)


def test_checker_fails_a_task_whose_stored_events_do_not_replay(registered):
    with pytest.raises(ConformanceError, match="stored events do not replay .*bid-made-conformance.*does not map back"):
        check_task(registered(RenamedBids), episodes=3)


def test_checker_fails_a_task_whose_rebuilt_engine_shows_another_state(registered):
    with pytest.raises(ConformanceError, match="after replaying the stored events, observe"):
        check_task(registered(MoodyFeedback), episodes=2)


def test_a_task_s_own_mapping_from_event_to_move_replays(registered):
    check_task(registered(MappedBids), episodes=3)

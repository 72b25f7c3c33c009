"""A toy task for testing generic code (task base, episode loop, arena) without any real task."""

from duologue.core import actions, moves
from duologue.core.schema import Dialogue, Outcome, Scenario
from duologue.core.spec import Metric, TaskSpec
from duologue.core.task import Task


class CoinSplit(Task):
    """Two parties split 10 coins: one offers a number for itself, the other accepts or rejects.

    Each party has a private "lucky word" that must never reach the other party.
    """

    spec = TaskSpec(
        id="coins-v0",
        family="coins",
        title="Coin split",
        description="Two parties split 10 coins: one offers a number for itself, the other accepts or rejects.",
        parties=("0", "1"),
        kind="competitive",
        metrics=[Metric(name="agreement", label="agreement")],
        score="coins (out of 10)",
        judge_context="Two parties split 10 coins.",
        resources="duologue",
    )
    default_max_turns = 12
    leak = False

    def generate_scenario(self, rng):
        return Scenario(public={"coins": 10}, private={p: {"lucky": f"word{rng.randrange(10**6)}"} for p in self.party_ids})

    def _on_reset(self):
        self.pending = None

    def _legal_kinds(self, party):
        return ["accept", "reject"] if self.pending else ["say", "offer", "quit"]

    def move_schema(self, party, kind):
        if kind == "offer":
            return moves.move(kind, {"price": {"type": "integer", "minimum": 0, "maximum": 10}}, description="Ask for this many coins.")
        return super().move_schema(party, kind)

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


class CoinSplitV1(CoinSplit):
    """The same game under a newer version (a second registered version of one task)."""

    spec = CoinSplit.spec.model_copy(update={"id": "coins-v1"})

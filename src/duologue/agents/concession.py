"""Classic baseline negotiators for any task that declares values (`duologue.core.values`).

From the Genius / ANAC line (and NegMAS): **time-based concession**, whose aspiration at time
t in [0, 1] (the share of the turn budget used) is `1 - t^(1/e)` of the way from walking away to
the best it can get: `boulware` (e = 0.2, holds firm, concedes late), `linear` (e = 1) and
`conceder` (e = 2, concedes early); `boulware:0.1` sets e. And **tit-for-tat**, which concedes as
much (in its own value) as the other side's last offer conceded to it, and at least one step when
the other side moved at all.

They know nothing of any task: they read their own values from the task's declared `Values`
(built from what they see, never the other side's view), choose offers from the outcome space by
their own value, accept an offer worth at least what they aspire to now, and speak through the
task's words for an offer (`Values.describe`) before making it, so what they say is what they do
next. Among offers worth the same to them they choose the one nearest the other side's last offer.
They never walk away: at the end of the budget they take anything at least as good as walking away.
"""

from __future__ import annotations

import random

from duologue.core import actions
from duologue.core.agent import Agent
from duologue.core.schema import Scenario
from duologue.core.task import Observation, Task
from duologue.core.values import Deal, Values, distance

ENDGAME = 4
"""Turns before the limit at which the schedule has run out: no more words before an offer, and
any offer at least as good as walking away is taken."""
EXPONENTS = {"boulware": 0.2, "linear": 1.0, "conceder": 2.0}
"""The concession exponent e of each named schedule."""


def aspiration(t: float, exponent: float) -> float:
    """The share of the way from walking away to the best outcome still asked for at time t."""
    return 1.0 - float(min(max(t, 0.0), 1.0) ** (1.0 / exponent))


class ValuesNegotiator(Agent):
    """What the baselines share: own values, the other side's offers, offering and answering."""

    name = "baseline"

    def reset(self, task: Task, party: str, rng: random.Random) -> None:
        super().reset(task, party, rng)
        probe = task.values(task.generate_scenario(random.Random(0)))
        if probe is None:
            raise ValueError(f"{task.id} declares no values (Task.values), which the {self.name} negotiator plays by")
        self.own: Values | None = None
        self.best = self.walk = 0.0
        self.outcomes: list[tuple[float, Deal]] = []
        self.their_offers: list[Deal] = []
        self.stated: Deal | None = None
        """The offer this side last put in words and has not yet made as a move."""
        self.last_offer: Deal | None = None
        self.seen = 0

    def _setup(self, observation: Observation) -> Values:
        if self.own is None:
            view = Scenario(public=observation.public, private={self.party: observation.private})
            own = self.task.values(view)
            if own is None:
                raise ValueError(f"{self.task.id} declares no values for this scenario")
            self.own = own
            self.outcomes = sorted(((own.value(self.party, d), d) for d in own.outcomes()), key=lambda pair: -pair[0])
            self.best = self.outcomes[0][0]
            self.walk = own.walk_away(self.party)
        return self.own

    def _read(self, observation: Observation, own: Values) -> None:
        for event in observation.transcript[self.seen :]:
            if event.party is not None and event.party != self.party:
                offer = own.proposed(event, self.party)
                if offer is not None:
                    self.their_offers.append(offer)
        self.seen = len(observation.transcript)

    def target(self, observation: Observation) -> float:
        """The least value this side accepts now."""
        raise NotImplementedError

    @staticmethod
    def time(observation: Observation) -> float:
        """The share of the turn budget used, reaching 1 when `ENDGAME` turns are left."""
        budget = observation.turn + (observation.turns_left if observation.turns_left is not None else 0) - ENDGAME
        return min(observation.turn / budget, 1.0) if budget > 0 else 1.0

    def _pending(self, observation: Observation, own: Values) -> Deal | None:
        """The other side's offer that the last event put forward (one awaiting an answer)."""
        last = next((e for e in reversed(observation.transcript) if e.party is not None), None)
        if last is None or last.party == self.party:
            return None
        return own.proposed(last, self.party)

    def _closed(self, observation: Observation, own: Values, legal: set[str]) -> actions.Action | None:
        """The other side closed with a move this side cannot read (a private choice): it took what
        this side last asked for, so close on that too."""
        last = next((e for e in reversed(observation.transcript) if e.party is not None), None)
        if last is None or last.party == self.party or self.last_offer is None or own.proposed(last, self.party) is not None:
            return None
        close = own.accept(self.party, self.last_offer)
        return close if close.kind == last.kind and close.kind in legal else None

    def _offer(self, floor: float) -> Deal:
        """The offer worth least to this side among those worth at least `floor` (its best when none
        is), nearest the other side's last offer among equals."""
        fitting = [pair for pair in self.outcomes if pair[0] >= floor - 1e-9] or self.outcomes[:1]
        lowest = min(v for v, _ in fitting)
        tied = [d for v, d in fitting if v <= lowest + 1e-9]
        near = self.their_offers[-1] if self.their_offers else None
        return min(tied, key=lambda d: distance(d, near)) if near is not None else tied[0]

    def act(self, observation: Observation) -> actions.Action:
        own = self._setup(observation)
        self._read(observation, own)
        legal = set(observation.legal)
        floor = max(self.target(observation), self.walk)
        pending = self._pending(observation, own)
        closed = self._closed(observation, own, legal)
        if closed is not None:
            return closed
        last_chance = not observation.turns_left or observation.turns_left <= ENDGAME
        theirs = pending if pending is not None else (self.their_offers[-1] if self.their_offers else None)
        if theirs is not None:
            worth = own.value(self.party, theirs)
            take = own.accept(self.party, theirs)
            if take.kind in legal and (worth >= floor - 1e-9 or (last_chance and worth >= self.walk)):
                return take
        offer = self.stated if self.stated is not None else self._offer(floor)  # what it said is what it does
        move = own.propose(self.party, offer)
        if move.kind not in legal:
            return self._answer(observation, own, legal, pending, theirs)
        if move.kind != "say" and "say" in legal and self.stated != offer and not last_chance:
            self.stated = offer  # words first, then the same offer as a move
            return actions.Say(text=own.describe(self.party, offer))
        self.stated, self.last_offer = None, offer
        return move

    def _answer(self, observation: Observation, own: Values, legal: set[str], pending: Deal | None, theirs: Deal | None) -> actions.Action:
        """No offer can be made now: turn the pending one down, or close on the best deal in sight."""
        refuse = own.reject(self.party)
        if pending is not None and refuse is not None and refuse.kind in legal:
            return refuse
        for deal in (theirs, self.last_offer, self._offer(self.walk)):
            if deal is not None:
                close = own.accept(self.party, deal)
                if close.kind in legal:
                    return close
        if "say" in legal:
            return actions.Say(text=own.describe(self.party, self.last_offer or self._offer(self.best)))
        return self.task.sample_action(self.party, self.rng)


class ConcessionAgent(ValuesNegotiator):
    """Time-based concession: aspiration `1 - t^(1/e)` of the way from walking away to the best."""

    exponent = 1.0

    def __init__(self, argument: str = "") -> None:
        if argument:
            try:
                self.exponent = float(argument)
            except ValueError:
                raise ValueError(f"the concession exponent must be a positive number (boulware:0.2), got {argument!r}") from None
        if not self.exponent > 0:
            raise ValueError(f"the concession exponent must be positive, got {self.exponent}")

    def target(self, observation: Observation) -> float:
        return self.walk + (self.best - self.walk) * aspiration(self.time(observation), self.exponent)


class Boulware(ConcessionAgent):
    exponent = EXPONENTS["boulware"]


class Linear(ConcessionAgent):
    exponent = EXPONENTS["linear"]


class Conceder(ConcessionAgent):
    exponent = EXPONENTS["conceder"]


class TitForTat(ValuesNegotiator):
    """Concedes, in its own value, what the other side's last offer conceded to it; at least one
    step of the space when the other side moved toward it at all."""

    def reset(self, task: Task, party: str, rng: random.Random) -> None:
        super().reset(task, party, rng)
        self.level: float | None = None
        self.answered = 0

    def target(self, observation: Observation) -> float:
        own = self.own
        assert own is not None
        if self.level is None:
            self.level = self.best
        worth = [own.value(self.party, d) for d in self.their_offers]
        for k in range(max(self.answered, 1), len(worth)):
            conceded = worth[k] - worth[k - 1]
            if conceded > 1e-9:
                below = [v for v, _ in self.outcomes if v < self.level - 1e-9]
                step = self.level - below[0] if below else 0.0
                self.level = max(self.walk, self.level - max(conceded, step))
        self.answered = max(self.answered, len(worth))
        return self.level


BASELINES: dict[str, type[Agent]] = {"boulware": Boulware, "linear": Linear, "conceder": Conceder, "tit-for-tat": TitForTat}
"""Spec kinds of the baselines, offered on every task that declares values."""

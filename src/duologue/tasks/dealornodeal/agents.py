"""A rule-based Deal or No Deal negotiator that writes plain English and reads free text.

How it plays (reading only its `Observation`):

1. Reads each partner message with `understanding.read`: a proposal (`i'll take the books, you can
   have the rest`), an acceptance (`ok`, `deal`) or a refusal (`no deal`). Items the partner asks
   for count as valuable to it; items it gives away, or that this side values at 0 (the paper's
   generator makes every item worth something to someone), as what it wants less.
2. Proposes the split that gives the partner most (by that estimate) while keeping its own points
   at its aspiration, which starts at 8 of 10 and comes down on its own schedule: as chat runs out,
   and a point per exchange of messages (two turns), whatever the partner said in them: saying no
   again and again, or restating a greedier split, earns nothing a patient partner would not get.
   The point was first chosen per refusal against people's own words (`duologue replay dealornodeal
   val.txt`, even-numbered dialogues of the validation split, checked on the odd ones: agreement
   0.67 -> 0.80); counted per exchange, and at most 3 points (`EXCHANGE_ROOM`; the rest only as
   chat runs out), it keeps those figures on the whole split (agreement 0.80, agent - person +0.19,
   `bench_replay.py --corpus dealornodeal --agents rule`), and a partner refusing everything no
   longer walks it down to accepting nothing (`bench_exploit.py`).
3. Accepts a proposal worth at least its acceptance threshold (a point under the aspiration, down
   to 1 near the end) or at least what it would propose next, by saying `deal` and restating it.
4. Takes no binding step on a message it cannot take at its word (`duologue.agents.unsure`: sarcasm,
   a number echoed as a question) or one that says no while restating the bot's own split
   ("no i cant give u the hat"): it asks ("just to be sure: you get ... and i get ...?") and acts on
   the answer.
5. Chooses the agreed split once there is one. Without one, when it must choose, the first
   chooser takes the partner's last proposal and the second assumes the partner took its own last
   proposal: two rule agents that ran out of chat still match.
"""

from __future__ import annotations

import random
import re
from typing import Any

from duologue.agents.unsure import confirm_question, doubt
from duologue.core import actions
from duologue.core.agent import Agent
from duologue.core.schema import Message
from duologue.core.task import Observation, Task
from duologue.tasks.dealornodeal.rules import ITEMS, TOTAL_VALUE, all_shares, complement, describe, value
from duologue.tasks.dealornodeal.task import CHOICES_AT_THE_END, Choose, ChooseEvent
from duologue.tasks.dealornodeal.understanding import read

OPENERS = ("", "hi! ", "hello! ", "hey there. ")
PROPOSALS = (
    "i'll take {mine}, you can have {theirs}.",
    "how about i get {mine} and you get {theirs}?",
    "could i have {mine}? you can have {theirs}.",
    "i would like {mine}. you get {theirs}.",
)
ACCEPTS = ("deal! you get {theirs} and i get {mine}.", "ok, deal: i get {mine} and you get {theirs}.", "sounds good. deal: you get {theirs}, i get {mine}.")
START_ASPIRATION, LOWEST_ASPIRATION = 8.0, 1.0
HOLD_OUT_STEP = 1.0
"""Points of aspiration given up per exchange of messages (see the module docstring)."""
EXCHANGE_ROOM = 3.0
"""At most this many points are given up by exchanges; the rest only as the chat runs out, so a partner
who says no to everything does not walk the bot down to nothing in five exchanges."""
AGREED = re.compile(r"\b(deal|agreed|we agree|accept|it's a deal)\b(?!\?)")
"""Words that claim an agreement (a plain "ok" is a filler): a split restated with them is weighed at the aspiration itself."""
CONFIRMS = ("you get {theirs} and i get {mine}", "you'd take {theirs} and leave me {mine}")


class DealRuleAgent(Agent):
    """Proposes, concedes, accepts in words; chooses what was agreed (see the module docstring)."""

    name = "rule"

    def reset(self, task: Task, party: str, rng: random.Random) -> None:
        super().reset(task, party, rng)
        self.read_upto = 0
        self.values: dict[str, int] = {}
        self.pool: dict[str, int] = {}
        self.wants: dict[str, float] = {item: 1.0 for item in ITEMS}
        self.my_last: dict[str, int] | None = None
        """What this side gets in its own last proposal."""
        self.their_last: dict[str, int] | None = None
        """What this side gets in the partner's last proposal."""
        self.pending: dict[str, int] | None = None
        """A partner proposal not answered yet (what this side would get)."""
        self.agreed: dict[str, int] | None = None
        self.partner_chose = False
        self.proposals = 0
        self.held_out = 0
        """How often the partner refused or countered (read, never conceded on)."""
        self.unsure: dict[str, int] | None = None
        """A split (this side's share) read from a message that cannot be taken at its word: ask first."""
        self.restated = False
        """The pending split came with a "deal" although this side proposed another: weighed against the aspiration itself."""
        self.asking: dict[str, int] | None = None
        """The split this side asked the partner to confirm."""

    # ------------------------------------------------------------------ reading

    def _read(self, observation: Observation) -> None:
        if not self.pool:
            self.pool = {item: int(observation.public["pool"][item]) for item in ITEMS}
            self.values = {item: int(observation.private["values"][item]) for item in ITEMS}
            for item in ITEMS:
                if self.values[item] == 0:
                    self.wants[item] += 2.0  # worth nothing here, so something to the partner
        for event in observation.transcript[self.read_upto :]:
            if event.party == self.party or event.party is None:
                continue
            if isinstance(event, ChooseEvent):
                self.partner_chose = True
            elif isinstance(event, Message):
                self._hear(event.text)
        self.read_upto = len(observation.transcript)

    def _hear(self, text: str) -> None:
        reading = read(text, self.pool)
        asked, self.asking = self.asking, None
        if asked is not None and reading.speaker_gets is None and (reading.accepts or reading.rejects):
            if reading.accepts:
                self.pending = asked  # "yes": the partner means the split this side asked about
            else:
                self.held_out += 1
            return
        said = None if reading.speaker_gets is None else complement(reading.speaker_gets, self.pool)
        if doubt(text).unsure:  # sarcasm or an echo: neither its split nor its "sure" is taken at its word
            self.unsure, self.pending = said or (self.my_last if reading.accepts else None), None
            return
        if said is not None and reading.rejects and (said == self.my_last or reading.negated):
            self.unsure, self.pending = said, None  # "no" while restating this side's split, or a negated giving
            return
        if reading.speaker_gets is not None:
            mine = complement(reading.speaker_gets, self.pool)
            for item in ITEMS:
                if reading.speaker_gets[item] > 0:
                    self.wants[item] += 1.0
                elif self.pool[item] > 0:
                    self.wants[item] = max(0.1, self.wants[item] * 0.5)
            if self.my_last is not None and mine == self.my_last and not reading.rejects:
                self.agreed = mine  # the partner restated this side's proposal
            elif self.agreed != mine:
                self.agreed = None
                self.their_last = mine
                self.pending = mine
                self.restated = self.my_last is not None and AGREED.search(text.lower()) is not None  # "deal" on a split this side never proposed
                self.held_out += 1
        elif reading.accepts and self.my_last is not None and self.pending is None:
            self.agreed = self.my_last
        elif reading.rejects:
            self.agreed = None
            self.held_out += 1

    # ------------------------------------------------------------------ deciding

    def _partner_value(self, theirs: dict[str, int]) -> float:
        total = sum(self.wants[item] * self.pool[item] for item in ITEMS) or 1.0
        return sum(self.wants[item] * theirs[item] for item in ITEMS) * TOTAL_VALUE / total

    def _aspiration(self, observation: Observation) -> float:
        chat = max(self.task.max_turns - CHOICES_AT_THE_END, 1)
        used = min(observation.turn / chat, 1.0)
        clock = START_ASPIRATION - (START_ASPIRATION - LOWEST_ASPIRATION) * used**1.5
        exchanges = HOLD_OUT_STEP * ((observation.turn + 1) // 2)  # a point per exchange, whatever was said
        return max(LOWEST_ASPIRATION, clock - min(exchanges, EXCHANGE_ROOM))

    def _proposal(self, aspiration: float) -> dict[str, int]:
        shares = [s for s in all_shares(self.pool) if any(complement(s, self.pool).values())]
        fitting = [s for s in shares if value(s, self.values) >= aspiration] or [max(shares, key=lambda s: value(s, self.values))]
        return max(fitting, key=lambda s: (self._partner_value(complement(s, self.pool)), value(s, self.values)))

    def _acceptable(self, offered: dict[str, int], aspiration: float, *, slack: float = 1.0) -> bool:
        """Whether to take a split (this side's share): worth a point under the aspiration (none for a split
        restated as if agreed), or what it would propose next."""
        worth = value(offered, self.values)
        return worth > 0 and worth >= min(aspiration - slack, value(self._proposal(aspiration), self.values))

    def act(self, observation: Observation) -> actions.Action:
        self._read(observation)
        if "say" not in observation.legal:
            return self._choose(self._final_choice())
        if self.agreed is not None:
            return self._choose(self.agreed)
        aspiration = self._aspiration(observation)
        mine = self._proposal(aspiration)
        unsure, self.unsure = self.unsure, None
        if unsure is not None and self._acceptable(unsure, aspiration):
            self.asking = unsure  # a split it would take, read from words it cannot take at face value
            return self._say(confirm_question(self.rng.choice(CONFIRMS), self.rng.randrange(3)), unsure)
        if self.pending is not None:
            offered = self.pending
            self.pending = None
            slack, self.restated = (0.0 if self.restated else 1.0), False
            if self._acceptable(offered, aspiration, slack=slack):
                self.agreed = offered
                return self._say(self.rng.choice(ACCEPTS), offered)
        opener = self.rng.choice(OPENERS) if self.proposals == 0 and not observation.transcript else ""
        self.proposals += 1
        self.my_last = mine
        return self._say(opener + self.rng.choice(PROPOSALS), mine)

    def _final_choice(self) -> dict[str, int]:
        if self.agreed is not None:
            return self.agreed
        if self.partner_chose and self.my_last is not None:
            return self.my_last  # a rule partner that chose first took this side's last proposal
        if self.their_last is not None and value(self.their_last, self.values) > 0:
            return self.their_last
        return self.my_last or self._proposal(START_ASPIRATION)

    def _choose(self, mine: dict[str, int]) -> Choose:
        return Choose(mine=dict(mine), theirs=complement(mine, self.pool))

    def _say(self, template: str, mine: dict[str, int]) -> actions.Say:
        words: dict[str, Any] = {"mine": describe(mine, self.pool), "theirs": describe(complement(mine, self.pool), self.pool)}
        return actions.Say(text=template.format(**words))

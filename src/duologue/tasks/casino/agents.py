"""A rule-based CaSiNo negotiator that talks in plain English and reads what people write.

How it plays (each step reads only its `Observation`):

1. Reads every new message of the partner with `understanding.read`, and every deal they submit,
   into a `PartnerModel`: evidence per issue of how much the partner values it, turned into a
   posterior over the six possible rankings.
2. Talks like most CaSiNo people do: greets, asks what the partner needs most, and states its own
   priorities honestly, with the reason it has for them, in varied wording (several phrasings per
   move, chosen with its own RNG).
3. Proposes integrative splits: among the 64 possible splits it keeps those Pareto optimal under its
   belief (its own points against the partner's expected points) and offers the one that gives the
   partner most while keeping its own points at its aspiration. The aspiration starts some points
   above the Nash bargaining point of that frontier (a fair split) and comes down with each proposal
   and as turns run out. The frontier is cached per belief state (issue 17). The first proposal is
   made in words; later ones go on the table as deals, which get a clear yes or no where talk often
   answers something else (a refusal in words is still answered in words).
4. Never moves backwards after a refusal (a rejected deal, or a plain "no" / a sarcastic reply to
   an offer in words): every later offer gives the partner at least the points the belief expects
   it got from any refused split, and never a refused split again; each step is the smallest such
   concession, and after a few refusals the steps grow, so a partner who holds out is met before
   the talk runs out. A rejected deal is answered at once by the next concession, as a deal. Talk of
   needs after an offer only marks that split as not the one, without raising the floor. It never
   concedes past what the partner itself asked for (a whole split in words, or a deal): when the
   next step would give the partner more, it offers the partner's own split instead; and after a
   refusal it does not ask for all of the item the partner needs most and said it keeps.
5. Accepts a submitted deal (or a deal the partner describes in text, by submitting it) when it is
   worth at least its acceptance threshold, which starts a little above the fair split and softens
   over the turns, or at least what it would propose next. A deal the belief says can be improved
   for both (people's splits are often not Pareto optimal) is turned down and the improvement
   submitted, unless that improvement is worth less to it than its own next offer. Otherwise it
   rejects and counters. Nothing is built from a sentence the reader marks as negated or sarcastic
   ("I can't give you any of the water" keeps the water with the partner; "oh sure, you take ALL
   the food, that's totally fair :/" is a refusal).
   A deal below the fair split that only the clock makes acceptable (the threshold has come down, or
   it is the last chance) is taken as often as people in the corpus take a deal worth that much to
   them (`answering`: about half at 11 points, a third at 8), so stalling and asking for nearly
   everything at the last moment does not pay. Refused, it concedes freely down to `HOLD_BELOW_FAIR`
   points under the fair split, and further only as often as people would take what is left (once
   it declines a step, its last offer stands); refused that far down, it walks away as often as
   refused people do. Refusing everything does not walk it down to nothing.
6. Otherwise walks away only as a last resort: when turns are nearly gone and the deal on the table
   is worth less than walking away.

Against people's own words (`duologue replay casino <valid split> --agent rule`, see
`duologue.arena.replay`) these choices were first tuned on the validation split, then (deals on the
table, growing steps, the partner's own ask as a limit, the opening margin) on the training split:
chosen on its first 450 dialogues, compared on the other 450, then measured on the validation split;
`benchmarks/bench_replay.py` reports the figures.

`rule:strategies` also runs the trained strategy tagger (`strategies.py`) on each partner message
and treats its `elicit-pref` label as a question about its priorities. On held-out corpus
utterances the tagger finds these questions better than the rule parser; plain `rule` does not load
the tagger, so self-play with it is unchanged.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from duologue.agents.conditions import minimums
from duologue.core import actions
from duologue.core.agent import Agent
from duologue.core.schema import Message, RejectDeal, SubmitDeal
from duologue.core.task import IllegalAction, Observation, Task
from duologue.tasks.casino.planning import LEVEL_SIGN as LEVEL_SIGN
from duologue.tasks.casino.planning import PartnerModel as PartnerModel
from duologue.tasks.casino.planning import SplitPlanner, _pareto
from duologue.tasks.casino.rules import ISSUES, PACKAGES_PER_ISSUE, WALK_AWAY_POINTS, complement
from duologue.tasks.casino.task import pending_deal
from duologue.tasks.casino.understanding import Context, Reading, read
from duologue.tasks.casino.understanding_words import issue_of_word
from duologue.tasks.casino.understanding_context import LOOK_BACK
from duologue.tasks.casino.wording import (  # the agent's phrase tables, also importable from here
    ASK_AGAIN as ASK_AGAIN,
    ASKS as ASKS,
    COUNT_WORDS as COUNT_WORDS,
    COUNTER as COUNTER,
    EMPATHY as EMPATHY,
    GREETING_REPLIES as GREETING_REPLIES,
    GREETINGS as GREETINGS,
    NEED_REMINDER as NEED_REMINDER,
    PROPOSE as PROPOSE,
    PROPOSE_OPENERS as PROPOSE_OPENERS,
    REJECTED_DEAL as REJECTED_DEAL,
    REVEAL as REVEAL,
    RuleWording,
)


def _context(earlier: Sequence[object], speaker: str | None) -> Context:
    """The messages before one, as `understanding.read` takes them: what it needs to read "let me
    have 2" of the item under discussion, or who gives which in "3 firewood for 3 food?"."""
    messages = [e for e in earlier if isinstance(e, Message)]
    return Context.of([(m.text, m.party == speaker) for m in messages[-LOOK_BACK:]])


class CasinoRuleAgent(SplitPlanner, RuleWording, Agent):
    """Integrative, honest, talkative rule negotiator (see the module docstring)."""

    name = "rule"
    OPTIONS = ("strategies",)
    COUNTER_AT_ONCE = True
    IMPROVE_ALWAYS = False
    IMPROVE_MARGIN = 1
    GENEROUS_FIRST = True
    FORMAL_AFTER = 1
    """Proposals made in words before later ones are put on the table as deals."""
    OPENING_MARGIN = 5
    """Points above the fair split the first proposal asks for, one less with each proposal."""
    STEP_AFTER = 3
    STEP_GROWTH = 1.5
    """After `STEP_AFTER` refusals each further concession grows by this many of the partner's expected points."""
    HOLD_BELOW_FAIR = 4
    """Concessions after a refusal go this far below the fair split freely; further only as people would (`answering`)."""

    def __init__(self, option: str = "") -> None:
        if option and option not in self.OPTIONS:
            from duologue.tasks import did_you_mean

            raise did_you_mean(option, list(self.OPTIONS), "option of the CaSiNo rule agent")
        self.tagger = None
        if option == "strategies":
            from duologue.tasks.casino.strategy_annotator import StrategyAnnotator

            self.tagger = StrategyAnnotator()

    def reset(self, task: Task, party: str, rng: random.Random) -> None:
        super().reset(task, party, rng)
        self.model = PartnerModel()
        self.cursor = 0
        self.priorities: dict[str, str] = {}
        self.reasons: dict[str, str] = {}
        self.revealed: list[str] = []
        self.asked = 0
        self.greeted = False
        self.partner_greeted = False
        self.partner_asked = False
        self.partner_shared = False
        self.my_offer: dict[str, int] | None = None
        self.offer_open = False
        self.partner_agreed = False
        self.their_offer: dict[str, int] | None = None
        self.on_table: dict[str, int] | None = None
        self.claimed: set[str] = set()
        self.refused_in_words = False
        self.declined: list[dict[str, int]] = []
        self.proposals = 0
        self.unanswered = 0
        self.i_rejected = False
        self.refused = 0
        self.refused_offers: list[dict[str, int]] = []
        self.concedes_below_fair: dict[int, bool] = {}
        self.walks_after: dict[int, bool] = {}
        self.they_rejected = False
        self.improved: dict[str, int] | None = None
        self._rows_cache: dict[tuple, tuple[list, list]] = {}
        self.partner_minimum: dict[str, int] = {}
        """The least of an item the partner said it will take ("I'd rather walk away than get no food")."""
        self.need_refused: tuple[str, int] | None = None
        """A stated minimum the next proposal cannot meet: said so in words, with a reason."""

    # ------------------------------------------------------------------ reading

    def _catch_up(self, observation: Observation) -> None:
        self.priorities = dict(observation.private.get("priorities", {}))
        self.reasons = dict(observation.private.get("reasons", {}))
        for position in range(self.cursor, len(observation.transcript)):
            event = observation.transcript[position]
            if event.party == self.party:
                self.i_rejected = isinstance(event, RejectDeal)
                continue
            self.i_rejected = False
            if isinstance(event, Message):
                for issue, least in minimums(event.text, issue_of_word).items():
                    self.partner_minimum[issue] = max(self.partner_minimum.get(issue, 0), min(least, PACKAGES_PER_ISSUE))
                reading = read(event.text, context=_context(observation.transcript[:position], event.party))
                if self.tagger is not None:
                    before = next((e.text for e in reversed(observation.transcript[:position]) if isinstance(e, Message)), None)
                    reading.asks_preferences |= "elicit-pref" in self.tagger.tag([event.text], [before])[0]
                self._hear(reading)
            elif isinstance(event, SubmitDeal):
                self.model.observe_request(dict(event.mine))
                self._table(dict(event.theirs))
                self.offer_open = False
            elif isinstance(event, RejectDeal):
                if self.my_offer is not None:
                    self._decline(self.my_offer)
                self.offer_open = False
                self.they_rejected = True
        self.cursor = len(observation.transcript)

    def _hear(self, reading: Reading) -> None:
        self.model.update(reading)
        self.refused_in_words = False
        self.partner_greeted |= reading.greets
        self.partner_asked |= reading.asks_preferences
        self.partner_shared |= bool(reading.needs)
        proposal = reading.proposal
        was_open = self.offer_open
        self.offer_open = False
        if proposal is not None:
            self.claimed |= {issue for issue, n in proposal.items() if n == PACKAGES_PER_ISSUE}  # "I can't give you any water"
            my_share = {issue: None if n is None else PACKAGES_PER_ISSUE - n for issue, n in proposal.items()}
            completed = self._complete(my_share)
            if completed != self.my_offer:
                self.their_offer = completed
                if all(proposal.get(i) is not None for i in ISSUES):
                    self._table(completed)
                self.model.observe_request({i: n for i, n in proposal.items() if n is not None}, weight=0.3)
                if was_open and self.my_offer is not None:
                    self._decline(self.my_offer)
                return
            self.partner_agreed = was_open or reading.agrees
            return
        if was_open and reading.agrees and not reading.disagrees:
            self.partner_agreed = True
        elif was_open and (reading.disagrees or reading.needs):
            if self.my_offer is not None:
                # a plain "no" is a refusal; talk of needs only means this split is not yet the one
                self._decline(self.my_offer, refused=reading.disagrees)
                self.refused_in_words = reading.disagrees
        elif was_open:
            self.unanswered += 1

    def _table(self, share: dict[str, int]) -> None:
        """Remember the best split for me the partner has itself proposed (a whole split in words, or a
        deal): no later offer of mine gives the partner more than that."""
        if self.on_table is None or self._mine(share) > self._mine(self.on_table):
            self.on_table = dict(share)

    def _decline(self, offer: dict[str, int], *, refused: bool = True) -> None:
        """The partner turned `offer` down: it is not offered again, and after a refusal later offers
        give the partner at least as much of every item (concessions never move backwards)."""
        self.declined.append(dict(offer))
        if refused:
            self.refused_offers.append(dict(offer))

    # ------------------------------------------------------------------ acting

    def act(self, observation: Observation) -> actions.Action:
        self._catch_up(observation)
        if self.refused >= 2 and observation.legal:
            self.refused = 0
            return self.task.sample_action(self.party, self.rng)
        legal = observation.legal
        if "walk-away" in legal and self._walks_off(self.HOLD_BELOW_FAIR):
            return actions.WalkAway()
        if "accept-deal" in legal:
            return self._answer(observation)
        if "say" not in legal and "submit-deal" not in legal:
            return actions.WalkAway()
        return self._negotiate(observation)

    def on_illegal(self, error: IllegalAction) -> None:
        self.refused += 1

    def _answer(self, observation: Observation) -> actions.Action:
        deal = pending_deal(observation.transcript)
        assert deal is not None
        share = dict(deal.theirs)
        turns_left = observation.turns_left if observation.turns_left is not None else 99
        better = self._improvement(share, dict(deal.mine)) if turns_left > 6 else None
        if better is not None and not self.IMPROVE_ALWAYS and self._mine(better) < self._mine(self._next_offer(observation)):
            better = None  # an "improvement" worse for me than my own next offer is no counter: concede as usual
        if better is not None and (self.IMPROVE_ALWAYS or not self._acceptable(share, observation)):
            self.improved = better  # turn it down and submit the split that is better for both
            return actions.RejectDeal()
        value = self._mine(share)
        if self._acceptable(share, observation) or (turns_left <= 2 and value >= WALK_AWAY_POINTS):
            # at the last chance anything better than walking away is acceptable; below the fair split
            # it is taken only as often as people take such a deal
            return actions.AcceptDeal() if self._takes_below_fair(share, observation) else actions.RejectDeal()
        if turns_left <= 2:
            return actions.WalkAway()
        return actions.RejectDeal()

    def _negotiate(self, observation: Observation) -> actions.Action:
        turns_left = observation.turns_left if observation.turns_left is not None else 99
        if self.improved is not None:
            offer, self.improved = self.improved, None
            self.i_rejected = False
            return self._submit(offer)
        if self.partner_agreed and self.my_offer is not None:
            self.partner_agreed = False
            return self._submit(self.my_offer)
        if self.they_rejected and self.COUNTER_AT_ONCE:
            # a refused deal is answered with the next concession, as a deal: words would only restate it
            self.they_rejected = False
            return self._submit(self._next_offer(observation))
        if self.i_rejected:
            self.i_rejected = False
            if self._formally(turns_left):
                return self._submit(self._next_offer(observation))
            return self._say(self.rng.choice(REJECTED_DEAL) + " " + self._proposal_text(observation))
        if self.their_offer is not None:
            offer, self.their_offer = self.their_offer, None
            if self._acceptable(offer, observation):
                return self._submit(offer)
            if self._formally(turns_left):
                return self._submit(self._next_offer(observation))
            parts = [self.rng.choice(COUNTER)]
            high = self._issue_at("High")
            if high and self.rng.random() < 0.5 and (offer.get(high, 0) < PACKAGES_PER_ISSUE):
                parts.append(self._fill(self.rng.choice(NEED_REMINDER), high))
            parts.append(self._proposal_text(observation))
            return self._say(" ".join(parts))
        if self.refused_in_words and turns_left > 6:
            # a refusal in words is answered in words, with the next concession
            self.refused_in_words = False
            return self._say(self.rng.choice(COUNTER) + " " + self._proposal_text(observation))
        if self.unanswered >= 2 or self._formally(turns_left):
            self.unanswered = 0
            return self._submit(self._next_offer(observation))
        return self._say(self._talk(observation))

    def _formally(self, turns_left: int) -> bool:
        """Whether the next proposal goes on the table as a deal: once one has been made in words (a deal
        gets a clear yes or no, where talk often answers something else), or when turns run short."""
        return turns_left <= 6 or self.proposals >= self.FORMAL_AFTER

    def _talk(self, observation: Observation) -> str:
        """The next thing to say when there is no offer to answer: greet, share, ask, propose."""
        parts: list[str] = []
        if not self.greeted:
            self.greeted = True
            parts.append(self.rng.choice(GREETING_REPLIES if self.partner_greeted else GREETINGS))
            if self.partner_shared and self.rng.random() < 0.5:
                parts.append(self.rng.choice(EMPATHY))
            if not self.partner_asked and not self.model.informed() and self.rng.random() < 0.45:
                self.asked += 1
                parts.append(self.rng.choice(ASKS))
                return " ".join(parts)
        elif self.partner_shared and not self.revealed and self.rng.random() < 0.5:
            parts.append(self.rng.choice(EMPATHY))
        if "High" not in self.revealed:
            parts.append(self._reveal("High", with_reason=self.rng.random() < 0.75))
            if self.partner_asked or self.model.informed() or self.rng.random() < 0.5:
                parts.append(self._reveal("Low", with_reason=self.rng.random() < 0.3))
                if self.rng.random() < 0.3:
                    parts.append(self._reveal("Medium", with_reason=False))
            if not self.model.informed():
                self.asked += 1
                parts.append(self.rng.choice(ASKS))
                return " ".join(parts)
        elif "Low" not in self.revealed:
            parts.append(self._reveal("Low", with_reason=self.rng.random() < 0.5))
        if not self.model.informed() and self.asked < 2:
            self.asked += 1
            parts.append(self.rng.choice(ASK_AGAIN if self.asked > 1 else ASKS))
            return " ".join(parts)
        opener, proposal = self.rng.choice(PROPOSE_OPENERS), self._proposal_text(observation)
        parts.append(opener + (proposal[0].lower() + proposal[1:] if opener.endswith(", ") and not proposal.startswith("I ") else proposal))
        return " ".join(p for p in parts if p)

    def _next_offer(self, observation: Observation) -> dict[str, int]:
        """The planner's next split, made to leave the partner the least it said it will take (a stated
        need or an ultimatum), when a split doing so still leaves me more than walking away; else the
        planner's split, and the need is refused in words with my reason."""
        offer = SplitPlanner._next_offer(self, observation)
        need = self.partner_minimum
        if all(PACKAGES_PER_ISSUE - offer[i] >= n for i, n in need.items()):
            return offer
        rows = [r for r in self._rows()[0] if all(PACKAGES_PER_ISSUE - r[0][i] >= n for i, n in need.items()) and r[0] not in self.declined]
        worthwhile = [r for r in rows if r[1] >= WALK_AWAY_POINTS + 2]
        if not worthwhile:
            self.need_refused = max(need.items(), key=lambda kv: kv[1] - (PACKAGES_PER_ISSUE - offer[kv[0]]))
            return offer
        frontier = _pareto(worthwhile)  # the smallest step from the planner's split that meets the need
        within = [r for r in frontier if r[1] <= self._mine(offer)] or frontier
        return dict(max(within, key=lambda r: (r[1], r[2]))[0])

    # ------------------------------------------------------------------ wording

    def _proposal_text(self, observation: Observation) -> str:
        offer = self._next_offer(observation)
        self.my_offer, self.offer_open = offer, True
        self.partner_agreed = False
        self.proposals += 1
        order = sorted(ISSUES, key=lambda i: -offer[i])
        mine = {i: offer[i] for i in order}
        theirs = {i: PACKAGES_PER_ISSUE - offer[i] for i in sorted(ISSUES, key=lambda i: offer[i])}
        text = self.rng.choice(PROPOSE).format(mine=self._items(mine), theirs=self._items(theirs))
        if self.need_refused is not None:
            issue, least = self.need_refused
            self.need_refused = None
            reason = self.reasons.get(issue) or "I need it too."
            text = f"I can't leave you {self._items({issue: least})}, sorry. {reason} {text}"
        return text

    def _say(self, text: str) -> actions.Say:
        return actions.Say(text=" ".join(text.split()) or "Hmm, let me think.")

    def _submit(self, share: dict[str, int]) -> actions.SubmitDeal:
        self.my_offer = dict(share)
        self.offer_open = False
        self.proposals += 1
        return actions.SubmitDeal(mine={i: share[i] for i in ISSUES}, theirs=complement(share))

    def describe(self) -> dict[str, Any]:
        """The agent's current belief, for debugging and tests."""
        return {"evidence": dict(self.model.evidence), "pairs": list(self.model.pairs), "my_offer": self.my_offer}

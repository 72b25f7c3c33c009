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
6. Walks away only as a last resort: when turns are nearly gone and the deal on the table is worth
   less than walking away.

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

import math
import random
from collections.abc import Sequence
from typing import Any

from duologue.core import actions
from duologue.core.agent import Agent
from duologue.core.schema import Message, RejectDeal, SubmitDeal
from duologue.core.task import IllegalAction, Observation, Task
from duologue.tasks.casino.rules import (
    ISSUES,
    PACKAGES_PER_ISSUE,
    POINTS_PER_PRIORITY,
    PRIORITY_LEVELS,
    WALK_AWAY_POINTS,
    all_shares,
    complement,
    points,
)
from duologue.tasks.casino.task import RANKINGS, pending_deal
from duologue.tasks.casino.understanding import Context, Reading, read
from duologue.tasks.casino.understanding_context import LOOK_BACK

LEVEL_SIGN = {"High": 1.0, "Medium": 0.0, "Low": -1.0}


def _context(earlier: Sequence[object], speaker: str | None) -> Context:
    """The messages before one, as `understanding.read` takes them: what it needs to read "let me
    have 2" of the item under discussion, or who gives which in "3 firewood for 3 food?"."""
    messages = [e for e in earlier if isinstance(e, Message)]
    return Context.of([(m.text, m.party == speaker) for m in messages[-LOOK_BACK:]])

# ---------------------------------------------------------------------------- what the agent says

GREETINGS = (
    "Hi there!",
    "Hello!",
    "Hey, nice to meet you!",
    "Hi neighbor!",
    "Hello, how is your trip going so far?",
    "Hey! Excited for the camping trip?",
    "Hi! Hope you're doing well.",
    "Good to meet you, fellow camper!",
)
GREETING_REPLIES = ("Hi!", "Hello to you too!", "Hey, doing great, thanks!", "Hi, nice to meet you!", "Hello! All good here.")
ASKS = (
    "What do you need most for your trip?",
    "Which of the items matters most to you?",
    "What are you hoping to get the most of?",
    "How about you, what's your top priority?",
    "What are you most in need of?",
    "What would help you the most?",
    "What is most important for you?",
)
ASK_AGAIN = (
    "Sorry, I'm still not sure what you need most. Is it food, water or firewood?",
    "Which one matters most to you: food, water or firewood?",
    "Could you tell me what your top priority is?",
)
REVEAL = {
    "High": (
        "{Issue} is my top priority.",
        "I really need {issue} the most.",
        "What I need most is {issue}.",
        "{Issue} matters most to me.",
        "My biggest need is {issue}.",
        "For me, {issue} is the most important.",
    ),
    "Medium": (
        "{Issue} is somewhere in the middle for me.",
        "I could use some {issue} too.",
        "{Issue} would be my second choice.",
        "After that, {issue} is next for me.",
    ),
    "Low": (
        "I don't need much {issue}.",
        "{Issue} is my lowest priority.",
        "{Issue} matters least to me.",
        "I could do without {issue}.",
        "{Issue} isn't very important to me.",
    ),
}
EMPATHY = (
    "That makes sense.",
    "Oh, I totally understand.",
    "Fair enough!",
    "Sorry to hear that, sounds rough.",
    "Got it, thanks for telling me.",
    "I hear you.",
)
PROPOSE = (
    "How about I take {mine} and you get {theirs}?",
    "What if you had {theirs} and I kept {mine}?",
    "Would you be okay with {theirs} for you, and {mine} for me?",
    "I could do {mine} for me and {theirs} for you.",
    "Here's an idea: you get {theirs}, I get {mine}.",
    "Maybe I get {mine}, and you take {theirs}?",
    "Let's say you take {theirs} and I take {mine}. Does that work?",
    "I'd suggest {mine} for me, {theirs} for you.",
)
PROPOSE_OPENERS = ("", "", "So, ", "Then maybe this works for both of us. ", "I think we can both get what we need. ")
COUNTER = (
    "Hmm, that doesn't quite work for me.",
    "I'm afraid that leaves me a bit short.",
    "That's a little lopsided for me.",
    "I can't really do that one.",
    "Sorry, I need a bit more than that.",
)
REJECTED_DEAL = (
    "Sorry, I can't accept that one.",
    "I had to turn that one down, it leaves me too little.",
    "That deal doesn't work for me, sorry.",
    "I'd rather not take that split.",
)
NEED_REMINDER = ("I really need {issue}.", "{Issue} is the one I can't give up.", "Remember, {issue} matters most to me.")

COUNT_WORDS = {
    3: ("all 3 {x}", "all the {x}", "3 {x}", "all of the {x}", "all three {x}"),
    2: ("2 {x}", "two {x}", "2 packages of {x}"),
    1: ("1 {x}", "one {x}", "a single {x}", "one package of {x}"),
}


def _pareto(rows: list[tuple[dict[str, int], int, float]]) -> list[tuple[dict[str, int], int, float]]:
    """The rows no other row beats on both my points and the partner's expected points."""
    ordered = sorted(rows, key=lambda r: (-r[1], -r[2]))
    kept: list[tuple[dict[str, int], int, float]] = []
    best_theirs = -math.inf
    for row in ordered:
        if row[2] > best_theirs + 1e-9 or (kept and row[1] == kept[-1][1] and abs(row[2] - kept[-1][2]) <= 1e-9):
            kept.append(row)
            best_theirs = max(best_theirs, row[2])
    return kept


class PartnerModel:
    """Evidence about how much the partner values each issue, and the ranking it implies."""

    def __init__(self) -> None:
        self.evidence: dict[str, float] = {issue: 0.0 for issue in ISSUES}
        self.pairs: list[tuple[str, str]] = []

    def update(self, reading: Reading) -> None:
        for issue, value in reading.needs.items():
            self.evidence[issue] += max(-4.0, min(4.0, value))
        self.pairs.extend(reading.prefers)

    def observe_request(self, their_share: dict[str, int], weight: float = 0.4) -> None:
        """What the partner asks for in a deal hints at what it values."""
        for issue in ISSUES:
            self.evidence[issue] += weight * (their_share.get(issue, 0) - 1.5)

    def informed(self) -> bool:
        """Whether the partner has said enough to tell its top issue from the rest."""
        return sum(abs(v) for v in self.evidence.values()) >= 2.5 or bool(self.pairs)

    def posterior(self) -> list[tuple[dict[str, str], float]]:
        """(priorities, probability) for each of the six rankings."""
        logits = []
        for ranking in RANKINGS:
            level = {issue: PRIORITY_LEVELS[k] for k, issue in enumerate(ranking)}
            logit = sum(self.evidence[i] * LEVEL_SIGN[level[i]] for i in ISSUES)
            for more, less in self.pairs:
                logit += 1.5 if ranking.index(more) < ranking.index(less) else -1.5
            logits.append((level, logit))
        top = max(logit for _, logit in logits)
        weights = [(level, math.exp(logit - top)) for level, logit in logits]
        total = sum(w for _, w in weights)
        return [(level, w / total) for level, w in weights]

    def value_per_package(self) -> dict[str, float]:
        """Expected points the partner gets per package of each issue."""
        values = {issue: 0.0 for issue in ISSUES}
        for level, p in self.posterior():
            for issue in ISSUES:
                values[issue] += p * POINTS_PER_PRIORITY[level[issue]]
        return values

    def top_issue(self) -> str | None:
        issue, value = max(self.evidence.items(), key=lambda kv: kv[1])
        return issue if value > 0 else None


class CasinoRuleAgent(Agent):
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

    def __init__(self, option: str = "") -> None:
        if option and option not in self.OPTIONS:
            from duologue.tasks import did_you_mean

            raise did_you_mean(option, list(self.OPTIONS), "option of the CaSiNo rule agent")
        self.tagger = None
        if option == "strategies":
            from duologue.tasks.casino.strategies import StrategyAnnotator

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
        self.they_rejected = False
        self.improved: dict[str, int] | None = None
        self._rows_cache: dict[tuple, tuple[list, list]] = {}

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

    # ------------------------------------------------------------------ valuing splits

    def _mine(self, share: dict[str, int]) -> int:
        return points(share, self.priorities)

    def _rows(self) -> tuple[list[tuple[dict[str, int], int, float]], list[tuple[dict[str, int], int, float]]]:
        """(every split, the Pareto-optimal ones) as (my share, my points, partner's expected points).

        Cached per belief state (evidence, stated preferences, own priorities): the partner's words
        change the belief only now and then, and the filter is the agent's costliest step.
        """
        key = (tuple(round(self.model.evidence[i], 9) for i in ISSUES), tuple(self.model.pairs), tuple(sorted(self.priorities.items())))
        cached = self._rows_cache.get(key)
        if cached is None:
            value = self.model.value_per_package()
            rows = [(share, self._mine(share), sum(value[i] * n for i, n in complement(share).items())) for share in all_shares()]
            cached = (rows, _pareto(rows))
            self._rows_cache[key] = cached
        return cached

    def _frontier(self) -> list[tuple[dict[str, int], int, float]]:
        """(my share, my points, partner's expected points) for splits Pareto optimal under the belief."""
        return self._rows()[1]

    def _fair_range(self, frontier: list[tuple[dict[str, int], int, float]]) -> tuple[int, int]:
        """(low, high) of my points among the splits closest to the Nash bargaining point."""
        products = [((m - WALK_AWAY_POINTS) * (t - WALK_AWAY_POINTS), m) for _, m, t in frontier if m > WALK_AWAY_POINTS and t > WALK_AWAY_POINTS]
        if not products:
            return WALK_AWAY_POINTS + 1, WALK_AWAY_POINTS + 1
        best = max(p for p, _ in products)
        near = [m for p, m in products if p >= 0.98 * best]
        return min(near), max(near)

    def _progress(self, observation: Observation) -> float:
        total = observation.turn + (observation.turns_left or 0)
        return observation.turn / total if total else 1.0

    def _aspiration(self, observation: Observation, frontier) -> float:
        low, high = self._fair_range(frontier)
        aspiration = high + max(0, self.OPENING_MARGIN - self.proposals) - 7 * self._progress(observation)
        return max(aspiration, low - 4, WALK_AWAY_POINTS + 2)

    def _threshold(self, observation: Observation, frontier) -> float:
        low, _ = self._fair_range(frontier)
        return max(low + 2 - 6 * self._progress(observation), WALK_AWAY_POINTS + 1)

    def _next_offer(self, observation: Observation) -> dict[str, int]:
        """The split to offer now: on the belief frontier, giving the partner most while keeping my aspiration.

        If the partner already turned that split down, the next step is a small further concession
        (the best split for me among those at least as good for the partner), never a greedier
        one, down to a floor a little under the fair split. What is asked may still rise when the
        belief changes (the partner said it does not need an item after all): that keeps offers
        Pareto optimal, which a rule "never ask for more" would break.
        """
        frontier = self._frontier()
        aspiration = self._aspiration(observation, frontier)
        candidates = frontier
        if self.refused_offers:
            # never move backwards after a refusal: the partner is offered at least what any refused
            # split gave it (in the points the belief expects it to get), and never a refused split again
            rows = self._rows()[0]
            value = {tuple(r[0][i] for i in ISSUES): r[2] for r in rows}
            floor = max(value[tuple(o[i] for i in ISSUES)] for o in self.refused_offers)
            kept = [r for r in rows if r[2] >= floor - 1e-9]
            bump = self.STEP_GROWTH * max(0, len(self.refused_offers) - self.STEP_AFTER)
            fresh = [r for r in kept if r[2] > floor + bump + 1e-9 and r[0] not in self.declined and r[1] > WALK_AWAY_POINTS]
            fresh = fresh or [r for r in kept if r[0] not in self.declined and r[1] > WALK_AWAY_POINTS]
            candidates = _pareto(fresh) if fresh else _pareto(kept)
        top = self.model.top_issue()
        if top in self.claimed and self.refused_offers:
            # after a refusal, the item the partner needs most and said it keeps whole is not all asked for
            candidates = [r for r in candidates if r[0][top] < PACKAGES_PER_ISSUE] or candidates
        above = [r for r in candidates if r[1] >= aspiration]
        if not above:
            best = max(r[1] for r in candidates)
            above = [r for r in candidates if r[1] == best]
        # after a refusal the step is the smallest concession that still keeps to the aspiration
        target = self._pick(above, by_partner_first=not self.refused_offers and self.GENEROUS_FIRST)
        if not self.refused_offers and target[0] in self.declined:
            low, _ = self._fair_range(frontier)
            floor = max(low - 4, WALK_AWAY_POINTS + 2)
            generous = [r for r in frontier if r[0] not in self.declined and r[2] >= target[2] - 1e-9 and r[1] >= floor]
            if generous:
                target = self._pick(generous, by_partner_first=False)
        if self.on_table is not None and self._mine(self.on_table) >= target[1] and self.on_table not in self.declined:
            return dict(self.on_table)  # conceding past what the partner itself asked for gives away points for nothing
        return dict(target[0])

    def _pick(self, rows: list[tuple[dict[str, int], int, float]], *, by_partner_first: bool) -> tuple[dict[str, int], int, float]:
        """The row best for the partner then me (or me then the partner); ties broken with the agent's RNG."""
        def mine(row: tuple[dict[str, int], int, float]) -> float:
            return row[1]

        def partner(row: tuple[dict[str, int], int, float]) -> float:
            return row[2]

        first, second = (partner, mine) if by_partner_first else (mine, partner)
        top = max(first(r) for r in rows)
        rows = [r for r in rows if first(r) >= top - 1e-9]
        top = max(second(r) for r in rows)
        return self.rng.choice([r for r in rows if second(r) >= top - 1e-9])

    def _complete(self, share: dict[str, int | None]) -> dict[str, int]:
        """Fill the issues a proposal left open with the split fairest under the belief."""
        open_issues = [i for i in ISSUES if share.get(i) is None]
        if not open_issues:
            return {i: int(share[i]) for i in ISSUES}  # type: ignore[arg-type]
        value = self.model.value_per_package()
        best, best_score = None, -math.inf
        for candidate in all_shares():
            if any(candidate[i] != share[i] for i in ISSUES if share.get(i) is not None):
                continue
            mine = self._mine(candidate) - WALK_AWAY_POINTS
            theirs = sum(value[i] * n for i, n in complement(candidate).items()) - WALK_AWAY_POINTS
            score = mine * theirs if mine > 0 and theirs > 0 else -1e6 + mine + theirs
            if score > best_score:
                best, best_score = candidate, score
        return dict(best)  # type: ignore[arg-type]

    def _acceptable(self, share: dict[str, int], observation: Observation) -> bool:
        if self.my_offer is not None and share == self.my_offer:
            return True
        value = self._mine(share)
        frontier = self._frontier()
        if value >= self._threshold(observation, frontier):
            return True
        return value >= self._mine(self._next_offer(observation))

    # ------------------------------------------------------------------ acting

    def act(self, observation: Observation) -> actions.Action:
        self._catch_up(observation)
        if self.refused >= 2 and observation.legal:
            self.refused = 0
            return self.task.sample_action(self.party, self.rng)
        legal = observation.legal
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
        if self._acceptable(share, observation):
            return actions.AcceptDeal()
        value = self._mine(share)
        if turns_left <= 2:
            # the last chance of a deal: anything better than walking away beats nothing
            return actions.AcceptDeal() if value >= WALK_AWAY_POINTS else actions.WalkAway()
        return actions.RejectDeal()

    def _improvement(self, mine: dict[str, int], theirs: dict[str, int]) -> dict[str, int] | None:
        """A split better for me by a clear margin that the belief expects the partner to value at
        least as much as the one it proposed (people's deals are often not Pareto optimal), or None."""
        value = self.model.value_per_package()
        asked = sum(value[i] * theirs[i] for i in ISSUES)
        rows = [r for r in self._rows()[0] if r[2] >= asked - 1e-9 and r[1] >= self._mine(mine) + self.IMPROVE_MARGIN]
        if not rows:
            return None
        return dict(max(rows, key=lambda r: (r[1], r[2]))[0])

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

    # ------------------------------------------------------------------ wording

    def _issue_at(self, level: str) -> str | None:
        return next((issue for issue, lvl in self.priorities.items() if lvl == level), None)

    def _fill(self, template: str, issue: str) -> str:
        word = issue.lower()
        return template.replace("{Issue}", word.capitalize()).replace("{issue}", word)

    def _reveal(self, level: str, *, with_reason: bool) -> str:
        issue = self._issue_at(level)
        if issue is None:
            return ""
        self.revealed.append(level)
        text = self._fill(self.rng.choice(REVEAL[level]), issue)
        reason = self.reasons.get(issue, "").strip()
        if with_reason and reason:
            reason = reason[0].upper() + reason[1:]
            text += " " + (reason if reason[-1] in ".!?" else reason + ".")
        return text

    def _items(self, share: dict[str, int]) -> str:
        parts = [self.rng.choice(COUNT_WORDS[n]).format(x=issue.lower()) for issue, n in share.items() if n > 0]
        if not parts:
            return "nothing"
        if len(parts) == 1:
            return parts[0]
        return ", ".join(parts[:-1]) + " and " + parts[-1]

    def _proposal_text(self, observation: Observation) -> str:
        offer = self._next_offer(observation)
        self.my_offer, self.offer_open = offer, True
        self.partner_agreed = False
        self.proposals += 1
        order = sorted(ISSUES, key=lambda i: -offer[i])
        mine = {i: offer[i] for i in order}
        theirs = {i: PACKAGES_PER_ISSUE - offer[i] for i in sorted(ISSUES, key=lambda i: offer[i])}
        return self.rng.choice(PROPOSE).format(mine=self._items(mine), theirs=self._items(theirs))

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

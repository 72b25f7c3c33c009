"""What the CaSiNo rule agent believes about its partner, and which split it offers or accepts.

`PartnerModel` gathers the evidence of what the partner values (its words and the deals it asks
for) into a posterior over the six rankings. `SplitPlanner`, mixed into `CasinoRuleAgent`, values
the 64 splits under that belief: the Pareto frontier (cached per belief state), the fair range
around the Nash bargaining point, the aspiration and acceptance threshold over the turns, the next
offer (never moving backwards after a refusal), and improvements on a partner's deal.
"""

from __future__ import annotations

import math
import random

from duologue.core.task import Observation
from duologue.tasks.casino.answering import accepts_like_people, walks_away_after_refusal
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
from duologue.tasks.casino.task import RANKINGS
from duologue.tasks.casino.understanding import Reading

LEVEL_SIGN = {"High": 1.0, "Medium": 0.0, "Low": -1.0}


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



class SplitPlanner:
    """The rule agent's valuing of splits; mixed into `CasinoRuleAgent`, whose state and settings it reads."""

    rng: random.Random
    priorities: dict[str, str]
    model: PartnerModel
    my_offer: dict[str, int] | None
    on_table: dict[str, int] | None
    claimed: set[str]
    declined: list[dict[str, int]]
    refused_offers: list[dict[str, int]]
    concedes_below_fair: dict[int, bool]
    walks_after: dict[int, bool]
    they_rejected: bool
    proposals: int
    _rows_cache: dict[tuple, tuple[list, list]]
    IMPROVE_MARGIN: int
    GENEROUS_FIRST: bool
    OPENING_MARGIN: int
    STEP_AFTER: int
    STEP_GROWTH: float
    HOLD_BELOW_FAIR: int

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
        if self.refused_offers and not self._concedes(target[1], frontier):
            return dict(self.refused_offers[-1])  # holding out: the last offer stands
        return dict(target[0])

    def _walks_off(self, below_fair: int) -> bool:
        """Whether to walk away now that the partner refused my deal, which left me more than `below_fair`
        points under the fair split: as often as people whose deal was refused walk away (`answering`),
        drawn once per refusal."""
        if not self.they_rejected or not self.refused_offers:
            return False
        key = len(self.refused_offers)
        if key not in self.walks_after:
            low, _ = self._fair_range(self._frontier())
            self.walks_after[key] = self._mine(self.refused_offers[-1]) < low - below_fair and walks_away_after_refusal(self.rng)
        return self.walks_after[key]

    def _concedes(self, value: int, frontier) -> bool:
        """Whether to make a concession, after a refusal, that leaves me `value`: always down to
        `HOLD_BELOW_FAIR` points under the fair split, and below that as often as people accept a deal
        worth that much (`answering`), drawn once per value. Once I decline to go down to some value I
        go no lower, and the last offer stands: a partner who refuses everything meets a line drawn
        where people would draw it, instead of walking me down to nothing step by step.
        """
        low, _ = self._fair_range(frontier)
        last = self._mine(self.refused_offers[-1])
        if value >= low - self.HOLD_BELOW_FAIR or value >= last:
            return True
        if any(not taken and value <= seen for seen, taken in self.concedes_below_fair.items()):
            return False
        if value not in self.concedes_below_fair:
            self.concedes_below_fair[value] = accepts_like_people(value, self.rng)
        return self.concedes_below_fair[value]

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

    def _takes_below_fair(self, share: dict[str, int], observation: Observation) -> bool:
        """Whether to take a deal the rules accept: always at or above the fair split (or my own offer
        handed back), and below it, where only the clock made it acceptable, as often as people take a
        deal worth that much to them (`answering`), unless it is worth at least what I would offer
        next (refusing it to ask for less would make no sense). The draw is made only below the fair
        split, so other games keep their random sequence."""
        value = self._mine(share)
        low, _ = self._fair_range(self._frontier())
        if value >= low or share == self.my_offer or accepts_like_people(value, self.rng):
            return True
        return value >= self._mine(self._next_offer(observation))

    def _improvement(self, mine: dict[str, int], theirs: dict[str, int]) -> dict[str, int] | None:
        """A split better for me by a clear margin that the belief expects the partner to value at
        least as much as the one it proposed (people's deals are often not Pareto optimal), or None."""
        value = self.model.value_per_package()
        asked = sum(value[i] * theirs[i] for i in ISSUES)
        rows = [r for r in self._rows()[0] if r[2] >= asked - 1e-9 and r[1] >= self._mine(mine) + self.IMPROVE_MARGIN]
        if not rows:
            return None
        return dict(max(rows, key=lambda r: (r[1], r[2]))[0])


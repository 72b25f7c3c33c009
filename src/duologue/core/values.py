"""Declared values: what each party makes of an outcome, and what generic code derives from it.

A task that declares values (`Task.values(scenario)` returns a `Values`) tells duologue, for one
scenario, the outcomes an agreement can have, each party's value of each, and each party's value of
walking away (no agreement). From that alone duologue derives, for any such task, the negotiation
analytics researchers expect from NegMAS and the Genius line and from clembench:

* the outcome space and its utility points (u1, u2);
* the Pareto frontier: outcomes no other outcome beats for one party without hurting the other;
* the Nash point: the outcome better than walking away for both that maximises (u1 - d1)(u2 - d2);
* the Kalai-Smorodinsky point: the frontier outcome where each party's gain over its walk-away, as
  a share of the most it could gain, is as equal as the frontier allows;
* per deal: whether it is Pareto-efficient, its distance to the frontier, each party's surplus over
  its walk-away, and clembench's score (100 - 100 x the largest Pareto improvement still available
  / the largest value a party can get).

It also gives the classic baseline negotiators (`duologue.agents.concession`) what they need to
play: an offer as a move (`propose`), an answer to the other side's offer (`accept`, `reject`), the
other side's offer read back from an event (`proposed`), and the words that state an offer
(`describe`). A deal is written in the shape of `Outcome.deal` (a task's own), so a judged
agreement is a point of the space as it is.

The space is small (CaSiNo 64 splits, Deal or No Deal at most a few hundred, a price grid), so a
compact numpy implementation does it exactly; NegMAS would add about 106 MB (plotly, networkx,
py4j) for the same few functions.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, Hashable, Mapping, Sequence

import numpy as np

from duologue.core import actions
from duologue.core.schema import Event, Outcome

Deal = dict[str, Any]
"""One outcome of an agreement, in the shape the task's `Outcome.deal` has."""


class Values(ABC):
    """One scenario's outcome space and each party's values, as a task declares them.

    Built from a scenario by `Task.values`. Built from a scenario that holds one party's private
    view only (what an agent sees), it answers for that party only: `value` of the other party
    raises `KeyError`.
    """

    def __init__(self, parties: tuple[str, str]) -> None:
        self.parties = parties

    def other(self, party: str) -> str:
        a, b = self.parties
        return b if party == a else a

    # ------------------------------------------------------------------ what a task declares

    @abstractmethod
    def outcomes(self) -> list[Deal]:
        """Every outcome an agreement can have (a grid where the real space is continuous)."""

    @abstractmethod
    def value(self, party: str, deal: Deal) -> float:
        """`party`'s value of an agreement on `deal` (its score had the episode ended so)."""

    @abstractmethod
    def walk_away(self, party: str) -> float:
        """`party`'s value of ending without agreement."""

    offer_kind: str | None = None
    """The move kind that puts a deal forward (`submit-deal`, `offer`, a task's own), for the
    default `propose` and `proposed`: the deal is the move's own fields (`{"price": 120}` for
    `offer(price)`), or, for a split move with `mine` and `theirs`, `{party: share}` for both."""
    accept_kind: str | None = None
    """The move kind that takes the other side's offer, for the default `accept`."""
    reject_kind: str | None = None
    """The move kind that turns an offer down, for the default `reject` (None: offers need no answer)."""

    def propose(self, party: str, deal: Deal) -> actions.Action:
        """The move by which `party` puts `deal` forward (by default an `offer_kind` move)."""
        if self.offer_kind is None:
            raise NotImplementedError(f"{type(self).__name__}: set offer_kind or override propose")
        fields = {"mine": deal[party], "theirs": deal[self.other(party)]} if set(deal) == set(self.parties) else dict(deal)
        return actions.BY_KIND[self.offer_kind].model_validate({"kind": self.offer_kind, **fields})

    def accept(self, party: str, deal: Deal) -> actions.Action:
        """The move by which `party` takes `deal`, which the other side put forward (by default an `accept_kind` move)."""
        if self.accept_kind is None:
            raise NotImplementedError(f"{type(self).__name__}: set accept_kind or override accept")
        return actions.BY_KIND[self.accept_kind].model_validate({"kind": self.accept_kind})

    def reject(self, party: str) -> actions.Action | None:
        """The move that turns down an offer awaiting `party`'s answer (None: offers need no answer)."""
        return None if self.reject_kind is None else actions.BY_KIND[self.reject_kind].model_validate({"kind": self.reject_kind})

    def proposed(self, event: Event, reader: str) -> Deal | None:
        """The deal an event of the transcript puts forward, as `reader` can tell; None when it puts
        none forward (by default: an `offer_kind` move, read back as `propose` writes it)."""
        try:
            move = actions.action_of_event(event)
        except ValueError:  # an event the move cannot be rebuilt from (a corpus offer without its price)
            return None
        if move is None or move.kind != self.offer_kind or event.party not in self.parties:
            return None
        fields = move.model_dump(exclude={"kind"})
        if set(fields) == {"mine", "theirs"}:
            return {event.party: fields["mine"], self.other(event.party): fields["theirs"]}
        return fields

    def key(self) -> Hashable | None:
        """What the values depend on, as a hashable (CaSiNo: both parties' priorities), so the space
        of many episodes on alike scenarios is analysed once; None (the default): no reuse."""
        return None

    def describe(self, party: str, deal: Deal) -> str:
        """Words by which `party` states `deal` (a task overrides this with its own phrasing)."""
        mine, theirs = deal.get(party), deal.get(self.other(party))
        if isinstance(mine, Mapping) and isinstance(theirs, Mapping):
            return f"How about this: I get {_listing(mine)} and you get {_listing(theirs)}."
        return "How about this: " + ", ".join(f"{name} {_number(v)}" for name, v in deal.items()) + "?"


def _number(value: Any) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def _listing(share: Mapping[str, Any]) -> str:
    parts = [f"{_number(n)} {name}" for name, n in share.items() if n]
    return ", ".join(parts) if parts else "nothing"


# ---------------------------------------------------------------------------- the space


def pareto_mask(points: np.ndarray) -> np.ndarray:
    """Which rows of an (n, 2) array of utility points no other row dominates (at least as good for
    both parties, better for one)."""
    points = np.asarray(points, dtype=float)
    at_least = (points[None, :, :] >= points[:, None, :]).all(axis=2)
    better = (points[None, :, :] > points[:, None, :]).any(axis=2)
    dominated: np.ndarray = np.any(at_least & better, axis=1)
    return ~dominated


def nash_index(points: np.ndarray, walk: Sequence[float]) -> int | None:
    """The row maximising (u1 - d1)(u2 - d2) among rows at least as good as walking away for both
    (None when there is none)."""
    gains = np.asarray(points, dtype=float) - np.asarray(walk, dtype=float)
    fine = (gains >= 0).all(axis=1)
    if not fine.any():
        return None
    product = np.where(fine, gains[:, 0] * gains[:, 1], -np.inf)
    return int(np.argmax(product))


def kalai_index(points: np.ndarray, walk: Sequence[float], frontier: np.ndarray | None = None) -> int | None:
    """The frontier row whose gains over walking away, each as a share of that party's largest
    possible gain, are closest to equal (ties: the larger smaller share). None when no frontier
    row is at least as good as walking away for both, or a party can gain nothing."""
    points = np.asarray(points, dtype=float)
    frontier = pareto_mask(points) if frontier is None else frontier
    gains = points - np.asarray(walk, dtype=float)
    best = gains.max(axis=0)
    if (best <= 0).any():
        return None
    shares = gains / best
    fine = frontier & (gains >= 0).all(axis=1)
    if not fine.any():
        return None
    gap = np.where(fine, np.abs(shares[:, 0] - shares[:, 1]), np.inf)
    low = np.where(fine, shares.min(axis=1), -np.inf)
    order = np.lexsort((-low, np.round(gap, 12)))
    return int(order[0])


@dataclass
class Space:
    """The analysed outcome space of one scenario."""

    parties: tuple[str, str]
    deals: list[Deal]
    points: np.ndarray
    """(n, 2) utilities, in `parties` order."""
    walk: tuple[float, float]
    frontier: np.ndarray
    """(n,) bool: Pareto-efficient rows."""
    nash: int | None
    kalai: int | None

    @property
    def best(self) -> np.ndarray:
        """Each party's largest value over the space."""
        return np.asarray(self.points.max(axis=0))

    def frontier_points(self) -> np.ndarray:
        """The frontier's points, sorted by the first party's utility."""
        found = self.points[self.frontier]
        return np.asarray(found[np.argsort(found[:, 0], kind="stable")])

    def distance(self, point: Sequence[float]) -> float:
        """Euclidean distance from a utility point to the nearest frontier point (0 on or beyond it)."""
        p = np.asarray(point, dtype=float)
        dominating = self.points[(self.points >= p).all(axis=1) & self.frontier]
        if dominating.size == 0:
            return 0.0
        return float(np.sqrt(((dominating - p) ** 2).sum(axis=1)).min())

    def efficient(self, point: Sequence[float]) -> bool:
        """Whether no outcome of the space dominates the point."""
        p = np.asarray(point, dtype=float)
        return not bool((((self.points >= p).all(axis=1)) & ((self.points > p + 1e-9).any(axis=1))).any())

    def pareto_score(self, point: Sequence[float]) -> float:
        """clembench's score: 100 - 100 x (the largest gain to a party from an outcome that makes
        neither worse off / the largest value any party can get)."""
        p = np.asarray(point, dtype=float)
        better = self.points[(self.points >= p).all(axis=1)]
        improvement = float((better - p).max()) if better.size else 0.0
        top = float(np.abs(self.points).max()) or 1.0
        return 100.0 - 100.0 * max(improvement, 0.0) / top


def analyse(values: Values) -> Space:
    """The outcome space of one scenario with its frontier, Nash and Kalai points."""
    deals = values.outcomes()
    if not deals:
        raise ValueError("a task that declares values needs at least one outcome")
    a, b = values.parties
    points = np.array([[values.value(a, d), values.value(b, d)] for d in deals], dtype=float)
    walk = (float(values.walk_away(a)), float(values.walk_away(b)))
    frontier = pareto_mask(points)
    return Space(parties=values.parties, deals=deals, points=points, walk=walk, frontier=frontier, nash=nash_index(points, walk), kalai=kalai_index(points, walk, frontier))


SPACES_KEPT = 4096
"""Analysed spaces kept for reuse (by `Values.key`)."""
_spaces: dict[tuple[type, Hashable], Space] = {}


def analysed(values: Values) -> Space:
    """`analyse`, reusing the space of earlier values with the same `key`."""
    key = values.key()
    if key is None:
        return analyse(values)
    found = _spaces.get((type(values), key))
    if found is None:
        if len(_spaces) >= SPACES_KEPT:
            _spaces.pop(next(iter(_spaces)))
        found = _spaces[(type(values), key)] = analyse(values)
    return found


def outcome_point(values: Values, outcome: Outcome) -> tuple[float, float] | None:
    """The utility point an episode ended at: the deal's values, or the walk-away values without a
    deal; None when the outcome is not known (an agreement without its deal)."""
    a, b = values.parties
    if outcome.agreed is None:
        return None
    if not outcome.agreed:
        return (values.walk_away(a), values.walk_away(b))
    if not outcome.deal:
        return None
    return (values.value(a, outcome.deal), values.value(b, outcome.deal))


def outcome_figures(values: Values, outcome: Outcome, space: Space | None = None) -> dict[str, float | None]:
    """Per-episode figures for reports: `pareto_efficient`, `frontier_distance` and `pareto_score`
    (deals only), `surplus` (joint, over the walk-away; 0 without a deal) and `surplus_<party>`,
    `nash_distance` (deals only)."""
    a, b = values.parties
    names = ("pareto_efficient", "frontier_distance", "pareto_score", "nash_distance", "surplus", f"surplus_{a}", f"surplus_{b}")
    figures: dict[str, float | None] = dict.fromkeys(names)
    point = outcome_point(values, outcome)
    if point is None:
        return figures
    space = space if space is not None else analysed(values)
    gains = (point[0] - space.walk[0], point[1] - space.walk[1])
    figures["surplus"], figures[f"surplus_{a}"], figures[f"surplus_{b}"] = gains[0] + gains[1], gains[0], gains[1]
    if outcome.agreed:
        figures["pareto_efficient"] = float(space.efficient(point))
        figures["frontier_distance"] = space.distance(point)
        figures["pareto_score"] = space.pareto_score(point)
        if space.nash is not None:
            figures["nash_distance"] = float(math.dist(point, space.points[space.nash]))
    return figures


def surplus(values: Values, outcome: Outcome) -> dict[str, float]:
    """Each party's value of the outcome over its walk-away (0 without a deal); {} when unknown."""
    point = outcome_point(values, outcome)
    if point is None:
        return {}
    return {p: point[k] - values.walk_away(p) for k, p in enumerate(values.parties)}


def distance(left: Any, right: Any) -> float:
    """How far apart two deals are: the summed absolute difference of their numeric leaves
    (a generic measure used by baselines to pick, among equally good offers, the one nearest the
    other side's)."""
    if isinstance(left, Mapping) and isinstance(right, Mapping):
        return sum(distance(left.get(k), right.get(k)) for k in set(left) | set(right))
    if isinstance(left, (int, float)) and isinstance(right, (int, float)) and not isinstance(left, bool):
        return abs(float(left) - float(right))
    return 0.0 if left == right else 1.0

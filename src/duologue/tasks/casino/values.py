"""CaSiNo's declared values (`duologue.core.values`): the 64 splits, points by each party's own
priorities (`rules.points`), 5 points for walking away, and offers as `submit-deal` moves."""

from __future__ import annotations

from typing import Any, Hashable

from duologue.core.schema import Scenario
from duologue.core.values import Deal, Values
from duologue.tasks.casino.rules import ISSUES, WALK_AWAY_POINTS, all_shares, complement, points


class CasinoValues(Values):
    """A deal is `{party: share}` for both parties, as `Outcome.deal` writes it."""

    offer_kind, accept_kind, reject_kind = "submit-deal", "accept-deal", "reject-deal"

    def __init__(self, parties: tuple[str, str], scenario: Scenario) -> None:
        super().__init__(parties)
        self.priorities: dict[str, Any] = {p: view["priorities"] for p, view in scenario.private.items() if isinstance(view, dict) and "priorities" in view}
        self.walk = float(scenario.public.get("walk_away_points", WALK_AWAY_POINTS))  # type: ignore[arg-type]

    def key(self) -> Hashable | None:
        return (self.parties, self.walk, tuple(tuple(sorted(self.priorities.get(p, {}).items())) for p in self.parties))

    def outcomes(self) -> list[Deal]:
        a, b = self.parties
        return [{a: share, b: complement(share)} for share in all_shares()]

    def value(self, party: str, deal: Deal) -> float:
        return float(points(deal[party], self.priorities[party]))

    def walk_away(self, party: str) -> float:
        return self.walk

    def describe(self, party: str, deal: Deal) -> str:
        def say(share: dict[str, int]) -> str:
            return ", ".join(f"{share[issue]} {issue.lower()}" for issue in ISSUES)

        return f"How about I take {say(deal[party])}, and you take {say(deal[self.other(party)])}?"

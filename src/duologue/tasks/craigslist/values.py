"""CraigslistBargain's declared values (`duologue.core.values`): a grid of prices between the two
targets, CoCoA's utility of each (`scoring.utility`), and CoCoA's no-deal value (`NO_DEAL_REWARD`,
-0.5) for ending without a deal. Offers are `offer` moves, answered by `accept` or `reject`.

CoCoA's utility needs both targets. The buyer knows both (the seller's target is the listing
price); the seller does not know the buyer's, so a seller's own view assumes the lowest target the
task draws (`target_ratios`): its utilities keep their order, which is what an agent acts on.
"""

from __future__ import annotations

from typing import Any, Hashable

from duologue.core.schema import Scenario
from duologue.core.values import Deal, Values
from duologue.tasks.craigslist.listings import target_ratios
from duologue.tasks.craigslist.scoring import NO_DEAL_REWARD, ROLES, ScoringError, utility

GRID_POINTS = 21
"""Prices in the outcome grid, the two targets included."""


class CraigslistValues(Values):
    """A deal is `{"price": p}`, as `Outcome.deal` writes it."""

    offer_kind, accept_kind, reject_kind = "offer", "accept", "reject"

    def __init__(self, parties: tuple[str, str], scenario: Scenario, listing: float | None) -> None:
        super().__init__(parties)
        self.roles: dict[str, str] = {}
        targets: dict[str, float] = {}
        for party, view in scenario.private.items():
            role, target = view.get("role"), view.get("target")
            if role in ROLES and isinstance(target, (int, float)) and not isinstance(target, bool):
                self.roles[party], targets[str(role)] = str(role), float(target)
        if "seller" not in targets and listing is not None:
            targets["seller"] = listing
        if "buyer" not in targets and "seller" in targets:
            targets["buyer"] = min(target_ratios()) * targets["seller"]
        if set(targets) != set(ROLES) or targets["buyer"] == targets["seller"]:
            raise ScoringError(f"CoCoA's utility needs a buyer's and a seller's target that differ, got {targets}")
        self.targets = targets

    def key(self) -> Hashable | None:
        return (tuple(sorted(self.roles.items())), tuple(sorted(self.targets.items())))

    def outcomes(self) -> list[Deal]:
        low, high = sorted((self.targets["buyer"], self.targets["seller"]))
        step = (high - low) / (GRID_POINTS - 1)
        return [{"price": round(low + k * step, 2)} for k in range(GRID_POINTS)]

    def value(self, party: str, deal: Deal) -> float:
        price: Any = deal["price"]
        return utility(float(price), self.roles[party], seller_target=self.targets["seller"], buyer_target=self.targets["buyer"])

    def walk_away(self, party: str) -> float:
        return NO_DEAL_REWARD

    def describe(self, party: str, deal: Deal) -> str:
        return f"I can do ${float(deal['price']):,.0f}."

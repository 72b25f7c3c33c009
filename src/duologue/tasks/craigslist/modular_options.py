"""What a learned strategy may choose in the CraigslistBargain modular agent beside the act, and what it sees.

Where the agent's price manager fixes a number (an opening, a counter, a final offer) or an answer,
`PriceOptions` offers a learned strategy (`rl:`) variants of it, named `point:option` (`OPTIONS`),
always with the manager's own first (the plain `modular` agent plays that one). Variants beyond the
agent's limit are never offered.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Sequence

from duologue.modular.policy import OptionChoices
from duologue.core.task import Observation

if TYPE_CHECKING:
    from duologue.tasks.craigslist.agents import CraigslistRuleAgent

OPTIONS: dict[str, tuple[str, ...]] = {
    "init-price": ("step", "bold"),
    "counter-price": ("step", "hold", "small", "meet", "fair"),
    "offer": ("step", "hold", "meet", "fair"),
    "answer": ("accept", "reject"),
}
"""The argument variants of the number-carrying acts, and the answer to an offer (see `choose_option`).

`step` is what the price manager does (its opening, its usual concession, its offer), `bold` an
opening further from the partner, `hold` my last price again, `small` half the usual concession,
`meet` halfway between my last price and the partner's, `fair` the price halfway between my target
and the partner's first price (`fair_price`: CoCoA's fair price is the midpoint of the two targets, and
a first price is the partner's best sign of its target), never past my limit nor back from a
concession I made."""
FAIR_WITHIN = 0.2
"""A price within this share of half the gap between my target and the partner's first price of the fair
price counts as fair (`fair=even`)."""


class PriceOptions(OptionChoices):
    """The argument variants of the CraigslistBargain modular agent (a mixin: the agent supplies its planner and context)."""

    option_variants = OPTIONS

    planner: CraigslistRuleAgent
    their_first: float | None = None
    """The partner's first price (the agent keeps it as it reads the dialogue)."""

    def context(self, observation: Observation) -> tuple[str, ...]:  # pragma: no cover - the agent's own
        raise NotImplementedError

    def _option(self, point: str, observation: Observation, options: Sequence[str]) -> str:
        return options[0] if len(options) < 2 else self.choose_option(point, self.option_context(observation), options)

    def option_context(self, observation: Observation) -> tuple[str, ...]:
        """The act context plus how late it is and where the partner's price stands between my target and limit."""
        planner = self.planner
        turns_left = observation.turns_left
        stage = "early" if turns_left is None or turns_left > 15 else "mid" if turns_left > 8 else "late"
        theirs, span = planner.their_price, planner.target - planner.limit
        if theirs is None or abs(span) < 1e-9:
            standing = "none"
        else:
            share = (planner.target - theirs) / span  # 0 at my target, 1 at my limit
            standing = "target" if share <= 0 else "near" if share < 0.34 else "mid" if share < 0.67 else "far" if share <= 1 else "beyond"
        return (*self.context(observation), stage, standing, self.fair_standing(theirs))

    def fair_price(self) -> float | None:
        """Halfway between my target and the partner's first price (None before the partner named one)."""
        if self.their_first is None:
            return None
        return (self.planner.target + self.their_first) / 2

    def fair_standing(self, price: float | None) -> str:
        """Where `price` stands against the fair price: `fair=even`, `fair=mine` (better for me) or `fair=theirs`."""
        fair = self.fair_price()
        if price is None or fair is None or self.their_first is None:
            return "fair=none"
        half = abs(self.planner.target - self.their_first) / 2
        if half < 1e-9:
            return "fair=even"
        lead = (price - fair if self.planner.seller else fair - price) / half
        return "fair=even" if abs(lead) <= FAIR_WITHIN else "fair=mine" if lead > 0 else "fair=theirs"

    def _fair(self) -> float | None:
        """The fair price as a variant: only between my last price and the partner's (never asking more than I did,
        never conceding past what the partner asks)."""
        planner, fair = self.planner, self.fair_price()
        if fair is None:
            return None
        price = self._nice(fair)
        if planner.my_price is not None and not planner._better(planner.my_price, price):
            return None
        if planner.their_price is not None and not planner._better(price, planner.their_price):
            return None
        return price

    def _priced(self, point: str, observation: Observation, usual: float, **others: float | None) -> float:
        """The price of `point`: the planner's `usual` (option `step`) or a variant a learned strategy picks.
        Variants beyond my limit or equal to an earlier one are not offered."""
        prices = {"step": usual}
        for name in OPTIONS[point][1:]:
            price = others.get(name)
            if price is not None and self.planner.within_limit(price) and all(abs(price - p) > 1e-9 for p in prices.values()):
                prices[name] = price
        return prices[self._option(point, observation, list(prices))]

    def _nice(self, price: float) -> float:
        """A price rounded to the planner's unit in my favour, kept within my limit (not my comfort price)."""
        planner = self.planner
        units = price / planner.step
        value = (math.ceil(units - 1e-9) if planner.seller else math.floor(units + 1e-9)) * planner.step
        if not planner.within_limit(value):
            value = planner.limit
        return float(round(value, 2))

    def _meet(self) -> float | None:
        """Halfway between my last price and the partner's (None until both named one)."""
        mine, theirs = self.planner.my_price, self.planner.their_price
        if mine is None or theirs is None or self.planner._better(theirs, mine):
            return None
        return self._nice((mine + theirs) / 2)

    def _bold(self) -> float | None:
        """An opening further from the partner than the planner's by a sixth of the listing price (a buyer's only:
        a seller already opens at the listing price)."""
        planner = self.planner
        if planner.seller:
            return None
        return self._nice(max(planner.opening - planner.listing / 6, 0.05 * planner.listing))

"""CraigslistBargain scoring, as CoCoA defined it (He et al., 2018).

A deal is judged against the two private targets. With the midpoint
`m = (seller_target + buyer_target) / 2`, the seller's utility of a price is
`(price - m) / |m - seller_target|` and the buyer's is its negative: +1 at your own target,
0 at the midpoint, -1 at the other side's target (and beyond +-1 past the targets).

CoCoA's reinforcement-learning rewards build on that utility: `margin` (the utility itself),
`fair` (`2 - |utility|`, highest for a deal at the midpoint) and `length` (`events / 10`,
which rewards long dialogues); a dialogue without a deal gets `NO_DEAL_REWARD` (-0.5) under
every one of them.

Everything here is a plain function of numbers, so the corpus reader, the game engine and the
evaluation code score deals the same way.
"""

from __future__ import annotations

import math
from typing import Literal, Mapping

Role = Literal["buyer", "seller"]
RewardKind = Literal["margin", "fair", "length"]

ROLES: tuple[Role, Role] = ("buyer", "seller")
NO_DEAL_REWARD = -0.5
"""What CoCoA's RL rewards give both sides when no offer was accepted."""


class ScoringError(ValueError):
    """The numbers do not allow a utility (a missing target, or equal targets)."""


def midpoint(*, seller_target: float, buyer_target: float) -> float:
    """The price halfway between the two targets: utility 0 for both sides."""
    return (seller_target + buyer_target) / 2


def seller_utility(price: float, *, seller_target: float, buyer_target: float) -> float:
    """The seller's CoCoA utility of a deal at `price`: +1 at the seller's target, 0 at the midpoint.

    Raises `ScoringError` when the targets are equal (the scale would divide by zero) or any
    number is not finite.
    """
    for name, value in (("price", price), ("seller_target", seller_target), ("buyer_target", buyer_target)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise ScoringError(f"{name} must be a finite number, got {value!r}")
    middle = midpoint(seller_target=seller_target, buyer_target=buyer_target)
    scale = abs(middle - seller_target)
    if scale == 0:
        raise ScoringError(f"seller and buyer targets are both {seller_target}: utility is undefined when they are equal")
    return (price - middle) / scale


def buyer_utility(price: float, *, seller_target: float, buyer_target: float) -> float:
    """The buyer's CoCoA utility: the negative of the seller's (the game is zero-sum)."""
    return 0.0 - seller_utility(price, seller_target=seller_target, buyer_target=buyer_target)  # 0.0, not -0.0, at the midpoint


def utility(price: float, role: str, *, seller_target: float, buyer_target: float) -> float:
    """The utility of a deal at `price` for the side playing `role` (`buyer` or `seller`)."""
    if role == "seller":
        return seller_utility(price, seller_target=seller_target, buyer_target=buyer_target)
    if role == "buyer":
        return buyer_utility(price, seller_target=seller_target, buyer_target=buyer_target)
    raise ScoringError(f"role must be 'buyer' or 'seller', got {role!r}")


def fairness(utility_value: float) -> float:
    """CoCoA's `fair` reward for one side: `2 - |utility|` (2 at the midpoint)."""
    return 2 - abs(utility_value)


def length_reward(event_count: int) -> float:
    """CoCoA's `length` reward: number of events / 10."""
    return event_count / 10


def targets_by_role(views: Mapping[str, Mapping[str, object]]) -> dict[str, float]:
    """Role -> target from the parties' private views (`{"role": ..., "target": ...}` each).

    Raises `ScoringError` unless there is exactly one buyer and one seller with numeric targets.
    """
    targets: dict[str, float] = {}
    for party, view in views.items():
        role, target = view.get("role"), view.get("target")
        if role not in ROLES:
            raise ScoringError(f"party {party!r} has role {role!r}, not 'buyer' or 'seller'")
        if role in targets:
            raise ScoringError(f"two parties play the {role}")
        if isinstance(target, bool) or not isinstance(target, (int, float)):
            raise ScoringError(f"party {party!r} has no numeric target (got {target!r})")
        targets[role] = float(target)
    missing = [r for r in ROLES if r not in targets]
    if missing:
        raise ScoringError(f"no party plays the {' or '.join(missing)}")
    return targets


def utilities_by_party(price: float, views: Mapping[str, Mapping[str, object]]) -> dict[str, float]:
    """Party id -> CoCoA utility of a deal at `price`, from each party's private role and target."""
    targets = targets_by_role(views)
    return {
        party: utility(price, str(view["role"]), seller_target=targets["seller"], buyer_target=targets["buyer"])
        for party, view in views.items()
    }


def rl_reward(
    kind: RewardKind,
    *,
    agreed: bool,
    price: float | None,
    seller_target: float,
    buyer_target: float,
    event_count: int,
) -> dict[str, float]:
    """Role -> CoCoA's RL reward of one dialogue (`margin`, `fair` or `length`).

    A dialogue without a deal (or a deal without a price) gets `NO_DEAL_REWARD` for both roles,
    whatever the kind, as in CoCoA's trainer.
    """
    if not agreed or price is None:
        return {role: NO_DEAL_REWARD for role in ROLES}
    if kind == "length":
        return {role: length_reward(event_count) for role in ROLES}
    margins: dict[str, float] = {role: utility(price, role, seller_target=seller_target, buyer_target=buyer_target) for role in ROLES}
    if kind == "margin":
        return margins
    if kind == "fair":
        return {role: fairness(value) for role, value in margins.items()}
    raise ScoringError(f"reward kind must be 'margin', 'fair' or 'length', got {kind!r}")

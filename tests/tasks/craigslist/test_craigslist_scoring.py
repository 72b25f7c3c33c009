"""CoCoA's CraigslistBargain utility and RL rewards, on examples computed by hand."""

from __future__ import annotations

import pytest

from duologue.tasks.craigslist.scoring import (
    NO_DEAL_REWARD,
    ScoringError,
    buyer_utility,
    fairness,
    length_reward,
    midpoint,
    rl_reward,
    seller_utility,
    targets_by_role,
    utilities_by_party,
    utility,
)

# Listing at 200, buyer target 140: midpoint 170, scale |170 - 200| = 30.
TARGETS = {"seller_target": 200, "buyer_target": 140}


def test_midpoint_is_halfway_between_targets() -> None:
    assert midpoint(**TARGETS) == 170


@pytest.mark.parametrize(
    ("price", "seller", "buyer"),
    [
        (200, 1.0, -1.0),  # the seller's own target
        (140, -1.0, 1.0),  # the buyer's own target
        (170, 0.0, 0.0),  # the midpoint
        (185, 0.5, -0.5),  # (185 - 170) / 30
        (230, 2.0, -2.0),  # beyond the seller's target: utility is not capped
        (110, -2.0, 2.0),
    ],
)
def test_utilities_on_hand_computed_prices(price: float, seller: float, buyer: float) -> None:
    assert seller_utility(price, **TARGETS) == pytest.approx(seller)
    assert buyer_utility(price, **TARGETS) == pytest.approx(buyer)
    assert utility(price, "seller", **TARGETS) == pytest.approx(seller)
    assert utility(price, "buyer", **TARGETS) == pytest.approx(buyer)


def test_midpoint_utility_is_positive_zero_for_both_sides() -> None:
    assert str(buyer_utility(170, **TARGETS)) == "0.0"
    assert str(seller_utility(170, **TARGETS)) == "0.0"


def test_real_corpus_example() -> None:
    # GoPro listing (validation.json record 0): seller 265, buyer 243, deal at 243.
    # midpoint 254, scale 11: seller (243 - 254) / 11 = -1, buyer +1.
    assert seller_utility(243.0, seller_target=265, buyer_target=243) == pytest.approx(-1.0)
    assert buyer_utility(243.0, seller_target=265, buyer_target=243) == pytest.approx(1.0)


def test_equal_targets_are_refused_not_divided_by_zero() -> None:
    with pytest.raises(ScoringError, match="equal"):
        seller_utility(100, seller_target=100, buyer_target=100)


@pytest.mark.parametrize("bad", [None, "100", float("nan"), float("inf"), True])
def test_non_numbers_are_refused(bad: object) -> None:
    with pytest.raises(ScoringError):
        seller_utility(bad, **TARGETS)  # type: ignore[arg-type]


def test_unknown_role_is_refused() -> None:
    with pytest.raises(ScoringError, match="role"):
        utility(170, "renter", **TARGETS)


def test_fairness_and_length() -> None:
    assert fairness(0.0) == 2.0
    assert fairness(0.5) == 1.5
    assert fairness(-0.5) == 1.5
    assert fairness(-2.0) == 0.0
    assert length_reward(8) == pytest.approx(0.8)
    assert length_reward(0) == 0.0


def test_rl_rewards_with_a_deal() -> None:
    common = dict(agreed=True, price=185, event_count=12, **TARGETS)
    assert rl_reward("margin", **common) == pytest.approx({"seller": 0.5, "buyer": -0.5})
    assert rl_reward("fair", **common) == pytest.approx({"seller": 1.5, "buyer": 1.5})
    assert rl_reward("length", **common) == pytest.approx({"seller": 1.2, "buyer": 1.2})


@pytest.mark.parametrize("kind", ["margin", "fair", "length"])
def test_rl_rewards_without_a_deal_are_minus_half(kind: str) -> None:
    no_deal = rl_reward(kind, agreed=False, price=185, event_count=12, **TARGETS)  # type: ignore[arg-type]
    assert no_deal == {"buyer": NO_DEAL_REWARD, "seller": NO_DEAL_REWARD} == {"buyer": -0.5, "seller": -0.5}
    no_price = rl_reward(kind, agreed=True, price=None, event_count=12, **TARGETS)  # type: ignore[arg-type]
    assert no_price == {"buyer": -0.5, "seller": -0.5}


def test_unknown_reward_kind() -> None:
    with pytest.raises(ScoringError, match="kind"):
        rl_reward("greedy", agreed=True, price=185, event_count=3, **TARGETS)  # type: ignore[arg-type]


def test_utilities_by_party_uses_each_private_view() -> None:
    views = {"0": {"role": "buyer", "target": 140}, "1": {"role": "seller", "target": 200}}
    assert utilities_by_party(185, views) == pytest.approx({"0": -0.5, "1": 0.5})
    assert targets_by_role(views) == {"buyer": 140.0, "seller": 200.0}


@pytest.mark.parametrize(
    ("views", "words"),
    [
        ({"0": {"role": "buyer", "target": 140}, "1": {"role": "buyer", "target": 200}}, "two parties play the buyer"),
        ({"0": {"role": "buyer", "target": 140}}, "no party plays the seller"),
        ({"0": {"role": "buyer", "target": None}, "1": {"role": "seller", "target": 200}}, "no numeric target"),
        ({"0": {"role": "renter", "target": 1}, "1": {"role": "seller", "target": 200}}, "not 'buyer' or 'seller'"),
    ],
)
def test_utilities_by_party_needs_one_buyer_and_one_seller(views: dict, words: str) -> None:
    with pytest.raises(ScoringError, match=words):
        utilities_by_party(185, views)

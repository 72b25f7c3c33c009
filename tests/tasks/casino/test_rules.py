"""CaSiNo rules: points from a share and priorities, valid splits and priorities, Pareto optimality."""

from __future__ import annotations

import pytest

from duologue.tasks.casino.rules import (
    ISSUES,
    LIKENESS_SCALE,
    MAX_POINTS,
    SATISFACTION_SCALE,
    STRATEGY_LABELS,
    all_shares,
    complement,
    deal_points,
    is_pareto_optimal,
    pareto_frontier,
    points,
    priorities_from_value2issue,
    priority_problems,
    split_problems,
)

# Food is A's top issue and B's bottom one; Firewood the reverse; both rank Water Medium.
A = {"Food": "High", "Water": "Medium", "Firewood": "Low"}
B = {"Food": "Low", "Water": "Medium", "Firewood": "High"}


def test_points_match_a_published_dialogue():
    # Dialogue 938 of the corpus: agent_1 (High Firewood, Medium Food, Low Water) got 22 points,
    # agent_2 (High Water, Medium Firewood, Low Food) got 19.
    agent_1 = priorities_from_value2issue({"Medium": "Food", "Low": "Water", "High": "Firewood"})
    agent_2 = priorities_from_value2issue({"Low": "Food", "High": "Water", "Medium": "Firewood"})
    assert agent_1 == {"Food": "Medium", "Water": "Low", "Firewood": "High"}
    deal = {"agent_1": {"Water": 0, "Firewood": 2, "Food": 3}, "agent_2": {"Water": 3, "Firewood": 1, "Food": 0}}
    assert deal_points(deal, {"agent_1": agent_1, "agent_2": agent_2}) == {"agent_1": 22, "agent_2": 19}


def test_points_range_from_zero_to_thirty_six():
    assert points({"Food": 0, "Water": 0, "Firewood": 0}, A) == 0
    assert points({"Food": 3, "Water": 3, "Firewood": 3}, A) == MAX_POINTS == 36
    assert points({"Food": 1, "Water": 1, "Firewood": 1}, A) == 5 + 4 + 3


def test_split_problems_name_the_issue():
    assert split_problems({"Food": 3, "Water": 1, "Firewood": 0}, {"Food": 0, "Water": 2, "Firewood": 3}) == []
    (problem,) = split_problems({"Food": 2, "Water": 1, "Firewood": 0}, {"Food": 2, "Water": 2, "Firewood": 3})
    assert problem.startswith("Food") and "do not add up to 3" in problem
    assert any("0..3" in p for p in split_problems({"Food": 4, "Water": 1, "Firewood": 0}, {"Food": -1, "Water": 2, "Firewood": 3}))
    assert any("exactly the issues" in p for p in split_problems({"Food": 3, "Water": 3}, {"Food": 0, "Water": 0}))


def test_priority_problems():
    assert priority_problems(A) == []
    assert priority_problems({"Food": "High", "Water": "High", "Firewood": "Low"})
    assert priority_problems({"Food": "High", "Water": "Medium"})


def test_complement_and_share_count():
    assert complement({"Food": 3, "Water": 1, "Firewood": 0}) == {"Food": 0, "Water": 2, "Firewood": 3}
    shares = all_shares()
    assert len(shares) == 64 and len({tuple(s.values()) for s in shares}) == 64


@pytest.mark.parametrize(
    ("share_a", "optimal"),
    [
        # A gets its High issue, B its High issue, Water (valued 4 by both) split: (23, 19), optimal.
        ({"Food": 3, "Water": 2, "Firewood": 0}, True),
        # A keeps one Firewood while B has Water: giving that Firewood for a Water gains each side 1
        # point, so (26, 14) is beaten by (27, 15).
        ({"Food": 3, "Water": 2, "Firewood": 1}, False),
        # Each holds the other's top issue: swapping them gains both: (17, 13) is dominated.
        ({"Food": 0, "Water": 2, "Firewood": 3}, False),
        # Everything to A is still Pareto optimal (B cannot gain without A losing).
        ({"Food": 3, "Water": 3, "Firewood": 3}, True),
    ],
)
def test_pareto_optimality_on_hand_computed_splits(share_a, optimal):
    assert is_pareto_optimal(share_a, A, B) is optimal


def test_pareto_frontier_has_the_ten_hand_counted_splits():
    # A holds Firewood only if it holds all Food and Water (3 splits); else A holds no Firewood and
    # either B keeps some Food, so A holds no Water (3), or A holds all Food, any Water (4).
    frontier = {tuple(share[i] for i in ISSUES) for share, _, _ in pareto_frontier(A, B)}
    expected = {(3, 3, 1), (3, 3, 2), (3, 3, 3), (0, 0, 0), (1, 0, 0), (2, 0, 0), (3, 0, 0), (3, 1, 0), (3, 2, 0), (3, 3, 0)}
    assert frontier == expected


def test_with_identical_priorities_every_split_is_optimal():
    # Points always sum to 36, so no split can make both better off.
    assert all(is_pareto_optimal(share, A, A) for share in all_shares())


def test_label_scales_run_from_low_to_high():
    assert SATISFACTION_SCALE.numeric("Extremely dissatisfied") == 1.0
    assert SATISFACTION_SCALE.numeric("Extremely satisfied") == 5.0
    assert LIKENESS_SCALE.numeric("Undecided") == 3.0
    assert not LIKENESS_SCALE.contains("Very like")
    assert len(STRATEGY_LABELS) == 10

"""The rules and scoring of CaSiNo (Chawla et al., NAACL 2021), shared by the corpus format and task code.

Two campsite neighbours split 3 packages each of Food, Water and Firewood. Each party privately
ranks the three issues High / Medium / Low; every package received is worth 5 / 4 / 3 points to
that party (so at most 36). A deal is a split of all packages (each issue's counts add up to 3);
walking away gives each side 5 points. After the negotiation each party rates its own satisfaction
and how much it liked the opponent on five-label scales.

A split is Pareto optimal when no other split gives one party more points without giving the other
fewer. Points are linear in the counts, so with only 4^3 = 64 possible splits the check is an exact
enumeration, not a heuristic.
"""

from __future__ import annotations

from itertools import product
from typing import Mapping

from duologue.core.schema import Scale

ISSUES: tuple[str, ...] = ("Food", "Water", "Firewood")
PRIORITY_LEVELS: tuple[str, ...] = ("High", "Medium", "Low")
POINTS_PER_PRIORITY: dict[str, int] = {"High": 5, "Medium": 4, "Low": 3}
PACKAGES_PER_ISSUE = 3
WALK_AWAY_POINTS = 5
MAX_POINTS = PACKAGES_PER_ISSUE * sum(POINTS_PER_PRIORITY.values())

SATISFACTION_LABELS: tuple[str, ...] = (
    "Extremely dissatisfied",
    "Slightly dissatisfied",
    "Undecided",
    "Slightly satisfied",
    "Extremely satisfied",
)
"""The post-negotiation satisfaction answers, lowest to highest."""

LIKENESS_LABELS: tuple[str, ...] = (
    "Extremely dislike",
    "Slightly dislike",
    "Undecided",
    "Slightly like",
    "Extremely like",
)
"""The post-negotiation opponent-likeness answers, lowest to highest."""

SATISFACTION_SCALE = Scale(kind="ordinal", labels=list(SATISFACTION_LABELS))
LIKENESS_SCALE = Scale(kind="ordinal", labels=list(LIKENESS_LABELS))

STRATEGY_LABELS: tuple[str, ...] = (
    "small-talk",
    "self-need",
    "other-need",
    "no-need",
    "elicit-pref",
    "uv-part",
    "vouch-fair",
    "promote-coordination",
    "showing-empathy",
    "non-strategic",
)
"""The corpus's per-utterance negotiation strategy labels (an utterance may carry several)."""

Priorities = Mapping[str, str]
"""Issue -> priority level, e.g. {"Food": "High", "Water": "Low", "Firewood": "Medium"}."""
Share = Mapping[str, int]
"""Issue -> packages one party receives, e.g. {"Food": 3, "Water": 1, "Firewood": 0}."""


def priorities_from_value2issue(value2issue: Mapping[str, str]) -> dict[str, str]:
    """The corpus stores level -> issue (`value2issue`); code mostly wants issue -> level."""
    by_issue = {issue: level for level, issue in value2issue.items()}
    return {issue: by_issue[issue] for issue in ISSUES if issue in by_issue}


def priority_problems(priorities: Priorities) -> list[str]:
    """What is wrong with a priority assignment (empty when each issue has a distinct level)."""
    problems = []
    if sorted(priorities) != sorted(ISSUES):
        problems.append(f"priorities must name exactly the issues {list(ISSUES)}, got {list(priorities)}")
    if sorted(priorities.values()) != sorted(PRIORITY_LEVELS):
        problems.append(f"priorities must use each of {list(PRIORITY_LEVELS)} once, got {list(priorities.values())}")
    return problems


def split_problems(mine: Share, theirs: Share) -> list[str]:
    """What is wrong with a proposed split (empty when every issue's packages are all handed out)."""
    problems = []
    for name, share in (("mine", mine), ("theirs", theirs)):
        if sorted(share) != sorted(ISSUES):
            problems.append(f"{name} must name exactly the issues {list(ISSUES)}, got {list(share)}")
    for issue in ISSUES:
        counts = [share.get(issue) for share in (mine, theirs)]
        whole = [c for c in counts if isinstance(c, int) and not isinstance(c, bool) and 0 <= c <= PACKAGES_PER_ISSUE]
        if len(whole) != len(counts):
            problems.append(f"{issue}: counts must be whole numbers 0..{PACKAGES_PER_ISSUE}, got {counts}")
        elif sum(whole) != PACKAGES_PER_ISSUE:
            problems.append(f"{issue}: {counts[0]} + {counts[1]} packages do not add up to {PACKAGES_PER_ISSUE}")
    return problems


def points(share: Share, priorities: Priorities) -> int:
    """Points one party scores for the packages it receives, given its own priorities."""
    return sum(POINTS_PER_PRIORITY[priorities[issue]] * share.get(issue, 0) for issue in ISSUES)


def deal_points(deal: Mapping[str, Share], priorities: Mapping[str, Priorities]) -> dict[str, int]:
    """Points per party for an agreed deal (party -> share), each scored by that party's priorities."""
    return {party: points(share, priorities[party]) for party, share in deal.items()}


def complement(share: Share) -> dict[str, int]:
    """What the other party receives when one party receives `share`."""
    return {issue: PACKAGES_PER_ISSUE - share.get(issue, 0) for issue in ISSUES}


def all_shares() -> list[dict[str, int]]:
    """Every possible share of one party (the other receives the complement): 64 in all."""
    return [dict(zip(ISSUES, counts, strict=True)) for counts in product(range(PACKAGES_PER_ISSUE + 1), repeat=len(ISSUES))]


def pareto_frontier(priorities_a: Priorities, priorities_b: Priorities) -> list[tuple[dict[str, int], int, int]]:
    """The Pareto-optimal shares of party A, with the points (A, B) each gives."""
    scored = [(share, points(share, priorities_a), points(complement(share), priorities_b)) for share in all_shares()]
    return [(share, a, b) for share, a, b in scored if not any(_dominates(x, y, a, b) for _, x, y in scored)]


def is_pareto_optimal(share_a: Share, priorities_a: Priorities, priorities_b: Priorities) -> bool:
    """Whether A receiving `share_a` (B the rest) leaves no split better for one and no worse for the other."""
    a = points(share_a, priorities_a)
    b = points(complement(share_a), priorities_b)
    return not any(_dominates(points(s, priorities_a), points(complement(s), priorities_b), a, b) for s in all_shares())


def _dominates(x: int, y: int, a: int, b: int) -> bool:
    return x >= a and y >= b and (x > a or y > b)

"""The rules and scoring of Deal or No Deal (Lewis, Yarats, Dauphin, Parikh, Batra, EMNLP 2017).

A pool of three item types (book, hat, ball), 1-4 of each and 5-7 items in all. Each party values
each type with a non-negative integer, privately; the whole pool is worth exactly 10 to each. The
paper's generator also asks that every item type is valued by at least one party and that some
type is valued by both, so the two sides want something in common. After chatting, each party
privately enters what it takes; complementary choices (together the whole pool) score each side
the value of what it took, anything else scores 0 for both.

With at most 5^3 = 125 ways to split a pool, Pareto optimality is checked by exact enumeration.
"""

from __future__ import annotations

import random
from functools import lru_cache
from itertools import product
from typing import Mapping

ITEMS: tuple[str, ...] = ("book", "hat", "ball")
"""The item types, in the corpus's order (`item0`, `item1`, `item2`)."""
MIN_COUNT, MAX_COUNT = 1, 4
MIN_TOTAL, MAX_TOTAL = 5, 7
TOTAL_VALUE = 10

Counts = Mapping[str, int]
"""Item -> how many (a pool, or what one side takes)."""
Values = Mapping[str, int]
"""Item -> points one item of that type is worth to one party."""


def value(share: Counts, values: Values) -> int:
    """Points of a share for a party with these values."""
    return sum(values[item] * share.get(item, 0) for item in ITEMS)


def complement(share: Counts, pool: Counts) -> dict[str, int]:
    """What the other side gets when one side takes `share` of `pool`."""
    return {item: pool[item] - share.get(item, 0) for item in ITEMS}


def split_problems(mine: Counts, theirs: Counts, pool: Counts) -> list[str]:
    """What is wrong with a split (empty when the two halves give out exactly the pool)."""
    problems = []
    for name, share in (("mine", mine), ("theirs", theirs)):
        if sorted(share) != sorted(ITEMS):
            problems.append(f"{name} must name exactly the items {list(ITEMS)}, got {list(share)}")
    for item in ITEMS:
        counts = [share.get(item) for share in (mine, theirs)]
        if any(isinstance(c, bool) or not isinstance(c, int) or c < 0 for c in counts):
            problems.append(f"{item}: counts must be whole numbers from 0, got {counts}")
        elif sum(c for c in counts if isinstance(c, int)) != pool[item]:
            problems.append(f"{item}: {counts[0]} + {counts[1]} do not add up to the {pool[item]} in the pool")
    return problems


def scenario_problems(pool: Counts, values: Mapping[str, Values]) -> list[str]:
    """Which of the paper's generator constraints a scenario breaks (empty when it keeps them all)."""
    problems = []
    if any(not MIN_COUNT <= pool[item] <= MAX_COUNT for item in ITEMS):
        problems.append(f"each item type comes {MIN_COUNT}-{MAX_COUNT} times, got {dict(pool)}")
    if not MIN_TOTAL <= sum(pool.values()) <= MAX_TOTAL:
        problems.append(f"the pool holds {MIN_TOTAL}-{MAX_TOTAL} items, got {sum(pool.values())}")
    for party, own in values.items():
        if any(v < 0 for v in own.values()):
            problems.append(f"{party}: values are non-negative, got {dict(own)}")
        if value(pool, own) != TOTAL_VALUE:
            problems.append(f"{party}: the pool is worth {value(pool, own)}, not {TOTAL_VALUE}")
    sides = list(values.values())
    if len(sides) == 2:
        a, b = sides
        if any(a[item] == 0 and b[item] == 0 for item in ITEMS):
            problems.append("an item type is worth nothing to both parties")
        if not any(a[item] > 0 and b[item] > 0 for item in ITEMS):
            problems.append("no item type is worth something to both parties")
    return problems


@lru_cache(maxsize=None)
def _value_vectors(pool: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    """Every way to value the pool's item types so that the pool is worth exactly 10."""
    ranges = [range(TOTAL_VALUE // n + 1) for n in pool]
    return tuple(v for v in product(*ranges) if sum(c * x for c, x in zip(pool, v, strict=True)) == TOTAL_VALUE)


@lru_cache(maxsize=1)
def _pools() -> tuple[tuple[int, ...], ...]:
    return tuple(p for p in product(range(MIN_COUNT, MAX_COUNT + 1), repeat=len(ITEMS)) if MIN_TOTAL <= sum(p) <= MAX_TOTAL)


def generate(rng: random.Random) -> tuple[dict[str, int], dict[str, int], dict[str, int]]:
    """A pool and two value vectors drawn from `rng` under the paper's constraints.

    Draws a pool uniformly, then each side's values uniformly among those worth 10, and draws again
    until the pair keeps the constraints (pools with no valid pair are drawn again too).
    """
    while True:
        pool = rng.choice(_pools())
        vectors = _value_vectors(pool)
        if not vectors:
            continue
        a, b = rng.choice(vectors), rng.choice(vectors)
        counts = dict(zip(ITEMS, pool, strict=True))
        values_a, values_b = dict(zip(ITEMS, a, strict=True)), dict(zip(ITEMS, b, strict=True))
        if not scenario_problems(counts, {"a": values_a, "b": values_b}):
            return counts, values_a, values_b


def all_shares(pool: Counts) -> list[dict[str, int]]:
    """Every share one side can take of the pool (the other side gets the complement)."""
    return [dict(zip(ITEMS, took, strict=True)) for took in product(*(range(pool[item] + 1) for item in ITEMS))]


def is_pareto_optimal(share_a: Counts, pool: Counts, values_a: Values, values_b: Values) -> bool:
    """Whether A taking `share_a` (B the rest) leaves no split better for one side and no worse for the other."""
    a, b = value(share_a, values_a), value(complement(share_a, pool), values_b)
    for share in all_shares(pool):
        x, y = value(share, values_a), value(complement(share, pool), values_b)
        if x >= a and y >= b and (x > a or y > b):
            return False
    return True


def describe(share: dict[str, int], pool: dict[str, int]) -> str:
    """`2 books, the hat and 1 ball`, in words `understanding.read` gives back exactly."""
    parts = []
    for item in ITEMS:
        n = share.get(item, 0)
        if n == 0:
            continue
        if n == pool[item]:
            parts.append(f"the {item}" if n == 1 else f"the {item}s")
        else:
            parts.append(f"{n} {item}" + ("s" if n > 1 else ""))
    if not parts:
        return "nothing"
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]

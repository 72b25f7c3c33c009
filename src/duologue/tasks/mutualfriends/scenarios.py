"""Seeded MutualFriends scenarios: two private friend lists that share exactly one friend.

How a scenario is drawn (everything from the `random.Random` it is given, so a seed gives the
same scenario on every machine):

1. 3 or 4 of the seven attributes (kept in CoCoA's schema order), and one alpha per attribute
   from {0.3, 1, 3}.
2. A list size per party, 5 to 12 friends.
3. The scenario's value list per attribute: the whole list for Time Preference (morning /
   afternoon / evening) and Location Preference (indoor / outdoor); for the large lists written
   for the project (hundreds of names, 100+ schools and companies, 60+ majors and hobbies, the
   `.txt` files beside this module) a sample of `POOL_SIZE` values. A Dirichlet over hundreds of
   values is nearly flat whatever its alpha; over a scenario-sized list, alpha does what the paper
   says: 0.3 makes a party's friends alike (hard), 3 spreads them (easy).
4. For each party and attribute, a categorical distribution drawn from Dirichlet(alpha) over that
   value list (each party its own, as in CoCoA's generator).
5. The mutual friend: each value drawn from the product of the two parties' distributions (what a
   friend drawn independently by both parties looks like, given that they drew the same one).
6. The other friends of each party from its own distributions, refusing any record already in
   either list, so no second record is shared and no list repeats a friend. (When a party's
   distribution is so concentrated that fresh records become rare, the draw falls back to uniform
   over the value list.)

The scenario has the corpus reader's keys: `public["attributes"]` (CoCoA attribute objects),
`public["alphas"]`, and `private[party]["friends"]` for parties "0" and "1".
"""

from __future__ import annotations

import random
import string
from functools import lru_cache
from importlib import resources
from typing import Any, Sequence

from duologue.core.schema import Scenario
from duologue.tasks.mutualfriends import rules

PARTY_IDS: tuple[str, str] = ("0", "1")
POOL_SIZE = 20
"""Values a scenario uses per large attribute (names, schools, majors, companies, hobbies)."""
ATTRIBUTE_COUNTS: tuple[int, ...] = (3, 4)
VALUE_FILES: dict[str, str] = {
    "Name": "names.txt",
    "School": "schools.txt",
    "Major": "majors.txt",
    "Company": "companies.txt",
    "Hobby": "hobbies.txt",
}
_FRESH_TRIES = 200
"""Draws from a party's own distribution before falling back to uniform draws for one friend."""
_MAX_DRAWS = 20_000


@lru_cache(maxsize=None)
def value_list(attribute: str) -> tuple[str, ...]:
    """Every value the project knows for `attribute`, in file order."""
    if attribute == "Time Preference":
        return rules.TIME_PREFERENCES
    if attribute == "Location Preference":
        return rules.LOCATION_PREFERENCES
    try:
        file = VALUE_FILES[attribute]
    except KeyError:
        raise ValueError(f"unknown MutualFriends attribute {attribute!r}; known: {', '.join(rules.ATTRIBUTE_NAMES)}") from None
    text = resources.files("duologue.tasks.mutualfriends").joinpath(file).read_text(encoding="utf-8")
    return tuple(dict.fromkeys(line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")))


def attribute_objects(names: Sequence[str]) -> list[dict[str, Any]]:
    """CoCoA's attribute objects for a scenario's attributes (what the corpus writes in `attributes`)."""
    return [{"name": n, "value_type": rules.VALUE_TYPES[n], "unique": False, "multivalued": False, "entity": True} for n in names]


def dirichlet(rng: random.Random, alpha: float, size: int) -> list[float]:
    """A draw from a symmetric Dirichlet(alpha) over `size` values, by normalised gamma draws."""
    draws = [rng.gammavariate(alpha, 1.0) for _ in range(size)]
    total = sum(draws)
    if total <= 0:  # every gamma draw underflowed: fall back to a flat distribution
        return [1.0 / size] * size
    return [d / total for d in draws]


def _record_key(record: dict[str, str], attributes: Sequence[str]) -> tuple[str, ...]:
    return tuple(record[a] for a in attributes)


def generate(
    rng: random.Random,
    *,
    attributes: Sequence[str] | None = None,
    alphas: Sequence[float] | None = None,
    sizes: tuple[int, int] | None = None,
    pool_size: int = POOL_SIZE,
) -> Scenario:
    """A new scenario drawn from `rng` only. Arguments fix parts of it (tests, curricula); the rest is drawn."""
    if attributes is None:
        chosen = set(rng.sample(rules.ATTRIBUTE_NAMES, rng.choice(ATTRIBUTE_COUNTS)))
        attributes = [a for a in rules.ATTRIBUTE_NAMES if a in chosen]
    attributes = list(attributes)
    unknown = [a for a in attributes if a not in rules.ATTRIBUTE_NAMES]
    if unknown or len(set(attributes)) != len(attributes) or not attributes:
        raise ValueError(f"attributes must be distinct names from {rules.ATTRIBUTE_NAMES}, got {attributes}")
    if alphas is None:
        alphas = [rng.choice(rules.ALPHA_CHOICES) for _ in attributes]
    alphas = [float(a) for a in alphas]
    if len(alphas) != len(attributes) or any(a <= 0 for a in alphas):
        raise ValueError(f"give one positive alpha per attribute, got {alphas} for {attributes}")
    if sizes is None:
        sizes = (rng.randint(rules.MIN_FRIENDS, rules.MAX_FRIENDS), rng.randint(rules.MIN_FRIENDS, rules.MAX_FRIENDS))
    if not all(rules.MIN_FRIENDS <= s <= rules.MAX_FRIENDS for s in sizes):
        raise ValueError(f"each list holds {rules.MIN_FRIENDS} to {rules.MAX_FRIENDS} friends, got {sizes}")

    pools: dict[str, list[str]] = {}
    for attribute in attributes:
        full = list(value_list(attribute))
        pools[attribute] = full if len(full) <= pool_size else rng.sample(full, pool_size)
    distributions = [
        {a: dirichlet(rng, alpha, len(pools[a])) for a, alpha in zip(attributes, alphas, strict=True)} for _ in PARTY_IDS
    ]

    mutual: dict[str, str] = {}
    for attribute in attributes:
        joint = [p * q for p, q in zip(distributions[0][attribute], distributions[1][attribute], strict=True)]
        if sum(joint) <= 0:
            joint = [p + q for p, q in zip(distributions[0][attribute], distributions[1][attribute], strict=True)]
        mutual[attribute] = rng.choices(pools[attribute], weights=joint)[0]

    used = {_record_key(mutual, attributes)}
    lists: list[list[dict[str, str]]] = [[dict(mutual)], [dict(mutual)]]
    draws = 0
    for party, size in enumerate(sizes):
        while len(lists[party]) < size:
            record = None
            for attempt in range(2 * _FRESH_TRIES):
                draws += 1
                if draws > _MAX_DRAWS:
                    raise RuntimeError(f"cannot draw {sizes} distinct friends over {attributes}: the value lists are too small")
                uniform = attempt >= _FRESH_TRIES
                candidate = {
                    a: rng.choice(pools[a]) if uniform else rng.choices(pools[a], weights=distributions[party][a])[0] for a in attributes
                }
                if _record_key(candidate, attributes) not in used:
                    record = candidate
                    break
            if record is None:
                raise RuntimeError(f"cannot draw {sizes} distinct friends over {attributes}: the value lists are too small")
            used.add(_record_key(record, attributes))
            lists[party].append(record)
    for friends in lists:
        rng.shuffle(friends)
    shared = rules.shared_friends(lists[0], lists[1])
    if shared != [mutual]:  # the construction guarantees it; a scenario that breaks the rules must never be played
        raise RuntimeError(f"generated lists share {len(shared)} friends instead of exactly one")
    scenario_id = "S_" + "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(16))
    return Scenario(
        id=scenario_id,
        public={"attributes": attribute_objects(attributes), "alphas": alphas},
        private={party: {"friends": friends} for party, friends in zip(PARTY_IDS, lists, strict=True)},
    )

"""Every format's quick check (the yes/no pass run before the detailed checker) never hides a problem.

For fixture records, broken records and thousands of random mutations of them, `check` must give
exactly what the detailed checker gives: the quick pass may only answer "valid" when it is.
"""

from __future__ import annotations

import copy
import random
from pathlib import Path

import pytest

from duologue.data.io import iter_raw
from duologue.tasks import corpus_format

ODD_VALUES = [None, 0, 1, -1, 2.5, 1.0, 10**20, "x", "", "3", True, False, [], {}, [1], {"a": 1}, "Submit-Deal", "walk away", float("nan"), float("inf")]


def detailed(name: str, fmt, record):
    return fmt.check_in_detail(record)


def paths(value, prefix=()):
    yield prefix
    children = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, child in children:
        yield from paths(child, (*prefix, key))


def leaves(value, found: list) -> list:
    if isinstance(value, dict):
        for child in value.values():
            leaves(child, found)
    elif isinstance(value, list):
        for child in value:
            leaves(child, found)
    else:
        found.append(value)
    return found


def mutate(record, rng: random.Random, plausible: list):
    """Delete, add, duplicate or replace a value: by an odd one, or by a value found elsewhere in the corpus."""
    record = copy.deepcopy(record)
    path = rng.choice(list(paths(record)))
    if not path:
        return rng.choice(ODD_VALUES)
    replacement = rng.choice(plausible) if rng.random() < 0.5 else rng.choice(ODD_VALUES)
    parent = record
    for key in path[:-1]:
        parent = parent[key]
    roll = rng.random()
    if roll < 0.25:
        del parent[path[-1]]
    elif roll < 0.3 and isinstance(parent, dict):
        parent["unknown_field"] = replacement
    elif roll < 0.35 and isinstance(parent, list):
        parent.append(copy.deepcopy(parent[path[-1]]))
    else:
        parent[path[-1]] = replacement
    return mutate(record, rng, plausible) if rng.random() < 0.3 else record


@pytest.mark.parametrize("name, folder", [("casino", "casino"), ("duo", "duo"), ("craigslist", "craigslist"), ("mutualfriends", "mutualfriends")])
def test_check_equals_the_detailed_checker_on_fixtures_and_mutations(name: str, folder: str, fixtures: Path):
    fmt = corpus_format(name)
    records = [raw.record for raw in iter_raw(fixtures / folder, [])]
    plausible = leaves(records, [])
    rng = random.Random(2024)
    mutated = [mutate(rng.choice(records), rng, plausible) for _ in range(4000)]
    valid = 0
    for record in records + mutated:
        problems = fmt.check(record)
        if name != "mutualfriends":
            assert problems == detailed(name, fmt, record), record
        valid += not problems
    assert 0 < valid < len(records) + len(mutated)  # both answers were exercised


@pytest.mark.parametrize("where", ["start_time", "time", "price", "target"])
def test_numbers_too_large_for_a_float_are_problems_not_crashes(where: str, fixtures: Path):
    """An integer beyond the float range (10**400) once crashed the CraigslistBargain checks
    with OverflowError from `math.isfinite`; both passes must answer it, and agree."""
    fmt = corpus_format("craigslist")
    record = copy.deepcopy(next(raw.record for raw in iter_raw(fixtures / "craigslist" / "cocoa.json", [])))
    if where in ("start_time", "time"):
        record["events"][0][where] = 10**400
    elif where == "price":
        next(e for e in record["events"] if e["action"] == "offer")["data"]["price"] = 10**400
    else:
        record["scenario"]["kbs"][0]["personal"]["Target"] = 10**400
    assert fmt.quick_check(record) is False
    problems = fmt.check(record)
    assert problems == fmt.check_in_detail(record) and problems and all(p.severity == "error" for p in problems)

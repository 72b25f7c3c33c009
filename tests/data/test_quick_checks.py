"""Every format's quick check agrees with its detailed walk: it may only say "valid" when the walk
finds nothing, whatever is broken in the record.

The records are the project's valid fixtures, each mutated many times at a random place (a value
replaced by another JSON value, a key dropped, a list item repeated or removed, two items swapped),
with a seeded generator so a failure can be reproduced by its case number.
"""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any

import pytest

from duologue.tasks import corpus_format

REPLACEMENTS: list[Any] = [None, 0, 1, -1, 2, 1.5, float("inf"), True, False, "", "x", "0", "nan", "Select-Deal", "select", [], {}, [1], {"a": "b"}]
MUTATIONS_PER_RECORD = 300

FIXTURES = {
    "mutualfriends": ["mutualfriends/cocoa_train.json", "mutualfriends/hf_validation.json"],
    "casino": ["casino/casino_sample.json", "casino/casino_strategies.json"],
    "craigslist": ["craigslist/cocoa.json"],
    "duo": ["duo/ed", "duo/wow"],
}


def valid_records(fixtures: Path, corpus: str) -> list[dict]:
    fmt = corpus_format(corpus)
    records = []
    for relative in FIXTURES[corpus]:
        path = fixtures / relative
        files = sorted(path.rglob("*.json")) if path.is_dir() else [path]
        for file in files:
            data = json.loads(file.read_text(encoding="utf-8"))
            records.extend(r for r in (data if isinstance(data, list) else [data]) if not fmt.check_in_detail(r))
    return records


def places(value: Any, path: tuple = ()) -> list[tuple]:
    """Every path into a JSON value (the root excluded)."""
    found = []
    children = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, child in children:
        found.append(path + (key,))
        found.extend(places(child, path + (key,)))
    return found


def mutate(record: dict, rng: random.Random) -> dict:
    twin = copy.deepcopy(record)
    path = rng.choice(places(twin))
    parent = twin
    for key in path[:-1]:
        parent = parent[key]
    key = path[-1]
    how = rng.randrange(5)
    if how == 0 and isinstance(parent, dict):
        del parent[key]
    elif how == 1 and isinstance(parent, list):
        parent.insert(key, copy.deepcopy(parent[key]))
    elif how == 2 and isinstance(parent, list):
        del parent[key]
    elif how == 3 and isinstance(parent, list) and len(parent) > 1:
        other = rng.randrange(len(parent))
        parent[key], parent[other] = parent[other], parent[key]
    else:
        parent[key] = copy.deepcopy(rng.choice(REPLACEMENTS))
    return twin


@pytest.mark.parametrize("corpus", sorted(FIXTURES))
def test_quick_check_says_valid_only_when_the_detailed_walk_finds_nothing(corpus: str, fixtures: Path):
    fmt = corpus_format(corpus)
    records = valid_records(fixtures, corpus)
    assert records, "the fixtures must hold valid records"
    assert all(fmt.quick_check(r) for r in records), "the quick check must answer the valid fixtures itself (else it speeds nothing up)"
    rng = random.Random(f"quick-check:{corpus}")
    caught = 0
    for number in range(MUTATIONS_PER_RECORD * len(records)):
        record = records[number % len(records)]
        broken = mutate(record, rng)
        try:
            quick = fmt.quick_check(broken)
        except Exception:  # noqa: BLE001  `check` falls back to the detailed walk when the quick one trips
            quick = False
        problems = fmt.check_in_detail(broken)
        assert not (quick and problems), f"case {number}: quick check said valid, detailed walk found {[(p.path, p.reason) for p in problems]}"
        caught += bool(problems)
    assert caught > MUTATIONS_PER_RECORD * len(records) // 4, "most mutations should break the record, or this test checks little"

"""Property-based tests of every corpus format's `check`, reader and writer (hypothesis).

For arbitrary JSON, and for random mutations of the fixtures' valid records (a key dropped, a value
of another type, odd unicode, huge or non-finite numbers, `"NaN"` strings):

* `check` never raises and every problem's path names a place in the record: the value it
  complains about, or, for a missing field, a real parent object;
* a record `check` finds no error in (rule anomalies, which are warnings, allowed) converts
  without raising and comes back from `from_dialogue` unchanged (`record_differences` is empty),
  so a mutation the checker lets through is one the reader and writer really handle.

`tests/tasks/test_quick_checks.py` already compares the quick check with the detailed one on
seeded mutations; these tests look at what the answers say and at what happens after them.
"""

from __future__ import annotations

import ast
import copy
import math
import re
from functools import lru_cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from duologue.data.compare import record_differences
from duologue.data.formats import CorpusFormat, errors_of
from duologue.data.io import iter_raw
from duologue.tasks import corpus_format

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
FORMATS = {"casino": "casino", "craigslist": "craigslist", "mutualfriends": "mutualfriends", "duo": "duo"}

PROPERTY_SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

# ---------------------------------------------------------------------- strategies

ODD_STRINGS = st.sampled_from(["", " ", "NaN", "nan", "Infinity", "-inf", "1e309", "0x10", "½", "٣", "\u202e", "\x00", "🙂" * 3, "Submit-Deal", "offer", "None", "null", "-1", "3", "1.0", "x" * 5000])
ODD_NUMBERS = st.sampled_from([0, -1, 1, 3, 2**63, -(2**63), 10**400, 1.5, -0.0, 1e308, float("nan"), float("inf"), float("-inf")])
SCALARS = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=30) | ODD_STRINGS | ODD_NUMBERS
JSON = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4), max_leaves=12)
"""Any JSON value (and the non-JSON floats NaN and infinity, which a careless parser lets in)."""


@lru_cache(maxsize=None)
def fixture_records(name: str) -> tuple[list[Any], list[Any]]:
    """(valid, all) native records of a format's fixture folder."""
    fmt = corpus_format(name)
    records = [raw.record for raw in iter_raw(FIXTURES / FORMATS[name], [])]
    valid = [r for r in records if not errors_of(fmt.check(r))]
    assert valid, f"no valid fixture record for {name}"
    return valid, records


def locations(value: Any, prefix: tuple = ()) -> list[tuple]:
    """Every path (tuple of keys and indexes) of a JSON value, the root included."""
    found = [prefix]
    children = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, child in children:
        found.extend(locations(child, (*prefix, key)))
    return found


@st.composite
def mutated_records(draw, name: str) -> Any:
    """A valid fixture record with one to three random edits."""
    valid, _ = fixture_records(name)
    record = copy.deepcopy(draw(st.sampled_from(valid)))
    for _ in range(draw(st.integers(1, 3))):
        paths = locations(record)
        path = draw(st.sampled_from(paths))
        if not path:
            return draw(JSON)
        parent = record
        for key in path[:-1]:
            parent = parent[key]
        edit = draw(st.sampled_from(["drop", "replace", "replace", "retype", "add-key", "duplicate"]))
        here = parent[path[-1]]
        if edit == "drop":
            del parent[path[-1]]
        elif edit == "replace":
            parent[path[-1]] = draw(JSON)
        elif edit == "retype":
            parent[path[-1]] = retyped(here, draw)
        elif edit == "add-key" and isinstance(parent, dict):
            parent[draw(st.text(max_size=10))] = draw(JSON)
        elif edit == "duplicate" and isinstance(parent, list):
            parent.insert(path[-1], copy.deepcopy(here))
    return record


def retyped(value: Any, draw) -> Any:
    """The same value in another JSON type, or a nasty variant of it (what a careless export writes)."""
    if isinstance(value, bool):
        return draw(st.sampled_from([int(value), str(value).lower(), None]))
    if isinstance(value, int):
        return draw(st.sampled_from([float(value), str(value), value * 10**30, -value - 1, [value], True]))
    if isinstance(value, float):
        return draw(st.sampled_from([int(value) if math.isfinite(value) else 0, str(value), "NaN", float("nan"), float("inf"), -value]))
    if isinstance(value, str):
        return draw(st.sampled_from([value.upper(), value + "\u0301", value[::-1], "", " " + value, value * 50, 1 if value.isdigit() else None]))
    if isinstance(value, list):
        return draw(st.sampled_from([{}, value[:1], value[::-1], value + value[:1]]))
    if isinstance(value, dict):
        return draw(st.sampled_from([[], list(value.values()), {k: v for k, v in list(value.items())[1:]}]))
    return draw(SCALARS)


@st.composite
def shaped_records(draw, name: str) -> dict:
    """An object with a real record's top-level keys over arbitrary values: gets past the first checks."""
    valid, _ = fixture_records(name)
    keys = list(draw(st.sampled_from(valid)))
    return {key: draw(JSON) for key in keys if draw(st.booleans()) or draw(st.booleans())}


# ---------------------------------------------------------------------- paths

_INDEX = re.compile(r"\[(-?\d+)\]")
_QUOTED = re.compile(r"\[('(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")\]")


def path_names_a_place(record: Any, path: str, missing_ok: bool) -> bool:
    """Whether a problem's JSON path exists in the record (or, for a missing field, its parent does).

    Keys may hold dots, so every key that fits the rest of the path is tried.
    """
    if not path.startswith("$"):
        return False
    return _walk(record, path[1:], missing_ok)


def _walk(value: Any, rest: str, missing_ok: bool) -> bool:
    if rest == "":
        return True
    if rest.startswith("["):
        index = _INDEX.match(rest)
        if index and isinstance(value, list):
            i = int(index.group(1))
            if 0 <= i < len(value):
                return _walk(value[i], rest[index.end() :], missing_ok)
            return missing_ok and rest[index.end() :] == ""
        quoted = _QUOTED.match(rest)
        if quoted and isinstance(value, dict):
            key = ast.literal_eval(quoted.group(1))
            if key in value:
                return _walk(value[key], rest[quoted.end() :], missing_ok)
            return missing_ok and rest[quoted.end() :] == ""
        return False
    if rest.startswith(".") and isinstance(value, dict):
        tail = rest[1:]
        for key in value:
            if isinstance(key, str) and tail.startswith(key) and tail[len(key) : len(key) + 1] in ("", ".", "["):
                if _walk(value[key], tail[len(key) :], missing_ok):
                    return True
        return missing_ok and "[" not in tail and not any(tail.startswith(k + ".") for k in value if isinstance(k, str))
    return False


def test_the_path_walker_itself():
    record = {"a.b": [{"c": 1}], "x": {"y z": 2}}
    assert path_names_a_place(record, "$.a.b[0].c", False)
    assert path_names_a_place(record, "$.x['y z']", False)
    assert not path_names_a_place(record, "$.a.b[1].c", False)
    assert not path_names_a_place(record, "$.x.q", False)
    assert path_names_a_place(record, "$.x.q", True)
    assert not path_names_a_place(record, "$.q.r.s[0]", True)
    assert not path_names_a_place(record, "events[0]", True)


# ---------------------------------------------------------------------- the properties


def assert_well_formed_answer(fmt: CorpusFormat, record: Any) -> list:
    before = copy.deepcopy(record)
    problems = fmt.check(record)  # must not raise
    assert isinstance(problems, list)
    for problem in problems:
        assert isinstance(problem.reason, str) and problem.reason.strip(), problem
        missing = "missing" in problem.reason
        assert path_names_a_place(record, problem.path, missing), f"{problem.path!r} is not in the record: {problem.reason}"
    assert record_differences(before, record) == [] if _comparable(before) else True, "check changed the record"
    return problems


def _comparable(value: Any) -> bool:
    """NaN never equals itself; records holding one are compared by other tests."""
    if isinstance(value, float):
        return not math.isnan(value)
    if isinstance(value, dict):
        return all(_comparable(v) for v in value.values())
    if isinstance(value, list):
        return all(_comparable(v) for v in value)
    return True


def assert_round_trip(fmt: CorpusFormat, record: Any) -> None:
    dialogue = fmt.read(copy.deepcopy(record))
    again = fmt.from_dialogue(dialogue)
    differences = record_differences(record, again)
    assert differences == [], differences


@pytest.mark.parametrize("name", list(FORMATS))
@PROPERTY_SETTINGS
@given(data=st.data())
def test_check_never_raises_on_arbitrary_json(name: str, data):
    fmt = corpus_format(name)
    record = data.draw(JSON | shaped_records(name))
    problems = assert_well_formed_answer(fmt, record)
    if not errors_of(problems):  # an arbitrary value that passes (warnings allowed) must still be readable
        assert_round_trip(fmt, record)


@pytest.mark.parametrize("name", list(FORMATS))
@settings(PROPERTY_SETTINGS, max_examples=300)
@given(data=st.data())
def test_mutated_records_are_named_exactly_or_read_back_losslessly(name: str, data):
    fmt = corpus_format(name)
    record = data.draw(mutated_records(name))
    problems = assert_well_formed_answer(fmt, record)
    if not errors_of(problems):
        assume(_comparable(record))
        assert_round_trip(fmt, record)


@pytest.mark.parametrize("name", list(FORMATS))
def test_every_fixture_record_gets_a_well_formed_answer(name: str):
    """The hand-written broken fixtures too: each problem points into its record."""
    fmt = corpus_format(name)
    valid, records = fixture_records(name)
    for record in records:
        assert_well_formed_answer(fmt, record)
    for record in valid:
        assert_round_trip(fmt, record)

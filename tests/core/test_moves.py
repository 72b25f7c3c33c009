"""Action schemas: a move validates exactly when JSON Schema itself says it fits (the fast path for
a split's listed combinations must agree with a real validator), and a refusal names what is wrong."""

from __future__ import annotations

import jsonschema
from hypothesis import given, settings
from hypothesis import strategies as st

from duologue.core import moves

POOL = {"Food": 3, "Water": 3, "Firewood": 3}
SCHEMA = moves.action_schema([moves.split("submit-deal", POOL), moves.move("say", {"text": {"type": "string"}})])
COUNT = st.one_of(st.integers(-1, 4), st.floats(0, 3).filter(lambda x: x in (0.0, 1.0, 2.0, 3.0)), st.booleans(), st.just("2"))
HALF = st.fixed_dictionaries({}, optional={item: COUNT for item in POOL})
MOVE = st.fixed_dictionaries({"kind": st.just("submit-deal"), "mine": HALF, "theirs": HALF})


@settings(derandomize=True, max_examples=400, print_blob=True)
@given(MOVE)
def test_a_split_validates_exactly_when_json_schema_says_it_fits(move):
    option = moves.option(SCHEMA, "submit-deal")
    assert option is not None
    reference = jsonschema.Draft202012Validator(option).is_valid(move)
    assert (moves.validate(SCHEMA, move) is None) == reference, move


def test_a_split_that_does_not_add_up_is_refused_with_the_pool():
    move = {"kind": "submit-deal", "mine": {"Food": 1, "Water": 2, "Firewood": 0}, "theirs": {"Food": 2, "Water": 1, "Firewood": 2}}
    problem = moves.validate(SCHEMA, move)
    assert problem is not None and "add up" in problem and "Firewood" in problem


def test_a_count_out_of_range_names_its_field():
    move = {"kind": "submit-deal", "mine": {"Food": 4, "Water": 0, "Firewood": 0}, "theirs": {"Food": 0, "Water": 3, "Firewood": 3}}
    problem = moves.validate(SCHEMA, move)
    assert problem is not None and "mine.Food" in problem


def test_a_kind_not_allowed_now_lists_the_allowed_ones():
    assert moves.validate(SCHEMA, {"kind": "walk-away"}) == "'walk-away' is not a move allowed now (allowed: submit-deal, say)"


def _every_move_schema():
    """Each registered task's move schemas, for both parties at the start of an episode."""
    from duologue.tasks import make, task_ids

    found = []
    for task_id in task_ids():
        task = make(task_id)
        task.reset(seed=3)
        for party in task.party_ids:
            found.extend(moves.options(task.action_schema(party)))
    return found


MOVE_SCHEMAS = _every_move_schema()
JSON = st.recursive(st.none() | st.booleans() | st.integers(-3, 12) | st.floats(-2, 12, allow_nan=False) | st.text(max_size=8), lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3), max_leaves=8)


@st.composite
def move_like(draw):
    """A move schema and a value near it: a sampled legal move with some fields replaced by noise."""
    import random

    schema = draw(st.sampled_from(MOVE_SCHEMAS))
    value = moves.sample(schema, random.Random(draw(st.integers(0, 10_000))))

    def nudge(leaf):  # a number or a text pushed past its bounds, now and then
        if isinstance(leaf, dict):
            return {k: nudge(v) for k, v in leaf.items()}
        if isinstance(leaf, (int, float)) and not isinstance(leaf, bool) and draw(st.booleans()):
            return draw(st.integers(-5, 10**7) | st.floats(-5, 10**7, allow_nan=False) | st.sampled_from([leaf + 1, leaf - 1, leaf + 0.5]))
        if isinstance(leaf, str) and draw(st.integers(0, 3)) == 0:
            return draw(st.sampled_from(["", "x" * 5000, leaf * 3]))
        return leaf

    if isinstance(value, dict):
        value = {k: (v if k == "kind" else nudge(v)) for k, v in value.items()}
        for name in draw(st.lists(st.sampled_from(sorted(value) + ["extra"]), max_size=2)):
            value[name] = draw(JSON)
        dropped = draw(st.sampled_from([None, *sorted(k for k in value if k != "kind")]))
        value.pop(dropped, None)
    return schema, value


@settings(derandomize=True, max_examples=600, print_blob=True)
@given(move_like())
def test_every_tasks_moves_validate_exactly_as_json_schema_says(case):
    """The fast check `validate` tries first may only ever skip the full validator for a move that fits."""
    schema, value = case
    reference = jsonschema.Draft202012Validator(schema).is_valid(value)
    assert (moves.validate(moves.action_schema([schema]), value) is None) == reference, value


def test_numbers_at_and_around_every_bound_validate_as_json_schema_says():
    """Each number field's bounds (inclusive or not) exactly at, just inside and just past them."""
    import random

    checked = 0
    for schema in MOVE_SCHEMAS:
        for name, field in schema.get("properties", {}).items():
            for keyword in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
                if not isinstance(field, dict) or keyword not in field:
                    continue
                bound = field[keyword]
                for value in (bound, bound - 1, bound + 1, bound - 0.5, bound + 0.5):
                    move = {**moves.sample(schema, random.Random(0)), name: value}
                    reference = jsonschema.Draft202012Validator(schema).is_valid(move)
                    assert (moves.validate(moves.action_schema([schema]), move) is None) == reference, move
                    checked += 1
    assert checked > 0

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

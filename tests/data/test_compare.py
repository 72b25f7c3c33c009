from duologue.data.compare import record_differences


def test_identical_records_have_no_differences():
    record = {"a": [1, {"b": "x"}], "c": None}
    assert record_differences(record, {"a": [1, {"b": "x"}], "c": None}) == []


def test_json_types_matter():
    assert record_differences({"x": 1}, {"x": 1.0}) == ["$.x: expected int 1, got float 1.0"]
    assert record_differences({"x": "1"}, {"x": 1})


def test_missing_and_extra_keys_and_lengths_are_named():
    diffs = record_differences({"a": 1, "b": [1, 2]}, {"b": [1], "c": 2})
    assert "$: missing keys ['a']" in diffs
    assert "$: unexpected keys ['c']" in diffs
    assert "$.b: expected 2 items, got 1" in diffs

"""Broken MutualFriends records: every problem is found, and named by the field path of the record."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path

import pytest

from duologue.data.compare import record_differences
from duologue.data.io import CorpusReadError, read_corpus
from duologue.tasks.mutualfriends.corpus import MutualFriendsFormat

FMT = MutualFriendsFormat()
BROKEN = "mutualfriends/broken.json"

# record index in broken.json -> (uuid, every (path, words in the reason) check must report)
EXPECTED: dict[int, tuple[str | None, list[tuple[str, str]]]] = {
    0: (None, [("$", "expected a dialogue object, got string")]),
    1: ("C_broken_no_scenario", [("$.scenario", "missing field")]),
    2: ("C_broken_kb_too_small", [("$.scenario.kbs[0]", "has 4 friends")]),
    3: ("C_broken_friend_lacks_attribute", [("$.scenario.kbs[1][3]", "lacks the scenario attribute(s) ['Hobby']")]),
    4: ("C_broken_two_mutual_friends", [("$.scenario.kbs", "share 2 friends")]),
    5: ("C_broken_no_mutual_friend", [("$.scenario.kbs", "share 0 friends")]),
    6: ("C_broken_selects_partner_friend", [("$.events[4].data", "not in its own list")]),
    7: ("C_broken_unknown_action", [("$.events[3].action", "unknown action 'offer'")]),
    8: ("C_broken_agent_two", [("$.events[2].agent", "agent 2 is not 0 or 1")]),
    9: ("C_broken_alphas", [("$.scenario.alphas[1]", "positive number"), ("$.scenario.alphas[2]", "got string")]),
    10: ("C_broken_message_not_text", [("$.events[0].data", "expected a string")]),
    11: ("C_broken_value_not_string", [("$.scenario.kbs[0][2]['Time Preference']", "expected a string value, got null")]),
    12: ("C_broken_time", [("$.events[0].time", "seconds since the epoch")]),
    13: ("C_broken_reward", [("$.outcome.reward", "expected number, got string")]),
    14: ("C_broken_agents", [("$.agents.1", "missing field")]),
    15: ("C_broken_alpha_count", [("$.scenario.alphas", "3 alphas for 4 attributes")]),
    16: ("C_broken_hf_friend_pair", [("$.scenario_kbs[0][1]", "pair [attribute names, values]")]),
    17: ("C_broken_hf_event_columns", [("$.events", "differ in length")]),
    18: ("C_broken_hf_select_with_text", [("$.events.data_messages[5]", "empty message")]),
    19: ("C_broken_hf_selects_partner_friend", [("$.events.data_selects.values[3]", "not in its own list")]),
    20: ("C_broken_hf_agent_string", [("$.events.agents[1]", "agent index 0 or 1")]),
    21: ("C_broken_hf_unknown_action", [("$.events.actions[8]", "unknown action 'quit'")]),
    22: ("C_broken_hf_time_string", [("$.events.times[0]", "expected a number of seconds")]),
    23: ("C_broken_hf_attribute_columns", [("$.scenario_attributes", "differ in length")]),
    24: ("C_broken_hf_kb_too_large", [("$.scenario_kbs[1]", "has 13 friends")]),
}


def broken(fixtures: Path) -> list:
    return json.loads((fixtures / BROKEN).read_text(encoding="utf-8"))


def test_every_broken_record_is_listed(fixtures):
    assert len(broken(fixtures)) == len(EXPECTED)


@pytest.mark.parametrize("index", sorted(EXPECTED))
def test_broken_record_problems_name_their_paths(fixtures, index):
    record = broken(fixtures)[index]
    uuid, expected = EXPECTED[index]
    assert FMT.record_id(record) == uuid
    problems = FMT.check(record)
    found = [(p.path, p.reason) for p in problems]
    for path, words in expected:
        assert any(p == path and words in reason for p, reason in found), f"expected {path}: {words!r}; found {found}"
    # each record breaks one thing: no unrelated follow-on complaints
    assert {p for p, _ in found} == {path for path, _ in expected}, found


def test_read_corpus_reports_each_broken_record_with_file_and_id(fixtures):
    with pytest.raises(CorpusReadError) as error:
        read_corpus(FMT, fixtures / BROKEN)
    problems = error.value.problems
    assert {p.record for p in problems} == {uuid or f"#{i}" for i, (uuid, _) in EXPECTED.items()}
    assert all(p.file and p.file.endswith("broken.json") for p in problems)
    result = read_corpus(FMT, fixtures / BROKEN, skip_invalid=True)
    assert (result.records, result.invalid, len(result.dialogues)) == (len(EXPECTED), len(EXPECTED), 0)


# --------------------------------------------------------------------------- never raises

JUNK = [None, True, 0, -1, 2, 1.5, float("inf"), "", "x", "1480737280.5", [], [None], {}, {"a": 1}, [[]], [["a"], ["b"]]]


def _nodes(value, path=()):
    """Every (path, value) inside a JSON value, for mutating one node at a time."""
    yield path, value
    if isinstance(value, dict):
        for key, child in value.items():
            yield from _nodes(child, path + (key,))
    elif isinstance(value, list):
        for i, child in enumerate(value):
            yield from _nodes(child, path + (i,))


def _mutated(record, path, junk):
    copied = copy.deepcopy(record)
    if not path:
        return junk
    parent = copied
    for step in path[:-1]:
        parent = parent[step]
    if isinstance(parent, dict) and random.random() < 0.15:
        del parent[path[-1]]
    else:
        parent[path[-1]] = copy.deepcopy(junk)
    return copied


@pytest.mark.parametrize("name", ["mutualfriends/cocoa_train.json", "mutualfriends/hf_validation.json"])
def test_check_never_raises_and_whatever_passes_converts_exactly(fixtures, name):
    random.seed(7)
    records = json.loads((fixtures / name).read_text(encoding="utf-8"))
    tried = flagged = 0
    for record in records:
        nodes = list(_nodes(record))
        for path, _ in random.sample(nodes, min(len(nodes), 150)):
            mutated = _mutated(record, path, random.choice(JUNK))
            tried += 1
            problems = FMT.check(mutated)  # must not raise, whatever the input
            if problems:
                flagged += 1
                assert all(p.path.startswith("$") and p.reason for p in problems)
                continue
            dialogue = FMT.to_dialogue(mutated)
            assert record_differences(mutated, FMT.from_dialogue(dialogue)) == [], path
    assert flagged > tried // 2  # most damage is caught

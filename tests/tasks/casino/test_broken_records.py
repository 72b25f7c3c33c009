"""Broken CaSiNo records: every problem is found, names the record field, and never crashes the checker."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path

import pytest

from duologue.data.compare import record_differences
from duologue.data.io import CorpusReadError, read_corpus
from duologue.tasks.casino.corpus import CasinoFormat

FMT = CasinoFormat()

# record id (or position for records without one) -> (path, words of the reason) for each problem
EXPECTED: dict[str, list[tuple[str, str]]] = {
    "201": [("$.chat_logs[6].task_data", "Food: 2 + 2 packages do not add up to 3")],
    "202": [
        ("$.chat_logs[6].task_data.issue2youget.Food", "package count"),
        ("$.chat_logs[6].task_data.issue2youget.Water", "expected string, got integer"),
        ("$.chat_logs[6].task_data.issue2youget.Firewood", "package count"),
    ],
    "203": [
        ("$.chat_logs[2].task_data", "chat message carries task data"),
        ("$.chat_logs[8].text", "unknown deal move 'accept deal'"),
    ],
    "204": [("$.participant_info.mturk_agent_1.value2issue", "rank each of")],
    "205": [
        ("$.participant_info.mturk_agent_1.outcomes.satisfaction", "not on the satisfaction scale"),
        ("$.participant_info.mturk_agent_2.outcomes.opponent_likeness", "expected string, got integer"),
    ],
    "206": [("$.chat_logs[6]", "Accept-Deal with no pending deal")],
    "207": [("$.chat_logs[1].id", "'mturk_agent_3' is not one of the two participants")],
    "208": [
        ("$.annotations[0][1]", "unknown strategy label 'smalltalk'"),
        ("$.annotations[1]", "expected [utterance"),
    ],
    "209": [("$.participant_info.mturk_agent_2.outcomes.points_scored", "20 points, but by its priorities the deal accepted at chat_logs[6] is worth 22")],
    "#9": [
        ("$.dialogue_id", "expected integer or string, got number"),
        ("$.participant_info.mturk_agent_1.demographics.age", "expected integer, got string"),
        ("$.participant_info.mturk_agent_2.personality.big-five.openness-to-experiences", "expected number"),
        ("$.chat_logs", "missing field"),
    ],
    "211": [("$.chat_logs[7]", "who submitted the pending deal")],
    "212": [("$.chat_logs[8]", "after the negotiation ended with Accept-Deal")],
    "213": [("$.annotations[3][0]", "matches no chat message")],
    "#13": [("$", "expected a dialogue object, got string")],
    "#14": [("$", "got null")],
    "#15": [("$", "got array")],
}


@pytest.fixture
def broken_file(fixtures: Path) -> Path:
    return fixtures / "casino" / "casino_broken.json"


@pytest.fixture
def broken(broken_file: Path) -> list:
    return json.loads(broken_file.read_text(encoding="utf-8"))


def label(record, index: int) -> str:
    return FMT.record_id(record) or f"#{index}"


def test_each_broken_record_has_exactly_its_problems(broken):
    assert len(broken) == len(EXPECTED)
    for index, record in enumerate(broken):
        problems = FMT.check(record)
        expected = EXPECTED[label(record, index)]
        assert len(problems) == len(expected), (label(record, index), [str(p) for p in problems])
        for problem, (path, words) in zip(problems, expected, strict=True):
            assert problem.path == path, (label(record, index), str(problem))
            assert words in problem.reason, (label(record, index), str(problem))


# records whose every problem is a rule anomaly: they load, with the anomalies kept on the dialogue
ANOMALOUS_ONLY = {"201", "203", "206", "209", "211", "212", "213"}


def test_read_corpus_reports_every_broken_record_with_file_and_record(broken_file):
    with pytest.raises(CorpusReadError) as error:
        read_corpus(FMT, broken_file)
    refused = {label for label in EXPECTED if label not in ANOMALOUS_ONLY}
    assert {p.record for p in error.value.problems} == refused
    assert all(p.severity == "error" for p in error.value.problems)
    result = read_corpus(FMT, broken_file, skip_invalid=True)
    assert sorted(d.id for d in result.dialogues) == sorted(ANOMALOUS_ONLY)
    assert result.invalid == len(refused) and result.records == len(EXPECTED)
    assert result.flagged == len(ANOMALOUS_ONLY)
    assert {p.record for p in result.warnings} == ANOMALOUS_ONLY | {"205", "208"}  # refused records' anomalies are reported too
    located = {(p.record, p.path) for p in result.problems}
    assert ("202", "$.chat_logs[6].task_data.issue2youget.Water") in located
    assert ("#14", "$") in located
    assert all(p.file == str(broken_file) for p in result.problems)
    for dialogue in result.dialogues:
        assert [(a.path, a.message) for a in dialogue.anomalies] == [(p.path, p.reason) for p in FMT.check_in_detail(broken_record(broken_file, dialogue.id))]


def broken_record(broken_file: Path, record_id: str) -> dict:
    return next(r for r in json.loads(broken_file.read_text(encoding="utf-8")) if isinstance(r, dict) and str(r.get("dialogue_id")) == record_id)


def test_anomalous_records_round_trip_exactly(broken):
    for record in broken:
        problems = FMT.check(record)
        if problems and all(p.severity == "warning" for p in problems):
            assert record_differences(record, FMT.from_dialogue(FMT.read(copy.deepcopy(record)))) == []


def test_missing_fields_are_named(fixtures):
    valid = json.loads((fixtures / "casino" / "casino_sample.json").read_text(encoding="utf-8"))[0]
    for path, remove in [
        ("$.participant_info", lambda r: r.pop("participant_info")),
        ("$.chat_logs[3].task_data", lambda r: r["chat_logs"][3].pop("task_data")),
        ("$.chat_logs[6].task_data.issue2theyget", lambda r: r["chat_logs"][6]["task_data"].pop("issue2theyget")),
        ("$.chat_logs[6].task_data.issue2youget.Water", lambda r: r["chat_logs"][6]["task_data"]["issue2youget"].pop("Water")),
        ("$.participant_info.mturk_agent_2.outcomes", lambda r: r["participant_info"]["mturk_agent_2"].pop("outcomes")),
        ("$.participant_info.mturk_agent_1.value2reason", lambda r: r["participant_info"]["mturk_agent_1"]["value2reason"].pop("Low")),
        ("$.participant_info.mturk_agent_1.value2issue", lambda r: r["participant_info"]["mturk_agent_1"]["value2issue"].update(Top="Food")),
        ("$.chat_logs[6].task_data.issue2youget.Wood", lambda r: r["chat_logs"][6]["task_data"]["issue2youget"].update(Wood="0")),
        ("$.participant_info", lambda r: r["participant_info"].update(mturk_agent_3=r["participant_info"]["mturk_agent_1"])),
        ("$.chat_logs[7]", lambda r: r["chat_logs"].insert(7, {"text": "Reject-Deal", "task_data": {"data": "reject_deal"}, "id": "mturk_agent_2"})),
    ]:
        record = copy.deepcopy(valid)
        remove(record)
        paths = [p.path for p in FMT.check(record)]
        assert path in paths, (path, paths)


def test_walk_away_must_score_five(fixtures):
    record = json.loads((fixtures / "casino" / "casino_sample.json").read_text(encoding="utf-8"))[1]
    record["participant_info"]["mturk_agent_1"]["outcomes"]["points_scored"] = 0
    (problem,) = FMT.check(record)
    assert problem.path == "$.participant_info.mturk_agent_1.outcomes.points_scored"
    assert "walk-away gives each participant 5" in problem.reason


def test_points_outside_the_possible_range(fixtures):
    record = json.loads((fixtures / "casino" / "casino_sample.json").read_text(encoding="utf-8"))[3]
    record["participant_info"]["mturk_agent_1"]["outcomes"]["points_scored"] = 37
    (problem,) = FMT.check(record)
    assert problem.path == "$.participant_info.mturk_agent_1.outcomes.points_scored"
    assert "outside the possible 0..36" in problem.reason


def _mutations(value, rng: random.Random):
    """Random JSON values of every type, to put where the format expects something else."""
    return rng.choice([None, True, 0, -1, 2.5, "", "3", "Submit-Deal", [], [1, "x"], {}, {"a": 1}, copy.deepcopy(value)])


def _paths(value, prefix=()):
    yield prefix
    if isinstance(value, dict):
        for key, child in value.items():
            yield from _paths(child, (*prefix, key))
    elif isinstance(value, list):
        for i, child in enumerate(value):
            yield from _paths(child, (*prefix, i))


def test_checker_never_raises_and_whatever_passes_round_trips(fixtures):
    samples = json.loads((fixtures / "casino" / "casino_sample.json").read_text(encoding="utf-8"))
    rng = random.Random(7)
    passed = 0
    for _ in range(1500):
        record = copy.deepcopy(rng.choice(samples))
        for _ in range(rng.randint(1, 3)):
            path = rng.choice(list(_paths(record))[1:])
            parent = record
            for step in path[:-1]:
                parent = parent[step]
            if rng.random() < 0.2 and isinstance(parent, dict):
                del parent[path[-1]]
            else:
                parent[path[-1]] = _mutations(parent[path[-1]], rng)
        problems = FMT.check(record)  # must not raise
        assert all(p.path.startswith("$") and p.reason for p in problems)
        if not [p for p in problems if p.severity == "error"]:
            passed += 1
            assert record_differences(record, FMT.from_dialogue(FMT.to_dialogue(record))) == []
    assert passed > 0  # some mutations (free text, names) are harmless and must still round-trip

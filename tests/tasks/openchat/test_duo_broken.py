"""DUO records broken on purpose: every problem is found, named by its JSON path, and never raises."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any, Callable

import pytest

from duologue.data.io import read_corpus
from duologue.tasks.openchat.corpus import DuoFormat

FMT = DuoFormat()


@pytest.fixture
def record(fixtures: Path) -> dict:
    return json.loads((fixtures / "duo" / "ed" / "en" / "0000.json").read_text(encoding="utf-8"))


@pytest.fixture
def wow_record(fixtures: Path) -> dict:
    return json.loads((fixtures / "duo" / "wow" / "en" / "1000.json").read_text(encoding="utf-8"))


def problems_of(record: Any) -> dict[str, str]:
    return {p.path: p.reason for p in FMT.check(record)}


def set_path(record: dict, change: Callable[[dict], None]) -> dict:
    broken = copy.deepcopy(record)
    change(broken)
    return broken


@pytest.mark.parametrize("value", ["a string", ["a", "list"], None, 42, True])
def test_not_an_object(value):
    problems = FMT.check(value)
    assert len(problems) == 1 and problems[0].path == "$"
    assert "expected a dialogue object" in problems[0].reason


CASES: list[tuple[str, Callable[[dict], None], str, str]] = [
    ("id of wrong type", lambda r: r.update(dialogue_id=1.5), "$.dialogue_id", "expected string or integer, got number"),
    ("boolean id", lambda r: r.update(dialogue_id=True), "$.dialogue_id", "got boolean"),
    ("missing id", lambda r: r.pop("dialogue_id"), "$.dialogue_id", "missing field"),
    ("unknown setting", lambda r: r.update(setting="persona"), "$.setting", "unknown setting 'persona'"),
    ("model not a string", lambda r: r.update(model=["gpt-4o"]), "$.model", "expected string, got array"),
    ("missing prompt", lambda r: r.pop("prompt"), "$.prompt", "missing field"),
    ("ed without emotion", lambda r: r.pop("emotion"), "$.emotion", "required in the 'ed' setting"),
    ("ed without episode", lambda r: r.pop("episode"), "$.episode", "required in the 'ed' setting"),
    ("episode not a string", lambda r: r.update(episode=7), "$.episode", "expected string, got integer"),
    ("subjective missing", lambda r: r.pop("subjective_evaluation"), "$.subjective_evaluation", "missing field"),
    ("subjective not an object", lambda r: r.update(subjective_evaluation=[4, 5]), "$.subjective_evaluation", "expected object, got array"),
    ("subjective above the scale", lambda r: r["subjective_evaluation"].update(preference=6.0), "$.subjective_evaluation.preference", "outside the 1-5 scale"),
    ("subjective below the scale", lambda r: r["subjective_evaluation"].update(empathy=0), "$.subjective_evaluation.empathy", "outside the 1-5 scale"),
    ("subjective as text", lambda r: r["subjective_evaluation"].update(consistency="5"), "$.subjective_evaluation.consistency", "expected a rating number, got string"),
    ("objective not an object", lambda r: r.update(objective_evaluation="good"), "$.objective_evaluation", "expected object, got string"),
    ("objective null", lambda r: r.update(objective_evaluation=None), "$.objective_evaluation", "expected object, got null"),
    ("scores not a list", lambda r: r["objective_evaluation"].update(preference_scores=3.67), "$.objective_evaluation.preference_scores", "expected a list of rater scores"),
    ("scores empty", lambda r: r["objective_evaluation"].update(preference_scores=[]), "$.objective_evaluation.preference_scores", "no rater scores"),
    ("score not a number", lambda r: r["objective_evaluation"]["consistency_scores"].__setitem__(1, "five"), "$.objective_evaluation.consistency_scores[1]", "expected a rating number, got string"),
    ("score out of scale", lambda r: r["objective_evaluation"]["empathy_scores"].__setitem__(2, 7.0), "$.objective_evaluation.empathy_scores[2]", "outside the 1-5 scale"),
    ("mean off its scores", lambda r: r["objective_evaluation"].update(preference=3.5), "$.objective_evaluation.preference", "does not match its raters' scores"),
    ("mean not a number", lambda r: r["objective_evaluation"].update(empathy=None), "$.objective_evaluation.empathy", "expected a rating number, got null"),
    ("mean without scores", lambda r: r["objective_evaluation"].pop("empathy_scores"), "$.objective_evaluation.empathy_scores", "missing the individual rater scores"),
    ("scores without mean", lambda r: r["objective_evaluation"].pop("consistency"), "$.objective_evaluation.consistency", "missing the mean"),
    ("dialogue not a list", lambda r: r.update(dialogue={"0": "hi"}), "$.dialogue", "expected array, got object"),
    ("dialogue empty", lambda r: r.update(dialogue=[]), "$.dialogue", "no messages"),
    ("message not an object", lambda r: r["dialogue"].__setitem__(2, "hello"), "$.dialogue[2]", "expected a message object, got string"),
    ("unknown speaker", lambda r: r["dialogue"][3].update(speaker="System"), "$.dialogue[3].speaker", "unknown speaker 'System'"),
    ("message ids skip", lambda r: r["dialogue"][4].update(message_id=5), "$.dialogue[4].message_id", "expected 4, got 5"),
    ("message id as text", lambda r: r["dialogue"][1].update(message_id="1"), "$.dialogue[1].message_id", "expected integer, got string"),
    ("message text missing", lambda r: r["dialogue"][0].pop("message"), "$.dialogue[0].message", "missing field"),
    ("message text not a string", lambda r: r["dialogue"][0].update(message=None), "$.dialogue[0].message", "expected string, got null"),
    ("no speaker id", lambda r: r["dialogue"][1].pop("system_id"), "$.dialogue[1].system_id", "missing field"),
    ("both speaker ids", lambda r: r["dialogue"][1].update(user_id="0007"), "$.dialogue[1]", "not both"),
    ("speaker id of wrong type", lambda r: r["dialogue"][0].update(user_id=7), "$.dialogue[0].user_id", "expected string, got integer"),
    ("human with a system id", lambda r: r["dialogue"][0].update(system_id=r["dialogue"][0].pop("user_id")), "$.dialogue[0].system_id", "a Human message must carry user_id"),
]


@pytest.mark.parametrize("name, change, path, words", CASES, ids=[c[0] for c in CASES])
def test_each_problem_names_its_path(record, name, change, path, words):
    problems = problems_of(set_path(record, change))
    assert path in problems, problems
    assert words in problems[path]


def test_wow_without_topic(wow_record):
    problems = problems_of(set_path(wow_record, lambda r: r.pop("topic")))
    assert problems == {"$.topic": "missing field (required in the 'wow' setting)"}


def test_mean_within_rounding_is_accepted(record):
    # scores [4, 3, 4] have mean 3.6667; 3.67 and 3.666 are both that mean rounded
    for mean in (3.67, 3.666, 3.6667):
        assert problems_of(set_path(record, lambda r, mean=mean: r["objective_evaluation"].update(preference=mean))) == {}


def test_many_problems_at_once_are_all_reported(record):
    def wreck(r: dict) -> None:
        r["setting"] = 3
        r["subjective_evaluation"]["preference"] = 9
        r["dialogue"][0]["speaker"] = "human"
        r["dialogue"][5]["message_id"] = 0

    problems = problems_of(set_path(record, wreck))
    assert set(problems) >= {"$.setting", "$.subjective_evaluation.preference", "$.dialogue[0].speaker", "$.dialogue[5].message_id"}


def test_check_never_raises_on_garbage(record):
    garbage = [
        {"dialogue": [None, 3, [], {"message_id": None}]},
        {"objective_evaluation": {"x_scores": [None, {}], "y": []}, "subjective_evaluation": {"a": float("nan")}},
        {"setting": None, "dialogue": "text"},
        {},
    ]
    for item in garbage:
        assert isinstance(FMT.check(item), list)
        assert FMT.check(item)


def test_reading_a_folder_with_a_broken_file_names_file_record_and_path(record, tmp_path):
    folder = tmp_path / "ed" / "en"
    folder.mkdir(parents=True)
    (folder / "0000.json").write_text(json.dumps(record), encoding="utf-8")
    broken = set_path(record, lambda r: (r.update(dialogue_id="0001"), r["subjective_evaluation"].update(empathy="eleven")))
    (folder / "0001.json").write_text(json.dumps(broken), encoding="utf-8")
    result = read_corpus(FMT, tmp_path, skip_invalid=True)
    assert (result.records, result.invalid, len(result.dialogues)) == (2, 1, 1)
    (problem,) = result.problems
    assert problem.file.endswith("0001.json") and problem.record == "0001"
    assert problem.path == "$.subjective_evaluation.empathy"

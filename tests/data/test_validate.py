"""`duologue data validate` on deliberately broken input: each kind of mistake is caught and located.

The broken fixture files are the ones each corpus format's own tests use; here they go through the
command a researcher runs, and each problem must name file, record and field.
"""

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from duologue.cli import app

runner = CliRunner()


def validate(corpus: str, path: Path | str) -> tuple[int, list[dict]]:
    result = runner.invoke(app, ["data", "validate", corpus, str(path), "--json"])
    assert "Traceback" not in result.output
    return result.exit_code, [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]


def find(problems: list[dict], record: str, path: str) -> dict:
    hits = [p for p in problems if p["record"] == record and p["path"] == path]
    assert hits, f"no problem for record {record} at {path}; got {[(p['record'], p['path']) for p in problems]}"
    return hits[0]


def test_malformed_json_names_file_and_line(tmp_path: Path):
    bad = tmp_path / "casino_train.json"
    bad.write_text('[\n  {"dialogue_id": 1,\n   "chat_logs": [}\n]\n')
    code, problems = validate("casino", bad)
    assert code == 1
    [problem] = problems
    assert problem["file"] == str(bad) and problem["line"] == 3 and "malformed JSON" in problem["reason"]


def test_missing_field(fixtures: Path):
    code, problems = validate("casino", fixtures / "casino" / "casino_broken.json")
    assert code == 1
    assert find(problems, "#9", "$.chat_logs")["reason"] == "missing field"


def test_wrong_type(fixtures: Path):
    _, problems = validate("craigslist", fixtures / "craigslist" / "broken.json")
    assert "expected number, got string" in find(problems, "C_broken_roles", "$.scenario.kbs[0].personal.Target")["reason"]


def test_unknown_action(fixtures: Path):
    _, problems = validate("craigslist", fixtures / "craigslist" / "broken.json")
    assert "unknown action 'counteroffer'" in find(problems, "C_broken_roles", "$.events[1].action")["reason"]
    _, problems = validate("mutualfriends", fixtures / "mutualfriends" / "broken.json")
    assert "unknown action 'offer'" in find(problems, "C_broken_unknown_action", "$.events[3].action")["reason"]


def test_impossible_deal_and_impossible_selection(fixtures: Path):
    _, problems = validate("casino", fixtures / "casino" / "casino_broken.json")
    assert "do not add up to 3" in find(problems, "201", "$.chat_logs[6].task_data")["reason"]
    _, problems = validate("mutualfriends", fixtures / "mutualfriends" / "broken.json")
    assert "not in its own list" in find(problems, "C_broken_selects_partner_friend", "$.events[4].data")["reason"]


def test_out_of_scale_rating(fixtures: Path, tmp_path: Path):
    record = json.loads((fixtures / "duo" / "ed" / "en" / "0000.json").read_text())
    record["subjective_evaluation"]["preference"] = 7.0
    (tmp_path / "ed" / "en").mkdir(parents=True)
    (tmp_path / "ed" / "en" / "0000.json").write_text(json.dumps(record))
    code, problems = validate("duo", tmp_path)
    assert code == 0  # a rule anomaly: a warning, the record still loads
    problem = find(problems, record["dialogue_id"], "$.subjective_evaluation.preference")
    assert "7" in problem["reason"] and (problem["severity"], problem["code"]) == ("warning", "rating-off-scale")
    _, problems = validate("casino", fixtures / "casino" / "casino_broken.json")
    assert "not on the satisfaction scale" in find(problems, "205", "$.participant_info.mturk_agent_1.outcomes.satisfaction")["reason"]


def test_problems_in_json_arrays_carry_the_line_of_their_record(fixtures: Path):
    _, problems = validate("casino", fixtures / "casino" / "casino_broken.json")
    assert find(problems, "201", "$.chat_logs[6].task_data")["line"] == 2


def test_duplicate_ids_across_files(fixtures: Path, tmp_path: Path):
    sample = (fixtures / "casino" / "casino_sample.json").read_text()
    (tmp_path / "a.json").write_text(sample)
    (tmp_path / "b.json").write_text(sample)
    code, problems = validate("casino", tmp_path)
    assert code == 1 and problems and all("duplicate record id" in p["reason"] for p in problems)


@pytest.mark.parametrize("corpus, relative", [("casino", "casino/casino_sample.json"), ("craigslist", "craigslist/cocoa.json"), ("craigslist", "craigslist/hf.jsonl"), ("mutualfriends", "mutualfriends/cocoa_train.json"), ("mutualfriends", "mutualfriends/hf_validation.json"), ("duo", "duo")])
def test_valid_fixtures_pass(corpus: str, relative: str, fixtures: Path):
    code, problems = validate(corpus, fixtures / relative)
    assert (code, problems) == (0, [])


def test_skip_invalid_reads_the_valid_records_and_counts_the_rest(fixtures: Path):
    result = runner.invoke(app, ["data", "stats", "craigslist", str(fixtures / "craigslist" / "broken.json"), "--skip-invalid", "--json"])
    assert result.exit_code == 0
    stats = json.loads(result.stdout)
    assert stats["overall"]["dialogues"] == 1
    assert "3 invalid record(s) left out" in result.stderr
    result = runner.invoke(app, ["data", "stats", "craigslist", str(fixtures / "craigslist" / "broken.json")])
    assert result.exit_code == 1 and "nothing was read" in result.stderr


@pytest.mark.parametrize("corpus, relative", [("duo", "duo"), ("casino", "casino/split"), ("craigslist", "craigslist/validation.json"), ("craigslist", "craigslist/dev.json")])
def test_every_real_corpus_validates(corpus: str, relative: str, corpus_path):
    code, problems = validate(corpus, corpus_path(relative))
    assert (code, problems) == (0, [])

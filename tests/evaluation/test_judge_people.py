"""`duologue judge --people`: the judge predicts each CaSiNo negotiator's own satisfaction and liking answers.

A fake OpenAI-compatible endpoint answers with fixed predictions, so the agreement figures can be
checked by hand against the people's real answers in the corpus.
"""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from duologue.cli import app
from duologue.data.io import read_corpus, read_dialogues
from duologue.evaluation.judge_people import party_items, people_agreement
from duologue.tasks import corpus_format
from fake_endpoint import FakeEndpoint

runner = CliRunner()

def test_the_party_questionnaire_becomes_the_judge_items():
    items = {item.name: item for item in party_items("casino-v0")}
    assert set(items) == {"satisfaction", "opponent_likeness"}
    assert items["satisfaction"].low_label == "Extremely dissatisfied" and items["satisfaction"].high_label == "Extremely satisfied"
    assert "How satisfied are you" in items["satisfaction"].question
    assert party_items("dealornodeal-v0") == []  # no party questionnaire: nothing to predict


def test_judge_people_on_casino_reports_agreement_with_each_persons_own_answers(corpus_path, tmp_path):
    path = corpus_path("casino/split/casino_valid.json")
    dialogues = read_corpus(corpus_format("casino"), path).dialogues[:6]
    people = {
        (d.id, r.rater_id, r.criterion): r.scale.numeric(r.value)
        for d in dialogues for r in d.ratings if r.rater_kind == "party"
    }
    out = tmp_path / "judged.jsonl"
    with FakeEndpoint('{"satisfaction": 4, "opponent_likeness": 5, "reason": "they agreed"}') as fake:
        result = runner.invoke(app, ["judge", str(path), "--corpus", "casino", "--people", "--limit", "6", "--base-url", fake.url, "--model", "fake", "--format", "json", "--out", str(out), "--bootstrap", "200"])
        assert result.exit_code == 0, result.output
        assert len(fake.requests) == 12  # one request per negotiator: both questions at once
        prompt = fake.requests[0]["messages"][1]["content"]
        assert "How satisfied are you" in prompt and "How much did you like" in prompt
    report = json.loads(result.output)
    figures = {row["criterion"]: row for row in report["agreement"]}
    for criterion, predicted in (("satisfaction", 4), ("opponent_likeness", 5)):
        answers = [v for (_, _, c), v in people.items() if c == criterion]
        row = figures[criterion]
        assert row["pairs"] == len(answers) == 12 and row["unanswered"] == 0
        assert row["exact"]["value"] == pytest.approx(sum(a == predicted for a in answers) / len(answers))
        assert row["distance"]["value"] == pytest.approx(sum(abs(a - predicted) for a in answers) / len(answers))
        assert row["spearman"] is None and any("spearman" in note for note in row["notes"])  # a constant judge correlates with nothing
    judged = read_dialogues(out).dialogues
    predictions = [r for d in judged for r in d.ratings if r.rater_kind == "model"]
    assert len(predictions) == 24 and {r.target for r in predictions} == {"mturk_agent_1", "mturk_agent_2"}
    again = people_agreement(judged, "satisfaction", judge_id=report["judge"], bootstrap=200)  # figures again from the written file
    assert again.pairs == 12


def test_judge_people_on_a_task_without_a_party_questionnaire_says_so(corpus_path):
    path = corpus_path("dealornodeal/val.txt")
    result = runner.invoke(app, ["judge", str(path), "--corpus", "dealornodeal", "--people", "--limit", "2", "--base-url", "http://127.0.0.1:9/v1"])
    assert result.exit_code == 2 and "party questionnaire has no such five-point question" in " ".join(result.output.split())

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from duologue.cli import app
from duologue.core.annotator import Annotator, Evaluation, confusion_matrix, label_scores
from duologue.core.schema import Annotation, Dialogue, Message


class GreetingAnnotator(Annotator):
    """Labels messages that say hello as `greet`, everything else `other`."""

    name = "greetings"
    task = "casino"
    layer = "greeting"
    source = "test.greetings-v1"

    def annotate(self, dialogue):
        return [
            Annotation(event=i, layer=self.layer, labels=["greet" if "hello" in e.text.lower() else "other"], source=self.source)
            for i, e in enumerate(dialogue.events)
            if isinstance(e, Message)
        ]

    def evaluate(self, dialogues):
        gold = {(d.id, a.event): a.labels[0] for d in dialogues for a in d.annotations if a.layer == "strategy" and a.event is not None}
        if not gold:
            return None
        predicted = {(d.id, a.event): a.labels[0] for d in dialogues for a in self.annotate(d)}
        pairs = [(g, "small-talk" if predicted[k] == "greet" else "other") for k, g in gold.items()]
        per_label, summary = label_scores((frozenset([g]), frozenset([p])) for g, p in pairs)
        return Evaluation(annotator=self.name, items=len(pairs), metrics=summary, per_label=per_label, confusion=confusion_matrix(pairs))


def test_label_scores_by_hand():
    pairs = [
        (frozenset({"a"}), frozenset({"a"})),
        (frozenset({"a", "b"}), frozenset({"a"})),
        (frozenset({"b"}), frozenset({"a", "b"})),
        (frozenset(), frozenset({"c"})),
    ]
    per, summary = label_scores(pairs)
    # a: tp 2, fp 1, fn 0 -> p 2/3, r 1; b: tp 1, fp 0, fn 1 -> p 1, r 1/2; c: fp 1, no support
    assert per["a"].precision == pytest.approx(2 / 3) and per["a"].recall == 1.0 and per["a"].support == 2
    assert per["b"].f1 == pytest.approx(2 / 3) and per["b"].support == 2
    assert per["c"].support == 0 and per["c"].f1 == 0.0
    assert summary["macro_f1"] == pytest.approx((0.8 + 2 / 3) / 2)  # over labels with gold support
    assert summary["micro_f1"] == pytest.approx(2 * (3 / 5) * (3 / 4) / (3 / 5 + 3 / 4))


def test_confusion_matrix_counts_gold_against_predicted():
    assert confusion_matrix([("x", "x"), ("x", "y"), ("y", "y"), ("x", "y")]) == {"x": {"x": 1, "y": 2}, "y": {"y": 1}}


def test_annotate_all_replaces_its_own_earlier_labels_and_keeps_others(fixtures: Path):
    from duologue.data.io import read_corpus
    from duologue.tasks import corpus_format

    [dialogue, *_] = read_corpus(corpus_format("casino"), fixtures / "casino" / "casino_sample.json").dialogues
    once = next(GreetingAnnotator().annotate_all([dialogue]))
    twice = next(GreetingAnnotator().annotate_all([once]))
    assert twice.annotations == once.annotations
    assert len(twice.annotations_of("strategy")) == len(dialogue.annotations_of("strategy"))
    assert len(twice.annotations_of("greeting")) == len(dialogue.messages())


@pytest.fixture
def greetings(monkeypatch):
    from duologue import tasks

    monkeypatch.setitem(tasks.ANNOTATORS, "greetings", f"{__name__}:GreetingAnnotator")


def test_cli_annotates_native_and_own_files_and_evaluates(greetings, fixtures: Path, tmp_path: Path):
    runner = CliRunner()
    out = tmp_path / "tagged.jsonl"
    result = runner.invoke(app, ["annotate", "greetings", str(fixtures / "casino" / "casino_sample.json"), "--out", str(out), "--evaluate"])
    assert result.exit_code == 0, result.output
    assert "per label" in result.stdout and "confusion" in result.stdout
    dialogues = [Dialogue.model_validate_json(line) for line in out.read_text().splitlines()]
    assert all(d.annotations_of("greeting") for d in dialogues)
    again = runner.invoke(app, ["annotate", "greetings", str(out), "--evaluate", "--json"])
    assert again.exit_code == 0
    assert json.loads(again.stdout)["annotator"] == "greetings"


def test_cli_annotate_errors(greetings, fixtures: Path, tmp_path: Path):
    runner = CliRunner()
    result = runner.invoke(app, ["annotate", "greeting", str(fixtures / "casino" / "casino_sample.json"), "--evaluate"])
    assert result.exit_code == 2 and "Did you mean 'greetings'" in result.stderr
    result = runner.invoke(app, ["annotate", "greetings", str(fixtures / "casino" / "casino_sample.json")])
    assert result.exit_code == 2 and "--out" in result.stderr
    result = runner.invoke(app, ["annotate", "greetings", str(fixtures / "craigslist" / "cocoa.json"), "--corpus", "craigslist", "--evaluate"])
    assert result.exit_code == 2 and "no casino dialogues" in result.stderr

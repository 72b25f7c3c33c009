"""The CaSiNo strategy tagger: features by hand, thresholds, the model file, the annotator, training and the CLI."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from duologue.cli import app
from duologue.core.schema import Annotation, Message
from duologue.data.io import read_corpus
from duologue.tasks import annotator, corpus_format
from duologue.tasks.casino.rules import STRATEGY_LABELS
from duologue.tasks.casino.strategies import (
    DEFAULT_MODEL,
    MODEL_FORMAT,
    MODEL_VERSION,
    FeatureSettings,
    FeatureSpace,
    ModelFileError,
    StrategyModel,
    decide,
    feature_counts,
    load_model,
    message_contexts,
    words,
)
from duologue.tasks.casino.strategy_annotator import StrategyAnnotator

pytest.importorskip("sklearn", reason="training needs scikit-learn (the ml extra)")
from duologue.tasks.casino.strategy_training import (  # noqa: E402
    TrainingSettings,
    cross_validate,
    dialogue_folds,
    examples_of,
    fit,
    load_examples,
    train,
    tune_thresholds,
)


@pytest.fixture
def sample(fixtures: Path):
    return read_corpus(corpus_format("casino"), fixtures / "casino" / "casino_strategies.json").dialogues


# ---------------------------------------------------------------------------- features


def test_words_keep_questions_and_contractions():
    assert words("i'd like 2 waters?!") == ["i'd", "like", "2", "waters", "?", "!"]


def test_feature_counts_by_hand():
    settings = FeatureSettings(word_ngrams=(1, 2), char_ngrams=(2, 3))
    blocks = feature_counts("Hi hi", "What  do YOU need?", settings)
    assert blocks["w"] == {"hi": 2, "hi hi": 1}
    # " hi " gives " h", "hi", "i " and " hi", "hi " -- twice
    assert blocks["c"] == {" h": 2, "hi": 2, "i ": 2, " hi": 2, "hi ": 2}
    assert blocks["p"] == {"what": 1, "do": 1, "you": 1, "need": 1, "?": 1}
    assert feature_counts("Hi", None, settings)["p"] == {"<start>": 1}
    assert feature_counts("Hi", None, FeatureSettings(previous_words=False))["p"] == {}


def test_tfidf_row_by_hand():
    settings = FeatureSettings(word_ngrams=(1, 1), char_ngrams=(9, 9), previous_words=False, block_weights=(1.0, 1.0, 0.0))
    space = FeatureSpace(settings=settings, vocabulary={"w:food": 0, "w:need": 1}, idf=np.array([2.0, 1.0]))
    columns, values = space.row("need food food, unknown", None)
    by_column = dict(zip(columns.tolist(), values.tolist(), strict=True))
    food, need = (1 + math.log(2)) * 2.0, 1.0  # sublinear tf x idf
    norm = math.hypot(food, need)
    assert by_column == pytest.approx({0: food / norm, 1: need / norm})


def test_decide_keeps_every_label_over_its_threshold_and_never_leaves_an_utterance_bare():
    labels = ("a", "b", "c")
    thresholds = np.array([0.5, 0.2, 0.9])
    probabilities = np.array([[0.6, 0.3, 0.1], [0.1, 0.1, 0.8], [0.4, 0.05, 0.1]])
    # row 2: 0.1/0.5, 0.1/0.2, 0.8/0.9 -> c is closest; row 3: 0.8, 0.25, 0.11 -> a
    assert decide(probabilities, thresholds, labels) == [["a", "b"], ["c"], ["a"]]


def test_tuned_threshold_maximises_f1_on_held_out_scores():
    probabilities = np.array([[0.9], [0.7], [0.4], [0.35], [0.1]])
    gold = np.array([[1], [1], [1], [0], [0]])
    # 0.36..0.40 catches all three positives and nothing else (F1 1); the lowest such grid point wins
    assert tune_thresholds(probabilities, gold, [0.2, 0.3, 0.36, 0.4, 0.5]) == pytest.approx([0.36])


def test_folds_group_whole_dialogues_and_depend_on_the_seed(sample):
    examples = examples_of(sample)
    folds = dialogue_folds(examples, 3, seed=0)
    assert sorted(np.concatenate(folds).tolist()) == list(range(len(examples)))
    dialogues = [{examples[i].dialogue for i in fold} for fold in folds]
    assert all(not (a & b) for k, a in enumerate(dialogues) for b in dialogues[k + 1 :])
    assert [f.tolist() for f in dialogue_folds(examples, 3, seed=0)] == [f.tolist() for f in folds]
    assert any(a.tolist() != b.tolist() for a, b in zip(dialogue_folds(examples, 3, seed=1), folds, strict=True))


def test_examples_pair_each_labelled_message_with_the_message_before(sample):
    examples = examples_of(sample)
    assert len(examples) == 36
    first, second = examples[0], examples[1]
    assert first.previous is None and first.labels == frozenset({"small-talk"})
    assert second.previous == first.text
    assert examples[4].labels == frozenset({"showing-empathy", "non-strategic"})


# ---------------------------------------------------------------------------- training and the file


@pytest.fixture(scope="module")
def small_model(tmp_path_factory) -> tuple[StrategyModel, Path]:
    path = Path(__file__).parents[2] / "fixtures" / "casino" / "casino_strategies.json"
    out = tmp_path_factory.mktemp("model") / "strategies.npz"
    stages = []
    model = train(path, out, seed=0, settings=TrainingSettings(inner_folds=3), progress=lambda stage, done, total: stages.append((stage, done, total)))
    assert stages[-1] == ("final fit", 4, 4)
    return model, out


def test_training_on_a_slice_writes_a_file_that_tags_like_the_model_in_memory(small_model):
    model, path = small_model
    again = load_model(path)
    texts = ["Hello, how are you?", "What do you need most?", "I need water for my kids"]
    before = ["", "Hi!", "What is your top priority?"]
    assert np.allclose(again.probabilities(texts, before), model.probabilities(texts, before), atol=1e-6)
    assert again.predict(texts, before) == model.predict(texts, before)
    assert again.labels == tuple(STRATEGY_LABELS)
    assert again.info["utterances"] == 36 and again.info["dialogues"] == 6 and again.info["seed"] == 0
    assert "casino_strategies.json" in again.info["trained_on"]


def test_training_is_deterministic(small_model, fixtures: Path):
    model, _ = small_model
    again = fit(load_examples(fixtures / "casino" / "casino_strategies.json"), TrainingSettings(inner_folds=3), seed=0)
    assert again.space.vocabulary == model.space.vocabulary
    assert np.array_equal(again.weights, model.weights) and np.array_equal(again.thresholds, model.thresholds)


def test_model_file_is_plain_arrays_with_a_versioned_header(small_model, tmp_path: Path):
    _, path = small_model
    with np.load(path, allow_pickle=False) as data:
        assert set(data.files) == {"header", "vocabulary", "idf", "weights", "bias", "thresholds"}
        header = json.loads(data["header"].tobytes())
        assert header["format"] == MODEL_FORMAT and header["version"] == MODEL_VERSION
        assert data["weights"].dtype == np.float32 and data["weights"].shape[1] == len(STRATEGY_LABELS)
        arrays = {k: data[k] for k in data.files}
    header["version"] = MODEL_VERSION + 1
    arrays["header"] = np.frombuffer(json.dumps(header).encode(), dtype=np.uint8)
    future = tmp_path / "future.npz"
    np.savez(future, **arrays)
    with pytest.raises(ModelFileError, match="version"):
        load_model(future)
    with pytest.raises(ModelFileError, match="no such model file"):
        load_model(tmp_path / "absent.npz")
    (tmp_path / "junk.npz").write_text("not a model")
    with pytest.raises(ModelFileError):
        load_model(tmp_path / "junk.npz")


def test_cross_validation_reports_folds_intervals_and_a_bootstrap(sample):
    cv = cross_validate(examples_of(sample), TrainingSettings(inner_folds=2), folds=3, seed=0, bootstrap=50)
    assert len(cv.per_fold) == 3 and len(cv.predictions) == 36
    mean, low, high = cv.interval("macro_f1")
    assert low <= mean <= high
    assert 0.0 <= cv.bootstrap_macro[0] <= cv.bootstrap_macro[1] <= 1.0
    assert list(cv.pooled) == [label for label in STRATEGY_LABELS if label in cv.pooled]


# ---------------------------------------------------------------------------- the shipped model and the annotator


def test_shipped_model_is_small_versioned_and_complete():
    assert DEFAULT_MODEL.exists(), "train it with `duologue train annotator strategies`"
    assert DEFAULT_MODEL.stat().st_size < 3_000_000
    model = load_model()
    assert model.labels == tuple(STRATEGY_LABELS)
    assert model.info["seed"] == 0 and model.info["utterances"] > 3000
    assert ((model.thresholds > 0) & (model.thresholds < 1)).all()


@pytest.mark.parametrize(
    ("text", "previous", "label"),
    [
        ("Hello! How are you doing today?", None, "small-talk"),
        ("What item do you need the most?", "Hi there!", "elicit-pref"),
        ("I really need water because I get dehydrated when I hike.", "What do you need most?", "self-need"),
        ("My kids get cold at night so we need firewood for them.", "What do you need most?", "other-need"),
        ("We don't need any food, we packed plenty.", None, "no-need"),
        ("Ok, 2 food for you and 1 for me?", None, "non-strategic"),
    ],
)
def test_shipped_model_tags_clear_cases(text, previous, label):
    assert label in StrategyAnnotator().tag([text], [previous])[0]


def test_annotator_labels_every_message_with_probabilities(sample):
    dialogue = sample[0]
    tagger = StrategyAnnotator()
    annotations = tagger.annotate(dialogue)
    messages = [i for i, e in enumerate(dialogue.events) if isinstance(e, Message)]
    assert [a.event for a in annotations] == messages
    for a in annotations:
        assert isinstance(a, Annotation) and a.layer == "strategy" and a.source == "duologue.strategies-v1"
        assert a.labels and set(a.labels) <= set(STRATEGY_LABELS)
        assert set(a.value) == set(STRATEGY_LABELS)
    assert [c[0] for c in message_contexts(dialogue)] == messages
    assert isinstance(annotator("strategies"), StrategyAnnotator)


def test_annotator_evaluates_against_corpus_labels_only(sample, small_model):
    model, _ = small_model
    tagger = StrategyAnnotator(model)
    evaluation = tagger.evaluate(sample)
    assert evaluation is not None and evaluation.items == 36
    assert set(evaluation.metrics) == {"micro_f1", "macro_f1", "exact_match"}
    assert sum(score.support for score in evaluation.per_label.values()) == sum(len(e.labels) for e in examples_of(sample))
    # its own labels are not gold: a dialogue tagged by it (and stripped of corpus labels) has nothing to score
    tagged = next(tagger.annotate_all([sample[0].model_copy(update={"annotations": []})]))
    assert tagged.annotations and tagger.evaluate([tagged]) is None


def test_cli_trains_and_annotates(fixtures: Path, tmp_path: Path):
    runner = CliRunner()
    out = tmp_path / "m.npz"
    result = runner.invoke(app, ["train", "annotator", "strategies", "--data", str(fixtures / "casino" / "casino_strategies.json"), "--out", str(out), "--seed", "3"])
    assert result.exit_code == 0, result.output
    assert load_model(out).info["seed"] == 3
    result = runner.invoke(app, ["train", "strategies", "--data", str(tmp_path / "missing.json"), "--out", str(out)])
    assert result.exit_code == 2 and "no such file" in result.stderr, "the earlier command name still works"
    result = runner.invoke(app, ["train", "annotator", "acts"])
    assert result.exit_code == 2 and "no model to train" in result.stderr
    result = runner.invoke(app, ["annotate", "strategies", str(fixtures / "casino" / "casino_strategies.json"), "--evaluate", "--json"])
    assert result.exit_code == 0, result.output
    evaluation = json.loads(result.stdout)
    assert evaluation["items"] == 36 and "self-need" in evaluation["per_label"]


# ---------------------------------------------------------------------------- on the real corpus


@pytest.mark.corpus
def test_retraining_reproduces_the_shipped_model(corpus_path):
    data = corpus_path("casino/split") / "casino_train.json"
    shipped = load_model()
    retrained = train(data, None, seed=0)
    assert retrained.space.vocabulary == shipped.space.vocabulary
    assert np.allclose(retrained.weights, shipped.weights, atol=1e-3)
    assert np.allclose(retrained.bias, shipped.bias, atol=1e-3)
    assert np.array_equal(retrained.thresholds, shipped.thresholds)


@pytest.mark.corpus
def test_shipped_model_on_the_validation_dialogues(corpus_path):
    dialogues = read_corpus(corpus_format("casino"), corpus_path("casino/split") / "casino_valid.json").dialogues
    evaluation = StrategyAnnotator().evaluate(dialogues)
    assert evaluation is not None and evaluation.items == 76
    assert evaluation.metrics["macro_f1"] > 0.45  # cross-validated macro F1 is about 0.59; 76 items are noisy


# ---------------------------------------------------------------------------- the rule agent's option


def test_rule_agent_can_use_the_tagger_to_hear_questions_the_parser_misses():
    import random

    from duologue.agents import make_agent
    from duologue.core.task import Observation
    from duologue.tasks import UnknownNameError, make

    task = make("casino-v0")
    question = "Tell me what you need most."  # no question mark: the rule parser does not see a question
    observation = Observation(
        task="casino-v0",
        party="mturk_agent_1",
        public={},
        private={"priorities": {"Food": "High", "Water": "Medium", "Firewood": "Low"}, "reasons": {}},
        transcript=[Message(party="mturk_agent_2", text=question)],
        to_move="mturk_agent_1",
        legal=["say", "submit-deal"],
        turn=1,
        turns_left=30,
    )
    heard = {}
    for spec in ("rule", "rule:strategies"):
        agent = make_agent(spec, task)
        agent.reset(task, "mturk_agent_1", random.Random(0))
        agent._catch_up(observation)
        heard[spec] = agent.partner_asked
    assert heard == {"rule": False, "rule:strategies": True}
    with pytest.raises(UnknownNameError, match="Did you mean 'strategies'"):
        make_agent("rule:strategy", task)


def test_training_never_writes_over_the_shipped_model(fixtures: Path, tmp_path: Path, monkeypatch):
    """`duologue train annotator strategies` once wrote its model into the installed package."""
    before = DEFAULT_MODEL.read_bytes()
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    data = str(fixtures / "casino" / "casino_strategies.json")
    result = runner.invoke(app, ["train", "annotator", "strategies", "--data", data, "--seed", "3"])
    assert result.exit_code == 0, result.output
    assert load_model(tmp_path / DEFAULT_MODEL.name).info["seed"] == 3  # the default: the current folder
    refused = runner.invoke(app, ["train", "annotator", "strategies", "--data", data, "--out", str(DEFAULT_MODEL)])
    assert refused.exit_code == 2 and "never written over" in refused.stderr
    assert DEFAULT_MODEL.read_bytes() == before

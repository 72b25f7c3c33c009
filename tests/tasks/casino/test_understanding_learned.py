"""The learned second look at CaSiNo offers (`understanding_learned`) and its training (`understanding_training`)."""

from __future__ import annotations

import numpy as np
import pytest

from duologue.tasks.casino.understanding import read
from duologue.tasks.casino.understanding_eval import LabelledItem, load_set
from duologue.tasks.casino.understanding_learned import CLASSES, MODEL_PATH, OfferModel, Thresholds, decide, default_model, issue_features, revise
from duologue.tasks.casino.understanding_offers import _proposal
from duologue.tasks.casino.understanding_training import fit, offer_scores, training_items
from duologue.tasks.casino.understanding_words import _tokens


def _p(*values: float) -> np.ndarray:
    return np.array(values)


@pytest.mark.parametrize(
    ("text", "ruled", "revised"),
    [
        ("I need 3 water. 1 food would be nice too.", {"Water": 3}, {"Food": 1, "Water": 3}),
        ("I need 3 firewood. 1 food would be nice too.", {"Firewood": 3}, {"Food": 1, "Firewood": 3}),
    ],
)
def test_the_model_fills_an_issue_the_rules_leave_open(text, ruled, revised):
    assert _proposal(_tokens(text)) == {issue: ruled.get(issue) for issue in ("Food", "Water", "Firewood")}
    assert read(text).proposal == {issue: revised.get(issue) for issue in ("Food", "Water", "Firewood")}


@pytest.mark.parametrize(
    "text",
    ["I guess what would make sense is for one of us to get 2 foods and 1 firewood", "So 2 firewood for 3 water?", "Or I could do 3 firewood and 2 food."],
)
def test_no_split_is_made_where_the_rules_find_none(text):
    tokens = _tokens(text)
    assert _proposal(tokens) is None
    assert revise(tokens, None) is None


def test_decide_keeps_settled_shares_unless_very_sure_and_fills_open_ones_when_fairly_sure():
    thresholds = Thresholds(keep=0.9, fill=0.6, new=1.01)
    sure_two, fairly_sure_one, unsure_three = _p(0.02, 0.02, 0.02, 0.92, 0.02), _p(0.3, 0.0, 0.65, 0.05, 0.0), _p(0.45, 0.0, 0.0, 0.0, 0.55)
    probabilities = {"Food": sure_two, "Water": fairly_sure_one, "Firewood": unsure_three}
    assert decide({"Food": 3}, probabilities, thresholds) == {"Food": 2, "Water": 1}
    assert decide({"Food": 3}, probabilities, Thresholds(keep=0.95, fill=0.6, new=1.01)) == {"Food": 3, "Water": 1}
    assert decide({"Food": 3}, probabilities, Thresholds(keep=0.95, fill=0.7, new=1.01)) == {"Food": 3}
    assert decide(None, probabilities, thresholds) is None
    assert decide(None, probabilities, Thresholds(new=0.2)) == {"Food": 2, "Water": 1, "Firewood": 3}
    nothing = {issue: _p(0.97, 0.01, 0.01, 0.005, 0.005) for issue in ("Food", "Water", "Firewood")}
    assert decide({"Water": 2}, nothing, thresholds) is None  # very sure there is no split: the reading abstains
    assert decide({"Water": 2}, nothing, Thresholds(keep=0.99, fill=0.6, new=1.01)) == {"Water": 2}


def test_features_carry_the_rule_reading_and_the_words_around_each_mention():
    tokens = _tokens("Could I have 2 water? You can keep the food.")
    water = issue_features(tokens, {"Water": 2}, "Water")
    assert {"r=2", "cnt=2", "who=me", "s:q", "L1:2"} <= set(water)
    food = issue_features(tokens, {"Water": 2}, "Food")
    assert {"r=open", "who=you", "o=2", "L1:the"} <= set(food)
    assert {"r=none", "r=none|nm=0", "nmc=0|r=none"} <= set(issue_features(tokens, None, "Firewood"))


def test_the_shipped_model_is_small_and_reads_without_pickle():
    assert MODEL_PATH.stat().st_size < 1_000_000
    with np.load(MODEL_PATH, allow_pickle=False) as data:
        assert set(data.files) == {"header", "weights", "bias"}
    model = default_model()
    assert model.weights.shape == (len(model.vocabulary), len(CLASSES))
    assert model.thresholds.new > 1  # the rules' "no split" stands


def _item(ref: str, text: str, fresh: dict | None, offer: dict | None, half: str = "dev", round_: int = 1) -> LabelledItem:
    return LabelledItem(ref=ref, half=half, text=text, labels={"offer": offer}, round=round_, fresh=fresh, has_fresh=True)


def _toy_items() -> list[LabelledItem]:
    items = []
    for k in range(4):
        items.append(_item(f"a{k}", "I will take 3 food and 2 water, you get 3 firewood", {"Food": 3, "Water": 2}, {"Food": 3, "Water": 2, "Firewood": 0}))
        items.append(_item(f"b{k}", "Can I have 1 water and 2 firewood?", {"Water": 1}, {"Water": 1, "Firewood": 2}))
        items.append(_item(f"c{k}", "I love hiking", None, None))
    return items


def test_training_is_deterministic_and_the_file_round_trips(tmp_path):
    first, second = fit(_toy_items()), fit(_toy_items())
    assert np.array_equal(first.weights, second.weights) and np.array_equal(first.bias, second.bias)
    first.save(tmp_path / "m.npz")
    loaded = OfferModel.load(tmp_path / "m.npz")
    tokens = _tokens("Can I have 1 water and 2 firewood?")
    for issue, p in first.probabilities(tokens, {"Water": 1}).items():
        assert np.allclose(p, loaded.probabilities(tokens, {"Water": 1})[issue], atol=1e-5)
    assert decide({"Water": 1}, loaded.probabilities(tokens, {"Water": 1}), loaded.thresholds) == {"Water": 1, "Firewood": 2}


def test_only_dev_messages_with_a_fresh_reading_are_learned_from():
    held_out = _item("t", "I will take 3 food", {"Food": 3}, {"Food": 3}, half="test")
    unread = LabelledItem(ref="u", half="dev", text="I will take 3 food", labels={"offer": {"Food": 3}}, round=1)
    top_only = LabelledItem(ref="v", half="dev", text="food matters most", labels={"top": "Food"}, round=1, has_fresh=True)
    kept = _item("d", "I will take 3 food", None, {"Food": 3})
    assert training_items([held_out, unread, top_only, kept]) == [kept]


def test_offer_scores_count_precision_over_readings_and_recall_over_labels():
    pairs = [({"Food": 3}, {"Food": 3}), ({"Food": 2}, None), (None, {"Water": 1}), (None, None)]
    assert offer_scores(pairs) == (0.5, 0.5, 2, 2)


@pytest.mark.corpus
def test_the_shipped_model_is_what_the_set_trains(corpus_path):
    items = training_items(load_set(corpus_path("casino/split")))
    assert items and all(i.half == "dev" for i in items)
    trained, shipped = fit(items), default_model()
    assert trained.vocabulary == shipped.vocabulary and trained.thresholds == shipped.thresholds
    assert np.allclose(trained.weights, shipped.weights, atol=1e-4) and np.allclose(trained.bias, shipped.bias, atol=1e-4)


@pytest.mark.corpus
def test_on_the_messages_it_learned_from_the_model_mends_more_fresh_readings_than_it_breaks(corpus_path):
    items = training_items(load_set(corpus_path("casino/split")))
    model = default_model()
    mended = broken = 0
    for item in items:
        revised = decide(item.fresh, model.probabilities(_tokens(item.text), item.fresh), model.thresholds)
        right_before, right_after = item.fresh == item.labels["offer"], revised == item.labels["offer"]
        mended += right_after and not right_before
        broken += right_before and not right_after
    assert mended >= 30 and broken <= mended / 5

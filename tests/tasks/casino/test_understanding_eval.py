"""The labelled set's second draw (`understanding_eval.draw`) is reproducible and the rounds taken from it follow its order."""

from __future__ import annotations

import json
from importlib import resources

import pytest

from duologue.tasks.casino.understanding import Turn, read
from duologue.tasks.casino.understanding_eval import DRAW_SEED, draw, half_of, load_set, score
from duologue.tasks.casino.understanding_words import _tokens, issue_of_word

SECOND_DRAW_ROUNDS_ITEMS = {7: 107, 8: 108, 9: 111, 10: 112, 11: 107, 12: 112, 13: 111, 14: 110, 15: 108, 16: 112, 17: 111, 18: 110, 19: 111, 20: 107, 21: 106, 22: 114, 23: 119, 24: 114, 25: 116, 26: 116, 27: 114, 28: 111}
"""Items kept of each round of the second draw (120 drawn each, less the unsettled)."""
SECOND_DRAW_ROUNDS = sum(SECOND_DRAW_ROUNDS_ITEMS.values())
"""Items of rounds 7 on, the last lines of the set."""


def _rows() -> list[dict]:
    text = resources.files("duologue.tasks.casino").joinpath("understanding_set.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines()]


def test_halves_are_decided_by_the_reference_alone():
    rows = _rows()
    assert len(rows) == len({r["ref"] for r in rows})
    for row in rows[-SECOND_DRAW_ROUNDS:]:
        assert row["half"] == half_of(row["ref"])


@pytest.mark.corpus
def test_the_draw_is_seeded_and_its_rounds_are_taken_in_order(corpus_path):
    folder = corpus_path("casino/split")
    order = draw(folder)
    assert order == draw(folder, DRAW_SEED) and order != draw(folder, "another seed")
    assert len(order) == len(set(order)) and all(r.startswith("train:") for r in order)
    taken = [r["ref"] for r in _rows()[-SECOND_DRAW_ROUNDS:]]
    positions = [order.index(ref) for ref in taken]
    assert positions == sorted(positions)  # labelled in the draw's order
    earlier = {r["ref"] for r in _rows()[:-SECOND_DRAW_ROUNDS]}
    fresh = [r for r in order if r not in earlier]
    for k, (number, kept) in enumerate(SECOND_DRAW_ROUNDS_ITEMS.items()):
        rows = [r for r in _rows() if r["round"] == number]
        assert len(rows) == kept and {r["ref"] for r in rows} <= set(fresh[120 * k : 120 * (k + 1)])  # rounds of 120, less the unsettled
    texts = {i.ref: i.text for i in load_set(folder)}
    assert all(any(issue_of_word(t) or t.isdigit() or t in {"one", "two", "three", "all", "none", "zero", "both", "half"} for t in _tokens(texts[ref])) for ref in taken)


@pytest.mark.corpus
def test_each_item_is_scored_with_the_dialogue_before_it(corpus_path):
    items = load_set(corpus_path("casino/split"))
    for item in items:
        index = int(item.ref.split(":")[2])
        assert len(item.earlier) <= index and item.context.turns == tuple(Turn(text, own) for text, own in item.earlier)
        assert not any(text in {"Submit-Deal", "Accept-Deal", "Reject-Deal", "Walk-Away"} for text, _ in item.earlier)
    openers = [i for i in items if i.ref.endswith(":0")]
    assert openers and all(i.earlier == [] for i in openers)
    later = [i for i in items if len(i.earlier) >= 2]
    assert later and all(any(own for _, own in i.earlier) and not all(own for _, own in i.earlier) for i in later[:50])
    calls: list[bool] = []

    def reader(text, context=None):
        calls.append(context is not None)
        return read(text, context=context)

    score(items[:20], reader)
    assert calls == [True] * 20
    score(items[:20], reader, in_context=False)
    assert calls[20:] == [False] * 20

"""People's acceptance of a CaSiNo deal, by its worth to them: the shipped fit and the corpus it came from."""

from __future__ import annotations

import random

import pytest

from duologue.core.schema import AcceptDeal, Dialogue, Message, Party, RejectDeal, Scenario, SubmitDeal, WalkAway
from duologue.data.io import read_corpus
from duologue.tasks import corpus_format
from duologue.tasks.casino import answering
from duologue.tasks.casino.answering import accept_chance, accepts_like_people, answered_deals, fit_acceptance, walk_aways_after_refusal


def test_the_chance_rises_with_the_points_and_crosses_one_half_near_eleven():
    chances = [accept_chance(v) for v in range(0, 37)]
    assert chances == sorted(chances)
    assert accept_chance(10) < 0.5 < accept_chance(11)
    assert accept_chance(19) > 0.85 and accept_chance(3) < 0.2


def test_draws_follow_the_chance():
    rng = random.Random(0)
    taken = sum(accepts_like_people(12, rng) for _ in range(4000)) / 4000
    assert abs(taken - accept_chance(12)) < 0.03


def _dialogue(events: list) -> Dialogue:
    priorities = {"a": {"Food": "High", "Water": "Medium", "Firewood": "Low"}, "b": {"Food": "Low", "Water": "Medium", "Firewood": "High"}}
    scenario = Scenario(private={p: {"priorities": v} for p, v in priorities.items()})
    return Dialogue(id="t", task="casino", scenario=scenario, parties=[Party(id=p, kind="human") for p in priorities], events=events)


def test_answered_deals_count_the_answerer_points_and_skip_self_answers():
    three = {"Food": 3, "Water": 3, "Firewood": 3}
    none = {"Food": 0, "Water": 0, "Firewood": 0}
    split = {"Food": 3, "Water": 1, "Firewood": 0}
    dialogue = _dialogue([
        Message(party="a", text="hi"),
        SubmitDeal(party="a", mine=three, theirs=none),
        RejectDeal(party="b"),
        SubmitDeal(party="a", mine=split, theirs={i: 3 - n for i, n in split.items()}),
        AcceptDeal(party="b"),
    ])
    # b (Firewood high) gets nothing, then 2 Water (4 each) and 3 Firewood (5 each)
    assert answered_deals([dialogue]) == [(0, False), (23, True)]
    assert walk_aways_after_refusal([dialogue]) == (0, 1)
    assert walk_aways_after_refusal([_dialogue([*dialogue.events[:3], WalkAway(party="a")])]) == (1, 1)
    assert walk_aways_after_refusal([_dialogue([*dialogue.events[:3], WalkAway(party="b")])]) == (0, 1)


def test_the_shipped_fit_is_what_the_corpus_gives(corpus_path):
    dialogues = read_corpus(corpus_format("casino"), corpus_path("casino/split")).dialogues
    slope, intercept, answers = fit_acceptance(dialogues)
    assert answers == answering.ANSWERS
    assert slope == pytest.approx(answering.SLOPE, abs=1e-4)
    assert intercept == pytest.approx(answering.INTERCEPT, abs=1e-4)
    assert walk_aways_after_refusal(dialogues) == (answering.WALKED_AFTER_REFUSAL, answering.REFUSALS)

"""The casino-v0 task: scenarios, legal moves, judging, metrics, and transcripts the corpus writer accepts."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from duologue.core import actions
from duologue.core.agent import RandomAgent
from duologue.core.episode import play_episode
from duologue.core.task import IllegalAction
from duologue.data.compare import record_differences
from duologue.data.io import read_corpus
from duologue.tasks import corpus_format, make
from duologue.tasks.casino.rules import ISSUES, PRIORITY_LEVELS, points, priority_problems
from duologue.tasks.casino.task import CasinoTask, public_view, reason_bank
from duologue.testing import check_task

A, B = "mturk_agent_1", "mturk_agent_2"
FOOD_FIRST = {"Food": 3, "Water": 1, "Firewood": 0}
REST = {"Food": 0, "Water": 2, "Firewood": 3}


@pytest.fixture
def sample(fixtures):
    return read_corpus(corpus_format("casino"), fixtures / "casino" / "casino_sample.json").dialogues


def fresh(first: str = A, **options) -> CasinoTask:
    task = CasinoTask(first=first, **options)
    task.reset(seed=7)
    return task


def test_conforms():
    check_task("casino-v0", episodes=25, seed=3)


def test_scenarios_are_reproducible_and_well_formed():
    task = CasinoTask()
    one, two = task.generate_scenario(random.Random(5)), task.generate_scenario(random.Random(5))
    assert one == two
    assert one != task.generate_scenario(random.Random(6))
    assert one.public == public_view()
    for party in (A, B):
        view = one.private[party]
        assert list(view) == ["priorities", "value2issue", "reasons"]
        assert priority_problems(view["priorities"]) == []
        assert list(view["value2issue"]) == list(PRIORITY_LEVELS)
        for issue in ISSUES:
            assert view["reasons"][issue] in reason_bank()[issue][view["priorities"][issue]]


def test_scenarios_use_the_corpus_keys(sample):
    played = CasinoTask().generate_scenario(random.Random(1))
    corpus = sample[0].scenario
    assert played.public == corpus.public
    for party in (A, B):
        assert set(played.private[party]) == set(corpus.private[party])


def test_scenarios_pair_priorities_in_the_corpus_mix():
    task = CasinoTask()
    rng = random.Random(0)
    kinds = Counter()
    for _ in range(2000):
        view = task.generate_scenario(rng).private
        first, second = view[A]["value2issue"], view[B]["value2issue"]
        kinds["identical" if first == second else "same_top" if first["High"] == second["High"] else "different_top"] += 1
        for issue in ISSUES:
            assert view[A]["reasons"][issue] != view[B]["reasons"][issue]
    assert 400 < kinds["identical"] < 600 and 400 < kinds["same_top"] < 600 and 900 < kinds["different_top"] < 1100


def test_moves_without_a_pending_deal():
    task = fresh()
    assert task.legal_actions(A) == ["say", "submit-deal", "walk-away"]
    assert task.legal_actions(B) == []
    task.step(actions.Say(text="Hi! What do you need most?"))
    assert task.to_move == B


def test_pending_deal_must_be_answered_first():
    task = fresh()
    task.step(actions.SubmitDeal(mine=FOOD_FIRST, theirs=REST))
    assert task.to_move == B
    assert task.legal_actions(B) == ["accept-deal", "reject-deal", "walk-away"]
    for move in (actions.Say(text="wait, let me think"), actions.SubmitDeal(mine=REST, theirs=FOOD_FIRST)):
        with pytest.raises(IllegalAction):
            task.step(move)
    assert task.illegal[B] == 2 and len(task.events) == 1


def test_the_rejecter_moves_again():
    task = fresh()
    task.step(actions.SubmitDeal(mine=FOOD_FIRST, theirs=REST))
    task.step(actions.RejectDeal())
    assert task.to_move == B
    assert task.legal_actions(B) == ["say", "submit-deal", "walk-away"]
    task.step(actions.SubmitDeal(mine=FOOD_FIRST, theirs=REST))
    assert task.legal_actions(A) == ["accept-deal", "reject-deal", "walk-away"]


def test_a_deal_that_does_not_add_up_is_refused():
    task = fresh()
    with pytest.raises(IllegalAction, match="Water"):
        task.step(actions.SubmitDeal(mine={"Food": 3, "Water": 2, "Firewood": 0}, theirs=REST))
    with pytest.raises(IllegalAction, match="exactly the issues"):
        task.step(actions.SubmitDeal(mine={"Food": 3}, theirs={"Food": 0}))
    assert task.events == []


def test_accepting_ends_with_points_by_each_partys_priorities():
    task = fresh()
    task.step(actions.SubmitDeal(mine=FOOD_FIRST, theirs=REST))
    task.step(actions.AcceptDeal())
    terminated, truncated, outcome = task.last()
    assert terminated and not truncated
    assert outcome.reason == "agreement" and outcome.agreed
    assert outcome.deal == {A: FOOD_FIRST, B: REST}
    private = task.scenario.private
    assert outcome.scores == {A: points(FOOD_FIRST, private[A]["priorities"]), B: points(REST, private[B]["priorities"])}


def test_walking_away_gives_five_each():
    task = fresh()
    task.step(actions.Say(text="hello"))
    task.step(actions.WalkAway())
    outcome = task.last()[2]
    assert outcome.reason == "walk_away" and outcome.agreed is False and outcome.scores == {A: 5.0, B: 5.0}


def test_running_out_of_turns_is_no_agreement():
    task = fresh(max_turns=4)
    for _ in range(4):
        task.step(actions.Say(text="hmm"))
    terminated, truncated, outcome = task.last()
    assert truncated and outcome.reason == "turn_limit" and outcome.agreed is False
    assert outcome.scores == {A: 5.0, B: 5.0}


def test_first_mover_is_listed_first_as_in_the_corpus():
    for first in (A, B):
        task = fresh(first=first)
        assert task.parties[0].id == first


def test_judge_agrees_with_the_corpus_sample(sample):
    task = CasinoTask()
    for dialogue in sample:
        if dialogue.outcome.reason in ("agreement", "walk_away"):
            assert task.judge(dialogue).model_dump(include={"reason", "agreed", "deal", "scores"}) == dialogue.outcome.model_dump(include={"reason", "agreed", "deal", "scores"})


def test_episode_metrics():
    task = fresh()
    task.step(actions.Say(text="Food matters most to me"))
    task.step(actions.SubmitDeal(mine=REST, theirs=FOOD_FIRST))
    task.step(actions.AcceptDeal())
    figures = task.episode_metrics(task.to_dialogue())
    assert figures["agreement"] == 1.0 and figures["walk_away"] == 0.0 and figures["turn_limit"] == 0.0
    assert figures["joint_points"] == figures["points_mturk_agent_1"] + figures["points_mturk_agent_2"]
    assert figures["points_first_mover"] == figures["points_mturk_agent_1"]
    assert figures["pareto_optimal"] in (0.0, 1.0)
    assert figures["deals_submitted"] == 1.0 and figures["turns"] == 3.0
    walked = fresh()
    walked.step(actions.WalkAway())
    figures = walked.episode_metrics(walked.to_dialogue())
    assert figures["pareto_optimal"] is None and figures["walk_away"] == 1.0 and figures["joint_points"] == 10.0


def test_pareto_flag_follows_the_rules():
    task = fresh()
    # A takes Water and its Low Firewood, B gets only its Low Food: swapping Food for Firewood helps both.
    task.scenario.private[A]["priorities"] = {"Food": "High", "Water": "Medium", "Firewood": "Low"}
    task.scenario.private[B]["priorities"] = {"Food": "Low", "Water": "Medium", "Firewood": "High"}
    task.step(actions.SubmitDeal(mine={"Food": 0, "Water": 3, "Firewood": 3}, theirs={"Food": 3, "Water": 0, "Firewood": 0}))
    task.step(actions.AcceptDeal())
    assert task.episode_metrics(task.to_dialogue())["pareto_optimal"] == 0.0
    good = fresh()
    good.scenario.private[A]["priorities"] = {"Food": "High", "Water": "Medium", "Firewood": "Low"}
    good.scenario.private[B]["priorities"] = {"Food": "Low", "Water": "Medium", "Firewood": "High"}
    good.step(actions.SubmitDeal(mine={"Food": 3, "Water": 2, "Firewood": 0}, theirs={"Food": 0, "Water": 1, "Firewood": 3}))
    good.step(actions.AcceptDeal())
    assert good.episode_metrics(good.to_dialogue())["pareto_optimal"] == 1.0


def test_sample_action_is_always_legal():
    task = make("casino-v0")
    rng = random.Random(0)
    for seed in range(30):
        task.reset(seed=seed)
        while not task.done:
            task.step(task.sample_action(task.to_move, rng))


def test_played_transcripts_write_natively_and_round_trip():
    fmt = corpus_format("casino")
    task = make("casino-v0")
    for seed in range(10):
        dialogue = play_episode(task, {p: RandomAgent() for p in task.party_ids}, seed=seed)
        record = fmt.from_dialogue(dialogue)
        assert fmt.check(record) == []
        assert list(record["participant_info"])[0] == dialogue.events[0].party
        assert record_differences(record, fmt.from_dialogue(fmt.to_dialogue(record))) == []


def test_a_corpus_scenario_replays(sample):
    task = make("casino-v0")
    task.reset(seed=1, scenario=sample[0])
    assert task.scenario == sample[0].scenario
    assert task.observe(task.to_move).private == sample[0].scenario.private[task.to_move]


@pytest.mark.corpus
def test_judge_matches_every_scored_corpus_dialogue(corpus_path):
    result = read_corpus(corpus_format("casino"), corpus_path("casino/split"))
    task = CasinoTask()
    ended = 0
    for dialogue in result.dialogues:
        if dialogue.outcome.reason in ("agreement", "walk_away"):
            ended += 1
            assert task.judge(dialogue).scores == dialogue.outcome.scores, dialogue.id
    assert ended >= 900

"""The dealornodeal-v0 task: conformance, private choices, scoring, the chat limit, schemas, contexts."""

from __future__ import annotations

import random

import pytest

from duologue.core import actions, moves
from duologue.core.task import IllegalAction
from duologue.tasks import make
from duologue.tasks.dealornodeal.rules import scenario_problems
from duologue.tasks.dealornodeal.task import Choose, ChooseEvent, DealOrNoDealTask, read_contexts
from duologue.testing import check_task

A, B = "alice", "bob"


def fresh(**options) -> DealOrNoDealTask:
    task = DealOrNoDealTask(first=A, **options)
    task.reset(seed=5)
    return task


def take(task: DealOrNoDealTask, mine: dict[str, int]) -> Choose:
    pool = task.pool()
    return Choose(mine=mine, theirs={item: pool[item] - n for item, n in mine.items()})


def test_conforms():
    check_task("dealornodeal-v0", episodes=25, seed=3)


def test_conforms_with_contexts(fixtures):
    check_task("dealornodeal-v0", episodes=5, seed=1, contexts=str(fixtures / "dealornodeal" / "contexts.txt"))


def test_scenarios_keep_the_constraints_and_are_reproducible():
    task = DealOrNoDealTask()
    assert task.generate_scenario(random.Random(3)) == task.generate_scenario(random.Random(3))
    for seed in range(200):
        scenario = task.generate_scenario(random.Random(seed))
        values = {p: scenario.private[p]["values"] for p in (A, B)}
        assert scenario_problems(scenario.public["pool"], values) == []


def test_a_choice_stays_private_until_the_end():
    task = fresh()
    task.step(actions.Say(text="i'll take the books"), A)
    task.step(take(task, {"book": task.pool()["book"], "hat": 0, "ball": 0}), B)
    seen = task.observe(A).transcript[-1]
    assert isinstance(seen, ChooseEvent) and seen.party == B and seen.mine is None and seen.theirs is None
    assert task.observe(B).transcript[-1].mine is not None  # the chooser sees its own choice
    assert task.legal_actions(A) == ["choose"]  # once one has chosen, the other may only choose
    assert task._legal_kinds(B) == []
    with pytest.raises(IllegalAction):
        task.step(actions.Say(text="wait"), A)
    task.step(take(task, {"book": 0, "hat": task.pool()["hat"], "ball": task.pool()["ball"]}), A)
    assert task.done and task.observe(A).transcript[-2].mine is not None  # revealed once it is over


def test_complementary_choices_score_each_side_its_values():
    task = fresh()
    pool = task.pool()
    mine = {"book": pool["book"], "hat": 0, "ball": 1}
    task.step(take(task, mine), A)
    task.step(take(task, {item: pool[item] - n for item, n in mine.items()}), B)
    _, _, outcome = task.last()
    values = {p: task.scenario.private[p]["values"] for p in (A, B)}
    assert outcome.agreed and outcome.reason == "agreement"
    assert outcome.scores[A] == sum(values[A][i] * n for i, n in mine.items())
    assert outcome.scores[B] == sum(values[B][i] * (pool[i] - n) for i, n in mine.items())


def test_choices_that_do_not_match_score_nothing():
    task = fresh()
    everything = task.pool()
    task.step(take(task, everything), A)
    task.step(take(task, everything), B)
    _, _, outcome = task.last()
    assert (outcome.agreed, outcome.reason, outcome.scores) == (False, "disagree", {A: 0.0, B: 0.0})


def test_after_the_chat_limit_both_must_choose():
    task = fresh(max_turns=6)
    for turn in range(4):
        task.step(actions.Say(text=f"message {turn}"), task.to_move)
    assert task.legal_actions(task.to_move) == ["choose"]
    task.step(take(task, task.pool()), task.to_move)
    task.step(take(task, {item: 0 for item in task.pool()}), task.to_move)
    assert task.terminated and not task.truncated
    assert task.last()[2].agreed


def test_ending_early_scores_nothing():
    task = fresh()
    task.step(take(task, task.pool()), A)
    task.end("disconnect")
    _, _, outcome = task.last()
    assert (outcome.agreed, outcome.reason, outcome.scores) == (False, "disconnect", {A: 0.0, B: 0.0})


def test_the_move_schema_cannot_express_a_split_that_does_not_add_up():
    task = fresh()
    schema = task.action_schema(A)
    assert moves.kinds(schema) == ["say", "choose"]
    pool = task.pool()
    bad = {"kind": "choose", "mine": dict(pool), "theirs": dict(pool)}
    assert moves.validate(schema, bad) is not None
    flat = moves.for_llm(schema)
    splits = [o for o in flat["oneOf"] if o["properties"]["kind"]["const"] == "choose"]
    assert len(splits) == (pool["book"] + 1) * (pool["hat"] + 1) * (pool["ball"] + 1)
    for option in splits:
        mine, theirs = option["properties"]["mine"]["const"], option["properties"]["theirs"]["const"]
        assert {i: mine[i] + theirs[i] for i in pool} == pool
    rng = random.Random(0)
    for _ in range(20):
        move = moves.sample(schema, rng)
        assert moves.validate(schema, move) is None
        task_copy = fresh()
        task_copy.step(actions.parse_action(move), A)


def test_metrics_include_points_joint_points_and_pareto_share():
    task = fresh()
    pool = task.pool()
    task.step(take(task, pool), A)
    task.step(take(task, {item: 0 for item in pool}), B)
    figures = task.episode_metrics(task.to_dialogue())
    assert figures["agreement"] == 1.0
    assert figures["points_alice"] == 10.0 and figures["points_bob"] == 0.0 and figures["joint_points"] == 10.0
    # taking everything is Pareto optimal unless some item is worth nothing to alice (then it is worth something to bob)
    worthless_to_alice = any(v == 0 for v in task.scenario.private[A]["values"].values())
    assert figures["pareto_optimal"] == (0.0 if worthless_to_alice else 1.0)
    assert {m.name for m in DealOrNoDealTask.spec.metrics} <= set(figures)


def test_scenarios_from_a_context_file(fixtures):
    path = fixtures / "dealornodeal" / "contexts.txt"
    scenarios = read_contexts(str(path))
    assert len(scenarios) == 2
    assert scenarios[0].public["pool"] == {"book": 1, "hat": 2, "ball": 2}
    assert scenarios[0].private[A]["values"] == {"book": 4, "hat": 1, "ball": 2}
    assert scenarios[0].private[B]["values"] == {"book": 0, "hat": 3, "ball": 2}
    task = make("dealornodeal-v0", contexts=str(path))
    drawn = {task.reset(seed=seed).public["pool"]["book"] for seed in range(20)}
    assert drawn == {1, 4}


def test_a_bad_context_file_is_an_error_naming_the_line(tmp_path):
    path = tmp_path / "contexts.txt"
    path.write_text("1 4 2 1 2 2\n2 0 2 3 2 2\n", encoding="utf-8")
    with pytest.raises(ValueError, match=":1: the two sides"):
        DealOrNoDealTask(contexts=path)


def test_scenarios_from_the_real_selfplay_contexts(corpus_path):
    path = corpus_path("dealornodeal/selfplay.txt")
    scenarios = read_contexts(str(path))
    assert len(scenarios) == len([line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]) // 2
    broken = [s for s in scenarios if scenario_problems(s.public["pool"], {p: s.private[p]["values"] for p in (A, B)})]
    assert broken == []


@pytest.mark.parametrize("seed", range(10))
def test_observations_do_not_depend_on_the_partners_values_or_hidden_choice(seed):
    """Change bob's values and what bob chooses: alice's view is the same until the episode ends."""
    views = []
    for variant in range(2):
        task = DealOrNoDealTask(first=A)
        scenario = task.generate_scenario(random.Random(seed))
        if variant:
            scenario.private[B]["values"] = {item: 10 - v for item, v in scenario.private[B]["values"].items()}
        task.reset(seed=seed, scenario=scenario)
        for _ in range(3):
            task.step(actions.Say(text="what do you want?"), task.to_move)
        pool = task.pool()
        task.step(take(task, {item: (pool[item] if variant else 0) for item in pool}), B)
        views.append(task.observe(A).model_dump())
    assert views[0] == views[1]

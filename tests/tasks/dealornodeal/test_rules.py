"""Deal or No Deal's rules: the generator keeps the paper's constraints, scoring, Pareto optimality."""

from __future__ import annotations

import random

from duologue.tasks.dealornodeal.rules import ITEMS, all_shares, complement, generate, is_pareto_optimal, scenario_problems, split_problems, value


def test_generated_scenarios_keep_every_constraint_and_cover_the_space():
    rng = random.Random(11)
    pools, totals = set(), set()
    for _ in range(2000):
        pool, a, b = generate(rng)
        assert scenario_problems(pool, {"a": a, "b": b}) == []
        pools.add(tuple(pool.values()))
        totals.add(sum(pool.values()))
    assert totals == {5, 6, 7}
    assert len(pools) > 20  # every count 1..4 mix with 5-7 items shows up, not one favourite


def test_the_checker_names_each_broken_constraint():
    pool = {"book": 4, "hat": 3, "ball": 1}
    problems = scenario_problems(pool, {"a": {"book": 0, "hat": 3, "ball": 0}, "b": {"book": 0, "hat": 0, "ball": 5}})
    text = " ".join(problems)
    assert "5-7" in text and "worth 9" in text and "worth 5" in text
    assert "nothing to both" in text and "something to both" in text


def test_splits_must_give_out_exactly_the_pool():
    pool = {"book": 1, "hat": 2, "ball": 3}
    assert split_problems({"book": 1, "hat": 0, "ball": 1}, {"book": 0, "hat": 2, "ball": 2}, pool) == []
    assert split_problems({"book": 1, "hat": 0, "ball": 1}, {"book": 0, "hat": 2, "ball": 1}, pool)
    assert split_problems({"book": 1, "hat": 0}, {"book": 0, "hat": 2, "ball": 3}, pool)


def test_pareto_optimality_by_enumeration():
    pool = {"book": 1, "hat": 2, "ball": 2}
    a = {"book": 4, "hat": 1, "ball": 2}
    b = {"book": 0, "hat": 3, "ball": 2}
    assert is_pareto_optimal({"book": 1, "hat": 0, "ball": 2}, pool, a, b)  # 8 and 6
    assert not is_pareto_optimal({"book": 0, "hat": 0, "ball": 2}, pool, a, b)  # the book is worth nothing to b
    assert len(all_shares(pool)) == 2 * 3 * 3
    for share in all_shares(pool):
        assert value(share, a) + value(complement(share, pool), a) == 10
    assert set(ITEMS) == set(pool)

"""Declared values and the analytics derived from them: hand-computed small spaces, and the
built-in tasks' values agreeing with their own scoring and Pareto checks."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from duologue.core import actions
from duologue.core.schema import Outcome
from duologue.core.values import Values, analyse, distance, kalai_index, nash_index, outcome_figures, pareto_mask
from duologue.tasks import make
from duologue.tasks.casino.rules import is_pareto_optimal as casino_pareto
from duologue.tasks.dealornodeal.rules import is_pareto_optimal as deal_pareto

POINTS = {"A": (0.0, 10.0), "B": (4.0, 7.0), "C": (6.0, 4.0), "D": (10.0, 0.0), "E": (3.0, 3.0), "F": (2.0, 6.0)}
"""A small space worked by hand: A, B, C, D are the frontier; E and F are dominated (by B)."""


class Table(Values):
    """Values given as a table of utility points (outcome `{"name": ...}`)."""

    def __init__(self, points: dict[str, tuple[float, float]], walk: tuple[float, float]) -> None:
        super().__init__(("x", "y"))
        self.points, self.walk = points, walk

    def outcomes(self):
        return [{"name": name} for name in self.points]

    def value(self, party, deal):
        return self.points[deal["name"]][self.parties.index(party)]

    def walk_away(self, party):
        return self.walk[self.parties.index(party)]

    def propose(self, party, deal):
        return actions.Say(text=deal["name"])

    def accept(self, party, deal):
        return actions.Accept()

    def proposed(self, event, reader):
        return None


def test_pareto_nash_and_kalai_on_a_hand_computed_space():
    space = analyse(Table(POINTS, (0.0, 0.0)))
    names = [d["name"] for d in space.deals]
    assert [n for n, on in zip(names, space.frontier, strict=True) if on] == ["A", "B", "C", "D"]
    # Nash: (u1 - 0)(u2 - 0) is 0, 28, 24, 0, 9, 12: B
    assert names[space.nash] == "B"
    # Kalai: best gains are 10 and 10; shares B (0.4, 0.7) gap 0.3, C (0.6, 0.4) gap 0.2: C
    assert names[space.kalai] == "C"


def test_walk_away_values_move_the_nash_point_and_rule_out_outcomes():
    points = np.array(list(POINTS.values()))
    names = list(POINTS)
    # walking away is worth 5 to x: only C (1 x 4) and D (5 x 0) remain; C maximises the product
    assert names[nash_index(points, (5.0, 0.0))] == "C"
    # nothing is at least as good as walking away for both
    assert nash_index(points, (11.0, 0.0)) is None
    # Kalai with walk-away (5, 0): the largest gains are 5 (D) and 10 (A); of the frontier points no
    # worse than walking away, C has shares (0.2, 0.4), gap 0.2, and D (1, 0), gap 1
    assert names[kalai_index(points, (5.0, 0.0))] == "C"
    assert pareto_mask(np.array([[1.0, 1.0], [1.0, 1.0]])).tolist() == [True, True]  # equal points do not dominate each other


def test_a_deals_figures_distance_surplus_and_clembench_score():
    values = Table(POINTS, (1.0, 2.0))
    space = analyse(values)
    figures = outcome_figures(values, Outcome(reason="agreement", agreed=True, deal={"name": "E"}), space)
    # E (3, 3) is dominated by B (4, 7) and C (6, 4): nearest is C at sqrt(9 + 1)
    assert figures["pareto_efficient"] == 0.0
    assert figures["frontier_distance"] == pytest.approx(math.sqrt(10))
    # the largest gain to a party from an outcome no worse for either: B gives y 4 more; the best value is 10
    assert figures["pareto_score"] == pytest.approx(100 - 100 * 4 / 10)
    assert (figures["surplus_x"], figures["surplus_y"], figures["surplus"]) == (2.0, 1.0, 3.0)
    on = outcome_figures(values, Outcome(reason="agreement", agreed=True, deal={"name": "B"}), space)
    assert (on["pareto_efficient"], on["frontier_distance"], on["pareto_score"]) == (1.0, 0.0, 100.0)
    # no deal: each keeps its walk-away, so no surplus, and the deal-only figures do not apply
    none = outcome_figures(values, Outcome(reason="walk_away", agreed=False), space)
    assert none["surplus"] == 0.0 and none["pareto_efficient"] is None and none["frontier_distance"] is None


def test_distance_between_deals_reads_numeric_leaves():
    assert distance({"a": {"x": 1, "y": 3}}, {"a": {"x": 2, "y": 0}}) == 4.0
    assert distance({"price": 10.0}, {"price": 12.5}) == 2.5


@pytest.mark.parametrize("task_id", ["casino-v0", "dealornodeal-v0"])
def test_the_tasks_values_agree_with_their_own_scoring_and_pareto_check(task_id):
    task = make(task_id)
    a, b = task.party_ids
    for seed in range(25):
        scenario = task.generate_scenario(random.Random(seed))
        values = task.values(scenario)
        space = analyse(values)
        for deal, efficient in zip(space.deals, space.frontier, strict=True):
            private = scenario.private
            if task_id == "casino-v0":
                own = casino_pareto(deal[a], private[a]["priorities"], private[b]["priorities"])
            else:
                own = deal_pareto(deal[a], {k: int(v) for k, v in scenario.public["pool"].items()}, private[a]["values"], private[b]["values"])
            assert bool(efficient) == own, (seed, deal)


@pytest.mark.parametrize("task_id", ["casino-v0", "dealornodeal-v0", "craigslist-v0"])
def test_a_played_deal_is_valued_as_the_judge_scores_it(task_id):
    from duologue.agents import make_agent
    from duologue.core.episode import play_episode

    task = make(task_id)
    seen = 0
    for seed in range(6):
        dialogue = play_episode(task, {p: make_agent("rule", task) for p in task.party_ids}, seed=seed)
        outcome = dialogue.outcome
        if outcome is None or not outcome.agreed:
            continue
        seen += 1
        values = task.values(dialogue.scenario)
        for party in task.party_ids:
            assert values.value(party, outcome.deal) == pytest.approx(outcome.scores[party])
        figures = task.episode_metrics(dialogue)
        assert figures["surplus"] == pytest.approx(sum(outcome.scores.values()) - sum(values.walk_away(p) for p in task.party_ids))
    assert seen


def test_a_task_without_values_reports_none_of_their_figures():
    task = make("mutualfriends-v0")
    assert task.values(task.generate_scenario(random.Random(0))) is None
    from duologue.agents import make_agent
    from duologue.core.episode import play_episode

    dialogue = play_episode(task, {p: make_agent("random", task) for p in task.party_ids}, seed=0)
    assert "surplus" not in task.episode_metrics(dialogue)


@pytest.mark.parametrize("task_id", ["casino-v0", "dealornodeal-v0", "craigslist-v0"])
def test_reused_spaces_give_the_figures_of_a_fresh_analysis(task_id):
    from duologue.core.values import analysed

    task = make(task_id)
    keys = set()
    for seed in range(40):
        values = task.values(task.generate_scenario(random.Random(seed)))
        fresh, kept = analyse(values), analysed(values)
        assert np.array_equal(fresh.points, kept.points) and fresh.walk == kept.walk
        assert (fresh.nash, fresh.kalai) == (kept.nash, kept.kalai) and np.array_equal(fresh.frontier, kept.frontier)
        keys.add(values.key())
    assert len(keys) > 1  # scenarios that differ are not taken for one another


class Prices(Table):
    """The defaults: only the kinds of the offer, accept and reject moves are named."""

    offer_kind, accept_kind, reject_kind = "offer", "accept", "reject"
    propose = Values.propose
    accept = Values.accept
    proposed = Values.proposed


class Splits(Prices):
    offer_kind, accept_kind, reject_kind = "submit-deal", "accept-deal", "reject-deal"


def test_the_default_moves_write_and_read_a_deal_by_the_offer_moves_fields():
    prices = Prices({}, (0.0, 0.0))
    move = prices.propose("x", {"price": 120.0})
    assert move == actions.Offer(price=120.0) and prices.accept("y", {"price": 120.0}) == actions.Accept() and prices.reject("y") == actions.Reject()
    assert prices.proposed(move.to_event("x", 0.0), "y") == {"price": 120.0}
    assert prices.proposed(actions.Say(text="120?").to_event("x", 0.0), "y") is None
    splits = Splits({}, (0.0, 0.0))
    deal = {"x": {"food": 2}, "y": {"food": 1}}
    move = splits.propose("y", deal)
    assert move == actions.SubmitDeal(mine={"food": 1}, theirs={"food": 2})
    assert splits.proposed(move.to_event("y", 0.0), "x") == deal
    assert splits.accept("x", deal).kind == "accept-deal" and splits.reject("x").kind == "reject-deal"

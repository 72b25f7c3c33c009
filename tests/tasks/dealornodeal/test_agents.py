"""The Deal or No Deal rule agent: it reads free text, agrees with itself, and plays legally against anyone."""

from __future__ import annotations

import random

import pytest

from duologue.core import actions
from duologue.core.agent import RandomAgent
from duologue.core.episode import play_episode
from duologue.tasks import make
from duologue.tasks.dealornodeal.agents import DealRuleAgent
from duologue.tasks.dealornodeal.rules import complement, value
from duologue.tasks.dealornodeal.task import Choose, DealOrNoDealTask
from duologue.tasks.dealornodeal.understanding import read

A, B = "alice", "bob"


def rule_pair(task) -> dict[str, DealRuleAgent]:
    return {p: DealRuleAgent() for p in task.party_ids}


def test_rule_agents_agree_with_each_other_at_least_nine_times_in_ten():
    task = make("dealornodeal-v0")
    episodes = [play_episode(task, rule_pair(task), seed=seed) for seed in range(200)]
    figures = [task.episode_metrics(d) for d in episodes]
    assert sum(f["agreement"] for f in figures) / len(figures) >= 0.9
    assert all(sum(d.meta["illegal_actions"].values()) == 0 for d in episodes)
    agreed = [f for f in figures if f["agreement"]]
    assert sum(f["pareto_optimal"] for f in agreed) / len(agreed) >= 0.6
    assert all(f["points_alice"] > 0 and f["points_bob"] > 0 for f in agreed)


def test_rule_agents_agree_on_the_real_selfplay_contexts(corpus_path):
    task = make("dealornodeal-v0", contexts=str(corpus_path("dealornodeal/selfplay.txt")))
    agreed = [play_episode(task, rule_pair(task), seed=seed).outcome.agreed for seed in range(100)]
    assert sum(agreed) >= 90


def test_the_rule_agent_plays_legally_against_random_play():
    task = make("dealornodeal-v0")
    for seed in range(30):
        dialogue = play_episode(task, {A: DealRuleAgent(), B: RandomAgent()}, seed=seed)
        assert dialogue.meta["illegal_actions"][A] == 0
        assert dialogue.outcome.reason in ("agreement", "disagree")


@pytest.mark.parametrize(("seed", "worth", "accepts"), [(5, 8, True), (9, 8, True), (3, 4, False)])
def test_it_answers_a_proposal_written_in_free_text(seed, worth, accepts):
    """Bob offers alice all of her most valuable item type in words; she accepts 8 of 10 and counters 4."""
    task = DealOrNoDealTask(first=B)
    task.reset(seed=seed)
    values, pool = task.scenario.private[A]["values"], task.pool()
    best = max(pool, key=lambda item: values[item] * pool[item])
    mine = {item: (pool[item] if item == best else 0) for item in pool}
    assert value(mine, values) == worth
    task.step(actions.Say(text=f"you can have the {best}s, i'll take the rest"), B)
    agent = DealRuleAgent()
    agent.reset(task, A, random.Random(0))
    reply = agent.act(task.observe(A))
    assert isinstance(reply, actions.Say) and ("deal" in reply.text) == accepts
    if accepts:
        task.step(reply, A)
        task.step(Choose(mine=complement(mine, pool), theirs=mine), B)
        choice = agent.act(task.observe(A))
        assert isinstance(choice, Choose) and choice.mine == mine
    else:
        counter = read(reply.text, pool).speaker_gets
        assert counter is not None and value(counter, values) > worth


def test_without_an_agreement_the_second_chooser_takes_its_own_last_proposal():
    task = DealOrNoDealTask(first=A)
    task.reset(seed=9)
    agent = DealRuleAgent()
    agent.reset(task, A, random.Random(1))
    proposal = agent.act(task.observe(A))
    task.step(proposal, A)
    task.step(Choose(mine=task.pool(), theirs={item: 0 for item in task.pool()}), B)
    choice = agent.act(task.observe(A))
    assert isinstance(choice, Choose) and choice.mine == agent.my_last


def test_a_partner_who_holds_out_is_met_before_the_clock_runs_down():
    """Refusals early in the chat already bring its ask down: people say all they will in a few lines."""
    task = DealOrNoDealTask(first=A)
    task.reset(seed=9)
    agent = DealRuleAgent()
    agent.reset(task, A, random.Random(1))
    values, pool = task.scenario.private[A]["values"], task.pool()
    asks = []
    for _ in range(4):
        said = agent.act(task.observe(A))
        task.step(said, A)
        asks.append(value(read(said.text, pool).speaker_gets, values))
        task.step(actions.Say(text="no, i need all of it. you can have nothing"), B)
    assert asks == sorted(asks, reverse=True) and asks[-1] < asks[0], asks

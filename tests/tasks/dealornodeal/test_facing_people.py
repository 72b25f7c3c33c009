"""What people typed to the Deal or No Deal bots and what went wrong (bots facing people): a negated
giving read as an offer and agreed to, a greedier split restated as if agreed and taken, and a
sarcastic line taken at its word. Each now gets a question or a counter, never a deal nobody meant."""

from __future__ import annotations

import random

from duologue.core import actions
from duologue.tasks.dealornodeal.agents import DealRuleAgent, describe
from duologue.tasks.dealornodeal.rules import complement, value
from duologue.tasks.dealornodeal.task import DealOrNoDealTask
from duologue.tasks.dealornodeal.understanding import read

BOT, PERSON = "alice", "bob"


def started(seed: int) -> tuple[DealOrNoDealTask, DealRuleAgent]:
    """A game the bot opens with a proposal."""
    task = DealOrNoDealTask(first=BOT)
    task.reset(seed=seed)
    agent = DealRuleAgent()
    agent.reset(task, BOT, random.Random(0))
    task.step(agent.act(task.observe(BOT)), BOT)
    return task, agent


def answer(task, agent, text: str) -> actions.Action:
    task.step(actions.Say(text=text), PERSON)
    reply = agent.act(task.observe(BOT))
    return reply


def test_a_negated_giving_keeps_the_items_with_the_speaker():
    pool = {"book": 3, "hat": 1, "ball": 1}
    assert read("no i cant give u the hat or the ball, sorry", pool).speaker_gets == {"book": 0, "hat": 1, "ball": 1}
    assert read("i can give you the hat", pool).speaker_gets == {"book": 3, "hat": 0, "ball": 3 - 2}


def test_no_i_cant_give_u_the_hat_or_the_ball_is_never_a_deal():
    """Seed 2: the bot asks for the hat and the ball (all its points); the person refuses both."""
    task, agent = started(2)
    assert agent.my_last == {"book": 0, "hat": 1, "ball": 1}
    reply = answer(task, agent, "no i cant give u the hat or the ball, sorry")
    assert isinstance(reply, actions.Say)
    assert "deal" not in reply.text.lower()


def test_a_refusal_that_reads_as_a_generous_split_is_asked_about_first():
    """Seed 0: the person says no while, read literally, leaving the bot most of its points: the bot asks."""
    task, agent = started(0)
    reply = answer(task, agent, "no i cant give u the hat or the ball, sorry")
    assert isinstance(reply, actions.Say) and "deal" not in reply.text.lower() and reply.text.endswith("?")
    task.step(reply, BOT)
    confirmed = answer(task, agent, "yes")
    assert isinstance(confirmed, actions.Say) and "deal" in confirmed.text.lower()


def test_a_greedier_split_restated_as_agreed_is_weighed_not_agreed_to():
    """The person answers the bot's opening with "deal" and a split worth less to the bot than it asked."""
    for seed in range(4):
        task, agent = started(seed)
        pool, values = task.pool(), task.scenario.private[BOT]["values"]
        asked = agent.my_last
        best = max(pool, key=lambda item: values[item] * pool[item])
        bots = {item: (pool[item] if item == best else 0) for item in pool}
        assert value(bots, values) < value(asked, values)
        reply = answer(task, agent, f"deal, so i get {describe(complement(bots, pool), pool)} and you get {describe(bots, pool)}")
        assert isinstance(reply, actions.Say) and "deal" not in reply.text.lower(), (seed, reply.text)


def test_a_sarcastic_split_is_not_agreed_to():
    task, agent = started(2)
    reply = answer(task, agent, "oh sure, you take ALL of it and i get nothing, totally fair lol")
    assert isinstance(reply, actions.Say) and "deal" not in reply.text.lower()

"""Hybrid agents: a policy decides, a writer words it, and the words are checked against the decision."""

from __future__ import annotations

import random

import pytest

from duologue import tasks
from duologue.agents import make_agent
from duologue.agents.hybrid import HybridAgent, generic_reading, numbers_in
from duologue.core.episode import play_episode


def test_numbers_are_read_in_any_common_form():
    assert numbers_in("How about $1,200?") == [1200.0]
    assert numbers_in("I could do 1.5k, or two hundred") == [2.0, 1500.0]
    assert numbers_in("Deal.") == []


def test_the_generic_reading_keeps_numbers_and_items():
    items = ["firewood", "food", "water"]
    said = generic_reading("I take 2 food and 1 water", items)
    assert said == generic_reading("Could I have two Food plus one Water?", items)
    assert said != generic_reading("I take 2 food and 1 firewood", items)
    assert said != generic_reading("I take 3 food and 1 water", items)


def test_a_bad_spec_says_how_to_write_one():
    with pytest.raises(ValueError, match="hybrid:<policy>\\+<writer>"):
        HybridAgent("rule")
    with pytest.raises(ValueError, match="unknown writer"):
        HybridAgent("rule+poetry")


class ScriptedWriter:
    """A writer whose words are given: its first try at a message with a number adds a wrong one, the second is right."""

    def write(self, decided, observation, feedback, rng):
        if feedback is None and numbers_in(decided):
            return f"Honestly, {decided} Or 999999."
        return "Well... " + decided


@pytest.mark.parametrize("task_id", ["craigslist-v0", "casino-v0"])
def test_mismatched_words_are_retried_and_the_moves_are_the_policys(task_id):
    task = tasks.make(task_id, max_turns=16)
    hybrid = make_agent("hybrid:rule+template", task)
    hybrid.writer = ScriptedWriter()
    agents = {task.party_ids[0]: hybrid, task.party_ids[1]: make_agent("rule", task)}
    dialogue = play_episode(task, agents, seed=2)
    assert sum(dialogue.meta["illegal_actions"].values()) == 0
    assert hybrid.turns and all(t.matched for t in hybrid.turns)
    retried = [t for t in hybrid.turns if t.tries == 2]
    assert retried, "a message with a number should have needed a second try"
    assert all("999999" not in t.said for t in hybrid.turns)
    # the same seed with the plain rule agent makes the same structured moves: the hybrid decides nothing itself
    plain = tasks.make(task_id, max_turns=16)
    again = play_episode(plain, {plain.party_ids[0]: make_agent("rule", plain), plain.party_ids[1]: make_agent("rule", plain)}, seed=2)
    structured = [e.kind for e in dialogue.events if e.kind != "message"]
    assert structured == [e.kind for e in again.events if e.kind != "message"]


class InvisibleWriter:
    """A writer (a model, say) that answers with zero-width characters only, or with spaces."""

    def write(self, decided, observation, feedback, rng):
        return "\u200b\u2060" if feedback is None else "   "


def test_words_that_draw_nothing_are_not_sent_the_policys_own_are():
    task = tasks.make("casino-v0", max_turns=8)
    hybrid = make_agent("hybrid:rule+template", task)
    hybrid.writer = InvisibleWriter()
    hybrid.reading = lambda text, observation: ()  # as if the empty words said the same as the decided ones
    dialogue = play_episode(task, {task.party_ids[0]: hybrid, task.party_ids[1]: make_agent("rule", task)}, seed=1)
    assert hybrid.turns and all(t.source == "fallback" for t in hybrid.turns)
    assert all(e.text.strip("\u200b\u2060 ") for e in dialogue.events if e.kind == "message")


def test_retrieval_needs_a_policy_with_a_generator():
    task = tasks.make("casino-v0")
    task.reset(seed=0)
    with pytest.raises(ValueError, match="retrieval writer"):
        make_agent("hybrid:rule+retrieval", task).reset(task, task.party_ids[0], random.Random(0))


def test_rl_policy_with_retrieval_words_plays():
    task = tasks.make("craigslist-v0", max_turns=20)
    hybrid = make_agent("hybrid:rl:utility+retrieval", task)
    dialogue = play_episode(task, {"0": hybrid, "1": make_agent("modular", task)}, seed=1)
    assert dialogue.outcome is not None and sum(dialogue.meta["illegal_actions"].values()) == 0
    assert all(t.source == "policy" for t in hybrid.turns)


@pytest.fixture(scope="module")
def local_server():
    from duologue.llm.server import local_model_problem, shared_local_server

    problem = local_model_problem()
    if problem:
        pytest.skip(problem)
    return shared_local_server()


@pytest.mark.parametrize("task_id", ["craigslist-v0", "casino-v0"])
def test_the_local_model_as_writer_never_breaks_a_rule(local_server, task_id):
    task = tasks.make(task_id, max_turns=6)
    hybrid = make_agent("hybrid:rule+llm:local", task)
    dialogue = play_episode(task, {task.party_ids[0]: hybrid, task.party_ids[1]: make_agent("rule", task)}, seed=4)
    assert sum(dialogue.meta["illegal_actions"].values()) == 0
    said = [e.text for e in dialogue.events if e.kind == "message" and e.party == task.party_ids[0]]
    assert said == [t.said for t in hybrid.turns]
    for turn in hybrid.turns:  # what was said reads as what was decided, whoever wrote it
        assert generic_reading(turn.said, ["firewood", "food", "water"]) == generic_reading(turn.decided, ["firewood", "food", "water"])
    assert all(t.source in ("writer", "fallback") for t in hybrid.turns)  # the LLM wrote, or its words were replaced

"""The LLM agent on every registered task: the per-task prompts, and short episodes with the real local model.

The prompt tests use a scripted client (no network). The episode tests play `llm:local`
(SmolLM2-135M) against each task's `rule` agent, and check plumbing, not skill: the episode
ends with an outcome the task's judge agrees with, every recorded move is legal when replayed,
every refused move is counted, and the transcript writes as a valid record of the task's corpus.
They skip when xllamacpp or the model is not installed.
"""

from __future__ import annotations

import json
import random
import re
from typing import Any

import pytest

from duologue.agents import make_agent, standard_partner
from duologue.agents import llm as llm_agent
from duologue.agents.llm import PLACEHOLDERS, LLMAgent
from duologue.core import actions
from duologue.core.episode import play_episode
from duologue.core.schema import Dialogue, Event
from duologue.core.task import Task
from duologue.data.compare import record_differences
from duologue.llm.accounting import Completion
from duologue.llm.settings import LLMSettings
from duologue.tasks import corpus_format, make, spec_of_family, specs, task_ids
from duologue.tasks.openchat.settings import STYLES

FAKE = LLMSettings(base_url="http://127.0.0.1:1/v1", model="fake")
FAMILIES = sorted({spec.family for spec in specs()})
MAX_TURNS = 6
"""Moves per test episode: short, so the whole file runs in about a minute on two cores."""
SHORT = {"openchat-ed-v0": {"utterances": 4}, "openchat-wow-v0": {"utterances": 5}}
"""Open chat ends by its utterance count; a short count lets it complete within the turn limit."""


class QuitClient:
    """Answers every request with a `say` move and records the requests (no model needed)."""

    def __init__(self) -> None:
        self.requests: list[list[dict[str, str]]] = []

    def complete(self, messages, **options) -> Completion:
        self.requests.append([dict(m) for m in messages])
        return Completion(text=json.dumps({"move": {"kind": "say", "text": "hello"}}), prompt_tokens=1, completion_tokens=1, seconds=0.0)


def task_prompt_file(family: str) -> str:
    spec = spec_of_family(family)
    assert spec is not None
    text = spec.read_resource("prompts", "system.txt")
    assert text is not None, f"{family} ships no prompts/system.txt"
    return text


def own_prompt(spec: Any) -> str:
    """Where a task's own system prompt lives (its resources' `prompts/system.txt`)."""
    return f"{spec.resources}/prompts/system.txt"


def started(task_id: str, seed: int = 4, **options: Any) -> Task:
    task = make(task_id, **options)
    task.reset(seed=seed)
    return task


def prompt_for(task: Task, party: str) -> tuple[LLMAgent, str, str]:
    """The system and user messages the agent would send for `party` now."""
    agent = LLMAgent(settings=FAKE, client=QuitClient())
    agent.reset(task, party, random.Random(0))
    observation = task.observe(party)
    messages = agent.messages(observation, task.items(observation), [])
    return agent, messages[0]["content"], messages[1]["content"]


def leaves(value: Any) -> list[str]:
    if isinstance(value, dict):
        return [leaf for v in value.values() for leaf in leaves(v)]
    if isinstance(value, list):
        return [leaf for v in value for leaf in leaves(v)]
    if value is None or isinstance(value, bool):
        return []
    return [str(value)]


# --------------------------------------------------------------------------- the per-task prompts


@pytest.mark.parametrize("family", FAMILIES)
def test_each_family_ships_a_short_prompt_with_only_known_placeholders(family):
    text = task_prompt_file(family)
    template, source = llm_agent.load_template("system", spec_of_family(family))
    assert source.endswith(own_prompt(spec_of_family(family))), "the task's own prompt is used, not the generic one"
    used = set(template.get_identifiers())
    assert used <= PLACEHOLDERS, f"unknown placeholders {sorted(used - PLACEHOLDERS)}"
    assert {"public", "private"} <= used and used & {"party", "role"}, "the prompt shows who the agent is and what it may see"
    assert "JSON" in text and '{"move"' in text, "the prompt says how to answer"
    assert len(text.split()) <= 220, "the local model is tiny: keep the prompt short"


@pytest.mark.parametrize("task_id", task_ids())
def test_task_prompt_renders_with_the_party_own_view_and_nothing_left_over(task_id):
    task = started(task_id)
    used = set(llm_agent.load_template("system", task.spec)[0].get_identifiers())
    for party in task.party_ids:
        agent, system, user = prompt_for(task, party)
        assert agent.system_prompt_source.endswith(own_prompt(task.spec))
        observation = task.observe(party)
        assert llm_agent.render_view(observation.private) in system, "the party's own private view is shown"
        assert llm_agent.render_view(observation.public) in system, "the public scenario is shown"
        named = {"task": task.id, "party": party, "role": observation.role or "none"}  # what the prompt says it shows, it shows
        assert all(named[key] in system for key in used & set(named))
        for text in (system, user):
            assert not re.search(r"\$[A-Za-z_{]", text), f"an unexpanded placeholder in: {text}"


@pytest.mark.parametrize("task_id", task_ids())
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_task_prompt_never_shows_the_other_party_private_values(task_id, seed):
    task = started(task_id, seed=seed)
    template = task_prompt_file(task.family)
    for party in task.party_ids:
        other = task.other(party)
        _, system, user = prompt_for(task, party)
        known = set(leaves(task.scenario.public)) | set(leaves(task.observe(party).private))
        secrets = {s for s in leaves(task.scenario.private.get(other, {})) if s not in known and len(s) >= 3}
        secrets = {s for s in secrets if s not in template}  # words of the fixed text (a style name) reveal nothing
        for secret in secrets:
            assert not re.search(rf"(?<!\w){re.escape(secret)}(?!\w)", system + "\n" + user), f"{party} sees {other}'s {secret!r}"


@pytest.mark.parametrize("task_id", ["openchat-ed-v0", "openchat-wow-v0"])
def test_the_user_prompt_is_the_same_whatever_style_the_bot_was_given(task_id):
    """The study is blind: nothing in the user's prompt depends on the bot's style."""
    prompts = set()
    for style in STYLES:
        task = started(task_id, seed=7, style=style)
        assert task.scenario.private["bot"]["style"] == style
        prompts.add(prompt_for(task, "user")[1:])
        _, bot_system, _ = prompt_for(task, "bot")
        assert f"- style: {style}" in bot_system, "the bot is told its own style"
    assert len(prompts) == 1


# --------------------------------------------------------------------------- the real local model


@pytest.fixture(scope="module")
def local_server():
    from duologue.llm.server import local_model_problem, shared_local_server

    problem = local_model_problem()
    if problem:
        pytest.skip(problem)
    return shared_local_server()


def action_of(event: Event) -> actions.Action:
    """The move that produced a recorded event."""
    if event.kind == "message":
        return actions.Say(text=event.text)
    cls = actions.BY_KIND[event.kind]
    fields = {name: getattr(event, name) for name in cls.model_fields if name != "kind" and hasattr(event, name)}
    return cls(**fields)


def replay_is_legal(task_id: str, dialogue: Dialogue, options: dict[str, Any]) -> None:
    """Every recorded move, replayed on a fresh task with the same seed, is accepted by the rules."""
    replay = make(task_id, **options)
    replay.reset(seed=dialogue.meta["seed"])
    for event in dialogue.events:
        if event.kind == "system":
            continue
        assert event.party == replay.to_move, f"{event.party} moved out of turn"
        replay.step(action_of(event), event.party)  # raises IllegalAction if the move was not legal
    assert replay.illegal == {p: 0 for p in replay.party_ids}


def cases() -> list[tuple[str, str]]:
    """(task id, the party the LLM plays): both parties of every task."""
    out = []
    for task_id in task_ids():
        for party in make(task_id).party_ids:
            out.append((task_id, party))
    return out


@pytest.mark.parametrize(("task_id", "llm_party"), cases())
def test_llm_local_plays_a_full_episode_against_the_rule_agent(task_id, llm_party, local_server, monkeypatch):
    monkeypatch.delenv("DUOLOGUE_LLM_BASE_URL", raising=False)  # llm:local uses the shared server
    monkeypatch.setenv("DUOLOGUE_LLM_MAX_TOKENS", "64")
    options: dict[str, Any] = {"max_turns": MAX_TURNS, **SHORT.get(task_id, {})}
    if standard_partner(make(task_id)) == "random":  # a task without a rule agent: a random partner may end it at once
        options["first"] = llm_party
    task = make(task_id, **options)
    agents = {party: make_agent("llm:local" if party == llm_party else standard_partner(task), task) for party in task.party_ids}
    llm = agents[llm_party]
    llm.say_max_chars = 60
    dialogue = play_episode(task, agents, seed=3)

    assert dialogue.outcome is not None
    assert task.judge(Dialogue.model_validate_json(dialogue.model_dump_json())) == dialogue.outcome, "the judge agrees"
    assert len([e for e in dialogue.events if e.kind != "system"]) <= MAX_TURNS
    replay_is_legal(task_id, dialogue, options)
    assert dialogue.meta["illegal_actions"][llm_party] == llm.usage.refused, "every refused move is counted"
    assert llm.usage.calls == llm.usage.moves + llm.usage.invalid_replies
    assert llm.usage.calls >= 1 and llm.usage.prompt_tokens > 0
    assert llm.system_prompt_source.endswith(own_prompt(task.spec))
    if task.corpus is None:  # a plug-in task may have no corpus format
        return
    fmt = corpus_format(task.corpus)
    record = fmt.from_dialogue(dialogue)
    assert fmt.check(record) == [], "the transcript is a valid corpus record"
    assert record_differences(record, fmt.from_dialogue(fmt.to_dialogue(record))) == []
    print(f"{task_id} llm={llm_party}: {dialogue.outcome.reason} after {len(dialogue.events)} events; usage {llm.usage.as_dict()}")

"""Agents by spec string: `random`, `rule`, and (as they land) `modular`, `llm:local`, `llm:openai/...`.

A spec names an agent kind and, after a colon, its argument. Task-specific agents (a task's rule
bot) are found through the task's `agents` table, so generic code never imports task folders.
"""

from __future__ import annotations

import random
from importlib import import_module

from duologue.core.agent import Agent, RandomAgent
from duologue.core.task import Task
from duologue.core.names import UnknownNameError, did_you_mean, load_class

GENERIC: dict[str, type[Agent]] = {"random": RandomAgent}
GENERIC["llm"] = import_module("duologue.agents.llm").LLMAgent  # llm:local, llm:openai/gpt-4o-mini, llm:<alias>/<model>
GENERIC["rl"] = import_module("duologue.agents.rl").RLAgent  # rl:utility, rl:fairness, rl:length, rl:<path>
GENERIC["hybrid"] = import_module("duologue.agents.hybrid").HybridAgent  # hybrid:<policy>+<writer>, e.g. hybrid:rule+llm:local
BASELINES: dict[str, type[Agent]] = import_module("duologue.agents.concession").BASELINES
"""boulware, linear, conceder, tit-for-tat: for tasks that declare values (`Task.values`)."""
GENERIC.update(BASELINES)


def agent_kinds(task: Task) -> list[str]:
    """Spec kinds usable on this task (the value-based baselines only where the task declares values)."""
    valued = declares_values(task)
    return [*(kind for kind in GENERIC if valued or kind not in BASELINES), *task.agents]


def declares_values(task: Task) -> bool:
    """Whether `task` declares values (`Task.values`), judged on a scenario drawn with a fixed seed."""
    return task.values(task.generate_scenario(random.Random(0))) is not None


def standard_partner(task: Task | type[Task]) -> str:
    """The partner a task is played against when none is named: its own `rule` agent, or `random`
    for a task that has none (a plug-in that wrote no agent)."""
    return "rule" if "rule" in task.agents else "random"


def make_agent(spec: str, task: Task) -> Agent:
    """A new agent for `task` from a spec such as `rule` or `random`."""
    kind, _, argument = spec.partition(":")
    if kind in task.agents:
        agent_class = load_class(task.agents[kind])
    elif kind in GENERIC:
        agent_class = GENERIC[kind]
    else:
        raise did_you_mean(kind, agent_kinds(task), f"agent for {task.id}")
    agent: Agent = agent_class(argument) if argument else agent_class()
    agent.name = spec
    return agent


class AgentSpecError(ValueError):
    """An agent spec that names a real kind but cannot play the task (no such policy, writer or file)."""


SPEC_ERRORS: tuple[type[Exception], ...] = (KeyError, ValueError, TypeError, OSError, ImportError)
"""How an agent refuses its spec: an unknown name, a bad value, a missing file or package."""


def check_agent(spec: str, task: Task) -> None:
    """Fail now, not in the first episode, when `spec` cannot play `task`: build the agent and reset it
    on a started copy of the game for each party (some refuse only there, as `rl:` without a policy
    trained for the task); fine when it can play any party. Raises `UnknownNameError` for an unknown
    kind, else `AgentSpecError` naming the spec. Resets `task`: give it a probe."""
    task.reset(seed=0)
    refused: list[str] = []
    for party in task.party_ids:
        try:
            make_agent(spec, task).reset(task, party, random.Random(0))
            return
        except UnknownNameError:
            raise  # an unknown kind: its message already suggests the near ones
        except SPEC_ERRORS as error:
            refused.append(str(error))
    raise AgentSpecError(f"agent {spec!r} cannot play {task.id}: {refused[0]}")

"""The episode loop shared by self-play, the terminal and the platform."""

from __future__ import annotations

import random
from typing import Mapping

from duologue.core.agent import Agent
from duologue.core.schema import Dialogue, Party, Scenario
from duologue.core.task import IllegalAction, Task

MAX_ATTEMPTS = 3
"""Tries an agent gets for one move before the episode ends as `illegal_actions`."""


def agent_rng(seed: int, party: str) -> random.Random:
    """Each agent's own RNG, derived from the episode seed and its party, so results are reproducible."""
    return random.Random(f"{seed}:{party}")


def play_episode(
    task: Task,
    agents: Mapping[str, Agent],
    *,
    seed: int,
    scenario: Scenario | Dialogue | None = None,
    max_attempts: int | Mapping[str, int] = MAX_ATTEMPTS,
) -> Dialogue:
    """Play one episode between `agents` (party id -> agent) and return it as a `Dialogue`.

    An illegal move is shown to its agent (`on_illegal`) and the agent tries again; after
    `max_attempts` refused moves in a row the episode ends, so a broken agent cannot hang a run.
    A mapping gives each party its own (a person typing in a terminal may err often; the bot
    opposite, whose every try may be a paid model call, keeps the usual few).
    """
    missing = set(task.party_ids) - set(agents)
    if missing:
        raise ValueError(f"{task.id} needs an agent for each of {task.party_ids}; missing {sorted(missing)}")
    task.reset(seed=seed, scenario=scenario)
    task.parties = [
        Party(**{**p.model_dump(), "kind": "human" if getattr(agents[p.id], "is_human", False) else "bot", "agent": agents[p.id].name})
        for p in task.parties
    ]
    for party, agent in agents.items():
        agent.reset(task, party, agent_rng(task.seed, party))
    while not task.done:
        mover = task.to_move
        assert mover is not None  # alternate turn-taking always names a mover until done
        party = mover
        tries = max_attempts.get(party, MAX_ATTEMPTS) if isinstance(max_attempts, Mapping) else max_attempts
        for _ in range(tries):
            action = agents[party].act(task.observe(party))
            try:
                task.step(action, party)
                break
            except IllegalAction as error:
                agents[party].on_illegal(error)
        else:
            task.end("illegal_actions")
    return task.to_dialogue()

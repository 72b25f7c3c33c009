"""Seeded games between agents named by spec, for the tests of any task's agents."""

from __future__ import annotations

from typing import Callable

from duologue.agents import make_agent
from duologue.core.episode import play_episode
from duologue.core.task import Task


def play_games(new_task: Callable[[], Task], specs, episodes: int, *, seed: int = 0) -> list:
    """`episodes` games on fresh tasks, game n seeded `seed + n`, the agents made from `specs` in the
    tasks' party order; returns (dialogue, agents) pairs."""
    out = []
    for n in range(episodes):
        task = new_task()
        agents = {party: make_agent(spec, task) for party, spec in zip(task.party_ids, specs, strict=True)}
        out.append((play_episode(task, agents, seed=seed + n), agents))
    return out

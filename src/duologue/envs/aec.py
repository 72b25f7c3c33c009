"""A PettingZoo AEC environment of any registered task (`duologue.envs.pettingzoo_env`)."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from duologue import tasks
from duologue.core.task import Task
from duologue.envs.spaces import MoveMenu, ViewEncoder, transcript_text


def party_names(task: Task) -> dict[str, str]:
    """Party id -> how the transcript text names it (its role where the task has roles)."""
    return {p.id: p.role or p.id for p in task.parties}


def final_rewards(task: Task) -> dict[str, float]:
    """Each party's score by the task's own judge (0 where the task keeps none)."""
    _, _, outcome = task.status()
    scores = outcome.scores if outcome is not None else {}
    return {p: float(scores.get(p, 0.0) or 0.0) for p in task.party_ids}


class DialogueAEC(AECEnv):
    """Both parties of a task take turns; rewards are the task's scores at the end.

    Options: `max_actions` (menu size, default 128; a turn whose legal moves do not fit says what
    it left out in `infos[agent]["menu_cut"]`, kind -> entries, and warns once per kind), `features` (numbers in the observation
    vector), `text_chars` (characters of view and transcript text), `render_mode` (`human`
    prints the transcript with rich, `ansi` returns it), and any task option (`max_turns`...).
    """

    metadata = {"render_modes": ["human", "ansi"], "is_parallelizable": False}

    def __init__(self, task_id: str, *, max_actions: int = 128, features: int = 64, text_chars: int = 4000, render_mode: str | None = None, **task_options: Any) -> None:
        super().__init__()
        self.task = tasks.make(task_id, **task_options)
        self.metadata = {**self.metadata, "name": f"duologue/{task_id}"}
        self.render_mode = render_mode
        self.possible_agents = list(self.task.party_ids)
        self.encoder = ViewEncoder(max_turns=self.task.max_turns, features=features, text_chars=text_chars, text_as="bytes")
        self.menu = MoveMenu(max_actions)
        self.observation_spaces = {
            a: spaces.Dict({"observation": self.encoder.space, "action_mask": spaces.Box(0, 1, shape=(max_actions,), dtype=np.int8)})
            for a in self.possible_agents
        }
        self.action_spaces = {a: spaces.Discrete(max_actions) for a in self.possible_agents}
        self._seeds = random.Random()
        self._legal: list[dict[str, Any]] = []

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._seeds = random.Random(seed)
        episode_seed = self._seeds.getrandbits(32)
        self.task.reset(seed=episode_seed)
        self.rng = random.Random(f"{episode_seed}:moves")
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._select(self.task.to_move)

    def _select(self, party: str | None) -> None:
        self.agent_selection = party if party is not None else self.agents[0]
        self._legal = self.menu.moves(self.task.action_schema(self.agent_selection), self.rng) if not self.task.done else []
        if self.menu.cut and not self.task.done:
            self.infos[self.agent_selection]["menu_cut"] = dict(self.menu.cut)  # what this turn's menu left out

    def observe(self, agent: str) -> dict[str, Any]:
        observation = self.encoder.encode(self.task.observe(agent), party_names(self.task))
        mask = self.menu.mask(self._legal) if agent == self.agent_selection and not self.task.done else np.zeros(self.menu.size, dtype=np.int8)
        return {"observation": observation, "action_mask": mask}

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        move = self.menu.pick(self._legal, action)
        self.task.step(move, agent)
        self.infos[agent] = {"move": move.model_dump()}
        self._clear_rewards()
        self._cumulative_rewards[agent] = 0.0
        if self.task.done:
            self.rewards = final_rewards(self.task)
            terminated, truncated, outcome = self.task.status()
            for a in self.agents:
                self.terminations[a] = terminated
                self.truncations[a] = truncated and not terminated
                self.infos[a]["outcome"] = outcome.model_dump() if outcome is not None else None
            self._accumulate_rewards()
            self.agent_selection = agent
            self._legal = []
            self.agent_selection = self._next_dead(agent)
        else:
            self._select(self.task.to_move)
        if self.render_mode == "human":
            self.render()

    def _next_dead(self, agent: str) -> str:
        return self.task.other(agent) if self.task.other(agent) in self.agents else agent

    def render(self) -> str | None:
        text = transcript_text(self.task.observe(self.possible_agents[0]), party_names(self.task)) if self.task._started else ""
        if self.render_mode == "ansi":
            return text
        if self.render_mode == "human":
            from rich.console import Console

            Console().print(text, markup=False, highlight=False)
        return None

    def close(self) -> None:
        """Nothing to release: the task lives in memory."""

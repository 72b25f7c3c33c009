"""A single-agent Gymnasium environment: one party of a task against a fixed partner (`gymnasium_env`)."""

from __future__ import annotations

import random
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from duologue import tasks
from duologue.agents import make_agent, standard_partner
from duologue.core.episode import MAX_ATTEMPTS, agent_rng
from duologue.core.task import IllegalAction
from duologue.envs.aec import final_rewards, party_names
from duologue.envs.spaces import MoveMenu, ViewEncoder, transcript_text


class DialogueEnv(gym.Env):
    """The learner plays `seat` (a party id, or its index; default: the task's first party); the
    partner agent (any agent spec; default: the task's `rule` agent, or `random` where it has none)
    plays the other party with its own seeded RNG, like self-play.

    The reward is the learner's score by the task's judge when the episode ends, 0 before.
    Options as for `DialogueAEC` (`max_actions`, `features`, `text_chars`, `render_mode`, task options).
    """

    metadata = {"render_modes": ["human", "ansi"]}

    def __init__(
        self,
        task_id: str,
        *,
        partner: str | None = None,
        seat: str | int = 0,
        max_actions: int = 128,
        features: int = 64,
        text_chars: int = 4000,
        render_mode: str | None = None,
        **task_options: Any,
    ) -> None:
        self.task = tasks.make(task_id, **task_options)
        self.partner_spec = partner or standard_partner(self.task)
        self.partner = make_agent(self.partner_spec, self.task)
        self.party = self.task.party_ids[seat] if isinstance(seat, int) else seat
        if self.party not in self.task.party_ids:
            raise ValueError(f"seat {seat!r} is not a party of {task_id}: {self.task.party_ids}")
        self.other = self.task.other(self.party)
        self.render_mode = render_mode
        self.encoder = ViewEncoder(max_turns=self.task.max_turns, features=features, text_chars=text_chars)
        self.menu = MoveMenu(max_actions)
        self.observation_space = spaces.Dict({"observation": self.encoder.space, "action_mask": spaces.Box(0, 1, shape=(max_actions,), dtype=np.int8)})
        self.action_space = spaces.Discrete(max_actions)
        self._seeds = random.Random()
        self._legal: list[dict[str, Any]] = []

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
        super().reset(seed=seed)
        if seed is not None:
            self._seeds = random.Random(seed)
        episode_seed = self._seeds.getrandbits(32)
        self.task.reset(seed=episode_seed)
        self.rng = random.Random(f"{episode_seed}:moves")
        self.partner.reset(self.task, self.other, agent_rng(episode_seed, self.other))
        self._partner_moves()
        return self._observation(), {"seed": episode_seed, **self._cut()}

    def _cut(self) -> dict[str, Any]:
        """What the learner's menu left out this turn (kind -> entries), when it left anything out."""
        return {"menu_cut": dict(self.menu.cut)} if self.menu.cut and self._legal else {}

    def _partner_moves(self) -> None:
        """Let the partner play until it is the learner's turn or the episode is over."""
        while not self.task.done and self.task.to_move == self.other:
            for _ in range(MAX_ATTEMPTS):
                try:
                    self.task.step(self.partner.act(self.task.observe(self.other)), self.other)
                    break
                except IllegalAction as error:
                    self.partner.on_illegal(error)
            else:
                self.task.end("illegal_actions")
        self._legal = self.menu.moves(self.task.action_schema(self.party), self.rng) if not self.task.done else []

    def _observation(self) -> dict[str, Any]:
        observation = self.encoder.encode(self.task.observe(self.party), party_names(self.task))
        return {"observation": observation, "action_mask": self.menu.mask(self._legal)}

    def step(self, action: Any) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        if self.task.done:
            raise RuntimeError("the episode is over: call reset()")
        move = self.menu.pick(self._legal, action)
        self.task.step(move, self.party)
        self._partner_moves()
        reward, info = 0.0, {"move": move.model_dump(), **self._cut()}
        terminated = truncated = False
        if self.task.done:
            terminated, truncated, outcome = self.task.status()
            truncated = truncated and not terminated
            reward = final_rewards(self.task)[self.party]
            info["outcome"] = outcome.model_dump() if outcome is not None else None
        if self.render_mode == "human":
            self.render()
        return self._observation(), float(reward), bool(terminated), bool(truncated), info

    def render(self) -> str | None:
        text = transcript_text(self.task.observe(self.party), party_names(self.task)) if self.task._started else ""
        if self.render_mode == "ansi":
            return text
        if self.render_mode == "human":
            from rich.console import Console

            Console().print(text, markup=False, highlight=False)
        return None

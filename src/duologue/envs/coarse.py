"""The coarse-act view of a task as a Gymnasium environment: what strategy learning trains on.

The learner is a modular agent (`duologue.modular.agent`) whose act decisions come from the
environment's actions: at each decision the agent's task code offers a context and the acts its
rules allow now; the action picks one (an index into the act vocabulary of the supervised policy;
an act the rules do not allow now becomes the supervised policy's most likely allowed act); the
agent's planner proposes the act's numbers (a price, a split) and its generator writes the words.
Where the agent's task code offers argument variants (`choose_option`), picking one (`point:option`,
with `option_prior` as the supervised part) is a decision of the view as well.
Moves the rules make without a decision (answering an offer, the endgame) are played by the agent
itself. The episode runs in a worker thread that hands each decision over, so the agent's own
control flow is untouched. Reward: one of `duologue.learning.rewards` at the end.
"""

from __future__ import annotations

import queue
import random
import threading
from typing import Any, Sequence

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from duologue import tasks
from duologue.agents import make_agent
from duologue.modular.agent import ModularAgent
from duologue.core.episode import play_episode
from duologue.modular.coarse_policy import HASH_SIZE, features, option_prior
from duologue.learning.rewards import reward
from duologue.learning.train import TrainConfig, supervised_acts


class _Abort(Exception):
    """Stops an episode thread whose environment was reset or closed."""


class CoarseActEnv(gym.Env):
    """One party's coarse act decisions against a fixed partner (see the module docstring)."""

    metadata = {"render_modes": []}

    def __init__(self, task_id: str, *, partner: str = "modular", base: str = "modular", reward_name: str = "utility", seat: int = 0, **task_options: Any) -> None:
        self.task_id, self.partner_spec, self.base_spec, self.reward_name = task_id, partner, base, reward_name
        self.options = task_options
        self.party = tasks.task_class(task_id).spec.parties[seat]
        self.acts = supervised_acts(TrainConfig(task=task_id, base=base, options=task_options))
        size = len(self.acts)
        self.action_space = spaces.Discrete(size)
        self.observation_space = spaces.Dict(
            {
                "context": spaces.MultiBinary(HASH_SIZE),
                "supervised": spaces.Box(-20.0, 0.0, shape=(size,), dtype=np.float32),
                "action_mask": spaces.Box(0, 1, shape=(size,), dtype=np.int8),
            }
        )
        self._seeds = random.Random()
        self._thread: threading.Thread | None = None
        self._asks: queue.Queue = queue.Queue()
        self._answers: queue.Queue = queue.Queue()
        self._pending: tuple[Sequence[str], list[str], dict[str, float]] | None = None

    # ------------------------------------------------------------------ the episode thread

    def _run(self, seed: int, asks: queue.Queue, answers: queue.Queue) -> None:
        task = tasks.make(self.task_id, **self.options)
        learner, partner = make_agent(self.base_spec, task), make_agent(self.partner_spec, task)
        if not isinstance(learner, ModularAgent):
            raise ValueError(f"coarse env: the base agent {learner.name!r} of {task.id} has no act policy to learn")

        def choose(context: Sequence[str], allowed: Any) -> str:
            allowed = list(dict.fromkeys(allowed))
            return choose_among(context, allowed, learner.knowledge.policy.distribution(context, allowed))

        def choose_among(context: Sequence[str], allowed: list[str], dist: dict[str, float]) -> str:
            asks.put(("decide", (tuple(context), allowed, dist)))
            answer = answers.get()
            if answer is _Abort:
                raise _Abort()
            return answer

        def choose_option(point: str, context: Sequence[str], options: Sequence[str]) -> str:
            names = [f"{point}:{option}" for option in dict.fromkeys(options)]
            return choose_among(context, names, option_prior(names)).split(":", 1)[1]

        def reset_hook(original=learner.reset):
            def wrapped(*args: Any, **kwargs: Any) -> None:
                original(*args, **kwargs)
                learner.choose_act = choose  # type: ignore[method-assign]
                if hasattr(learner, "choose_option"):  # argument variants: decisions of the view too
                    learner.choose_option = choose_option

            return wrapped

        learner.reset = reset_hook()  # type: ignore[method-assign]
        try:
            dialogue = play_episode(task, {self.party: learner, task.other(self.party): partner}, seed=seed)
        except _Abort:
            return
        except Exception as error:  # noqa: BLE001 - thread boundary: any episode failure is re-raised to the caller of step/reset
            asks.put(("error", error))
            return
        asks.put(("done", dialogue))

    def _stop(self) -> None:
        if self._thread is not None and self._thread.is_alive():
            self._answers.put(_Abort)
            self._thread.join(timeout=30)
        self._thread = None

    def _next(self) -> tuple[str, Any]:
        kind, payload = self._asks.get()
        if kind == "error":
            raise payload
        return kind, payload

    def _observe(self) -> dict[str, Any]:
        size = len(self.acts)
        context_bits = np.zeros(HASH_SIZE, dtype=np.int8)
        supervised = np.full(size, -20.0, dtype=np.float32)
        mask = np.zeros(size, dtype=np.int8)
        if self._pending is not None:
            context, allowed, dist = self._pending
            context_bits[features(context)] = 1
            for act in allowed:
                if act in self.acts:
                    i = self.acts.index(act)
                    mask[i] = 1
                    supervised[i] = max(float(np.log(max(dist.get(act, 1e-9), 1e-9))), -20.0)
        return {"context": context_bits, "supervised": supervised, "action_mask": mask}

    # ------------------------------------------------------------------ Gymnasium API

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
        super().reset(seed=seed)
        if seed is not None:
            self._seeds = random.Random(seed)
        self._stop()
        while True:
            episode_seed = self._seeds.getrandbits(32)
            self._asks, self._answers = queue.Queue(), queue.Queue()
            self._thread = threading.Thread(target=self._run, args=(episode_seed, self._asks, self._answers), daemon=True)
            self._thread.start()
            kind, payload = self._next()
            if kind == "decide":
                self._pending = payload
                return self._observe(), {"seed": episode_seed}
            # an episode with no decision for the learner (the partner ended it at once): play the next

    def step(self, action: Any) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        if self._pending is None:
            raise RuntimeError("the episode is over: call reset()")
        _, allowed, dist = self._pending
        index = int(action)
        act = self.acts[index] if 0 <= index < len(self.acts) else None
        if act not in allowed:
            act = max(allowed, key=lambda a: dist.get(a, 0.0))
        self._answers.put(act)
        kind, payload = self._next()
        if kind == "decide":
            self._pending = payload
            return self._observe(), 0.0, False, False, {"act": act}
        self._pending = None
        dialogue = payload
        truncated = any(e.kind == "system" for e in dialogue.events) and not (dialogue.outcome and dialogue.outcome.agreed)
        value = reward(self.reward_name, dialogue, self.party)
        return self._observe(), float(value), not truncated, bool(truncated), {"act": act, "dialogue_id": dialogue.id}

    def close(self) -> None:
        self._stop()

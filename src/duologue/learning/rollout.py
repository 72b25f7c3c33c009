"""Self-play rollouts for strategy learning: one picklable job, so episodes run in processes or on Ray."""

from __future__ import annotations

import random
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
import orjson

from duologue import tasks
from duologue.agents import make_agent
from duologue.agents.rl import RLAgent
from duologue.arena.selfplay import episode_seed
from duologue.core.episode import play_episode
from duologue.modular.coarse_policy import CoarsePolicy, Decision
from duologue.learning.rewards import reward


@dataclass(frozen=True)
class RolloutJob:
    """Plays episode `number` of a training run: the learner in seat `number % 2`, the partner in the other.

    `partner` may name several agent specs, comma-separated (`modular,rule`): each episode draws one
    from a generator seeded by the run seed and the episode number, so a run is reproducible and the
    learner meets every partner it will be measured against. Carries the current parameters (numpy arrays), so a worker needs nothing from the driver.

    With `baseline="paired"` the episode is played a second time with the `base` agent (the supervised
    policy) in the learner's seat, on the same scenario and against the same partner, and its reward is
    returned as `reference`: the learner's advantage is then measured against what the supervised
    policy got in the same game, which takes out most of what the scenario alone decides (a CaSiNo
    scenario's points range over 15 or more), so the learning signal is the strategy's own.
    """

    task: str
    reward: str
    partner: str
    run_seed: int
    acts: tuple[str, ...]
    weights: np.ndarray
    bias: np.ndarray
    meta: dict[str, Any] = field(default_factory=dict)
    options: dict[str, Any] = field(default_factory=dict)
    task_registry: dict[str, str] = field(default_factory=dict)
    baseline: str = "mean"
    base: str = "modular"

    def __call__(self, number: int) -> bytes:
        for task_id, target in self.task_registry.items():
            tasks.TASKS.setdefault(task_id, target)
        task = tasks.make(self.task, **self.options)
        policy = CoarsePolicy(list(self.acts), self.weights, self.bias, dict(self.meta))
        learner = RLAgent("training", policy=policy, record=True)
        learner.name = "rl:training"
        partner_spec = pick_partner(self.partner, self.run_seed, number)
        partner = make_agent(partner_spec, task)
        seat = task.party_ids[number % 2]
        agents = {seat: learner, task.other(seat): partner}
        dialogue = play_episode(task, agents, seed=episode_seed(self.run_seed, number))
        figures = task.episode_metrics(dialogue)
        outcome = dialogue.outcome
        scores = outcome.scores if outcome is not None else {}
        other = task.other(seat)
        reference = None
        if self.baseline == "paired":
            again = tasks.make(self.task, **self.options)
            played = play_episode(again, {seat: make_agent(self.base, again), again.other(seat): make_agent(partner_spec, again)}, seed=episode_seed(self.run_seed, number))
            reference = reward(self.reward, played, seat)
        return orjson.dumps(
            {
                "number": number,
                "reward": reward(self.reward, dialogue, seat),
                "agreed": bool(outcome is not None and outcome.agreed),
                "own": float(scores.get(seat, 0.0) or 0.0),
                "other": float(scores.get(other, 0.0) or 0.0),
                "turns": figures.get("turns"),
                "reference": reference,
                "decisions": [asdict(d) for d in learner.decisions],
            },
            option=orjson.OPT_SERIALIZE_NUMPY,
        )


def pick_partner(partners: str, run_seed: int, number: int) -> str:
    """The partner spec of episode `number` among the comma-separated `partners` (one spec: that one)."""
    names = [name.strip() for name in partners.split(",") if name.strip()]
    if len(names) < 2:
        return names[0] if names else partners
    return random.Random(f"partner:{run_seed}:{number}").choice(names)


def read_rollout(line: bytes) -> dict[str, Any]:
    data = orjson.loads(line)
    data["decisions"] = [Decision(**d) for d in data["decisions"]]
    return data

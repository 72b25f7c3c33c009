"""Any registered task as an environment for RL libraries (needs the `rl` extra: gymnasium, pettingzoo).

* `pettingzoo_env(task_id, **options)`: a PettingZoo AEC environment, both parties learning or
  played by anything that speaks the AEC API;
* `gymnasium_env(task_id, partner="rule", **options)`: one party against a fixed partner agent (any
  agent spec), for single-agent libraries.

Both read the task only through its generic interface (`reset`, `observe`, `action_schema`, `step`,
`last`), so a plug-in task is an environment too. Observations are the party's own view as
structured spaces (its numbers as a vector, its view and the transcript as text) plus an action
mask; actions are indices into the party's legal moves now, enumerated from the action schema
(`duologue.envs.spaces.MoveMenu`). Rewards are the task's own scores, given when the episode ends.
The coarse-act view that strategy learning trains on is `coarse_env` (`duologue.envs.coarse`).
"""

from __future__ import annotations

from typing import Any


def pettingzoo_env(task_id: str, **options: Any) -> Any:
    """A PettingZoo AEC environment of a registered task (options: see `DialogueAEC`)."""
    from duologue.envs.aec import DialogueAEC

    return DialogueAEC(task_id, **options)


def gymnasium_env(task_id: str, partner: str | None = None, **options: Any) -> Any:
    """A Gymnasium environment: one party of a registered task against a fixed partner agent spec
    (default: the task's `rule` agent, or `random` where it has none)."""
    from duologue.envs.single import DialogueEnv

    return DialogueEnv(task_id, partner=partner, **options)


def coarse_env(task_id: str, partner: str = "modular", **options: Any) -> Any:
    """A Gymnasium environment over the coarse-act view: the learner picks a modular agent's acts,
    its planner and generator do the rest (`duologue.envs.coarse.CoarseActEnv`)."""
    from duologue.envs.coarse import CoarseActEnv

    return CoarseActEnv(task_id, partner=partner, **options)


__all__ = ["pettingzoo_env", "gymnasium_env", "coarse_env"]

"""`rl:<policy>`: a modular agent whose act decisions come from a learned `CoarsePolicy`.

`rl:utility`, `rl:fairness`, `rl:length` (any name) play the policy shipped for the task under
`duologue/learning/policies/<task id>/<name>.npz`; `rl:<path>` plays a file that `duologue train
policy` wrote. The policy replaces only the decisions of the agent kind it was trained on (its
`base`, the task's `modular` agent): which act, and, where that agent's task code offers variants
(`choose_option`), which price, split or answer among those its planner computed; parsing, the
rules, the candidate numbers and the words stay that agent's.
A policy whose metadata says `turns` (trained so) also sees a coarse count of the turns left
(`turns_bucket`) at each decision, beside the base agent's context; the supervised part is unchanged.
Playing needs numpy only.
"""

from __future__ import annotations

import random
from importlib import import_module, resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any, Sequence

from duologue.core.actions import Accept, AcceptDeal, Action
from duologue.core.agent import Agent
from duologue.core.schema import Message
from duologue.core.task import IllegalAction, Observation, Task
from duologue.modular.agent import ModularAgent
from duologue.modular.coarse_policy import CoarsePolicy, Decision, option_prior


def shipped_folder(task_id: str) -> Traversable:
    """Where the policies shipped for a task are: `duologue/learning/policies/<task id>/`, found as
    package data of `duologue` (playing needs no import of the learning layer above the agents)."""
    return resources.files("duologue").joinpath("learning", "policies", task_id)


def shipped(task_id: str) -> list[str]:
    """Names of the policies shipped for a task."""
    folder = shipped_folder(task_id)
    return sorted(p.name.removesuffix(".npz") for p in folder.iterdir() if p.name.endswith(".npz")) if folder.is_dir() else []


def policy_path(argument: str, task_id: str) -> Path:
    """The file `rl:<argument>` names: a shipped policy of the task, or a path."""
    folder = shipped_folder(task_id)
    candidate = folder.joinpath(f"{argument}.npz")
    if candidate.is_file():
        return Path(str(candidate))
    path = Path(argument).expanduser()
    if path.is_file():
        return path
    known = ", ".join(f"rl:{name}" for name in shipped(task_id)) or "none"
    raise ValueError(f"rl:{argument}: no policy of that name for {task_id} (shipped: {known}) and no such file")


def turns_bucket(turns_left: int | None) -> str:
    """How late it is, coarsely: `open` (no limit), `early`, `mid`, `late` or `last` (four turns or fewer left)."""
    if turns_left is None:
        return "turns=open"
    return "turns=last" if turns_left <= 4 else "turns=late" if turns_left <= 8 else "turns=mid" if turns_left <= 16 else "turns=early"


COUNTED_FROM = 6
"""In the last turns a policy trained with the turn count also sees how many are left exactly (`left=3`)."""


def turns_features(turns_left: int | None) -> tuple[str, ...]:
    """What a policy trained with the turn count sees of it: the bucket, and the exact count in the last turns
    (closing a deal on the last possible move takes knowing which move that is)."""
    if turns_left is not None and turns_left <= COUNTED_FROM:
        return (turns_bucket(turns_left), f"left={turns_left}")
    return (turns_bucket(turns_left),)


_LOADED: dict[tuple[str, float], CoarsePolicy] = {}


def load_policy(path: Path) -> CoarsePolicy:
    """A policy file, read once per process (self-play makes an agent per episode)."""
    key = (str(Path(path).resolve()), Path(path).stat().st_mtime)
    if key not in _LOADED:
        try:
            _LOADED[key] = CoarsePolicy.load(path)
        except (ValueError, KeyError, OSError, EOFError) as error:  # numpy's own words would suggest unpickling it: never
            raise ValueError(f"{path}: not a policy file written by `duologue train policy` ({type(error).__name__})") from None
    return _LOADED[key]


class RLAgent(Agent):
    """The base agent (its rules, planner and generator) deciding its acts with a learned policy."""

    name = "rl"

    def __init__(self, argument: str = "utility", *, policy: CoarsePolicy | None = None, record: bool = False) -> None:
        self.argument = argument
        self.policy = policy
        self.record = record
        self.decisions: list[Decision] = []
        self.turns_left: int | None = None

    def reset(self, task: Task, party: str, rng: random.Random) -> None:
        super().reset(task, party, rng)
        if self.policy is None:
            self.policy = load_policy(policy_path(self.argument, task.id))
        if self.policy.meta.get("task") not in (None, task.id):
            raise ValueError(f"rl:{self.argument} was trained for {self.policy.meta['task']}, not {task.id}")
        from duologue.agents import make_agent

        base = make_agent(str(self.policy.meta.get("base", "modular")), task)
        if not isinstance(base, ModularAgent):  # only the modular agents decide by coarse act
            raise ValueError(f"rl: the base agent {base.name!r} of {task.id} has no act policy to learn")
        self.base = base
        self.base.reset(task, party, rng)
        self.base.choose_act = self._choose  # type: ignore[method-assign]
        if hasattr(self.base, "choose_option"):  # the task's agent offers argument variants (a price, a split, an answer)
            self.base.choose_option = self._option
        self.decisions = []
        self.turns_left = None
        try:
            self.stated: Any = import_module(f"{task.spec.resources}.stated")
        except ModuleNotFoundError:
            self.stated = None

    def _seen(self, context: Sequence[str]) -> tuple[str, ...]:
        """What the policy sees: the base agent's context, plus how late it is for a policy trained with it."""
        if self.policy is not None and self.policy.meta.get("turns"):
            if self.policy.meta.get("turns") == "exact":
                return (*context, *turns_features(self.turns_left))
            return (*context, turns_bucket(self.turns_left))
        return tuple(context)

    def _choose(self, context: Sequence[str], allowed: Any) -> str:
        allowed = list(dict.fromkeys(allowed))
        base = self.base.knowledge.policy.distribution(context, allowed)
        act, decision = self.policy.decide(self._seen(context), allowed, base, self.rng)  # type: ignore[union-attr]
        if self.record:
            self.decisions.append(decision)
        return act

    def _option(self, point: str, context: Sequence[str], options: Sequence[str]) -> str:
        """One of the variants the base agent offers at `point` (its usual one first), as `point:option` acts."""
        names = [f"{point}:{option}" for option in dict.fromkeys(options)]
        if all(self.policy.index(name) < 0 for name in names):  # type: ignore[union-attr]
            return options[0]  # a point the policy was trained without: the base agent's usual variant
        act, decision = self.policy.decide(self._seen(context), names, option_prior(names), self.rng)  # type: ignore[union-attr]
        if self.record:
            self.decisions.append(decision)
        return act.split(":", 1)[1]

    def act(self, observation: Observation) -> Action:
        self.turns_left = observation.turns_left
        return self._keeping_its_word(observation, self.base.act(observation))

    def _keeping_its_word(self, observation: Observation, action: Action) -> Action:
        """A rejection of exactly the split or price its own words just asked for (before the partner
        spoke again) becomes an acceptance: what a bot says is what it does (the task's statement
        reader, `<task package>.stated`, reads both; tasks without one are left as they are)."""
        reader = self.stated
        if reader is None or action.kind not in ("reject", "reject-deal") or not hasattr(reader, "pending"):
            return action
        said = None
        for event in observation.transcript:
            if isinstance(event, Message):
                value = reader.stated(event.text, observation.public) if event.party == self.party else None
                said = value if event.party == self.party and value is not None else (None if event.party != self.party else said)
        offered = reader.pending(list(observation.transcript), self.party)
        if said is None or offered is None or said != offered:
            return action
        accept = next((kind for kind in ("accept", "accept-deal") if kind in observation.legal), None)
        return action if accept is None else (Accept() if accept == "accept" else AcceptDeal())

    def on_illegal(self, error: IllegalAction) -> None:
        self.base.on_illegal(error)

    @property
    def generated(self) -> list[Any]:
        """The base agent's log of generated replies (for fit shares)."""
        return getattr(self.base, "generated", [])

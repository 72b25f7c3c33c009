"""The modular agent's manager: which coarse act comes next.

`ActPolicy` counts the acts a corpus (or a hand-written table) shows after each context and
estimates P(next act | context) with interpolated backoff to shorter contexts. `OptionChoices` is
the mixin through which a task's modular agent offers a learned strategy its argument variants.
`duologue.modular.agent` re-exports every name defined here.
"""

from __future__ import annotations

import random
from collections import defaultdict
from typing import ClassVar, Iterable, Mapping, Sequence

START = "<start>"
"""The act before anything was said (the context of a dialogue's first move)."""


# ---------------------------------------------------------------------------- the manager: act policy


def _key(context: Sequence[str]) -> str:
    return "|".join(context)


class ActPolicy:
    """P(next act | context), estimated by counting, with interpolated backoff over context prefixes.

    A context is a tuple of features, most important first (for example `(role, partner's last
    act, price gap, my last act)`). Counts are kept for every prefix of every context seen; the
    estimate for a context mixes the relative frequencies at the full context with the estimate
    at its prefix one feature shorter, weighting the longer one by `n / (n + strength)` where n is
    how often that context was seen (Witten-Bell-like), down to the empty context and finally a
    uniform floor. So rare contexts lean on shorter ones, and an act never seen in a context keeps
    a small chance when the rules allow it.
    """

    def __init__(self, strength: float = 4.0, floor: float = 0.02) -> None:
        self.strength = strength
        self.floor = floor
        # Weights are real numbers (a table may give fractional counts), so plain float maps, not Counter.
        self.counts: defaultdict[str, dict[str, float]] = defaultdict(dict)

    def add(self, context: Sequence[str], act: str, weight: float = 1.0) -> None:
        """Count one observed act after `context` (at the context and at each of its prefixes)."""
        for length in range(len(context) + 1):
            bucket = self.counts[_key(context[:length])]
            bucket[act] = bucket.get(act, 0.0) + weight

    @classmethod
    def counted(cls, pairs: Iterable[tuple[Sequence[str], str]], **options: float) -> "ActPolicy":
        """A policy counted from observed (context, next act) pairs, such as a corpus's act sequences."""
        policy = cls(**options)
        for context, act in pairs:
            policy.add(context, act)
        return policy

    @classmethod
    def from_table(cls, table: Mapping[str, Mapping[str, float]], **options: float) -> "ActPolicy":
        """A policy from counts written as data: `{"feature|feature": {act: count}}` (prefix contexts included or not).

        Counts given only for full contexts are propagated to their prefixes, so a hand-written
        table needs only its most specific rows.
        """
        policy = cls(**options)
        for context, acts in table.items():
            features = tuple(context.split("|")) if context else ()
            for act, count in acts.items():
                policy.add(features, act, float(count))
        return policy

    @property
    def size(self) -> float:
        """How many acts were counted (at the empty context)."""
        return float(sum(self.counts.get("", {}).values()))

    def distribution(self, context: Sequence[str], allowed: Iterable[str]) -> dict[str, float]:
        """The probability of each allowed act after `context`, renormalised over the allowed acts."""
        allowed = list(dict.fromkeys(allowed))
        if not allowed:
            return {}
        estimate = {act: 1.0 / len(allowed) for act in allowed}
        for length in range(len(context) + 1):
            counts = self.counts.get(_key(context[:length]))
            if not counts:
                continue
            seen = sum(counts.get(act, 0.0) for act in allowed)
            if seen <= 0:
                continue
            weight = seen / (seen + self.strength)
            estimate = {act: weight * counts.get(act, 0.0) / seen + (1 - weight) * estimate[act] for act in allowed}
        total = sum(estimate.values())
        floored = {act: max(p / total, self.floor) for act, p in estimate.items()}
        norm = sum(floored.values())
        return {act: p / norm for act, p in floored.items()}

    def sample(self, context: Sequence[str], allowed: Iterable[str], rng: random.Random) -> str:
        """An act drawn from `distribution` with the agent's own RNG."""
        dist = self.distribution(context, allowed)
        if not dist:
            raise ValueError("no act is allowed")
        acts = list(dist)
        return rng.choices(acts, weights=[dist[a] for a in acts])[0]

    def best(self, context: Sequence[str], allowed: Iterable[str]) -> str:
        dist = self.distribution(context, allowed)
        return max(dist, key=dist.__getitem__)


# ---------------------------------------------------------------------------- argument variants


class OptionChoices:
    """Argument variants a task's modular agent offers a learned strategy (a mixin for the task's agent).

    At a decision point (`point`: an act that carries numbers, or an answer) the task's code computes
    the variants it allows, its planner's own first, and asks `choose_option`; the plain agent always
    plays the first, and a learned strategy (`rl:`) replaces `choose_option` to pick one."""

    option_variants: ClassVar[Mapping[str, tuple[str, ...]]] = {}
    """Every decision point and its variants (`point` -> options), the planner's own first."""

    def option_names(self) -> list[str]:
        """Every `point:option` a learned policy may choose (its vocabulary beside the acts)."""
        return [f"{point}:{option}" for point, options in self.option_variants.items() for option in options]

    def choose_option(self, point: str, context: Sequence[str], options: Sequence[str]) -> str:
        """Which variant to play at `point`: the planner's own, always the first."""
        return options[0]

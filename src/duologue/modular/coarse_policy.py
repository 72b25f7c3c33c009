"""`CoarsePolicy`: a learned correction on top of a supervised act policy, over the coarse-act view.

The coarse-act view of a modular agent: at each decision the agent's task code gives a context
(a tuple of feature strings: the partner's last act, the price gap, ...) and the acts its rules
allow now; the policy picks one act; the agent's planner proposes its arguments (a price from its
concession schedule, a split from its plan) and its generator writes the words. Where the task's
agent offers argument variants (`choose_option`: `counter-price:hold`, `propose:even`, `answer:reject`
...), the policy picks among those too, named `point:option`, from a base distribution that keeps
most mass on the planner's own variant (`option_prior`).

score(act) = log P_sl(act | context, allowed) + W[act] . x(context) + b[act]

where x is a hashed bag of the context's features and their pairs with the first feature. W and
b start at zero, so a fresh policy plays exactly like the supervised one. Parameters are numpy
arrays (playing needs no torch); `torch_logits` gives the same scores differentiably for training.
Saved as a small `.npz` with its metadata.
"""

from __future__ import annotations

import json
import math
import random
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import numpy as np

HASH_SIZE = 512
OPTION_SHARE = 0.2
"""The prior share of the non-usual argument variants at an option point, together (see `option_prior`)."""


def option_prior(options: Sequence[str], share: float = OPTION_SHARE) -> dict[str, float]:
    """The base distribution over a decision point's variants: the planner's usual one (the first) keeps
    1 - `share`, the others split `share`, so a fresh policy mostly plays as the planner yet tries the rest."""
    if len(options) < 2:
        return {option: 1.0 for option in options}
    rest = share / (len(options) - 1)
    return {option: (1.0 - share if i == 0 else rest) for i, option in enumerate(options)}


def features(context: Sequence[str], size: int = HASH_SIZE) -> list[int]:
    """Hashed indices of a context: a bias, each feature by position, each feature paired with the first."""
    keys = ["bias"] + [f"{i}={v}" for i, v in enumerate(context)]
    if context:
        keys += [f"0={context[0]}&{i}={v}" for i, v in enumerate(context) if i > 0]
    return sorted({zlib.crc32(k.encode()) % size for k in keys})


@dataclass
class Decision:
    """One recorded choice: what the policy saw and what it picked (for the policy gradient)."""

    features: list[int]
    acts: list[int]
    """Vocabulary index of each allowed act (-1: an act outside the vocabulary, never corrected)."""
    base: list[float]
    """The supervised log-probability of each allowed act."""
    chosen: int
    """Position of the chosen act in `acts`."""


@dataclass
class CoarsePolicy:
    """A supervised act policy plus a learned linear correction (see the module docstring)."""

    acts: list[str]
    weights: np.ndarray
    bias: np.ndarray
    meta: dict[str, Any] = field(default_factory=dict)
    """`task`, `base` (the agent kind it corrects), `reward`, `episodes`, `seed`..."""

    @classmethod
    def fresh(cls, acts: Sequence[str], **meta: Any) -> "CoarsePolicy":
        acts = sorted(set(acts))
        return cls(list(acts), np.zeros((len(acts), HASH_SIZE), dtype=np.float32), np.zeros(len(acts), dtype=np.float32), dict(meta))

    @property
    def size(self) -> int:
        return int(self.weights.shape[1])

    def index(self, act: str) -> int:
        try:
            return self.acts.index(act)
        except ValueError:
            return -1

    def scores(self, feats: Sequence[int], acts: Sequence[int], base: Sequence[float]) -> list[float]:
        out = []
        for act, logp in zip(acts, base, strict=True):
            correction = 0.0 if act < 0 else float(self.weights[act, list(feats)].sum() + self.bias[act])
            out.append(logp + correction)
        return out

    def decide(self, context: Sequence[str], allowed: Sequence[str], base: dict[str, float], rng: random.Random) -> tuple[str, Decision]:
        """Sample an act among `allowed` given the supervised distribution `base` (act -> probability)."""
        feats = features(context, self.size)
        acts = [self.index(a) for a in allowed]
        logps = [math.log(max(base.get(a, 0.0), 1e-6)) for a in allowed]
        scores = self.scores(feats, acts, logps)
        top = max(scores)
        weights = [math.exp(s - top) for s in scores]
        chosen = rng.choices(range(len(allowed)), weights=weights)[0]
        return allowed[chosen], Decision(feats, acts, logps, chosen)

    # ------------------------------------------------------------------ files

    def save(self, path: Path) -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "wb") as handle:
            np.savez_compressed(handle, weights=self.weights.astype(np.float16), bias=self.bias.astype(np.float32), meta=np.array(json.dumps({**self.meta, "acts": self.acts})))
        return path

    @classmethod
    def load(cls, path: Path) -> "CoarsePolicy":
        with np.load(Path(path), allow_pickle=False) as data:
            meta = json.loads(str(data["meta"]))
            acts = meta.pop("acts")
            return cls(acts, data["weights"].astype(np.float32), data["bias"].astype(np.float32), meta)

    # ------------------------------------------------------------------ training (torch)

    def torch_logp(self, decisions: Sequence[Decision], weights: Any, bias: Any) -> Any:
        """Sum over `decisions` of log pi(chosen), differentiable in the torch tensors `weights`, `bias`."""
        import torch

        total = torch.zeros(())
        for d in decisions:
            rows = []
            for act, logp in zip(d.acts, d.base, strict=True):
                if act < 0:
                    rows.append(torch.tensor(logp))
                else:
                    rows.append(logp + weights[act, d.features].sum() + bias[act])
            total = total + torch.log_softmax(torch.stack(rows), dim=0)[d.chosen]
        return total

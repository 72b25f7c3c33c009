"""A learned second look at the split the CaSiNo rule reader finds (`understanding.read(...).proposal`).

The rule reader (`understanding_offers`) is tuned on the labelled set's dev half, and on messages it
has not seen it reads offers less well than on those it was tuned on. This module holds a small
model trained on how the rule reader read real messages *before* it was tuned on them (the `read`
field of `understanding_set.jsonl`, see `understanding_eval`), so that it learns where the rules go
wrong on unseen text rather than where they were patched. For each issue it predicts the speaker's
share (`open`, 0, 1, 2 or 3) from

* the rule reader's own reading (its value for the issue, how many issues it settled, the others'
  values and their sum), and
* the words around each mention of the issue (the count before or after it, the words just before
  and after, the nearest `I`/`you` before it and after it, whether its sentence is a question, a
  condition, an alternative or in the past tense, a negation just before it).

`revise` then decides per issue, with thresholds chosen by cross-validation over labelling rounds:
a share the rules settled is kept unless the model is very sure of another; an issue the rules left
open is filled when the model is fairly sure; and when the rules found no split, the model's own is
taken only when it is sure enough of the whole of it. A multinomial logistic regression per class,
stored as a compressed `.npz` (`models/offer-reader-v1.npz`: vocabulary, weights, biases and the
thresholds) and applied with numpy alone, so reading needs neither scikit-learn nor pickle.
Training, cross-validation and writing the file are in `understanding_training`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from duologue.tasks.casino.rules import ISSUES
from duologue.tasks.casino.understanding_words import _count_after, _count_before, issue_of_word

MODEL_VERSION = 1
MODEL_PATH = Path(__file__).parent / "models" / f"offer-reader-v{MODEL_VERSION}.npz"
CLASSES = ("open", "0", "1", "2", "3")
"""What the model predicts for one issue: left open, or the speaker's share."""

_ME_WORDS = frozenset({"i", "me", "my", "we", "us", "our", "mine"})
_YOU_WORDS = frozenset({"you", "your", "u", "yours"})
_ENDS = frozenset({".", "!", "?", ";", "\n"})
_PAST = frozenset({"gave", "given", "was", "were", "had", "offered", "said", "agreed", "already", "earlier", "before", "originally", "previous", "last"})


def _nearest_person(tokens: list[str], positions: range) -> str | None:
    for j in positions:
        if tokens[j] in _ME_WORDS:
            return "me"
        if tokens[j] in _YOU_WORDS:
            return "you"
    return None


def issue_features(tokens: list[str], share: dict[str, int] | None, issue: str) -> list[str]:
    """The (binary) features of one issue of one message: see the module docstring. `share` is the
    rule reader's reading in the set's form (settled issues only), or None when it found no split."""
    ruled = "none" if share is None else str(share.get(issue, "open"))
    settled = 0 if share is None else len(share)
    out = {"bias", f"r={ruled}", f"r={ruled}|rn={settled}"}
    if share is not None:
        out.update(f"o={share.get(other, 'open')}" for other in ISSUES if other != issue)
        out.add(f"sum={sum(share.values())}")
    mentions = [k for k, t in enumerate(tokens) if issue_of_word(t) == issue]
    out.add(f"r={ruled}|nm={min(len(mentions), 2)}")
    counted = 0
    for k in mentions:
        start = k
        while start > 0 and tokens[start - 1] not in _ENDS:
            start -= 1
        end = k
        while end < len(tokens) and tokens[end] not in _ENDS:
            end += 1
        before, after = _count_before(tokens, k, start), _count_after(tokens, k)
        counted += before is not None or after is not None
        out.update((f"cnt={before}", f"cnta={after}", f"cnt={before}|r={ruled}"))
        out.update("L:" + tokens[k - d] for d in range(1, 6) if k - d >= start)
        if k >= 1:
            out.add("L1:" + tokens[k - 1])
        if k >= 2:
            out.add("L2:" + " ".join(tokens[k - 2 : k]))
        out.update("R:" + tokens[k + d] for d in range(1, 4) if k + d < len(tokens))
        who = _nearest_person(tokens, range(k - 1, start - 1, -1))
        out.update((f"who={who}", f"who={who}|cnt={before}", f"who={who}|r={ruled}"))
        out.add(f"who2={_nearest_person(tokens, range(k + 1, min(len(tokens), k + 4)))}")
        sentence = tokens[start : end + 1]
        if "if" in sentence:
            out.add("s:if")
        if end < len(tokens) and tokens[end] == "?":
            out.add("s:q")
        if any(w in _PAST for w in sentence):
            out.add("s:past")
        if "or" in sentence:
            out.add("s:or")
        if "not" in tokens[max(start, k - 4) : k]:
            out.add("neg4")
    out.add(f"nmc={min(counted, 2)}|r={ruled}")
    return sorted(out)


@dataclass(frozen=True)
class Thresholds:
    """How sure the model must be to change the rule reader's reading (see `revise`)."""

    keep: float = 0.9
    """Replace a share the rules settled only when the model gives another value at least this."""
    fill: float = 0.7
    """Fill an issue the rules left open when the model gives a share at least this."""
    new: float = 1.01
    """Take the model's split when the rules found none and the product of its per-issue certainties is at least this."""


@dataclass(frozen=True)
class OfferModel:
    vocabulary: dict[str, int]
    weights: np.ndarray  # (features, classes)
    bias: np.ndarray  # (classes,)
    thresholds: Thresholds

    def probabilities(self, tokens: list[str], share: dict[str, int] | None) -> dict[str, np.ndarray]:
        """Per issue, the probability of each of `CLASSES`."""
        out = {}
        for issue in ISSUES:
            rows = [self.vocabulary[f] for f in issue_features(tokens, share, issue) if f in self.vocabulary]
            logits = self.bias + self.weights[rows].sum(axis=0)
            logits = np.exp(logits - logits.max())
            out[issue] = logits / logits.sum()
        return out

    def save(self, path: Path) -> None:
        """Write the model as a compressed `.npz` readable without pickle."""
        names = sorted(self.vocabulary, key=self.vocabulary.__getitem__)
        header = {"version": MODEL_VERSION, "classes": list(CLASSES), "features": names, "thresholds": self.thresholds.__dict__}
        np.savez_compressed(
            path,
            header=np.frombuffer(json.dumps(header, sort_keys=True).encode("utf-8"), dtype=np.uint8),
            weights=self.weights.astype(np.float32),
            bias=self.bias.astype(np.float32),
        )

    @classmethod
    def load(cls, path: Path = MODEL_PATH) -> "OfferModel":
        with np.load(path, allow_pickle=False) as data:
            header = json.loads(data["header"].tobytes().decode("utf-8"))
            weights, bias = data["weights"].astype(np.float64), data["bias"].astype(np.float64)
        if tuple(header["classes"]) != CLASSES:
            raise ValueError(f"{path}: classes {header['classes']} are not {list(CLASSES)}")
        vocabulary = {name: k for k, name in enumerate(header["features"])}
        return cls(vocabulary=vocabulary, weights=weights, bias=bias, thresholds=Thresholds(**header["thresholds"]))


@lru_cache(maxsize=1)
def default_model() -> OfferModel:
    return OfferModel.load()


def decide(share: dict[str, int] | None, probabilities: dict[str, np.ndarray], thresholds: Thresholds) -> dict[str, int] | None:
    """The revised reading (settled issues only, None for no split) from the rule reader's and the
    model's per-issue probabilities: see `Thresholds`."""
    best = {issue: int(np.argmax(p)) for issue, p in probabilities.items()}
    if share is None:
        certainty = float(np.prod([probabilities[issue][best[issue]] for issue in ISSUES]))
        own = {issue: int(CLASSES[best[issue]]) for issue in ISSUES if best[issue] != 0}
        return own if own and certainty >= thresholds.new else None
    out: dict[str, int] = {}
    for issue in ISSUES:
        p, b = probabilities[issue], best[issue]
        if issue in share:
            value = CLASSES[b] if CLASSES[b] != str(share[issue]) and p[b] >= thresholds.keep else str(share[issue])
        else:
            value = CLASSES[b] if b != 0 and p[b] >= thresholds.fill else "open"
        if value != "open":
            out[issue] = int(value)
    return out or None


def revise(tokens: list[str], proposal: dict[str, int | None] | None, model: OfferModel | None = None) -> dict[str, int | None] | None:
    """The rule reader's proposal (every issue a key, None where open) after the model's second look."""
    model = model or default_model()
    share = None if proposal is None else {i: int(n) for i, n in proposal.items() if n is not None} or None
    revised = decide(share, model.probabilities(tokens, share), model.thresholds)
    return None if revised is None else {issue: revised.get(issue) for issue in ISSUES}

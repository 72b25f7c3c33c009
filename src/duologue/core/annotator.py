"""The `Annotator` interface: components that label dialogues (dialogue acts, entities, strategies).

An annotator adds `Annotation`s to a dialogue of any source (a corpus record, a self-play episode,
a dialogue collected on the platform) and, where the dialogue already carries gold labels in its
layer (a corpus's own annotations), measures itself against them.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections import Counter
from pathlib import Path
from typing import Callable, ClassVar, Iterable, Sequence

from pydantic import Field

from duologue.core.schema import Annotation, Dialogue, Model


class LabelScore(Model):
    precision: float
    recall: float
    f1: float
    support: int
    """Gold occurrences of the label."""


class Evaluation(Model):
    """How an annotator's labels compare with gold labels: headline figures, per label, confusions."""

    annotator: str
    items: int
    """Units compared (utterances, mentions)."""
    metrics: dict[str, float] = Field(default_factory=dict)
    per_label: dict[str, LabelScore] = Field(default_factory=dict)
    confusion: dict[str, dict[str, int]] | None = None
    """Gold label -> predicted label -> count (single-label layers)."""
    notes: list[str] = Field(default_factory=list)


class Annotator(ABC):
    """Labels one layer of dialogues of one task family."""

    name: ClassVar[str]
    """Name on the command line (`acts`, `entities`, `strategies`)."""
    task: ClassVar[str]
    """The `Dialogue.task` it applies to."""
    layer: ClassVar[str]
    """The annotation layer it writes (`intent`, `entity`, `strategy`)."""
    source: ClassVar[str]
    """Written into each `Annotation.source`, with a version (`duologue.acts-v1`)."""

    training_data: ClassVar[str | None] = None
    """For an annotator with a trained model: its training corpus, relative to the data root."""

    model_file: ClassVar[str | None] = None
    """For an annotator with a trained model: the file name training writes by default (in the
    current folder; the model shipped inside the package is never overwritten)."""

    @classmethod
    def train(cls, data: Path, out: Path | None, *, seed: int, progress: Callable[[str, int, int], None] | None = None) -> str:
        """Train the annotator's model on `data`, write it to `out` (required: the shipped model is
        not written over), and say in one line what was trained. Annotators without a model cannot be trained."""
        raise NotImplementedError(f"the {cls.name} annotator has no model to train")

    @abstractmethod
    def annotate(self, dialogue: Dialogue) -> list[Annotation]:
        """New annotations for `dialogue` (its existing annotations are left alone)."""

    def evaluate(self, dialogues: Sequence[Dialogue]) -> Evaluation | None:
        """Scores against the gold labels the dialogues carry, or None when they carry none."""
        return None

    def annotate_all(self, dialogues: Iterable[Dialogue]) -> Iterable[Dialogue]:
        """Each dialogue with this annotator's labels added (earlier labels from the same source replaced)."""
        for dialogue in dialogues:
            kept = [a for a in dialogue.annotations if a.source != self.source]
            yield dialogue.model_copy(update={"annotations": kept + self.annotate(dialogue)})


def label_scores(pairs: Iterable[tuple[frozenset[str], frozenset[str]]]) -> tuple[dict[str, LabelScore], dict[str, float]]:
    """Per-label precision/recall/F1 for multi-label (gold, predicted) pairs, with micro and macro F1."""
    tp: Counter[str] = Counter()
    fp: Counter[str] = Counter()
    fn: Counter[str] = Counter()
    for gold, predicted in pairs:
        for label in gold & predicted:
            tp[label] += 1
        for label in predicted - gold:
            fp[label] += 1
        for label in gold - predicted:
            fn[label] += 1
    labels = sorted(set(tp) | set(fp) | set(fn))
    scores = {label: _score(tp[label], fp[label], fn[label]) for label in labels}
    micro = _score(sum(tp.values()), sum(fp.values()), sum(fn.values()))
    supported = [scores[label].f1 for label in labels if scores[label].support]
    summary = {"micro_f1": micro.f1, "macro_f1": sum(supported) / len(supported) if supported else 0.0}
    return scores, summary


def _score(tp: int, fp: int, fn: int) -> LabelScore:
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return LabelScore(precision=precision, recall=recall, f1=f1, support=tp + fn)


def confusion_matrix(pairs: Iterable[tuple[str, str]]) -> dict[str, dict[str, int]]:
    """Gold -> predicted -> count for single-label pairs."""
    matrix: dict[str, Counter[str]] = {}
    for gold, predicted in pairs:
        matrix.setdefault(gold, Counter())[predicted] += 1
    return {gold: dict(sorted(row.items())) for gold, row in sorted(matrix.items())}

"""Training and cross-validating the CaSiNo strategy tagger (`strategies.py`) on the corpus's labels.

The recipe (`fit`):

1. Take term counts of every annotated utterance once (words, characters, the previous message).
2. Per-label thresholds come from held-out predictions only: the training dialogues are split into
   `inner_folds` groups by dialogue; for each, a model fitted on the others predicts it; each
   label's threshold is the one that maximises that label's F1 over these out-of-fold probabilities.
3. The final vocabulary, idf and one L2-regularised logistic regression per label are fitted on all
   training utterances.

`cross_validate` measures the recipe honestly: folds grouped by dialogue (utterances of one
dialogue never sit on both sides), and each outer fold runs the whole recipe, threshold tuning
included, on its training part alone. It reports per-label and macro F1 per fold with a 95%
t-interval across folds, and a 95% bootstrap interval (dialogues resampled) of the pooled
out-of-fold macro F1.

Training needs scikit-learn and scipy (the `ml` extra); tagging with the result needs only numpy.
Everything is seeded: `train(seed=0)` on the corpus's training split reproduces the shipped model.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from duologue.core.annotator import LabelScore, label_scores
from duologue.tasks.casino.rules import STRATEGY_LABELS
from duologue.tasks.casino.strategies import (
    BLOCKS,
    FeatureSettings,
    FeatureSpace,
    StrategyModel,
    decide,
    feature_counts,
    gold_strategies,
    message_contexts,
)

DEFAULT_DATA = Path("../shared/data/casino/split/casino_train.json")
"""The corpus's training split, beside a checkout (as the tests and benchmarks find it)."""
DEFAULT_SEED = 0

Progress = Callable[[str, int, int], None]
"""progress(stage, done, total): called as training advances (the CLI draws a bar with it)."""


@dataclass(frozen=True)
class Example:
    """One annotated utterance with the message before it."""

    dialogue: str
    text: str
    previous: str | None
    labels: frozenset[str]


@dataclass(frozen=True)
class TrainingSettings:
    """Everything that decides the fitted model besides the data and the seed."""

    features: FeatureSettings = FeatureSettings()
    C: float = 2.0
    """Inverse L2 strength of each logistic regression."""
    class_weight: str | None = "balanced"
    """Rare labels (uv-part: 3% of utterances) get their errors weighted up."""
    inner_folds: int = 5
    threshold_grid: tuple[float, ...] = tuple(round(0.05 + 0.01 * k, 2) for k in range(91))

    def to_json(self) -> dict[str, Any]:
        return {"features": self.features.to_json(), "C": self.C, "class_weight": self.class_weight, "inner_folds": self.inner_folds}


def load_examples(path: Path) -> list[Example]:
    """The annotated utterances of a CaSiNo file (or folder), in dialogue order."""
    from duologue.data.io import read_corpus
    from duologue.tasks import corpus_format

    dialogues = read_corpus(corpus_format("casino"), path).dialogues
    return examples_of(dialogues)


def examples_of(dialogues: Sequence[Any]) -> list[Example]:
    """Examples from dialogues that carry gold strategy labels (others are skipped)."""
    out: list[Example] = []
    for dialogue in dialogues:
        gold = gold_strategies(dialogue)
        for index, text, previous in message_contexts(dialogue):
            if index in gold:
                out.append(Example(dialogue=dialogue.id, text=text, previous=previous, labels=gold[index]))
    return out


# ---------------------------------------------------------------------------- fitting


Rows = Sequence[int] | np.ndarray
"""Example indices: a list, or the index arrays the folds are."""


class _Counts:
    """Term counts per example, taken once and shared by every fold."""

    def __init__(self, examples: Sequence[Example], settings: FeatureSettings) -> None:
        self.settings = settings
        self.rows = [feature_counts(e.text, e.previous, settings) for e in examples]

    def space(self, rows: Rows) -> FeatureSpace:
        """Vocabulary (features in at least `min_df` of these utterances) and smoothed idf."""
        df: dict[str, int] = {}
        for r in rows:
            for block in BLOCKS:
                for gram in self.rows[r][block]:
                    key = f"{block}:{gram}"
                    df[key] = df.get(key, 0) + 1
        kept = sorted(k for k, n in df.items() if n >= self.settings.min_df)
        n = len(rows)
        idf = np.array([math.log((1 + n) / (1 + df[k])) + 1.0 for k in kept], dtype=np.float64)
        # Round-trip through float32 so the fitted weights match a model read back from its file.
        return FeatureSpace(settings=self.settings, vocabulary={k: i for i, k in enumerate(kept)}, idf=idf.astype(np.float32).astype(np.float64))

    def matrix(self, space: FeatureSpace, rows: Rows):
        from scipy.sparse import csr_matrix

        indptr, indices, data = [0], [], []
        for r in rows:
            columns, values = space.row_from_counts(self.rows[r])
            indices.append(columns)
            data.append(values)
            indptr.append(indptr[-1] + len(columns))
        return csr_matrix(
            (np.concatenate(data) if data else np.zeros(0), np.concatenate(indices) if indices else np.zeros(0, dtype=np.int64), np.asarray(indptr)),
            shape=(len(rows), space.size),
        )


def targets(examples: Sequence[Example], labels: Sequence[str] = STRATEGY_LABELS) -> np.ndarray:
    """(examples, labels) 0/1 matrix of gold labels."""
    return np.array([[label in e.labels for label in labels] for e in examples], dtype=np.int8)


def dialogue_folds(examples: Sequence[Example], folds: int, seed: int) -> list[np.ndarray]:
    """Example indices of each fold; dialogues are shuffled with `seed` and dealt out in turn."""
    dialogues = sorted({e.dialogue for e in examples}, key=_natural)
    order = np.random.default_rng(seed).permutation(len(dialogues))
    fold_of = {dialogues[k]: position % folds for position, k in enumerate(order)}
    return [np.array([i for i, e in enumerate(examples) if fold_of[e.dialogue] == f], dtype=np.int64) for f in range(folds)]


def _natural(name: str) -> tuple[int, str]:
    return (int(name), "") if name.isdigit() else (1 << 62, name)


def _fit_linear(X, Y: np.ndarray, settings: TrainingSettings) -> tuple[np.ndarray, np.ndarray]:
    """(weights (features, labels), bias) of one logistic regression per label."""
    from sklearn.linear_model import LogisticRegression

    weights = np.zeros((X.shape[1], Y.shape[1]), dtype=np.float64)
    bias = np.zeros(Y.shape[1], dtype=np.float64)
    for k in range(Y.shape[1]):
        y = Y[:, k]
        if y.min() == y.max():  # a label absent (or everywhere) in a small slice: a constant model
            bias[k] = 10.0 if y.max() else -10.0
            continue
        classifier = LogisticRegression(C=settings.C, class_weight=settings.class_weight, solver="lbfgs", max_iter=1000, tol=1e-4)
        classifier.fit(X, y)
        weights[:, k] = classifier.coef_[0]
        bias[k] = classifier.intercept_[0]
    # float32 is what the model file keeps; fit-time and file-time predictions then agree exactly.
    return weights.astype(np.float32).astype(np.float64), bias.astype(np.float32).astype(np.float64)


def _probabilities(X, weights: np.ndarray, bias: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-(X @ weights + bias)))


def tune_thresholds(probabilities: np.ndarray, Y: np.ndarray, grid: Sequence[float]) -> np.ndarray:
    """Per label, the grid threshold with the best F1 on these (held-out) probabilities; ties: the lowest."""
    thresholds = np.full(Y.shape[1], 0.5)
    for k in range(Y.shape[1]):
        gold = Y[:, k].astype(bool)
        best = -1.0
        for t in grid:
            predicted = probabilities[:, k] >= t
            tp = int(np.sum(predicted & gold))
            fp = int(np.sum(predicted & ~gold))
            fn = int(np.sum(~predicted & gold))
            f1 = 2 * tp / (2 * tp + fp + fn) if tp else 0.0
            if f1 > best + 1e-12:
                best, thresholds[k] = f1, t
    return thresholds.astype(np.float32).astype(np.float64)


def fit(
    examples: Sequence[Example],
    settings: TrainingSettings = TrainingSettings(),
    seed: int = DEFAULT_SEED,
    progress: Progress | None = None,
    counts: _Counts | None = None,
    rows: Rows | None = None,
) -> StrategyModel:
    """Fit the tagger on `examples` (or the `rows` of them): thresholds from inner folds, weights from all."""
    counts = counts or _Counts(examples, settings.features)
    picked = np.arange(len(examples)) if rows is None else np.asarray(rows)
    chosen = [examples[int(r)] for r in picked]
    Y = targets(chosen)
    inner = dialogue_folds(chosen, settings.inner_folds, seed)
    total = len(inner) + 1
    held_out = np.zeros(Y.shape, dtype=np.float64)
    for f, test in enumerate(inner):
        train = np.setdiff1d(np.arange(len(chosen)), test)
        space = counts.space(picked[train])
        weights, bias = _fit_linear(counts.matrix(space, picked[train]), Y[train], settings)
        held_out[test] = _probabilities(counts.matrix(space, picked[test]), weights, bias)
        if progress:
            progress("thresholds", f + 1, total)
    thresholds = tune_thresholds(held_out, Y, settings.threshold_grid)
    space = counts.space(picked)
    weights, bias = _fit_linear(counts.matrix(space, picked), Y, settings)
    if progress:
        progress("final fit", total, total)
    info = {
        "settings": settings.to_json(),
        "seed": seed,
        "utterances": int(len(picked)),
        "dialogues": len({e.dialogue for e in chosen}),
    }
    return StrategyModel(space=space, labels=tuple(STRATEGY_LABELS), weights=weights, bias=bias, thresholds=thresholds, info=info)


# ---------------------------------------------------------------------------- measuring


@dataclass
class CrossValidation:
    """Grouped k-fold results of the training recipe."""

    folds: int
    seed: int
    per_fold: list[dict[str, float]]
    """Per fold: label -> F1, plus `macro_f1` and `micro_f1`."""
    pooled: dict[str, LabelScore]
    pooled_metrics: dict[str, float]
    bootstrap_macro: tuple[float, float]
    """95% interval of the pooled macro F1, resampling dialogues."""
    predictions: list[tuple[frozenset[str], frozenset[str]]] = field(default_factory=list)

    def interval(self, key: str) -> tuple[float, float, float]:
        """(mean, low, high): a 95% t-interval of `key` across folds."""
        from scipy.stats import t

        values = np.array([fold.get(key, 0.0) for fold in self.per_fold])
        mean = float(values.mean())
        if len(values) < 2:
            return mean, mean, mean
        half = float(t.ppf(0.975, len(values) - 1) * values.std(ddof=1) / math.sqrt(len(values)))
        return mean, mean - half, mean + half


def cross_validate(
    examples: Sequence[Example],
    settings: TrainingSettings = TrainingSettings(),
    folds: int = 5,
    seed: int = DEFAULT_SEED,
    bootstrap: int = 1000,
    progress: Progress | None = None,
) -> CrossValidation:
    """Grouped (by dialogue) k-fold cross-validation of `fit`, thresholds tuned inside each training part."""
    counts = _Counts(examples, settings.features)
    outer = dialogue_folds(examples, folds, seed)
    predicted: list[frozenset[str] | None] = [None] * len(examples)
    per_fold: list[dict[str, float]] = []
    for f, test in enumerate(outer):
        train = np.setdiff1d(np.arange(len(examples)), test)
        model = fit(examples, settings, seed, counts=counts, rows=train)
        probabilities = _probabilities(counts.matrix(model.space, test), model.weights, model.bias)
        labels = decide(probabilities, model.thresholds, model.labels)
        pairs = []
        for r, chosen in zip(test, labels, strict=True):  # one decision per test row
            predicted[r] = frozenset(chosen)
            pairs.append((examples[r].labels, frozenset(chosen)))
        scores, summary = label_scores(pairs)
        per_fold.append({**{label: scores[label].f1 for label in scores}, **summary})
        if progress:
            progress("cross-validation", f + 1, folds)
    pairs = [(e.labels, p) for e, p in zip(examples, predicted, strict=True) if p is not None]
    pooled, pooled_metrics = label_scores(pairs)
    by_dialogue: dict[str, list[int]] = {}
    for i, e in enumerate(examples):
        by_dialogue.setdefault(e.dialogue, []).append(i)
    groups = list(by_dialogue.values())
    rng = np.random.default_rng(seed)
    macros = []
    for _ in range(bootstrap):
        sample = rng.integers(0, len(groups), len(groups))
        resampled = [pairs[i] for g in sample for i in groups[g]]
        macros.append(label_scores(resampled)[1]["macro_f1"])
    low, high = (float(np.percentile(macros, 2.5)), float(np.percentile(macros, 97.5))) if macros else (math.nan, math.nan)
    ordered = {label: pooled[label] for label in STRATEGY_LABELS if label in pooled}
    return CrossValidation(folds=folds, seed=seed, per_fold=per_fold, pooled=ordered, pooled_metrics=pooled_metrics, bootstrap_macro=(low, high), predictions=pairs)


def train(
    data: Path = DEFAULT_DATA,
    out: Path | None = None,
    seed: int = DEFAULT_SEED,
    settings: TrainingSettings = TrainingSettings(),
    progress: Progress | None = None,
) -> StrategyModel:
    """Train on a CaSiNo file's annotated dialogues and (optionally) write the model file."""
    examples = load_examples(data)
    if not examples:
        raise ValueError(f"{data}: no utterances with strategy labels")
    model = fit(examples, settings, seed, progress=progress)
    model.info["trained_on"] = f"{Path(data).name} ({model.info['dialogues']} annotated dialogues, {model.info['utterances']} utterances)"
    if out is not None:
        model.save(out)
    return model


def with_features(settings: TrainingSettings, **changes: Any) -> TrainingSettings:
    """`settings` with some feature settings changed (for experiments and benchmarks)."""
    return replace(settings, features=replace(settings.features, **changes))

"""Tagging CaSiNo utterances with negotiation strategies: features, the shipped model, the annotator.

CaSiNo labels each utterance with one or more of ten strategies (`rules.STRATEGY_LABELS`):
small-talk, self-need, other-need, no-need, elicit-pref, uv-part, vouch-fair,
promote-coordination, showing-empathy, non-strategic. The tagger is a linear model, one
logistic regression per label over TF-IDF features, because on 4k noisy labelled utterances a
linear model is strong, fast (thousands of utterances per second) and small enough to ship in the
package. Its features:

* word unigrams and bigrams of the utterance (lower case, `?` and `!` kept as words),
* character n-grams (2 to 5) inside word boundaries, which catch typos ("watter") and affixes,
* the words of the previous message (prefixed `p:`): an answer to "what do you need most?" is
  usually a self-need, a reply to a story is often empathy.

Each block is TF-IDF weighted (sublinear tf, smoothed idf) and L2-normalised on its own, as
scikit-learn's `TfidfVectorizer` does, then the blocks are concatenated. A label is predicted when
its probability reaches its own threshold (tuned on held-out folds during training); an utterance
always gets at least one label (every gold utterance has one): the label whose probability is
highest relative to its threshold.

The model file (`models/strategies-v1.npz`) holds the vocabulary, idf, per-label weights, biases
and thresholds, and a JSON header with the feature settings and how the model was trained. It is
read with numpy alone (`allow_pickle=False`), so tagging needs neither scikit-learn nor pickle;
training (`strategy_training.py`, `duologue train strategies`) needs scikit-learn and reproduces the
shipped file from the corpus with the default seed.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable, Sequence

import numpy as np

from duologue.core.schema import Dialogue, Message

MODEL_FORMAT = "duologue.strategies"
MODEL_VERSION = 1
"""Bumped when the file layout or the features change; `load_model` refuses other versions."""
MODELS_DIR = Path(__file__).parent / "models"
DEFAULT_MODEL = MODELS_DIR / f"strategies-v{MODEL_VERSION}.npz"
STRATEGY_LAYER = "strategy"
GOLD_SOURCE = "corpus"


class ModelFileError(ValueError):
    """A strategy model file that is missing, of another format or version, or inconsistent."""


# ---------------------------------------------------------------------------- features


@dataclass(frozen=True)
class FeatureSettings:
    """Which features the model uses; stored in the model file so inference matches training."""

    word_ngrams: tuple[int, int] = (1, 2)
    char_ngrams: tuple[int, int] = (2, 5)
    previous_words: bool = True
    """Add the previous message's words (a separate block)."""
    min_df: int = 2
    """Keep a feature only if it occurs in at least this many training utterances."""
    block_weights: tuple[float, float, float] = (1.0, 1.0, 0.5)
    """Scale of the word, char and previous-message blocks after their own L2 normalisation."""

    def to_json(self) -> dict[str, Any]:
        return {
            "word_ngrams": list(self.word_ngrams),
            "char_ngrams": list(self.char_ngrams),
            "previous_words": self.previous_words,
            "min_df": self.min_df,
            "block_weights": list(self.block_weights),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "FeatureSettings":
        return cls(
            word_ngrams=tuple(data["word_ngrams"]),  # type: ignore[arg-type]
            char_ngrams=tuple(data["char_ngrams"]),  # type: ignore[arg-type]
            previous_words=bool(data["previous_words"]),
            min_df=int(data["min_df"]),
            block_weights=tuple(float(w) for w in data["block_weights"]),  # type: ignore[arg-type]
        )


BLOCKS: tuple[str, ...] = ("w", "c", "p")
"""Feature-name prefixes of the blocks: words, characters, previous message's words."""

_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?|[?!]")


def normalize(text: str) -> str:
    """Lower case with straight apostrophes and single spaces: what every feature is read from."""
    text = text.lower().replace("\u2019", "'").replace("\u2018", "'")
    return " ".join(text.split())


def words(text: str) -> list[str]:
    """Word tokens of a normalised text, with `?` and `!` as words (questions matter here)."""
    return _WORD.findall(text)


def _word_ngrams(tokens: list[str], low: int, high: int) -> Iterable[str]:
    for n in range(low, high + 1):
        for i in range(len(tokens) - n + 1):
            yield " ".join(tokens[i : i + n])


def _char_ngrams(text: str, low: int, high: int) -> Iterable[str]:
    """Character n-grams inside space-padded words (scikit-learn's `char_wb` analyser does the same)."""
    for word in text.split(" "):
        padded = f" {word} "
        for n in range(low, high + 1):
            if len(padded) < n:
                break
            for i in range(len(padded) - n + 1):
                yield padded[i : i + n]


def feature_counts(text: str, previous: str | None, settings: FeatureSettings) -> dict[str, dict[str, int]]:
    """Raw term counts of one utterance per block (`w`, `c`, `p`)."""
    own = normalize(text)
    blocks: dict[str, dict[str, int]] = {block: {} for block in BLOCKS}
    for gram in _word_ngrams(words(own), *settings.word_ngrams):
        blocks["w"][gram] = blocks["w"].get(gram, 0) + 1
    for gram in _char_ngrams(own, *settings.char_ngrams):
        blocks["c"][gram] = blocks["c"].get(gram, 0) + 1
    if settings.previous_words:
        before = normalize(previous or "")
        grams = list(_word_ngrams(words(before), 1, 1)) if before else ["<start>"]
        for gram in grams:
            blocks["p"][gram] = blocks["p"].get(gram, 0) + 1
    return blocks


@dataclass
class FeatureSpace:
    """Vocabulary and idf of every block: turns utterances into sparse TF-IDF rows."""

    settings: FeatureSettings
    vocabulary: dict[str, int]
    """`block:feature` -> column."""
    idf: np.ndarray

    @property
    def size(self) -> int:
        return len(self.vocabulary)

    def row(self, text: str, previous: str | None) -> tuple[np.ndarray, np.ndarray]:
        """(columns, values) of one utterance: sublinear tf x idf, L2-normalised per block, weighted."""
        return self.row_from_counts(feature_counts(text, previous, self.settings))

    def row_from_counts(self, blocks: dict[str, dict[str, int]]) -> tuple[np.ndarray, np.ndarray]:
        """`row` from counts already taken (training takes them once and reuses them across folds)."""
        columns: list[int] = []
        values: list[float] = []
        for block, weight in zip(BLOCKS, self.settings.block_weights, strict=True):
            start = len(columns)
            for gram, count in blocks[block].items():
                column = self.vocabulary.get(f"{block}:{gram}")
                if column is not None:
                    columns.append(column)
                    values.append((1.0 + math.log(count)) * float(self.idf[column]))
            norm = math.sqrt(sum(v * v for v in values[start:]))
            if norm > 0:
                for k in range(start, len(values)):
                    values[k] = values[k] / norm * weight
        return np.asarray(columns, dtype=np.int64), np.asarray(values, dtype=np.float64)


# ---------------------------------------------------------------------------- the model


@dataclass
class StrategyModel:
    """A trained tagger: features, per-label weights and biases, per-label thresholds."""

    space: FeatureSpace
    labels: tuple[str, ...]
    weights: np.ndarray
    """(features, labels)."""
    bias: np.ndarray
    thresholds: np.ndarray
    info: dict[str, Any] = field(default_factory=dict)
    """How it was trained (data, seed, regularisation, cross-validated scores)."""

    def probabilities(self, texts: Sequence[str], previous: Sequence[str | None] | None = None) -> np.ndarray:
        """(utterances, labels) probabilities of each label."""
        previous = previous if previous is not None else [None] * len(texts)
        logits = np.empty((len(texts), len(self.labels)), dtype=np.float64)
        for i, (text, before) in enumerate(zip(texts, previous, strict=True)):  # one previous utterance per text
            columns, values = self.space.row(text, before)
            logits[i] = values @ self.weights[columns] + self.bias if len(columns) else self.bias
        return 1.0 / (1.0 + np.exp(-logits))

    def decide(self, probabilities: np.ndarray) -> list[list[str]]:
        """Labels per utterance: those at or above their threshold, else the one closest to it."""
        return decide(probabilities, self.thresholds, self.labels)

    def predict(self, texts: Sequence[str], previous: Sequence[str | None] | None = None) -> list[list[str]]:
        return self.decide(self.probabilities(texts, previous))

    def save(self, path: Path) -> None:
        """Write the model as a compressed `.npz` readable without pickle."""
        vocabulary = sorted(self.space.vocabulary, key=self.space.vocabulary.__getitem__)
        header = {
            "format": MODEL_FORMAT,
            "version": MODEL_VERSION,
            "labels": list(self.labels),
            "features": self.space.settings.to_json(),
            "info": self.info,
        }
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("wb") as handle:
            np.savez_compressed(
                handle,
                header=np.frombuffer(json.dumps(header, sort_keys=True).encode("utf-8"), dtype=np.uint8),
                vocabulary=np.frombuffer("\n".join(vocabulary).encode("utf-8"), dtype=np.uint8),
                idf=self.space.idf.astype(np.float32),
                weights=self.weights.astype(np.float32),
                bias=self.bias.astype(np.float32),
                thresholds=self.thresholds.astype(np.float32),
            )


def decide(probabilities: np.ndarray, thresholds: np.ndarray, labels: Sequence[str]) -> list[list[str]]:
    """Labels at or above their threshold; when none is, the single label with the highest p / threshold."""
    out: list[list[str]] = []
    above = probabilities >= thresholds
    for row, hits in zip(probabilities, above, strict=True):
        chosen = [labels[int(k)] for k in np.flatnonzero(hits)]
        if not chosen:
            chosen = [labels[int(np.argmax(row / thresholds))]]
        out.append(chosen)
    return out


def load_model(path: Path | str | None = None) -> StrategyModel:
    """Read a model file (default: the shipped one), checking its format, version and shapes."""
    path = Path(path) if path is not None else DEFAULT_MODEL
    if not path.exists():
        raise ModelFileError(f"{path}: no such model file (train one with `duologue train strategies`)")
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {key: data[key] for key in data.files}
    except (OSError, ValueError) as error:
        raise ModelFileError(f"{path}: not a strategy model file ({error})") from None
    missing = {"header", "vocabulary", "idf", "weights", "bias", "thresholds"} - set(arrays)
    if missing:
        raise ModelFileError(f"{path}: missing {', '.join(sorted(missing))}")
    header = json.loads(arrays["header"].tobytes().decode("utf-8"))
    if header.get("format") != MODEL_FORMAT or header.get("version") != MODEL_VERSION:
        raise ModelFileError(
            f"{path}: a {header.get('format')} model of version {header.get('version')}; this duologue reads {MODEL_FORMAT} version {MODEL_VERSION}"
        )
    vocabulary = arrays["vocabulary"].tobytes().decode("utf-8").split("\n")
    labels = tuple(header["labels"])
    weights = arrays["weights"].astype(np.float64)
    if weights.shape != (len(vocabulary), len(labels)) or arrays["idf"].shape != (len(vocabulary),):
        raise ModelFileError(f"{path}: weights {weights.shape} do not fit {len(vocabulary)} features x {len(labels)} labels")
    space = FeatureSpace(
        settings=FeatureSettings.from_json(header["features"]),
        vocabulary={feature: k for k, feature in enumerate(vocabulary)},
        idf=arrays["idf"].astype(np.float64),
    )
    return StrategyModel(
        space=space,
        labels=labels,
        weights=weights,
        bias=arrays["bias"].astype(np.float64),
        thresholds=arrays["thresholds"].astype(np.float64),
        info=header.get("info", {}),
    )


@lru_cache(maxsize=4)
def shipped_model(path: str | None = None) -> StrategyModel:
    """The model at `path` (default: the shipped one), read once per process."""
    return load_model(path)


# ---------------------------------------------------------------------------- the annotator


def message_contexts(dialogue: Dialogue) -> list[tuple[int, str, str | None]]:
    """(event index, text, previous message's text) for every message of a dialogue."""
    out: list[tuple[int, str, str | None]] = []
    previous: str | None = None
    for index, event in enumerate(dialogue.events):
        if isinstance(event, Message):
            out.append((index, event.text, previous))
            previous = event.text
    return out


def gold_strategies(dialogue: Dialogue) -> dict[int, frozenset[str]]:
    """Event index -> the corpus's strategy labels, for the messages the corpus annotated."""
    return {
        a.event: frozenset(a.labels)
        for a in dialogue.annotations
        if a.layer == STRATEGY_LAYER and a.source == GOLD_SOURCE and a.event is not None
    }

"""Training and cross-validating the learned second look at CaSiNo offers (`understanding_learned`).

Run: `python -m duologue.tasks.casino.understanding_training [--cv] [--grid] [--write]`

It learns from the dev half of the labelled set only (`understanding_eval.load_set`), from each
message's `fresh` reading: how the rule reader read its offer before it was ever tuned on it. The
rule reader read every dev message fresh once, in the round that added it, so these readings show
its mistakes on unseen text; its readings now of the dev half would not (it was tuned on them).

`--cv` estimates how the rule reader plus the model read unseen text: the dev messages are split
by labelling round into folds (`GroupKFold`), each fold's messages are revised by a model trained
on the other folds, and exact offer precision and recall are printed beside the fresh rule
reading's, over all rounds and over rounds 13 on and 22 on (whose fresh readings come from readers closest
to today's). `--grid` prints the same for a small grid of thresholds (how the shipped ones were
chosen). `--write` trains on all of them and writes `models/offer-reader-v1.npz`. Needs
scikit-learn (the `ml` extra); reading with the written model does not.
"""

from __future__ import annotations

import argparse
import itertools
import os
from pathlib import Path

import numpy as np

from duologue.tasks.casino.rules import ISSUES
from duologue.tasks.casino.understanding_eval import LabelledItem, load_set
from duologue.tasks.casino.understanding_learned import CLASSES, MODEL_PATH, OfferModel, Thresholds, decide, issue_features
from duologue.tasks.casino.understanding_words import _tokens

C = 1.0
"""Inverse regularisation strength of the logistic regression."""
FOLDS = 6
LATE_ROUNDS = (13, 22)
"""Rounds whose fresh readings come from readers close to today's: from round 13 on, and from round 22
on (the rules as they stood when the learned second look was added, or later)."""


def training_items(items: list[LabelledItem]) -> list[LabelledItem]:
    """The messages the model may learn from: dev offers with a fresh reading."""
    return [i for i in items if i.half == "dev" and i.has_fresh and "offer" in i.labels]


def _target(offer: dict[str, int] | None, issue: str) -> int:
    return 0 if offer is None or issue not in offer else CLASSES.index(str(offer[issue]))


def fit(items: list[LabelledItem], thresholds: Thresholds | None = None, c: float = C) -> OfferModel:
    """A model trained on the fresh readings of `items` (one example per issue of each message)."""
    from sklearn.feature_extraction import DictVectorizer
    from sklearn.linear_model import LogisticRegression

    rows, targets = [], []
    for item in items:
        tokens = _tokens(item.text)
        for issue in ISSUES:
            rows.append(dict.fromkeys(issue_features(tokens, item.fresh, issue), 1))
            targets.append(_target(item.labels["offer"], issue))
    vectorizer = DictVectorizer()
    matrix = vectorizer.fit_transform(rows)
    classifier = LogisticRegression(C=c, max_iter=5000)
    classifier.fit(matrix, np.array(targets))
    if len(classifier.classes_) != len(CLASSES):
        raise ValueError(f"the training messages show only the classes {classifier.classes_}")
    weights, bias = classifier.coef_.T.copy(), classifier.intercept_.copy()
    vocabulary = {name: int(k) for name, k in vectorizer.vocabulary_.items()}
    return OfferModel(vocabulary=vocabulary, weights=weights, bias=bias, thresholds=thresholds or Thresholds())


def out_of_fold(items: list[LabelledItem], folds: int = FOLDS, c: float = C) -> dict[str, dict[str, np.ndarray]]:
    """Per message, the per-issue probabilities of a model trained on the other rounds' folds."""
    from sklearn.model_selection import GroupKFold

    items = training_items(items)
    rounds = np.array([i.round for i in items])
    out = {}
    for train, held in GroupKFold(n_splits=folds).split(np.zeros(len(items)), groups=rounds):
        model = fit([items[k] for k in train], c=c)
        for k in held:
            out[items[k].ref] = model.probabilities(_tokens(items[k].text), items[k].fresh)
    return out


def offer_scores(pairs: list[tuple[dict[str, int] | None, dict[str, int] | None]]) -> tuple[float, float, int, int]:
    """Exact offer precision and recall over (reading, label) pairs, and their denominators."""
    read = [got == want for got, want in pairs if got is not None]
    wanted = [got == want for got, want in pairs if want is not None]
    return sum(read) / max(len(read), 1), sum(wanted) / max(len(wanted), 1), len(read), len(wanted)


def cross_validated(items: list[LabelledItem], probabilities: dict[str, dict[str, np.ndarray]], thresholds: Thresholds) -> dict[str, tuple[float, float, int, int]]:
    """Fresh rule reading and revised reading, over all rounds and over the late ones."""
    out = {}
    for name, since in (("all rounds", 0), *((f"rounds {r}+", r) for r in LATE_ROUNDS)):
        chosen = [i for i in training_items(items) if i.round >= since]
        out[f"rules, {name}"] = offer_scores([(i.fresh, i.labels["offer"]) for i in chosen])
        out[f"rules + model, {name}"] = offer_scores([(decide(i.fresh, probabilities[i.ref], thresholds), i.labels["offer"]) for i in chosen])
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cv", action="store_true", help="Cross-validate over labelling rounds.")
    parser.add_argument("--grid", action="store_true", help="Cross-validate a grid of thresholds.")
    parser.add_argument("--write", action="store_true", help=f"Train on every fresh dev reading and write {MODEL_PATH.name}.")
    args = parser.parse_args()
    root = Path(os.environ.get("DUOLOGUE_DATA", Path.cwd().parent / "shared" / "data"))
    items = load_set(root / "casino" / "split")
    print(f"{len(training_items(items))} dev messages with a fresh reading, {len({i.round for i in training_items(items)})} rounds")
    if args.cv or args.grid:
        probabilities = out_of_fold(items)
        grid = itertools.product((0.8, 0.9, 1.01), (0.4, 0.5, 0.6), (0.2, 0.3, 0.5, 1.01)) if args.grid else [(None,)]
        for values in grid:
            thresholds = Thresholds() if values[0] is None else Thresholds(*values)
            print(thresholds)
            for name, (precision, recall, n_read, n_wanted) in cross_validated(items, probabilities, thresholds).items():
                print(f"  {name:26s} precision {precision:.3f} (n={n_read})  recall {recall:.3f} (n={n_wanted})")
    if args.write:
        fit(training_items(items)).save(MODEL_PATH)
        print(f"wrote {MODEL_PATH} ({MODEL_PATH.stat().st_size:,} bytes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

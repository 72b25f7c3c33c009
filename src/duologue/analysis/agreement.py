"""Agreement between raters (ratings of dialogues) and between annotators (labels on events).

Why: a rating is only worth analysing if raters agree on it. DUO's three third-party raters agree
weakly (interval Krippendorff's alpha around 0.1-0.2), which is part of why third-party
judgements track the user's own so poorly; CaSiNo's strategy labels were least reliable for
promote-coordination and showing-empathy.

Measures:

* Krippendorff's alpha (`krippendorff_alpha`), at the nominal, ordinal, interval or ratio level,
  with missing values: the point estimate comes from the `krippendorff` package.
* Fleiss' kappa (`fleiss_kappa`): nominal categories, the same number of raters on every item.

Items and raters:

* ratings (`rating_matrix`): an item is one (dialogue, rated target); raters are the `rater_id`s
  of one rater kind. Labelled scales become 1..n (`Scale.numeric`). A rater who answered the
  same item twice counts with the mean of the answers.
* annotations (`annotation_agreement`): an item is one (dialogue, event) of a layer (or the
  dialogue itself for annotations with `event=None`); the annotator is `Annotation.source`.
  Single-label layers are compared label against label (nominal); multi-label layers one label at
  a time as present / absent (`annotation_agreement_by_label`).

Every `Agreement` carries a 95% percentile-bootstrap interval over ITEMS (items resampled with
replacement, seeded). The resampling is vectorised: each item's contribution (its coincidence
matrix for alpha, its agreement and category counts for kappa) is computed once and each resample
is a weighted sum of them. Counts reported: `items` = items with at least two values (the only
ones that carry information on agreement), `values` = the values on those items, `raters` = the
raters who gave any of them.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from typing import Iterable, Literal

import krippendorff
import numpy as np
from pydantic import Field

from duologue.core.schema import Dialogue, Model
from duologue.analysis.correlation import percentile_interval
from duologue.analysis.frames import dialogue_groups, rating_number

log = logging.getLogger(__name__)

Level = Literal["nominal", "ordinal", "interval", "ratio"]
LEVELS: tuple[str, ...] = ("nominal", "ordinal", "interval", "ratio")
Measure = Literal["krippendorff_alpha", "fleiss_kappa"]
MEASURES: tuple[str, ...] = ("krippendorff_alpha", "fleiss_kappa")
_BLOCK_ELEMENTS = 4_000_000
"""Resample weights held at once; bounds memory for layers with thousands of items."""


class Agreement(Model):
    """One agreement figure with its 95% bootstrap interval over items and what it was computed on."""

    measure: str
    """`krippendorff_alpha` or `fleiss_kappa`."""
    level: str | None
    """Krippendorff's level of measurement; None for Fleiss' kappa (nominal by definition)."""
    criterion: str
    """The rating criterion, or the annotation layer (`strategy`, `strategy:small-talk` per label)."""
    value: float
    low: float | None
    high: float | None
    items: int
    raters: int
    values: int
    group: dict[str, str] = Field(default_factory=dict)


# --------------------------------------------------------------------------- the statistics


def _check_level(level: str) -> None:
    if level not in LEVELS:
        raise ValueError(f"unknown level of measurement {level!r}; expected one of {', '.join(LEVELS)}")


def _as_matrix(matrix: object) -> np.ndarray:
    try:
        data = np.asarray(matrix, dtype=float)
    except (TypeError, ValueError) as error:
        raise ValueError(f"the rating matrix must hold numbers (NaN for missing): {error}") from None
    if data.ndim != 2:
        raise ValueError(f"the rating matrix must be raters x items (2-dimensional), got shape {data.shape}")
    return data


def _value_counts(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(items x values counts, sorted value domain) of a raters x items matrix."""
    domain = np.unique(matrix[~np.isnan(matrix)])
    counts = (matrix.T[:, :, None] == domain[None, None, :]).sum(axis=1)
    return counts, domain


def _check_alpha_defined(counts: np.ndarray, domain: np.ndarray) -> None:
    if not (counts.sum(axis=1) >= 2).any():
        raise ValueError("Krippendorff's alpha needs at least one item with two or more values; no item has")
    pairable = counts[counts.sum(axis=1) >= 2].sum(axis=0)
    if (pairable > 0).sum() < 2:
        raise ValueError(f"every paired value is the same ({domain[pairable > 0][0]:g}): with no variation, Krippendorff's alpha is undefined")


def krippendorff_alpha(matrix: object, level: Level = "interval") -> float:
    """Krippendorff's alpha of a raters x items matrix (NaN = missing), from the `krippendorff` package.

    Raises ValueError when alpha is undefined: no item with two values, or no variation at all.
    """
    _check_level(level)
    data = _as_matrix(matrix)
    counts, domain = _value_counts(data)
    _check_alpha_defined(counts, domain)
    return float(krippendorff.alpha(reliability_data=data, level_of_measurement=level))


def _item_coincidences(counts: np.ndarray) -> np.ndarray:
    """Each item's contribution to the coincidence matrix: (c c^T - diag(c)) / (m - 1); zero below two values."""
    counts = counts.astype(float)
    pairable = counts.sum(axis=1)
    outer = counts[:, :, None] * counts[:, None, :]
    outer -= counts[:, :, None] * np.eye(counts.shape[1])[None]
    scale = np.divide(1.0, pairable - 1, out=np.zeros_like(pairable), where=pairable >= 2)
    return outer * scale[:, None, None]


def _alpha_of_coincidences(observed: np.ndarray, domain: np.ndarray, level: str) -> np.ndarray:
    """Alpha for each of a stack of coincidence matrices (k x V x V); NaN where undefined."""
    marginals = observed.sum(axis=2)
    total = marginals.sum(axis=1)
    values = domain.astype(float)
    if level == "nominal":
        distance = np.broadcast_to(1.0 - np.eye(values.size), observed.shape)
    elif level == "interval":
        distance = np.broadcast_to((values[:, None] - values[None, :]) ** 2, observed.shape)
    elif level == "ratio":
        sums = values[:, None] + values[None, :]
        ratio = np.divide(values[:, None] - values[None, :], sums, out=np.zeros_like(sums), where=sums != 0)
        distance = np.broadcast_to(ratio**2, observed.shape)
    else:  # ordinal: (sum of marginals from c to k, less half of the two ends)^2 = (M_k - M_c)^2
        middle = np.cumsum(marginals, axis=1) - marginals / 2
        distance = (middle[:, None, :] - middle[:, :, None]) ** 2
    expected = marginals[:, :, None] * marginals[:, None, :] - marginals[:, :, None] * np.eye(values.size)[None]
    with np.errstate(invalid="ignore", divide="ignore"):
        expected = expected / (total - 1)[:, None, None]
        disagreement_expected = (expected * distance).sum(axis=(1, 2))
        alpha = 1 - (observed * distance).sum(axis=(1, 2)) / disagreement_expected
    alpha[~(disagreement_expected > 0)] = np.nan
    return alpha


def alpha_from_counts(counts: np.ndarray, domain: np.ndarray, level: Level = "interval", weights: np.ndarray | None = None) -> np.ndarray:
    """Alpha of item value counts (items x values), once per row of `weights` (resamples x items).

    Without weights: one alpha over all items. The bootstrap uses it with resample counts as weights.
    """
    _check_level(level)
    per_item = _item_coincidences(counts).reshape(counts.shape[0], -1)
    weights = np.ones((1, counts.shape[0])) if weights is None else np.asarray(weights, dtype=float)
    observed = (weights @ per_item).reshape(weights.shape[0], domain.size, domain.size)
    return _alpha_of_coincidences(observed, domain, level)


def _check_fleiss(counts: np.ndarray) -> int:
    if counts.ndim != 2 or counts.shape[0] == 0:
        raise ValueError(f"Fleiss' kappa needs an items x categories count table with at least one item, got shape {counts.shape}")
    if (counts < 0).any():
        raise ValueError("Fleiss' kappa: counts cannot be negative")
    raters = counts.sum(axis=1)
    if not np.all(raters == raters[0]):
        uneven = sorted({int(r) for r in raters})
        raise ValueError(f"Fleiss' kappa needs the same number of raters on every item; the items have {uneven} raters (use Krippendorff's alpha for missing ratings)")
    if raters[0] < 2:
        raise ValueError(f"Fleiss' kappa needs at least two raters per item, got {int(raters[0])}")
    return int(raters[0])


def _kappa_weighted(counts: np.ndarray, raters: int, weights: np.ndarray) -> np.ndarray:
    """Fleiss' kappa once per row of `weights` (resamples x items); NaN where chance agreement is 1."""
    per_item_agreement = ((counts * counts).sum(axis=1) - raters) / (raters * (raters - 1))
    totals = weights.sum(axis=1)
    observed = (weights @ per_item_agreement) / totals
    shares = (weights @ counts) / (totals * raters)[:, None]
    chance = (shares * shares).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        kappa = (observed - chance) / (1 - chance)
    kappa[~(chance < 1 - 1e-12)] = np.nan
    return kappa


def fleiss_kappa(counts: object) -> float:
    """Fleiss' kappa of an items x categories table: how many raters put each item in each category.

    Every item must have the same number of raters (ValueError otherwise: use Krippendorff's alpha
    for missing ratings); undefined (ValueError) when every rating falls in one category.
    """
    table = np.asarray(counts, dtype=float)
    raters = _check_fleiss(table)
    kappa = _kappa_weighted(table, raters, np.ones((1, table.shape[0])))[0]
    if np.isnan(kappa):
        raise ValueError("every rating falls in the same category: Fleiss' kappa is undefined (chance agreement is 1)")
    return float(kappa)


def _resample_weights(rng: np.random.Generator, items: int, samples: int) -> Iterable[np.ndarray]:
    """How often each item is drawn in each resample, in blocks (a resample draws `items` items)."""
    block = max(1, _BLOCK_ELEMENTS // max(items, 1))
    done = 0
    uniform = np.full(items, 1.0 / items)
    while done < samples:
        size = min(block, samples - done)
        yield rng.multinomial(items, uniform, size=size).astype(float)
        done += size


def _bootstrap(statistic, items: int, samples: int, seed: int) -> tuple[float | None, float | None]:
    if samples <= 0 or items == 0:
        return None, None
    rng = np.random.default_rng(seed)
    estimates = np.concatenate([statistic(weights) for weights in _resample_weights(rng, items, samples)])
    low, high = percentile_interval(estimates)
    return (None if np.isnan(low) else low), (None if np.isnan(high) else high)


def _agreement_of_matrix(
    matrix: np.ndarray,
    *,
    criterion: str,
    level: str,
    measure: str,
    bootstrap: int,
    seed: int,
    group: dict[str, str] | None,
) -> Agreement:
    """The figure, interval and counts of one raters x items matrix."""
    if measure not in MEASURES:
        raise ValueError(f"unknown agreement measure {measure!r}; expected one of {', '.join(MEASURES)}")
    counts, domain = _value_counts(matrix)
    pairable = counts.sum(axis=1) >= 2
    counts, matrix = counts[pairable], matrix[:, pairable]
    raters = int((~np.isnan(matrix)).any(axis=1).sum())
    values = int(counts.sum())
    where = f" ({criterion}{', ' + str(group) if group else ''})"
    if measure == "krippendorff_alpha":
        _check_level(level)
        try:
            value = krippendorff_alpha(matrix, level)  # type: ignore[arg-type]
        except ValueError as error:
            raise ValueError(f"{error}{where}") from None
        used = counts.sum(axis=0) > 0
        low, high = _bootstrap(lambda w: alpha_from_counts(counts[:, used], domain[used], level, w), counts.shape[0], bootstrap, seed)  # type: ignore[arg-type]
        level_used: str | None = level
    else:
        table = counts.astype(float)
        try:
            value = fleiss_kappa(table)
        except ValueError as error:
            raise ValueError(f"{error}{where}") from None
        raters_per_item = int(table[0].sum())
        low, high = _bootstrap(lambda w: _kappa_weighted(table, raters_per_item, w), table.shape[0], bootstrap, seed)
        level_used = None
    return Agreement(
        measure=measure,
        level=level_used,
        criterion=criterion,
        value=value,
        low=low,
        high=high,
        items=int(counts.shape[0]),
        raters=raters,
        values=values,
        group=dict(group or {}),
    )


# --------------------------------------------------------------------------- ratings


def rating_matrix(dialogues: Iterable[Dialogue], criterion: str, rater_kind: str = "third_party") -> tuple[np.ndarray, list[str], list[str]]:
    """(raters x items matrix with NaN for missing, rater ids, item labels) of one criterion.

    An item is one (dialogue, target): the label is the dialogue id, or `<id>/<target>` when raters
    rated several targets of that dialogue on this criterion. Raters are in first-seen order.
    """
    rater_ids: list[str] = []
    item_labels: list[str] = []
    answers_of_items: list[dict[str, list[float]]] = []
    for dialogue in dialogues:
        targets: dict[str | None, dict[str, list[float]]] = {}
        for rating in dialogue.ratings:
            if rating.rater_kind != rater_kind or rating.criterion != criterion:
                continue
            rater = "" if rating.rater_id is None else rating.rater_id
            if rater not in rater_ids:
                rater_ids.append(rater)
            targets.setdefault(rating.target, defaultdict(list))[rater].append(rating_number(rating))
        for target, answers in targets.items():
            item_labels.append(dialogue.id if len(targets) == 1 else f"{dialogue.id}/{target}")
            answers_of_items.append(answers)
    matrix = np.full((len(rater_ids), len(item_labels)), np.nan)
    row_of = {rater: row for row, rater in enumerate(rater_ids)}
    for column, answers in enumerate(answers_of_items):
        for rater, numbers in answers.items():
            matrix[row_of[rater], column] = sum(numbers) / len(numbers)
    return matrix, rater_ids, item_labels


def rating_agreement(
    dialogues: Iterable[Dialogue],
    criterion: str,
    *,
    rater_kind: str = "third_party",
    level: Level = "interval",
    measure: Measure = "krippendorff_alpha",
    bootstrap: int = 1000,
    seed: int = 0,
    group: dict[str, str] | None = None,
) -> Agreement:
    """Agreement of the raters of one kind on one criterion (ValueError when it is undefined)."""
    matrix, _raters, _items = rating_matrix(dialogues, criterion, rater_kind)
    if matrix.size == 0:
        raise ValueError(f"no {rater_kind} ratings of {criterion!r}{' in group ' + str(group) if group else ''}")
    return _agreement_of_matrix(matrix, criterion=criterion, level=level, measure=measure, bootstrap=bootstrap, seed=seed, group=group)


def _groups_of(dialogues: list[Dialogue], by: list[str]) -> list[tuple[dict[str, str], list[Dialogue]]]:
    """The dialogues split by the `by` grouping fields, in sorted order; a dialogue missing one is in no group."""
    members: dict[tuple[str, ...], list[Dialogue]] = defaultdict(list)
    for dialogue in dialogues:
        groups = dialogue_groups(dialogue)
        if all(key in groups for key in by):
            members[tuple(groups[key] for key in by)].append(dialogue)
    return [(dict(zip(by, key, strict=True)), members[key]) for key in sorted(members)]


def agreement_by_criterion(
    dialogues: Iterable[Dialogue],
    *,
    rater_kind: str = "third_party",
    level: Level = "interval",
    by: Iterable[str] = (),
    measure: Measure = "krippendorff_alpha",
    bootstrap: int = 1000,
    seed: int = 0,
) -> list[Agreement]:
    """Agreement on every criterion that has two or more raters on some item: over all dialogues, then per group.

    `by` names grouping fields of `dialogue_groups` (`setting`, `language`, ...). Where agreement
    is undefined (no item with two raters, no variation, uneven raters for Fleiss' kappa) that
    figure is left out.
    """
    dialogues = list(dialogues)
    criteria: list[str] = []
    for dialogue in dialogues:
        for rating in dialogue.ratings:
            if rating.rater_kind == rater_kind and rating.criterion not in criteria:
                criteria.append(rating.criterion)
    subsets: list[tuple[dict[str, str], list[Dialogue]]] = [({}, dialogues)]
    if by:
        subsets.extend(_groups_of(dialogues, list(by)))
    found = []
    for criterion in criteria:
        for group, members in subsets:
            try:
                found.append(
                    rating_agreement(members, criterion, rater_kind=rater_kind, level=level, measure=measure, bootstrap=bootstrap, seed=seed, group=group)
                )
            except ValueError as reason:
                log.debug("skipped: %s", reason)
    return found


# --------------------------------------------------------------------------- annotations


def _annotator_labels(dialogues: Iterable[Dialogue], layer: str) -> tuple[dict[tuple[int, int | None], dict[str, list]], list[str], bool]:
    """Per item, each annotator's labels (union of its annotations) or values; annotators; whether multi-label."""
    items: dict[tuple[int, int | None], dict[str, list]] = {}
    annotators: list[str] = []
    for position, dialogue in enumerate(dialogues):
        for annotation in dialogue.annotations:
            if annotation.layer != layer:
                continue
            if annotation.source not in annotators:
                annotators.append(annotation.source)
            given = items.setdefault((position, annotation.event), {}).setdefault(annotation.source, [])
            if annotation.labels:
                given.extend(label for label in annotation.labels if label not in given)
            elif isinstance(annotation.value, (int, float)) and not isinstance(annotation.value, bool):
                given.append(float(annotation.value))
    multi = any(len(given) > 1 for answers in items.values() for given in answers.values())
    return items, annotators, multi


def _annotation_matrix(items: dict[tuple[int, int | None], dict[str, list]], annotators: list[str], value_of) -> np.ndarray:
    matrix = np.full((len(annotators), len(items)), np.nan)
    row_of = {name: row for row, name in enumerate(annotators)}
    for column, answers in enumerate(items.values()):
        for annotator, given in answers.items():
            value = value_of(given)
            if value is not None:
                matrix[row_of[annotator], column] = value
    return matrix


def annotation_agreement(
    dialogues: Iterable[Dialogue],
    layer: str,
    *,
    level: Level = "nominal",
    measure: Measure = "krippendorff_alpha",
    bootstrap: int = 1000,
    seed: int = 0,
    group: dict[str, str] | None = None,
) -> Agreement:
    """Agreement of the annotators (`Annotation.source`) of a single-label layer on the same events.

    Labels are categories (nominal); numeric `value`s without labels may use any level. A layer
    where an annotator gives an event several labels is multi-label: ValueError, use
    `annotation_agreement_by_label`.
    """
    items, annotators, multi = _annotator_labels(dialogues, layer)
    if not items:
        raise ValueError(f"no annotations in layer {layer!r}")
    if multi:
        raise ValueError(f"layer {layer!r} is multi-label (an annotator gave an event several labels): use annotation_agreement_by_label")
    labels = sorted({given[0] for answers in items.values() for given in answers.values() if given and isinstance(given[0], str)})
    if labels and level != "nominal":
        raise ValueError(f"layer {layer!r} holds labels, which have no order or distance: use level='nominal'")
    code = {label: float(index) for index, label in enumerate(labels)}
    matrix = _annotation_matrix(items, annotators, lambda given: (code[given[0]] if isinstance(given[0], str) else given[0]) if given else None)
    return _agreement_of_matrix(matrix, criterion=layer, level=level, measure=measure, bootstrap=bootstrap, seed=seed, group=group)


def annotation_agreement_by_label(
    dialogues: Iterable[Dialogue],
    layer: str,
    *,
    measure: Measure = "krippendorff_alpha",
    bootstrap: int = 1000,
    seed: int = 0,
    group: dict[str, str] | None = None,
) -> dict[str, Agreement]:
    """Per label of a (multi-label) layer: agreement on whether the label applies to each event.

    Every annotator who annotated an event says for each label present (1) or absent (0); an event
    an annotator did not annotate is missing for that annotator. Labels whose agreement is
    undefined (no event with two annotators, or never / always given) are left out. The figure's
    `criterion` is `<layer>:<label>`.
    """
    items, annotators, _multi = _annotator_labels(dialogues, layer)
    labels = sorted({label for answers in items.values() for given in answers.values() for label in given if isinstance(label, str)})
    found: dict[str, Agreement] = {}
    for label in labels:
        matrix = _annotation_matrix(items, annotators, lambda given, label=label: float(label in given))
        try:
            found[label] = _agreement_of_matrix(
                matrix, criterion=f"{layer}:{label}", level="nominal", measure=measure, bootstrap=bootstrap, seed=seed, group=group
            )
        except ValueError as reason:
            log.debug("skipped: %s", reason)
    return found

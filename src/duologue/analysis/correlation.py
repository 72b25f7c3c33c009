"""Correlations between ratings, scores and outcomes, with 95% bootstrap intervals.

The questions these answer: does a DUO user's sense of stylistic similarity go with liking the bot
(Spearman, per setting)? Do CaSiNo participants who score more points feel more satisfied
(Pearson, per participant)? Do third-party judgements track the user's own?

`r` and `p` come from `scipy.stats` (`spearmanr`, `pearsonr`). The interval is a percentile
bootstrap over rows: rows are resampled with replacement, seeded, and for Spearman each resample
is ranked afresh (reusing the full sample's ranks would misstate ties and narrow the interval).
The resampling is vectorised: 2,000 resamples of 100 rows take a few milliseconds.
"""

from __future__ import annotations

import logging
from typing import Any, Literal, Sequence

import numpy as np
import pandas as pd
from pydantic import Field
from scipy import stats

from duologue.core.schema import Model

log = logging.getLogger(__name__)

Method = Literal["spearman", "pearson"]
METHODS: tuple[str, ...] = ("spearman", "pearson")
CONFIDENCE = 0.95
_BLOCK_ELEMENTS = 2_000_000
"""Resampled values held at once; bounds memory for large frames."""


class Correlation(Model):
    """One correlation with its sample size, p-value and 95% percentile-bootstrap interval."""

    method: str
    x: str
    y: str
    n: int
    r: float
    p: float
    low: float
    high: float
    group: dict[str, str] = Field(default_factory=dict)
    """The group this was computed in (`{"setting": "ed"}`); empty for all rows."""


def _as_floats(values: Any, name: str) -> np.ndarray:
    try:
        array = np.asarray(values, dtype=float)
    except (TypeError, ValueError) as error:
        raise ValueError(f"{name}: expected numbers ({error})") from None
    if array.ndim != 1:
        raise ValueError(f"{name}: expected one column of numbers, got shape {array.shape}")
    return array


def _row_pearson(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pearson r of each row pair of two (resamples x n) arrays; NaN where a row is constant."""
    xc = x - x.mean(axis=1, keepdims=True)
    yc = y - y.mean(axis=1, keepdims=True)
    denominator = np.sqrt((xc * xc).sum(axis=1) * (yc * yc).sum(axis=1))
    with np.errstate(invalid="ignore", divide="ignore"):
        r = (xc * yc).sum(axis=1) / denominator
    r[denominator <= 0] = np.nan
    return r


def _resample_ranks(codes: np.ndarray, distinct: int) -> np.ndarray:
    """Average ranks (ties share the mean rank) within each row of a (resamples x n) array of value codes.

    `codes` index the sorted distinct values of the full sample, so counting each code per row
    gives every rank without sorting: rank of code k = (values below k) + (copies of k + 1) / 2.
    """
    resamples = codes.shape[0]
    offsets = np.arange(resamples)[:, None] * distinct
    counts = np.bincount((codes + offsets).ravel(), minlength=resamples * distinct).reshape(resamples, distinct)
    average = np.cumsum(counts, axis=1) - counts + (counts + 1) / 2
    return np.take_along_axis(average, codes, axis=1)


def bootstrap_correlations(x: np.ndarray, y: np.ndarray, *, method: Method = "spearman", samples: int = 2000, seed: int = 0) -> np.ndarray:
    """The correlation in each of `samples` row resamples (NaN for a resample where a column is constant).

    For Spearman each resample is ranked on its own (ties get average ranks, as in `spearmanr`).
    """
    n = x.size
    rng = np.random.default_rng(seed)
    block = max(1, _BLOCK_ELEMENTS // max(n, 1))
    if method == "spearman":
        x_values, x_codes = np.unique(x, return_inverse=True)
        y_values, y_codes = np.unique(y, return_inverse=True)
    results = []
    done = 0
    while done < samples:
        size = min(block, samples - done)
        rows = rng.integers(0, n, size=(size, n))
        if method == "spearman":
            xs = _resample_ranks(x_codes[rows], x_values.size)
            ys = _resample_ranks(y_codes[rows], y_values.size)
        else:
            xs, ys = x[rows], y[rows]
        results.append(_row_pearson(xs, ys))
        done += size
    return np.concatenate(results) if results else np.empty(0)


def percentile_interval(estimates: np.ndarray, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """Percentile interval of bootstrap estimates, ignoring undefined (NaN) resamples."""
    finite = estimates[np.isfinite(estimates)]
    if finite.size == 0:
        return float("nan"), float("nan")
    tail = (1 - confidence) / 2 * 100
    low, high = np.percentile(finite, [tail, 100 - tail])
    return float(low), float(high)


def correlate(
    x: Any,
    y: Any,
    *,
    method: Method = "spearman",
    x_name: str = "x",
    y_name: str = "y",
    bootstrap: int = 2000,
    seed: int = 0,
    group: dict[str, str] | None = None,
) -> Correlation:
    """Correlation of two columns of numbers; rows where either is missing (NaN) are dropped.

    Raises ValueError when fewer than 3 rows remain or a column is constant there: a correlation is
    undefined then, and callers that loop over groups skip such a group. With `bootstrap=0` the
    interval is NaN.
    """
    if method not in METHODS:
        raise ValueError(f"unknown correlation method {method!r}; expected one of {', '.join(METHODS)}")
    xs, ys = _as_floats(x, x_name), _as_floats(y, y_name)
    if xs.size != ys.size:
        raise ValueError(f"{x_name} has {xs.size} values but {y_name} has {ys.size}: they must be paired row by row")
    keep = ~(np.isnan(xs) | np.isnan(ys))
    xs, ys = xs[keep], ys[keep]
    where = f" in group {group}" if group else ""
    if xs.size < 3:
        raise ValueError(f"{x_name} vs {y_name}{where}: only {xs.size} rows with both values; a correlation needs at least 3")
    for name, column in ((x_name, xs), (y_name, ys)):
        if np.all(column == column[0]):
            raise ValueError(f"{x_name} vs {y_name}{where}: {name} is constant ({column[0]:g}) over the {column.size} rows, so it correlates with nothing")
    result = stats.spearmanr(xs, ys) if method == "spearman" else stats.pearsonr(xs, ys)
    r, p = float(result.statistic), float(result.pvalue)
    if bootstrap > 0:
        low, high = percentile_interval(bootstrap_correlations(xs, ys, method=method, samples=bootstrap, seed=seed))
    else:
        low = high = float("nan")
    return Correlation(method=method, x=x_name, y=y_name, n=int(xs.size), r=r, p=p, low=low, high=high, group=dict(group or {}))


def _check_columns(frame: pd.DataFrame, columns: Sequence[str], what: str) -> None:
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ValueError(f"{what} {missing} not in the table; its columns are {list(frame.columns)}")


def correlations(
    frame: pd.DataFrame,
    pairs: list[tuple[str, str]],
    *,
    method: Method = "spearman",
    by: Sequence[str] = (),
    bootstrap: int = 2000,
    seed: int = 0,
) -> list[Correlation]:
    """Every pair over all rows, then per group of the `by` columns (groups in sorted order).

    A group (or the whole table) where a pair is undefined (fewer than 3 rows with both values, a
    constant column) is left out, not an error; rows missing a `by` value belong to no group.
    """
    _check_columns(frame, [c for pair in pairs for c in pair], "columns")
    _check_columns(frame, by, "group columns")
    found: list[Correlation] = []
    for x_name, y_name in pairs:
        subsets: list[tuple[dict[str, str], pd.DataFrame]] = [({}, frame)]
        if by:
            for key, members in frame.groupby(list(by), sort=True, dropna=True):
                values = key if isinstance(key, tuple) else (key,)
                subsets.append(({column: str(value) for column, value in zip(by, values, strict=True)}, members))
        for group, members in subsets:
            try:
                found.append(
                    correlate(members[x_name], members[y_name], method=method, x_name=x_name, y_name=y_name, bootstrap=bootstrap, seed=seed, group=group)
                )
            except ValueError as reason:
                log.debug("skipped: %s", reason)
    return found


def correlation_matrix(frame: pd.DataFrame, columns: list[str], method: Method = "spearman") -> pd.DataFrame:
    """Pairwise correlations of `columns` (each pair over the rows where both are present), for heat maps."""
    if method not in METHODS:
        raise ValueError(f"unknown correlation method {method!r}; expected one of {', '.join(METHODS)}")
    _check_columns(frame, columns, "columns")
    return frame[list(columns)].apply(pd.to_numeric, errors="coerce").corr(method=method)

"""Task metrics over many episodes, each with a 95% bootstrap interval, in memory that does not grow with the episodes."""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING, Iterable

import numpy as np
from pydantic import Field
from rich.table import Table

from duologue.core.schema import Dialogue, Model
from duologue.tasks import make

if TYPE_CHECKING:
    from duologue.core.task import Task

BOOTSTRAP_SAMPLES = 2000


class Estimate(Model):
    """A mean over episodes with its 95% percentile-bootstrap interval."""

    mean: float
    low: float
    high: float
    n: int


class GroupReport(Model):
    task: str
    agents: str
    episodes: int
    metrics: dict[str, Estimate] = Field(default_factory=dict)


BOOTSTRAP_CHUNK = 1 << 22
"""Numbers drawn per step of a bootstrap (32 MiB of int64): bounds its memory whatever the episode count."""


def bootstrap_mean(values: Iterable[float], *, seed: int = 0, samples: int = BOOTSTRAP_SAMPLES) -> Estimate:
    """Mean and 95% percentile-bootstrap interval; seeded so a report is reproducible."""
    data = np.asarray(list(values) if not isinstance(values, (list, np.ndarray)) else values, dtype=float)
    if data.size == 0:
        raise ValueError("no values to estimate from")
    distinct, counts = np.unique(data, return_counts=True)
    return bootstrap_counts(distinct, counts, seed=seed, samples=samples)


def bootstrap_counts(values: np.ndarray, counts: np.ndarray, *, seed: int = 0, samples: int = BOOTSTRAP_SAMPLES) -> Estimate:
    """`bootstrap_mean` of a sample given as its distinct values and how often each occurs.

    A resample of n values with replacement holds each distinct value a Multinomial(n, counts / n)
    number of times, so with few distinct values (agreement 0/1, integer points) a resample costs
    one multinomial draw over them, not n draws; otherwise values are drawn one by one. Either way
    the resamples are made a chunk at a time, so memory stays bounded however large n is.
    """
    values = np.asarray(values, dtype=float)
    counts = np.asarray(counts, dtype=np.int64)
    n = int(counts.sum())
    if n == 0:
        raise ValueError("no values to estimate from")
    mean = float(values @ counts / n)
    if n == 1 or values.size == 1:
        return Estimate(mean=mean, low=mean, high=mean, n=n)
    rng = np.random.default_rng(seed)
    means = np.empty(samples)
    if values.size * 8 <= n:
        step = max(1, BOOTSTRAP_CHUNK // values.size)
        shares = counts / n
        for start in range(0, samples, step):
            stop = min(samples, start + step)
            means[start:stop] = rng.multinomial(n, shares, size=stop - start) @ values / n
    else:
        data = np.repeat(values, counts)
        step = max(1, BOOTSTRAP_CHUNK // n)
        for start in range(0, samples, step):
            stop = min(samples, start + step)
            means[start:stop] = data[rng.integers(0, n, size=(stop - start, n))].mean(axis=1)
    low, high = np.percentile(means, [2.5, 97.5])
    return Estimate(mean=mean, low=float(low), high=float(high), n=n)


def _group_key(dialogue: Dialogue) -> tuple[str, str]:
    task_id = dialogue.meta.get("task_id")
    if not task_id:
        raise ValueError(f"dialogue {dialogue.id} was not played by duologue (no meta.task_id); report needs self-play output")
    agents = dialogue.meta.get("agents") or {p.id: p.agent or p.kind for p in dialogue.parties}
    return task_id, " vs ".join(f"{agent} ({party})" for party, agent in agents.items())


class ReportBuilder:
    """Task metrics of many episodes, taken one dialogue at a time.

    Per (task, agent pairing) and metric it keeps how often each value occurred, never the
    dialogues, so a report over 100k streamed episodes needs about the memory of one over 100.
    """

    def __init__(self) -> None:
        self._tasks: dict[str, Task] = {}
        self._episodes: dict[tuple[str, str], int] = defaultdict(int)
        self._values: dict[tuple[str, str], dict[str, dict[float, int]]] = defaultdict(dict)

    def add(self, dialogue: Dialogue) -> None:
        key = _group_key(dialogue)
        task_id = key[0]
        if task_id not in self._tasks:
            self._tasks[task_id] = make(task_id)
        self._episodes[key] += 1
        columns = self._values[key]
        for name, value in self._tasks[task_id].episode_metrics(dialogue).items():
            if value is not None:
                seen = columns.setdefault(name, {})
                seen[float(value)] = seen.get(float(value), 0) + 1

    def add_line(self, line: bytes | str) -> None:
        """Add one JSON line of self-play output (`duologue play --out`)."""
        self.add(Dialogue.model_validate_json(line))

    def reports(self) -> list[GroupReport]:
        """One report per (task, agent pairing), sorted; each metric with its bootstrap interval."""
        found = []
        for key in sorted(self._episodes):
            metrics = {
                name: bootstrap_counts(np.fromiter(seen.keys(), float, len(seen)), np.fromiter(seen.values(), np.int64, len(seen)))
                for name, seen in self._values[key].items()
            }
            found.append(GroupReport(task=key[0], agents=key[1], episodes=self._episodes[key], metrics=metrics))
        return found


def report(dialogues: Iterable[Dialogue]) -> list[GroupReport]:
    """One report per (task, agent pairing) found among the dialogues (read one at a time)."""
    builder = ReportBuilder()
    for dialogue in dialogues:
        builder.add(dialogue)
    return builder.reports()


def report_table(group: GroupReport) -> Table:
    table = Table(title=f"{group.task}: {group.agents} ({group.episodes} episodes)", title_justify="left")
    for column in ("metric", "mean", "95% interval", "n"):
        table.add_column(column, justify="left" if column == "metric" else "right")
    for name, estimate in group.metrics.items():
        table.add_row(name, f"{estimate.mean:.3f}", f"[{estimate.low:.3f}, {estimate.high:.3f}]", str(estimate.n))
    return table

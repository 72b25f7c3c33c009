"""Task metrics over many episodes, each with a 95% bootstrap interval."""

from __future__ import annotations

from collections import defaultdict
from typing import Iterable

import numpy as np
from pydantic import Field
from rich.table import Table

from duologue.core.schema import Dialogue, Model
from duologue.tasks import make

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


def bootstrap_mean(values: list[float], *, seed: int = 0, samples: int = BOOTSTRAP_SAMPLES) -> Estimate:
    """Mean and 95% percentile-bootstrap interval; seeded so a report is reproducible."""
    data = np.asarray(values, dtype=float)
    if data.size == 0:
        raise ValueError("no values to estimate from")
    if data.size == 1:
        return Estimate(mean=float(data[0]), low=float(data[0]), high=float(data[0]), n=1)
    rng = np.random.default_rng(seed)
    means = data[rng.integers(0, data.size, size=(samples, data.size))].mean(axis=1)
    low, high = np.percentile(means, [2.5, 97.5])
    return Estimate(mean=float(data.mean()), low=float(low), high=float(high), n=int(data.size))


def _group_key(dialogue: Dialogue) -> tuple[str, str]:
    task_id = dialogue.meta.get("task_id")
    if not task_id:
        raise ValueError(f"dialogue {dialogue.id} was not played by duologue (no meta.task_id); report needs self-play output")
    agents = dialogue.meta.get("agents") or {p.id: p.agent or p.kind for p in dialogue.parties}
    return task_id, " vs ".join(f"{agent} ({party})" for party, agent in agents.items())


def report(dialogues: Iterable[Dialogue]) -> list[GroupReport]:
    """One report per (task, agent pairing) found among the dialogues."""
    groups: dict[tuple[str, str], list[Dialogue]] = defaultdict(list)
    for dialogue in dialogues:
        groups[_group_key(dialogue)].append(dialogue)
    reports = []
    for (task_id, agents), members in sorted(groups.items()):
        task = make(task_id)
        columns: dict[str, list[float]] = defaultdict(list)
        for dialogue in members:
            for name, value in task.episode_metrics(dialogue).items():
                if value is not None:
                    columns[name].append(value)
        reports.append(
            GroupReport(task=task_id, agents=agents, episodes=len(members), metrics={name: bootstrap_mean(values) for name, values in columns.items()})
        )
    return reports


def report_table(group: GroupReport) -> Table:
    table = Table(title=f"{group.task}: {group.agents} ({group.episodes} episodes)", title_justify="left")
    for column in ("metric", "mean", "95% interval", "n"):
        table.add_column(column, justify="left" if column == "metric" else "right")
    for name, estimate in group.metrics.items():
        table.add_row(name, f"{estimate.mean:.3f}", f"[{estimate.low:.3f}, {estimate.high:.3f}]", str(estimate.n))
    return table

"""Outcome quality beside agreement: Pareto share, distance to the frontier and surplus, for bots and
people apart, and the utility-space figure, for any task that declares values (`Task.values`).

Agreement alone hides large differences in what was agreed (recent LLM negotiation benchmarks
report deal rates above 90%); these figures, from `duologue.core.values`, say how good the deals
were: whether no other split was better for one side and no worse for the other, how far from the
frontier a deal fell (in the task's own units), and how much both sides gained over walking away.
Each comes with the same 95% bootstrap interval as every other task metric (`arena.report`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Mapping

import numpy as np
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from pydantic import Field
from rich.table import Table

from duologue.arena.report import Estimate, bootstrap_mean
from duologue.core.schema import Dialogue, Model
from duologue.core.task import Task
from duologue.core.values import Space, analyse, outcome_point
from duologue.analysis.report import PALETTE, TEXT_SIZE, Report, _empty_figure, _figure, _style

VALUE_METRICS: tuple[tuple[str, str], ...] = (
    ("agreement", "agreement"),
    ("pareto_efficient", "Pareto share (deals)"),
    ("frontier_distance", "distance to frontier (deals)"),
    ("surplus", "surplus over walk-away"),
    ("pareto_score", "clembench score (deals)"),
    ("nash_distance", "distance to Nash (deals)"),
)
"""The figures compared between groups, with how tables name them."""


class ValueGroup(Model):
    """One group of dialogues (an agent pairing, or people of a corpus) and its outcome figures."""

    label: str
    people: bool = False
    dialogues: int
    metrics: dict[str, Estimate] = Field(default_factory=dict)


@dataclass
class _Points:
    """The utility points of one group's episodes, and the spaces they were played in."""

    spaces: dict[bytes, Space] = field(default_factory=dict)
    found: list[tuple[bytes, tuple[float, float], bool]] = field(default_factory=list)
    """(space key, point, agreed) per judged episode."""


def group_figures(task: Task, label: str, dialogues: Iterable[Dialogue], *, people: bool = False, seed: int = 0) -> ValueGroup:
    """The value figures of one group with bootstrap intervals (from `Task.episode_metrics`)."""
    columns: dict[str, list[float]] = {name: [] for name, _ in VALUE_METRICS}
    count = 0
    for dialogue in dialogues:
        count += 1
        figures = task.episode_metrics(dialogue)
        for name in columns:
            value = figures.get(name)
            if value is not None:
                columns[name].append(float(value))
    metrics = {name: bootstrap_mean(values, seed=seed) for name, values in columns.items() if values}
    return ValueGroup(label=label, people=people, dialogues=count, metrics=metrics)


def _points(task: Task, dialogues: Iterable[Dialogue]) -> _Points:
    found = _Points()
    for dialogue in dialogues:
        declared = task.values(dialogue.scenario)
        if declared is None:
            continue
        outcome = dialogue.outcome or task.judge(dialogue)
        try:
            point = outcome_point(declared, outcome)
        except (KeyError, TypeError, ValueError):
            continue  # a deal the values cannot read (a corpus record without its split)
        if point is None:
            continue
        a, b = declared.parties
        key = np.array([[declared.value(a, d), declared.value(b, d)] for d in declared.outcomes()]).tobytes() + repr((declared.walk_away(a), declared.walk_away(b))).encode()
        if key not in found.spaces:
            found.spaces[key] = analyse(declared)
        found.found.append((key, point, bool(outcome.agreed)))
    return found


def _normalised(space: Space, point: np.ndarray) -> np.ndarray:
    """Gains over walking away as shares of each party's largest possible gain."""
    reach = np.where(space.best - np.asarray(space.walk) > 0, space.best - np.asarray(space.walk), 1.0)
    return (point - np.asarray(space.walk)) / reach


def utility_space_figure(task: Task, groups: Mapping[str, Iterable[Dialogue]], *, people: Iterable[str] = ()) -> Figure:
    """Left: the scenario with the most episodes: every outcome, the Pareto frontier, the Nash and
    Kalai points, walking away, and the deals reached, one colour per group (people's as circles,
    bots' as triangles). Right: every episode of every scenario, each party's gain over walking
    away as a share of the most it could gain, over each scenario's frontier (thin lines)."""
    people = set(people)
    by_group = {label: _points(task, dialogues) for label, dialogues in groups.items()}
    counts: dict[bytes, int] = {}
    spaces: dict[bytes, Space] = {}
    present: dict[bytes, set[str]] = {}
    for label, found in by_group.items():
        spaces.update(found.spaces)
        for key, _, _ in found.found:
            counts[key] = counts.get(key, 0) + 1
            present.setdefault(key, set()).add(label)
    a, b = task.party_ids
    title = f"{task.id}: utility space"
    if not counts:
        return _empty_figure(title, "no episode with declared values to show")
    figure = _figure(11.0, 4.8)
    left, right = figure.subplots(1, 2)
    key = max(counts, key=lambda k: (len(present[k]), counts[k]))  # a scenario every group played, if there is one
    space = spaces[key]
    left.scatter(space.points[:, 0], space.points[:, 1], s=14, color="#bbbbbb", zorder=1)
    line = space.frontier_points()
    left.plot(line[:, 0], line[:, 1], color="#333333", lw=1.2, zorder=2)
    left.scatter([space.walk[0]], [space.walk[1]], marker="x", s=60, color="#c44e52", zorder=3)
    keys = {"left": [_key("o", "#bbbbbb", "outcomes"), _key("", "#333333", "Pareto frontier", line=True), _key("x", "#c44e52", "walk away")], "right": []}
    for index, name, marker in ((space.nash, "Nash", "*"), (space.kalai, "Kalai-Smorodinsky", "D")):
        if index is not None:
            left.scatter([space.points[index][0]], [space.points[index][1]], marker=marker, s=130 if marker == "*" else 60, facecolors="none", edgecolors="#222222", lw=1.4, zorder=6)
            keys["left"].append(_key(marker, "#222222", name, hollow=True))
    rng = np.random.default_rng(0)
    spread = float(np.ptp(space.points)) * 0.01 or 0.01
    for g, (label, found) in enumerate(by_group.items()):
        marker = "o" if label in people else "^"
        colour = PALETTE[g % len(PALETTE)]
        layer = 3 if label in people else 4  # bots over people, who are often many more
        here = np.array([p for k, p, _ in found.found if k == key])
        if here.size:
            jittered = here + rng.uniform(-spread, spread, here.shape)
            left.scatter(jittered[:, 0], jittered[:, 1], s=44, marker=marker, color=colour, alpha=0.6, edgecolors="none", zorder=layer + 1)
            keys["left"].append(_key(marker, colour, f"{label} (n={len(here)})"))
        every = np.array([_normalised(spaces[k], np.asarray(p)) for k, p, _ in found.found])
        if every.size:
            jittered = every + rng.uniform(-0.01, 0.01, every.shape)
            right.scatter(jittered[:, 0], jittered[:, 1], s=18 if label in people else 30, marker=marker, color=colour, alpha=0.35 if label in people else 0.8, edgecolors="none", zorder=layer)
            keys["right"].append(_key(marker, colour, f"{label} (n={len(every)})"))
    for other in sorted(spaces, key=lambda k: -counts.get(k, 0))[:40]:
        line = _normalised(spaces[other], spaces[other].frontier_points())
        right.plot(line[:, 0], line[:, 1], color="#999999", lw=0.6, alpha=0.5, zorder=1)
    keys["right"].append(_key("", "#999999", "each scenario's frontier", line=True))
    _style(left, f"one scenario ({counts[key]} episodes)", f"value to {a}", f"value to {b}")
    _style(right, "every scenario: gains as shares of the most", f"{a}'s share", f"{b}'s share")
    for axes, side in ((left, "left"), (right, "right")):
        axes.grid(alpha=0.25)
        axes.legend(handles=keys[side], fontsize=TEXT_SIZE - 3, frameon=True, framealpha=0.92, edgecolor="#dddddd", loc="best")
    figure.suptitle(title, fontsize=TEXT_SIZE + 1)
    return figure


def _key(marker: str, colour: str, label: str, *, hollow: bool = False, line: bool = False) -> Line2D:
    """A legend entry drawn plainly (a jittered scatter's own entry can show stray points)."""
    if line:
        return Line2D([], [], color=colour, lw=1.2, label=label)
    return Line2D([], [], linestyle="none", marker=marker, markersize=7, color=colour, markerfacecolor="none" if hollow else colour, label=label)


def _interval(estimate: Estimate | None) -> str:
    return "-" if estimate is None else f"{estimate.mean:.3f} [{estimate.low:.3f}, {estimate.high:.3f}]"


def value_table(task_id: str, groups: list[ValueGroup]) -> Table:
    """The groups side by side (people's beside the bots'): mean and 95% bootstrap interval."""
    table = Table(title=f"{task_id}: outcome quality (mean [95% bootstrap interval])", title_justify="left", show_lines=True)
    table.add_column("figure", no_wrap=True)
    for group in groups:
        table.add_column(f"{group.label}\n{'people' if group.people else 'bots'}, {group.dialogues} dialogues", justify="right")
    for name, heading in VALUE_METRICS:
        if any(name in g.metrics for g in groups):
            table.add_row(heading, *(_interval(g.metrics.get(name)).replace(" [", "\n[") for g in groups))
    return table


def add_to_report(report: Report, task: Task, groups: list[ValueGroup], dialogues: Mapping[str, Iterable[Dialogue]]) -> None:
    """A section with the groups' table and the utility-space figure."""
    section = report.section(f"{task.id}: outcome quality")
    section.text(
        "From the task's declared values: a deal is Pareto-efficient when no other outcome is better for one side and no "
        "worse for the other; its distance to the frontier is in the task's own units; surplus is what both sides gained over "
        "walking away (0 without a deal). Means with 95% bootstrap intervals; people's figures beside the bots'."
    )
    section.table(
        ["figure", *(f"{g.label} ({'people' if g.people else 'bots'}, {g.dialogues})" for g in groups)],
        [[heading, *(_interval(g.metrics.get(name)) for g in groups)] for name, heading in VALUE_METRICS if any(name in g.metrics for g in groups)],
    )
    section.figure(
        utility_space_figure(task, dialogues, people=[g.label for g in groups if g.people]),
        alt=f"{task.id} utility space: outcomes, Pareto frontier, Nash and Kalai points and the deals reached, people's and bots' apart",
        caption="Left: the most played scenario's outcomes, frontier, Nash (star) and Kalai-Smorodinsky (diamond) points and the deals reached (people: circles, bots: triangles). Right: every episode, normalised per scenario.",
    )


Quality = dict[str, tuple[Task, list[ValueGroup], dict[str, list[Dialogue]]]]
"""Task id -> (task, its groups' figures, its dialogues by group label), for tasks with values."""


def is_self_play(dialogue: Dialogue) -> bool:
    """Whether bots played a dialogue (duologue's self-play writes the task id and the agents)."""
    return bool(dialogue.meta.get("task_id")) and isinstance(dialogue.meta.get("agents"), dict)


def quality_groups(bots: Iterable[Dialogue], people: Iterable[Dialogue], *, seed: int = 0) -> Quality:
    """Outcome quality per task that declares values: one group per bot pairing, one for the people
    (corpus dialogues, grouped by the task their family is registered for)."""
    from duologue.agents import declares_values
    from duologue.arena.report import _group_key
    from duologue.tasks import make, spec_of_family

    by_task: dict[str, dict[str, tuple[bool, list[Dialogue]]]] = {}
    for dialogue in bots:
        task_id, label = _group_key(dialogue)
        by_task.setdefault(task_id, {}).setdefault(label, (False, []))[1].append(dialogue)
    for dialogue in people:
        found = spec_of_family(dialogue.task)
        if found is None:
            continue  # no registered task reads these: nothing to value
        by_task.setdefault(found.id, {}).setdefault(f"people ({found.corpus or dialogue.task} corpus)", (True, []))[1].append(dialogue)
    quality: Quality = {}
    for task_id, labelled in sorted(by_task.items()):
        task = make(task_id)
        if not declares_values(task):
            continue
        groups = [group_figures(task, label, dialogues, people=is_people, seed=seed) for label, (is_people, dialogues) in labelled.items()]
        quality[task_id] = (task, groups, {label: dialogues for label, (_, dialogues) in labelled.items()})
    return quality


def quality_of(dialogues: Iterable[Dialogue], *, seed: int = 0) -> Quality:
    """`quality_groups` of mixed dialogues: self-play as bots, the rest as people."""
    found = list(dialogues)
    return quality_groups([d for d in found if is_self_play(d)], [d for d in found if not is_self_play(d)], seed=seed)


def quality_tables(quality: Quality) -> list[Table]:
    return [value_table(task_id, groups) for task_id, (_, groups, _) in quality.items()]


def add_quality(report: Report, quality: Quality) -> Report:
    """A section per task with values (table and utility-space figure); returns the report."""
    for task, groups, dialogues in quality.values():
        add_to_report(report, task, groups, dialogues)
    return report

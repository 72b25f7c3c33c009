"""A small self-contained HTML report: sections, tables and matplotlib figures in one file.

Why self-contained: a report is mailed, attached to a paper's supplement or opened on a machine
without network access, so it must need nothing but the file. Figures are embedded as base64 PNG,
styles are inline, every text is HTML-escaped, and no URL to anything outside the file is written.

Figures are drawn on `matplotlib.figure.Figure` objects rendered by the Agg canvas (no pyplot
state, no display needed), sized and lettered to be read at 100% zoom. The figure makers are public
so other reports (the arena's leaderboards, notebooks) can draw the same pictures:

* `rating_distribution_figure`: how often each answer was given, per criterion and rater group;
* `scatter_figure`: one rating against another, with jitter so that tied Likert answers show;
* `heatmap_figure`: a correlation matrix with the numbers written in the cells;
* `leaderboard_figure`: ratings with their intervals, best at the top.
"""

from __future__ import annotations

import base64
import html
import io
import math
import re
import textwrap
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterable, Mapping, Sequence

import numpy as np
from matplotlib.figure import Figure
from pydantic import BaseModel

FIGURE_DPI = 100
"""Pixels per inch of embedded figures: at 100% zoom one figure inch is 100 screen pixels."""
TEXT_SIZE = 11
PALETTE = ("#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3", "#937860", "#da8bc3", "#8c8c8c", "#ccb974", "#64b5cd")


class LeaderboardRow(BaseModel):
    """One entry of a leaderboard: a rating with its interval and how many games it rests on."""

    name: str
    rating: float
    low: float | None = None
    high: float | None = None
    games: int | None = None


# --------------------------------------------------------------------------- figures


def _figure(width: float, height: float) -> Figure:
    figure = Figure(figsize=(width, height), dpi=FIGURE_DPI, layout="constrained")
    return figure


def _style(axes, title: str | None = None, x_label: str | None = None, y_label: str | None = None) -> None:
    if title:
        axes.set_title(title, fontsize=TEXT_SIZE + 1)
    if x_label is not None:
        axes.set_xlabel(x_label, fontsize=TEXT_SIZE)
    if y_label is not None:
        axes.set_ylabel(y_label, fontsize=TEXT_SIZE)
    axes.tick_params(labelsize=TEXT_SIZE - 1)
    for side in ("top", "right"):
        axes.spines[side].set_visible(False)


def _short(label: str, width: int = 22, lines: int = 2) -> str:
    """Wrap long tick labels onto at most `lines` lines rather than letting them overlap."""
    wrapped = textwrap.wrap(label.replace("_", " "), width) or [""]
    if len(wrapped) > lines:
        wrapped = wrapped[:lines]
        wrapped[-1] = wrapped[-1][: width - 1] + "…"
    return "\n".join(wrapped)


def rating_distribution_figure(
    distributions: Mapping[str, Mapping[str, Sequence[float]]],
    *,
    title: str,
    answers: Sequence[float] | None = None,
    answer_labels: Sequence[str] | None = None,
    columns: int = 3,
) -> Figure:
    """One panel per criterion: the share of each answer, one bar colour per rater group.

    `distributions` maps criterion -> group name (e.g. "user", "third-party") -> the answers given.
    Shares rather than counts, so that a group with three raters per dialogue and a group with one
    answer per dialogue can be compared in one panel. `answers` fixes the x axis (default: every
    value seen, e.g. 1..5); `answer_labels` names them (CaSiNo's "Extremely satisfied" ...).
    """
    criteria = [c for c in distributions if any(len(v) for v in distributions[c].values())]
    if not criteria:
        return _empty_figure(title, "no ratings to show")
    if answers is None:
        seen = sorted({float(v) for c in criteria for values in distributions[c].values() for v in values})
        answers = seen if len(seen) <= 12 else list(np.linspace(seen[0], seen[-1], 9))
    answers = list(answers)
    groups: list[str] = []
    for criterion in criteria:
        for group in distributions[criterion]:
            if group not in groups:
                groups.append(group)
    columns = max(1, min(columns, len(criteria)))
    rows = math.ceil(len(criteria) / columns)
    figure = _figure(4.2 * columns, 3.3 * rows + 0.4)
    grid = figure.subplots(rows, columns, squeeze=False)
    width = 0.8 / max(1, len(groups))
    positions = np.arange(len(answers))
    for index, criterion in enumerate(criteria):
        axes = grid[index // columns][index % columns]
        for g, group in enumerate(groups):
            values = [float(v) for v in distributions[criterion].get(group, [])]
            if not values:
                continue
            shares = [_share(values, answer, answers) for answer in answers]
            axes.bar(positions + (g - (len(groups) - 1) / 2) * width, shares, width, color=PALETTE[g % len(PALETTE)], label=f"{group} (n={len(values)})")
        axes.set_xticks(positions)
        tick_labels = [_short(label, 12) for label in answer_labels] if answer_labels else [_number_label(a) for a in answers]
        axes.set_xticklabels(tick_labels, rotation=0 if not answer_labels else 30, ha="center" if not answer_labels else "right")
        axes.set_ylim(0, 1)
        _style(axes, _short(criterion, 30) if len(criteria) > 1 else None, "answer", "share of answers")
        axes.legend(fontsize=TEXT_SIZE - 2, frameon=False, loc="upper left")
    for index in range(len(criteria), rows * columns):
        grid[index // columns][index % columns].set_visible(False)
    figure.suptitle(title, fontsize=TEXT_SIZE + 2)
    return figure


def _share(values: list[float], answer: float, answers: list[float]) -> float:
    """Share of values nearest to `answer` (third-party means such as 3.67 fall into the nearest bin)."""
    nearest = [min(answers, key=lambda a: abs(a - v)) for v in values]
    return sum(1 for n in nearest if n == answer) / len(values)


def _number_label(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:.1f}"


def scatter_figure(
    x: Sequence[float],
    y: Sequence[float],
    *,
    title: str,
    x_label: str,
    y_label: str,
    groups: Sequence[str] | None = None,
    jitter: float = 0.12,
    seed: int = 0,
    note: str | None = None,
    limits: tuple[float, float] | None = None,
) -> Figure:
    """One rating against another, jittered so that the many tied Likert pairs remain visible.

    `groups` colours the points (one legend entry per group); `note` is written in the corner
    (e.g. "Spearman ρ = 0.75, n = 157"). The jitter is seeded, so a report is reproducible.
    """
    figure = _figure(5.4, 4.4)
    axes = figure.subplots()
    xs, ys = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if xs.size == 0:
        return _empty_figure(title, "no pairs of ratings to show")
    rng = np.random.default_rng(seed)
    xs = xs + rng.uniform(-jitter, jitter, xs.size)
    ys = ys + rng.uniform(-jitter, jitter, ys.size)
    labels = list(groups) if groups is not None else ["all"] * len(xs)
    names = list(dict.fromkeys(labels))
    for g, name in enumerate(names):
        mask = np.array([label == name for label in labels])
        axes.scatter(xs[mask], ys[mask], s=22, alpha=0.6, color=PALETTE[g % len(PALETTE)], edgecolors="none", label=f"{name} (n={int(mask.sum())})")
    if len(names) > 1:
        axes.legend(fontsize=TEXT_SIZE - 2, frameon=False, loc="lower right")
    if limits is not None:
        axes.set_xlim(limits[0] - 0.4, limits[1] + 0.4)
        axes.set_ylim(limits[0] - 0.4, limits[1] + 0.4)
    _style(axes, None, x_label, y_label)
    figure.suptitle(title, fontsize=TEXT_SIZE + 1)
    if note:  # above the plot, where it cannot hide points
        axes.set_title(note, fontsize=TEXT_SIZE - 1, loc="left", color="#333333")
    axes.grid(alpha=0.25)
    return figure


def heatmap_figure(
    matrix: Sequence[Sequence[float | None]],
    labels: Sequence[str],
    *,
    title: str,
    column_labels: Sequence[str] | None = None,
    value_label: str = "correlation",
    low: float = -1.0,
    high: float = 1.0,
    digits: int = 2,
) -> Figure:
    """A matrix (correlations by default, -1..1) with each number written in its cell.

    Missing cells (None or NaN: too few pairs) are left grey and marked "–". Text turns white on
    dark cells so every number can be read.
    """
    data = np.array([[np.nan if v is None else float(v) for v in row] for row in matrix], dtype=float)
    if data.size == 0:
        return _empty_figure(title, "nothing to correlate")
    column_labels = list(column_labels) if column_labels is not None else list(labels)
    size = max(4.0, 0.95 * len(column_labels) + 2.4), max(3.2, 0.62 * len(labels) + 1.8)
    figure = _figure(*size)
    axes = figure.subplots()
    masked = np.ma.masked_invalid(data)
    cmap = _diverging_map()
    image = axes.imshow(masked, cmap=cmap, vmin=low, vmax=high, aspect="auto")
    for i in range(data.shape[0]):
        for j in range(data.shape[1]):
            value = data[i, j]
            if np.isnan(value):
                axes.text(j, i, "–", ha="center", va="center", fontsize=TEXT_SIZE, color="#555555")
                continue
            strength = abs((value - (low + high) / 2) / ((high - low) / 2 or 1))
            text = f"{value:.{digits}f}"
            text = text.lstrip("-") if float(text) == 0 else text  # no "-0.00"
            axes.text(j, i, text, ha="center", va="center", fontsize=TEXT_SIZE, color="white" if strength > 0.6 else "black")
    axes.set_xticks(range(len(column_labels)))
    axes.set_xticklabels([_short(c, 16, 3) for c in column_labels], rotation=35, ha="right")
    axes.set_yticks(range(len(labels)))
    axes.set_yticklabels([_short(c, 24) for c in labels])
    _style(axes, title)
    for side in ("left", "bottom"):
        axes.spines[side].set_visible(False)
    bar = figure.colorbar(image, ax=axes, shrink=0.85)
    bar.set_label(value_label, fontsize=TEXT_SIZE - 1)
    bar.ax.tick_params(labelsize=TEXT_SIZE - 2)
    return figure


def _diverging_map():
    from matplotlib import colormaps

    return colormaps["RdBu_r"].with_extremes(bad="#e8e8e8")


def leaderboard_figure(rows: Sequence[LeaderboardRow], *, title: str, rating_label: str = "rating") -> Figure:
    """Ratings as points with interval bars, best at the top, games in the label."""
    if not rows:
        return _empty_figure(title, "no entries")
    ordered = sorted(rows, key=lambda r: r.rating)
    figure = _figure(6.8, max(2.4, 0.42 * len(ordered) + 1.3))
    axes = figure.subplots()
    positions = np.arange(len(ordered))
    ratings = np.array([r.rating for r in ordered])
    lows = np.array([r.low if r.low is not None else r.rating for r in ordered])
    highs = np.array([r.high if r.high is not None else r.rating for r in ordered])
    axes.errorbar(ratings, positions, xerr=[ratings - lows, highs - ratings], fmt="o", color=PALETTE[0], ecolor="#7f7f7f", elinewidth=2, capsize=4, markersize=6)
    axes.set_yticks(positions)
    axes.set_yticklabels([_short(r.name, 30) + (f"  ({r.games} games)" if r.games is not None else "") for r in ordered])
    _style(axes, title, rating_label)
    axes.grid(axis="x", alpha=0.3)
    return figure


def _empty_figure(title: str, message: str) -> Figure:
    figure = _figure(5.0, 1.6)
    axes = figure.subplots()
    axes.axis("off")
    axes.text(0.5, 0.5, message, ha="center", va="center", fontsize=TEXT_SIZE, color="#555555")
    axes.set_title(title, fontsize=TEXT_SIZE + 1)
    return figure


def figure_png(figure: Figure) -> bytes:
    """Render a figure to PNG bytes (Agg) and release it."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=FIGURE_DPI)
    figure.clear()
    return buffer.getvalue()


# --------------------------------------------------------------------------- the report


@dataclass
class _Block:
    html: str


@dataclass
class Section:
    """A titled part of the report; add paragraphs, tables and figures in reading order."""

    title: str
    anchor: str
    blocks: list[_Block] = field(default_factory=list)
    figures: list[tuple[str, bytes]] = field(default_factory=list)

    def text(self, paragraph: str) -> "Section":
        self.blocks.append(_Block(f"<p>{html.escape(paragraph)}</p>"))
        return self

    def table(self, columns: Sequence[str], rows: Iterable[Sequence[object]], *, caption: str | None = None) -> "Section":
        """A table; numbers are right-aligned and floats shown with 3 significant decimals."""
        head = "".join(f"<th>{html.escape(str(c))}</th>" for c in columns)
        body = []
        for row in rows:
            cells = "".join(_cell(value) for value in row)
            body.append(f"<tr>{cells}</tr>")
        caption_html = f"<caption>{html.escape(caption)}</caption>" if caption else ""
        self.blocks.append(_Block(f"<table>{caption_html}<thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"))
        return self

    def figure(self, figure: Figure, *, alt: str, caption: str | None = None) -> "Section":
        """Embed a matplotlib figure as a base64 PNG (the figure is rendered now and released)."""
        png = figure_png(figure)
        name = f"{self.anchor}-{len(self.figures) + 1:02d}"
        self.figures.append((name, png))
        data = base64.b64encode(png).decode("ascii")
        caption_html = f"<figcaption>{html.escape(caption)}</figcaption>" if caption else ""
        self.blocks.append(_Block(f'<figure><img alt="{html.escape(alt, quote=True)}" src="data:image/png;base64,{data}">{caption_html}</figure>'))
        return self

    def leaderboard(self, rows: Sequence[LeaderboardRow], *, title: str = "Leaderboard", rating_label: str = "rating", caption: str | None = None) -> "Section":
        """A leaderboard: the table (best first) and the figure of ratings with their intervals."""
        ordered = sorted(rows, key=lambda r: -r.rating)
        self.table(
            ["rank", "name", rating_label, "low", "high", "games"],
            [[i + 1, r.name, r.rating, r.low, r.high, r.games] for i, r in enumerate(ordered)],
            caption=caption,
        )
        return self.figure(leaderboard_figure(rows, title=title, rating_label=rating_label), alt=f"{title}: {rating_label} with intervals per entry")


def _cell(value: object) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return '<td class="num">–</td>'
    if isinstance(value, bool):
        return f"<td>{'yes' if value else 'no'}</td>"
    if isinstance(value, int):
        return f'<td class="num">{value:,}</td>'
    if isinstance(value, float):
        return f'<td class="num">{value:.3f}</td>'
    return f"<td>{html.escape(str(value))}</td>"


_STYLE = """
body { font-family: system-ui, -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 2em auto; max-width: 1100px;
       padding: 0 1em; color: #222; line-height: 1.45; }
h1 { font-size: 1.7em; margin-bottom: 0.2em; } h2 { margin-top: 2em; border-bottom: 1px solid #ddd; padding-bottom: 0.2em; }
.meta { color: #666; font-size: 0.9em; }
table { border-collapse: collapse; margin: 1em 0; font-size: 0.92em; }
caption { text-align: left; color: #555; padding-bottom: 0.3em; caption-side: top; }
th, td { border-bottom: 1px solid #e3e3e3; padding: 0.25em 0.7em; text-align: left; vertical-align: top; }
th { background: #f5f5f5; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
figure { margin: 1.2em 0; } figure img { max-width: 100%; height: auto; border: 1px solid #eee; }
figcaption { color: #555; font-size: 0.9em; } nav ul { columns: 2; }
"""


class Report:
    """An HTML report built section by section, written as one self-contained file."""

    def __init__(self, title: str, *, subtitle: str | None = None) -> None:
        self.title = title
        self.subtitle = subtitle
        self.sections: list[Section] = []

    def section(self, title: str) -> Section:
        anchor = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-") or "section"
        taken = {s.anchor for s in self.sections}
        unique, n = anchor, 2
        while unique in taken:
            unique, n = f"{anchor}-{n}", n + 1
        section = Section(title=title, anchor=unique)
        self.sections.append(section)
        return section

    @property
    def figures(self) -> list[tuple[str, bytes]]:
        """Every embedded figure as (name, PNG bytes), in order."""
        return [item for section in self.sections for item in section.figures]

    def to_html(self) -> str:
        created = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
        parts = [
            "<!DOCTYPE html>",
            '<html lang="en"><head><meta charset="utf-8">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            f"<title>{html.escape(self.title)}</title><style>{_STYLE}</style></head><body>",
            f"<h1>{html.escape(self.title)}</h1>",
        ]
        if self.subtitle:
            parts.append(f'<p class="meta">{html.escape(self.subtitle)}</p>')
        parts.append(f'<p class="meta">Written by duologue on {created}.</p>')
        if len(self.sections) > 1:
            items = "".join(f'<li><a href="#{s.anchor}">{html.escape(s.title)}</a></li>' for s in self.sections)
            parts.append(f"<nav><ul>{items}</ul></nav>")
        for section in self.sections:
            parts.append(f'<section id="{section.anchor}"><h2>{html.escape(section.title)}</h2>')
            parts.extend(block.html for block in section.blocks)
            parts.append("</section>")
        parts.append("</body></html>")
        return "\n".join(parts) + "\n"

    def write(self, path: Path) -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(self.to_html(), encoding="utf-8")
        return path

    def save_figures(self, folder: Path) -> list[Path]:
        """Write each figure as its own PNG (for a paper, or to look at them one by one)."""
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        written = []
        for name, png in self.figures:
            target = folder / f"{name}.png"
            target.write_bytes(png)
            written.append(target)
        return written

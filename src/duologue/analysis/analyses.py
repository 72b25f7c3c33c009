"""The analyses behind `duologue analyze`: any set of dialogues, and the building blocks that the
tasks' own corpus analyses share.

Each analysis returns a pydantic model (so `--format json` is `model_dump_json`) and turns into
an HTML `Report` with figures.

* `analyze_dialogues`: dialogues of any source (self-play output, platform exports, corpora):
  statistics, rating means, third-party agreement, and every rating against every outcome, per
  group.
* A task's own analysis of its corpus lives in the task's folder and is named by its spec
  (`TaskSpec.analysis`, `module:function`): `duologue analyze <corpus> PATH` finds it through the
  spec whose `corpus` is that name. The function is called as `analyze(dialogues, by=...,
  bootstrap=..., seed=...)` (`by`: None for the task's own default grouping) and returns a
  `TaskAnalysis`, which knows its terminal tables and its HTML report.

Statistics come from `duologue.analysis.frames`, `.correlation` and `.agreement`; this module
only chooses what to compute and how to present it.
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from typing import TYPE_CHECKING, Iterable, Sequence

import pandas as pd
from pydantic import Field

from duologue.core.schema import Dialogue, Model
from duologue.data.stats import CorpusStats, corpus_statistics
from duologue.analysis.agreement import Agreement, agreement_by_criterion
from duologue.analysis.correlation import Correlation, correlation_matrix, correlations
from duologue.analysis.frames import dialogue_frame, party_frame, ratings_frame
from duologue.analysis.report import Report, heatmap_figure, rating_distribution_figure
from duologue.analysis.tables import p_value

if TYPE_CHECKING:
    from rich.table import Table

BOOTSTRAP = 2000


class TaskAnalysis(Model):
    """What a task's own corpus analysis returns: its figures, plus how to show them.

    Subclasses add their fields (the JSON output) and draw their tables and report.
    """

    dialogues: int
    stats: CorpusStats

    def tables(self) -> "list[Table]":
        """The analysis as terminal tables (after the statistics tables, which the command prints)."""
        return []

    def report(self, dialogues: Sequence[Dialogue], *, source: str | None = None) -> Report:
        """The analysis as an HTML report with figures."""
        report = Report(f"Analysis of {self.dialogues} dialogues", subtitle=f"from {source}" if source else None)
        stats_section(report, self.stats)
        return report


def rating_column(kind: str, criterion: str) -> str:
    return f"{kind}:{criterion}"


def column_label(column: str) -> str:
    """`party:stylistic_similarity` -> `user stylistic similarity` (for tables and figures)."""
    kind, _, criterion = column.partition(":")
    if not criterion:
        return column.replace("_", " ")
    who = {"party": "user", "third_party": "third-party", "model": "model"}.get(kind, kind)
    return f"{who} {criterion.replace('_', ' ')}"


def group_name(group: dict[str, str]) -> str:
    return ", ".join(f"{value}" for value in group.values()) if group else "all"


# --------------------------------------------------------------------------- shared results


class Summary(Model):
    """Mean and sample sd of a set of numbers."""

    n: int
    mean: float | None
    sd: float | None


class RatingMean(Model):
    """Mean ± sample sd of one criterion from one kind of rater, in one group.

    Party answers count once each; third-party and model ratings are averaged per dialogue first
    (`n` is then a number of dialogues), which is how corpus cards report them.
    """

    group: dict[str, str] = Field(default_factory=dict)
    rater_kind: str
    criterion: str
    n: int
    mean: float
    sd: float | None


def summarize(values: Iterable[float]) -> Summary:
    numbers = [float(v) for v in values if v is not None and not math.isnan(float(v))]
    return Summary(
        n=len(numbers),
        mean=statistics.fmean(numbers) if numbers else None,
        sd=statistics.stdev(numbers) if len(numbers) > 1 else None,
    )


def rating_means(dialogues: Sequence[Dialogue], by: Sequence[str] = ()) -> list[RatingMean]:
    """Rating means per group of `by` (columns of `dialogue_groups`), by rater kind and criterion."""
    frame = ratings_frame(dialogues)
    if frame.empty:
        return []
    by = [column for column in by if column in frame.columns]
    keys = ["dialogue", "rater_kind", "criterion", *by]
    pooled = frame[frame["rater_kind"] == "party"]
    averaged = frame[frame["rater_kind"] != "party"].groupby(keys, dropna=False, sort=False)["value"].mean().reset_index()
    values = pd.concat([pooled[[*keys, "value"]], averaged], ignore_index=True)
    criterion_order = {c: i for i, c in enumerate(dict.fromkeys(frame["criterion"]))}
    kind_order = {"party": 0, "third_party": 1, "model": 2}
    means = []
    for key, members in values.groupby([*by, "rater_kind", "criterion"], dropna=False, sort=True):
        key = key if isinstance(key, tuple) else (key,)
        group = {column: str(value) for column, value in zip(by, key, strict=False) if isinstance(value, str)}
        kind, criterion = key[len(by)], key[len(by) + 1]
        summary = summarize(members["value"])
        means.append(RatingMean(group=group, rater_kind=kind, criterion=criterion, n=summary.n, mean=summary.mean, sd=summary.sd))
    means.sort(key=lambda m: (tuple(m.group.get(c, "") for c in by), kind_order.get(m.rater_kind, 3), criterion_order.get(m.criterion, 0)))
    return means


def grouped_correlations(frame: pd.DataFrame, pairs: list[tuple[str, str]], *, method: str, by: Sequence[str], bootstrap: int, seed: int) -> list[Correlation]:
    """`correlations` over all rows and per group, but computed once when there is only one group.

    With a single group (every dialogue of one task, say) the group's figures would repeat the
    overall ones; they are given once, labelled with the group.
    """
    if not pairs:
        return []
    by = [c for c in by if c in frame.columns]
    present = frame.dropna(subset=by) if by else frame
    if by and len(present) == len(frame) and len(present.groupby(by)) == 1:
        group = {c: str(present[c].iloc[0]) for c in by}
        return [c.model_copy(update={"group": group}) for c in correlations(frame, pairs, method=method, bootstrap=bootstrap, seed=seed)]  # type: ignore[arg-type]
    return correlations(frame, pairs, method=method, by=list(by), bootstrap=bootstrap, seed=seed)  # type: ignore[arg-type]


def unique_correlations(found: Iterable[Correlation]) -> list[Correlation]:
    """Drop repeated (x, y, group) results that several `correlations` calls share (the overall rows)."""
    seen: set[tuple] = set()
    kept = []
    for item in found:
        key = (item.method, item.x, item.y, tuple(sorted(item.group.items())))
        if key not in seen:
            seen.add(key)
            kept.append(item)
    return kept


# --------------------------------------------------------------------------- any dialogues


class DialoguesAnalysis(Model):
    """Any dialogues: statistics, rating means, third-party agreement, ratings vs outcomes per group."""

    dialogues: int
    by: list[str]
    stats: CorpusStats
    rating_means: list[RatingMean]
    agreement: list[Agreement]
    party_correlations: list[Correlation]
    """Per party: each own rating against the party's score and the agreement (Spearman)."""
    dialogue_correlations: list[Correlation]
    """Per dialogue: each rating (user, third-party, model) against the outcome, and a criterion as
    rated by one kind of rater against the same criterion from another kind (Spearman)."""


OUTCOME_MEASURES = ("score", "agreed", "walk_away")
DIALOGUE_OUTCOMES = ("joint_score", "agreed", "walk_away")
_PARTY_LABELS = {"dialogue", "party"}


def default_grouping(dialogues: Sequence[Dialogue]) -> list[str]:
    """Group by task, plus the self-play pairing when the dialogues were played by duologue."""
    by = ["task"]
    if any(d.meta.get("agents") for d in dialogues):
        by.append("agents")
    return by


def _rating_columns(frame: pd.DataFrame, skip: set[str]) -> list[str]:
    return [c for c in frame.columns if c not in skip and frame[c].dtype.kind == "f" and frame[c].notna().any()]


def analyze_dialogues(dialogues: Iterable[Dialogue], *, by: Sequence[str] | None = None, bootstrap: int = BOOTSTRAP, seed: int = 0) -> DialoguesAnalysis:
    """Analyse any dialogues (corpus, self-play, platform export) by the `by` grouping fields."""
    from duologue.analysis.frames import GROUP_KEYS

    dialogues = list(dialogues)
    by = list(by) if by is not None else default_grouping(dialogues)
    unknown = [c for c in by if c not in GROUP_KEYS]
    if unknown:
        raise ValueError(f"cannot group by {', '.join(unknown)}; the grouping fields are {', '.join(GROUP_KEYS)}")
    parties = party_frame(dialogues)
    by_parties = [c for c in by if c in parties.columns]
    party_labels = _PARTY_LABELS | set(GROUP_KEYS) | set(OUTCOME_MEASURES)
    own = _rating_columns(parties, party_labels)
    outcomes = [c for c in OUTCOME_MEASURES if c in parties.columns and parties[c].notna().any()]
    pairs = [(rating, outcome) for rating in own for outcome in outcomes]
    pairs += [(own[i], own[j]) for i in range(len(own)) for j in range(i + 1, len(own))]
    party_found = grouped_correlations(parties, pairs, method="spearman", by=by_parties, bootstrap=bootstrap, seed=seed)

    frame = dialogue_frame(dialogues)
    rated = [c for c in frame.columns if ":" in c and frame[c].notna().any()]
    dialogue_outcomes = [c for c in DIALOGUE_OUTCOMES if c in frame.columns and frame[c].notna().any()]
    dialogue_pairs = [(rating, outcome) for rating in rated for outcome in dialogue_outcomes]
    for i, first in enumerate(rated):
        for second in rated[i + 1 :]:
            if first.split(":", 1)[1] == second.split(":", 1)[1]:
                dialogue_pairs.append((first, second))
    by_dialogues = [c for c in by if c in frame.columns]
    dialogue_found = grouped_correlations(frame, dialogue_pairs, method="spearman", by=by_dialogues, bootstrap=bootstrap, seed=seed)
    agreement = agreement_by_criterion(dialogues, rater_kind="third_party", level="interval", by=by_dialogues, seed=seed)
    return DialoguesAnalysis(
        dialogues=len(dialogues),
        by=by,
        stats=corpus_statistics(dialogues, _grouper(by)),
        rating_means=rating_means(dialogues, by),
        agreement=agreement,
        party_correlations=party_found,
        dialogue_correlations=dialogue_found,
    )


def _grouper(by: Sequence[str]):
    from duologue.analysis.frames import dialogue_groups

    def group_of(dialogue: Dialogue) -> str:
        groups = dialogue_groups(dialogue)
        return " / ".join(groups.get(column, "-") for column in by) or "all"

    return group_of


# --------------------------------------------------------------------------- reports


def mean_sd(mean: float | None, sd: float | None) -> str:
    if mean is None:
        return "–"
    return f"{mean:.2f} ± {sd:.2f}" if sd is not None else f"{mean:.2f}"


def stats_section(report: Report, stats: CorpusStats, title: str = "Corpus statistics") -> None:
    """The statistics of `duologue.data.stats` as tables, one column per group (plus the whole)."""
    columns = [*stats.groups, stats.overall] if len(stats.groups) > 1 else (stats.groups or [stats.overall])
    section = report.section(title)
    names = [g.group for g in columns]

    def spread(s) -> str:
        if s.min is None:
            return "–"
        return f"{s.min}" if s.min == s.max else f"{s.min}–{s.max}"

    rows: list[list[object]] = [
        ["Dialogues", *(g.dialogues for g in columns)],
        ["Participants", *(g.participants for g in columns)],
        ["Utterances", *(g.utterances for g in columns)],
        ["Tokens", *(g.tokens for g in columns)],
        ["Utterances per dialogue (min–max)", *(spread(g.utterances_per_dialogue) for g in columns)],
        ["Utterances per dialogue (mean)", *(g.utterances_per_dialogue.mean for g in columns)],
        ["Utterance length in tokens (min–max)", *(spread(g.utterance_length) for g in columns)],
        ["Utterance length in tokens (mean)", *(g.utterance_length.mean for g in columns)],
        ["Vocabulary", *(g.vocabulary for g in columns)],
        ["Type-token ratio", *(g.type_token_ratio for g in columns)],
        ["Herdan's C", *(g.herdan_c for g in columns)],
    ]
    if any(g.outcome for g in columns):
        rows.append(["Agreement / success rate", *(g.outcome.agreement_rate if g.outcome else None for g in columns)])
        rows.append(["Walk-aways", *(g.outcome.walk_aways if g.outcome else None for g in columns)])
        rows.append(["Score per party (mean ± sd)", *(mean_sd(g.outcome.score_mean, g.outcome.score_sd) if g.outcome else "–" for g in columns)])
    tokenization = "; ".join(f"{language}: {text}" for language, text in stats.tokenization.items())
    section.table(["", *names], rows, caption=f"Tokens: {tokenization}" if tokenization else None)
    keys: list[tuple[str, str]] = list(dict.fromkeys((s.rater_kind, s.criterion) for g in columns for s in g.ratings))
    if keys:
        rating_rows = []
        for kind, criterion in keys:
            cells = []
            for group in columns:
                found = next((s for s in group.ratings if s.rater_kind == kind and s.criterion == criterion), None)
                cells.append("–" if found is None else f"{mean_sd(found.mean, found.sd)} (n={found.values})")
            rating_rows.append([column_label(f"{kind}:{criterion}"), *cells])
        section.table(["rating (mean ± sd)", *names], rating_rows, caption="Third-party and model ratings are averaged over a dialogue's raters first.")


def correlation_rows(found: Sequence[Correlation]) -> list[list[object]]:
    return [[group_name(c.group), column_label(c.x), column_label(c.y), c.n, c.r, c.low, c.high, p_value(c.p)] for c in found]


CORRELATION_COLUMNS = ["group", "x", "y", "n", "r", "95% low", "95% high", "p"]


def agreement_section(section, agreement: Sequence[Agreement]) -> None:
    section.table(
        ["group", "criterion", "measure", "value", "95% low", "95% high", "items", "raters"],
        [[group_name(a.group), a.criterion.replace("_", " "), f"{a.measure} ({a.level})" if a.level else a.measure, a.value, a.low, a.high, a.items, a.raters] for a in agreement],
    )


def matrix_figure(frame: pd.DataFrame, columns: list[str], title: str, method: str):
    matrix = correlation_matrix(frame, columns, method=method)  # type: ignore[arg-type]
    labels = [column_label(c) for c in columns]
    values = [[None if pd.isna(v) else float(v) for v in row] for row in matrix.to_numpy()]
    return heatmap_figure(values, labels, title=title, value_label=f"{method.capitalize()} r")


def groups_of_frame(frame: pd.DataFrame, by: Sequence[str]) -> list[tuple[dict[str, str], pd.DataFrame]]:
    by = [c for c in by if c in frame.columns]
    if not by:
        return [({}, frame)]
    out = []
    for key, members in frame.groupby(by, sort=True, dropna=True):
        key = key if isinstance(key, tuple) else (key,)
        out.append(({c: str(v) for c, v in zip(by, key, strict=True)}, members))
    return out


def dialogues_report(analysis: DialoguesAnalysis, dialogues: Sequence[Dialogue], *, source: str | None = None) -> Report:
    """The analysis of any dialogues as an HTML report."""
    report = Report("Dialogue analysis", subtitle=f"{analysis.dialogues} dialogues grouped by {', '.join(analysis.by) or 'nothing'}" + (f" from {source}" if source else ""))
    stats_section(report, analysis.stats)
    if analysis.rating_means:
        section = report.section("Rating means")
        section.table(["group", "rater", "criterion", "n", "mean", "sd"], [[group_name(m.group), m.rater_kind.replace("_", "-"), m.criterion.replace("_", " "), m.n, m.mean, m.sd] for m in analysis.rating_means])
        ratings = ratings_frame(dialogues)
        for group, members in groups_of_frame(ratings, analysis.by):
            distributions: dict[str, dict[str, list[float]]] = defaultdict(dict)
            for (kind, criterion), values in members.groupby(["rater_kind", "criterion"], sort=False)["value"]:
                distributions[criterion][kind.replace("_", "-")] = list(values)
            section.figure(rating_distribution_figure(distributions, title=f"Rating distributions: {group_name(group)}"), alt=f"Share of each answer per criterion, {group_name(group)}")
    if analysis.agreement:
        section = report.section("Agreement of third-party raters")
        agreement_section(section, analysis.agreement)
    if analysis.party_correlations or analysis.dialogue_correlations:
        section = report.section("Ratings and outcomes")
        section.text("Spearman correlations with 95% bootstrap intervals, over all dialogues and per group.")
        if analysis.party_correlations:
            section.table(CORRELATION_COLUMNS, correlation_rows(analysis.party_correlations), caption="Per party: its own ratings, its score and the outcome")
        if analysis.dialogue_correlations:
            section.table(CORRELATION_COLUMNS, correlation_rows(analysis.dialogue_correlations), caption="Per dialogue: ratings by each kind of rater and the outcome")
        parties = party_frame(dialogues)
        skip = _PARTY_LABELS | set(analysis.by) | {"task", "split", "language", "setting", "style", "model", "agents"}
        columns = [c for c in parties.columns if c not in skip and parties[c].dtype.kind == "f" and parties[c].notna().sum() >= 3 and parties[c].nunique() > 1]
        if len(columns) >= 2:
            for group, members in groups_of_frame(parties, analysis.by):
                section.figure(matrix_figure(members, columns, f"Spearman correlations per party: {group_name(group)}", "spearman"), alt=f"Heat map of correlations between ratings and outcomes, {group_name(group)}")
    return report

"""The CaSiNo corpus's own analysis (`duologue analyze casino`), named by the task's spec.

Points per participant, satisfaction and opponent liking (labels as 1..5), their Pearson
correlations per participant (the CaSiNo paper's analysis), walk-aways, and how often each
negotiation strategy is used and how its use goes with the outcome.
"""

from __future__ import annotations

from collections import Counter
from typing import Iterable, Sequence

import pandas as pd
from pydantic import Field
from rich.table import Table

from duologue.core.schema import Dialogue, Message, Model
from duologue.data.stats import corpus_statistics
from duologue.analysis.analyses import (
    BOOTSTRAP,
    CORRELATION_COLUMNS,
    Summary,
    TaskAnalysis,
    correlation_rows,
    matrix_figure,
    mean_sd,
    stats_section,
    summarize,
)
from duologue.analysis.correlation import Correlation, correlate, correlations
from duologue.analysis.frames import party_frame
from duologue.analysis.report import Report, heatmap_figure, rating_distribution_figure, scatter_figure
from duologue.analysis.tables import correlation_table, number
from duologue.tasks.casino.task import CasinoTask

SATISFACTION, LIKING, POINTS = "satisfaction", "opponent_likeness", "score"
CASINO_MEASURES = [POINTS, SATISFACTION, LIKING]
STRATEGY_LAYER = "strategy"
LIKED_BY_PARTNER = "liked_by_partner"


class CountShare(Model):
    label: str
    count: int
    share: float


class WalkAways(Model):
    """How many dialogues ended in a walk-away, and how the people in them felt."""

    dialogues: int
    walk_aways: int
    rate: float | None
    satisfaction_walked: Summary
    """Satisfaction of participants in walk-away dialogues."""
    satisfaction_agreed: Summary
    liking_walked: Summary
    liking_agreed: Summary


class StrategyUse(Model):
    """One negotiation strategy: how often it is used, and how its use per participant goes with outcomes.

    `correlations`: Pearson r between how many of a participant's utterances carry the strategy and
    the participant's points, satisfaction, liking of the partner, and how much the partner liked
    them (`liked_by_partner`), over the participants of annotated dialogues.
    """

    strategy: str
    utterances: int
    share: float
    """Share of annotated utterances carrying the label."""
    dialogues: int
    participants_using: int
    mean_points_using: float | None
    mean_points_not_using: float | None
    correlations: list[Correlation] = Field(default_factory=list)


class CasinoAnalysis(TaskAnalysis):
    """CaSiNo: points, satisfaction and liking, their correlations, walk-aways and strategies."""

    participants: int
    points: Summary
    satisfaction: Summary
    liking: Summary
    satisfaction_answers: list[CountShare]
    liking_answers: list[CountShare]
    correlations: list[Correlation]
    """Pearson over participants: points, satisfaction and opponent liking; overall and per `by` group."""
    walk_aways: WalkAways
    annotated_dialogues: int
    annotated_utterances: int
    strategies: list[StrategyUse]

    def correlation(self, x: str, y: str, **group: str) -> Correlation | None:
        return next((c for c in self.correlations if c.x == x and c.y == y and c.group == group), None)

    def tables(self) -> list[Table]:
        return casino_tables(self)

    def report(self, dialogues: Sequence[Dialogue], *, source: str | None = None) -> Report:
        return casino_report(self, dialogues, source=source)


def _answers(dialogues: Sequence[Dialogue], criterion: str) -> list[CountShare]:
    """Counts of each label of a labelled scale, in scale order (all labels, even unused ones)."""
    counts: Counter[str] = Counter()
    labels: list[str] = []
    for dialogue in dialogues:
        for rating in dialogue.ratings:
            if rating.criterion == criterion and rating.rater_kind == "party":
                counts[str(rating.value)] += 1
                if rating.scale.labels and not labels:
                    labels = list(rating.scale.labels)
    total = sum(counts.values())
    order = labels or sorted(counts)
    return [CountShare(label=label, count=counts.get(label, 0), share=counts.get(label, 0) / total if total else 0.0) for label in order]


def _strategy_counts(dialogues: Sequence[Dialogue]) -> tuple[pd.DataFrame, Counter, Counter, int]:
    """Per participant of annotated dialogues: how many utterances carry each strategy.

    Also returns, per strategy, utterance counts and dialogue counts, and the number of annotated
    utterances (messages with a strategy annotation).
    """
    rows = []
    utterances: Counter[str] = Counter()
    in_dialogues: Counter[str] = Counter()
    annotated_utterances = 0
    for dialogue in dialogues:
        layer = [(a.event, a) for a in dialogue.annotations_of(STRATEGY_LAYER) if a.event is not None]
        if not layer:
            continue
        per_party: dict[str, Counter[str]] = {p.id: Counter() for p in dialogue.parties}
        used: set[str] = set()
        for index, annotation in layer:
            event = dialogue.events[index]
            if not isinstance(event, Message) or event.party not in per_party:
                continue
            annotated_utterances += 1
            for label in dict.fromkeys(annotation.labels):
                per_party[event.party][label] += 1
                utterances[label] += 1
                used.add(label)
        in_dialogues.update(used)
        for party, counts in per_party.items():
            rows.append({"dialogue": dialogue.id, "party": party, **{f"uses:{k}": v for k, v in counts.items()}})
    frame = pd.DataFrame(rows)
    return frame, utterances, in_dialogues, annotated_utterances


def analyze_casino(dialogues: Iterable[Dialogue], *, by: Sequence[str] = (), bootstrap: int = BOOTSTRAP, seed: int = 0) -> CasinoAnalysis:
    """Analyse CaSiNo dialogues: the corpus paper's outcome figures, on whatever splits are given."""
    dialogues = [d for d in dialogues if d.task == CasinoTask.spec.family]
    if not dialogues:
        raise ValueError("no CaSiNo dialogues to analyse")
    parties = party_frame(dialogues)
    for column in (SATISFACTION, LIKING):
        if column not in parties.columns:
            parties[column] = float("nan")
    measures = [c for c in CASINO_MEASURES if parties[c].notna().any()]
    pairs = [(measures[i], measures[j]) for i in range(len(measures)) for j in range(i + 1, len(measures))]
    by = [c for c in by if c in parties.columns]
    found = correlations(parties, pairs, method="pearson", by=by, bootstrap=bootstrap, seed=seed)

    walked = parties[parties["walk_away"] == 1.0]
    agreed = parties[parties["agreed"] == 1.0]
    outcomes = [d.outcome for d in dialogues if d.outcome is not None]
    walk_count = sum(1 for o in outcomes if o.reason == "walk_away")
    walk_aways = WalkAways(
        dialogues=len(outcomes),
        walk_aways=walk_count,
        rate=walk_count / len(outcomes) if outcomes else None,
        satisfaction_walked=summarize(walked[SATISFACTION]),
        satisfaction_agreed=summarize(agreed[SATISFACTION]),
        liking_walked=summarize(walked[LIKING]),
        liking_agreed=summarize(agreed[LIKING]),
    )

    strategy_rows, utterances, in_dialogues, annotated_utterances = _strategy_counts(dialogues)
    strategies = []
    if not strategy_rows.empty:
        partner_liking = _partner_liking(parties)
        merged = strategy_rows.merge(parties, on=["dialogue", "party"], how="left").merge(partner_liking, on=["dialogue", "party"], how="left")
        merged = merged.fillna({c: 0 for c in merged.columns if c.startswith("uses:")})
        for strategy, count in utterances.most_common():
            uses = merged[f"uses:{strategy}"]
            strategy_correlations = []
            for outcome in (POINTS, SATISFACTION, LIKING, LIKED_BY_PARTNER):
                try:
                    strategy_correlations.append(
                        correlate(uses, merged[outcome], method="pearson", x_name=f"uses:{strategy}", y_name=outcome, bootstrap=bootstrap, seed=seed)
                    )
                except ValueError:
                    continue
            using = merged[uses > 0]
            others = merged[uses == 0]
            strategies.append(
                StrategyUse(
                    strategy=strategy,
                    utterances=count,
                    share=count / annotated_utterances if annotated_utterances else 0.0,
                    dialogues=in_dialogues[strategy],
                    participants_using=len(using),
                    mean_points_using=summarize(using[POINTS]).mean,
                    mean_points_not_using=summarize(others[POINTS]).mean,
                    correlations=strategy_correlations,
                )
            )
    return CasinoAnalysis(
        dialogues=len(dialogues),
        participants=len(parties),
        stats=corpus_statistics(dialogues, lambda d: d.split or "all"),
        points=summarize(parties[POINTS]),
        satisfaction=summarize(parties[SATISFACTION]),
        liking=summarize(parties[LIKING]),
        satisfaction_answers=_answers(dialogues, SATISFACTION),
        liking_answers=_answers(dialogues, LIKING),
        correlations=found,
        walk_aways=walk_aways,
        annotated_dialogues=int(strategy_rows["dialogue"].nunique()) if not strategy_rows.empty else 0,
        annotated_utterances=annotated_utterances,
        strategies=strategies,
    )


def _partner_liking(parties: pd.DataFrame) -> pd.DataFrame:
    """Per (dialogue, party): how much the other party of the dialogue liked them."""
    rows = []
    for dialogue, members in parties.groupby("dialogue", sort=False):
        if len(members) != 2:
            continue
        first, second = members.iloc[0], members.iloc[1]
        rows.append({"dialogue": dialogue, "party": first["party"], LIKED_BY_PARTNER: second[LIKING]})
        rows.append({"dialogue": dialogue, "party": second["party"], LIKED_BY_PARTNER: first[LIKING]})
    return pd.DataFrame(rows, columns=["dialogue", "party", LIKED_BY_PARTNER])


def analyze(dialogues: Iterable[Dialogue], *, by: Sequence[str] | None = None, bootstrap: int = BOOTSTRAP, seed: int = 0) -> CasinoAnalysis:
    """CaSiNo: points, satisfaction and liking, their correlations, walk-aways and strategies vs outcome.

    `by`: fields to correlate within as well (e.g. split); default: none.
    """
    return analyze_casino(dialogues, by=by or (), bootstrap=bootstrap, seed=seed)


# --------------------------------------------------------------------------- tables and report


def casino_tables(analysis: CasinoAnalysis) -> list[Table]:
    """The analysis as terminal tables: per participant, correlations, strategies."""
    summary = Table(title="Per participant", title_justify="left")
    for column in ("measure", "n", "mean", "sd"):
        summary.add_column(column, justify="left" if column == "measure" else "right")
    for name, s in (("points", analysis.points), ("satisfaction (1-5)", analysis.satisfaction), ("opponent liking (1-5)", analysis.liking)):
        summary.add_row(name, str(s.n), number(s.mean, 2), number(s.sd, 2))
    walk = analysis.walk_aways
    summary.caption = (
        f"walk-aways: {walk.walk_aways} of {walk.dialogues} dialogues ({number(walk.rate, 3)}); satisfaction after a walk-away "
        f"{number(walk.satisfaction_walked.mean, 2)} vs {number(walk.satisfaction_agreed.mean, 2)} after a deal"
    )
    tables = [summary, correlation_table("Pearson correlations per participant", analysis.correlations)]
    if analysis.strategies:
        strategies = Table(title=f"Strategies ({analysis.annotated_dialogues} annotated dialogues, {analysis.annotated_utterances} utterances): use vs outcome (Pearson r per participant)", title_justify="left")
        strategies.add_column("strategy", no_wrap=True)
        for column in ("uses", "share", "r pts", "r sat", "r like", "r liked"):
            strategies.add_column(column, justify="right", no_wrap=True)
        strategies.caption = "r pts, r sat: own points and satisfaction; r like: the participant's liking of the partner; r liked: the partner's liking of the participant"
        for use in analysis.strategies:
            r = {c.y: c.r for c in use.correlations}
            strategies.add_row(use.strategy, str(use.utterances), number(use.share, 2), *(number(r.get(o), 2) for o in ("score", "satisfaction", "opponent_likeness", "liked_by_partner")))
        tables.append(strategies)
    return tables


def casino_report(analysis: CasinoAnalysis, dialogues: Sequence[Dialogue], *, source: str | None = None) -> Report:
    """The CaSiNo analysis as an HTML report."""
    report = Report("CaSiNo: points, satisfaction and liking", subtitle=f"{analysis.dialogues} dialogues, {analysis.participants} participants" + (f" from {source}" if source else ""))
    stats_section(report, analysis.stats)

    section = report.section("Outcomes")
    walk = analysis.walk_aways
    section.table(
        ["measure (per participant)", "n", "mean", "sd"],
        [
            ["points", analysis.points.n, analysis.points.mean, analysis.points.sd],
            ["satisfaction (1–5)", analysis.satisfaction.n, analysis.satisfaction.mean, analysis.satisfaction.sd],
            ["opponent liking (1–5)", analysis.liking.n, analysis.liking.mean, analysis.liking.sd],
        ],
        caption="Answers on the five-label scales are numbered 1 (Extremely dissatisfied / dislike) to 5 (Extremely satisfied / like).",
    )
    section.table(
        ["", "dialogues", "walk-aways", "rate", "satisfaction: walked", "satisfaction: deal", "liking: walked", "liking: deal"],
        [["walk-aways", walk.dialogues, walk.walk_aways, walk.rate, mean_sd(walk.satisfaction_walked.mean, walk.satisfaction_walked.sd), mean_sd(walk.satisfaction_agreed.mean, walk.satisfaction_agreed.sd), mean_sd(walk.liking_walked.mean, walk.liking_walked.sd), mean_sd(walk.liking_agreed.mean, walk.liking_agreed.sd)]],
    )
    parties = party_frame(dialogues)
    labels = {SATISFACTION: [a.label for a in analysis.satisfaction_answers], LIKING: [a.label for a in analysis.liking_answers]}
    for criterion in (SATISFACTION, LIKING):
        if criterion not in parties.columns or not labels[criterion]:
            continue
        outcome = parties["walk_away"].map({1.0: "walk-away", 0.0: "deal"}).fillna("unknown")
        distributions = {criterion: {name: list(parties.loc[outcome == name, criterion].dropna()) for name in ("deal", "walk-away") if (outcome == name).any()}}
        section.figure(
            rating_distribution_figure(distributions, title=f"{criterion.replace('_', ' ').capitalize()} after a deal or a walk-away", answers=[1, 2, 3, 4, 5], answer_labels=labels[criterion], columns=1),
            alt=f"Share of each {criterion} answer for participants who made a deal and who walked away",
        )

    section = report.section("Correlations")
    section.text("Pearson correlations over participants (each dialogue gives two), with 95% bootstrap intervals.")
    section.table(CORRELATION_COLUMNS, correlation_rows(analysis.correlations))
    measures = [c for c in CASINO_MEASURES if c in parties.columns and parties[c].notna().any()]
    if len(measures) >= 2:
        renamed = parties.rename(columns={POINTS: "points", LIKING: "opponent liking"})
        names = ["points" if c == POINTS else "opponent liking" if c == LIKING else c for c in measures]
        section.figure(matrix_figure(renamed, names, "Pearson correlations per participant", "pearson"), alt="Heat map of the Pearson correlations between points, satisfaction and opponent liking")
    for x, y in ((POINTS, SATISFACTION), (POINTS, LIKING), (SATISFACTION, LIKING)):
        if x in parties.columns and y in parties.columns and parties[[x, y]].notna().all(axis=1).sum() >= 3:
            pairs = parties.dropna(subset=[x, y])
            found = analysis.correlation(x, y)
            name = {POINTS: "points", LIKING: "opponent liking", SATISFACTION: "satisfaction (1–5)"}
            section.figure(
                scatter_figure(pairs[x], pairs[y], title=f"{name[x]} vs {name[y]}", x_label=name[x], y_label=name[y], jitter=0.25 if x == POINTS else 0.15, note=f"Pearson r = {found.r:.3f} (n = {found.n})" if found else None),
                alt=f"Scatter of {name[x]} against {name[y]} per participant, jittered",
            )

    section = report.section("Strategies and outcomes")
    if not analysis.strategies:
        section.text("These dialogues carry no strategy annotations.")
        return report
    section.text(
        f"{analysis.annotated_dialogues} dialogues carry strategy annotations ({analysis.annotated_utterances} utterances). "
        "r: Pearson correlation, over the participants of annotated dialogues, between how many of a participant's utterances "
        "carry the strategy and that participant's outcome; 'liked by partner' is the partner's liking of them."
    )
    outcomes = (POINTS, SATISFACTION, LIKING, LIKED_BY_PARTNER)
    rows = []
    matrix = []
    for use in analysis.strategies:
        by_outcome = {c.y: c for c in use.correlations}
        rows.append([use.strategy, use.utterances, use.share, use.dialogues, use.participants_using, use.mean_points_using, use.mean_points_not_using, *(by_outcome[o].r if o in by_outcome else None for o in outcomes)])
        matrix.append([by_outcome[o].r if o in by_outcome else None for o in outcomes])
    outcome_names = ["points", "satisfaction", "liking of partner", "liked by partner"]
    section.table(["strategy", "utterances", "share", "dialogues", "participants using", "points: using", "points: not using", *(f"r: {o}" for o in outcome_names)], rows)
    section.figure(
        heatmap_figure(matrix, [u.strategy for u in analysis.strategies], column_labels=outcome_names, title="Strategy use vs outcome (Pearson r)", low=-0.4, high=0.4),
        alt="Heat map of Pearson correlations between each strategy's use and the participant's outcomes",
        caption="Colour scale -0.4 to 0.4: these correlations are small.",
    )
    return report

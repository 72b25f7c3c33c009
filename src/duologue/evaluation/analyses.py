"""The corpus analyses behind `duologue analyze`: DUO, CaSiNo, and any set of dialogues.

Each analysis returns a pydantic model (so `--format json` is `model_dump_json`) and has a report
function that turns it into an HTML `Report` with figures. What each one computes, and why:

* `analyze_duo`: the corpus statistics table (`duologue.data.stats`, the corpus card's table);
  rating means ± sample sd of the user's own and the third-party ratings per language and setting
  (third-party ratings averaged over a dialogue's raters first, as the card does); Spearman
  correlations between the user's and the third parties' stylistic similarity and preference,
  per language and setting, and within each style prompt and bot model (the paper's question:
  does *perceived* similarity go with liking, and whose perception counts?); and the agreement of
  the third-party raters (interval Krippendorff's alpha), which bounds how much their mean can
  track anything.
* `analyze_casino`: points per participant, satisfaction and opponent liking (labels as 1..5),
  their Pearson correlations per participant (the CaSiNo paper's analysis), walk-aways, and how
  often each negotiation strategy is used and how its use goes with the outcome.
* `analyze_dialogues`: the same building blocks for dialogues of any source (self-play output,
  platform exports): statistics, rating means, third-party agreement, and every rating against
  every outcome, per group.

Statistics come from `duologue.evaluation.frames`, `.correlation` and `.agreement`; this module
only chooses what to compute and how to present it.
"""

from __future__ import annotations

import math
import statistics
from collections import Counter, defaultdict
from typing import Iterable, Sequence

import pandas as pd
from pydantic import Field

from duologue.core.schema import Dialogue, Message, Model
from duologue.data.stats import CorpusStats, corpus_statistics
from duologue.evaluation.agreement import Agreement, agreement_by_criterion
from duologue.evaluation.correlation import Correlation, correlate, correlation_matrix, correlations
from duologue.evaluation.frames import dialogue_frame, party_frame, ratings_frame
from duologue.evaluation.report import Report, heatmap_figure, rating_distribution_figure, scatter_figure

SIMILARITY, PREFERENCE = "stylistic_similarity", "preference"
USER, THIRD_PARTY = "party", "third_party"
DUO_GROUPS = ["language", "setting"]
DUO_SPLITS = ["style", "model"]
"""DUO correlations are also computed within each style prompt and each bot model."""

SATISFACTION, LIKING, POINTS = "satisfaction", "opponent_likeness", "score"
CASINO_MEASURES = [POINTS, SATISFACTION, LIKING]
STRATEGY_LAYER = "strategy"
LIKED_BY_PARTNER = "liked_by_partner"
BOOTSTRAP = 2000


def _column(kind: str, criterion: str) -> str:
    return f"{kind}:{criterion}"


def _label(column: str) -> str:
    """`party:stylistic_similarity` -> `user stylistic similarity` (for tables and figures)."""
    kind, _, criterion = column.partition(":")
    if not criterion:
        return column.replace("_", " ")
    who = {"party": "user", "third_party": "third-party", "model": "model"}.get(kind, kind)
    return f"{who} {criterion.replace('_', ' ')}"


def _group_name(group: dict[str, str]) -> str:
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


def _summary(values: Iterable[float]) -> Summary:
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
        group = {column: str(value) for column, value in zip(by, key) if isinstance(value, str)}
        kind, criterion = key[len(by)], key[len(by) + 1]
        summary = _summary(members["value"])
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


def _unique(found: Iterable[Correlation]) -> list[Correlation]:
    """Drop repeated (x, y, group) results that several `correlations` calls share (the overall rows)."""
    seen: set[tuple] = set()
    kept = []
    for item in found:
        key = (item.method, item.x, item.y, tuple(sorted(item.group.items())))
        if key not in seen:
            seen.add(key)
            kept.append(item)
    return kept


# --------------------------------------------------------------------------- DUO


DUO_PAIRS: list[tuple[str, str]] = [
    (_column(USER, SIMILARITY), _column(USER, PREFERENCE)),
    (_column(THIRD_PARTY, SIMILARITY), _column(USER, PREFERENCE)),
    (_column(USER, SIMILARITY), _column(THIRD_PARTY, SIMILARITY)),
    (_column(USER, PREFERENCE), _column(THIRD_PARTY, PREFERENCE)),
    (_column(THIRD_PARTY, SIMILARITY), _column(THIRD_PARTY, PREFERENCE)),
]
"""User vs third-party similarity and preference: every pairing the DUO paper discusses."""


class DuoAnalysis(Model):
    """DUO: statistics, rating means, similarity/preference correlations and third-party agreement."""

    dialogues: int
    stats: CorpusStats
    rating_means: list[RatingMean]
    """Per language and setting."""
    correlations: list[Correlation]
    """Spearman, per language and setting, and within each style prompt and model (`group`)."""
    agreement: list[Agreement]
    """Third-party raters' interval Krippendorff's alpha per criterion, language and setting."""

    def correlation(self, x: str, y: str, **group: str) -> Correlation | None:
        """The correlation of columns x and y in exactly this group (`language="en", setting="ed"`)."""
        return next((c for c in self.correlations if c.x == x and c.y == y and c.group == group), None)


def _duo_group(dialogue: Dialogue) -> str:
    return f"{dialogue.language}/{dialogue.scenario.public.get('setting', 'unknown')}"


def analyze_duo(dialogues: Iterable[Dialogue], *, splits: Sequence[str] = DUO_SPLITS, bootstrap: int = BOOTSTRAP, seed: int = 0) -> DuoAnalysis:
    """Analyse DUO dialogues (or any open chats rated by their user and by third parties)."""
    dialogues = list(dialogues)
    frame = dialogue_frame(dialogues)
    base = [c for c in DUO_GROUPS if c in frame.columns]
    pairs = [(x, y) for x, y in DUO_PAIRS if x in frame.columns and y in frame.columns]
    found: list[Correlation] = []
    for extra in [[], *[[s] for s in splits if s in frame.columns and s not in base]]:
        found.extend(correlations(frame, pairs, method="spearman", by=[*base, *extra], bootstrap=bootstrap, seed=seed))
    agreement = agreement_by_criterion(dialogues, rater_kind="third_party", level="interval", by=base, seed=seed)
    return DuoAnalysis(
        dialogues=len(dialogues),
        stats=corpus_statistics(dialogues, _duo_group),
        rating_means=rating_means(dialogues, base),
        correlations=_unique(found),
        agreement=agreement,
    )


# --------------------------------------------------------------------------- CaSiNo


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


class CasinoAnalysis(Model):
    """CaSiNo: points, satisfaction and liking, their correlations, walk-aways and strategies."""

    dialogues: int
    participants: int
    stats: CorpusStats
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
        layer = [a for a in dialogue.annotations_of(STRATEGY_LAYER) if a.event is not None]
        if not layer:
            continue
        per_party: dict[str, Counter[str]] = {p.id: Counter() for p in dialogue.parties}
        used: set[str] = set()
        for annotation in layer:
            event = dialogue.events[annotation.event]
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
    dialogues = [d for d in dialogues if d.task == "casino"]
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
        satisfaction_walked=_summary(walked[SATISFACTION]),
        satisfaction_agreed=_summary(agreed[SATISFACTION]),
        liking_walked=_summary(walked[LIKING]),
        liking_agreed=_summary(agreed[LIKING]),
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
                    mean_points_using=_summary(using[POINTS]).mean,
                    mean_points_not_using=_summary(others[POINTS]).mean,
                    correlations=strategy_correlations,
                )
            )
    return CasinoAnalysis(
        dialogues=len(dialogues),
        participants=len(parties),
        stats=corpus_statistics(dialogues, lambda d: d.split or "all"),
        points=_summary(parties[POINTS]),
        satisfaction=_summary(parties[SATISFACTION]),
        liking=_summary(parties[LIKING]),
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
    from duologue.evaluation.frames import GROUP_KEYS

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
    from duologue.evaluation.frames import dialogue_groups

    def group_of(dialogue: Dialogue) -> str:
        groups = dialogue_groups(dialogue)
        return " / ".join(groups.get(column, "-") for column in by) or "all"

    return group_of


# --------------------------------------------------------------------------- reports


def _mean_sd(mean: float | None, sd: float | None) -> str:
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
        rows.append(["Score per party (mean ± sd)", *(_mean_sd(g.outcome.score_mean, g.outcome.score_sd) if g.outcome else "–" for g in columns)])
    tokenization = "; ".join(f"{language}: {text}" for language, text in stats.tokenization.items())
    section.table(["", *names], rows, caption=f"Tokens: {tokenization}" if tokenization else None)
    keys: list[tuple[str, str]] = list(dict.fromkeys((s.rater_kind, s.criterion) for g in columns for s in g.ratings))
    if keys:
        rating_rows = []
        for kind, criterion in keys:
            cells = []
            for group in columns:
                found = next((s for s in group.ratings if s.rater_kind == kind and s.criterion == criterion), None)
                cells.append("–" if found is None else f"{_mean_sd(found.mean, found.sd)} (n={found.values})")
            rating_rows.append([_label(f"{kind}:{criterion}"), *cells])
        section.table(["rating (mean ± sd)", *names], rating_rows, caption="Third-party and model ratings are averaged over a dialogue's raters first.")


def _correlation_rows(found: Sequence[Correlation]) -> list[list[object]]:
    return [[_group_name(c.group), _label(c.x), _label(c.y), c.n, c.r, c.low, c.high, c.p] for c in found]


CORRELATION_COLUMNS = ["group", "x", "y", "n", "r", "95% low", "95% high", "p"]


def _agreement_table(section, agreement: Sequence[Agreement]) -> None:
    section.table(
        ["group", "criterion", "measure", "value", "95% low", "95% high", "items", "raters"],
        [[_group_name(a.group), a.criterion.replace("_", " "), f"{a.measure} ({a.level})" if a.level else a.measure, a.value, a.low, a.high, a.items, a.raters] for a in agreement],
    )


def _matrix_figure(frame: pd.DataFrame, columns: list[str], title: str, method: str):
    matrix = correlation_matrix(frame, columns, method=method)  # type: ignore[arg-type]
    labels = [_label(c) for c in columns]
    values = [[None if pd.isna(v) else float(v) for v in row] for row in matrix.to_numpy()]
    return heatmap_figure(values, labels, title=title, value_label=f"{method.capitalize()} r")


def _groups_of_frame(frame: pd.DataFrame, by: Sequence[str]) -> list[tuple[dict[str, str], pd.DataFrame]]:
    by = [c for c in by if c in frame.columns]
    if not by:
        return [({}, frame)]
    out = []
    for key, members in frame.groupby(by, sort=True, dropna=True):
        key = key if isinstance(key, tuple) else (key,)
        out.append(({c: str(v) for c, v in zip(by, key)}, members))
    return out


SETTING_NAMES = {"ed": "ED", "wow": "WoW"}
LANGUAGE_NAMES = {"en": "English", "ja": "Japanese"}


def _duo_title(group: dict[str, str]) -> str:
    language = LANGUAGE_NAMES.get(group.get("language", ""), group.get("language", ""))
    setting = SETTING_NAMES.get(group.get("setting", ""), group.get("setting", ""))
    return " ".join(part for part in (setting, language) if part) or "all"


def duo_report(analysis: DuoAnalysis, dialogues: Sequence[Dialogue], *, source: str | None = None) -> Report:
    """The DUO analysis as an HTML report with rating distributions, scatters and heat maps."""
    report = Report("DUO: user and third-party evaluations", subtitle=f"{analysis.dialogues} dialogues" + (f" from {source}" if source else ""))
    stats_section(report, analysis.stats)

    section = report.section("Rating means by language and setting")
    section.text("Mean ± sample standard deviation. User ratings count once per dialogue; third-party ratings are first averaged over the dialogue's three raters.")
    section.table(["group", "rater", "criterion", "n", "mean", "sd"], [[_group_name(m.group), "user" if m.rater_kind == "party" else m.rater_kind.replace("_", "-"), m.criterion.replace("_", " "), m.n, m.mean, m.sd] for m in analysis.rating_means])
    ratings = ratings_frame(dialogues)
    for group, members in _groups_of_frame(ratings, DUO_GROUPS):
        distributions: dict[str, dict[str, list[float]]] = defaultdict(dict)
        for (kind, criterion), values in members.groupby(["rater_kind", "criterion"], sort=False)["value"]:
            distributions[criterion]["user" if kind == "party" else "third-party (each rater)"] = list(values)
        section.figure(
            rating_distribution_figure(distributions, title=f"Rating distributions: {_duo_title(group)}", answers=[1, 2, 3, 4, 5], columns=4),
            alt=f"Share of each answer 1-5 per criterion, user vs third-party raters, {_duo_title(group)}",
        )

    section = report.section("Similarity and preference")
    section.text(
        "Spearman correlations between the user's own and the third parties' ratings of stylistic similarity and preference, "
        "with 95% bootstrap intervals; first per language and setting, then within each style prompt and bot model."
    )
    main = [c for c in analysis.correlations if set(c.group) == set(DUO_GROUPS)]
    split = [c for c in analysis.correlations if set(c.group) - set(DUO_GROUPS)]
    section.table(CORRELATION_COLUMNS, _correlation_rows(main), caption="Per language and setting")
    if split:
        section.table(CORRELATION_COLUMNS, _correlation_rows(split), caption="Within each style prompt and bot model")
    frame = dialogue_frame(dialogues)
    for language_group, members in _groups_of_frame(frame, ["language"]):
        language = LANGUAGE_NAMES.get(language_group.get("language", ""), language_group.get("language", "all"))
        for x, y in DUO_PAIRS[:2]:
            if x not in members.columns or y not in members.columns:
                continue
            pairs = members.dropna(subset=[x, y])
            if pairs.empty:
                continue
            settings = [SETTING_NAMES.get(s, s) for s in pairs.get("setting", pd.Series(["all"] * len(pairs)))]
            notes = []
            for setting_value in dict.fromkeys(pairs.get("setting", [])):
                found = analysis.correlation(x, y, language=language_group.get("language", ""), setting=setting_value)
                if found is not None:
                    notes.append(f"{SETTING_NAMES.get(setting_value, setting_value)}: ρ = {found.r:.2f} (n = {found.n})")
            section.figure(
                scatter_figure(pairs[x], pairs[y], title=f"{_label(x)} vs {_label(y)} ({language})", x_label=_label(x), y_label=_label(y), groups=settings, note="\n".join(notes) or None, limits=(1, 5)),
                alt=f"Scatter of {_label(x)} against {_label(y)} in the {language} dialogues, jittered",
            )
    for group, members in _groups_of_frame(frame, DUO_GROUPS):
        columns = [c for c in frame.columns if (c.startswith("party:") or c.startswith("third_party:")) and members[c].notna().sum() >= 3]
        if len(columns) >= 2:
            section.figure(
                _matrix_figure(members, columns, f"Spearman correlations: {_duo_title(group)}", "spearman"),
                alt=f"Heat map of Spearman correlations between user and third-party ratings, {_duo_title(group)}",
                caption="Each cell uses the dialogues that have both ratings (third-party ratings exist for a subset).",
            )

    section = report.section("Agreement of third-party raters")
    section.text("Krippendorff's alpha (interval) over the three third-party raters, with a 95% bootstrap interval over dialogues.")
    _agreement_table(section, analysis.agreement)
    return report


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
        [["walk-aways", walk.dialogues, walk.walk_aways, walk.rate, _mean_sd(walk.satisfaction_walked.mean, walk.satisfaction_walked.sd), _mean_sd(walk.satisfaction_agreed.mean, walk.satisfaction_agreed.sd), _mean_sd(walk.liking_walked.mean, walk.liking_walked.sd), _mean_sd(walk.liking_agreed.mean, walk.liking_agreed.sd)]],
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
    section.table(CORRELATION_COLUMNS, _correlation_rows(analysis.correlations))
    measures = [c for c in CASINO_MEASURES if c in parties.columns and parties[c].notna().any()]
    if len(measures) >= 2:
        renamed = parties.rename(columns={POINTS: "points", LIKING: "opponent liking"})
        names = ["points" if c == POINTS else "opponent liking" if c == LIKING else c for c in measures]
        section.figure(_matrix_figure(renamed, names, "Pearson correlations per participant", "pearson"), alt="Heat map of the Pearson correlations between points, satisfaction and opponent liking")
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


def dialogues_report(analysis: DialoguesAnalysis, dialogues: Sequence[Dialogue], *, source: str | None = None) -> Report:
    """The analysis of any dialogues as an HTML report."""
    report = Report("Dialogue analysis", subtitle=f"{analysis.dialogues} dialogues grouped by {', '.join(analysis.by) or 'nothing'}" + (f" from {source}" if source else ""))
    stats_section(report, analysis.stats)
    if analysis.rating_means:
        section = report.section("Rating means")
        section.table(["group", "rater", "criterion", "n", "mean", "sd"], [[_group_name(m.group), m.rater_kind.replace("_", "-"), m.criterion.replace("_", " "), m.n, m.mean, m.sd] for m in analysis.rating_means])
        ratings = ratings_frame(dialogues)
        for group, members in _groups_of_frame(ratings, analysis.by):
            distributions: dict[str, dict[str, list[float]]] = defaultdict(dict)
            for (kind, criterion), values in members.groupby(["rater_kind", "criterion"], sort=False)["value"]:
                distributions[criterion][kind.replace("_", "-")] = list(values)
            section.figure(rating_distribution_figure(distributions, title=f"Rating distributions: {_group_name(group)}"), alt=f"Share of each answer per criterion, {_group_name(group)}")
    if analysis.agreement:
        section = report.section("Agreement of third-party raters")
        _agreement_table(section, analysis.agreement)
    if analysis.party_correlations or analysis.dialogue_correlations:
        section = report.section("Ratings and outcomes")
        section.text("Spearman correlations with 95% bootstrap intervals, over all dialogues and per group.")
        if analysis.party_correlations:
            section.table(CORRELATION_COLUMNS, _correlation_rows(analysis.party_correlations), caption="Per party: its own ratings, its score and the outcome")
        if analysis.dialogue_correlations:
            section.table(CORRELATION_COLUMNS, _correlation_rows(analysis.dialogue_correlations), caption="Per dialogue: ratings by each kind of rater and the outcome")
        parties = party_frame(dialogues)
        skip = _PARTY_LABELS | set(analysis.by) | {"task", "split", "language", "setting", "style", "model", "agents"}
        columns = [c for c in parties.columns if c not in skip and parties[c].dtype.kind == "f" and parties[c].notna().sum() >= 3 and parties[c].nunique() > 1]
        if len(columns) >= 2:
            for group, members in _groups_of_frame(parties, analysis.by):
                section.figure(_matrix_figure(members, columns, f"Spearman correlations per party: {_group_name(group)}", "spearman"), alt=f"Heat map of correlations between ratings and outcomes, {_group_name(group)}")
    return report

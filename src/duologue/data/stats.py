"""Corpus statistics over `Dialogue`s of any corpus, one row (group) per split, setting or language.

What is counted, and how:

* dialogues; participants: distinct `participant_id`s of human parties, where corpora give them
  (an id counts once per corpus and language: collections in different languages number their
  crowd workers separately);
* utterances: `Message` events (offers, selections and other moves are not utterances);
* tokens, vocabulary (distinct tokens), type-token ratio V/N and Herdan's C = log V / log N, with
  the tokeniser of `duologue.data.text` for each dialogue's language (the result names it);
* utterances per dialogue and utterance length in tokens: min, max, mean;
* outcomes where dialogues have them: how many reached the goal (`Outcome.agreed`), the mean
  score of each party id, walk-aways (`reason == "walk_away"`), and every ending reason;
* ratings: mean and sample standard deviation per (rater kind, criterion). A party's own rating
  counts once per answer. Third-party and model ratings are first averaged per dialogue (the
  dialogue's mean over its raters), then summarised across dialogues, which is how corpus cards
  report them. Labelled scales are converted with `Scale.numeric` (first label = 1).

`corpus_statistics` returns a pydantic `CorpusStats` (serialise with `model_dump_json`);
`stats_tables` renders it as `rich` tables for the command line.
"""

from __future__ import annotations

import math
import statistics
from collections import Counter, defaultdict
from typing import Callable, Iterable

from pydantic import BaseModel, Field
from rich.table import Table

from duologue.core.schema import Dialogue, Message, Rating
from duologue.data.text import tokenizer_for

OVERALL = "all"


class Spread(BaseModel):
    """Minimum, maximum and mean of a count; all None when there is nothing to count."""

    min: int | None = None
    max: int | None = None
    mean: float | None = None


class OutcomeSummary(BaseModel):
    """How the dialogues of a group ended (only dialogues with an `Outcome`)."""

    dialogues: int
    """Dialogues that have an outcome."""
    decided: int
    """Of those, how many say whether the goal was reached (`agreed` is not None)."""
    agreed: int
    agreement_rate: float | None
    """agreed / decided: the agreement rate of a negotiation, the success rate of a cooperative task."""
    walk_aways: int
    reasons: dict[str, int] = Field(default_factory=dict)
    mean_scores: dict[str, float] = Field(default_factory=dict)
    """Party id -> mean of `Outcome.scores` over the dialogues that score that party."""
    score_mean: float | None = None
    """Mean score over every scored party of every dialogue (`mytask-v0`: points per participant)."""
    score_sd: float | None = None
    """Sample standard deviation of those scores."""


class RatingSummary(BaseModel):
    """Mean and sample sd of one criterion from one kind of rater."""

    rater_kind: str
    criterion: str
    dialogues: int
    """Dialogues with at least one such rating."""
    ratings: int
    """Individual answers."""
    values: int
    """How many values the mean and sd are over: answers for parties, dialogues otherwise."""
    mean: float
    sd: float | None
    """Sample standard deviation (n - 1); None for a single value."""


class GroupStats(BaseModel):
    """Every statistic of one group of dialogues."""

    group: str
    languages: list[str]
    dialogues: int
    participants: int | None
    """Distinct human participant ids; None when the corpus does not identify participants."""
    utterances: int
    tokens: int
    vocabulary: int
    type_token_ratio: float | None
    herdan_c: float | None
    utterances_per_dialogue: Spread
    utterance_length: Spread
    """In tokens."""
    outcome: OutcomeSummary | None = None
    ratings: list[RatingSummary] = Field(default_factory=list)
    with_anomalies: int = 0
    """Dialogues whose native record has rule anomalies (read as warnings, see `Dialogue.anomalies`)."""
    anomalies: dict[str, int] = Field(default_factory=dict)
    """Anomaly code -> how many times it occurs."""


class CorpusStats(BaseModel):
    """Statistics per group plus the whole corpus, with the tokenisation used."""

    groups: list[GroupStats]
    overall: GroupStats
    tokenization: dict[str, str]
    """Language code -> how its text was tokenised."""


def corpus_statistics(dialogues: Iterable[Dialogue], group_of: Callable[[Dialogue], str] | None = None) -> CorpusStats:
    """Statistics of `dialogues`, grouped by `group_of` (a format's `group_of`; default: one group)."""
    dialogues = list(dialogues)
    grouping = group_of or (lambda _dialogue: OVERALL)
    tokenized = [_tokenize(d) for d in dialogues]
    members: dict[str, list[int]] = defaultdict(list)
    for index, dialogue in enumerate(dialogues):
        members[grouping(dialogue)].append(index)
    groups = [_group_stats(name, [dialogues[i] for i in members[name]], [tokenized[i] for i in members[name]]) for name in sorted(members)]
    overall = _group_stats(OVERALL, dialogues, tokenized)
    languages = sorted({d.language for d in dialogues})
    return CorpusStats(groups=groups, overall=overall, tokenization={lang: tokenizer_for(lang).description for lang in languages})


# --------------------------------------------------------------------------- computing


def _tokenize(dialogue: Dialogue) -> list[list[str]]:
    tokenizer = tokenizer_for(dialogue.language)
    return [tokenizer(message.text) for message in dialogue.events if isinstance(message, Message)]


def _spread(values: list[int]) -> Spread:
    if not values:
        return Spread()
    return Spread(min=min(values), max=max(values), mean=sum(values) / len(values))


def _group_stats(name: str, dialogues: list[Dialogue], tokenized: list[list[list[str]]]) -> GroupStats:
    lengths = [len(tokens) for utterances in tokenized for tokens in utterances]
    vocabulary = {token for utterances in tokenized for tokens in utterances for token in tokens}
    n_tokens, n_types = sum(lengths), len(vocabulary)
    participants = {(d.source.corpus, d.language, p.participant_id) for d in dialogues for p in d.parties if p.kind == "human" and p.participant_id}
    return GroupStats(
        group=name,
        languages=sorted({d.language for d in dialogues}),
        dialogues=len(dialogues),
        participants=len(participants) if participants else None,
        utterances=len(lengths),
        tokens=n_tokens,
        vocabulary=n_types,
        type_token_ratio=n_types / n_tokens if n_tokens else None,
        herdan_c=math.log(n_types) / math.log(n_tokens) if n_tokens > 1 and n_types > 0 else None,
        utterances_per_dialogue=_spread([len(utterances) for utterances in tokenized]),
        utterance_length=_spread(lengths),
        outcome=_outcome_summary(dialogues),
        ratings=_rating_summaries(dialogues),
        with_anomalies=sum(1 for d in dialogues if d.anomalies),
        anomalies=dict(sorted(Counter(a.code or "other" for d in dialogues for a in d.anomalies).items())),
    )


def _outcome_summary(dialogues: list[Dialogue]) -> OutcomeSummary | None:
    outcomes = [d.outcome for d in dialogues if d.outcome is not None]
    if not outcomes:
        return None
    decided = [o for o in outcomes if o.agreed is not None]
    agreed = sum(1 for o in decided if o.agreed)
    scores: dict[str, list[float]] = defaultdict(list)
    for outcome in outcomes:
        for party, score in outcome.scores.items():
            scores[party].append(score)
    every = [score for values in scores.values() for score in values]
    return OutcomeSummary(
        dialogues=len(outcomes),
        decided=len(decided),
        agreed=agreed,
        agreement_rate=agreed / len(decided) if decided else None,
        walk_aways=sum(1 for o in outcomes if o.reason == "walk_away"),
        reasons=dict(sorted(Counter(o.reason for o in outcomes).items())),
        mean_scores={party: sum(values) / len(values) for party, values in sorted(scores.items())},
        score_mean=statistics.fmean(every) if every else None,
        score_sd=statistics.stdev(every) if len(every) > 1 else None,
    )


def _numeric(rating: Rating) -> float:
    return rating.scale.numeric(rating.value)


def _rating_summaries(dialogues: list[Dialogue]) -> list[RatingSummary]:
    """Party answers pooled; third-party and model ratings averaged per dialogue first."""
    per_dialogue: dict[tuple[str, str], list[list[float]]] = defaultdict(list)
    for dialogue in dialogues:
        here: dict[tuple[str, str], list[float]] = defaultdict(list)
        for rating in dialogue.ratings:
            here[(rating.rater_kind, rating.criterion)].append(_numeric(rating))
        for key, values in here.items():
            per_dialogue[key].append(values)
    summaries = []
    for (kind, criterion), by_dialogue in per_dialogue.items():
        if kind == "party":
            values = [v for dialogue_values in by_dialogue for v in dialogue_values]
        else:
            values = [sum(dialogue_values) / len(dialogue_values) for dialogue_values in by_dialogue]
        summaries.append(
            RatingSummary(
                rater_kind=kind,
                criterion=criterion,
                dialogues=len(by_dialogue),
                ratings=sum(len(v) for v in by_dialogue),
                values=len(values),
                mean=statistics.fmean(values),
                sd=statistics.stdev(values) if len(values) > 1 else None,
            )
        )
    kind_order = {"party": 0, "third_party": 1, "model": 2}
    criterion_order = _first_seen_criteria(dialogues)
    summaries.sort(key=lambda s: (kind_order.get(s.rater_kind, 3), criterion_order[s.criterion]))
    return summaries


def _first_seen_criteria(dialogues: list[Dialogue]) -> dict[str, int]:
    order: dict[str, int] = {}
    for dialogue in dialogues:
        for rating in dialogue.ratings:
            order.setdefault(rating.criterion, len(order))
    return order


# --------------------------------------------------------------------------- tables


def _number(value: float | int | None, digits: int = 2) -> str:
    if value is None:
        return "-"
    if isinstance(value, int):
        return f"{value:,}"
    return f"{value:,.{digits}f}"


def _range(spread: Spread) -> str:
    if spread.min is None or spread.max is None:
        return "-"
    return f"{spread.min}" if spread.min == spread.max else f"{spread.min}-{spread.max}"


def _columns(stats: CorpusStats) -> list[GroupStats]:
    """The groups, plus the whole corpus when there is more than one group."""
    if len(stats.groups) > 1:
        return [*stats.groups, stats.overall]
    return stats.groups or [stats.overall]


def stats_tables(stats: CorpusStats) -> list[Table]:
    """One table per section (basic counts, outcomes, ratings), groups as columns."""
    columns = _columns(stats)
    tables = [_basic_table(stats, columns)]
    if any(g.outcome for g in columns):
        tables.append(_outcome_table(columns))
    if any(g.ratings for g in columns):
        tables.append(_ratings_table(columns))
    return tables


def _table(title: str, columns: list[GroupStats], caption: str | None = None) -> Table:
    table = Table(title=title, caption=caption)
    table.add_column("")
    for group in columns:
        table.add_column(group.group, justify="right")
    return table


def _basic_table(stats: CorpusStats, columns: list[GroupStats]) -> Table:
    caption = "; ".join(f"tokens ({lang}): {text}" for lang, text in stats.tokenization.items()) or None
    table = _table("Corpus", columns, caption)
    rows: list[tuple[str, Callable[[GroupStats], str]]] = [
        ("Dialogues", lambda g: _number(g.dialogues)),
        ("Participants", lambda g: _number(g.participants)),
        ("Utterances", lambda g: _number(g.utterances)),
        ("Tokens", lambda g: _number(g.tokens)),
        ("Utterances per dialogue (min-max)", lambda g: _range(g.utterances_per_dialogue)),
        ("Utterances per dialogue (mean)", lambda g: _number(g.utterances_per_dialogue.mean)),
        ("Utterance length (min-max)", lambda g: _range(g.utterance_length)),
        ("Utterance length (mean)", lambda g: _number(g.utterance_length.mean)),
        ("Vocabulary", lambda g: _number(g.vocabulary)),
        ("Type-token ratio", lambda g: _number(g.type_token_ratio, 3)),
        ("Herdan's C", lambda g: _number(g.herdan_c, 3)),
    ]
    if any(g.with_anomalies for g in columns):
        rows.append(("Dialogues with rule anomalies", lambda g: _number(g.with_anomalies)))
    for label, cell in rows:
        table.add_row(label, *(cell(g) for g in columns))
    return table


def _outcome_table(columns: list[GroupStats]) -> Table:
    table = _table("Outcomes", columns)
    table.add_row("Dialogues with an outcome", *(_number(g.outcome.dialogues) if g.outcome else "-" for g in columns))
    table.add_row("Agreement / success rate", *(_number(g.outcome.agreement_rate, 3) if g.outcome else "-" for g in columns))
    table.add_row("Walk-aways", *(_number(g.outcome.walk_aways) if g.outcome else "-" for g in columns))
    table.add_row(
        "Score per party (mean ± sd)",
        *(f"{g.outcome.score_mean:.2f} ± {g.outcome.score_sd:.2f}" if g.outcome and g.outcome.score_sd is not None else "-" for g in columns),
    )
    parties = sorted({p for g in columns if g.outcome for p in g.outcome.mean_scores})
    for party in parties:
        table.add_row(f"Mean score: {party}", *(_number(g.outcome.mean_scores.get(party)) if g.outcome else "-" for g in columns))
    reasons = sorted({r for g in columns if g.outcome for r in g.outcome.reasons})
    for reason in reasons:
        table.add_row(f"Ended: {reason}", *(_number(g.outcome.reasons.get(reason, 0)) if g.outcome else "-" for g in columns))
    return table


def _ratings_table(columns: list[GroupStats]) -> Table:
    table = _table("Ratings (mean ± sample sd; third-party ratings averaged per dialogue first)", columns)
    keys: list[tuple[str, str]] = []
    for group in columns:
        for summary in group.ratings:
            if (summary.rater_kind, summary.criterion) not in keys:
                keys.append((summary.rater_kind, summary.criterion))
    kind_order = {"party": 0, "third_party": 1, "model": 2}
    keys.sort(key=lambda k: kind_order.get(k[0], 3))
    for kind, criterion in keys:
        cells = []
        for group in columns:
            found = next((s for s in group.ratings if s.rater_kind == kind and s.criterion == criterion), None)
            cells.append("-" if found is None else f"{found.mean:.2f} ± {_number(found.sd)} (n={found.values})")
        table.add_row(f"{kind.replace('_', '-')}: {criterion}", *cells)
    return table

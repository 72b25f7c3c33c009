"""Dialogues as pandas tables of numbers, for agreement, correlations and plots.

Every corpus and every played or collected dialogue is a `Dialogue`; analyses want tables. Three
shapes cover what the analyses need:

* `ratings_frame`: one row per `Rating` (long format), the input of agreement statistics;
* `dialogue_frame`: one row per dialogue, with the user's own ratings (`party:<criterion>`), the
  mean third-party and model ratings (`third_party:<criterion>`, `model:<criterion>`) and outcome
  figures: what DUO's "user similarity vs user preference" needs;
* `party_frame`: one row per (dialogue, party), with the party's score and its own ratings: what
  CaSiNo's "points vs satisfaction vs liking per participant" needs.

Each row carries the dialogue's grouping fields (`dialogue_groups`: task, split, language,
setting, style, model, agents) so any figure can be split by them. Ratings are numbers: labelled
scales (CaSiNo's "Extremely dissatisfied" ... "Extremely satisfied") become 1..n with
`Scale.numeric`. A grouping field a dialogue does not have is missing (None) in its row.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any, Iterable

import pandas as pd

from duologue.core.schema import Dialogue, Rating

GROUP_KEYS: tuple[str, ...] = ("task", "split", "language", "setting", "style", "model", "agents")
"""Grouping fields, in the order their columns appear."""

RATER_KINDS: tuple[str, ...] = ("party", "third_party", "model")
RATINGS_COLUMNS: tuple[str, ...] = ("dialogue", "rater_kind", "rater_id", "target", "criterion", "value")
PARTY_COLUMNS: tuple[str, ...] = ("dialogue", "party")
OUTCOME_COLUMNS: tuple[str, ...] = ("score", "agreed", "walk_away")


def _scenario_value(dialogue: Dialogue, key: str) -> Any:
    """A scenario fact wherever the dialogue keeps it: public first, then any party's private view.

    A DUO file keeps the setting and style public; a played open chat keeps the bot's style in the
    bot's private view (the user must not see it), so both places are looked at.
    """
    if key in dialogue.scenario.public:
        return dialogue.scenario.public[key]
    for view in dialogue.scenario.private.values():
        if key in view:
            return view[key]
    return dialogue.meta.get(key)


def _agents_label(agents: Any) -> str | None:
    """`meta["agents"]` (party -> agent spec) as one label, as the arena report names a pairing."""
    if isinstance(agents, dict) and agents:
        return " vs ".join(f"{agent} ({party})" for party, agent in agents.items())
    if isinstance(agents, (list, tuple)) and agents:
        return " vs ".join(str(agent) for agent in agents)
    return None


def dialogue_groups(dialogue: Dialogue) -> dict[str, str]:
    """The fields a dialogue can be grouped by, read from the dialogue itself (not from its task).

    `task` and `language` always; `split` when known; `setting` and `style` from the scenario
    (public part, then private views, then `meta`); `model` = the agent of the dialogue's only bot
    party (a human-bot chat: DUO's `gpt-4o`); `agents` = the self-play pairing in
    `meta["agents"]`, e.g. `"rule (buyer) vs llm:local (seller)"`. Values are kept as the dialogue
    holds them (DUO: setting `ed`/`wow`; English styles `aligned`/`neutral`/`not_aligned`, Japanese
    ones `ent`/`neutral`/`nonent`).
    """
    groups: dict[str, str] = {"task": dialogue.task}
    if dialogue.split is not None:
        groups["split"] = str(dialogue.split)
    groups["language"] = dialogue.language
    for key in ("setting", "style"):
        value = _scenario_value(dialogue, key)
        if value is not None and value != "":
            groups[key] = str(value)
    bots = [party for party in dialogue.parties if party.kind == "bot"]
    if len(bots) == 1 and bots[0].agent:
        groups["model"] = bots[0].agent
    agents = _agents_label(dialogue.meta.get("agents"))
    if agents is not None:
        groups["agents"] = agents
    return groups


def rating_number(rating: Rating) -> float:
    """A rating as a number: labelled scales map to 1..n in scale order."""
    return rating.scale.numeric(rating.value)


def _group_columns(rows_groups: Iterable[dict[str, str]]) -> list[str]:
    present: set[str] = set()
    for groups in rows_groups:
        present.update(groups)
    return [key for key in GROUP_KEYS if key in present] + sorted(present - set(GROUP_KEYS))


def _frame(rows: list[dict[str, Any]], leading: list[str]) -> pd.DataFrame:
    """A frame with `leading` columns first (present even without rows), then the rest in first-seen order."""
    columns = list(leading)
    for row in rows:
        for key in row:
            if key not in columns:
                columns.append(key)
    return pd.DataFrame(rows, columns=columns)


def ratings_frame(dialogues: Iterable[Dialogue]) -> pd.DataFrame:
    """One row per rating: `dialogue`, `rater_kind`, `rater_id`, `target`, `criterion`, `value` (float), groups."""
    dialogues = list(dialogues)
    groups = [dialogue_groups(d) for d in dialogues]
    group_columns = _group_columns(groups)
    rows = []
    for dialogue, dialogue_group in zip(dialogues, groups, strict=True):
        for rating in dialogue.ratings:
            row: dict[str, Any] = {
                "dialogue": dialogue.id,
                "rater_kind": rating.rater_kind,
                "rater_id": rating.rater_id,
                "target": rating.target,
                "criterion": rating.criterion,
                "value": rating_number(rating),
            }
            row.update({key: dialogue_group.get(key) for key in group_columns})
            rows.append(row)
    frame = _frame(rows, [*RATINGS_COLUMNS, *group_columns])
    frame["value"] = frame["value"].astype(float)
    return frame


def _outcome_figures(dialogue: Dialogue) -> dict[str, float]:
    """`agreed` and `walk_away` as 0/1 and `joint_score` (sum of the parties' scores), where known."""
    outcome = dialogue.outcome
    if outcome is None:
        return {}
    figures: dict[str, float] = {}
    if outcome.agreed is not None:
        figures["agreed"] = float(outcome.agreed)
    figures["walk_away"] = float(outcome.reason == "walk_away")
    if outcome.scores:
        figures["joint_score"] = float(sum(outcome.scores.values()))
    return figures


def _mean(values: list[float]) -> float:
    return sum(values) / len(values)


def dialogue_frame(dialogues: Iterable[Dialogue]) -> pd.DataFrame:
    """One row per dialogue: `dialogue`, groups, ratings by kind and criterion, outcome figures.

    * `party:<criterion>`: only for dialogues rated by ONE party (DUO's user rating the bot); with
      two party raters (CaSiNo) a dialogue-level column would mix two people: use `party_frame`.
    * `third_party:<criterion>` and `model:<criterion>`: the mean over the dialogue's raters of that
      kind (how corpus cards report them).
    * `agreed`, `walk_away` (0/1) and `joint_score` where the dialogue has an outcome.
    """
    dialogues = list(dialogues)
    groups = [dialogue_groups(d) for d in dialogues]
    group_columns = _group_columns(groups)
    rows = []
    for dialogue, dialogue_group in zip(dialogues, groups, strict=True):
        row: dict[str, Any] = {"dialogue": dialogue.id}
        row.update({key: dialogue_group.get(key) for key in group_columns})
        values: dict[str, list[float]] = defaultdict(list)
        party_raters = {r.rater_id for r in dialogue.ratings if r.rater_kind == "party"}
        for rating in dialogue.ratings:
            if rating.rater_kind == "party" and len(party_raters) != 1:
                continue
            values[f"{rating.rater_kind}:{rating.criterion}"].append(rating_number(rating))
        for column, numbers in values.items():
            row[column] = _mean(numbers)
        row.update(_outcome_figures(dialogue))
        rows.append(row)
    frame = _frame(rows, ["dialogue", *group_columns])
    return _numeric_after(frame, ["dialogue", *group_columns])


def party_frame(dialogues: Iterable[Dialogue]) -> pd.DataFrame:
    """One row per (dialogue, party): `dialogue`, `party`, groups, `score`, `agreed`, `walk_away`, own ratings.

    A party's own ratings are its `party` ratings (`rater_id` == the party), one column per
    criterion (CaSiNo: `satisfaction`, `opponent_likeness`); `score` is `Outcome.scores[party]`.
    """
    dialogues = list(dialogues)
    groups = [dialogue_groups(d) for d in dialogues]
    group_columns = _group_columns(groups)
    rows = []
    for dialogue, dialogue_group in zip(dialogues, groups, strict=True):
        outcome = dialogue.outcome
        figures = _outcome_figures(dialogue)
        for party in dialogue.parties:
            row: dict[str, Any] = {"dialogue": dialogue.id, "party": party.id}
            row.update({key: dialogue_group.get(key) for key in group_columns})
            score = outcome.scores.get(party.id) if outcome is not None else None
            row["score"] = float(score) if score is not None else None
            row["agreed"] = figures.get("agreed")
            row["walk_away"] = figures.get("walk_away")
            own: dict[str, list[float]] = defaultdict(list)
            for rating in dialogue.ratings:
                if rating.rater_kind == "party" and rating.rater_id == party.id:
                    own[rating.criterion].append(rating_number(rating))
            for criterion, numbers in own.items():
                row[criterion] = _mean(numbers)
            rows.append(row)
    frame = _frame(rows, [*PARTY_COLUMNS, *group_columns, *OUTCOME_COLUMNS])
    return _numeric_after(frame, [*PARTY_COLUMNS, *group_columns])


def _numeric_after(frame: pd.DataFrame, labels: list[str]) -> pd.DataFrame:
    """Every column but the label columns as float (None -> NaN), so statistics see numbers."""
    for column in frame.columns:
        if column not in labels:
            frame[column] = pd.to_numeric(frame[column], errors="coerce").astype(float)
    return frame

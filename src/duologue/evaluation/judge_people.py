"""The judge measured against people's own answers: each party's post-dialogue questionnaire, predicted.

Where a corpus holds what each person answered about their own dialogue (CaSiNo's satisfaction
with the outcome and liking of the partner), a judge can be asked, for each party, what that person
answered; its agreement with the real answers, per question, says how far to trust it as a stand-in
for asking people. Generic: the questions are the task's own party questionnaire (`TaskSpec.
questionnaires["party"]`), every item a person answers on a five-label scale.

* `party_items(task_id)`: the questionnaire's items as `JudgeItem`s (the question quoted, the
  scale's end labels as 1 and 5);
* `judge_parties`: copies of dialogues with the judge's prediction for each party, a model
  `Rating` whose `target` is the party predicted;
* `people_agreement`: per criterion, on the (dialogue, party) pairs with both a person's own answer
  and the judge's prediction: Spearman's rho and Krippendorff's alpha (ordinal) of judge vs person,
  the share of exact answers and the mean absolute distance on the 1-5 scale, with 95% intervals;
  and, for scale, the same figures for a judge that always answers the people's most common answer.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator

import yaml

from duologue import tasks
from duologue.arena.report import bootstrap_mean
from duologue.core.schema import Dialogue, Party, Rating
from duologue.evaluation.judge import Judge, JudgeItem, JudgeResult

LABELS = 5
"""The judge answers 1-5, so an item takes part when its scale has five labels."""


def party_items(task_id: str) -> list[JudgeItem]:
    """The task's party questionnaire, as items a judge answers for a party (empty when it has none)."""
    spec = tasks.spec(task_id)
    name = spec.questionnaires.get("party")
    text = spec.read_resource("questionnaires", name) if name else None
    if not text:
        return []
    items = []
    for item in (yaml.safe_load(text) or {}).get("items", []):
        labels = (item.get("scale") or {}).get("labels") or []
        if item.get("respondent", "party") != "party" or len(labels) != LABELS:
            continue
        question = f'Right after the dialogue, this person was asked "{item["question"]}" Which answer did they choose, from 1 ({labels[0]}) to 5 ({labels[-1]})?'
        items.append(JudgeItem(item["id"], question, labels[0], labels[-1]))
    return items


def people_parties(dialogue: Dialogue, criteria: set[str]) -> list[str]:
    """The parties that answered at least one of `criteria` themselves."""
    answered = {r.rater_id for r in dialogue.ratings if r.rater_kind == "party" and r.criterion in criteria}
    return [p.id for p in dialogue.parties if p.id in answered]


def judge_parties(dialogues: Iterable[Dialogue], judge: Judge, *, on_progress: Callable[[JudgeResult], None] | None = None) -> Iterator[Dialogue]:
    """Judged copies, one at a time: the judge's predicted answer of each party that answered (`target` = that party)."""
    criteria = {item.name for item in judge.items}
    for dialogue in dialogues:
        judged = dialogue.model_copy(deep=True)
        judged.ratings = [r for r in judged.ratings if not (r.rater_kind == "model" and r.rater_id == judge.judge_id and r.criterion in criteria)]
        notes: dict[str, Any] = {}
        for party in people_parties(dialogue, criteria):
            result = judge.rate(dialogue, party=party)
            judged.ratings.extend(result.ratings)
            notes[party] = {"missing": dict(result.missing), "reasons": dict(result.reasons), "calls": result.calls}
            if on_progress is not None:
                on_progress(result)
        judged.meta = {**judged.meta, "judges": {**dict(judged.meta.get("judges") or {}), judge.judge_id: {"parties": notes}}}
        yield judged


@dataclass
class Figure:
    """A figure with its 95% interval (None where the interval cannot be computed)."""

    value: float
    low: float | None
    high: float | None


@dataclass
class PeopleAgreement:
    """How well a judge predicts people's own answers to one question (None where undefined, with a note)."""

    criterion: str
    judge_id: str
    pairs: int
    """(Dialogue, party) pairs with both the person's answer and the judge's prediction."""
    unanswered: int
    spearman: Figure | None = None
    alpha: Figure | None = None
    exact: Figure | None = None
    distance: Figure | None = None
    """Mean absolute distance between prediction and answer, on the 1-5 scale."""
    majority_exact: float | None = None
    """The exact share of a judge that always gives the people's most common answer."""
    majority_distance: float | None = None
    notes: list[str] = field(default_factory=list)


def answer_pairs(dialogues: Iterable[Dialogue], criterion: str, judge_id: str) -> tuple[list[tuple[str, float, float]], int]:
    """(dialogue id, judge, person) for each party with both; and how many answers the judge left without a prediction."""
    pairs, unanswered = [], 0
    for dialogue in dialogues:
        for rating in dialogue.ratings:
            if rating.rater_kind != "party" or rating.criterion != criterion or rating.rater_id is None:
                continue
            predicted = next((r for r in dialogue.ratings if r.rater_kind == "model" and r.rater_id == judge_id and r.criterion == criterion and r.target == rating.rater_id), None)
            if predicted is None:
                unanswered += 1
                continue
            pairs.append((f"{dialogue.id}/{rating.rater_id}", rating_value(predicted), rating_value(rating)))
    return pairs, unanswered


def rating_value(rating: Rating) -> float:
    return rating.scale.numeric(rating.value)


def _pair_dialogue(key: str, criterion: str, judge: float, person: float) -> Dialogue:
    ratings = [Rating(rater_kind="third_party", rater_id=rater, target="rated", criterion=criterion, value=value) for rater, value in (("judge", judge), ("person", person))]
    return Dialogue(id=key, task="pairs", parties=[Party(id="rated", kind="human")], ratings=ratings)


def people_agreement(dialogues: Iterable[Dialogue], criterion: str, *, judge_id: str, bootstrap: int = 1000, seed: int = 0) -> PeopleAgreement:
    """The judge's predictions against the people's own answers on one question (see `PeopleAgreement`)."""
    from duologue.analysis.agreement import rating_agreement
    from duologue.analysis.correlation import correlate

    dialogues = list(dialogues)
    pairs, unanswered = answer_pairs(dialogues, criterion, judge_id)
    result = PeopleAgreement(criterion=criterion, judge_id=judge_id, pairs=len(pairs), unanswered=unanswered)
    if not pairs:
        result.notes.append(f"no party has both an own answer and a {judge_id} prediction of {criterion!r}")
        return result
    judged = [j for _, j, _ in pairs]
    people = [p for _, _, p in pairs]
    exact = bootstrap_mean([float(j == p) for j, p in zip(judged, people, strict=True)], seed=seed)
    result.exact = Figure(exact.mean, exact.low, exact.high)
    distance = bootstrap_mean([abs(j - p) for j, p in zip(judged, people, strict=True)], seed=seed)
    result.distance = Figure(distance.mean, distance.low, distance.high)
    common = max(sorted(set(people)), key=people.count)
    result.majority_exact = sum(p == common for p in people) / len(people)
    result.majority_distance = sum(abs(common - p) for p in people) / len(people)
    try:
        rho = correlate(judged, people, method="spearman", x_name=judge_id, y_name="person", bootstrap=bootstrap, seed=seed)
        result.spearman = Figure(rho.r, rho.low, rho.high)
    except ValueError as error:
        result.notes.append(f"spearman: {error}")
    try:
        alpha = rating_agreement([_pair_dialogue(k, criterion, j, p) for k, j, p in pairs], criterion, level="ordinal", bootstrap=bootstrap, seed=seed)
        result.alpha = Figure(alpha.value, alpha.low, alpha.high)
    except ValueError as error:
        result.notes.append(f"alpha: {error}")
    return result

"""Questionnaire forms: one questionnaire bound to one dialogue and one respondent, and its answers.

`QuestionnaireForm` lists the fields to show (`AnswerField`), checks a submitted answer set
(`AnswerProblem`, `InvalidAnswers`) and turns it into `Rating`s; `coerce_answer` reads one answer
on an item's scale, `forms_for` gives a respondent's forms for a dialogue, `with_ratings` attaches
the ratings, and `party_label` names a party to a rater.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from duologue.core.schema import Dialogue, Party, Rating
from duologue.web.questionnaire_data import (
    RESPONDENTS,
    ROLE_PREFIX,
    TARGET_SEPARATOR,
    Item,
    Questionnaire,
    QuestionnaireError,
    Respondent,
    questionnaires_for,
    task_id_of,
)


@dataclass(frozen=True)
class AnswerField:
    """One answer a respondent gives: an item, about one target; `key` names it in the submitted answers."""

    key: str
    item: Item
    target: str | None
    """The rated party's id, or None when the dialogue as a whole is rated."""
    target_label: str | None = None
    """How to name the target on screen (`Buyer`, `Participant A`), for `each_party` items."""


@dataclass(frozen=True)
class AnswerProblem:
    """What is wrong with one answer (or with the answer set, when `key` is not an item)."""

    key: str
    message: str

    def __str__(self) -> str:
        return f"{self.key}: {self.message}"


class InvalidAnswers(ValueError):
    """A submitted answer set that cannot be stored; `problems` names each faulty item."""

    def __init__(self, problems: list[AnswerProblem]):
        self.problems = problems
        super().__init__("; ".join(str(p) for p in problems))


@dataclass
class QuestionnaireForm:
    """A questionnaire bound to one dialogue and one respondent: what to ask, and how to read answers.

    `respondent="party"`: `rater` is the answering party's id (ratings get `rater_id` = that id, as
    the corpus readers do). `respondent="third_party"`: `rater` is the rater's own id.
    """

    questionnaire: Questionnaire
    dialogue: Dialogue
    respondent: Respondent
    rater: str
    task_id: str | None = None
    fields: list[AnswerField] = field(init=False)

    def __post_init__(self) -> None:
        if self.respondent not in RESPONDENTS:
            raise QuestionnaireError(f"unknown respondent kind {self.respondent!r}; expected one of {', '.join(RESPONDENTS)}")
        task_id = self.task_id or task_id_of(self.dialogue)
        role = None
        if self.respondent == "party":
            party = _party(self.dialogue, self.rater)
            if party is None:
                raise QuestionnaireError(f"{self.rater!r} is not a party of dialogue {self.dialogue.id} ({', '.join(p.id for p in self.dialogue.parties)})")
            role = party.role
        self.questionnaire = self.questionnaire.narrowed(task_id, self.respondent, role)
        self.task_id = task_id
        self.fields = [f for item in self.questionnaire.items for f in self._fields_of(item)]

    def _fields_of(self, item: Item) -> list[AnswerField]:
        parties = self.dialogue.parties
        if item.about == "dialogue":
            return [AnswerField(item.id, item, None)]
        if item.about == "partner":
            others = [p for p in parties if p.id != self.rater]
            if len(others) != 1:
                raise QuestionnaireError(f"item {item.id}: {self.rater!r} has {len(others)} partners in dialogue {self.dialogue.id}, expected one")
            return [AnswerField(item.id, item, others[0].id)]
        if item.about == "each_party":
            return [AnswerField(f"{item.id}{TARGET_SEPARATOR}{p.id}", item, p.id, party_label(self.dialogue, p.id)) for p in parties]
        role = item.about[len(ROLE_PREFIX) :]
        matching = [p for p in parties if p.role == role]
        if len(matching) != 1:
            raise QuestionnaireError(f"item {item.id} rates the party with role {role!r}, but dialogue {self.dialogue.id} has {len(matching)} such parties")
        return [AnswerField(item.id, item, matching[0].id)]

    def problems(self, answers: Mapping[str, Any], *, allow_unknown: bool = False) -> list[AnswerProblem]:
        """Every problem of a submitted answer set (empty when it can be stored).

        `answers` maps field keys to values: numbers, labels, or form strings (`"4"`). With
        `allow_unknown`, keys that are not fields (a form's submit button) are ignored.
        """
        return self._read(answers, allow_unknown)[1]

    def ratings(self, answers: Mapping[str, Any], *, allow_unknown: bool = False) -> list[Rating]:
        """The answers as ratings, ready to attach to the dialogue; raises `InvalidAnswers` naming each problem."""
        ratings, problems = self._read(answers, allow_unknown)
        if problems:
            raise InvalidAnswers(problems)
        return ratings

    def _read(self, answers: Mapping[str, Any], allow_unknown: bool) -> tuple[list[Rating], list[AnswerProblem]]:
        if not isinstance(answers, Mapping):
            return [], [AnswerProblem("answers", f"expected an object of answers by item, got {type(answers).__name__}")]
        problems: list[AnswerProblem] = []
        ratings: list[Rating] = []
        known = {f.key for f in self.fields}
        if not allow_unknown:
            for key in answers:
                if key not in known:
                    problems.append(AnswerProblem(str(key), f"not a question of {self.questionnaire.id!r} (its fields: {', '.join(sorted(known))})"))
        rater_id = self.rater
        for answer_field in self.fields:
            item = answer_field.item
            raw = answers.get(answer_field.key)
            if _blank(raw):
                if item.required:
                    problems.append(AnswerProblem(answer_field.key, f"not answered ({_describe(answer_field)})"))
                continue
            value, reason = coerce_answer(item, raw)
            if reason is not None:
                problems.append(AnswerProblem(answer_field.key, f"{reason} ({_describe(answer_field)})"))
                continue
            ratings.append(
                Rating(
                    rater_kind=self.respondent,
                    rater_id=rater_id,
                    target=answer_field.target,
                    criterion=item.id,
                    value=value,
                    scale=item.scale,
                )
            )
        return ratings, problems


def forms_for(
    dialogue: Dialogue,
    respondent: Respondent,
    rater: str,
    *,
    task_id: str | None = None,
    catalogue: Mapping[str, Questionnaire] | None = None,
) -> list[QuestionnaireForm]:
    """The forms this respondent fills in for this dialogue (the task's default questionnaires)."""
    task_id = task_id or task_id_of(dialogue)
    role = None
    if respondent == "party":
        party = _party(dialogue, rater)
        role = party.role if party is not None else None
    return [QuestionnaireForm(q, dialogue, respondent, rater, task_id) for q in questionnaires_for(task_id, respondent, role, catalogue)]


def coerce_answer(item: Item, raw: Any) -> tuple[int | float | str | None, str | None]:
    """(value to store, None) for a valid answer, or (None, why it is not valid).

    Labelled scales take a label, or its position 1..n (as a number or form string). Numeric
    scales take whole numbers from low to high (`4`, `4.0`, `"4"`); `true`, `4.5` and `"four"` are refused.
    """
    scale = item.scale
    if isinstance(raw, bool):
        return None, f"expected {_expected(item)}, got a true/false value"
    if scale.labels is not None:
        if isinstance(raw, str) and raw.strip() in scale.labels:
            return raw.strip(), None
        position = _whole_number(raw)
        if position is not None and 1 <= position <= len(scale.labels):
            return scale.labels[position - 1], None
        return None, f"{raw!r} is not one of {_expected(item)}"
    number = _whole_number(raw)
    if number is None:
        return None, f"{raw!r} is not {_expected(item)}"
    if not scale.contains(number):
        return None, f"{number} is outside the scale: expected {_expected(item)}"
    return (float(number) if item.value_type == "float" else number), None


def with_ratings(dialogue: Dialogue, ratings: Iterable[Rating]) -> Dialogue:
    """A copy of the dialogue with these ratings attached; an answer given again replaces the earlier one."""
    new = list(ratings)
    replaced = {(r.rater_kind, r.rater_id, r.target, r.criterion) for r in new}
    kept = [r for r in dialogue.ratings if (r.rater_kind, r.rater_id, r.target, r.criterion) not in replaced]
    return dialogue.model_copy(update={"ratings": kept + new})


def party_label(dialogue: Dialogue, party_id: str) -> str:
    """How to name a party to a rater: its role when roles tell the parties apart, else `Participant A`/`B`."""
    roles = [p.role for p in dialogue.parties]
    index = next((i for i, p in enumerate(dialogue.parties) if p.id == party_id), None)
    if index is None:
        raise KeyError(f"{party_id!r} is not a party of dialogue {dialogue.id}")
    role = roles[index]
    if role and roles.count(role) == 1:
        return role.replace("_", " ").capitalize()
    return f"Participant {chr(ord('A') + index)}" if index < 26 else f"Participant {index + 1}"


def _party(dialogue: Dialogue, party_id: str) -> Party | None:
    return next((p for p in dialogue.parties if p.id == party_id), None)


def _blank(raw: Any) -> bool:
    return raw is None or (isinstance(raw, str) and not raw.strip())


def _whole_number(raw: Any) -> int | None:
    """A whole number from an int, an integral float, or a form string; None for anything else."""
    if isinstance(raw, bool):
        return None
    if isinstance(raw, int):
        return raw
    if isinstance(raw, float):
        return int(raw) if math.isfinite(raw) and raw.is_integer() else None
    if isinstance(raw, str):
        text = raw.strip()
        if re.fullmatch(r"[+-]?\d{1,6}", text):
            return int(text)
        if re.fullmatch(r"[+-]?\d{1,6}\.0*", text):
            return int(float(text))
    return None


def _expected(item: Item) -> str:
    if item.scale.labels is not None:
        return ", ".join(repr(label) for label in item.scale.labels)
    return f"a whole number from {int(item.scale.low)} to {int(item.scale.high)}"  # type: ignore[arg-type]


def _describe(answer_field: AnswerField) -> str:
    about = f", about {answer_field.target_label}" if answer_field.target_label else ""
    return f"item {answer_field.item.id!r}{about}: {answer_field.item.question}"

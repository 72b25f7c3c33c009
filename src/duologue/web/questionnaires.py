"""Questionnaires defined as data, checked answers turned into `Rating`s, and completion codes.

A questionnaire is a YAML or JSON file. A task ships its own under `questionnaires/` of its
resources, named by its spec (`TaskSpec.questionnaires`: `party` for the people who played it,
`rater` for third-party raters); any other file is loaded with `load_questionnaire`:

```
id: casino-post-negotiation
title: A few questions about your negotiation
instructions: The negotiation is over. ...
items:
  - id: satisfaction              # the criterion name the corpus uses (the Rating's `criterion`)
    question: How satisfied are you ...?
    respondent: party             # party: a participant about its own dialogue;
                                  # third_party: a rater reading the transcript
    roles: [user]                 # optional, party items only: which party roles answer it
    about: dialogue               # what is rated: dialogue | partner | each_party | role:<role>
    tasks: [casino]               # optional: task ids (casino-v0) or families (casino) it is asked in
    scale: {kind: ordinal, labels: [Extremely dissatisfied, ..., Extremely satisfied]}
    # or a numeric scale: {kind: ordinal, low: 1, high: 5}, with optional low_label / high_label
    value_type: int               # numeric answers are stored as int or float (DUO's files hold 4.0)
    required: true
```

Item ids are exactly the corpora's criterion names, so the answers export natively: CaSiNo's
`satisfaction` / `opponent_likeness` (labelled scales), DUO's `preference`, `stylistic_similarity`,
`consistency` and `empathy` (ED) or `engagingness` (WoW) (1-5, the user about the bot, and third-party
raters about the system side). CoCoA-style `human_likeness` and `cooperation` (1-5) have no place in
the MutualFriends or CraigslistBargain record formats; they live in duologue's own jsonl.

How answers become ratings: `QuestionnaireForm` binds a questionnaire to one dialogue and one
respondent, lists the fields to show (`fields`: one per item, or one per party for `each_party`
items, keyed `item` or `item@party`), checks a submitted answer set (`problems`) and turns it into
`Rating(rater_kind, rater_id, target, criterion, value, scale)` objects (`ratings`), the way the corpus
readers build them (a party's rater id is its party id; `target` is the rated party, or None for
the dialogue as a whole).

Completion codes (`completion_code`) are an HMAC of the study and participant ids under a secret
from the settings: unguessable without the secret, the same every time for the same person, so
the crowd platform's codes can be checked later without storing them.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import math
import re
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, Iterable, Literal, Mapping

import yaml
from pydantic import Field, ValidationError, field_validator, model_validator

from duologue.core.schema import Dialogue, Model, Party, Rating, Scale

Respondent = Literal["party", "third_party"]
RESPONDENTS: tuple[str, ...] = ("party", "third_party")
QUESTIONNAIRE_SUFFIXES = (".yaml", ".yml", ".json")
ROLE_PREFIX = "role:"
TARGET_SEPARATOR = "@"
"""Field keys of `each_party` items: `human_likeness@0` is item `human_likeness` about party `0`."""

_ITEM_ID = r"^[a-z][a-z0-9_]*$"


class QuestionnaireError(ValueError):
    """A questionnaire file or name that cannot be used; the message says which and why."""


# --------------------------------------------------------------------------- the data


class Item(Model):
    """One question: what it asks, on which scale, who answers it, about what, for which tasks."""

    id: str = Field(pattern=_ITEM_ID)
    """The criterion name the corpora use (`satisfaction`, `preference`); becomes `Rating.criterion`."""
    question: str = Field(min_length=1)
    scale: Scale
    respondent: Respondent
    tasks: list[str] | None = Field(default=None, min_length=1)
    """Task ids (`mytask-v0`) or task families the item is asked in; None = every task whose
    spec names this questionnaire."""
    roles: list[str] | None = None
    """Party items only: the party roles that answer it (e.g. only the `user`); None = every party."""
    about: str = "dialogue"
    """`dialogue` (target None), `partner` (the other party), `each_party` (one answer per party),
    or `role:<role>` (the party with that role, e.g. `role:system`, the bot)."""
    required: bool = True
    value_type: Literal["int", "float"] = "int"
    """How numeric answers are stored; labelled scales store the label."""
    low_label: str | None = None
    """Words for the lowest point of a numeric scale (`Not at all`)."""
    high_label: str | None = None

    @field_validator("scale")
    @classmethod
    def _scale_has_points(cls, scale: Scale) -> Scale:
        if scale.labels is not None:
            if len(scale.labels) < 2 or len(set(scale.labels)) != len(scale.labels):
                raise ValueError(f"a labelled scale needs at least two distinct labels, got {scale.labels}")
            return scale
        if scale.low is None or scale.high is None:
            raise ValueError("a numeric scale needs both `low` and `high` (or give `labels`)")
        if not (float(scale.low).is_integer() and float(scale.high).is_integer()) or scale.low >= scale.high:
            raise ValueError(f"a numeric scale runs over whole numbers from low to high, got {scale.low}..{scale.high}")
        return scale

    @model_validator(mode="after")
    def _about_fits_respondent(self) -> "Item":
        if self.about not in ("dialogue", "partner", "each_party") and not (self.about.startswith(ROLE_PREFIX) and len(self.about) > len(ROLE_PREFIX)):
            raise ValueError(f"item {self.id}: `about` must be dialogue, partner, each_party or role:<role>, got {self.about!r}")
        if self.respondent == "third_party" and self.about == "partner":
            raise ValueError(f"item {self.id}: a third-party rater has no partner; use each_party or role:<role>")
        if self.respondent == "third_party" and self.roles is not None:
            raise ValueError(f"item {self.id}: `roles` says which parties answer, so it only fits party items")
        return self

    def options(self) -> list[int | str]:
        """The answers to offer, lowest first: the labels, or every whole number from low to high."""
        if self.scale.labels is not None:
            return list(self.scale.labels)
        return list(range(int(self.scale.low), int(self.scale.high) + 1))  # type: ignore[arg-type]

    def applies_to(self, task_id: str, respondent: str, role: str | None = None) -> bool:
        """Whether this item is asked of this respondent (with this party role) in this task."""
        if respondent != self.respondent or (self.tasks is not None and not set(self.tasks) & task_names(task_id)):
            return False
        return self.roles is None or role in self.roles


class Questionnaire(Model):
    """A titled list of items, shown on one page."""

    id: str = Field(pattern=r"^[A-Za-z0-9_.-]+$")
    title: str
    instructions: str = ""
    items: list[Item] = Field(min_length=1)

    @model_validator(mode="after")
    def _ids_unambiguous(self) -> "Questionnaire":
        seen: dict[tuple[str, str, str], int] = {}
        for index, item in enumerate(self.items):
            for task in item.tasks or ["*"]:
                key = (item.id, item.respondent, task)
                if key in seen:
                    raise ValueError(f"items[{index}] and items[{seen[key]}] both ask {item.id!r} of a {item.respondent} in {task!r}")
                seen[key] = index
        return self

    def items_for(self, task_id: str, respondent: str, role: str | None = None) -> list[Item]:
        return [item for item in self.items if item.applies_to(task_id, respondent, role)]

    def applies_to(self, task_id: str, respondent: str, role: str | None = None) -> bool:
        return bool(self.items_for(task_id, respondent, role))

    def narrowed(self, task_id: str, respondent: str, role: str | None = None) -> "Questionnaire":
        """The same questionnaire with only the items asked of this respondent in this task."""
        items = self.items_for(task_id, respondent, role)
        if not items:
            raise QuestionnaireError(f"questionnaire {self.id!r} asks nothing of a {respondent} in {task_id!r}")
        return self.model_copy(update={"items": items})


# --------------------------------------------------------------------------- loading


def load_questionnaire(path: Path | str) -> Questionnaire:
    """A questionnaire from a YAML or JSON file; a bad file raises `QuestionnaireError` naming the field."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
        data = json.loads(text) if path.suffix.lower() == ".json" else yaml.safe_load(text)
    except (OSError, ValueError, yaml.YAMLError) as error:
        raise QuestionnaireError(f"{path}: cannot read questionnaire: {error}") from None
    try:
        return Questionnaire.model_validate(data)
    except ValidationError as error:
        problems = "; ".join(f"{'.'.join(str(x) for x in e['loc']) or '(top)'}: {e['msg']}" for e in error.errors())
        raise QuestionnaireError(f"{path}: invalid questionnaire: {problems}") from None


def load_questionnaires(folder: Path | str) -> dict[str, Questionnaire]:
    """Every questionnaire file in a folder, by id (ids must be unique)."""
    catalogue: dict[str, Questionnaire] = {}
    for path in sorted(Path(folder).iterdir()):
        if path.suffix.lower() not in QUESTIONNAIRE_SUFFIXES:
            continue
        questionnaire = load_questionnaire(path)
        if questionnaire.id in catalogue:
            raise QuestionnaireError(f"{path}: questionnaire id {questionnaire.id!r} is used twice")
        catalogue[questionnaire.id] = questionnaire
    return catalogue


PURPOSE = {"party": "party", "third_party": "rater"}
"""Respondent kind -> the purpose a task spec names its questionnaire file by."""


def builtin_questionnaires() -> dict[str, Questionnaire]:
    """Every registered task's own questionnaires, by id (tasks may share one file's id)."""
    from duologue.tasks import task_ids

    return _catalogue(tuple(task_ids()))


@lru_cache(maxsize=8)
def _catalogue(task_ids: tuple[str, ...]) -> dict[str, Questionnaire]:
    catalogue: dict[str, Questionnaire] = {}
    for task_id in task_ids:
        for questionnaire in _task_questionnaires(task_id).values():
            known = catalogue.setdefault(questionnaire.id, questionnaire)
            if known != questionnaire:
                raise QuestionnaireError(f"questionnaire id {questionnaire.id!r} names two different questionnaires (task {task_id})")
    return catalogue


@lru_cache(maxsize=None)
def _task_questionnaires(task_id: str) -> dict[str, Questionnaire]:
    """Purpose (`party`, `rater`) -> the questionnaire the task's spec names for it."""
    from duologue.tasks import spec

    task_spec = spec(task_id)
    found = {}
    for purpose, name in task_spec.questionnaires.items():
        resource = task_spec.resource("questionnaires", name)
        if not resource.is_file():
            raise QuestionnaireError(f"task {task_id}: its spec names questionnaire {name!r}, but {task_spec.resources}/questionnaires/ has no such file")
        with resources.as_file(resource) as path:
            found[purpose] = load_questionnaire(path)
    return found


def get_questionnaire(name: str, catalogue: Mapping[str, Questionnaire] | None = None) -> Questionnaire:
    """A questionnaire by id (a study file names them), with a hint when the name is wrong."""
    catalogue = builtin_questionnaires() if catalogue is None else catalogue
    if name in catalogue:
        return catalogue[name]
    from duologue.tasks import did_you_mean

    raise QuestionnaireError(str(did_you_mean(name, list(catalogue), "questionnaire")))


def questionnaires_for(
    task_id: str,
    respondent: str,
    role: str | None = None,
    catalogue: Mapping[str, Questionnaire] | None = None,
) -> list[Questionnaire]:
    """The questionnaires asked of this respondent in this task, each narrowed to its applicable items.

    By default the task's own (its spec names them); for a task family rather than an id (a corpus
    dialogue without a task id), those of the family's tasks; with `catalogue`, every one there
    that asks something here.
    """
    if respondent not in RESPONDENTS:
        raise QuestionnaireError(f"unknown respondent kind {respondent!r}; expected one of {', '.join(RESPONDENTS)}")
    if catalogue is None:
        catalogue = {}
        for owner in _tasks_named(task_id):
            questionnaire = _task_questionnaires(owner).get(PURPOSE[respondent])
            if questionnaire is not None:
                catalogue.setdefault(questionnaire.id, questionnaire)
    return [q.narrowed(task_id, respondent, role) for q in catalogue.values() if q.applies_to(task_id, respondent, role)]


def _tasks_named(name: str) -> list[str]:
    """The registered task `name`, or every registered task of the family `name`."""
    from duologue.tasks import spec, task_ids

    known = task_ids()
    return [name] if name in known else [t for t in known if spec(t).family == name]


def task_names(task_id: str) -> set[str]:
    """The names an item's `tasks` may use for this task: its id and its family.

    A name that is not a registered task id (a family, e.g. from a corpus dialogue without a task
    id) stands for itself.
    """
    from duologue.tasks import spec, task_ids

    if task_id not in task_ids():
        return {task_id}
    return {task_id, spec(task_id).family}


def task_id_of(dialogue: Dialogue) -> str:
    """The task id a dialogue was played in (`meta.task_id`), else its task family."""
    task_id = dialogue.meta.get("task_id")
    return task_id if isinstance(task_id, str) and task_id else dialogue.task


# --------------------------------------------------------------------------- forms and answers


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


# --------------------------------------------------------------------------- completion codes

_CODE_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
"""Crockford's base-32 digits: no I, L, O or U, so a code read aloud or retyped is not mistaken."""
_TYPO_FIXES = str.maketrans({"O": "0", "I": "1", "L": "1"})


def completion_code(secret: str | bytes, study_id: str, participant_id: str, *, groups: int = 3, group_size: int = 4, prefix: str = "") -> str:
    """The completion code of one participant in one study, e.g. `K7QF-9MZD-2XHP` (60 bits).

    An HMAC-SHA256 of the two ids under `secret`: the same inputs always give the same code, and
    nobody without the secret can make a valid one. `prefix` (say `DUO`) is put in front.
    """
    if not secret:
        raise ValueError("a completion code needs a non-empty secret (set it in the platform settings)")
    if groups < 1 or group_size < 1:
        raise ValueError("groups and group_size must be at least 1")
    key = secret.encode("utf-8") if isinstance(secret, str) else secret
    message = json.dumps([study_id, participant_id], ensure_ascii=False).encode("utf-8")  # unambiguous join
    digest = hmac.new(key, message, hashlib.sha256).digest()
    characters = groups * group_size
    if characters * 5 > len(digest) * 8:
        raise ValueError(f"a code can carry at most {len(digest) * 8 // 5} characters")
    number = int.from_bytes(digest, "big") >> (len(digest) * 8 - characters * 5)
    letters = "".join(_CODE_ALPHABET[(number >> (5 * (characters - 1 - i))) & 31] for i in range(characters))
    code = "-".join(letters[i : i + group_size] for i in range(0, characters, group_size))
    return f"{prefix}-{code}" if prefix else code


def normalise_code(code: str) -> str:
    """A code as typed back by a person, in canonical letters: case, spaces and dashes ignored, O->0, I/L->1."""
    return re.sub(r"[\s-]", "", code).upper().translate(_TYPO_FIXES)


def check_completion_code(code: str, secret: str | bytes, study_id: str, participant_id: str, *, groups: int = 3, group_size: int = 4, prefix: str = "") -> bool:
    """Whether `code` is this participant's code (forgiving case, dashes, spaces and O/0, I/L/1 mix-ups)."""
    if not isinstance(code, str):
        return False
    expected = completion_code(secret, study_id, participant_id, groups=groups, group_size=group_size, prefix=prefix)
    return hmac.compare_digest(normalise_code(code).encode(), normalise_code(expected).encode())


__all__ = [
    "AnswerField",
    "AnswerProblem",
    "InvalidAnswers",
    "Item",
    "Questionnaire",
    "QuestionnaireError",
    "QuestionnaireForm",
    "builtin_questionnaires",
    "check_completion_code",
    "coerce_answer",
    "completion_code",
    "forms_for",
    "get_questionnaire",
    "load_questionnaire",
    "load_questionnaires",
    "normalise_code",
    "party_label",
    "questionnaires_for",
    "task_id_of",
    "task_names",
    "with_ratings",
]

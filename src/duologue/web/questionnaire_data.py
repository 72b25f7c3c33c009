"""Questionnaires as data: the `Item` and `Questionnaire` models, and finding them.

A questionnaire file (YAML or JSON) is read and checked by `load_questionnaire`; a task's own
files are found through its spec (`builtin_questionnaires`, `questionnaires_for`), and
`task_names` / `task_id_of` say which task an item or a dialogue belongs to. The format is
described in `duologue.web.questionnaires`, which also gathers the forms and completion codes.
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Literal, Mapping

import yaml
from pydantic import Field, ValidationError, field_validator, model_validator

from duologue.core.schema import Dialogue, Model, Scale

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

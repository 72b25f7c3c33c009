"""A study's collection protocol as data: the pages a person sees before the lobby.

Each corpus was collected with its own protocol (consent, instructions, a comprehension check,
surveys before the task); a study lists which it uses (`Protocol`), and the pages run in order:
consent -> instructions -> comprehension check -> each survey -> lobby.

A survey is a YAML file, either a task's own (under `protocol/` of its spec's resources, named
without the suffix) or any path. Its items say where each answer goes (`to`), so the answers land
in the dialogue the way the corpus stores them:

```
id: about-you
title: About you
items:
  - id: age
    question: How old are you?
    kind: number            # number | text | choice | scale
    low: 18
    high: 100
    to: info.demographics.age        # info.<path>: the party's `Party.info`
  - id: reason_food
    question: Why would extra food help you on the trip?
    kind: text
    to: private.reasons.Food         # private.<path>: the party's private scenario view
scores:                              # answers computed from several items
  - to: info.personality.big-five.extraversion
    mean: [tipi_1, -tipi_6]          # '-' = reverse-scored on the item's own scale
  - to: info.personality.svo
    majority: [svo_1, svo_2, svo_3]  # the option value most items share ...
    at_least: 2                      # ... when at least this many do, else `otherwise`
    otherwise: unclassified
```

A choice option is a label, or `{label, value}` when the stored value differs from what is shown.

A survey may first `draw` something for each person and show it (a corpus's protocol may have given
each person their priorities, then asked why for each): `draw: {keys: [High, Medium, Low], values:
[A, B, C], to: private.value2issue, inverse_to: private.priorities, intro: ..., lines: ["High
priority: {High}"]}`. It is drawn once per person when the page is first shown, kept with their
progress, shown (`lines`), written where `to` says (its inverse where `inverse_to` says), and each
`{key}` in the items' questions and `to` paths reads it (`to: private.reasons.{High}`).

Progress and answers are kept per (study, participant) in the `protocol_progress` table, with the
crowd platform's parameters (`PROLIFIC_PID`, `STUDY_ID`, `SESSION_ID`, `assignmentId`, ...).
"""

from __future__ import annotations

import copy

import json
import random
import re
import time
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Annotated, Any, Callable, Literal

import yaml
from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, model_validator
from sqlalchemy import JSON, Float, String, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column

from duologue.core.text import visible, without_bidi_controls
from duologue.web.consent import MAX_TEXT
from duologue.tasks import spec

CROWD_PARAMS = ("PROLIFIC_PID", "STUDY_ID", "SESSION_ID", "workerId", "assignmentId", "hitId", "turkSubmitTo")
"""Query parameters crowd platforms send with a participant; kept with the participant's progress."""
SURVEY_FOLDER = "protocol"
TASK_PREFIX = "task:"
"""A text or survey named `task:<name>` is the file `<name>` in the task's `protocol/` folder."""


class ProtocolError(ValueError):
    """A protocol or survey that cannot be used; the message says which and why."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Check(_Strict):
    """One comprehension question with its right answer."""

    question: str
    options: list[str] = Field(min_length=2)
    answer: str

    @model_validator(mode="after")
    def _answer_offered(self) -> "Check":
        if self.answer not in self.options:
            raise ValueError(f"answer {self.answer!r} is not one of the options {self.options}")
        return self


def _plain_text_name(name: str) -> str:
    if name.startswith(TASK_PREFIX):
        _refuse_unplain(name[len(TASK_PREFIX) :])
    return name


def _plain_survey_name(name: str) -> str:
    shipped = task_name(name)
    if shipped is not None:
        _refuse_unplain(shipped)
    return name


class InlineText(_Strict):
    """A consent or instructions text written in the study itself (`consent: {text: ...}`): what a
    study added on the admin page gives instead of a file."""

    text: str = Field(min_length=1, max_length=MAX_TEXT)

    @model_validator(mode="after")
    def _something_to_read(self) -> "InlineText":
        if not visible(self.text):
            raise ValueError("the text is empty")
        return self


def _text_source(given: Any) -> Any:
    """One field error whichever way a text is given (a name, or `{text: ...}`)."""
    if isinstance(given, str):
        return _plain_text_name(given)
    if isinstance(given, dict):
        try:
            return InlineText.model_validate(given)
        except ValidationError as error:
            raise ValueError("; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'text'}: {e['msg']}" for e in error.errors())) from None
    if isinstance(given, InlineText):
        return given
    raise ValueError("a text is a file name, task:<name>, or the text itself as {text: ...}")


TextSource = Annotated[str | InlineText, BeforeValidator(_text_source)]
"""A consent or instructions text: a file path, `task:<name>`, or `{text: ...}` written in the study."""
SurveyName = Annotated[str, AfterValidator(_plain_survey_name)]
"""A survey: a YAML file path, or the task's own, `task:<name>` or a bare name (without .yaml)."""


class Protocol(_Strict):
    """The pages before the lobby. Texts are file paths, `task:<name>` for a file the task ships
    under `protocol/`, or `{text: ...}` written in the study; all are templates (duologue.web.consent)."""

    consent: TextSource | None = None
    instructions: TextSource | None = None
    comprehension: list[Check] = Field(default_factory=list)
    surveys: list[SurveyName] = Field(default_factory=list)
    """Survey names in the task's `protocol/` folder (without .yaml), or YAML file paths."""

    def steps(self) -> list[str]:
        steps = [name for name in ("consent", "instructions") if getattr(self, name)]
        if self.comprehension:
            steps.append("comprehension")
        steps.extend(f"survey:{i}" for i in range(len(self.surveys)))
        return steps


class Option(_Strict):
    label: str
    value: str | int | float


class SurveyItem(_Strict):
    id: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    question: str
    kind: Literal["number", "text", "choice", "scale"]
    options: list[str | Option] = Field(default_factory=list)
    low: int | None = None
    high: int | None = None
    low_label: str | None = None
    high_label: str | None = None
    to: str | None = Field(default=None, pattern=r"^(info|private)\.[^.]+(\.[^.]+)*$")
    required: bool = True

    @model_validator(mode="after")
    def _kind_has_what_it_needs(self) -> "SurveyItem":
        if self.kind == "choice" and len(self.options) < 2:
            raise ValueError(f"item {self.id}: a choice needs at least two options")
        if self.kind in ("number", "scale") and (self.low is None or self.high is None or self.low >= self.high):
            raise ValueError(f"item {self.id}: a {self.kind} needs low < high")
        return self

    def choices(self) -> list[Option]:
        if self.kind == "scale":
            return [Option(label=str(n), value=n) for n in range(int(self.low or 0), int(self.high or 0) + 1)]
        return [o if isinstance(o, Option) else Option(label=o, value=o) for o in self.options]

    def read(self, raw: Any) -> tuple[Any, str | None]:
        """(value, problem) for one submitted answer."""
        text = "" if raw is None else without_bidi_controls(str(raw)).strip()  # kept with the dialogue and shown on the admin page
        if not text:
            return None, ("please answer this question" if self.required else None)
        if self.kind == "text":
            return (text[:2000], None) if len(text) >= 2 and visible(text) else (None, "please write a little more")
        if self.kind == "number":
            try:
                value = int(text)
            except ValueError:
                return None, "please give a whole number"
            return (value, None) if self.low <= value <= self.high else (None, f"please give a number from {self.low} to {self.high}")  # type: ignore[operator]
        for option in self.choices():
            if text == str(option.value) or text == option.label:
                return option.value, None
        return None, "please pick one of the options"


class Score(_Strict):
    to: str = Field(pattern=r"^(info|private)\.[^.]+(\.[^.]+)*$")
    mean: list[str] | None = None
    majority: list[str] | None = None
    at_least: int = 1
    otherwise: str | None = None


PLACEHOLDER = re.compile(r"\{([^{}]+)\}")
PATH = r"^(info|private)\.[^.]+(\.[^.]+)*$"


def _fill_in(text: str, drawn: dict[str, str]) -> str:
    """`{key}` -> the drawn value (only the draw's keys: other braces stay as written)."""
    return PLACEHOLDER.sub(lambda m: str(drawn.get(m.group(1), m.group(0))), text)


class Draw(_Strict):
    """Something drawn for each person before they answer (see the module's text)."""

    keys: list[str] = Field(min_length=1)
    values: list[str]
    to: str | None = Field(default=None, pattern=PATH)
    inverse_to: str | None = Field(default=None, pattern=PATH)
    intro: str = ""
    lines: list[str] = Field(default_factory=list)

    @model_validator(mode="after")
    def _enough_values(self) -> "Draw":
        if len(set(self.keys)) != len(self.keys) or len(set(self.values)) != len(self.values):
            raise ValueError("a draw's keys and values must each be different from one another")
        if len(self.values) < len(self.keys):
            raise ValueError(f"a draw needs at least as many values ({len(self.values)}) as keys ({len(self.keys)})")
        return self

    def make(self, rng: random.Random) -> dict[str, str]:
        return dict(zip(self.keys, rng.sample(self.values, len(self.keys)), strict=True))


class Survey(_Strict):
    id: str
    title: str
    instructions: str = ""
    draw: Draw | None = None
    items: list[SurveyItem] = Field(min_length=1)
    scores: list[Score] = Field(default_factory=list)

    @model_validator(mode="after")
    def _placeholders_are_drawn(self) -> "Survey":
        known = set(self.draw.keys) if self.draw else set()
        for item in self.items:  # a question without a draw may show braces as they are
            for text in [item.to or "", *([item.question] if self.draw else [])]:
                unknown = [name for name in PLACEHOLDER.findall(text) if name not in known]
                if unknown:
                    raise ValueError(f"item {item.id}: {{{unknown[0]}}} is not a key the survey draws")
        return self

    def shown(self, drawn: dict[str, str] | None) -> "Survey":
        """This survey as one person sees it: the draw filled into its questions and paths."""
        if self.draw is None or not drawn:
            return self
        items = [item.model_copy(update={"question": _fill_in(item.question, drawn), "to": item.to and _fill_in(item.to, drawn)}) for item in self.items]
        return self.model_copy(update={"items": items, "instructions": _fill_in(self.instructions, drawn)})

    def draw_lines(self, drawn: dict[str, str] | None) -> list[str]:
        """The draw's lines as shown on the page."""
        return [_fill_in(line, drawn) for line in self.draw.lines] if self.draw and drawn else []

    def drawn_fills(self, drawn: dict[str, str] | None) -> dict[str, Any]:
        """Target path -> value for the draw itself (and its inverse)."""
        if self.draw is None or not drawn:
            return {}
        out: dict[str, Any] = {}
        if self.draw.to:
            out[self.draw.to] = dict(drawn)
        if self.draw.inverse_to:
            out[self.draw.inverse_to] = {value: key for key, value in drawn.items()}
        return out

    def read(self, answers: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
        values, problems = {}, []
        for item in self.items:
            value, problem = item.read(answers.get(item.id))
            if problem:
                problems.append(f"{item.question} {problem}")
            elif value is not None:
                values[item.id] = value
        return values, problems

    def fills(self, values: dict[str, Any]) -> dict[str, Any]:
        """Target path -> value: each answered item with a `to`, then each computed score."""
        out = {item.to: values[item.id] for item in self.items if item.to and item.id in values}
        by_id = {item.id: item for item in self.items}
        for score in self.scores:
            if score.mean is not None:
                points = []
                for name in score.mean:
                    item = by_id[name.lstrip("-")]
                    value = values.get(item.id)
                    if isinstance(value, (int, float)):
                        points.append((item.low or 0) + (item.high or 0) - value if name.startswith("-") else value)
                out[score.to] = round(sum(points) / len(points), 2) if points else None
            elif score.majority is not None:
                counts: dict[Any, int] = {}
                for name in score.majority:
                    if name in values:
                        counts[values[name]] = counts.get(values[name], 0) + 1
                best = max(counts.items(), key=lambda kv: kv[1], default=(None, 0))
                out[score.to] = best[0] if best[1] >= score.at_least else score.otherwise
        return out


def task_name(survey_name: str) -> str | None:
    """The file name a survey entry names in the task's folder (without its suffix), or None for a
    YAML path: `task:<name>`, and a bare name without .yaml/.yml, are both the task's own."""
    if survey_name.startswith(TASK_PREFIX):
        return survey_name[len(TASK_PREFIX) :]
    return None if survey_name.endswith((".yaml", ".yml")) else survey_name


def plain_name_problem(name: str) -> str | None:
    """Why `name` is not one plain file name (None when it is): a `task:` name is read inside the
    task's folder, so a separator, `..`, a drive or an absolute path would reach any file of the server."""
    if not name or name in (".", ".."):
        return f"{name!r} is not a file name"
    if any(ord(c) < 32 for c in name):  # NUL among them
        return f"{name!r} holds a control character, which no file name should"
    if PurePosixPath(name).name != name or PureWindowsPath(name).name != name:
        return f"{name!r} is not one plain file name (no folders, '..', drives or absolute paths)"
    return None


def _refuse_unplain(name: str) -> None:
    problem = plain_name_problem(name)
    if problem is not None:
        raise ValueError(f"{problem}; a task's text or survey is one file in its {SURVEY_FOLDER}/ folder")


def task_file(folder: Any, name: str) -> Any:
    """The file `name` directly inside a task's resource `folder`: a plain name, and (on a file
    system) its real path still inside the folder, so a link that points out is refused too."""
    problem = plain_name_problem(name)
    if problem is not None:
        raise ProtocolError(problem)
    found = folder.joinpath(name)
    if isinstance(found, Path) and not found.resolve().is_relative_to(Path(folder).resolve()):
        raise ProtocolError(f"{name!r} leads out of the task's {SURVEY_FOLDER}/ folder (a link to a file elsewhere)")
    return found


def _text_path(task_id: str, name: str, suffix: str) -> Any:
    if name.startswith(TASK_PREFIX):
        shipped = name[len(TASK_PREFIX) :]
        found = task_file(spec(task_id).resource(SURVEY_FOLDER), shipped + suffix)
        if not found.is_file():
            raise ProtocolError(f"task {task_id} ships no {SURVEY_FOLDER}/{shipped}{suffix}")
        return found
    path = Path(name)
    if not path.is_file():
        raise ProtocolError(f"{name}: no such file")
    return path


def text(task_id: str, name: str | InlineText) -> str:
    """A consent or instructions text as written (a template; blank lines separate paragraphs)."""
    if isinstance(name, InlineText):
        return name.text
    written: str = _text_path(task_id, name, ".txt").read_text(encoding="utf-8")
    return written


def survey(task_id: str, name: str) -> Survey:
    if name.endswith((".yaml", ".yml")):
        source = _text_path(task_id, name, "")
    else:
        source = _text_path(task_id, name if name.startswith("task:") else f"task:{name}", ".yaml")
    try:
        return Survey.model_validate(yaml.safe_load(source.read_text(encoding="utf-8")))
    except (ValidationError, yaml.YAMLError) as error:
        raise ProtocolError(f"survey {name}: {error}") from None


def file_fields(protocol: Protocol) -> list[str]:
    """The protocol fields that name a file on the server rather than a text or survey the task ships."""
    named = [(f"protocol.{field}", getattr(protocol, field)) for field in ("consent", "instructions")]
    named += [(f"protocol.surveys.{i}", name) for i, name in enumerate(protocol.surveys)]
    return [
        field for field, name in named
        if isinstance(name, str) and name and not name.startswith("task:") and (not field.startswith("protocol.surveys") or name.endswith((".yaml", ".yml")))
    ]


def texts(task_id: str, protocol: Protocol) -> tuple[dict[str, str], list[str]]:
    """({step: text as written}, [`field: reason`] for each the protocol names that cannot be read)."""
    found: dict[str, str] = {}
    failed: list[str] = []
    for field in ("consent", "instructions"):
        name = getattr(protocol, field)
        if name:
            try:
                found[field] = text(task_id, name)
            except (ProtocolError, OSError, UnicodeDecodeError) as error:
                failed.append(f"protocol.{field}: {error}")
    return found, failed


def problems(task_id: str, protocol: Protocol) -> list[str]:
    """`field: reason` for each text or survey the protocol names that cannot be read (empty: fine)."""
    found = texts(task_id, protocol)[1]
    for index, name in enumerate(protocol.surveys):
        try:
            survey(task_id, name)
        except (ProtocolError, OSError, UnicodeDecodeError) as error:
            found.append(f"protocol.surveys.{index}: {error}")
    return found


def check(task_id: str, protocol: Protocol) -> None:
    """Every text and survey the protocol names can be read (a study is refused otherwise)."""
    found = problems(task_id, protocol)
    if found:
        raise ProtocolError("; ".join(found))


# --------------------------------------------------------------------------- progress


class _Base(DeclarativeBase):
    pass


class ProgressRow(_Base):
    __tablename__ = "protocol_progress"
    study_id: Mapped[str] = mapped_column(String(100), primary_key=True)
    participant_id: Mapped[str] = mapped_column(String(200), primary_key=True)
    arrived: Mapped[float] = mapped_column(Float)
    data: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    """{"done": [step], "answers": {step: {item: value}}, "fills": {path: value}, "crowd": {...}, "times": {step: t}}"""


class Progress:
    """Per-participant protocol progress in the platform's database (its own table)."""

    def __init__(self, engine: Any) -> None:
        from duologue.web.storage import create_tables

        self.engine = engine
        create_tables(engine, _Base.metadata)

    def get(self, study_id: str, participant_id: str) -> dict[str, Any]:
        with Session(self.engine) as session:
            row = session.get(ProgressRow, (study_id, participant_id))
            return dict(row.data) if row else {}

    def arrived(self, study_id: str, participant_id: str) -> float | None:
        with Session(self.engine) as session:
            row = session.get(ProgressRow, (study_id, participant_id))
            return row.arrived if row else None

    def update(self, study_id: str, participant_id: str, change: dict[str, Any]) -> dict[str, Any]:
        """Merge `change` into the stored data (dicts merge one level deep; lists are replaced)."""

        def merged(data: dict[str, Any]) -> dict[str, Any]:
            for key, value in change.items():
                if isinstance(value, dict) and isinstance(data.get(key), dict):
                    data[key] = {**data[key], **value}
                else:
                    data[key] = value
            return data

        return self.amend(study_id, participant_id, merged)

    def amend(self, study_id: str, participant_id: str, change: Callable[[dict[str, Any]], dict[str, Any]]) -> dict[str, Any]:
        """Replace the stored data by `change(data)`, computed with the row locked (a change that
        reads what it changes, such as time added up, is not lost to another worker's at the same moment)."""
        for attempt in range(2):
            try:
                with Session(self.engine) as session, session.begin():
                    row = session.get(ProgressRow, (study_id, participant_id), with_for_update=True)
                    if row is None:
                        row = ProgressRow(study_id=study_id, participant_id=participant_id, arrived=time.time(), data={})
                        session.add(row)
                    data = change(json.loads(json.dumps(row.data or {})))
                    row.data = data
                    return data
            except IntegrityError:  # another request made the row at the same moment: change that one
                if attempt:
                    raise
        raise AssertionError("unreachable")

    def all(self, study_id: str) -> list[tuple[str, float, dict[str, Any]]]:
        with Session(self.engine) as session:
            rows = session.scalars(select(ProgressRow).where(ProgressRow.study_id == study_id)).all()
            return [(r.participant_id, r.arrived, dict(r.data)) for r in rows]


def progress_of(state: Any) -> Progress:
    """The platform's progress store (made once per platform, on its storage's engine)."""
    store = getattr(state, "_protocol_progress", None)
    if store is None:
        store = Progress(state.storage.engine)
        state._protocol_progress = store
    return store


def next_step(protocol: Protocol | None, data: dict[str, Any]) -> str | None:
    if protocol is None:
        return None
    done = set(data.get("done", []))
    return next((s for s in protocol.steps() if s not in done), None)


def _put(target: dict[str, Any], path: list[str], value: Any) -> None:
    for key in path[:-1]:
        target = target.setdefault(key, {})
    target[path[-1]] = value


def personalise(state: Any, study: Any, task: Any) -> bool:
    """Put each person's protocol answers into the new dialogue: `info.*` into the party's info,
    `private.*` into its private view of the scenario. Whether the scenario changed."""
    fills_of = {}
    for party in task.parties:
        if party.kind == "human" and party.participant_id:
            fills = progress_of(state).get(study.id, party.participant_id).get("fills") or {}
            if fills:
                fills_of[party.id] = fills
    changed = False
    for party in task.parties:
        before = copy.deepcopy(task.scenario.private.get(party.id, {}))
        touched = False
        for path, value in fills_of.get(party.id, {}).items():
            where, *rest = path.split(".")
            if where == "info":
                _put(party.info, rest, value)
            else:
                _put(task.scenario.private.setdefault(party.id, {}), rest, value)
                changed = touched = True
        if touched:  # the task may keep its scenarios' relation between the parties (CaSiNo's pairing mix)
            task.private_set(task.scenario, party.id, before, set(fills_of))
    return changed

"""Studies: what a research team runs on the platform, as data (a YAML file or the admin page).

A study names a task, where its scenarios come from, who people may be paired with (another
person, or a bot by agent spec, after a wait), quotas per scenario and partner type, time limits,
the questionnaire after each dialogue, and how many third-party ratings each dialogue needs.
`study.example.yaml` at the repository root documents every field.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from duologue.web.consent import ConsentFields
from duologue.web.crowd import Crowd
from duologue.web.payments import Pay
from duologue.web.protocol import Protocol
from duologue.tasks import loadable_task_ids, spec, task_class, task_ids
from duologue.web.scenario_pool import ScenarioPool as ScenarioPool, StudyError as StudyError


log = logging.getLogger(__name__)

MAX_POOL = 10_000
"""The most seeded scenarios a study's pool may hold."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Partner(_Strict):
    """One kind of partner a participant may get."""

    kind: Literal["human", "bot"]
    agent: str = "rule"
    """For a bot: the agent spec (`rule`, `random`, `llm:local`, ...)."""

    @property
    def pairing(self) -> str:
        """The name quotas and the admin page use: `human-human` or `bot:<spec>`."""
        return "human-human" if self.kind == "human" else f"bot:{self.agent}"


class Scenarios(_Strict):
    """Where scenarios come from."""

    source: Literal["generated", "corpus"] = "generated"
    pool: int | None = Field(default=None, ge=1, le=MAX_POOL)
    """generated: draw from a fixed pool of this many seeded scenarios (so quotas per scenario
    mean something; at most 10,000, each pairing looks at all of them); None: a fresh scenario for
    every dialogue."""
    seed: int = 0
    """generated: the pool's first seed."""
    corpus: str | None = None
    """corpus: a registered corpus format name (a task's spec names its own)."""
    path: Path | None = None
    """corpus: a corpus file or folder; each record's scenario is replayed."""
    limit: int | None = Field(default=None, ge=1)
    """corpus: use only the first N records."""

    @model_validator(mode="after")
    def _corpus_needs_path(self) -> "Scenarios":
        if self.source == "corpus" and (self.corpus is None or self.path is None):
            raise ValueError("scenarios.source 'corpus' needs scenarios.corpus and scenarios.path")
        return self


class Study(_Strict):
    """One study. Field docs double as the reference in study.example.yaml."""

    id: str = Field(pattern=r"^[A-Za-z0-9_.-]{1,60}$")
    title: str = ""
    description: str = ""
    task: str
    """A registered task id (`duologue tasks`), e.g. `mytask-v0`."""
    task_options: dict[str, Any] = Field(default_factory=dict)
    """Passed to the task (`max_turns`, open chat's `utterances`, ...)."""
    scenarios: Scenarios = Field(default_factory=Scenarios)
    partners: list[Partner] = Field(default_factory=lambda: [Partner(kind="human"), Partner(kind="bot", agent="rule")])
    """Allowed partner types. A person is paired with a waiting person when `human` is listed,
    else (or after `bot_wait_seconds`) with the first bot type whose quota is not full."""
    bot_wait_seconds: float = Field(default=5.0, ge=0, allow_inf_nan=False)
    """How long a person waits for a human partner before a bot takes the seat."""
    quotas: dict[str, Annotated[int, Field(ge=0)]] = Field(default_factory=dict)
    """Maximum dialogues per partner type (`human-human`, `bot:rule`); absent = no limit."""
    per_scenario: int | None = Field(default=None, ge=1)
    """Maximum dialogues per scenario and partner type; None = no limit."""
    human_party: str | None = None
    """With a bot: which party the person plays ; None = the task spec's `person`, else drawn at random."""
    turn_taking: Literal["free", "alternate"] = "free"
    """Between two people: `free` lets either move whenever the rules allow; bots always alternate."""
    on_partner_leave: Literal["end", "bot"] = "end"
    """Between two people, when one leaves (their page gone past `partner_grace_seconds`): `end`
    ends the dialogue as `partner_left`; `bot` hands their seat to the study's bot partner (the
    first bot in `partners`, else `rule`) and the dialogue goes on. Either way the person left
    behind gets a completion code whatever `min_messages` says, and pay for their time."""
    partner_grace_seconds: float | None = Field(default=None, gt=0, allow_inf_nan=False)
    """How long a person who lost their connection has to come back before they count as gone
    (None = the platform's `reconnect_seconds`, 30 s by default)."""
    time_limit_seconds: float | None = Field(default=600.0, gt=0, allow_inf_nan=False)
    """Whole-dialogue time limit (a countdown on screen); None = none."""
    idle_seconds: float | None = Field(default=None, gt=0, allow_inf_nan=False)
    """End the dialogue when nobody moves this long (None = the platform setting)."""
    questionnaire: str | None = None
    """Questionnaire after the dialogue (a name in duologue.web.questionnaires); None = the task's default."""
    rating_questionnaire: str | None = None
    """Questionnaire third-party raters answer; None = the task's default."""
    ratings_per_dialogue: int = Field(default=3, ge=0)
    """How many third-party raters each finished dialogue needs (3 is common)."""
    max_dialogues_per_participant: int | None = Field(default=None, ge=1)
    """None = a participant may play again after finishing."""
    protocol: Protocol | None = None
    """Pages before the lobby: consent, instructions, comprehension check, surveys (duologue.web.protocol)."""
    crowd: Crowd | None = None
    """Who may arrive (duologue.web.crowd): `prolific` (PROLIFIC_PID, STUDY_ID, SESSION_ID),
    `mturk` (workerId, assignmentId, hitId), `links` (signed per-person links) or `open` (any id).
    None = `links` when pay.link_secret is set, else `open` (what a study did before this field)."""
    prolific_study_id: str | None = Field(default=None, pattern=r"^[A-Za-z0-9_-]{1,100}$")
    """crowd `prolific`: the study's id on Prolific; an arrival with another STUDY_ID is refused."""
    pay: Pay | None = None
    """Base pay, bonus formula, completion redirect, waiting-room pay, min_messages (duologue.web.payments)."""
    consent: ConsentFields | None = None
    """The values the consent and instructions texts fill in: researcher, institution, contact,
    ethics approval, duration, pay, bonus, data use, withdrawal (duologue.web.consent)."""

    @field_validator("task")
    @classmethod
    def _known_task(cls, task: str) -> str:
        known = task_ids()
        if task not in known:
            raise ValueError(f"unknown task {task!r}; known: {', '.join(known)}")
        return task

    @field_validator("partners")
    @classmethod
    def _some_partner(cls, partners: list[Partner]) -> list[Partner]:
        if not partners:
            raise ValueError("a study needs at least one partner type")
        return partners

    @property
    def family(self) -> str:
        return spec(self.task).family

    @property
    def allows_humans(self) -> bool:
        return any(p.kind == "human" for p in self.partners)

    @property
    def bots(self) -> list[Partner]:
        return [p for p in self.partners if p.kind == "bot"]

    @property
    def leave_bot(self) -> str:
        """The agent spec that takes a departed person's seat under `on_partner_leave: bot`."""
        bots = self.bots
        return bots[0].agent if bots else "rule"


def default_studies(bot_wait_seconds: float = 5.0) -> list[Study]:
    """One study per registered task, from its spec: people or a bot (the task's rule agent, else
    the random one), so every task is playable at once (the person plays `spec.person` opposite a
    bot, where the task says)."""
    from pydantic import ValidationError

    studies: list[Study] = []
    for task_id in loadable_task_ids():  # a broken plug-in is logged and left out, the rest still start
        task_spec = spec(task_id)
        bot = "rule" if "rule" in task_class(task_id).agents else "random"
        short = task_id.rpartition("-v")[0] or task_id
        taken = {s.id for s in studies}
        try:
            studies.append(
                Study(
                    id=short if short not in taken else task_id,  # casino-v1 beside casino-v0 keeps its version
                    title=task_spec.title,
                    description=task_spec.description,
                    task=task_id,
                    bot_wait_seconds=bot_wait_seconds,
                    human_party=task_spec.person,
                    partners=[Partner(kind="human"), Partner(kind="bot", agent=bot)],
                )
            )
        except ValidationError as error:  # an id no study link can carry, say: that task gets no default study
            log.warning("task %s gets no default study: %s", task_id, error.errors()[0]["msg"])
    return studies


def load_studies(path: Path) -> list[Study]:
    """Studies from a YAML file: one study mapping, or `studies: [...]`."""
    try:
        data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except OSError as error:
        raise StudyError(f"{path}: {error.strerror or error}") from None
    except UnicodeDecodeError as error:
        raise StudyError(f"{path}: not a text file (byte {error.start} is not UTF-8); a study is written in YAML") from None
    except yaml.YAMLError as error:
        raise StudyError(f"{path}: not valid YAML: {error}") from None
    return parse_studies(data, source=str(path))


def parse_studies(data: Any, source: str = "study", *, check: bool = True) -> list[Study]:
    """Studies from parsed YAML, each checked whole (`study_check`) unless `check` is False."""
    from pydantic import ValidationError

    from duologue.web.study_check import study_problems

    items = data.get("studies") if isinstance(data, dict) and "studies" in data else [data]
    if not isinstance(items, list) or not items:
        raise StudyError(f"{source}: expected a study mapping or `studies:` with a list of them")
    studies = []
    for i, item in enumerate(items):
        try:
            studies.append(Study.model_validate(item))
        except ValidationError as error:
            where = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or '(study)'}: {e['msg']}" for e in error.errors())
            named = item.get("id") if isinstance(item, dict) and isinstance(item.get("id"), str) else None
            raise StudyError(f"{source}: study {i + 1}{f' ({named})' if named else ''}: {where}") from None
        problems = study_problems(studies[-1]) if check else []
        if problems:
            raise StudyError(f"{source}: study {i + 1} ({studies[-1].id}): " + "; ".join(problems))
    ids = [s.id for s in studies]
    if len(set(ids)) != len(ids):
        raise StudyError(f"{source}: study ids must be unique, got {ids}")
    return studies

"""The task spec: what generic code may know about a task (like Gymnasium's `EnvSpec`).

Every registered task carries one, built in the task's own folder. The arena, evaluation, web,
agents and CLI read it instead of naming tasks: a title and description for people, its roles,
the kind of game and the metrics that rank agents, the context an LLM judge needs, its corpus
format, and where its resources (prompts, questionnaires, a page widget, analyses) live.
"""

from __future__ import annotations

from importlib import resources
from importlib.abc import Traversable
from typing import Literal

from pydantic import Field, field_validator, model_validator

from duologue.core.schema import Model

GameKind = Literal["competitive", "cooperative", "rated"]
Comparison = Literal["score", "surplus", "role"]


class Metric(Model):
    """A headline per-episode figure (a key of `Task.episode_metrics`) and how to read it."""

    name: str
    label: str
    higher_is_better: bool = True


class TaskSpec(Model):
    """What a task is, for generic code and for people. Built in the task's folder."""

    id: str
    """Registered id with a version (`name-v0`). Bump the version when rules or scoring change."""
    family: str
    """The task family, written on every `Dialogue` of the task (several ids may share one)."""
    title: str
    description: str
    """One paragraph for people: what the parties know, what they do, how it ends."""
    parties: tuple[str, str]
    """Party ids as the task's transcripts write them (the corpus's own names)."""
    roles: tuple[str, ...] = ()
    """Role names a party may play (`buyer`, `seller`); empty when the parties are alike."""
    person: str | None = None
    """The party a person takes opposite a bot in a study, where it matters (None: either)."""
    kind: GameKind
    """`competitive`: each party's own score decides who did better; `cooperative`: both share one
    outcome (a pair is rated against the task); `rated`: no score, people's ratings judge it."""
    metrics: list[Metric] = Field(default_factory=list)
    """Headline metrics, most important first (the first ranks agents in tournaments)."""
    compare: Comparison = "score"
    """How the two parties of a competitive game compare (ratings, tournaments, reports): `score`,
    the higher score wins; `surplus`, the larger gain over one's own walk-away value wins (for
    private walk-away values; needs declared values, `Task.values`); `role`, each score is
    measured against the mean score of its role over the games compared together (for roles whose
    scores are on different footings)."""
    score: str | None = None
    """What a party's score means (`points out of 10`); None when the task keeps no score."""
    judge_context: str = ""
    """What an LLM judge needs to know to read a transcript of this task."""
    corpus: str | None = None
    """The corpus format that writes this task's transcripts, if any."""
    resources: str
    """The package that holds the task's files: `prompts/`, `questionnaires/`, `static/`."""
    widget: str | None = None
    """A richer page control than the schema's form, as a file under `static/` of `resources`."""
    questionnaires: dict[str, str] = Field(default_factory=dict)
    """Purpose (`party`, `rater`) -> questionnaire file under `questionnaires/` of `resources`."""
    analysis: str | None = None
    """`module:function` of the task's own corpus analysis (`duologue analyze <corpus>`)."""

    @field_validator("id")
    @classmethod
    def _versioned(cls, value: str) -> str:
        name, _, version = value.rpartition("-v")
        if not name or not version.isdigit():
            raise ValueError(f"a task id carries a version, like `mytask-v0`; got {value!r}")
        return value

    @model_validator(mode="after")
    def _parties_differ(self) -> "TaskSpec":
        if self.parties[0] == self.parties[1]:
            raise ValueError(f"the two parties need different ids, got {self.parties}")
        if any(not p.strip() or p != p.strip() for p in self.parties):
            raise ValueError(f"a party id is a visible name without spaces around it, got {self.parties}")
        return self

    @property
    def scored(self) -> bool:
        """Whether parties get scores that rank agents."""
        return self.kind != "rated" and bool(self.metrics)

    def resource(self, *parts: str) -> Traversable:
        """A file or folder under the task's resource package (it may not exist)."""
        path = resources.files(self.resources)
        for part in parts:
            path = path.joinpath(part)
        return path

    def read_resource(self, *parts: str) -> str | None:
        """The text of a resource file, or None when the task ships none."""
        path = self.resource(*parts)
        return path.read_text(encoding="utf-8") if path.is_file() else None

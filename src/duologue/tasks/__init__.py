"""One package per task, each holding everything about that task.

Generic code finds a task's parts only through the registries below: adding a task means adding
its folder and one line here.
"""

from __future__ import annotations

import difflib
from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from duologue.core.annotator import Annotator
    from duologue.core.task import Task
    from duologue.data.formats import CorpusFormat

TASKS: dict[str, str] = {
    "mutualfriends-v0": "duologue.tasks.mutualfriends.task:MutualFriendsTask",
    "craigslist-v0": "duologue.tasks.craigslist.task:CraigslistTask",
    "casino-v0": "duologue.tasks.casino.task:CasinoTask",
    "openchat-ed-v0": "duologue.tasks.openchat.task:EmpatheticChatTask",
    "openchat-wow-v0": "duologue.tasks.openchat.task:WizardChatTask",
}
"""Task id -> `module:Class` of its `Task`. Ids carry a version (`casino-v0`)."""

ANNOTATORS: dict[str, str] = {
    "acts": "duologue.tasks.craigslist.acts:ActAnnotator",
    "entities": "duologue.tasks.mutualfriends.entities:EntityAnnotator",
    "strategies": "duologue.tasks.casino.strategies:StrategyAnnotator",
}
"""Annotator name (`duologue annotate NAME`) -> `module:Class` of its `Annotator`."""

CORPUS_FORMATS: dict[str, str] = {
    "mutualfriends": "duologue.tasks.mutualfriends.corpus:MutualFriendsFormat",
    "craigslist": "duologue.tasks.craigslist.corpus:CraigslistFormat",
    "casino": "duologue.tasks.casino.corpus:CasinoFormat",
    "duo": "duologue.tasks.openchat.corpus:DuoFormat",
}
"""Corpus name -> `module:Class` of its `CorpusFormat`."""


class UnknownNameError(KeyError):
    """A name that is not registered; the message suggests the closest ones."""

    def __str__(self) -> str:
        return str(self.args[0])


def did_you_mean(name: str, known: list[str], what: str) -> UnknownNameError:
    close = difflib.get_close_matches(name, known, n=3, cutoff=0.5)
    hint = f" Did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
    return UnknownNameError(f"unknown {what} {name!r}.{hint} Known: {', '.join(sorted(known))}.")


def load_class(target: str) -> type:
    """The class a registry entry names, as `module:Class` (imported on first use)."""
    module, cls = target.split(":")
    return getattr(import_module(module), cls)


def _registered(registry: dict[str, str], name: str, what: str) -> type:
    try:
        return load_class(registry[name])
    except KeyError:
        raise did_you_mean(name, list(registry), what) from None


def corpus_format(name: str) -> "CorpusFormat":
    """The format registered under `name`, e.g. `corpus_format("casino")`."""
    return _registered(CORPUS_FORMATS, name, "corpus")()


def make(task_id: str, **options) -> "Task":
    """A new task by its registered id, e.g. `make("casino-v0", max_turns=30)`."""
    return _registered(TASKS, task_id, "task")(**options)


def task_ids() -> list[str]:
    return list(TASKS)


def annotator(name: str) -> "Annotator":
    """The annotator registered under `name`, e.g. `annotator("acts")`."""
    return _registered(ANNOTATORS, name, "annotator")()

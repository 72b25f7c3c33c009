"""One package per task, each holding everything about that task.

Generic code finds a task's parts only through the registries below and the task's spec
(`duologue.core.spec.TaskSpec`): adding a task means adding its folder and one line here. A task
from another package plugs in without editing duologue, by `duologue.register(...)` or by an entry
point in the `duologue.tasks` group (name: the task id, value: `module:Class`); its corpus format
and annotators likewise (`duologue.corpora`, `duologue.annotators`).
"""

from __future__ import annotations

import functools
import inspect
import logging
from importlib import metadata
from typing import TYPE_CHECKING, Any

from duologue.core.names import UnknownNameError as UnknownNameError, did_you_mean as did_you_mean, load_class as load_class

if TYPE_CHECKING:
    from pathlib import Path

    from duologue.core.annotator import Annotator
    from duologue.core.schema import Dialogue
    from duologue.core.spec import TaskSpec
    from duologue.core.task import Task
    from duologue.data.formats import CorpusFormat

log = logging.getLogger(__name__)

TASKS: dict[str, str] = {
    "mutualfriends-v0": "duologue.tasks.mutualfriends.task:MutualFriendsTask",
    "craigslist-v0": "duologue.tasks.craigslist.task:CraigslistTask",
    "casino-v0": "duologue.tasks.casino.task:CasinoTask",
    "openchat-ed-v0": "duologue.tasks.openchat.task:EmpatheticChatTask",
    "openchat-wow-v0": "duologue.tasks.openchat.task:WizardChatTask",
    "dealornodeal-v0": "duologue.tasks.dealornodeal.task:DealOrNoDealTask",
}
"""Task id -> `module:Class` of its `Task`. Ids carry a version (`casino-v0`)."""

ANNOTATORS: dict[str, str] = {
    "acts": "duologue.tasks.craigslist.acts:ActAnnotator",
    "entities": "duologue.tasks.mutualfriends.entities:EntityAnnotator",
    "strategies": "duologue.tasks.casino.strategy_annotator:StrategyAnnotator",
}
"""Annotator name (`duologue annotate NAME`) -> `module:Class` of its `Annotator`."""

CORPUS_FORMATS: dict[str, str] = {
    "mutualfriends": "duologue.tasks.mutualfriends.corpus:MutualFriendsFormat",
    "craigslist": "duologue.tasks.craigslist.corpus:CraigslistFormat",
    "casino": "duologue.tasks.casino.corpus:CasinoFormat",
    "duo": "duologue.tasks.openchat.corpus:DuoFormat",
    "dealornodeal": "duologue.tasks.dealornodeal.corpus:DealOrNoDealFormat",
}
"""Corpus name -> `module:Class` of its `CorpusFormat`."""


ENTRY_POINT_GROUPS = {"duologue.tasks": TASKS, "duologue.corpora": CORPUS_FORMATS, "duologue.annotators": ANNOTATORS}
"""Entry-point group -> the registry its entries join."""
_plugins_loaded = False


def load_plugins() -> None:
    """Add the tasks, corpus formats and annotators that installed packages declare as entry points
    (once per process). A broken entry is logged and skipped, never fatal to the built-in tasks."""
    global _plugins_loaded
    if _plugins_loaded:
        return
    _plugins_loaded = True
    for group, registry in ENTRY_POINT_GROUPS.items():
        for entry in metadata.entry_points(group=group):
            if entry.name in registry and registry[entry.name] != entry.value:
                log.warning("entry point %s=%s (group %s) ignored: the name is taken by %s", entry.name, entry.value, group, registry[entry.name])
                continue
            registry[entry.name] = entry.value


VARIANTS: dict[str, dict[str, Any]] = {}
"""Task id -> the options a variant is made with (`register(Task, id="mytask-hard-v0", kwargs={...})`)."""


def register(task: "type[Task] | str", *, id: str | None = None, corpus: "tuple[str, Any] | None" = None, kwargs: dict[str, Any] | None = None) -> str:
    """Register a task from outside duologue: a `Task` class, or `module:Class` with its `id`.

    `corpus=(name, format)` registers its corpus format too. `kwargs` registers a variant, as
    Gymnasium's `register(id, kwargs=...)` does: `id` (its own, with a version) names the task made
    with these options (`make(id)` is `make(base, **kwargs)`, and its spec and dialogues carry the
    variant's id), no subclass needed. Returns the task id. Registering the same target again is
    harmless; another target under a taken id is an error.
    """
    if kwargs is not None:
        return _register_variant(task, id, kwargs)
    target: Any = task
    if isinstance(task, str):
        if id is None:
            raise ValueError("register('module:Class') needs id=... (the class is imported on first use)")
        task_id: str = id
    else:
        declared = getattr(getattr(task, "spec", None), "id", None)
        if id is None and declared is None:
            raise ValueError(f"register({task.__name__}): the class has no spec; give id=... (and a spec, which check_task requires)")
        if id is not None and declared is not None and id != declared:
            raise ValueError(f"register: id {id!r} differs from the spec's id {declared!r}")
        task_id = str(id or declared)
    known = TASKS.get(task_id)
    if known is not None and known != target and load_class(known) is not load_class(target):
        raise ValueError(f"task id {task_id!r} is already registered ({known})")
    TASKS[task_id] = target
    if corpus is not None:
        name, fmt = corpus
        CORPUS_FORMATS[name] = fmt
    return task_id


def _register_variant(task: "type[Task] | str", task_id: str | None, kwargs: dict[str, Any]) -> str:
    if not task_id:
        raise ValueError("a variant needs its own id: register(Task, id='mytask-hard-v0', kwargs={...})")
    name, _, version = task_id.rpartition("-v")
    if not name or not version.isdigit():
        raise ValueError(f"a task id carries a version, like `mytask-hard-v0`; got {task_id!r}")
    cls = load_class(task)
    known_options = task_options(cls)
    unknown = [key for key in kwargs if key not in known_options]
    if unknown:
        raise did_you_mean(unknown[0], known_options, f"option of {getattr(cls, '__name__', cls)}")
    known = TASKS.get(task_id)
    if known is not None and (load_class(known) is not cls or VARIANTS.get(task_id) != kwargs):
        raise ValueError(f"task id {task_id!r} is already registered ({known})")
    TASKS[task_id] = task  # type: ignore[assignment]  # a class, as `register` keeps it
    VARIANTS[task_id] = dict(kwargs)
    return task_id


class LoadError(ValueError):
    """A registered name whose code cannot be loaded (an import error in a plug-in, a class that is
    not there, a task without a spec): the message names the entry and what went wrong."""


def _registered(registry: dict[str, Any], name: str, what: str) -> Any:
    load_plugins()
    try:
        target = registry[name]
    except KeyError:
        raise did_you_mean(name, list(registry), what) from None
    try:
        return load_class(target)
    except (Exception, SystemExit) as error:  # noqa: BLE001  the plug-in's own code failed to load (an import that raises anything, or exits)
        raise LoadError(f"{what} {name} ({target}) cannot be loaded: {type(error).__name__}: {error}") from None


def corpus_format(name: str) -> "CorpusFormat":
    """The format registered under `name`, e.g. `corpus_format("casino")`."""
    return _registered(CORPUS_FORMATS, name, "corpus")()


def corpus_dialogues(corpus: str, path: "Path") -> "list[Dialogue]":
    """The valid dialogues of a registered corpus's native file or folder (invalid records are left out)."""
    from duologue.data.io import read_corpus

    return read_corpus(corpus_format(corpus), path, skip_invalid=True).dialogues


@functools.lru_cache(maxsize=None)
def task_options(cls: type) -> list[str]:
    """The keyword options a task class accepts (`max_turns`, `time_limit`, its own); read once
    per class (the platform makes an engine at every pairing)."""
    names: list[str] = []
    for klass in cls.__mro__:
        init = klass.__dict__.get("__init__")
        if init is None:
            continue
        for parameter in inspect.signature(init).parameters.values():
            if parameter.kind is inspect.Parameter.KEYWORD_ONLY and parameter.name not in names:
                names.append(parameter.name)
    return names


def make(task_id: str, **options: Any) -> "Task":
    """A new task by its registered id, e.g. `make("mytask-v0", max_turns=30)`.

    An option the task does not take is an `UnknownNameError` naming the ones it does; a task that
    does not load, or whose spec is missing or names another id, a `LoadError` (generic code reads
    the spec of every task it runs, so it is checked before the first episode, not after the last).
    """
    cls = _registered(TASKS, task_id, "task")
    _checked_spec(task_id, cls)
    known = task_options(cls)
    for name in options:
        if name not in known:
            raise did_you_mean(name, known, f"option of {task_id}")
    if task_id not in VARIANTS:
        return cls(**options)
    made = cls(**{**VARIANTS[task_id], **options})
    made.__dict__.update(spec=_checked_spec(task_id, cls), id=task_id)  # the variant's own id on its spec and its dialogues
    return made


def task_ids() -> list[str]:
    load_plugins()
    return list(TASKS)


def task_class(task_id: str) -> "type[Task]":
    """The `Task` class registered under `task_id` (no instance made)."""
    return _registered(TASKS, task_id, "task")


def spec(task_id: str) -> "TaskSpec":
    """The spec of a registered task, e.g. `spec("mytask-v0").title`. Raises `LoadError` for a task
    that cannot be loaded or carries no `TaskSpec`."""
    return _checked_spec(task_id, task_class(task_id))


def _checked_spec(task_id: str, cls: type) -> "TaskSpec":
    """`cls`'s spec, or `LoadError` when it has none or its id is not `task_id`."""
    from duologue.core.spec import TaskSpec

    found = getattr(cls, "spec", None)
    if not isinstance(found, TaskSpec):
        raise LoadError(f"task {task_id} ({TASKS.get(task_id)}) cannot be loaded: it has no `spec` (a duologue.core.spec.TaskSpec)")
    if task_id in VARIANTS:
        return _variant_spec(found, task_id)
    if found.id != task_id:
        raise LoadError(f"task {task_id} ({TASKS.get(task_id)}) cannot be loaded: its spec's id is {found.id!r}")
    return found


def _variant_spec(base: "TaskSpec", task_id: str) -> "TaskSpec":
    options = ", ".join(f"{k}={v!r}" for k, v in VARIANTS[task_id].items())
    return base.model_copy(update={"id": task_id, "title": f"{base.title} ({options})" if options else base.title})


def loadable_task_ids() -> list[str]:
    """The registered tasks that load; each one that does not is logged once and left out, so one
    broken plug-in never takes the built-in tasks down with it."""
    ids = []
    for task_id in task_ids():
        try:
            spec(task_id)
        except LoadError as error:
            if task_id not in _REPORTED:
                _REPORTED.add(task_id)
                log.warning("%s; it is left out", error)
            continue
        ids.append(task_id)
    return ids


_REPORTED: set[str] = set()


def specs() -> "list[TaskSpec]":
    """The specs of every registered task that loads, built in and plug-in (see `loadable_task_ids`)."""
    return [spec(task_id) for task_id in loadable_task_ids()]


def spec_of_family(family: str) -> "TaskSpec | None":
    """The spec of the first registered task of a family (what a stored `Dialogue.task` names)."""
    for found in specs():
        if found.family == family:
            return found
    return None


def corpus_names() -> list[str]:
    load_plugins()
    return list(CORPUS_FORMATS)


def annotator(name: str) -> "Annotator":
    """The annotator registered under `name`, e.g. `annotator("acts")`."""
    return _registered(ANNOTATORS, name, "annotator")()


def _import_every_task() -> None:
    """Import every registered task (so their own move and event kinds are registered)."""
    load_plugins()
    for task_id, target in list(TASKS.items()):
        try:
            load_class(target)
        except (Exception, SystemExit) as error:  # noqa: BLE001 - one broken plug-in must not stop reading dialogues
            log.warning("task %s (%s) could not be imported: %s", task_id, target, error)


def _install_event_hook() -> None:
    from duologue.core import schema

    schema.ON_UNKNOWN_KIND.append(_import_every_task)


_install_event_hook()

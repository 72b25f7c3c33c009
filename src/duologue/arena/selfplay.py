"""Self-play at scale: many seeded episodes, in parallel, written as they finish.

Each episode's seed is derived from the run seed and the episode number, so a run is reproducible
whatever the number of workers or the backend (`local` processes or a Ray cluster, see
`duologue.arena.backends`), and an interrupted run resumes by skipping the episodes already in its
output file.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

import orjson
from pydantic import Field

from duologue import tasks
from duologue.agents import make_agent
from duologue.arena.backends import run_episodes
from duologue.core.episode import play_episode
from duologue.core.schema import Dialogue, Model
from duologue.data.io import dump_dialogue
from duologue.data.outputs import special_file_problem
from duologue.tasks import make


class PlayConfig(Model):
    """One self-play run: which task, which agents (in the task's party order), how many episodes."""

    task: str
    agents: list[str] = Field(min_length=2, max_length=2)
    episodes: int = Field(1, ge=1)
    seed: int = 0
    options: dict[str, Any] = Field(default_factory=dict)
    """Task options, e.g. `{"max_turns": 30}`."""


def episode_seed(run_seed: int, number: int) -> int:
    """The seed of episode `number` of a run: stable, and unrelated across neighbouring run seeds."""
    digest = hashlib.sha256(f"duologue:{run_seed}:{number}".encode()).digest()
    return int.from_bytes(digest[:4], "big")


def play_one(config: PlayConfig, number: int) -> Dialogue:
    """Play episode `number` of a run in this process."""
    task = make(config.task, **config.options)
    agents = {party: make_agent(spec, task) for party, spec in zip(task.party_ids, config.agents, strict=True)}
    dialogue = play_episode(task, agents, seed=episode_seed(config.seed, number))
    dialogue.meta.update({"run_seed": config.seed, "episode": number, "agents": dict(zip(task.party_ids, config.agents, strict=True))})
    return dialogue


def _play_line(config: PlayConfig, number: int) -> bytes:
    return dump_dialogue(play_one(config, number))


@dataclass(frozen=True)
class EpisodeJob:
    """What a worker process or Ray node needs to play any episode of a run, as one picklable call.

    It carries the driver's task registry, so a task registered at run time (a plugin, a test's
    toy task) exists on workers that did not inherit this process's memory (Ray, spawn).
    """

    config: PlayConfig
    task_registry: dict[str, str] = field(default_factory=dict)

    def __call__(self, number: int) -> bytes:
        for task_id, target in self.task_registry.items():
            tasks.TASKS.setdefault(task_id, target)
        return _play_line(self.config, number)


class NotSelfPlayFile(ValueError):
    """An output file that holds something other than self-play episodes: nothing is appended to it."""


def finished_episodes(out: Path, config: PlayConfig) -> set[int]:
    """Episode numbers of this run already in `out` (same task, agents and run seed). Raises
    `NotSelfPlayFile` naming the line when `out` holds something `duologue play` did not write."""
    done: set[int] = set()
    if not out.exists():
        return done
    if (special := special_file_problem(out)) is not None:  # /dev/full would be read forever
        raise NotSelfPlayFile(special)
    with out.open("rb") as handle:
        for number, line in enumerate(handle, start=1):
            try:
                record = orjson.loads(line)
            except orjson.JSONDecodeError:
                if line.endswith(b"\n"):
                    raise NotSelfPlayFile(f"{out}:{number}: not JSON, so not a self-play episode; write the episodes to another file") from None
                continue  # the last line, cut short by an interruption: that episode is played again
            meta = record.get("meta") if isinstance(record, dict) else None
            if not isinstance(meta, dict) or not isinstance(meta.get("episode"), int):
                raise NotSelfPlayFile(f"{out}:{number}: not a self-play episode (no meta.episode); write the episodes to another file")
            if meta.get("task_id") == config.task and meta.get("run_seed") == config.seed and isinstance(meta.get("agents"), dict) and list(meta["agents"].values()) == config.agents:
                done.add(meta["episode"])
    return done


def run_selfplay(
    config: PlayConfig,
    *,
    workers: int = 1,
    out: Path | None = None,
    on_episode: Callable[[Dialogue | None], None] | None = None,
    backend: str = "local",
    address: str | None = None,
) -> Iterator[bytes]:
    """Play the run's episodes and yield each as a JSON line as soon as it finishes.

    With `out`, lines are appended and flushed one by one (an interrupted run keeps what it
    finished) and episodes already there are skipped. `backend` is `local` (this process, or a
    pool of `workers` processes) or `ray` (a local Ray instance with `workers` CPUs, or the cluster
    at `address`); the episodes are the same either way. A failing episode raises its own
    exception, whose episode number `duologue.arena.backends.failed_episode` reads back; a setup
    problem (Ray missing, cluster unreachable) raises `BackendError`.
    """
    todo = list(range(config.episodes))
    if out is not None:
        done = finished_episodes(out, config)
        todo = [n for n in todo if n not in done]
        out.parent.mkdir(parents=True, exist_ok=True)
        drop_partial_last_line(out)
    lines = run_episodes(EpisodeJob(config, dict(tasks.TASKS)), todo, backend=backend, workers=workers, address=address)
    handle = out.open("ab") if out is not None else None
    try:
        for line in lines:
            if handle is not None:
                handle.write(line + b"\n")
                handle.flush()
            if on_episode:
                on_episode(None)
            yield line
    finally:
        lines.close()  # an interrupted run stops its workers now, not when garbage-collected
        if handle is not None:
            handle.close()


def drop_partial_last_line(out: Path) -> None:
    """Cut a last line left unfinished by a killed run, so appended episodes start on a fresh line;
    a last line that is a whole record whose newline was never written keeps it and gets one.

    Reads backwards from the end a block at a time: the file may hold 100k episodes.
    """
    if not out.exists():
        return
    with out.open("r+b") as handle:
        end = handle.seek(0, 2)
        if end == 0:
            return
        handle.seek(end - 1)
        if handle.read(1) == b"\n":
            return
        last_starts, position = 0, end
        while position > 0:
            start = max(0, position - 65536)
            handle.seek(start)
            cut = handle.read(position - start).rfind(b"\n")
            if cut >= 0:
                last_starts = start + cut + 1
                break
            position = start
        handle.seek(last_starts)
        try:
            whole = isinstance(orjson.loads(handle.read(end - last_starts)), dict)
        except orjson.JSONDecodeError:
            whole = False
        if whole:
            handle.seek(end)
            handle.write(b"\n")
        else:
            handle.truncate(last_starts)


def run_lines(out: Path, config: PlayConfig, *, before: int | None = None) -> Iterator[bytes]:
    """The lines of `out` from `config`'s run (same task and run seed, any agents), one at a time.

    `before`: only the lines that start before this byte offset (what a file held before a run
    appended to it). Lines cut short or unreadable are skipped.
    """
    with out.open("rb") as handle:
        while before is None or handle.tell() < before:
            line = handle.readline()
            if not line:
                break
            try:
                meta = orjson.loads(line).get("meta", {})
            except orjson.JSONDecodeError:
                continue
            if meta.get("task_id") == config.task and meta.get("run_seed") == config.seed:
                yield line.rstrip(b"\n")

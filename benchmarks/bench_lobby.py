"""What one lobby join costs as a study's stored dialogues grow: is the lobby's work per join flat,
or does it grow with the study (so a whole study's lobby work grows with its size squared)?

Run: `.venv/bin/python benchmarks/bench_lobby.py [--sizes 1000,10000,100000] [--pairs 50]
[--task casino-v0] [--pool 100] [--repeats 3] [--db PATH] [--json OUT] [--interleave]`

One real SQLite database (write-ahead log on, as the platform opens it) is filled with dialogues of
one study (two human seats each, spread over a pool of `--pool` scenarios, half of them finished),
growing from size to size: the first of each batch through `Storage.create_dialogue` and
`finish_dialogue`, the rest as copies of the rows those wrote, in the storage's own tables and
session, a thousand per transaction (one call per dialogue would take half an hour for 100k here).
Those copies bypass `Storage`, so the quota counters are then counted again from the dialogues
(`Storage.rebuild_counters`, timed: the one-off cost a database pays when it first meets the counters).
At each size `--pairs` pairs of new participants join the study's lobby through `Matchmaker.join`
(the path a websocket lobby takes, quota counts, per-scenario counts, the dialogue's start and its
storage included); each pair's two joins are timed together, and the quota reads
(`Storage.count_by`, `Storage.count_pairs`, from the counters) are timed alone, beside the GROUP BY
over the study's dialogues that they replace. `--repeats` rounds of that per size, the median round
reported with the spread over rounds (two untimed pairs join a copy of the study first, so the first size
does not alone pay for the first SQL statements compiled). The table ends with the ratio of the largest size to the
smallest, printed again below it: flat is about 1x.

Measured size after size, a busy machine (other processes on shared cores) can make one size look
slower than another by chance. `--interleave` fills one database per size instead and takes the
rounds in turn across them (round 1 at each size, then round 2, ...), so such moments fall on every
size alike.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from pydantic import BaseModel
from sqlalchemy import insert, text
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from duologue.tasks import make
from duologue.web.hub import LiveHub
from duologue.web.matchmaker import Matchmaker
from duologue.web.settings import Settings
from duologue.web.storage import DialogueRow, SeatRow, Storage
from duologue.web.study import Partner, Scenarios, Study

STUDY = "lobby-bench"
PAIRING = "human-human"
WARM_UP = "lobby-bench-warm-up"
BATCH = 1000


class SizeResult(BaseModel):
    """One size's figures (milliseconds; medians over rounds, with the spread min-max)."""

    stored: int
    join_ms: float
    join_ms_min: float
    join_ms_max: float
    join_p95_ms: float
    join_cpu_ms: float
    """CPU time of the process per join (steadier than wall time on a shared machine)."""
    quota_queries_ms: float
    """Reading the study's quota counts from the counters (`count_by` pairing and `count_pairs`)."""
    group_by_ms: float
    """The same counts by a GROUP BY over the study's dialogues (how quotas were counted before the counters)."""
    fill_seconds: float
    rebuild_seconds: float
    """Counting the study's quota counters again from its dialogues after the fill."""


def make_study(task: str, pool: int) -> Study:
    """A people-only study with a quota per partner type and a scenario pool (so both quota counts run)."""
    return Study(
        id=STUDY,
        task=task,
        partners=[Partner(kind="human")],
        quotas={PAIRING: 10**9},
        scenarios=Scenarios(pool=pool, seed=0),
        per_scenario=10**9,
        max_dialogues_per_participant=1,
        ratings_per_dialogue=0,
    )


def fill(storage: Storage, study: Study, start: int, stop: int, progress: Progress | None) -> float:
    """Store dialogues number `start`..`stop-1` of the study; seconds taken."""
    engine = make(study.task)
    engine.reset(seed=0)
    template = engine.to_dialogue(with_outcome=False)
    parties = [p.id for p in engine.parties]
    pool = study.scenarios.pool or 1
    bar = progress.add_task(f"fill to {stop:,}", total=stop - start) if progress else None
    began = time.perf_counter()
    for batch in range(start, stop, BATCH):
        first = template.model_copy(update={"id": f"{STUDY}-{batch:07d}"})
        seats = [{"party": party, "kind": "human", "participant_id": f"stored-{batch}-{n}", "agent": None} for n, party in enumerate(parties)]
        storage.create_dialogue(first, study_id=STUDY, task_id=study.task, pairing=PAIRING, scenario_key=f"seed:{batch % pool}", seats=seats)
        storage.finish_dialogue(first, "agreement")
        with storage._session.begin() as session:  # the rows `create_dialogue` wrote, copied
            row = session.get(DialogueRow, first.id)
            assert row is not None
            numbers = range(batch + 1, min(stop, batch + BATCH))
            if numbers:
                dialogues = [
                    {
                        "id": f"{STUDY}-{index:07d}", "study_id": STUDY, "task_id": study.task, "pairing": PAIRING, "scenario_key": f"seed:{index % pool}",
                        "status": "finished" if index % 2 == 0 else "live", "end_reason": "agreement" if index % 2 == 0 else None,
                        "created_at": row.created_at, "finished_at": row.finished_at if index % 2 == 0 else None, "data": row.data,
                    }
                    for index in numbers
                ]
                session.execute(insert(DialogueRow), dialogues)
                seats_rows = [
                    {"dialogue_id": f"{STUDY}-{index:07d}", "party": party, "kind": "human", "participant_id": f"stored-{index}-{n}", "agent": None, "token": uuid.uuid4().hex, "questionnaire_done": False}
                    for index in numbers
                    for n, party in enumerate(parties)
                ]
                session.execute(insert(SeatRow), seats_rows)
        if progress is not None and bar is not None:
            progress.advance(bar, min(stop, batch + BATCH) - batch)
    if progress is not None and bar is not None:
        progress.remove_task(bar)
    return time.perf_counter() - began


async def join_round(matchmaker: Matchmaker, study: Study, pairs: int) -> tuple[list[float], float]:
    """Wall seconds per join (a pair's two joins timed together, halved), for `pairs` fresh pairs,
    and the CPU seconds per join over the round."""
    per_join = []
    cpu = time.process_time()
    for _ in range(pairs):
        first, second = f"new-{uuid.uuid4().hex[:10]}", f"new-{uuid.uuid4().hex[:10]}"
        began = time.perf_counter()
        await asyncio.gather(matchmaker.join(study, first), matchmaker.join(study, second))
        per_join.append((time.perf_counter() - began) / 2)
    return per_join, (time.process_time() - cpu) / (2 * pairs)


GROUP_BY = [
    "SELECT pairing, COUNT(*) FROM dialogues WHERE study_id = :study AND id NOT IN (SELECT dialogue_id FROM set_aside) GROUP BY pairing",
    "SELECT scenario_key, pairing, COUNT(*) FROM dialogues WHERE study_id = :study AND id NOT IN (SELECT dialogue_id FROM set_aside) GROUP BY scenario_key, pairing",
]


def quota_round(storage: Storage, repeats: int = 20) -> float:
    """Seconds for one of each quota count of the study, the median of `repeats`."""
    times = []
    for _ in range(repeats):
        began = time.perf_counter()
        storage.count_by(STUDY, "pairing")
        storage.count_pairs(STUDY)
        times.append(time.perf_counter() - began)
    return statistics.median(times)


def group_by_round(storage: Storage, repeats: int = 5) -> float:
    """Seconds for the same two counts by GROUP BY over the dialogues, the median of `repeats`."""
    times = []
    with storage.engine.connect() as connection:
        for _ in range(repeats):
            began = time.perf_counter()
            for query in GROUP_BY:
                connection.execute(text(query), {"study": STUDY}).all()
            times.append(time.perf_counter() - began)
    return statistics.median(times)


Round = tuple[list[float], float]
"""One round's wall seconds per join, and its CPU seconds per join."""


class Lobby:
    """One database's lobby: its storage, hub and matchmaker, warmed up by two untimed pairs joining
    a copy of the study (the first joins of a process build caches the first size alone would pay for)."""

    def __init__(self, storage: Storage, study: Study) -> None:
        self.storage, self.study = storage, study
        self.warm = study.model_copy(update={"id": WARM_UP})  # its dialogues are not the measured study's
        self.hub = LiveHub(storage, Settings(), {study.id: study, self.warm.id: self.warm})
        self.matchmaker = Matchmaker({study.id: study, self.warm.id: self.warm}, storage, self.hub)

    async def round(self, pairs: int) -> Round:
        return await join_round(self.matchmaker, self.study, pairs)

    async def close(self) -> None:
        await self.matchmaker.close()
        await self.hub.close()


async def measure(lobbies: list[Lobby], pairs: int, repeats: int) -> list[list[Round]]:
    """`repeats` rounds in each lobby; with several lobbies, round by round across them, so a
    machine busier at one moment slows every size alike."""
    for lobby in lobbies:
        await join_round(lobby.matchmaker, lobby.warm, 2)
    rounds: list[list[Round]] = [[] for _ in lobbies]
    try:
        for _ in range(repeats):
            for lobby, done in zip(lobbies, rounds, strict=True):
                done.append(await lobby.round(pairs))
    finally:
        for lobby in lobbies:
            await lobby.close()
    return rounds


def result(size: int, rounds: list[Round], storage: Storage, fill_seconds: float, rebuild_seconds: float, quota_seconds: float | None = None) -> SizeResult:
    medians = [statistics.median(r) for r, _ in rounds]
    every = sorted(t for r, _ in rounds for t in r)
    return SizeResult(
        stored=size,
        join_ms=round(1000 * statistics.median(medians), 3),
        join_ms_min=round(1000 * min(medians), 3),
        join_ms_max=round(1000 * max(medians), 3),
        join_p95_ms=round(1000 * every[max(0, int(0.95 * len(every)) - 1)], 3),
        join_cpu_ms=round(1000 * statistics.median(c for _, c in rounds), 3),
        quota_queries_ms=round(1000 * (quota_round(storage) if quota_seconds is None else quota_seconds), 3),
        group_by_ms=round(1000 * group_by_round(storage), 3),
        fill_seconds=round(fill_seconds, 1),
        rebuild_seconds=round(rebuild_seconds, 3),
    )


def rebuilt(storage: Storage) -> float:
    """Count the study's quota counters again (the copied rows went around them); seconds taken."""
    began = time.perf_counter()
    storage.rebuild_counters(STUDY)
    return time.perf_counter() - began


def _progress(console: Console | None) -> Progress:
    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=console, disable=console is None, transient=True)


def run(sizes: list[int], pairs: int, repeats: int, task: str, pool: int, db: Path, console: Console | None, interleave: bool = False) -> list[SizeResult]:
    """One database grown from size to size, measured at each (or, with `interleave`, one database per size, measured round by round across them)."""
    if interleave:
        return run_interleaved(sizes, pairs, repeats, task, pool, db, console)
    study = make_study(task, pool)
    storage = Storage(f"sqlite:///{db}")
    results: list[SizeResult] = []
    stored = 0
    try:
        with _progress(console) as progress:
            for size in sizes:
                already = len(storage.dialogues(study_id=STUDY))  # earlier rounds' joins stored dialogues too
                seconds = fill(storage, study, stored, stored + max(0, size - already), progress)
                stored += max(0, size - already)
                rebuild = rebuilt(storage)
                rounds = asyncio.run(measure([Lobby(storage, study)], pairs, repeats))[0]
                results.append(result(size, rounds, storage, seconds, rebuild))
    finally:
        storage.close()
    return results


def run_interleaved(sizes: list[int], pairs: int, repeats: int, task: str, pool: int, db: Path, console: Console | None) -> list[SizeResult]:
    study = make_study(task, pool)
    storages = [Storage(f"sqlite:///{db.with_name(f'{db.stem}-{size}{db.suffix}')}") for size in sizes]
    try:
        with _progress(console) as progress:
            filled = [(fill(storage, study, 0, size, progress), rebuilt(storage)) for storage, size in zip(storages, sizes, strict=True)]

        async def measured() -> list[list[Round]]:
            return await measure([Lobby(storage, study) for storage in storages], pairs, repeats)

        rounds = asyncio.run(measured())
        quota: list[list[float]] = [[] for _ in storages]
        for _ in range(10):  # the quota reads in turn too
            for storage, times in zip(storages, quota, strict=True):
                times.append(quota_round(storage, 3))
        return [
            result(size, r, storage, seconds, rebuild, statistics.median(q))
            for size, r, storage, (seconds, rebuild), q in zip(sizes, rounds, storages, filled, quota, strict=True)
        ]
    finally:
        for storage in storages:
            storage.close()


def table(results: list[SizeResult], pairs: int, repeats: int, task: str, interleaved: bool = False) -> Table:
    how = "one database per size, rounds in turn" if interleaved else "one database grown"
    shown = Table(title=f"one lobby join against the study's stored dialogues ({task}, SQLite, {how}, {pairs} pairs x {repeats} rounds per size)")
    first = results[0]
    columns = ("stored dialogues", "join ms (median)", "spread over rounds", "join p95 ms", "join CPU ms", "quota counts ms", "GROUP BY ms", "rebuild s")
    for column in (*columns, f"join x {first.stored:,}", f"CPU x {first.stored:,}", f"counts x {first.stored:,}"):
        shown.add_column(column, justify="right")

    def ratio(value: float, base: float) -> str:
        return f"{value / base:.1f}x" if base > 0 else "-"

    for r in results:
        shown.add_row(
            f"{r.stored:,}",
            f"{r.join_ms:.2f}",
            f"{r.join_ms_min:.2f}-{r.join_ms_max:.2f}",
            f"{r.join_p95_ms:.2f}",
            f"{r.join_cpu_ms:.2f}",
            f"{r.quota_queries_ms:.2f}",
            f"{r.group_by_ms:.2f}",
            f"{r.rebuild_seconds:.2f}",
            ratio(r.join_ms, first.join_ms),
            ratio(r.join_cpu_ms, first.join_cpu_ms),
            ratio(r.quota_queries_ms, first.quota_queries_ms),
        )
    return shown


def ratio_line(results: list[SizeResult]) -> str:
    """The largest size against the smallest: join wall time, join CPU time, quota reads."""
    small, large = results[0], results[-1]

    def times(a: float, b: float) -> str:
        return f"{b / a:.2f}x" if a > 0 else "-"

    return (
        f"{large.stored:,} stored vs {small.stored:,}: join {times(small.join_ms, large.join_ms)} "
        f"({small.join_ms:.2f} -> {large.join_ms:.2f} ms), join CPU {times(small.join_cpu_ms, large.join_cpu_ms)}, "
        f"quota counts {times(small.quota_queries_ms, large.quota_queries_ms)} (the GROUP BY they replace: {times(small.group_by_ms, large.group_by_ms)})"
    )


def sizes_argument(text: str) -> list[int]:
    try:
        sizes = sorted({int(part) for part in text.split(",") if part.strip()})
    except ValueError:
        raise argparse.ArgumentTypeError(f"--sizes wants whole numbers separated by commas, not {text!r}") from None
    if not sizes or sizes[0] < 0:
        raise argparse.ArgumentTypeError("--sizes must be zero or more")
    return sizes


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=sizes_argument, default=[1000, 10000, 100000], help="stored dialogues of the study at each measurement")
    parser.add_argument("--pairs", type=int, default=50, help="pairs of new participants joining per round")
    parser.add_argument("--repeats", type=int, default=3, help="rounds per size")
    parser.add_argument("--task", default="casino-v0")
    parser.add_argument("--pool", type=int, default=100, help="scenarios in the study's pool")
    parser.add_argument("--db", type=Path, default=None, help="SQLite file to fill (default: a temporary one, removed)")
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--interleave", action="store_true", help="one database per size, the rounds taken in turn across sizes (steadier ratios on a busy machine)")
    args = parser.parse_args(argv)
    if args.pairs < 1 or args.repeats < 1 or args.pool < 1:
        parser.error("--pairs, --repeats and --pool must be at least 1")
    console = Console() if sys.stdout.isatty() else Console(width=200)
    with tempfile.TemporaryDirectory(prefix="duologue-lobby-") as folder:
        db = args.db or Path(folder) / "lobby.db"
        if db.exists():
            parser.error(f"{db} exists; the benchmark fills a new database")
        if args.interleave and any(db.with_name(f"{db.stem}-{size}{db.suffix}").exists() for size in args.sizes):
            parser.error(f"a database beside {db} exists; the benchmark fills new ones")
        results = run(args.sizes, args.pairs, args.repeats, args.task, args.pool, db, console, args.interleave)
    console.print(table(results, args.pairs, args.repeats, args.task, args.interleave))
    console.print(ratio_line(results))
    payload = {"options": {k: v for k, v in vars(args).items() if k not in ("db", "json")}, "results": [r.model_dump() for r in results]}
    if args.json is not None:
        args.json.write_text(json.dumps(payload, indent=2))
    return payload


if __name__ == "__main__":
    main()

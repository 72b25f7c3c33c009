"""What one lobby join costs as a study's stored dialogues grow: is the lobby's work per join flat,
or does it grow with the study (so a whole study's lobby work grows with its size squared)?

Run: `.venv/bin/python benchmarks/bench_lobby.py [--sizes 1000,10000,100000] [--pairs 50]
[--task casino-v0] [--pool 100] [--repeats 3] [--db PATH] [--json OUT]`

One real SQLite database (write-ahead log on, as the platform opens it) is filled with dialogues of
one study (two human seats each, spread over a pool of `--pool` scenarios, half of them finished),
growing from size to size: the first of each batch through `Storage.create_dialogue` and
`finish_dialogue`, the rest as copies of the rows those wrote, in the storage's own tables and
session, a thousand per transaction (one call per dialogue would take half an hour for 100k here). At each size
`--pairs` pairs of new participants join the study's lobby through `Matchmaker.join` (the path a
websocket lobby takes, quota counts, per-scenario counts, the dialogue's start and its storage
included); each pair's two joins are timed together, and the quota queries (`Storage.count_by`,
`Storage.count_pairs`) are timed alone. `--repeats` rounds of that per size, the median round
reported with the spread over rounds. The table ends with the ratio of the largest size to the
smallest: flat is about 1x.
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
from sqlalchemy import insert
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
    fill_seconds: float


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


def quota_round(storage: Storage, repeats: int = 20) -> float:
    """Seconds for one of each quota count of the study, the median of `repeats`."""
    times = []
    for _ in range(repeats):
        began = time.perf_counter()
        storage.count_by(STUDY, "pairing")
        storage.count_pairs(STUDY)
        times.append(time.perf_counter() - began)
    return statistics.median(times)


async def measure(storage: Storage, study: Study, pairs: int, repeats: int) -> tuple[list[tuple[list[float], float]], float]:
    hub = LiveHub(storage, Settings(), {study.id: study})
    matchmaker = Matchmaker({study.id: study}, storage, hub)
    rounds = [await join_round(matchmaker, study, pairs) for _ in range(repeats)]
    quota = quota_round(storage)
    await matchmaker.close()
    await hub.close()
    return rounds, quota


def run(sizes: list[int], pairs: int, repeats: int, task: str, pool: int, db: Path, console: Console | None) -> list[SizeResult]:
    study = make_study(task, pool)
    storage = Storage(f"sqlite:///{db}")
    results: list[SizeResult] = []
    stored = 0
    progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=console, disable=console is None, transient=True)
    try:
        with progress:
            for size in sizes:
                already = len(storage.dialogues(study_id=STUDY))  # earlier rounds' joins stored dialogues too
                seconds = fill(storage, study, stored, stored + max(0, size - already), progress)
                stored += max(0, size - already)
                rounds, quota = asyncio.run(measure(storage, study, pairs, repeats))
                medians = [statistics.median(r) for r, _ in rounds]
                every = sorted(t for r, _ in rounds for t in r)
                results.append(
                    SizeResult(
                        stored=size,
                        join_ms=round(1000 * statistics.median(medians), 3),
                        join_ms_min=round(1000 * min(medians), 3),
                        join_ms_max=round(1000 * max(medians), 3),
                        join_p95_ms=round(1000 * every[max(0, int(0.95 * len(every)) - 1)], 3),
                        join_cpu_ms=round(1000 * statistics.median(c for _, c in rounds), 3),
                        quota_queries_ms=round(1000 * quota, 3),
                        fill_seconds=round(seconds, 1),
                    )
                )
    finally:
        storage.close()
    return results


def table(results: list[SizeResult], pairs: int, repeats: int, task: str) -> Table:
    shown = Table(title=f"one lobby join against the study's stored dialogues ({task}, SQLite, {pairs} pairs x {repeats} rounds per size)")
    first = results[0]
    for column in ("stored dialogues", "join ms (median)", "spread over rounds", "join p95 ms", "join CPU ms", "quota counts ms", f"join x {first.stored:,}", f"CPU x {first.stored:,}", f"counts x {first.stored:,}"):
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
            ratio(r.join_ms, first.join_ms),
            ratio(r.join_cpu_ms, first.join_cpu_ms),
            ratio(r.quota_queries_ms, first.quota_queries_ms),
        )
    return shown


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
    args = parser.parse_args(argv)
    if args.pairs < 1 or args.repeats < 1 or args.pool < 1:
        parser.error("--pairs, --repeats and --pool must be at least 1")
    console = Console() if sys.stdout.isatty() else Console(width=200)
    with tempfile.TemporaryDirectory(prefix="duologue-lobby-") as folder:
        db = args.db or Path(folder) / "lobby.db"
        if db.exists():
            parser.error(f"{db} exists; the benchmark fills a new database")
        results = run(args.sizes, args.pairs, args.repeats, args.task, args.pool, db, console)
    console.print(table(results, args.pairs, args.repeats, args.task))
    payload = {"options": {k: v for k, v in vars(args).items() if k not in ("db", "json")}, "results": [r.model_dump() for r in results]}
    if args.json is not None:
        args.json.write_text(json.dumps(payload, indent=2))
    return payload


if __name__ == "__main__":
    main()

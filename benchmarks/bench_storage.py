"""How the live platform should store moves: measured, five ways, on the same SQLite file.

Run: `.venv/bin/python benchmarks/bench_storage.py [--concurrent 100,500,1000] [--moves 10] [--think 1] [--runs 3]`

Each live dialogue stores every move (its events and the move id) before anyone is told of it.
Here `--concurrent` dialogues each make `--moves` moves, `--think` seconds apart as people pause,
all in one event loop as the server's would (offered load: concurrent / think moves a second), while a heartbeat task measures how late the loop answers (what every
other frame and move waits). Five ways to store:

* `ORM session, on the loop`: how the platform first stored a move, one SQLAlchemy ORM
  session and transaction per move, called directly: the loop waits for every commit;
* `Core insert, on the loop`: one transaction of SQLAlchemy Core inserts per move through its
  `Connection` (no ORM unit of work), as the platform stored a move next;
* `driver insert, on the loop`: what `Storage.add_events` does now, the same inserts compiled once
  and run on the driver's own connection (`web/plain_sql.py`), still on the loop;
* `asyncio driver`: SQLAlchemy's asyncio API over aiosqlite, one transaction per move;
* `storage thread`: one thread that stores whatever has queued up, from any number of dialogues,
  in one transaction (`Storage.add_event_batch`), each move awaiting its commit.

Columns: moves stored per second, a move's wait for its commit (p50/p95), the loop's lateness
(p95 of a 1 ms heartbeat's delay), the process's CPU per 1,000 moves, and moves refused (the
database was locked too long). Each cell is the median
of `--runs` runs, with the range.
"""

from __future__ import annotations

import argparse
import asyncio
import queue
import random
import threading
from concurrent.futures import Future
import statistics
import tempfile
import time
from pathlib import Path
from typing import Awaitable, Callable

from rich.console import Console
from rich.table import Table
from sqlalchemy.orm import sessionmaker

from duologue.core.schema import Message
from duologue.web.storage import EventBatchItem, EventRow, MoveRow, Storage, _sqlite_write_ahead

console = Console(width=150)
Store = Callable[[str, int, list[Message], str], Awaitable[None]]


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else 0.0


async def heartbeat(lateness: list[float], stop: asyncio.Event) -> None:
    while not stop.is_set():
        asked = time.perf_counter()
        await asyncio.sleep(0.001)
        lateness.append((time.perf_counter() - asked - 0.001) * 1000)


async def drive(store: Store, concurrent: int, moves: int, think: float) -> dict[str, float]:
    waits: list[float] = []
    lateness: list[float] = []
    errors: list[int] = []
    stop = asyncio.Event()

    async def dialogue(number: int) -> None:
        rng = random.Random(number)
        await asyncio.sleep(think * rng.random())  # arrivals spread over the first think time
        for seq in range(moves):
            began = time.perf_counter()
            try:
                await store(f"d{number}", seq, [Message(party="a", text=f"move {seq} of dialogue {number}")], f"m{seq}")
            except Exception:  # noqa: BLE001  counted: a refused move is what a person would see
                errors.append(seq)
                continue
            waits.append((time.perf_counter() - began) * 1000)
            await asyncio.sleep(think * rng.uniform(0.5, 1.5))

    beat = asyncio.ensure_future(heartbeat(lateness, stop))
    cpu, wall = time.process_time(), time.perf_counter()
    await asyncio.gather(*(dialogue(n) for n in range(concurrent)))
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    stop.set()
    await beat
    total = concurrent * moves
    return {"rate": total / wall, "p50": percentile(waits, 0.5), "p95": percentile(waits, 0.95), "late": percentile(lateness, 0.95), "cpu": cpu / total * 1_000_000, "errors": float(len(errors))}


async def on_the_loop(path: Path, concurrent: int, moves: int, think: float) -> dict[str, float]:
    storage = Storage(f"sqlite:///{path}")

    async def store(dialogue: str, seq: int, events: list[Message], move: str) -> None:
        storage.add_events(dialogue, seq, list(events), move)

    try:
        return await drive(store, concurrent, moves, think)
    finally:
        storage.close()


async def asyncio_driver(path: Path, concurrent: int, moves: int, think: float) -> dict[str, float]:
    from sqlalchemy import event, insert
    from sqlalchemy.ext.asyncio import create_async_engine

    Storage(f"sqlite:///{path}").close()  # the tables
    engine = create_async_engine(f"sqlite+aiosqlite:///{path}")
    event.listen(engine.sync_engine, "connect", _sqlite_write_ahead)  # as the platform's own engine

    async def store(dialogue: str, seq: int, events: list[Message], move: str) -> None:
        async with engine.begin() as connection:
            await connection.execute(insert(EventRow), [{"dialogue_id": dialogue, "seq": seq + i, "data": e.model_dump_json()} for i, e in enumerate(events)])
            await connection.execute(insert(MoveRow), [{"dialogue_id": dialogue, "move_id": move, "seq": seq}])

    try:
        return await drive(store, concurrent, moves, think)
    finally:
        await engine.dispose()


class ThreadWriter:
    """A storage thread that stores whatever has queued up, from any number of dialogues, in one
    transaction (`Storage.add_event_batch`), and answers each move when its transaction commits."""

    def __init__(self, storage: Storage) -> None:
        self.storage = storage
        self.jobs: queue.SimpleQueue[tuple[EventBatchItem, Future] | None] = queue.SimpleQueue()
        self.thread = threading.Thread(target=self.work, daemon=True)
        self.thread.start()

    async def events(self, dialogue: str, seq: int, events: list[Message], move: str) -> None:
        done: Future = Future()
        self.jobs.put((EventBatchItem(dialogue, seq, [e.model_dump_json() for e in events], move), done))
        await asyncio.wrap_future(done)

    def work(self) -> None:
        while (job := self.jobs.get()) is not None:
            batch = [job]
            while True:
                try:
                    following = self.jobs.get_nowait()
                except queue.Empty:
                    break
                if following is None:
                    self.jobs.put(None)
                    break
                batch.append(following)
            for (_, done), problem in zip(batch, self.storage.add_event_batch([item for item, _ in batch]), strict=True):
                done.set_exception(problem) if problem is not None else done.set_result(None)

    def close(self) -> None:
        self.jobs.put(None)
        self.thread.join()


async def storage_thread(path: Path, concurrent: int, moves: int, think: float) -> dict[str, float]:
    storage = Storage(f"sqlite:///{path}")
    writer = ThreadWriter(storage)
    try:
        return await drive(writer.events, concurrent, moves, think)
    finally:
        writer.close()
        storage.close()


async def orm_session(path: Path, concurrent: int, moves: int, think: float) -> dict[str, float]:
    storage = Storage(f"sqlite:///{path}")
    sessions = sessionmaker(storage.engine, expire_on_commit=False)

    async def store(dialogue: str, seq: int, events: list[Message], move: str) -> None:
        with sessions.begin() as session:  # how the platform stored a move before: an ORM session per move
            session.add_all(EventRow(dialogue_id=dialogue, seq=seq + i, data=e.model_dump_json()) for i, e in enumerate(events))
            session.add(MoveRow(dialogue_id=dialogue, move_id=move, seq=seq))

    try:
        return await drive(store, concurrent, moves, think)
    finally:
        storage.close()


async def core_insert(path: Path, concurrent: int, moves: int, think: float) -> dict[str, float]:
    from sqlalchemy import insert

    storage = Storage(f"sqlite:///{path}")
    events_insert, moves_insert = insert(EventRow), insert(MoveRow)

    async def store(dialogue: str, seq: int, events: list[Message], move: str) -> None:
        with storage.engine.begin() as connection:  # how the platform stored a move before plain_sql
            connection.execute(events_insert, [{"dialogue_id": dialogue, "seq": seq + i, "data": e.model_dump_json()} for i, e in enumerate(events)])
            connection.execute(moves_insert, [{"dialogue_id": dialogue, "move_id": move, "seq": seq}])

    try:
        return await drive(store, concurrent, moves, think)
    finally:
        storage.close()


WAYS = {"ORM session, on the loop": orm_session, "Core insert, on the loop": core_insert, "driver insert, on the loop": on_the_loop, "asyncio driver": asyncio_driver, "storage thread": storage_thread}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--concurrent", default="100,500,1000", help="comma-separated numbers of dialogues storing at once")
    parser.add_argument("--moves", type=int, default=10, help="moves per dialogue")
    parser.add_argument("--think", type=float, default=1.0, help="seconds between a dialogue's moves (jittered +-50%%), as people pause")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    levels = [int(n) for n in args.concurrent.split(",")]
    table = Table(title=f"storing moves on SQLite: {args.moves} moves per dialogue, think {args.think} s, median of {args.runs} runs [range]")
    for column in ("way", "concurrent", "moves/s", "wait p50 ms", "wait p95 ms", "loop late p95 ms", "CPU ms / 1k moves", "refused"):
        table.add_column(column, justify="left" if column == "way" else "right")
    for level in levels:
        for name, way in WAYS.items():
            runs = []
            for run in range(args.runs):
                with tempfile.TemporaryDirectory() as folder:
                    runs.append(asyncio.run(way(Path(folder) / f"run{run}.db", level, args.moves, args.think)))

            def cell(key: str, digits: int = 1, runs: list[dict[str, float]] = runs) -> str:
                values = [r[key] for r in runs]
                return f"{statistics.median(values):,.{digits}f} [{min(values):,.{digits}f}-{max(values):,.{digits}f}]"

            table.add_row(name, str(level), cell("rate", 0), cell("p50", 2), cell("p95", 2), cell("late", 2), cell("cpu", 0), cell("errors", 0))
            console.log(f"{name} @ {level}: done")
    console.print(table)


if __name__ == "__main__":
    main()

"""What one storage call costs on PostgreSQL: the platform's hottest calls, as SQLAlchemy runs them in a transaction and as `web/plain_sql.py` runs them.

Run: `.venv/bin/python benchmarks/bench_postgres_calls.py [--calls 2000] [--runs 3]`

A throwaway PostgreSQL cluster (Debian's server binaries, fsync off, on loopback) and one `Storage`
on it. Each call is made `--calls` times in a row from one thread, as a storage thread makes them,
both ways in the same run:

* `a move's write`: its event and its move id. Before: BEGIN, an insert per table and COMMIT through
  SQLAlchemy's `Connection` (four round trips). Now: `Storage.add_events`, one combined statement in
  autocommit (one round trip).
* `a dialogue's bookkeeping`, `a seat by token`, `a move id seen?`: reads. Before: SQLAlchemy's
  `Connection` in a transaction (BEGIN, the query, ROLLBACK). Now: `Storage.info`,
  `Storage.seat_by_token`, `Storage.move_seen`, one round trip on the driver's connection.

Columns: wall time per call, the client's CPU per call (this process: what a worker spends), the
database server's CPU per call (postmaster and backends), each the median of `--runs` runs with the
range, and the ratio before / now of the medians. Skips cleanly when PostgreSQL or psycopg is absent.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Callable

from rich.console import Console
from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parent))
from load.servers import Postgres, ServerUnavailable, postgres_server  # noqa: E402

from sqlalchemy import insert  # noqa: E402

from duologue.core.schema import Dialogue, Message, Party  # noqa: E402
from duologue.web.storage import _INFO_OF, _MOVE_SEEN, _SEAT_OF_TOKEN, EventRow, MoveRow, Storage  # noqa: E402

MEASURES = ("wall", "client", "server")


def measure(call: Callable[[int], Any], calls: int, postgres: Postgres, offset: int) -> dict[str, float]:
    """Microseconds per call: wall, this process's CPU, the database server's CPU."""
    server, cpu, wall = postgres.cpu_seconds(), time.process_time(), time.perf_counter()
    for n in range(calls):
        call(offset + n)
    return {
        "wall": (time.perf_counter() - wall) / calls * 1e6,
        "client": (time.process_time() - cpu) / calls * 1e6,
        "server": (postgres.cpu_seconds() - server) / calls * 1e6,
    }


def ways(storage: Storage, token: str) -> dict[str, tuple[Callable[[int], Any], Callable[[int], Any]]]:
    """Each call: (before, now), each taking a number that keeps its event numbers and move ids fresh."""
    event = Message(party="a", text="a move of a typical length, about as long as people write").model_dump_json()
    events, moves = insert(EventRow), insert(MoveRow)

    def write_before(n: int) -> None:
        with storage.engine.begin() as connection:
            connection.execute(events, [{"dialogue_id": "bench", "seq": 2 * n, "data": event}])
            connection.execute(moves, [{"dialogue_id": "bench", "move_id": f"b{n}", "seq": 2 * n}])

    def write_now(n: int) -> None:
        storage.add_events("bench", 2 * n + 1, [Message.model_validate_json(event)], f"n{n}")

    def read_before(statement: Any, parameters: dict[str, Any]) -> Callable[[int], Any]:
        def read(_: int) -> Any:
            with storage.engine.connect() as connection:
                return connection.execute(statement, parameters).first()

        return read

    return {
        "a move's write": (write_before, write_now),
        "a dialogue's bookkeeping": (read_before(_INFO_OF, {"id": "bench"}), lambda _: storage.info("bench")),
        "a seat by token": (read_before(_SEAT_OF_TOKEN, {"token": token}), lambda _: storage.seat_by_token(token)),
        "a move id seen?": (read_before(_MOVE_SEEN, {"dialogue_id": "bench", "move_id": "n0"}), lambda _: storage.move_seen("bench", "n0")),
    }


def run(calls: int, runs: int) -> list[dict[str, Any]]:
    """One row per call: the medians and ranges of each way, over `runs` runs in one cluster."""
    rows = []
    with postgres_server() as postgres:
        storage = Storage(postgres.url)
        try:
            dialogue = Dialogue(id="bench", task="toy", parties=[Party(id="a", kind="human"), Party(id="b", kind="human")])
            seats = storage.create_dialogue(dialogue, study_id="s", task_id="toy-v0", pairing="human", scenario_key="k", seats=[
                {"party": party, "kind": "human", "participant_id": f"p-{party}", "agent": None} for party in ("a", "b")
            ])
            for name, (before, now) in ways(storage, seats[0].token).items():
                results: dict[str, list[dict[str, float]]] = {"before": [], "now": []}
                for number in range(runs):
                    for way, call in (("before", before), ("now", now)):  # interleaved: drift hits both alike
                        results[way].append(measure(call, calls, postgres, offset=number * calls))
                rows.append({"call": name, **{way: {m: [r[m] for r in results[way]] for m in MEASURES} for way in results}})
        finally:
            storage.close()
    return rows


def table(rows: list[dict[str, Any]], calls: int, runs: int) -> Table:
    shown = Table(title=f"one storage call on PostgreSQL, us per call: {calls} calls x {runs} runs, median [range]")
    for column in ("call", "way", "wall", "client CPU", "server CPU"):
        shown.add_column(column, justify="left" if column in ("call", "way") else "right")
    for row in rows:
        for way in ("before", "now"):
            cells = [f"{statistics.median(row[way][m]):,.0f} [{min(row[way][m]):,.0f}-{max(row[way][m]):,.0f}]" for m in MEASURES]
            shown.add_row(row["call"] if way == "before" else "", "SQLAlchemy, in a transaction" if way == "before" else "plain, one round trip", *cells)
        ratios = [statistics.median(row["before"][m]) / max(statistics.median(row["now"][m]), 1e-9) for m in MEASURES]
        shown.add_row("", "before / now", *(f"{r:.2f}x" for r in ratios), end_section=True)
    return shown


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=2000, help="calls of each kind per run")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    console = Console(width=150)
    try:
        rows = run(args.calls, args.runs)
    except (ServerUnavailable, ImportError) as missing:
        console.print(f"[yellow]skipped: {missing}[/]")
        return 0
    console.print(table(rows, args.calls, args.runs))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

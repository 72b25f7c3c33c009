"""How fast duologue loads and validates the real corpora, next to plain `json.load` of the same files.

Run: `.venv/bin/python benchmarks/bench_corpus_io.py [--data DIR] [--repeat N]`

For each corpus it times (best of N runs, files already in the page cache):
* `json.load`: the standard library parsing every file, nothing else;
* `duologue read`: parsing, checking every record against its corpus's rules, and building typed
  `Dialogue`s (what `duologue data validate` and every command that reads a corpus do);
* `round trip`: reading then writing every record back in the native format.
The ratio column is duologue read / json.load, measured in the same run. Target: within 3x.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from duologue.data.io import list_files, read_corpus
from duologue.tasks import corpus_format

CORPORA = {"duo": "duo", "casino": "casino/split", "craigslist": "craigslist/validation.json"}


def best_of(repeat: int, work) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return min(times)


def plain_json(files: list[Path]) -> None:
    for file in files:
        with file.open(encoding="utf-8") as handle:
            json.load(handle)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path(os.environ.get("DUOLOGUE_DATA", Path(__file__).resolve().parents[2] / "shared" / "data")))
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    console = Console()
    if not args.data.exists():
        console.print(f"[yellow]no corpora at {args.data}; set --data or DUOLOGUE_DATA[/]")
        return
    table = Table(title=f"loading and validating the real corpora (best of {args.repeat})")
    for column in ("corpus", "files", "records", "json.load s", "duologue read s", "ratio", "round trip s", "records/s"):
        table.add_column(column, justify="right" if column != "corpus" else "left")
    for name, relative in CORPORA.items():
        path = args.data / relative
        if not path.exists():
            continue
        files = list_files(path)
        fmt = corpus_format(name)
        result = read_corpus(fmt, path)
        baseline = best_of(args.repeat, lambda: plain_json(files))
        ours = best_of(args.repeat, lambda: read_corpus(fmt, path))
        round_trip = best_of(args.repeat, lambda: fmt.write_records(read_corpus(fmt, path).dialogues))
        table.add_row(
            name,
            str(len(files)),
            str(result.records),
            f"{baseline:.3f}",
            f"{ours:.3f}",
            f"{ours / baseline:.2f}x",
            f"{round_trip:.3f}",
            f"{result.records / ours:,.0f}",
        )
    console.print(table)


if __name__ == "__main__":
    main()

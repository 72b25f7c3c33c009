"""How fast duologue loads and validates the real corpora, next to plain `json.load` of the same files.

Run: `.venv/bin/python benchmarks/bench_corpus_io.py [--data DIR] [--repeat N]`

For each corpus it times (best of N runs, files already in the page cache):
* `json.load`: the standard library parsing every file, nothing else;
* `validate`: parsing and checking every record against its corpus's rules, ids included (what
  `duologue data validate` does: `validate_corpus`). Target: within 3x of `json.load`;
* `read`: the same, then building the typed `Dialogue`s (what every command that works on the
  dialogues does: `read_corpus`);
* `round trip`: reading then writing every record back in the native format.
Ratios are against `json.load` measured in the same run.

MutualFriends has no real copy, so its row reads the project's own fixture records repeated
(`--scale` times, each copy with its own id) in both native shapes.
"""

from __future__ import annotations

import argparse
import copy
import gc
import json
import os
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from duologue.data.io import list_files, read_corpus, validate_corpus
from duologue.tasks import corpus_format

CORPORA = {"duo": "duo", "casino": "casino/split", "craigslist": "craigslist/validation.json"}
MUTUALFRIENDS_FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "mutualfriends"


def best_of(repeat: int, work) -> float:
    """Best time of `repeat` runs, each from the same garbage-collector state.

    A run keeps what `work` returns (as a caller does) and includes the young-generation
    collections it leaves pending: reading pauses the collector, and that deferred work counts.
    """
    times = []
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        result = work()
        gc.collect(1)
        times.append(time.perf_counter() - start)
        del result
    return min(times)


def plain_json(files: list[Path]) -> None:
    for file in files:
        with file.open(encoding="utf-8") as handle:
            json.load(handle)


def scaled_mutualfriends(folder: Path, scale: int) -> Path | None:
    """The valid MutualFriends fixture records, each repeated `scale` times with distinct ids, in `folder`."""
    fmt = corpus_format("mutualfriends")
    written = False
    for name in ("cocoa_train.json", "hf_validation.json"):
        source = MUTUALFRIENDS_FIXTURES / name
        if not source.exists():
            continue
        records = [r for r in json.loads(source.read_text(encoding="utf-8")) if not fmt.check(r)]
        copies = []
        for round_ in range(scale):
            for record in records:
                twin = copy.deepcopy(record)
                twin["uuid"] = f"{record['uuid']}-{round_}"
                copies.append(twin)
        (folder / name).write_text(json.dumps(copies), encoding="utf-8")
        written = True
    return folder if written else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path(os.environ.get("DUOLOGUE_DATA", Path(__file__).resolve().parents[2] / "shared" / "data")))
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--scale", type=int, default=100, help="copies of each MutualFriends fixture record (0: leave MutualFriends out)")
    args = parser.parse_args()
    console = Console(width=max(Console().width, 150))
    if not args.data.exists():
        console.print(f"[yellow]no corpora at {args.data}; set --data or DUOLOGUE_DATA (only the MutualFriends fixtures are timed)[/]")
    title = f"loading and validating the real corpora (best of {args.repeat}"
    table = Table(title=title + (f"; mutualfriends: fixture records ×{args.scale})" if args.scale > 0 else ")"))
    for column in ("corpus", "files", "records", "json.load s", "validate s", "ratio", "read s", "ratio ", "round trip s", "records/s read"):
        table.add_column(column, justify="right" if column != "corpus" else "left")
    with tempfile.TemporaryDirectory() as scratch:
        corpora = {name: args.data / relative for name, relative in CORPORA.items()}
        if args.scale > 0:
            corpora["mutualfriends"] = scaled_mutualfriends(Path(scratch), args.scale) or Path(scratch) / "absent"
        for name, path in corpora.items():
            if path.exists():
                table.add_row(*measure(name, path, args.repeat))
    console.print(table)


def measure(name: str, path: Path, repeat: int) -> list[str]:
    """One row of the table: corpus format `name` read from `path`."""
    files = list_files(path)
    fmt = corpus_format(name)
    result = read_corpus(fmt, path)
    baseline = best_of(repeat, lambda: plain_json(files))
    checked = best_of(repeat, lambda: validate_corpus(fmt, path))
    ours = best_of(repeat, lambda: read_corpus(fmt, path))
    round_trip = best_of(repeat, lambda: fmt.write_records(read_corpus(fmt, path).dialogues))
    return [
        name,
        str(len(files)),
        str(result.records),
        f"{baseline:.3f}",
        f"{checked:.3f}",
        f"{checked / baseline:.2f}x",
        f"{ours:.3f}",
        f"{ours / baseline:.2f}x",
        f"{round_trip:.3f}",
        f"{result.records / ours:,.0f}",
    ]


if __name__ == "__main__":
    main()

"""The PostgreSQL call benchmark's code path, tiny: both ways of each call run on a real cluster."""

import importlib.util
import shutil
import sys
from pathlib import Path

import pytest
from rich.console import Console

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_postgres_calls.py"
spec = importlib.util.spec_from_file_location("bench_postgres_calls", SCRIPT)
bench = importlib.util.module_from_spec(spec)
sys.modules[spec.name] = bench
spec.loader.exec_module(bench)


def test_each_call_is_timed_both_ways_and_compared():
    pytest.importorskip("psycopg")
    if not (list(Path("/usr/lib/postgresql").glob("*/bin/initdb")) or shutil.which("initdb")):
        pytest.skip("PostgreSQL server binaries not installed")
    rows = bench.run(calls=30, runs=2)
    assert [row["call"] for row in rows] == ["a move's write", "a dialogue's bookkeeping", "a seat by token", "a move id seen?"]
    for row in rows:
        for way in ("before", "now"):
            assert len(row[way]["wall"]) == 2 and all(value > 0 for value in row[way]["wall"] + row[way]["client"])
    console = Console(width=200, record=True)
    console.print(bench.table(rows, 30, 2))
    text = console.export_text()
    assert text.count("before / now") == 4 and "plain, one round trip" in text

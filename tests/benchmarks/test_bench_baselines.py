"""The baselines benchmark plays every task that declares values and prints its tables."""

import importlib.util
import json
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_baselines.py"
spec = importlib.util.spec_from_file_location("bench_baselines", SCRIPT)
bench = importlib.util.module_from_spec(spec)
sys.modules[spec.name] = bench
spec.loader.exec_module(bench)


def test_it_finds_the_tasks_with_values_and_rates_every_baseline(tmp_path: Path, capsys):
    assert {"casino-v0", "dealornodeal-v0", "craigslist-v0"} <= set(bench.valued_tasks())
    out = tmp_path / "b.json"
    results = bench.main(["--episodes", "1", "--tasks", "dealornodeal-v0", "--bootstrap", "10", "--json", str(out)])
    printed = capsys.readouterr().out
    assert "dealornodeal-v0 tournament" in printed and "distance to frontier" in printed and "surplus" in printed
    pooled = next(b for b in results[0].leaderboards if b.role is None)
    assert {row.name for row in pooled.rows} == set(bench.AGENTS)
    assert len(json.loads(out.read_text())[0]["pairings"]) == len(bench.AGENTS) ** 2

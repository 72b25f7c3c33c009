"""The replay benchmark's code path, tiny: two agents on the project's CaSiNo fixture."""

import importlib.util
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_replay.py"
spec = importlib.util.spec_from_file_location("bench_replay", SCRIPT)
bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench)


def test_a_tiny_run_reports_each_agent(monkeypatch, capsys, fixtures):
    path = fixtures / "casino" / "casino_sample.json"
    monkeypatch.setattr(sys, "argv", ["bench_replay.py", "--path", str(path), "--agents", "rule,random", "--limit", "2"])
    assert bench.main() == 0
    out = capsys.readouterr().out
    assert "rule" in out and "random" in out and "casino-v0" in out
    assert out.count("PASS") + out.count("FAIL") == 2
    assert "the people themselves on these 2 dialogues" in out


def test_a_corpus_without_targets_is_reported_without_a_verdict(monkeypatch, capsys, fixtures):
    path = fixtures / "dealornodeal" / "dealornodeal_sample.txt"
    monkeypatch.setattr(sys, "argv", ["bench_replay.py", "--corpus", "dealornodeal", "--path", str(path), "--agents", "rule"])
    assert bench.main() == 0
    out = capsys.readouterr().out
    assert "dealornodeal-v0" in out and "PASS" not in out and "FAIL" not in out


def test_a_task_without_a_pareto_share_still_prints_the_peoples_line(monkeypatch, capsys, fixtures):
    # MutualFriends declares no values (CraigslistBargain now does: every price on its line is Pareto-efficient)
    path = fixtures / "mutualfriends" / "cocoa_train.json"
    monkeypatch.setattr(sys, "argv", ["bench_replay.py", "--corpus", "mutualfriends", "--path", str(path), "--agents", "rule", "--limit", "2"])
    assert bench.main() == 0
    assert "Pareto share of their deals -" in capsys.readouterr().out

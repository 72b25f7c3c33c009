"""The model benchmark's script: it exits cleanly without the corpora and names the commands for one's own endpoint."""

import importlib.util
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_llm_bench.py"
spec = importlib.util.spec_from_file_location("bench_llm_bench", SCRIPT)
bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench)


def test_without_the_corpora_it_says_so_and_exits_cleanly(monkeypatch, capsys, tmp_path):
    monkeypatch.setenv("DUOLOGUE_DATA", str(tmp_path / "absent"))
    monkeypatch.setattr(sys, "argv", ["bench_llm_bench.py"])
    assert bench.main() == 0
    assert "skipped: no corpora at" in capsys.readouterr().out


def test_the_endpoint_commands_it_prints_are_real_commands():
    from typer.main import get_command

    from duologue.cli import app

    root = get_command(app)
    text = bench.ENDPOINT_COMMAND.format(tasks="casino-v0")
    for line in [part for part in text.replace("\\\n", " ").splitlines() if "duologue " in part]:
        words = line.split("duologue ", 1)[1].split()
        command = root.get_command(None, words[0])
        assert command is not None, line
        options = {o for p in command.params for o in p.opts}
        assert {w for w in words if w.startswith("--")} <= options, line

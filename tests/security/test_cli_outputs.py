"""An output that is no regular file is refused before any work, by every command that writes one.

The repro: `play --out` given a link to /dev/full read it forever (a rerun resumes, so the file is
read first: 19 GB, then killed); a FIFO blocks the reader until someone opens its other end. Each
command is run as a real process with a time and memory limit, so the code before the fix fails
these tests instead of hanging the machine.
"""

from __future__ import annotations

import os
import resource
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

import duologue
from duologue.data.outputs import output_problem

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
SOURCE = str(Path(duologue.__file__).resolve().parents[1])  # the duologue these tests import, for the processes too
MEMORY = 1 << 30  # a runaway read is stopped at 1 GB, far below what it would take


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY * 2, MEMORY * 2))


def _run(*args: str) -> tuple[subprocess.CompletedProcess, float]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([SOURCE, os.environ.get("PYTHONPATH", "")])}
    started = time.monotonic()
    try:
        done = subprocess.run([sys.executable, "-m", "duologue.cli", *args], capture_output=True, text=True, timeout=60, env=env, preexec_fn=_limit_memory)
    except subprocess.TimeoutExpired:
        pytest.fail(f"duologue {' '.join(args)} was still running after 60 s")
    return done, time.monotonic() - started


@pytest.fixture(params=["device", "fifo"])
def special(request, tmp_path):
    """A maker of special output paths: a link to /dev/full, or a FIFO nobody writes to."""

    def make(name: str) -> Path:
        path = tmp_path / name
        if request.param == "device":
            if not Path("/dev/full").exists():
                pytest.skip("no /dev/full here")
            path.symlink_to("/dev/full")
        else:
            os.mkfifo(path)
        return path

    make.kind = request.param  # type: ignore[attr-defined]
    return make


def _refused(result: subprocess.CompletedProcess, took: float, path: Path, kind: str) -> None:
    words = "character device" if kind == "device" else "FIFO"
    flat = " ".join(result.stderr.split())
    assert result.returncode in (1, 2), (result.returncode, result.stderr[-2000:])  # a clean refusal, not a crash or a kill
    assert str(path.name) in flat and words in flat and "not a regular file" in flat, flat
    assert "Traceback" not in result.stderr
    assert took < 45


def test_play_refuses_an_output_that_is_a_device_or_a_fifo(special):
    out = special("episodes.jsonl")
    result, took = _run("play", "-t", "casino-v0", "-a", "random", "-n", "1", "--out", str(out))
    _refused(result, took, out, special.kind)


def test_schema_and_convert_refuse_it_too(special, tmp_path):
    out = special("schema.json")
    _refused(*_run("schema", "--out", str(out)), out, special.kind)
    out = special("corpus.jsonl")
    _refused(*_run("data", "convert", "casino", str(FIXTURES / "casino" / "casino_sample.json"), "--out", str(out)), out, special.kind)
    native = special("native.json")
    _refused(*_run("data", "convert", "own", str(FIXTURES / "casino" / "casino_sample.json"), "--out", str(native), "--to", "casino"), native, special.kind)


def test_a_tournament_refuses_a_special_folder_or_pairing_file(special, tmp_path):
    folder = special("games")
    _refused(*_run("tournament", "-t", "casino-v0", "-a", "random", "-a", "rule", "-n", "1", "--out", str(folder)), folder, special.kind)
    real = tmp_path / "real"
    real.mkdir()
    pairing = real / "casino-v0__random__vs__rule.jsonl"
    if special.kind == "device":
        pairing.symlink_to("/dev/full")
    else:
        os.mkfifo(pairing)
    _refused(*_run("tournament", "-t", "casino-v0", "-a", "random", "-a", "rule", "-n", "1", "--out", str(real)), pairing, special.kind)


def test_output_problem_names_each_kind(tmp_path):
    fifo = tmp_path / "pipe.csv"
    os.mkfifo(fifo)
    assert "FIFO" in (output_problem(fifo, suffixes=(".csv",)) or "")
    if Path("/dev/full").exists():
        link = tmp_path / "full.jsonl"
        link.symlink_to("/dev/full")
        assert "character device (through a link)" in (output_problem(link) or "")
    listening = tmp_path / "s.jsonl"
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(listening))
        assert "socket" in (output_problem(listening) or "")
    assert output_problem(tmp_path / "fine.jsonl") is None
    regular = tmp_path / "kept.jsonl"
    regular.write_text("")
    assert output_problem(regular) is None

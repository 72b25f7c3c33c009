"""Peak memory of `duologue play` as the number of episodes grows: it must stay flat.

Run: `.venv/bin/python benchmarks/bench_play_memory.py [--episodes 2000,20000,100000] [--workers 2]
[--task casino-v0] [--agents rule,rule] [--out] [--max-turns N] [--report-only]`

Each row runs the real command in a fresh process (`duologue.cli:main`, as the `duologue` script
does) and reports two peaks:

* `driver` and `largest worker`: each process's own peak (`VmHWM` in `/proc`, read every 0.1 s;
  the driver collects and reports the episodes, the workers play them);
* `largest process, kernel`: the biggest process's peak from the kernel's accounting of the
  finished run (`wait4`'s `ru_maxrss`), the figure `/usr/bin/time -v` prints;
* `all processes`: the sum over the driver and its workers at the same moment, sampled every
  0.1 s (Linux; a short peak between samples can be missed).

With `--out` each run also writes its episodes to a fresh .jsonl (the report then reads back any
episodes already there, here none). `--report-only` measures the report alone on N episodes: the
.jsonl is filled with N finished episodes first (200 played, repeated under new numbers), so the
command resumes it, plays nothing and reads all N back for its report. A report that kept every dialogue grew by ~80 MiB per 1,000
CaSiNo episodes; a streaming one stays flat.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

MIB = 2**20


def _tree(pid: int) -> list[int]:
    """The process and its descendants (from /proc/<pid>/task/*/children)."""
    found, queue = [], [pid]
    while queue:
        current = queue.pop()
        found.append(current)
        try:
            for task in os.listdir(f"/proc/{current}/task"):
                with open(f"/proc/{current}/task/{task}/children") as handle:
                    queue.extend(int(child) for child in handle.read().split())
        except OSError:
            continue
    return found


def _status(pid: int) -> dict[str, int]:
    """VmRSS (now) and VmHWM (peak so far) of a process, in bytes (empty once it is gone)."""
    found = {}
    try:
        with open(f"/proc/{pid}/status") as handle:
            for line in handle:
                key, _, value = line.partition(":")
                if key in ("VmRSS", "VmHWM"):
                    found[key] = int(value.split()[0]) * 1024
    except (OSError, ValueError, IndexError):
        return {}
    return found


class Peaks:
    """Peak resident memory of a run: the driver's, its largest worker's, and all processes at once."""

    def __init__(self) -> None:
        self.driver = self.worker = self.total = 0


def measure(command: list[str]) -> tuple[float, Peaks, float, int]:
    """(seconds, sampled peaks in bytes, kernel's peak of the largest process in MiB, exit code)."""
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    peaks = Peaks()
    done = threading.Event()

    def sample() -> None:
        while not done.is_set():
            total = 0
            for pid in _tree(process.pid):
                status = _status(pid)
                total += status.get("VmRSS", 0)
                if pid == process.pid:
                    peaks.driver = max(peaks.driver, status.get("VmHWM", 0))
                else:
                    peaks.worker = max(peaks.worker, status.get("VmHWM", 0))
            peaks.total = max(peaks.total, total)
            done.wait(0.1)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    _, status, usage = os.wait4(process.pid, 0)
    done.set()
    sampler.join()
    return time.perf_counter() - start, peaks, usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status)


def fill(out: Path, args: argparse.Namespace, episodes: int) -> None:
    """An --out file holding `episodes` finished episodes of the run, so `duologue play` resumes it,
    plays nothing and only reports: 200 episodes really played, repeated under new episode numbers."""
    import orjson

    from duologue.arena.selfplay import PlayConfig, run_selfplay

    agents = [part.strip() for part in args.agents.split(",")]
    options = {} if args.max_turns is None else {"max_turns": args.max_turns}
    played = [orjson.loads(line) for line in run_selfplay(PlayConfig(task=args.task, agents=agents, episodes=min(200, episodes), options=options), workers=args.workers)]
    with out.open("wb") as handle:
        for number in range(episodes):
            record = played[number % len(played)]
            record["meta"]["episode"] = number
            handle.write(orjson.dumps(record) + b"\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", default="2000,20000", help="Comma-separated episode counts, one run each.")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--task", default="casino-v0")
    parser.add_argument("--agents", default="rule,rule")
    parser.add_argument("--out", action="store_true", help="Also write each run's episodes to a fresh .jsonl.")
    parser.add_argument("--max-turns", type=int, default=None, help="Passed to duologue play: shorter episodes make a 100k run affordable.")
    parser.add_argument("--report-only", action="store_true", help="Measure only the report over N finished episodes: fill an --out file first, then resume it.")
    args = parser.parse_args()
    counts = [int(part) for part in args.episodes.split(",") if part.strip()]
    console = Console()
    options = (" --out" if args.out else "") + (f" --max-turns {args.max_turns}" if args.max_turns is not None else "")
    table = Table(title=f"duologue play --task {args.task} --agents {args.agents} --workers {args.workers}{options}", title_justify="left")
    for column in ("episodes", "seconds", "episodes/s", "driver (MiB)", "largest worker (MiB)", "largest process, kernel (MiB)", "all processes (MiB)", "exit"):
        table.add_column(column, justify="right")
    with tempfile.TemporaryDirectory() as folder:
        for episodes in counts:
            command = [sys.executable, "-c", "from duologue.cli import main; main()", "play", "--task", args.task, "--agents", args.agents, "-n", str(episodes), "--workers", str(args.workers)]
            if args.out or args.report_only:
                command += ["--out", str(Path(folder) / f"run-{episodes}.jsonl")]
            if args.report_only:
                with console.status(f"writing {episodes} finished episodes"):
                    fill(Path(folder) / f"run-{episodes}.jsonl", args, episodes)
            if args.max_turns is not None:
                command += ["--max-turns", str(args.max_turns)]
            with console.status(f"{episodes} episodes"):
                seconds, peaks, largest, code = measure(command)
            row = [f"{episodes:,}", f"{seconds:.0f}", f"{episodes / seconds:.0f}", f"{peaks.driver / MIB:.0f}", f"{peaks.worker / MIB:.0f}", f"{largest:.0f}", f"{peaks.total / MIB:.0f}", str(code)]
            table.add_row(*row)
            console.print(" | ".join(row))
    console.print(table)


if __name__ == "__main__":
    main()

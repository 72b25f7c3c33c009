"""Rule-vs-rule self-play throughput for every registered task, with 1 and 2 workers, in one table.

Run: `.venv/bin/python benchmarks/bench_selfplay_throughput.py [--episodes N]`

Each cell plays N fresh episodes through `duologue.arena.selfplay.run_selfplay` (the code behind
`duologue play`), process start-up included for 2 workers, and reports episodes per second. The
ratio column is 2 workers / 1 worker on this machine (2 cores). The task metrics of the same
episodes are in each task's own `bench_<task>_selfplay.py`.
"""

from __future__ import annotations

import argparse
import time

from rich.console import Console
from rich.table import Table

from duologue.arena.selfplay import PlayConfig, run_selfplay
from duologue.tasks import TASKS


def rate(config: PlayConfig, workers: int) -> float:
    start = time.perf_counter()
    played = sum(1 for _ in run_selfplay(config, workers=workers))
    return played / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=400)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    table = Table(title=f"rule vs rule self-play, {args.episodes} episodes per cell")
    for column in ("task", "1 worker (ep/s)", "2 workers (ep/s)", "2 / 1"):
        table.add_column(column, justify="left" if column == "task" else "right")
    for task_id in TASKS:
        config = PlayConfig(task=task_id, agents=["rule", "rule"], episodes=args.episodes, seed=args.seed)
        one, two = rate(config, 1), rate(config, 2)
        table.add_row(task_id, f"{one:,.0f}", f"{two:,.0f}", f"{two / one:.2f}x")
    Console().print(table)


if __name__ == "__main__":
    main()

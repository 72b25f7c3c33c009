"""Rule-vs-rule self-play throughput for every registered task, per backend, in one table.

Run: `.venv/bin/python benchmarks/bench_selfplay_throughput.py [--episodes N] [--backend local|ray|all]`

Each cell plays N fresh episodes through `duologue.arena.selfplay.run_selfplay` (the code behind
`duologue play`) and reports episodes per second, after a warm-up run of the same size (the first
episodes of a process fill caches and cost several times more). Every cell and every warm-up has
its own run seed: the text caches (e.g. CraigslistBargain's price parsing) would otherwise make a
cell that replays episodes the process (or the parent of its forked workers) already played look
several times faster. `local`: 1 worker (in this process) and 2
worker processes (process start-up included); the ratio is 2 / 1 on this machine (2 cores).
`ray`: a local Ray instance with 2 CPUs, started once before the timings (its start-up time is
printed apart); the ratio is Ray / local with 2 workers,
i.e. what Ray's scheduling costs on one machine. `all` measures both. The task metrics of the same episodes are in each task's own
`bench_<task>_selfplay.py`.
"""

from __future__ import annotations

import argparse
import time

from rich.console import Console
from rich.table import Table

from duologue.arena.selfplay import PlayConfig, run_selfplay
from duologue.tasks import TASKS

RAY_CPUS = 2


def rate(config: PlayConfig, workers: int, backend: str = "local") -> float:
    warm_up = config.model_copy(update={"seed": config.seed + 1_000_000})
    sum(1 for _ in run_selfplay(warm_up, workers=workers, backend=backend))
    start = time.perf_counter()
    played = sum(1 for _ in run_selfplay(config, workers=workers, backend=backend))
    return played / (time.perf_counter() - start)


def start_ray() -> float:
    """Start the local Ray instance every Ray cell shares; returns its start-up seconds."""
    import ray

    start = time.perf_counter()
    ray.init(num_cpus=RAY_CPUS, include_dashboard=False, log_to_driver=False)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=400)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--backend", choices=["local", "ray", "all"], default="local")
    args = parser.parse_args()
    local, on_ray = args.backend in ("local", "all"), args.backend in ("ray", "all")
    console = Console()
    if on_ray:
        console.print(f"Ray start-up (local instance, {RAY_CPUS} CPUs): {start_ray():.1f} s")
    table = Table(title=f"rule vs rule self-play, {args.episodes} episodes per cell")
    columns = ["task"]
    if local:
        columns += ["local 1 worker (ep/s)", "local 2 workers (ep/s)", "2 / 1"]
    if on_ray:
        columns += [f"ray {RAY_CPUS} CPUs (ep/s)"]
    if local and on_ray:
        columns += ["ray / local 2"]
    for column in columns:
        table.add_column(column, justify="left" if column == "task" else "right")
    for task_id in TASKS:
        def config(cell: int, task_id: str = task_id) -> PlayConfig:
            return PlayConfig(task=task_id, agents=["rule", "rule"], episodes=args.episodes, seed=args.seed + cell)

        row = [task_id]
        if local:
            one, two = rate(config(0), 1), rate(config(1), 2)
            row += [f"{one:,.0f}", f"{two:,.0f}", f"{two / one:.2f}x"]
        if on_ray:
            spread = rate(config(2), RAY_CPUS, "ray")
            row += [f"{spread:,.0f}"]
        if local and on_ray:
            row += [f"{spread / two:.2f}x"]
        table.add_row(*row)
    Console().print(table)


if __name__ == "__main__":
    main()

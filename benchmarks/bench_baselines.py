"""The classic baselines against the rule bots, on every task that declares values.

Run: `.venv/bin/python benchmarks/bench_baselines.py [--episodes 20] [--tasks casino-v0,...] [--workers 1]
[--seed 0] [--bootstrap 1000] [--json OUT]`

For each registered task whose `Task.values` declares each party's value of an outcome (CaSiNo,
Deal or No Deal and CraigslistBargain among the built-ins; any plug-in that declares them too), a
round-robin (`duologue.arena.tournament.run_tournament`, both seats, self-pairs included) of `rule`
and the baselines of `duologue.agents.concession`: `boulware` (e = 0.2), `linear`, `conceder`
(e = 2) and `tit-for-tat`. Each pairing's row shows the task's headline metrics and outcome quality
(Pareto share, distance to the Pareto frontier, surplus over the walk-away), each a mean with its 95%
bootstrap interval; then the leaderboards (Bradley-Terry and Elo, with intervals), whose games are
won as the task's spec compares parties (`TaskSpec.compare`).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import orjson
from rich.console import Console

from duologue.agents import declares_values
from duologue.arena.ratings import leaderboard_table
from duologue.arena.tournament import Tournament, pairing_table, run_tournament
from duologue.tasks import make, task_ids

AGENTS = ("rule", "boulware", "linear", "conceder", "tit-for-tat")


def valued_tasks() -> list[str]:
    """Every registered task that declares values."""
    return [task_id for task_id in task_ids() if declares_values(make(task_id))]


def play(task_id: str, *, episodes: int, seed: int = 0, workers: int = 1, bootstrap: int = 1000) -> Tournament:
    return run_tournament(task_id, list(AGENTS), episodes=episodes, seed=seed, workers=workers, bootstrap=bootstrap)


def show(console: Console, result: Tournament) -> None:
    console.print(pairing_table(result.task, result.pairings, caption=f"{result.episodes} episodes per ordered pairing, seed {result.seed}"))
    for board in result.leaderboards:
        if board.rows:
            console.print(leaderboard_table(board))


def main(argv: list[str] | None = None) -> list[Tournament]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=20)
    parser.add_argument("--tasks", default=None, help="comma-separated task ids (default: every task that declares values)")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--bootstrap", type=int, default=1000)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    console = Console(width=200)
    wanted = args.tasks.split(",") if args.tasks else valued_tasks()
    results = []
    for task_id in wanted:
        result = play(task_id, episodes=args.episodes, seed=args.seed, workers=args.workers, bootstrap=args.bootstrap)
        show(console, result)
        results.append(result)
    if args.json is not None:
        payload = [{"task": r.task, "pairings": [p.to_json() for p in r.pairings], "leaderboards": [b.model_dump() for b in r.leaderboards]} for r in results]
        args.json.write_bytes(orjson.dumps(payload, option=orjson.OPT_INDENT_2))
    return results


if __name__ == "__main__":
    main()

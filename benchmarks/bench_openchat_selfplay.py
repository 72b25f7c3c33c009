"""Open chat (DUO's ED and WoW settings) in self-play: rule user simulator vs rule listener bot.

Run: `.venv/bin/python benchmarks/bench_openchat_selfplay.py [--episodes N] [--seed S]`

Open chat has no quality target (the outcome is always `completed` unless a limit cuts the chat;
quality comes from people's ratings). This measures throughput: episodes per second with 1 and 2
workers through `duologue.arena.selfplay.run_selfplay`, and prints the per-episode figures
(utterances, mean utterance length in tokens for both sides, completion) with 95% bootstrap
intervals from `duologue.arena.report`, for the rule and the random bot against the rule user.
"""

from __future__ import annotations

import argparse
import time

from rich.console import Console
from rich.table import Table

from duologue.arena.report import report, report_table
from duologue.arena.selfplay import PlayConfig, run_selfplay
from duologue.core.schema import Dialogue

TASKS = ("openchat-ed-v0", "openchat-wow-v0")
PAIRINGS = (["rule", "rule"], ["rule", "random"])
"""Agents in the tasks' party order: (user, bot)."""


def timed_run(config: PlayConfig, workers: int) -> tuple[list[Dialogue], float]:
    start = time.perf_counter()
    lines = list(run_selfplay(config, workers=workers))
    seconds = time.perf_counter() - start
    return [Dialogue.model_validate_json(line) for line in lines], seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=400)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    console = Console()
    speed = Table(title=f"open chat self-play throughput ({args.episodes} episodes per run)")
    for column in ("task", "user vs bot", "workers", "seconds", "episodes/s", "utterances/s"):
        speed.add_column(column, justify="left" if column in ("task", "user vs bot") else "right")
    played: list[Dialogue] = []
    for task_id in TASKS:
        for agents in PAIRINGS:
            config = PlayConfig(task=task_id, agents=agents, episodes=args.episodes, seed=args.seed)
            for workers in (1, 2):
                dialogues, seconds = timed_run(config, workers)
                utterances = sum(len(d.messages()) for d in dialogues)
                speed.add_row(task_id, " vs ".join(agents), str(workers), f"{seconds:.2f}", f"{len(dialogues) / seconds:.1f}", f"{utterances / seconds:.0f}")
                if workers == 1:
                    played.extend(dialogues)
    console.print(speed)
    for group in report(played):
        console.print(report_table(group))


if __name__ == "__main__":
    main()

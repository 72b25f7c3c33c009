"""Does reinforcement learning of strategy reproduce He et al. (2018)'s pattern? SL vs RL policies vs rule.

Run: `.venv/bin/python benchmarks/bench_rl.py [--games 500] [--tasks craigslist-v0 casino-v0]
[--agents modular rl:utility rl:fairness rl:length rule] [--partners modular rule] [--seed 2026]
[--out bench_rl.jsonl]`

Each cell is one agent against one fixed partner on one task, `--games` games with the agent in
both seats (alternating), on seeds derived from `--seed` (training used run seed 0, so these
scenarios are unseen). Per game, from the agent's side: agreement, its own score (CraigslistBargain:
CoCoA's normalised utility, 0 without a deal; CaSiNo: points, the walk-away 5 without a deal), its
score per agreed game, fairness over agreed games (`duologue.learning.rewards.fairness_score`, the
definition the fairness reward trains on: 2 - |own - partner| / 2 on CraigslistBargain's zero-sum
normalised price, which is CoCoA's 2 - |utility|, and 2 - |own - partner| / (own + partner) on CaSiNo's
points, the gap as a share of what the two take home), and length (moves). Cells print means with 95% intervals (normal
approximation, mean +- 1.96 sd / sqrt(n)). Games are appended to `--out` as they finish, so an
interrupted run resumes; the table is then checked against the paper's pattern: RL-utility earns
the most per agreed game (and, reported beside it, per game) and agrees less than SL, RL-fairness is
the fairest, RL-length the longest.
"""

from __future__ import annotations

import argparse
import math
from collections import defaultdict
from pathlib import Path

import orjson
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from duologue.agents import make_agent
from duologue.arena.selfplay import episode_seed
from duologue.core.episode import play_episode
from duologue.learning.rewards import fairness_score
from duologue.tasks import make

console = Console(width=200)
FIGURES = ("agreement", "own", "own_agreed", "fairness", "length")


def play(task_id: str, agent: str, partner: str, number: int, seed: int) -> dict:
    task = make(task_id)
    seat = task.party_ids[number % 2]
    other = task.other(seat)
    agents = {seat: make_agent(agent, task), other: make_agent(partner, task)}
    dialogue = play_episode(task, agents, seed=episode_seed(seed, number))
    outcome = dialogue.outcome
    agreed = bool(outcome is not None and outcome.agreed)
    scores = outcome.scores if outcome is not None else {}
    own, theirs = float(scores.get(seat, 0.0) or 0.0), float(scores.get(other, 0.0) or 0.0)
    return {
        "task": task_id, "agent": agent, "partner": partner, "number": number, "seat": seat,
        "agreement": float(agreed), "own": own, "own_agreed": own if agreed else None, "partner_own": theirs,
        "fairness": fairness_score(own, theirs) if agreed else None,
        "length": float(sum(1 for e in dialogue.events if e.kind != "system")),
        "illegal": sum(dialogue.meta["illegal_actions"].values()),
    }


def interval(values: list[float]) -> tuple[float, float, int]:
    values = [v for v in values if v is not None]
    n = len(values)
    if n == 0:
        return math.nan, math.nan, 0
    mean = sum(values) / n
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1)) if n > 1 else 0.0
    return mean, 1.96 * sd / math.sqrt(n), n


def table(rows: list[dict]) -> dict:
    cells: dict[tuple[str, str, str], list[dict]] = defaultdict(list)
    for row in rows:
        cells[(row["task"], row["partner"], row["agent"])].append(row)
    summary = {}
    for (task_id, partner, agent), games in sorted(cells.items()):
        summary[(task_id, partner, agent)] = {f: interval([g[f] for g in games]) for f in FIGURES} | {"games": len(games), "illegal": sum(g["illegal"] for g in games)}
    for task_id in sorted({k[0] for k in summary}):
        for partner in sorted({k[1] for k in summary if k[0] == task_id}):
            out = Table(title=f"{task_id} against {partner} (mean +- 95% interval)")
            for column in ("agent", "games", *FIGURES, "illegal"):
                out.add_column(column, justify="right" if column != "agent" else "left")
            for (t, p, agent), figures in summary.items():
                if (t, p) != (task_id, partner):
                    continue
                out.add_row(agent, str(figures["games"]), *(f"{m:.3f} +- {h:.3f}" if n else "-" for m, h, n in (figures[f] for f in FIGURES)), str(figures["illegal"]))
            console.print(out)
    return summary


def pattern(summary: dict) -> None:
    """The paper's claims, checked per task and partner (a claim holds when the means are ordered so)."""
    for task_id, partner in sorted({(k[0], k[1]) for k in summary}):
        cell = {agent: figures for (t, p, agent), figures in summary.items() if (t, p) == (task_id, partner)}
        if not {"modular", "rl:utility", "rl:fairness", "rl:length"} <= set(cell):
            continue

        def mean(agent: str, figure: str, cell: dict = cell) -> float:
            return cell[agent][figure][0]

        others = [a for a in cell if a != "rl:utility"]
        checks = {
            "RL-utility earns the most per agreed game": all(mean("rl:utility", "own_agreed") >= mean(a, "own_agreed") for a in others),
            "(per game)": all(mean("rl:utility", "own") >= mean(a, "own") for a in others),
            "RL-utility agrees less than SL": mean("rl:utility", "agreement") < mean("modular", "agreement"),
            "RL-fairness is the fairest": all(mean("rl:fairness", "fairness") >= mean(a, "fairness") for a in cell),
            "RL-length talks longest": all(mean("rl:length", "length") >= mean(a, "length") for a in cell),
        }
        console.print(f"[bold]{task_id} against {partner}[/]: " + "; ".join(f"{claim}: {'yes' if ok else 'NO'}" for claim, ok in checks.items()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=500)
    parser.add_argument("--tasks", nargs="+", default=["craigslist-v0", "casino-v0"])
    parser.add_argument("--agents", nargs="+", default=["modular", "rl:utility", "rl:fairness", "rl:length", "rule"])
    parser.add_argument("--partners", nargs="+", default=["modular", "rule"])
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--out", type=Path, default=Path("bench_rl.jsonl"))
    parser.add_argument("--report-only", action="store_true", help="Only print the table of the games in --out (several files: --also).")
    parser.add_argument("--also", nargs="*", type=Path, default=[], help="More game files to include in the table.")
    parser.add_argument("--first", type=int, default=None, help="Table only games numbered below this (the same seeds in every cell).")
    args = parser.parse_args()
    rows = [orjson.loads(line) for path in [args.out, *args.also] if path.exists() for line in path.read_bytes().splitlines() if line.strip()]
    if not args.report_only:
        done = {(r["task"], r["agent"], r["partner"], r["number"]) for r in rows}
        todo = [(t, a, p, n) for t in args.tasks for p in args.partners for a in args.agents for n in range(args.games) if (t, a, p, n) not in done]
        with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=console) as progress, args.out.open("ab") as sink:
            bar = progress.add_task("games", total=len(todo))
            broken: set[tuple[str, str]] = set()
            for task_id, agent, partner, number in todo:
                if (task_id, agent) in broken:
                    progress.update(bar, advance=1)
                    continue
                try:
                    row = play(task_id, agent, partner, number, args.seed)
                except ValueError as error:  # a policy not trained yet: leave its cells empty, say so
                    console.print(f"[yellow]{task_id} {agent}: {error}; its cells are left out[/]")
                    broken.add((task_id, agent))
                    continue
                sink.write(orjson.dumps(row) + b"\n")
                sink.flush()
                rows.append(row)
                progress.update(bar, advance=1, description=f"{task_id} {agent} vs {partner}")
    if args.first is not None:
        rows = [r for r in rows if r["number"] < args.first]
    pattern(table(rows))


if __name__ == "__main__":
    main()

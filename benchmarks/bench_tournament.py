"""A tournament: every agent kind against every other, in both seats, on CraigslistBargain and CaSiNo.

Run: `.venv/bin/python benchmarks/bench_tournament.py [--episodes 200] [--llm-episodes 10] [--no-llm]
[--workers 2] [--seed 0] [--bootstrap 1000] [--json OUT]`

For `craigslist-v0` and `casino-v0`, every ordered pair of the kinds `rule`, `random`, `modular`
and `llm:local` (self-pairs included) is played by `duologue.arena.tournament.run_tournament`
(one `run_selfplay` per pairing): the first kind sits in the task's first party slot (the buyer; `mturk_agent_1`), the second in the
other. Seating matters (the buyer and seller have opposite interests, CaSiNo's first mover may
anchor), so A vs B and B vs A are separate rows. Pairs involving the local LLM (SmolLM2-135M, tens
of seconds per episode on a CPU) play `--llm-episodes` episodes on one worker (several workers
would each load the model); the others play `--episodes` on `--workers`.

Each row shows the task's headline metrics with 95% bootstrap intervals (`duologue.arena.report`):
CraigslistBargain: agreement, utility of the buyer and of the seller, fairness (all three over
deals only), and the length reward; CaSiNo: agreement, points of each side, joint points, the share
of deals that are Pareto optimal, and walk-aways. Then the episodes played and the seconds taken.
After each task's table come its leaderboards (`duologue.arena.ratings`): Bradley-Terry and Elo
ratings with 95% bootstrap intervals, pooled over both seats and per seat.

The `modular` agent learns from the real corpora (`$DUOLOGUE_DATA`, else `../shared/data` beside
the checkout) and falls back to its built-in prior and templates without them; each table's
caption says which it used.
"""

from __future__ import annotations

import argparse
from importlib import import_module
from pathlib import Path

import orjson
from rich.console import Console
from rich.table import Table

from duologue.modular.agent import resolve_corpus
from duologue.arena.ratings import leaderboard_table
from duologue.arena.tournament import PairingResult, headline_metrics, loads_a_model, pairing_table, play_pairing, run_tournament
from duologue.arena.tournament import pairings as ordered_pairings
from duologue.tasks import make

KINDS = ("rule", "random", "modular", "llm:local")
TASKS = ("craigslist-v0", "casino-v0")

PairResult = PairingResult
"""One ordered pairing's outcome (the tournament module's own result type)."""

__all__ = ["KINDS", "TASKS", "PairResult", "headline_metrics", "involves_llm", "pairings", "play_pair", "tournament_table", "main"]


def involves_llm(pair: tuple[str, str]) -> bool:
    return any(loads_a_model(spec) for spec in pair)


def pairings(kinds: tuple[str, ...] | list[str], *, llm: bool = True) -> list[tuple[str, str]]:
    """Every ordered pair of kinds (both seats, self-pairs included); without LLM pairs when `llm` is False."""
    return [pair for pair in ordered_pairings(list(kinds)) if llm or not involves_llm(pair)]


def play_pair(task_id: str, pair: tuple[str, str], *, episodes: int, seed: int, workers: int) -> PairingResult:
    """Play one ordered pairing and estimate its metrics (all of them; the table picks the headline ones)."""
    result, _ = play_pairing(task_id, pair, episodes=episodes, seed=seed, workers=workers)
    return result


def modular_corpus_note(task_id: str) -> str:
    """Which data the modular agent learns from on this task (the same lookup the agent itself does)."""
    task = make(task_id)
    module, cls = task.agents["modular"].split(":")
    relative = getattr(import_module(module), cls).corpus_relative
    path = resolve_corpus(None, relative)
    return f"modular agent learned from the corpus at {path}" if path else f"modular agent found no corpus ({relative} under $DUOLOGUE_DATA or ../shared/data): built-in prior and templates"


def tournament_table(task_id: str, results: list[PairingResult], caption: str) -> Table:
    return pairing_table(task_id, results, caption)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=200, help="episodes per pairing without the LLM")
    parser.add_argument("--llm-episodes", type=int, default=10, help="episodes per pairing involving llm:local (slow)")
    parser.add_argument("--no-llm", action="store_true", help="skip the pairings involving llm:local")
    parser.add_argument("--workers", type=int, default=2, help="worker processes for the pairings without the LLM")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--tasks", nargs="+", default=list(TASKS), choices=TASKS)
    parser.add_argument("--bootstrap", type=int, default=1000, help="bootstrap resamples for the rating intervals")
    parser.add_argument("--json", type=Path, default=None, metavar="OUT", help="also write every pairing's figures and the leaderboards as JSON")
    args = parser.parse_args()
    console = Console(width=200)
    progress = Console(stderr=True)
    kinds = [kind for kind in KINDS if not (args.no_llm and loads_a_model(kind))]

    everything: list[dict] = []
    for task_id in args.tasks:
        tournament = run_tournament(
            task_id,
            kinds,
            episodes=args.episodes,
            llm_episodes=args.llm_episodes,
            seed=args.seed,
            workers=args.workers,
            bootstrap=args.bootstrap,
            on_pairing=lambda pair, task_id=task_id: progress.log(f"{task_id}: {pair[0]} vs {pair[1]} ..."),
        )
        episodes_note = f"{args.episodes} episodes per pairing" + ("" if args.no_llm else f", {args.llm_episodes} for pairings with llm:local (SmolLM2-135M, one worker)")
        caption = f"{episodes_note}; seed {args.seed}; {modular_corpus_note(task_id)}. Utilities, fairness and the Pareto share count deals only."
        console.print(tournament_table(task_id, tournament.pairings, caption))
        for board in tournament.leaderboards:
            console.print(leaderboard_table(board))
        everything.extend(result.to_json() for result in tournament.pairings)
        everything.extend({"leaderboard": board.model_dump(mode="json")} for board in tournament.leaderboards)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_bytes(orjson.dumps(everything, option=orjson.OPT_INDENT_2))
        progress.log(f"wrote {args.json}")


if __name__ == "__main__":
    main()

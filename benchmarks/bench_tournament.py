"""A tournament: every agent kind against every other, in both seats, on CraigslistBargain and CaSiNo.

Run: `.venv/bin/python benchmarks/bench_tournament.py [--episodes 200] [--llm-episodes 10] [--no-llm]
[--workers 2] [--seed 0] [--json OUT]`

For `craigslist-v0` and `casino-v0`, every ordered pair of the kinds `rule`, `random`, `modular`
and `llm:local` (self-pairs included) is played with `duologue.arena.selfplay.run_selfplay`: the
first kind sits in the task's first party slot (the buyer; `mturk_agent_1`), the second in the
other. Seating matters (the buyer and seller have opposite interests, CaSiNo's first mover may
anchor), so A vs B and B vs A are separate rows. Pairs involving the local LLM (SmolLM2-135M, tens
of seconds per episode on a CPU) play `--llm-episodes` episodes on one worker (several workers
would each load the model); the others play `--episodes` on `--workers`.

Each row shows the task's headline metrics with 95% bootstrap intervals (`duologue.arena.report`):
CraigslistBargain: agreement, utility of the buyer and of the seller, fairness (all three over
deals only), and the length reward; CaSiNo: agreement, points of each side, joint points, the share
of deals that are Pareto optimal, and walk-aways. Then the episodes played and the seconds taken.

The `modular` agent learns from the real corpora (`$DUOLOGUE_DATA`, else `../shared/data` beside
the checkout) and falls back to its built-in prior and templates without them; each table's
caption says which it used.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass, field
from importlib import import_module
from itertools import product
from pathlib import Path

import orjson
from rich.console import Console
from rich.table import Table

from duologue.agents.modular import resolve_corpus
from duologue.arena.report import Estimate, report
from duologue.arena.selfplay import PlayConfig, run_selfplay
from duologue.core.schema import Dialogue
from duologue.tasks import make

KINDS = ("rule", "random", "modular", "llm:local")
LLM_PREFIX = "llm"


def headline_metrics(task_id: str) -> list[tuple[str, str]]:
    """(episode-metric name, column heading) for a task's table, in the task's party order."""
    first, second = make(task_id).party_ids
    if task_id.startswith("craigslist"):
        return [("agreement", "agreement"), ("utility_buyer", "utility buyer"), ("utility_seller", "utility seller"), ("fairness", "fairness"), ("length", "length")]
    return [
        ("agreement", "agreement"),
        (f"points_{first}", f"points {first}"),
        (f"points_{second}", f"points {second}"),
        ("joint_points", "joint points"),
        ("pareto_optimal", "Pareto-optimal share"),
        ("walk_away", "walk-aways"),
    ]


TASKS = ("craigslist-v0", "casino-v0")


@dataclass
class PairResult:
    """One ordered pairing's outcome: who sat where, what was measured, how long it took."""

    task: str
    first: str
    second: str
    episodes: int
    seconds: float
    metrics: dict[str, Estimate] = field(default_factory=dict)

    def to_json(self) -> dict:
        return {
            "task": self.task,
            "first": self.first,
            "second": self.second,
            "episodes": self.episodes,
            "seconds": round(self.seconds, 3),
            "metrics": {name: estimate.model_dump() for name, estimate in self.metrics.items()},
        }


def involves_llm(pair: tuple[str, str]) -> bool:
    return any(spec.split(":")[0] == LLM_PREFIX for spec in pair)


def pairings(kinds: tuple[str, ...] | list[str], *, llm: bool = True) -> list[tuple[str, str]]:
    """Every ordered pair of kinds (both seats, self-pairs included); without LLM pairs when `llm` is False."""
    return [pair for pair in product(kinds, repeat=2) if llm or not involves_llm(pair)]


def play_pair(task_id: str, pair: tuple[str, str], *, episodes: int, seed: int, workers: int) -> PairResult:
    """Play one ordered pairing and estimate its metrics (all of them; the table picks the headline ones)."""
    config = PlayConfig(task=task_id, agents=list(pair), episodes=episodes, seed=seed)
    start = time.perf_counter()
    dialogues = [Dialogue.model_validate(orjson.loads(line)) for line in run_selfplay(config, workers=workers)]
    seconds = time.perf_counter() - start
    (group,) = report(dialogues)
    return PairResult(task=task_id, first=pair[0], second=pair[1], episodes=group.episodes, seconds=seconds, metrics=group.metrics)


def modular_corpus_note(task_id: str) -> str:
    """Which data the modular agent learns from on this task (the same lookup the agent itself does)."""
    task = make(task_id)
    module, cls = task.agents["modular"].split(":")
    relative = getattr(import_module(module), cls).corpus_relative
    path = resolve_corpus(None, relative)
    return f"modular agent learned from the corpus at {path}" if path else f"modular agent found no corpus ({relative} under $DUOLOGUE_DATA or ../shared/data): built-in prior and templates"


def cell(estimate: Estimate | None) -> str:
    if estimate is None:
        return "-"
    return f"{estimate.mean:.3f}\n[{estimate.low:.3f}, {estimate.high:.3f}]"


def tournament_table(task_id: str, results: list[PairResult], caption: str) -> Table:
    first, second = make(task_id).party_ids
    labels = {"0": "buyer", "1": "seller"} if task_id.startswith("craigslist") else {first: first, second: second}
    table = Table(title=f"{task_id} tournament (mean, 95% bootstrap interval)", title_justify="left", caption=caption, caption_justify="left", show_lines=True)
    table.add_column("pairing", justify="left")
    columns = headline_metrics(task_id)
    for _, heading in columns:
        table.add_column(heading, justify="right")
    table.add_column("episodes", justify="right")
    table.add_column("seconds", justify="right")
    for result in results:
        row = f"{result.first} ({labels[first]}) vs {result.second} ({labels[second]})"
        table.add_row(row, *(cell(result.metrics.get(name)) for name, _ in columns), str(result.episodes), f"{result.seconds:.1f}")
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=200, help="episodes per pairing without the LLM")
    parser.add_argument("--llm-episodes", type=int, default=10, help="episodes per pairing involving llm:local (slow)")
    parser.add_argument("--no-llm", action="store_true", help="skip the pairings involving llm:local")
    parser.add_argument("--workers", type=int, default=2, help="worker processes for the pairings without the LLM")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--tasks", nargs="+", default=list(TASKS), choices=TASKS)
    parser.add_argument("--json", type=Path, default=None, metavar="OUT", help="also write every pairing's figures as JSON")
    args = parser.parse_args()
    console = Console(width=200)
    progress = Console(stderr=True)

    everything: list[dict] = []
    for task_id in args.tasks:
        results = []
        for pair in pairings(KINDS, llm=not args.no_llm):
            llm = involves_llm(pair)
            progress.log(f"{task_id}: {pair[0]} vs {pair[1]} ...")
            result = play_pair(task_id, pair, episodes=args.llm_episodes if llm else args.episodes, seed=args.seed, workers=1 if llm else args.workers)
            results.append(result)
        episodes_note = f"{args.episodes} episodes per pairing" + ("" if args.no_llm else f", {args.llm_episodes} for pairings with llm:local (SmolLM2-135M, one worker)")
        caption = f"{episodes_note}; seed {args.seed}; {modular_corpus_note(task_id)}. Utilities, fairness and the Pareto share count deals only."
        console.print(tournament_table(task_id, results, caption))
        everything.extend(result.to_json() for result in results)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_bytes(orjson.dumps(everything, option=orjson.OPT_INDENT_2))
        progress.log(f"wrote {args.json}")


if __name__ == "__main__":
    main()

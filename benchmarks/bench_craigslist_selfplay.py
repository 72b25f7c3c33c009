"""CraigslistBargain self-play: how well the rule agent bargains, and how fast episodes run.

Run: `.venv/bin/python benchmarks/bench_craigslist_selfplay.py [--data DIR] [--episodes N]`

It prints:
* rule vs rule on every scenario of the corpus's validation split (597 dialogues' scenarios, each
  played once, buyer = agent 0 as in the corpus): agreement, utilities, fairness, length, turns,
  each with a 95% bootstrap interval (`duologue.arena.report`), then the same split by the
  buyer's target ratio (target / listing price, bucketed to 0.5 / 0.7 / 0.9). Target: agreement >= 0.90;
* rule vs rule, rule vs random and random vs rule on N scenarios generated from the project's
  listings, with the same metrics and the per-ratio split;
* episodes per second of rule vs rule with 1 and 2 workers (`duologue.arena.selfplay.run_selfplay`).
"""

from __future__ import annotations

import argparse
import os
import time
from collections import defaultdict
from pathlib import Path

import orjson
from rich.console import Console
from rich.table import Table

from duologue.agents import make_agent
from duologue.arena.report import bootstrap_mean, report, report_table
from duologue.arena.selfplay import PlayConfig, episode_seed, run_selfplay
from duologue.core.episode import play_episode
from duologue.core.schema import Dialogue
from duologue.data.io import read_corpus
from duologue.tasks import corpus_format, make
from duologue.tasks.craigslist.task import ratio_bucket, target_ratio

TASK = "craigslist-v0"


def play_corpus_scenarios(path: Path, agents: tuple[str, str]) -> list[Dialogue]:
    """Play each corpus dialogue's scenario once (episode seed = its position)."""
    corpus = read_corpus(corpus_format("craigslist"), path, skip_invalid=True).dialogues
    task = make(TASK)
    played = []
    for number, record in enumerate(corpus):
        pair = {party: make_agent(spec, task) for party, spec in zip(task.party_ids, agents, strict=True)}
        dialogue = play_episode(task, pair, seed=episode_seed(0, number), scenario=record)
        dialogue.meta.update({"agents": dict(zip(task.party_ids, agents, strict=True)), "episode": number, "corpus_id": record.id})
        played.append(dialogue)
    return played


def play_generated(episodes: int, agents: tuple[str, str], workers: int = 1) -> tuple[list[Dialogue], float]:
    """Generated scenarios through the arena's self-play; returns the dialogues and episodes per second."""
    config = PlayConfig(task=TASK, agents=list(agents), episodes=episodes, seed=0)
    start = time.perf_counter()
    lines = list(run_selfplay(config, workers=workers))
    elapsed = time.perf_counter() - start
    return [Dialogue.model_validate(orjson.loads(line)) for line in lines], episodes / elapsed


def ratio_table(title: str, dialogues: list[Dialogue]) -> Table:
    """Agreement and utilities per target-ratio bucket, with 95% bootstrap intervals."""
    task = make(TASK)
    buckets: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for dialogue in dialogues:
        bucket = ratio_bucket(target_ratio(dialogue.scenario))
        for name, value in task.episode_metrics(dialogue).items():
            if value is not None:
                buckets[bucket][name].append(value)
    table = Table(title=title, title_justify="left")
    for column in ("target ratio", "episodes", "agreement", "utility buyer", "utility seller", "fairness", "price / listing"):
        table.add_column(column, justify="right")
    for bucket in sorted(buckets):
        columns = buckets[bucket]

        def cell(name: str, columns: dict = columns) -> str:
            values = columns.get(name, [])
            if not values:
                return "-"
            estimate = bootstrap_mean(values)
            return f"{estimate.mean:.3f} [{estimate.low:.3f}, {estimate.high:.3f}]"

        table.add_row(bucket, str(len(columns["agreement"])), cell("agreement"), cell("utility_buyer"), cell("utility_seller"), cell("fairness"), cell("price_ratio"))
    return table


def show(console: Console, title: str, dialogues: list[Dialogue]) -> None:
    for group in report(dialogues):
        console.print(report_table(group))
    console.print(ratio_table(f"{title}: by buyer target ratio", dialogues))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path(os.environ.get("DUOLOGUE_DATA", Path(__file__).resolve().parents[2] / "shared" / "data")))
    parser.add_argument("--episodes", type=int, default=600, help="generated episodes per pairing")
    args = parser.parse_args()
    console = Console(width=max(Console().width, 150))

    validation = args.data / "craigslist" / "validation.json"
    if validation.exists():
        start = time.perf_counter()
        played = play_corpus_scenarios(validation, ("rule", "rule"))
        console.print(f"[bold]rule vs rule on the {len(played)} validation scenarios[/] ({time.perf_counter() - start:.1f} s)")
        show(console, "validation scenarios, rule vs rule", played)
    else:
        console.print(f"[yellow]no validation split at {validation}; set --data or DUOLOGUE_DATA[/]")

    for agents in (("rule", "rule"), ("rule", "random"), ("random", "rule")):
        dialogues, _ = play_generated(args.episodes, agents)
        console.print(f"[bold]{agents[0]} (buyer) vs {agents[1]} (seller) on {args.episodes} generated scenarios[/]")
        show(console, f"generated, {agents[0]} vs {agents[1]}", dialogues)

    speed = Table(title=f"rule vs rule self-play speed ({args.episodes} generated episodes)", title_justify="left")
    for column in ("workers", "episodes/s"):
        speed.add_column(column, justify="right")
    for workers in (1, 2):
        _, rate = play_generated(args.episodes, ("rule", "rule"), workers=workers)
        speed.add_row(str(workers), f"{rate:.1f}")
    console.print(speed)


if __name__ == "__main__":
    main()

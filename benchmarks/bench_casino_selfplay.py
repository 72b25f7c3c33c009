"""How well and how fast the CaSiNo rule agent negotiates, in self-play and against the random agent.

Run: `.venv/bin/python benchmarks/bench_casino_selfplay.py [--episodes 1000] [--seed 0] [--data DIR]`

Prints, for each pairing (rule vs rule, rule vs random, random vs rule), the task's episode metrics
with 95% bootstrap intervals (`duologue.arena.report`): agreement, walk-aways, points per side,
joint points and the share of deals that are Pareto optimal. Then the speed of self-play in episodes
per second with 1 and 2 workers (`duologue.arena.selfplay.run_selfplay`), and the targets
(rule vs rule: agreement >= 0.95, >= 80% of deals Pareto optimal) with PASS/FAIL.

With the real corpus beside the checkout (or `--data`), it also measures the parser on people's
messages (how often the priorities it infers from a participant's own messages match the ranking
that participant was given) and plays rule vs rule on every corpus scenario.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import orjson
from rich.console import Console
from rich.table import Table

from duologue.agents import make_agent
from duologue.arena.report import bootstrap_mean, report, report_table
from duologue.arena.selfplay import PlayConfig, run_selfplay
from duologue.core.episode import play_episode
from duologue.core.schema import Dialogue, Message
from duologue.data.io import read_corpus
from duologue.tasks import corpus_format, make
from duologue.tasks.casino.planning import PartnerModel
from duologue.tasks.casino.understanding import read

TASK = "casino-v0"
PAIRINGS = (["rule", "rule"], ["rule", "random"], ["random", "rule"])
TARGETS = {"agreement": 0.95, "pareto_optimal": 0.80}


def play(config: PlayConfig, workers: int) -> tuple[list[Dialogue], float]:
    start = time.perf_counter()
    dialogues = [Dialogue.model_validate(orjson.loads(line)) for line in run_selfplay(config, workers=workers)]
    return dialogues, time.perf_counter() - start


def parser_on_corpus(dialogues: list[Dialogue]) -> Table:
    """Priorities inferred from each participant's own messages against the ranking it was given."""
    top = low = full = informed = total = 0
    for dialogue in dialogues:
        for party in dialogue.parties:
            model = PartnerModel()
            for event in dialogue.events:
                if isinstance(event, Message) and event.party == party.id:
                    model.update(read(event.text))
            guess = max(model.posterior(), key=lambda pair: pair[1])[0]
            truth = dialogue.scenario.private[party.id]["priorities"]
            total += 1
            informed += model.informed()
            top += all(guess[i] == "High" for i, level in truth.items() if level == "High")
            low += all(guess[i] == "Low" for i, level in truth.items() if level == "Low")
            full += guess == truth
    table = Table(title=f"parser on the corpus: priorities read from each participant's own messages ({total} participants)", title_justify="left")
    for column in ("figure", "share", "chance"):
        table.add_column(column, justify="left" if column == "figure" else "right")
    table.add_row("said enough to infer anything", f"{informed / total:.3f}", "")
    table.add_row("top issue right", f"{top / total:.3f}", "0.333")
    table.add_row("bottom issue right", f"{low / total:.3f}", "0.333")
    table.add_row("whole ranking right", f"{full / total:.3f}", "0.167")
    return table


def corpus_scenarios(dialogues: list[Dialogue], seed: int) -> Table:
    """Rule vs rule on every real corpus scenario, next to what the people scored there."""
    task = make(TASK)
    played = []
    for n, scenario in enumerate(dialogues):
        agents = {p: make_agent("rule", task) for p in task.party_ids}
        dialogue = play_episode(task, agents, seed=seed + n, scenario=scenario)
        played.append(task.episode_metrics(dialogue))
    people = [task.episode_metrics(d) for d in dialogues]
    table = Table(title=f"rule vs rule on the {len(dialogues)} real corpus scenarios, next to the people who negotiated them", title_justify="left")
    for column in ("metric", "rule vs rule", "95% interval", "people"):
        table.add_column(column, justify="left" if column == "metric" else "right")
    for name in ("agreement", "walk_away", "joint_points", "pareto_optimal"):
        ours = bootstrap_mean([f[name] for f in played if f[name] is not None])
        theirs = [f[name] for f in people if f[name] is not None]
        table.add_row(name, f"{ours.mean:.3f}", f"[{ours.low:.3f}, {ours.high:.3f}]", f"{sum(theirs) / len(theirs):.3f}" if theirs else "-")
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--data", type=Path, default=Path(os.environ.get("DUOLOGUE_DATA", Path(__file__).resolve().parents[2] / "shared" / "data")))
    args = parser.parse_args()
    console = Console()

    speed = Table(title=f"{TASK} self-play speed ({args.episodes} episodes each)", title_justify="left")
    for column in ("agents", "workers", "seconds", "episodes/s"):
        speed.add_column(column, justify="left" if column == "agents" else "right")
    reports = {}
    for specs in PAIRINGS:
        config = PlayConfig(task=TASK, agents=specs, episodes=args.episodes, seed=args.seed)
        dialogues, seconds = play(config, workers=1)
        speed.add_row(" vs ".join(specs), "1", f"{seconds:.2f}", f"{len(dialogues) / seconds:,.0f}")
        if specs == ["rule", "rule"]:
            again, seconds2 = play(config, workers=2)
            speed.add_row(" vs ".join(specs), "2", f"{seconds2:.2f}", f"{len(again) / seconds2:,.0f}")
        (group,) = report(dialogues)
        reports[" vs ".join(specs)] = group
        console.print(report_table(group))
    console.print(speed)

    targets = Table(title="targets, rule vs rule", title_justify="left")
    for column in ("metric", "mean", "95% interval", "target", "result"):
        targets.add_column(column, justify="left" if column == "metric" else "right")
    rule_rule = reports["rule vs rule"]
    for name, target in TARGETS.items():
        estimate = rule_rule.metrics[name]
        targets.add_row(name, f"{estimate.mean:.3f}", f"[{estimate.low:.3f}, {estimate.high:.3f}]", f">= {target:.2f}", "[green]PASS[/]" if estimate.mean >= target else "[red]FAIL[/]")
    console.print(targets)

    corpus = args.data / "casino" / "split"
    if corpus.exists():
        dialogues = read_corpus(corpus_format("casino"), corpus).dialogues
        console.print(parser_on_corpus(dialogues))
        console.print(corpus_scenarios(dialogues, args.seed))
    else:
        console.print(f"[yellow]no CaSiNo corpus at {corpus}; skipping the corpus measurements (set --data or DUOLOGUE_DATA)[/]")


if __name__ == "__main__":
    main()

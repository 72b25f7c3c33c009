"""How well and how fast the MutualFriends rule agent finds the mutual friend, in self-play and with the random agent.

Run: `.venv/bin/python benchmarks/bench_mutualfriends_selfplay.py [--episodes 1000] [--seed 0]`

Prints, for each pairing (rule vs rule, rule vs random, random vs random), the task's episode
metrics with 95% bootstrap intervals (`duologue.arena.report`): success, utterances, selections,
turns, success per selection and per turn. Then rule vs rule broken down by scenario difficulty
(the smallest alpha of the scenario, and list sizes), the speed of self-play in episodes per
second with 1 and 2 workers (`duologue.arena.selfplay.run_selfplay`), and the targets (rule vs
rule over generated scenarios of 5-12 friends: success >= 0.95 and fewer than 12 utterances on
average; people needed about 11) with PASS/FAIL.
"""

from __future__ import annotations

import argparse
import time
from collections import defaultdict

import orjson
from rich.console import Console
from rich.table import Table

from duologue.arena.report import bootstrap_mean, report, report_table
from duologue.arena.selfplay import PlayConfig, run_selfplay
from duologue.core.schema import Dialogue
from duologue.tasks import make

TASK = "mutualfriends-v0"
PAIRINGS = (["rule", "rule"], ["rule", "random"], ["random", "random"])


def play(config: PlayConfig, workers: int) -> tuple[list[Dialogue], float]:
    start = time.perf_counter()
    dialogues = [Dialogue.model_validate(orjson.loads(line)) for line in run_selfplay(config, workers=workers)]
    return dialogues, time.perf_counter() - start


def by_difficulty(dialogues: list[Dialogue]) -> Table:
    """Rule vs rule success and utterances by the scenario's smallest alpha and by its list sizes."""
    task = make(TASK)
    groups: dict[str, list[dict]] = defaultdict(list)
    for dialogue in dialogues:
        metrics = task.episode_metrics(dialogue)
        alphas = dialogue.scenario.public["alphas"]
        groups[f"min alpha {min(alphas):g}"].append(metrics)
        groups[f"{len(alphas)} attributes"].append(metrics)
        size = max(len(dialogue.scenario.private[p]["friends"]) for p in ("0", "1"))
        groups["lists up to 8" if size <= 8 else "a list of 9-12"].append(metrics)
    table = Table(title="rule vs rule by scenario difficulty", title_justify="left")
    for column in ("scenarios", "n", "success", "95% interval", "utterances", "selections"):
        table.add_column(column, justify="left" if column == "scenarios" else "right")
    for name in sorted(groups):
        rows = groups[name]
        success = bootstrap_mean([r["success"] for r in rows])
        utterances = sum(r["utterances"] for r in rows) / len(rows)
        selections = sum(r["selections"] for r in rows) / len(rows)
        table.add_row(name, str(len(rows)), f"{success.mean:.3f}", f"[{success.low:.3f}, {success.high:.3f}]", f"{utterances:.2f}", f"{selections:.2f}")
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    console = Console()

    speed = Table(title=f"{TASK} self-play speed ({args.episodes} episodes each)", title_justify="left")
    for column in ("agents", "workers", "seconds", "episodes/s"):
        speed.add_column(column, justify="left" if column == "agents" else "right")
    reports = {}
    played: dict[str, list[Dialogue]] = {}
    for specs in PAIRINGS:
        name = " vs ".join(specs)
        config = PlayConfig(task=TASK, agents=specs, episodes=args.episodes, seed=args.seed)
        dialogues, seconds = play(config, workers=1)
        speed.add_row(name, "1", f"{seconds:.2f}", f"{len(dialogues) / seconds:,.0f}")
        again, seconds2 = play(config, workers=2)
        speed.add_row(name, "2", f"{seconds2:.2f}", f"{len(again) / seconds2:,.0f}")
        (group,) = report(dialogues)
        reports[name] = group
        played[name] = dialogues
        console.print(report_table(group))
    console.print(by_difficulty(played["rule vs rule"]))
    console.print(speed)

    targets = Table(title="targets, rule vs rule on generated scenarios (5-12 friends)", title_justify="left")
    for column in ("metric", "mean", "95% interval", "target", "result"):
        targets.add_column(column, justify="left" if column == "metric" else "right")
    rule_rule = reports["rule vs rule"].metrics
    for name, target, met in (
        ("success", ">= 0.95", rule_rule["success"].mean >= 0.95),
        ("utterances", "< 12 (people: about 11)", rule_rule["utterances"].mean < 12),
    ):
        estimate = rule_rule[name]
        targets.add_row(name, f"{estimate.mean:.3f}", f"[{estimate.low:.3f}, {estimate.high:.3f}]", target, "[green]PASS[/]" if met else "[red]FAIL[/]")
    console.print(targets)


if __name__ == "__main__":
    main()

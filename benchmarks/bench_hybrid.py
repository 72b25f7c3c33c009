"""Deciding and speaking apart: the local LLM alone vs the LLM as the writer of a rule or modular policy.

Run: `.venv/bin/python benchmarks/bench_hybrid.py [--games 6] [--max-turns 10] [--tasks craigslist-v0 casino-v0]
[--agents llm:local hybrid:rule+llm:local hybrid:modular+llm:local] [--partner rule] [--seed 7]`

Every agent plays the same seeds against the same partner, in both seats (alternating). Per agent
and task: the legal-move rate (moves the task accepted / moves tried), agreement, the agent's score
(CraigslistBargain: normalised utility; CaSiNo: points), and for hybrids the share of its messages
whose words say what the policy decided (read back: same numbers, same items; the writer's words
that failed the check were retried, then replaced by the policy's own), the share of messages the
LLM's words were kept for, and the writer's tries per message. Intervals: 95%, normal approximation.
Kept small: SmolLM2-135M on shared CPU cores writes ~90 tokens/s.
"""

from __future__ import annotations

import argparse
import math
import time

from rich.console import Console
from rich.table import Table

from duologue.agents import make_agent
from duologue.agents.hybrid import generic_reading, schema_items
from duologue.arena.selfplay import episode_seed
from duologue.core.episode import play_episode
from duologue.tasks import make

console = Console()


def mean_interval(values: list[float]) -> str:
    if not values:
        return "-"
    n = len(values)
    mean = sum(values) / n
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1)) if n > 1 else 0.0
    return f"{mean:.2f} +- {1.96 * sd / math.sqrt(n):.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=6)
    parser.add_argument("--max-turns", type=int, default=10)
    parser.add_argument("--tasks", nargs="+", default=["craigslist-v0", "casino-v0"])
    parser.add_argument("--agents", nargs="+", default=["llm:local", "hybrid:rule+llm:local", "hybrid:modular+llm:local"])
    parser.add_argument("--partner", default="rule")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    for task_id in args.tasks:
        out = Table(title=f"{task_id}: {args.games} games per agent against {args.partner}, at most {args.max_turns} moves (mean +- 95% interval)")
        for column in ("agent", "legal-move rate", "illegal moves", "agreement", "score", "words match decision", "LLM words kept", "writer tries", "s/game"):
            out.add_column(column, justify="left" if column == "agent" else "right")
        for agent_spec in args.agents:
            legal, agreed, score, matched, kept, tries, illegal_total, seconds = [], [], [], [], [], [], 0, []
            for number in range(args.games):
                task = make(task_id, max_turns=args.max_turns)
                seat = task.party_ids[number % 2]
                agent = make_agent(agent_spec, task)
                started = time.perf_counter()
                dialogue = play_episode(task, {seat: agent, task.other(seat): make_agent(args.partner, task)}, seed=episode_seed(args.seed, number))
                seconds.append(time.perf_counter() - started)
                made = sum(1 for e in dialogue.events if e.party == seat)
                refused = dialogue.meta["illegal_actions"].get(seat, 0)
                illegal_total += refused
                legal.append(made / (made + refused) if made + refused else 1.0)
                agreed.append(float(bool(dialogue.outcome and dialogue.outcome.agreed)))
                score.append(float((dialogue.outcome.scores if dialogue.outcome else {}).get(seat, 0.0) or 0.0))
                turns = getattr(agent, "turns", None)
                if turns:
                    probe = make(task_id, max_turns=args.max_turns)
                    probe.reset(seed=dialogue.meta["seed"])
                    items = schema_items(probe.action_schema(probe.to_move))  # the item names the moves split, if any
                    matched.append(sum(generic_reading(t.said, items) == generic_reading(t.decided, items) for t in turns) / len(turns))
                    kept.append(sum(t.source == "writer" for t in turns) / len(turns))
                    tries.extend(t.tries for t in turns)
            out.add_row(
                agent_spec, mean_interval(legal), str(illegal_total), mean_interval(agreed), mean_interval(score),
                mean_interval(matched), mean_interval(kept), mean_interval([float(t) for t in tries]), f"{sum(seconds) / len(seconds):.0f}",
            )
            console.print(f"[dim]{task_id} {agent_spec} done[/]")
        console.print(out)


if __name__ == "__main__":
    main()

"""Words against moves in self-play: how often a bot's next formal move goes against what it just said.

Run: `.venv/bin/python benchmarks/bench_contradictions.py [--tasks casino,craigslist,dealornodeal]
[--agents rule,modular,rl] [--games 200] [--seed 0] [--show 0]`

Each agent spec plays itself on `--games` seeded games per task; every message of both seats is read
with the task's statement reader and checked against the speaker's next formal move
(`duologue.evaluation.contradictions`). Printed per task and agent: games, messages that state a
split or price, contradictions of each kind, and their share of the statements. `--show N` prints N
contradictions per row, the words and the move, for reading by hand.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter

from rich.console import Console
from rich.table import Table

from duologue.agents import make_agent
from duologue.agents.rl import shipped
from duologue.core.episode import play_episode
from duologue.evaluation.contradictions import Contradiction, contradictions, reader_for, statements
from duologue.tasks import make

TASKS = {"casino": "casino-v0", "craigslist": "craigslist-v0", "dealornodeal": "dealornodeal-v0"}
KINDS = ("proposes-other", "accepts-other", "rejects-own", "rejects-agreed")


def check(task_id: str, spec: str, games: int, seed: int) -> tuple[int, Counter[str], list[Contradiction]]:
    """(statements, contradictions by kind, the contradictions) over `games` self-play games of `spec`."""
    said, kinds, found = 0, Counter[str](), []
    for n in range(games):
        task = make(task_id)
        reader = reader_for(task)
        if reader is None:
            raise SystemExit(f"{task_id} has no statement reader")
        dialogue = play_episode(task, {p: make_agent(spec, task) for p in task.party_ids}, seed=seed + n)
        for party in task.party_ids:
            said += statements(dialogue, party, reader)
            for item in contradictions(dialogue, party, reader):
                kinds[item.kind] += 1
                found.append(item)
    return said, kinds, found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", default=",".join(TASKS))
    parser.add_argument("--agents", default="rule,modular,rl")
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--show", type=int, default=0)
    args = parser.parse_args(argv)
    names = [t.strip() for t in args.tasks.split(",") if t.strip()]
    if any(t not in TASKS for t in names):
        print(f"unknown task in {args.tasks!r}; choose from {', '.join(TASKS)}", file=sys.stderr)
        return 2
    console = Console(width=200)
    table = Table(title=f"words against moves, self-play ({args.games} games each)", title_justify="left")
    for column in ("task", "agent", "statements", *KINDS, "share"):
        table.add_column(column, justify="left" if column in ("task", "agent") else "right")
    shown: list[tuple[str, str, Contradiction]] = []
    for name in names:
        specs = [s.strip() for s in args.agents.split(",") if s.strip()]
        specs = [x for s in specs for x in ([f"rl:{p}" for p in shipped(TASKS[name])] if s == "rl" else [s])]
        for spec in specs:
            said, kinds, found = check(TASKS[name], spec, args.games, args.seed)
            total = sum(kinds.values())
            table.add_row(name, spec, str(said), *(str(kinds[k]) for k in KINDS), f"{total / said:.3f}" if said else "-")
            shown += [(name, spec, item) for item in found[: args.show]]
    console.print(table)
    for name, spec, item in shown:
        console.print(f"[{name} {spec}] {item.kind}: said {item.text!r} -> {item.said}; then {item.did}", markup=False)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

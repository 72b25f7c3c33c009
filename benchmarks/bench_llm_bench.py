"""The embedded local model through `duologue bench` (plumbing, small numbers), and the command for your own endpoint.

Run: `.venv/bin/python benchmarks/bench_llm_bench.py [--tasks casino-v0,craigslist-v0,dealornodeal-v0]
[--limit 1] [--max-turns 4] [--out DIR]`

Plays `llm:local` (SmolLM2-135M through xllamacpp, on the CPU) and the rule agent on each task's
instance set: opposite the people's replayed scripts, opposite the rule baseline and opposite
itself, in both seats. Then it plays the same run again with `fresh` (every episode replayed, every
LLM reply from the cache in the output folder) and prints the table, the cache's hits and the two
wall times. SmolLM2-135M is tiny: its figures show that the harness works, not what a model can do.
Then the judge, measured the same way: on each task with a party questionnaire (CaSiNo), the local
model predicts each negotiator's own answers on the first `--judge` dialogues of the task's instance
set, and its agreement with the people is printed per question (`duologue judge --people`).
Last, it prints the commands that run the same on your own endpoint. Exits cleanly when the
corpora (`$DUOLOGUE_DATA`, default `../shared/data`) or the local model are absent.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from rich.console import Console

from duologue.arena import bench
from duologue.llm.server import local_model_problem

ENDPOINT_COMMAND = (
    "DUOLOGUE_LLM_ALIASES='{{\"lab\": \"http://your-host:8000/v1\"}}' DUOLOGUE_LLM_API_KEY=... \\\n"
    "  duologue bench llm:lab/your-model rule --tasks {tasks} --limit 20 --out bench-out \\\n"
    "  --prices prices.json   # prices.json: {{\"llm:lab/your-model\": {{\"input\": 0.15, \"output\": 0.6}}}} (USD per 1M tokens)\n"
    "duologue judge PATH/casino_valid.json --corpus casino --people --llm lab/your-model   # the judge against people's own answers"
)


def run(config: bench.BenchConfig) -> tuple[bench.Progress, float]:
    progress = bench.Progress()
    started = time.perf_counter()
    for _ in bench.run_bench(config, progress):
        pass
    return progress, time.perf_counter() - started


def judge_people(task_ids: list[str], root: Path, dialogues: int, console: Console) -> None:
    """The local model predicting people's own answers, on each task that has a party questionnaire."""
    from duologue.evaluation.judge import Judge
    from duologue.evaluation.judge_people import judge_parties, party_items, people_agreement
    from duologue.evaluation.judge_people_cli import people_table
    from duologue.llm.client import ChatClient
    from duologue.llm.server import shared_local_server
    from duologue.llm.settings import Endpoint, LLMSettings, resolve_endpoint

    local = resolve_endpoint("local", LLMSettings())
    client = ChatClient.from_endpoint(Endpoint(shared_local_server().url, local.model), LLMSettings())
    for task_id in task_ids:
        items = party_items(task_id)
        if not items:
            continue
        chosen = bench.load_instance_set(task_id)
        judge = Judge(client, items=items, reason_chars=0)
        started = time.perf_counter()
        judged = list(judge_parties(bench.instance_dialogues(chosen, root, dialogues), judge))
        seconds = time.perf_counter() - started
        results = [people_agreement(judged, item.name, judge_id=judge.judge_id) for item in items]
        console.print(people_table(results, f"{judge.judge_id} predicting the people's own answers on {len(judged)} {task_id} dialogues ({seconds:.0f} s)"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", default="casino-v0,craigslist-v0,dealornodeal-v0")
    parser.add_argument("--limit", type=int, default=1)
    parser.add_argument("--max-turns", type=int, default=4)
    parser.add_argument("--out", type=Path, help="Output folder (default: a new temporary one).")
    parser.add_argument("--judge", type=int, default=6, help="Dialogues the judge reads per task with a party questionnaire (0: none).")
    args = parser.parse_args()
    console = Console(width=200)
    root = bench.default_data_root()
    task_ids = [t.strip() for t in args.tasks.split(",") if t.strip()]
    if not root.exists():
        console.print(f"[yellow]skipped: no corpora at {root} (set DUOLOGUE_DATA)[/]")
        return 0
    problem = local_model_problem()
    if problem:
        console.print(f"[yellow]skipped: {problem}[/]")
        return 0
    from duologue.evaluation.bench_cli import console_table

    out = args.out or Path(tempfile.mkdtemp(prefix="duologue-bench-"))
    config = bench.BenchConfig(models=["llm:local", "rule"], task_ids=task_ids, out=out, data_root=root, limit=args.limit, max_turns=args.max_turns, max_illegal_rate=1.0)
    first, first_seconds = run(config)
    config.fresh = True
    again, again_seconds = run(config)
    rows, stops = bench.read_results(out / bench.RESULTS)
    console.print(console_table(bench.standings(list(rows.values()), list(stops.values()))))
    counts, rerun = first.counts(), again.counts()
    console.print(
        f"first run: {counts['played']} episodes, {counts['cache_misses']} model calls, {first_seconds:.1f} s; "
        f"rerun: {rerun['played']} episodes, {rerun['cache_hits']} replies from the cache, {rerun['cache_misses']} calls, {again_seconds:.1f} s "
        f"({again_seconds / first_seconds:.1%} of the first)"
    )
    console.print(f"results and cache in {out}")
    if args.judge:
        judge_people(task_ids, root, args.judge, console)
    console.print("\nOn your own OpenAI-compatible endpoint (aliases, keys and settings: docs' LLM page):")
    console.print(ENDPOINT_COMMAND.format(tasks=",".join(task_ids)), markup=False, highlight=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())

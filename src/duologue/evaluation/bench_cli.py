"""`duologue bench MODEL...`: models opposite people's scripts, the baseline and themselves (`duologue.arena.bench`).

Writes, in `--out`: `results.jsonl` (one keyed row per episode and seat, appended as they finish),
`run.json` (what pins each model and instance set), `cache/` (every LLM reply, by request),
`summary.json` (the figures with their intervals) and `leaderboard.html`; and prints the table.
Every user mistake (an unknown task or agent, an altered instance set, an absent corpus, a bad price
table) ends in a clear message and a non-zero exit code, never a traceback.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.table import Table

from duologue.arena.bench import FIGURES, RESULTS, RUN, BenchConfig, PriceTable, Standing
from duologue.arena.bench import Progress as BenchProgress
from duologue.terminal import console, errors, fail

LEADERBOARD, SUMMARY = "leaderboard.html", "summary.json"
TABLE_FIGURES = ("agreement", "score", "score_vs_person", "pareto", "illegal_rate", "tokens", "cost", "latency")
"""The figures the console table shows (the HTML leaderboard and summary.json hold them all)."""
SHORT = {"agreement": "deal", "score": "score", "score_vs_person": "-person", "pareto": "Pareto", "illegal_rate": "illegal", "tokens": "tokens", "cost": "USD", "latency": "s/call"}
"""Short console column names (the leaderboard spells them out)."""



def _cell(standing: Standing, name: str, digits: int = 2, compact: bool = False) -> str:
    """`mean [low, high]`, or `mean ±half-width` when `compact` (the console); the mean alone when the interval is a point."""
    estimate = standing.figures.get(name)
    if estimate is None:
        return "-"
    if estimate.n == 1 or estimate.low == estimate.high:
        return f"{estimate.mean:.{digits}f}"
    if compact:
        return f"{estimate.mean:.{digits}f}±{(estimate.high - estimate.low) / 2:.{digits}f}"
    return f"{estimate.mean:.{digits}f} [{estimate.low:.{digits}f}, {estimate.high:.{digits}f}]"


def _labels(names: list[str]) -> dict[str, str]:
    known = dict(FIGURES)
    return {name: known.get(name, name.replace("_", " ")) for name in names}


def figure_names(found: list[Standing]) -> list[str]:
    """The figures to show, in FIGURES order, then any registered extra figure."""
    present = {name for s in found for name in s.figures}
    return [name for name, _ in FIGURES if name in present] + sorted(present - {name for name, _ in FIGURES})


def console_table(found: list[Standing]) -> Table:
    table = Table(title="duologue bench: models opposite people's scripts, the baseline and themselves (mean ±half the 95% interval)", title_justify="left")
    names = [n for n in figure_names(found) if n in TABLE_FIGURES or n not in dict(FIGURES)]
    stopped = any(s.stopped for s in found)
    for column in ("task", "model", "opponent", "n", *(SHORT.get(n, n) for n in names), *(["stopped"] if stopped else [])):
        table.add_column(column, justify="left" if column in ("task", "model", "opponent", "stopped") else "right", overflow="fold")
    for standing in found:
        cells = [_cell(standing, n, compact=True) for n in names]
        table.add_row(standing.task, standing.model, standing.opponent, str(standing.episodes), *cells, *([standing.stopped or ""] if stopped else []))
    return table


def write_leaderboard(path: Path, found: list[Standing], pins: dict) -> Path:
    """The HTML leaderboard, in the style of `duologue analyze report`."""
    from duologue.analysis.report import Report

    report = Report("duologue bench leaderboard", subtitle="Each model opposite people's own scripts, the baseline agent and itself, in both seats; means with 95% bootstrap intervals over episodes.")
    names = figure_names(found)
    labels = _labels(names)
    for task_id in sorted({s.task for s in found}):
        section = report.section(task_id)
        chosen = pins.get("instance_sets", {}).get(task_id, {})
        section.text(f"Instance set {chosen.get('name', '?')} version {chosen.get('version', '?')} ({chosen.get('checksum', '?')}).")
        rows = [
            [s.opponent, s.model, s.episodes, *(_cell(s, n, 3) for n in names), s.stopped or ""]
            for s in found
            if s.task == task_id
        ]
        section.table(["opponent", "model", "n (episode seats)", *labels.values(), "stopped"], rows)
    pinned = report.section("What was measured")
    pinned.text("Each model's name, endpoint, prompt hash and sampling settings, as pinned in run.json.")
    pinned.table(["model", "pinned"], [[spec, json.dumps(pin, sort_keys=True)] for spec, pin in pins.get("models", {}).items()])
    return report.write(path)


def _prices(path: Path | None) -> PriceTable:
    if path is None:
        return PriceTable()
    try:
        return PriceTable.model_validate({"prices": json.loads(path.read_text(encoding="utf-8"))})
    except OSError as error:
        raise fail(f"--prices {path}: {error.strerror or error}") from None
    except ValueError as error:
        raise fail(f'--prices {path}: not a price table ({error}); write {{"llm:openai/gpt-4o-mini": {{"input": 0.15, "output": 0.6}}}} in US dollars per million tokens') from None


def bench_command(
    models: Annotated[list[str], typer.Argument(help="Agent specs to measure: llm:local, llm:openai/gpt-4o-mini, rule, ...")],
    task_list: Annotated[Optional[str], typer.Option("--tasks", "-t", help="Comma-separated task ids (default: every task that ships an instance set).")] = None,
    limit: Annotated[Optional[int], typer.Option(min=1, help="Play only the first N instances of each set.")] = None,
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder for results, cache and leaderboard; a rerun resumes it.")] = Path("bench-out"),
    data: Annotated[Optional[Path], typer.Option(help="The folder of the corpora (default: $DUOLOGUE_DATA, else ../shared/data).")] = None,
    baseline: Annotated[str, typer.Option(help="The baseline opponent's agent spec ('none': no baseline matches).")] = "rule",
    max_turns: Annotated[Optional[int], typer.Option(min=1, help="Cap every episode at N moves (default: each task's own limit).")] = None,
    max_illegal_rate: Annotated[float, typer.Option(min=0.0, max=1.0, help="Stop a model on a task when its illegal-move rate passes this.")] = 0.5,
    min_episodes: Annotated[int, typer.Option(min=1, help="Episodes before the illegal-move rate can stop a model.")] = 3,
    prices: Annotated[Optional[Path], typer.Option(help='JSON price table: {"<spec or model>": {"input": USD per 1M tokens, "output": ...}}.')] = None,
    sets: Annotated[Optional[Path], typer.Option(help="A folder of instance sets (<task id>.json) to use instead of the tasks' own.")] = None,
    fresh: Annotated[bool, typer.Option("--fresh", help="Play every episode again (LLM replies still come from the cache).")] = False,
    seed: Annotated[int, typer.Option(help="Seeds the episodes and the bootstrap.")] = 0,
) -> None:
    """Measure models opposite people's scripts, the rule baseline and themselves, on versioned instance sets; write results and an HTML leaderboard."""
    from duologue.agents import AgentSpecError, check_agent
    from duologue.arena import bench
    from duologue.llm.settings import LLMConfigError, LLMError
    from duologue.tasks import UnknownNameError, make

    price_table = _prices(prices)
    try:
        task_ids = [t.strip() for t in task_list.split(",") if t.strip()] if task_list else bench.bench_tasks()
        for task_id in task_ids:
            for spec in [*models, *([baseline] if baseline != "none" else [])]:
                check_agent(spec, make(task_id))
        config = bench.BenchConfig(
            models=list(models), task_ids=task_ids, out=out, data_root=data or bench.default_data_root(), limit=limit,
            baseline=None if baseline == "none" else baseline, seed=seed, max_turns=max_turns, max_illegal_rate=max_illegal_rate, min_episodes=min_episodes, fresh=fresh, sets=sets,
        )
        progress = bench.Progress()
        with Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=errors) as bar:
            line = bar.add_task("bench", total=None)
            progress.on_episode = lambda n: bar.update(line, total=progress.total, advance=n)
            progress.on_stop = lambda stop: errors.print(f"[yellow]stopped {escape(stop.model)} on {stop.task}: {escape(stop.reason)}[/]", highlight=False)
            for _ in bench.run_bench(config, progress):
                pass
    except (bench.BenchError, UnknownNameError, LLMConfigError, AgentSpecError) as error:
        raise fail(str(error)) from None
    except LLMError as error:
        raise fail(f"a model's endpoint failed: {error} (the episodes played so far are kept in {out / RESULTS}; run again to resume)") from None
    except OSError as error:
        raise fail(f"--out {out}: {error}") from None
    summarize_run(config, progress, price_table)


def summarize_run(config: BenchConfig, progress: BenchProgress, price_table: PriceTable) -> None:
    """Figures over everything in the output folder for these models and tasks: the table, summary.json and the leaderboard."""
    from duologue.arena import bench

    rows, stops = bench.read_results(config.out / RESULTS)
    pins = json.loads((config.out / RUN).read_text(encoding="utf-8"))
    names = {spec: pin.get("model") for spec, pin in pins.get("models", {}).items()}
    wanted = [r for r in rows.values() if r.model in config.models and r.task in config.task_ids]
    found = bench.standings(wanted, list(stops.values()), prices=price_table, model_names=names, seed=config.seed)
    console.print(console_table(found))
    counts = progress.counts()
    summary = {"run": counts, "pins": pins, "standings": [s.model_dump(mode="json") for s in found]}
    (config.out / SUMMARY).write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    write_leaderboard(config.out / LEADERBOARD, found, pins)
    errors.print(
        f"{counts['played']} episode(s) played, {counts['skipped']} already in {config.out / RESULTS}; "
        f"LLM replies: {counts['cache_hits']} from the cache, {counts['cache_misses']} asked; wrote {config.out / LEADERBOARD}",
        highlight=False,
    )

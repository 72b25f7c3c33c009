"""`duologue replay CORPUS PATH --agent SPEC`: an agent against real people's scripts (`duologue.arena.replay`).

Every user mistake (a missing file, an unknown corpus, task, agent or seat) ends in a clear message
and a non-zero exit code, never a traceback.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any, Optional

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.table import Table

from duologue.terminal import console, errors, fail, load


ROWS = (
    ("agreement", "agreement"),
    ("agent_score", "agent's score"),
    ("human_score", "person's score (same seat)"),
    ("score_difference", "agent - person"),
    ("pareto", "Pareto-optimal deals"),
    ("walk_away", "walk-aways"),
    ("stuck", "stuck (script spent, no deal)"),
    ("human_agreement", "people's agreement"),
    ("human_pareto", "people's Pareto-optimal deals"),
    ("frontier_distance", "distance to the frontier (deals)"),
    ("human_frontier_distance", "people's distance to the frontier"),
    ("surplus", "agent's surplus over walking away"),
    ("human_surplus", "person's surplus (same seat)"),
)


def replay_command(
    corpus: Annotated[str, typer.Argument(help="Corpus format of PATH (as in `duologue data validate`).")],
    path: Annotated[Path, typer.Argument(help="A corpus file or folder.")],
    agent: Annotated[str, typer.Option("--agent", "-a", help="Agent spec to seat: rule, modular, llm:local, ...")],
    task: Annotated[Optional[str], typer.Option("--task", "-t", help="Task id (default: the corpus's task).")] = None,
    seat: Annotated[str, typer.Option(help="both (each party in turn) or one party id.")] = "both",
    out: Annotated[Optional[Path], typer.Option("--out", "-o", help="Write the replayed dialogues here (.jsonl).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object for the whole run.")] = False,
    limit: Annotated[Optional[int], typer.Option(min=1, help="Replay only the first N dialogues (slow agents).")] = None,
    seed: Annotated[int, typer.Option(help="Seeds the agents and the bootstrap.")] = 0,
) -> None:
    """Seat an agent opposite real people's scripts on their real scenarios; report agreement and scores against the people's."""
    from duologue.arena.replay import summarize
    from duologue.data.outputs import output_problem

    if out is not None and out.suffix.lower() != ".jsonl":
        raise fail(f"--out {out}: replayed dialogues are written as .jsonl")
    if out is not None and (problem := output_problem(out)) is not None:
        raise fail(f"--out {problem}")
    read = load(corpus, path, skip_invalid=True)
    if read.invalid:
        errors.print(f"[yellow]{read.invalid} invalid record(s) left out (`duologue data validate {corpus} {path}` says why)[/]", highlight=False)
    dialogues = read.dialogues[:limit]
    if not dialogues:
        raise fail(f"{path}: no dialogues to replay")
    rows, task_id = _replay(dialogues, corpus=corpus, path=path, agent=agent, task=task, seat=seat, seed=seed, out=out)
    report = summarize(rows, task_id=task_id, agent=agent, seed=seed)
    if as_json:
        sys.stdout.write(json.dumps(report.model_dump(mode="json"), indent=2) + "\n")
        return
    console.print(_figures_table(report, agent))
    if out is not None:
        errors.print(f"[green]wrote {report.episodes} dialogues to {out}[/]")


def _replay(
    dialogues: list[Any], *, corpus: str, path: Path, agent: str, task: str | None, seat: str, seed: int, out: Path | None
) -> tuple[list[Any], str]:
    """Replay with a progress bar, writing the dialogues to `out` through a `.partial` file that only a
    finished run puts in its place; the rows of figures and the task id. Mistakes are clean exits."""
    from duologue.agents import AgentSpecError, check_agent
    from duologue.arena.replay import ReplayError, run_replay, seats_of, task_for
    from duologue.data.io import dump_dialogue
    from duologue.llm.settings import LLMConfigError, LLMError
    from duologue.tasks import UnknownNameError, make

    rows = []
    handle = None
    partial = None if out is None else out.with_name(out.name + ".partial")  # `out` is replaced only by a finished run
    finished = False
    try:
        task_id = task_for(dialogues[0], corpus, task)
        seats = len(seats_of(task_id, seat))
        check_agent(agent, make(task_id))
        if partial is not None:
            partial.parent.mkdir(parents=True, exist_ok=True)
            handle = partial.open("wb")
        with Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=errors) as progress:
            bar = progress.add_task(f"replay {agent} on {path.name}", total=len(dialogues) * seats)
            for played, row in run_replay(dialogues, corpus=corpus, agent=agent, task_id=task, seat=seat, seed=seed):
                rows.append(row)
                if handle is not None:
                    handle.write(dump_dialogue(played) + b"\n")
                progress.advance(bar)
        finished = True
    except (ReplayError, UnknownNameError, LLMConfigError, AgentSpecError) as error:
        raise fail(str(error)) from None
    except LLMError as error:
        raise fail(f"the agent's model endpoint failed: {error}") from None
    except OSError as error:
        raise fail(f"--out {out}: {error}") from None
    finally:
        if handle is not None:
            handle.close()
        if partial is not None and partial.exists() and not finished:
            partial.unlink()  # a failed run leaves any earlier output as it was
    if partial is not None and out is not None:
        partial.replace(out)
    return rows, task_id


def _figures_table(report: Any, agent: str) -> Table:
    """The replay's figures with their bootstrap intervals, one row per figure the task has."""
    table = Table(title=f"{report.task}: {agent} against people's scripts ({report.dialogues} dialogues, {report.episodes} episodes)", title_justify="left")
    for column in ("figure", "mean", "95% interval", "n"):
        table.add_column(column, justify="left" if column == "figure" else "right")
    for name, label in ROWS:
        value = getattr(report, name)
        if value is None:
            continue
        low, high = report.intervals[name]
        table.add_row(label, f"{value:.3f}", f"[{low:.3f}, {high:.3f}]", str(report.counts[name]))
    return table

"""`duologue tournament`: a round-robin of agent specs on one task, then the leaderboards.

Every user mistake (an unknown task or agent spec, a bad output path) ends in a clear message and
exit code 1, never a traceback.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any, Optional

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

from duologue.arena.specs import AGENTS_FORMS, split_agent_specs
from duologue.terminal import console, errors, fail


def tournament_command(
    ctx: typer.Context,
    task: Annotated[str, typer.Option("--task", "-t", help="Task id (see `duologue tasks`).")],
    agents: Annotated[list[str], typer.Option("--agents", "-a", help=f"Agent specs (repeats dropped), {AGENTS_FORMS}.")],
    episodes: Annotated[int, typer.Option("-n", "--episodes", min=1, help="Episodes per ordered pairing.")] = 50,
    workers: Annotated[int, typer.Option(min=1, help="Processes playing in parallel.")] = 1,
    seed: Annotated[int, typer.Option(help="Run seed: every pairing plays the same scenarios; also seeds the bootstrap.")] = 0,
    out: Annotated[Optional[Path], typer.Option("--out", "-o", help="Folder with one .jsonl per pairing; a rerun resumes.")] = None,
    report_path: Annotated[Optional[Path], typer.Option("--report", help="Also write an HTML report (leaderboards with intervals) here.")] = None,
    output_format: Annotated[str, typer.Option("--format", help="table or json.")] = "table",
    backend: Annotated[str, typer.Option(help="Where episodes run: local (processes) or ray.")] = "local",
    address: Annotated[Optional[str], typer.Option(help="Ray cluster address (auto, ray://host:port); default: a local Ray.")] = None,
    bootstrap: Annotated[int, typer.Option(min=0, help="Bootstrap resamples for the rating intervals.")] = 1000,
    max_turns: Annotated[Optional[int], typer.Option(help="Truncate episodes after this many moves.")] = None,
    llm_episodes: Annotated[Optional[int], typer.Option(min=1, help="Episodes per pairing with llm:local (slow on a CPU; default: --episodes).")] = None,
) -> None:
    """Round-robin tournament of agent specs: every ordered pair plays, then Bradley-Terry and Elo leaderboards."""
    from duologue.arena.selfplay import NotSelfPlayFile
    from duologue.arena.tournament import episodes_done, total_episodes

    specs = list(dict.fromkeys(split_agent_specs(agents, ctx.args)))  # a pairing of a spec with itself says nothing
    _check_choices(output_format, backend, address, specs)
    _check_task_and_agents(task, specs)
    _check_outputs(out, report_path)
    options = _task_options(task, max_turns)
    total = total_episodes(specs, episodes=episodes, llm_episodes=llm_episodes)
    try:
        already = episodes_done(out, task, specs, episodes=episodes, seed=seed, llm_episodes=llm_episodes, options=options)
    except (NotSelfPlayFile, OSError) as error:
        raise fail(str(error), 1) from None
    play = dict(
        episodes=episodes, seed=seed, workers=workers, out_dir=out, options=options, backend=backend, address=address,
        llm_episodes=llm_episodes, bootstrap=bootstrap,
    )
    result = _play(task, specs, play, total=total, already=already)
    if already:
        errors.print(f"resumed: {already} episode(s) were already in {out}")
    if report_path is not None:
        _write_report(report_path, result)
        errors.print(f"[green]wrote {report_path}[/]")
    _show(task, result, output_format, caption=f"{episodes} episodes per pairing; seed {seed}")


def _check_choices(output_format: str, backend: str, address: str | None, specs: list[str]) -> None:
    """The options that name a choice: the output format, the backend (and a Ray address only with Ray), two specs at least."""
    from duologue.arena.backends import BACKENDS

    if output_format not in ("table", "json"):
        raise fail(f"--format {output_format!r}: use table or json", 1)
    if backend not in BACKENDS:
        raise fail(f"--backend {backend!r}: choose one of {', '.join(BACKENDS)}", 1)
    if address is not None and backend != "ray":
        raise fail("--address names a Ray cluster: use it with --backend ray", 1)
    if len(specs) < 2:
        raise fail(f"a tournament needs at least two different agent specs, got {specs}", 1)


def _check_task_and_agents(task: str, specs: list[str]) -> None:
    """Every spec can play the task (an unknown task or agent, a model endpoint without settings)."""
    from duologue.agents import AgentSpecError
    from duologue.arena.tournament import check_agents
    from duologue.llm.settings import LLMConfigError
    from duologue.tasks import LoadError, UnknownNameError

    try:
        check_agents(task, specs)
    except (UnknownNameError, LLMConfigError, AgentSpecError, LoadError) as error:
        raise fail(str(error), 1) from None


def _check_outputs(out: Path | None, report_path: Path | None) -> None:
    """The pairings' folder and the report can be written: checked before the games, which they come after."""
    from duologue.data.outputs import output_problem, special_file_problem

    if out is not None and (problem := special_file_problem(out)) is not None:
        raise fail(f"--out {problem}", 1)
    if out is not None and out.exists() and not out.is_dir():
        raise fail(f"--out {out}: is a file; the tournament writes one .jsonl per pairing into a folder", 1)
    if out is not None and (problem := output_problem(out, folder=True)) is not None:
        raise fail(f"--out {problem}", 1)
    if report_path is not None:
        if report_path.suffix.lower() not in (".html", ".htm"):
            raise fail(f"--report {report_path}: the report is an .html file", 1)
        if (problem := output_problem(report_path)) is not None:
            raise fail(f"--report {problem}", 1)  # checked before the games, which the report would come after
        if _report_builder() is None:
            raise fail("--report needs duologue.analysis.report (the HTML report builder), which this installation does not have", 1)


def _task_options(task: str, max_turns: int | None) -> dict[str, Any]:
    """The task's options, tried on the task before any game (a bad option fails the first one otherwise)."""
    from duologue.tasks import make

    options: dict[str, Any] = {} if max_turns is None else {"max_turns": max_turns}
    try:
        make(task, **options)
    except (ValueError, TypeError) as error:
        raise fail(str(error), 1) from None
    return options


def _play(task: str, specs: list[str], play: dict[str, Any], *, total: int, already: int) -> Any:
    """Run the tournament with a progress bar; a failed backend, model endpoint or episode is a clean exit naming the pairing."""
    from duologue.arena.backends import BackendError, failed_episode
    from duologue.arena.tournament import pairings, run_tournament
    from duologue.llm.settings import LLMError

    out = play["out_dir"]
    count = len(pairings(specs))
    with Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=errors) as progress:
        bar = progress.add_task(f"{task}: {count} pairings", total=total, completed=already)
        current = ("", "")

        def starting(pair: tuple[str, str]) -> None:
            nonlocal current
            current = pair
            progress.update(bar, description=f"{task}: {pair[0]} vs {pair[1]}")

        kept = f"; finished episodes are kept in {out}, rerun to resume" if out else ""
        try:
            return run_tournament(task, specs, **play, on_episode=lambda _: progress.advance(bar), on_pairing=starting)
        except BackendError as error:
            raise fail(str(error), 1) from None
        except LLMError as error:
            raise fail(f"an agent's model endpoint failed: {error}" + kept, 1) from None
        except Exception as error:
            episode = failed_episode(error)
            if episode is None:
                raise
            raise fail(f"episode {episode} of {current[0]} vs {current[1]} failed: {type(error).__name__}: {error}" + kept, 1) from None


def _show(task: str, result: Any, output_format: str, *, caption: str) -> None:
    """The pairings and the leaderboards, as tables or as JSON on standard output."""
    from duologue.arena.ratings import leaderboard_table
    from duologue.arena.tournament import pairing_table

    if output_format == "json":
        sys.stdout.write(json.dumps(result.model_dump(mode="json"), indent=2) + "\n")
        return
    console.print(pairing_table(task, result.pairings, caption=caption))
    for board in result.leaderboards:
        if board.rows:
            console.print(leaderboard_table(board))
        else:
            console.print(f"[yellow]{board.task}: {board.note}[/]")


def _report_builder() -> Any:
    """The HTML report module when it is installed (another part of duologue), else None."""
    try:
        from duologue.analysis import report as builder
    except ImportError:  # the module, or matplotlib behind it, is missing
        return None
    return builder if hasattr(builder, "Report") else None


def _write_report(path: Path, result: Any) -> None:
    from duologue.arena.tournament import tournament_report

    tournament_report(result).write(path)

"""`duologue analyze dialogues|<corpus> PATH`: analyses as tables, JSON or an HTML report.

`dialogues` analyses any dialogues; `<corpus>` runs the analysis that a task's spec names for its
corpus (`TaskSpec.analysis`), found when the command is asked for.

Reading with a progress bar and clean failures come from `duologue.terminal`, shared by every
command module (`duologue.cli` imports this one to register `analyze_app`, never the reverse).
"""

from __future__ import annotations

import json
import sys
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Callable, Optional, Sequence

import typer
from rich.table import Table
from typer.core import TyperGroup

from duologue.analysis.tables import agreement_table, correlation_table, rating_means_table
from duologue.terminal import OWN, console, errors, fail, load

if TYPE_CHECKING:  # only for types: typer runs on its own copy of click, the `click` package may be absent
    from typer import _click as click

    from duologue.core.schema import Dialogue
    from duologue.core.spec import TaskSpec


class OutputFormat(str, Enum):
    table = "table"
    json = "json"


PathArg = Annotated[Path, typer.Argument(help="A file or a folder of the corpus's files.")]
ReportOption = Annotated[Optional[Path], typer.Option("--report", help="Write a self-contained HTML report with figures to this file.")]
FiguresOption = Annotated[Optional[Path], typer.Option("--figures", help="Also save each figure of the report as a PNG in this folder.")]
FormatOption = Annotated[OutputFormat, typer.Option("--format", help="table: readable tables; json: the whole analysis for machines.")]
BootstrapOption = Annotated[int, typer.Option(help="Bootstrap resamples for the 95% intervals (0: no intervals).", min=0)]
SeedOption = Annotated[int, typer.Option(help="Seed of the bootstrap, so figures are reproducible.")]
SkipOption = Annotated[bool, typer.Option(help="Analyse the valid records and count the rest.")]


def _split_by(by: str | None, default: Sequence[str]) -> list[str]:
    """The fields of `--by`, each once in the order given ("task,task" groups by task)."""
    if by is None:
        return list(default)
    return list(dict.fromkeys(part.strip() for part in by.split(",") if part.strip()))


def _check_report(report: Path | None) -> None:
    """Refuse a report path before the analysis it would come after."""
    from duologue.data.outputs import output_problem

    if report is not None and report.suffix.lower() not in (".html", ".htm"):
        raise fail(f"{report}: the report is an HTML file (give a name ending in .html)", code=1)
    if report is not None and (problem := output_problem(report)) is not None:
        raise fail(problem, code=1)


SkipAsideOption = Annotated[bool, typer.Option("--include-set-aside", help="Keep dialogues the platform set aside as too short to earn a code (left out by default).")]
EXPORT_MANIFEST = "manifest.json"
"""A platform export's manifest (`duologue.web.export`): its `set_aside` maps dialogue ids to reasons."""


def set_aside_ids(path: Path, dialogues: Sequence["Dialogue"]) -> set[str]:
    """Dialogues a platform export flagged as set aside: `meta.set_aside` in its jsonl, or the
    manifest of the export PATH lies in (native files carry no flag of their own)."""
    flagged = {d.id for d in dialogues if d.meta.get("set_aside")}
    folder = path if path.is_dir() else path.parent
    for candidate in [folder, *folder.parents][:4]:  # the export root is at most native/<corpus>/<setting>/ above a file
        manifest = candidate / EXPORT_MANIFEST
        if manifest.is_file():
            try:
                listed = json.loads(manifest.read_text(encoding="utf-8")).get("set_aside") or {}
            except (OSError, ValueError, AttributeError):
                break  # not an export's manifest
            flagged |= {str(key) for key in listed} if isinstance(listed, dict) else set()
            break
    return flagged


def _read(corpus: str, path: Path, skip_invalid: bool, include_set_aside: bool = False):
    """The dialogues of PATH (without those set aside, unless asked), or a clean exit (code 1) with the reason."""
    from duologue.data.io import list_files

    if not path.exists():
        raise fail(f"{path}: no such file or folder", code=1)
    if not list_files(path):
        raise fail(f"{path}: no .json, .jsonl or .parquet files found", code=1)
    result = load(corpus, path, skip_invalid=skip_invalid)
    if not result.dialogues:
        raise fail(f"{path}: no valid {corpus} dialogues to analyse", code=1)
    if result.invalid:
        errors.print(f"[yellow]{result.invalid} invalid record(s) left out[/]")
    aside = set() if include_set_aside else set_aside_ids(path, result.dialogues)
    kept = [d for d in result.dialogues if d.id not in aside]
    if len(kept) < len(result.dialogues):
        errors.print(f"[yellow]{len(result.dialogues) - len(kept)} set-aside dialogue(s) left out (too short to earn a code; --include-set-aside keeps them)[/]")
    if not kept:
        raise fail(f"{path}: every dialogue was set aside; --include-set-aside analyses them", code=1)
    return kept


def _analyse(label: str, run: Callable):
    try:
        with errors.status(f"{label}: computing statistics, correlations and agreement"):
            return run()
    except ValueError as error:
        raise fail(str(error), code=1) from None


def _emit(analysis, output: OutputFormat, tables: Callable[[], list[Table]]) -> None:
    if output is OutputFormat.json:
        sys.stdout.write(analysis.model_dump_json(indent=2) + "\n")
        return
    for table in tables():
        console.print(table)


def _write_report(build: Callable, report: Path | None, figures: Path | None) -> None:
    if report is None and figures is None:
        return

    with errors.status("drawing the report's figures"):  # its path was checked before the analysis (`_check_report`)
        built = build()
    try:
        if report is not None:
            built.write(report)
            errors.print(f"[green]wrote {report} ({len(built.figures)} figures)[/]")
        if figures is not None:
            written = built.save_figures(figures)
            errors.print(f"[green]wrote {len(written)} figure(s) to {figures}[/]")
    except OSError as error:
        raise fail(f"cannot write the report: {error}", code=1) from None


# --------------------------------------------------------------------------- commands


class _WithTaskAnalyses(TyperGroup):
    """`analyze`'s commands: its own (`dialogues`) plus one per corpus whose task's spec names an analysis.

    The task commands are made when asked for, from the specs (plug-in tasks included), so no
    task is named here and listing the commands is the only thing that imports every task.
    """

    def list_commands(self, ctx: click.Context) -> list[str]:
        return [*super().list_commands(ctx), *sorted(analysed_corpora())]

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        found = super().get_command(ctx, cmd_name)
        if found is not None:
            return found
        spec = analysis_spec(cmd_name)
        return None if spec is None else _task_command(spec)


def analysed_corpora() -> dict[str, "TaskSpec"]:
    """Corpus name -> the first registered spec with that corpus and an analysis."""
    from duologue.tasks import specs

    found: dict[str, TaskSpec] = {}
    for spec in specs():
        if spec.corpus and spec.analysis and spec.corpus not in found:
            found[spec.corpus] = spec
    return found


def analysis_spec(corpus: str) -> "TaskSpec | None":
    return analysed_corpora().get(corpus)


def _task_command(spec: "TaskSpec") -> click.Command:
    """`duologue analyze <corpus> PATH`, running the analysis that `spec.analysis` names."""
    from duologue.tasks import load_class

    corpus = spec.corpus or ""
    try:
        analyze = load_class(spec.analysis)
        broken = None
    except (ImportError, AttributeError) as error:  # a plug-in's analysis that does not load: this command says so, the others work
        analyze, broken = None, f"the analysis of {spec.id} ({spec.analysis}) cannot be loaded: {type(error).__name__}: {error}"
    summary = broken or (analyze.__doc__ or f"The {spec.title} corpus's own analysis.").strip().split("\n\n")[0]

    def command(
        path: PathArg,
        report: ReportOption = None,
        output: FormatOption = OutputFormat.table,
        by: Annotated[Optional[str], typer.Option(help="Also correlate within each value of these fields (comma-separated); default: the task's own choice, '' for none.")] = None,
        figures: FiguresOption = None,
        bootstrap: BootstrapOption = 2000,
        seed: SeedOption = 0,
        skip_invalid: SkipOption = False,
        include_set_aside: SkipAsideOption = False,
    ) -> None:
        from duologue.data.stats import stats_tables
        from duologue.arena.quality import add_quality, quality_of, quality_tables

        if broken is not None:
            raise fail(broken)
        _check_report(report)
        dialogues = _read(corpus, path, skip_invalid, include_set_aside)
        grouping = None if by is None else _split_by(by, [])
        analysis = _analyse(corpus, lambda: analyze(dialogues, by=grouping, bootstrap=bootstrap, seed=seed))
        quality = quality_of(dialogues, seed=seed)
        _emit(analysis, output, lambda: [*stats_tables(analysis.stats), *analysis.tables(), *quality_tables(quality)])
        _write_report(lambda: add_quality(analysis.report(dialogues, source=str(path)), quality), report, figures)

    command.__doc__ = summary
    single = typer.Typer(add_completion=False)
    single.command(corpus)(command)
    return typer.main.get_command(single)


analyze_app = typer.Typer(cls=_WithTaskAnalyses, help="Analyse dialogues: ratings, agreement, correlations, reports.", no_args_is_help=True)


@analyze_app.command("dialogues")
def dialogues_command(
    path: PathArg,
    report: ReportOption = None,
    output: FormatOption = OutputFormat.table,
    by: Annotated[Optional[str], typer.Option(help="Group by these fields (comma-separated): task, split, language, setting, style, model, agents. Default: task, plus agents for self-play.")] = None,
    corpus: Annotated[Optional[str], typer.Option(help="Format of PATH: duologue (default; `duologue play --out`, platform exports) or a corpus name.")] = None,
    figures: FiguresOption = None,
    bootstrap: BootstrapOption = 2000,
    seed: SeedOption = 0,
    skip_invalid: SkipOption = False,
    include_set_aside: SkipAsideOption = False,
) -> None:
    """Any dialogues (self-play, platform exports, corpora): statistics, ratings, agreement, ratings vs outcomes."""
    from duologue.data.stats import stats_tables
    from duologue.analysis.analyses import analyze_dialogues, dialogues_report
    from duologue.arena.quality import add_quality, quality_of, quality_tables

    _check_report(report)
    dialogues = _read(corpus or OWN, path, skip_invalid, include_set_aside)
    grouping = _split_by(by, []) if by is not None else None
    analysis = _analyse("dialogues", lambda: analyze_dialogues(dialogues, by=grouping, bootstrap=bootstrap, seed=seed))
    quality = quality_of(dialogues, seed=seed)

    def tables() -> list[Table]:
        found = [*stats_tables(analysis.stats)]
        if analysis.rating_means:
            found.append(rating_means_table(analysis.rating_means))
        if analysis.agreement:
            found.append(agreement_table(analysis.agreement))
        if analysis.party_correlations:
            found.append(correlation_table("Per party: own ratings and outcome (Spearman)", analysis.party_correlations))
        if analysis.dialogue_correlations:
            found.append(correlation_table("Per dialogue: ratings and outcome (Spearman)", analysis.dialogue_correlations))
        return [*found, *quality_tables(quality)]

    _emit(analysis, output, tables)
    _write_report(lambda: add_quality(dialogues_report(analysis, dialogues, source=str(path)), quality), report, figures)

"""`duologue analyze duo|casino|dialogues PATH`: corpus analyses as tables, JSON or an HTML report.

The helpers of `duologue.cli` (reading with a progress bar, clean failures) are imported inside
the commands: `duologue.cli` imports this module to register `analyze_app`, so a module-level
import back would be circular.
"""

from __future__ import annotations

import sys
from enum import Enum
from pathlib import Path
from typing import Annotated, Callable, Optional, Sequence

import typer
from rich.table import Table

analyze_app = typer.Typer(help="Analyse dialogues: ratings, agreement, correlations, reports.", no_args_is_help=True)


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
    if by is None:
        return list(default)
    return [part.strip() for part in by.split(",") if part.strip()]


def _read(corpus: str, path: Path, skip_invalid: bool):
    """The dialogues of PATH, or a clean exit (code 1) with the reason."""
    from duologue.cli import fail, load
    from duologue.data.io import list_files

    if not path.exists():
        raise fail(f"{path}: no such file or folder", code=1)
    if not list_files(path):
        raise fail(f"{path}: no .json, .jsonl or .parquet files found", code=1)
    result = load(corpus, path, skip_invalid=skip_invalid)
    if not result.dialogues:
        raise fail(f"{path}: no valid {corpus} dialogues to analyse", code=1)
    if result.invalid:
        from duologue.cli import errors

        errors.print(f"[yellow]{result.invalid} invalid record(s) left out[/]")
    return result.dialogues


def _analyse(label: str, run: Callable):
    from duologue.cli import errors, fail

    try:
        with errors.status(f"{label}: computing statistics, correlations and agreement"):
            return run()
    except ValueError as error:
        raise fail(str(error), code=1) from None


def _emit(analysis, output: OutputFormat, tables: Callable[[], list[Table]]) -> None:
    from duologue.cli import console

    if output is OutputFormat.json:
        sys.stdout.write(analysis.model_dump_json(indent=2) + "\n")
        return
    for table in tables():
        console.print(table)


def _write_report(build: Callable, report: Path | None, figures: Path | None) -> None:
    if report is None and figures is None:
        return
    from duologue.cli import errors, fail

    if report is not None and report.suffix.lower() not in (".html", ".htm"):
        raise fail(f"{report}: the report is an HTML file (give a name ending in .html)", code=1)
    with errors.status("drawing the report's figures"):
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


# --------------------------------------------------------------------------- tables


def _number(value: float | None, digits: int = 3) -> str:
    return "–" if value is None or value != value else f"{value:.{digits}f}"


def _interval(low: float | None, high: float | None) -> str:
    if low is None or high is None or low != low or high != high:
        return "–"
    return f"{low:.2f} – {high:.2f}"


def _group(group: dict[str, str]) -> str:
    return ", ".join(group.values()) if group else "all"


def _name(column: str) -> str:
    kind, _, criterion = column.partition(":")
    if not criterion:
        return column.replace("_", " ")
    return f"{'user' if kind == 'party' else kind.replace('_', '-')} {criterion.replace('_', ' ')}"


def correlation_table(title: str, found) -> Table:
    table = Table(title=title, title_justify="left")
    for column in ("group", "x", "y", "n", "r", "95% interval", "p"):
        table.add_column(column, justify="right" if column in ("n", "r", "p") else "left", no_wrap=column in ("r", "p", "n"))
    for c in found:
        table.add_row(_group(c.group), _name(c.x), _name(c.y), str(c.n), _number(c.r), _interval(c.low, c.high), _number(c.p, 4))
    return table


def rating_means_table(means) -> Table:
    table = Table(title="Rating means (mean ± sample sd; third-party ratings averaged per dialogue first)", title_justify="left")
    for column in ("group", "rater", "criterion", "n", "mean ± sd"):
        table.add_column(column, justify="right" if column in ("n", "mean ± sd") else "left")
    for m in means:
        spread = f"{m.mean:.2f} ± {m.sd:.2f}" if m.sd is not None else f"{m.mean:.2f}"
        table.add_row(_group(m.group), "user" if m.rater_kind == "party" else m.rater_kind.replace("_", "-"), m.criterion.replace("_", " "), str(m.n), spread)
    return table


def agreement_table(agreement) -> Table:
    table = Table(title="Agreement of third-party raters", title_justify="left")
    for column in ("group", "criterion", "measure", "value", "95% interval", "items", "raters"):
        table.add_column(column, justify="right" if column in ("value", "items", "raters") else "left")
    for a in agreement:
        measure = f"{a.measure} ({a.level})" if a.level else a.measure
        table.add_row(_group(a.group), a.criterion.replace("_", " "), measure, _number(a.value), _interval(a.low, a.high), str(a.items), str(a.raters))
    return table


# --------------------------------------------------------------------------- commands


@analyze_app.command("duo")
def duo(
    path: PathArg,
    report: ReportOption = None,
    output: FormatOption = OutputFormat.table,
    by: Annotated[Optional[str], typer.Option(help="Also correlate within each value of these fields (comma-separated), besides language and setting.")] = None,
    figures: FiguresOption = None,
    bootstrap: BootstrapOption = 2000,
    seed: SeedOption = 0,
    skip_invalid: SkipOption = False,
) -> None:
    """DUO: statistics, rating means, user vs third-party similarity and preference, rater agreement."""
    from duologue.data.stats import stats_tables
    from duologue.evaluation.analyses import DUO_SPLITS, analyze_duo, duo_report

    dialogues = _read("duo", path, skip_invalid)
    splits = _split_by(by, DUO_SPLITS)
    analysis = _analyse("duo", lambda: analyze_duo(dialogues, splits=splits, bootstrap=bootstrap, seed=seed))
    _emit(
        analysis,
        output,
        lambda: [
            *stats_tables(analysis.stats),
            rating_means_table(analysis.rating_means),
            correlation_table("Spearman correlations: similarity and preference", analysis.correlations),
            agreement_table(analysis.agreement),
        ],
    )
    _write_report(lambda: duo_report(analysis, dialogues, source=str(path)), report, figures)


@analyze_app.command("casino")
def casino(
    path: PathArg,
    report: ReportOption = None,
    output: FormatOption = OutputFormat.table,
    by: Annotated[Optional[str], typer.Option(help="Also correlate within each value of these fields (comma-separated), e.g. split.")] = None,
    figures: FiguresOption = None,
    bootstrap: BootstrapOption = 2000,
    seed: SeedOption = 0,
    skip_invalid: SkipOption = False,
) -> None:
    """CaSiNo: points, satisfaction and liking, their correlations, walk-aways and strategies vs outcome."""
    from duologue.data.stats import stats_tables
    from duologue.evaluation.analyses import analyze_casino, casino_report

    dialogues = _read("casino", path, skip_invalid)
    analysis = _analyse("casino", lambda: analyze_casino(dialogues, by=_split_by(by, []), bootstrap=bootstrap, seed=seed))
    _emit(analysis, output, lambda: [*stats_tables(analysis.stats), *_casino_tables(analysis)])
    _write_report(lambda: casino_report(analysis, dialogues, source=str(path)), report, figures)


def _casino_tables(analysis) -> list[Table]:
    summary = Table(title="Per participant", title_justify="left")
    for column in ("measure", "n", "mean", "sd"):
        summary.add_column(column, justify="left" if column == "measure" else "right")
    for name, s in (("points", analysis.points), ("satisfaction (1-5)", analysis.satisfaction), ("opponent liking (1-5)", analysis.liking)):
        summary.add_row(name, str(s.n), _number(s.mean, 2), _number(s.sd, 2))
    walk = analysis.walk_aways
    summary.caption = (
        f"walk-aways: {walk.walk_aways} of {walk.dialogues} dialogues ({_number(walk.rate, 3)}); satisfaction after a walk-away "
        f"{_number(walk.satisfaction_walked.mean, 2)} vs {_number(walk.satisfaction_agreed.mean, 2)} after a deal"
    )
    tables = [summary, correlation_table("Pearson correlations per participant", analysis.correlations)]
    if analysis.strategies:
        strategies = Table(title=f"Strategies ({analysis.annotated_dialogues} annotated dialogues, {analysis.annotated_utterances} utterances): use vs outcome (Pearson r per participant)", title_justify="left")
        strategies.add_column("strategy", no_wrap=True)
        for column in ("uses", "share", "r pts", "r sat", "r like", "r liked"):
            strategies.add_column(column, justify="right", no_wrap=True)
        strategies.caption = "r pts, r sat: own points and satisfaction; r like: the participant's liking of the partner; r liked: the partner's liking of the participant"
        for use in analysis.strategies:
            r = {c.y: c.r for c in use.correlations}
            strategies.add_row(use.strategy, str(use.utterances), _number(use.share, 2), *(_number(r.get(o), 2) for o in ("score", "satisfaction", "opponent_likeness", "liked_by_partner")))
        tables.append(strategies)
    return tables


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
) -> None:
    """Any dialogues (self-play, platform exports, corpora): statistics, ratings, agreement, ratings vs outcomes."""
    from duologue.cli import OWN
    from duologue.data.stats import stats_tables
    from duologue.evaluation.analyses import analyze_dialogues, dialogues_report

    dialogues = _read(corpus or OWN, path, skip_invalid)
    grouping = _split_by(by, []) if by is not None else None
    analysis = _analyse("dialogues", lambda: analyze_dialogues(dialogues, by=grouping, bootstrap=bootstrap, seed=seed))

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
        return found

    _emit(analysis, output, tables)
    _write_report(lambda: dialogues_report(analysis, dialogues, source=str(path)), report, figures)

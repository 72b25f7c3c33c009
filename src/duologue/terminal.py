"""How duologue's commands meet the terminal: the two consoles, `fail`, reading a corpus for a
command, and refusing an output before any work.

Every command module (`duologue.cli` and the commands that live with their layer: the arena's
tournaments and replays, the analyses, the judge, studies, training) imports these, so a user's
mistake reads the same everywhere: `error: ...` on standard error and a non-zero exit, never a
traceback. This module sits above the task registry (reading a corpus by name needs its formats)
and below every layer that has commands.
"""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator

import typer
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.table import Table

from duologue.core.terminal import CliConsole
from duologue.data.formats import Problem
from duologue.data.io import NATIVE_SUFFIXES, CorpusPathError, CorpusReadError, ReadResult, list_files, read_corpus, read_dialogues, validate_corpus
from duologue.tasks import UnknownNameError, corpus_format

console = CliConsole()
errors = CliConsole(stderr=True, soft_wrap=True)

OWN = "duologue"
"""Corpus name for files in duologue's own schema (jsonl / parquet written by duologue)."""

def fail(message: str, code: int = 2) -> typer.Exit:
    """Say `error: MESSAGE` on standard error; the exit to raise (`raise fail(...)`), code 2 unless given."""
    errors.print(f"[bold red]error:[/] {escape(message)}", highlight=False)  # a server's or a plug-in's words may hold [brackets]
    return typer.Exit(code)


@contextmanager
def reading(label: str) -> Iterator[Callable[..., None]]:
    """A progress display for reading records; yields a callback that counts one record."""
    with Progress(
        SpinnerColumn(),
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=errors,
        transient=True,
    ) as progress:
        task = progress.add_task(label, total=None)
        yield lambda n=1: progress.advance(task, n)


def unreadable_files(result: ReadResult) -> list[Problem]:
    """The problems of files that could not be read at all (no record to name)."""
    return [p for p in result.problems if p.record is None and p.file is not None]


def load(corpus: str, path: Path, *, skip_invalid: bool, check_only: bool = False) -> ReadResult:
    """Read a corpus for a command, turning every input mistake into a clean exit.

    `check_only`: problems and counts without building dialogues (native corpora; what validating needs).
    """
    if not path.exists():
        raise fail(f"{path}: no such file or folder")
    try:
        fmt = None if corpus == OWN else corpus_format(corpus)
    except UnknownNameError as error:
        raise fail(str(error)) from None
    try:
        if not list_files(path, fmt=fmt):
            suffixes = NATIVE_SUFFIXES + (fmt.suffixes if fmt is not None else ())
            raise fail(f"{path}: no {', '.join(suffixes[:-1])} or {suffixes[-1]} files found")
    except (CorpusPathError, OSError) as error:
        raise fail(str(error)) from None
    try:
        with reading(f"reading {path.name}") as advance:
            if fmt is None:
                result = read_dialogues(path, skip_invalid=skip_invalid)
            elif check_only:
                return validate_corpus(fmt, path, progress=advance)
            else:
                result = read_corpus(fmt, path, skip_invalid=skip_invalid, progress=advance)
        for problem in unreadable_files(result):  # a whole file left out is said, not only counted
            errors.print(f"[yellow]left out {problem.file}: {problem.reason}[/]", highlight=False)
        return result
    except UnknownNameError as error:
        raise fail(str(error)) from None
    except CorpusReadError as error:
        show_problems(error.problems)
        errors.print(f"[red]{len(error.problems)} problem(s); nothing was read.[/] Use --skip-invalid to read the valid records and count the rest.")
        raise typer.Exit(1) from None


@contextmanager
def writing(out: Path) -> Iterator[None]:
    """Turn an output path that cannot be written (a folder in the way, a missing or read-only
    folder that cannot be made) into a clean error; missing parent folders are created."""
    try:
        yield
    except OSError as error:
        blocker = Path(error.filename) if error.filename else None
        in_the_way = next((p for p in out.parents if p.exists() and not p.is_dir()), None)
        if in_the_way is not None:
            raise fail(f"{out}: cannot write: {in_the_way} is a file, not a folder") from None
        raise fail(f"{out}: cannot write: {error.strerror or error}" + (f" ({blocker})" if blocker is not None and blocker != out else "")) from None


def refuse_output(out: Path | None, *, suffixes: tuple[str, ...] = (), folder: bool = False) -> None:
    """Fail now, before any work, when `out` could not be written (see `duologue.data.outputs`)."""
    from duologue.data.outputs import output_problem

    problem = None if out is None else output_problem(out, suffixes=suffixes, folder=folder)
    if problem is not None:
        raise fail(problem)


def refuse_special(out: Path) -> None:
    """Fail now when `out` is a device, FIFO or socket (an output whose kind, file or folder, the
    writer decides later is checked for that much before any work)."""
    from duologue.data.outputs import special_file_problem

    if (problem := special_file_problem(out)) is not None:
        raise fail(problem)


def show_problems(problems: list[Problem], limit: int = 50, *, title: str = "problem(s)") -> None:
    table = Table(title=f"{len(problems)} {title}", show_lines=False, title_justify="left")
    table.add_column("where", overflow="fold", ratio=2)
    table.add_column("record", overflow="fold", ratio=1)
    table.add_column("field", overflow="fold", ratio=2)
    table.add_column("problem", overflow="fold", ratio=3)
    for p in problems[:limit]:
        where = (p.file or "<input>") + ("" if p.line is None else f":{p.line}")
        table.add_row(where, p.record or "", p.path, p.reason)
    errors.print(table)
    if len(problems) > limit:
        errors.print(f"... and {len(problems) - limit} more (use --json for all)")


def looks_like_own_schema(path: Path) -> bool:
    """Whether PATH holds dialogues duologue wrote (its first record has `schema_version`)."""
    try:
        first = next(iter(list_files(path)), None)
    except FileNotFoundError:
        return False
    if first is None or first.suffix.lower() not in (".jsonl", ".parquet"):
        return False
    try:
        if first.suffix.lower() == ".parquet":
            import pyarrow.parquet as pq

            return "schema_version" in pq.read_schema(first).names
        with first.open("rb") as handle:
            return b'"schema_version"' in handle.readline()
    except Exception:  # noqa: BLE001  unreadable or corrupt: not ours to claim; reading it later reports why
        return False

"""The `duologue` command.

Every user mistake (a missing file, an unknown corpus name, a broken record) ends in a clear
message and a non-zero exit code, never a traceback.
"""

from __future__ import annotations

import json
import secrets
import sys
import traceback
from pathlib import Path
from typing import Annotated, Any, Optional

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from duologue.arena.specs import AGENT_LIST_COMMAND, AGENTS_FORMS, parse_task_options, split_agent_specs
from duologue.core.schema import dialogue_json_schema
from duologue.llm.settings import LLMConfigError, LLMError
from duologue.data.io import CorpusReadError, dump_dialogue, to_hf_dataset, write_dialogues, write_native
from duologue.tasks import ANNOTATORS, CORPUS_FORMATS, LoadError, UnknownNameError, corpus_format, corpus_names
from duologue.terminal import OWN, console, errors, fail, load, looks_like_own_schema, refuse_output, refuse_special, show_problems, unreadable_files, writing

ANNOTATOR_NAMES = ", ".join(ANNOTATORS)

app = typer.Typer(help="duologue: two-party dialogue with a goal.", no_args_is_help=True, add_completion=False)
data_app = typer.Typer(help="Read, check, describe and convert dialogue corpora.", no_args_is_help=True)
app.add_typer(data_app, name="data")

CorpusArg = Annotated[str, typer.Argument(help=f"Corpus format: {', '.join([*CORPUS_FORMATS, OWN])}.")]
PathArg = Annotated[Path, typer.Argument(help="A file or a folder of .json / .jsonl / .parquet files.")]


@app.command()
def schema(out: Annotated[Optional[Path], typer.Option(help="Write to this file instead of standard output.")] = None) -> None:
    """Print the JSON Schema of a duologue Dialogue."""
    text = json.dumps(dialogue_json_schema(), indent=2)
    if out:
        refuse_output(out)
        out.write_text(text + "\n", encoding="utf-8")
        errors.print(f"wrote {out}")
    else:
        sys.stdout.write(text + "\n")


@data_app.command("corpora")
def corpora(as_json: Annotated[bool, typer.Option("--json", help="Print machine-readable JSON.")] = False) -> None:
    """List the corpus formats duologue reads and writes."""
    columns = ("name", "task", "layout", "description")
    rows: list[tuple[str, str, str, str]] = []
    for name in corpus_names():  # plug-ins loaded first, and a copy: loading one may add formats
        try:
            fmt = corpus_format(name)
        except LoadError as error:  # a broken plug-in is listed with its error, as `duologue tasks` does
            rows.append((name, f"cannot be loaded: {error}", "", ""))
            continue
        rows.append((name, fmt.task, fmt.layout, fmt.description))
    rows.append((OWN, "any", "jsonl / parquet", "duologue's own schema (`duologue schema`)"))
    if as_json:
        sys.stdout.write(json.dumps([dict(zip(columns, row, strict=True)) for row in rows], ensure_ascii=False, indent=2) + "\n")
        return
    table = Table(title="corpus formats")
    for column in columns:
        table.add_column(column)
    for row in rows:
        table.add_row(*(Text(cell, style="red" if cell.startswith("cannot be loaded: ") else "") for cell in row))
    console.print(table)


@data_app.command()
def validate(
    corpus: CorpusArg,
    path: PathArg,
    as_json: Annotated[bool, typer.Option("--json", help="Print problems as JSON lines (with their severity).")] = False,
    strict: Annotated[bool, typer.Option("--strict", help="Treat rule anomalies (warnings) as errors: exit 1 when there is any.")] = False,
) -> None:
    """Check every record: structure, types and the task's rules.

    Structural problems are errors (the record cannot be read: exit 1). Rule anomalies (an accept
    with no offer, an empty label...) are warnings: the record still loads, and the exit code is 0
    unless --strict.
    """
    result = load(corpus, path, skip_invalid=True, check_only=True)
    if as_json:
        for p in [*result.problems, *result.warnings]:
            line = {"file": p.file, "line": p.line, "record": p.record, "path": p.path, "reason": p.reason, "severity": p.severity, "code": p.code}
            sys.stdout.write(json.dumps(line, ensure_ascii=False) + "\n")
    else:
        if result.problems:
            show_problems(result.problems, title="error(s)")
        if result.warnings:
            show_problems(result.warnings, title="warning(s): rule anomalies, records still read")
    unread = len({p.file for p in unreadable_files(result)})
    summary = f"{result.files} file(s){f' read, {unread} could not be read' if unread else ''}, {result.records} record(s): {result.records - result.invalid} valid, {result.invalid} invalid"
    if result.flagged:
        summary += f", {result.flagged} with rule anomalies ({len(result.warnings)} warning(s))"
    if result.invalid or result.problems or (strict and result.warnings):
        errors.print(f"[red]{summary}[/]" + (" (--strict: warnings count as errors)" if strict and result.warnings and not result.problems else ""))
        raise typer.Exit(1)
    errors.print(f"[{'yellow' if result.warnings else 'green'}]{summary}[/]")


@data_app.command()
def stats(
    corpus: CorpusArg,
    path: PathArg,
    as_json: Annotated[bool, typer.Option("--json", help="Print machine-readable JSON.")] = False,
    skip_invalid: Annotated[bool, typer.Option(help="Describe the valid records and count the rest.")] = False,
    skip_anomalous: Annotated[bool, typer.Option(help="Leave out dialogues with rule anomalies (warnings of `data validate`).")] = False,
) -> None:
    """Corpus statistics per split or setting: size, vocabulary, lengths, outcomes and ratings."""
    result = load(corpus, path, skip_invalid=skip_invalid)
    from duologue.data.stats import corpus_statistics, stats_tables

    group_of = (lambda d: d.split or "all") if corpus == OWN else corpus_format(corpus).group_of
    dialogues = [d for d in result.dialogues if not d.anomalies] if skip_anomalous else result.dialogues
    if skip_anomalous and len(dialogues) < len(result.dialogues):
        errors.print(f"[yellow]{len(result.dialogues) - len(dialogues)} dialogue(s) with rule anomalies left out[/]")
    statistics = corpus_statistics(dialogues, group_of)
    if as_json:
        sys.stdout.write(statistics.model_dump_json(indent=2) + "\n")
    else:
        for table in stats_tables(statistics):
            console.print(table)
    if result.invalid:
        errors.print(f"[yellow]{result.invalid} invalid record(s) left out[/]")


@data_app.command()
def convert(
    corpus: CorpusArg,
    path: PathArg,
    out: Annotated[Path, typer.Option("--out", "-o", help="Output file (.jsonl/.parquet for duologue's schema; .json, or the corpus's own kind of file such as .txt, for a native corpus) or folder.")],
    to: Annotated[str, typer.Option(help=f"Output format: {OWN} (default) or a corpus name to write its native format.")] = OWN,
    skip_invalid: Annotated[bool, typer.Option(help="Convert the valid records and count the rest.")] = False,
) -> None:
    """Convert between a corpus's native format and duologue's schema (either way)."""
    fmt = None
    if to != OWN:
        try:  # before reading: loading the format registers its task's own event kinds, which reading needs
            fmt = corpus_format(to)
        except UnknownNameError as error:
            raise fail(str(error)) from None
    refuse_special(out)
    result = load(corpus, path, skip_invalid=skip_invalid)
    if fmt is None:
        if out.suffix.lower() not in (".jsonl", ".parquet"):
            raise fail(f"{out}: duologue's schema is written to a .jsonl or .parquet file")
        with writing(out):
            write_dialogues(result.dialogues, out)
        written = [out]
    else:
        wrong = [d.id for d in result.dialogues if d.task != fmt.task]
        if wrong:
            raise fail(f"{len(wrong)} dialogue(s) are not {fmt.task} dialogues (first: {wrong[0]}); the {to} format cannot hold them")
        with writing(out):
            written = write_native(fmt, result.dialogues, out)
    errors.print(f"[green]wrote {len(result.dialogues)} dialogue(s) to {written[0] if len(written) == 1 else out}[/]" + (f" ({result.invalid} invalid left out)" if result.invalid else ""))


@data_app.command("export-hf")
def export_hf(
    corpus: CorpusArg,
    path: PathArg,
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder for `datasets.Dataset.save_to_disk`.")],
    skip_invalid: Annotated[bool, typer.Option(help="Export the valid records and count the rest.")] = False,
) -> None:
    """Export dialogues as a Hugging Face dataset saved to disk."""
    refuse_special(out)
    result = load(corpus, path, skip_invalid=skip_invalid)
    try:
        dataset = to_hf_dataset(result.dialogues)
    except RuntimeError as error:
        raise fail(str(error)) from None
    with writing(out):
        dataset.save_to_disk(str(out))
    errors.print(f"[green]saved {len(dataset)} dialogue(s) to {out}[/]")


@app.command("tasks")
def list_tasks(as_json: Annotated[bool, typer.Option("--json", help="Print machine-readable JSON.")] = False) -> None:
    """List the registered tasks and the agents each can use."""
    from duologue.agents import agent_kinds
    from duologue.tasks import make, spec as spec_of, task_ids

    columns = ("id", "title", "kind", "parties", "corpus", "agents")
    rows: list[dict[str, Any]] = []
    for task_id in task_ids():
        try:
            spec = spec_of(task_id)
            task = make(task_id)
        except Exception as error:  # noqa: BLE001 - a broken plug-in is listed with its error, not fatal
            rows.append({"id": task_id, "error": f"cannot be loaded: {error}"})
            continue
        parties = " / ".join(f"{p} ({r})" for p, r in zip(spec.parties, spec.roles, strict=True)) if len(spec.roles) == 2 else " / ".join(spec.parties)
        rows.append(dict(zip(columns, (task_id, spec.title, spec.kind, parties, spec.corpus or "", ", ".join(agent_kinds(task))), strict=True)))
    if as_json:
        sys.stdout.write(json.dumps(rows, ensure_ascii=False, indent=2) + "\n")
        return
    table = Table(title="tasks")
    for column in columns:
        table.add_column(column)
    for row in rows:
        if "error" in row:
            table.add_row(Text(row["id"]), Text(row["error"], style="red"), "", "", "", "")
        else:
            table.add_row(*(Text(row[c]) for c in columns))  # a plug-in's words shown as written, never read as markup
    console.print(table)


@app.command(context_settings=AGENT_LIST_COMMAND)
def play(
    ctx: typer.Context,
    task: Annotated[str, typer.Option("--task", "-t", help="Task id (see `duologue tasks`).")],
    agents: Annotated[list[str], typer.Option("--agents", "-a", help=f"Two agent specs in the task's party order (one: it plays both), {AGENTS_FORMS}.")],
    episodes: Annotated[int, typer.Option("-n", "--episodes", min=1, help="Number of episodes.")] = 100,
    seed: Annotated[int, typer.Option(help="Run seed; each episode's seed derives from it.")] = 0,
    workers: Annotated[int, typer.Option(min=1, help="Processes playing in parallel.")] = 1,
    out: Annotated[Optional[Path], typer.Option("--out", "-o", help="Append episodes to this .jsonl as they finish; a rerun resumes.")] = None,
    max_turns: Annotated[Optional[int], typer.Option(help="Truncate episodes after this many moves.")] = None,
    backend: Annotated[str, typer.Option(help="Where episodes run: local (processes on this machine) or ray (a Ray instance or cluster).")] = "local",
    address: Annotated[Optional[str], typer.Option(help="With --backend ray: an existing cluster, `auto`, `host:port` or `ray://host:port` (default: RAY_ADDRESS, else a local Ray instance with --workers CPUs).")] = None,
    option: Annotated[Optional[list[str]], typer.Option("--option", "-O", help="A task option as name=value (repeatable), e.g. -O max_turns=30 (a wrong name lists the ones the task takes).")] = None,
) -> None:
    """Self-play: run agents against each other for many seeded episodes."""
    from duologue.agents import check_agent
    from duologue.arena.backends import BACKENDS, BackendError, failed_episode
    from duologue.arena.report import ReportBuilder, report_table
    from duologue.arena.selfplay import NotSelfPlayFile, PlayConfig, drop_partial_last_line, finished_episodes, run_lines, run_selfplay
    from duologue.tasks import make

    if backend not in BACKENDS:
        raise fail(f"--backend {backend!r}: choose one of {', '.join(BACKENDS)}")
    if address is not None and backend != "ray":
        raise fail("--address names a Ray cluster: use it with --backend ray")

    agents = split_agent_specs(agents, ctx.args)
    if len(agents) == 1:
        agents = agents * 2
    if len(agents) != 2:
        raise fail(f"give two agent specs (one per party), got {len(agents)}: {agents}")
    try:
        task_options = parse_task_options(option or [])
        if max_turns is not None:
            task_options["max_turns"] = max_turns
        for spec in agents:
            check_agent(spec, make(task, **task_options))
    except (UnknownNameError, LLMConfigError, ValueError, TypeError, OSError) as error:
        raise fail(str(error)) from None
    if out is not None and out.suffix.lower() != ".jsonl":
        raise fail(f"{out}: episodes are written to a .jsonl file")
    refuse_output(out)
    config = PlayConfig(task=task, agents=agents, episodes=episodes, seed=seed, options=task_options)
    try:
        already = len(finished_episodes(out, config)) if out is not None else 0
    except (NotSelfPlayFile, OSError) as error:
        raise fail(str(error)) from None
    earlier = 0  # bytes of `out` written before this run: its episodes of this run are reported too
    if out is not None and out.exists():
        drop_partial_last_line(out)
        earlier = out.stat().st_size
    builder = ReportBuilder()  # each episode is reported as it streams in, never kept
    with Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=errors) as progress:
        bar = progress.add_task(f"{task}: {agents[0]} vs {agents[1]}", total=episodes, completed=already)
        kept = f"; finished episodes are kept in {out}, rerun to resume" if out else ""
        try:
            for line in run_selfplay(config, workers=workers, out=out, on_episode=lambda _: progress.advance(bar), backend=backend, address=address):
                builder.add_line(line)
        except BackendError as error:
            raise fail(str(error), code=1) from None
        except LLMError as error:
            raise fail(f"an agent's model endpoint failed: {error}" + kept) from None
        except Exception as error:
            episode = failed_episode(error)
            if episode is None:
                raise
            raise fail(f"episode {episode} failed: {type(error).__name__}: {error}" + kept, code=1) from None
    if already:
        errors.print(f"resumed: {already} episode(s) were already in {out}")
    if earlier and out is not None:
        for line in run_lines(out, config, before=earlier):
            builder.add_line(line)
    for group in builder.reports():
        console.print(report_table(group))


@app.command()
def chat(
    task: Annotated[str, typer.Option("--task", "-t", help="Task id (see `duologue tasks`).")],
    vs: Annotated[str, typer.Option(help="The one bot you play against (an agent spec, as in play's --agents).")] = "rule",
    as_party: Annotated[Optional[str], typer.Option("--as", help="Which party you play (default: the first).")] = None,
    seed: Annotated[Optional[int], typer.Option(help="Scenario seed (default: a new one).")] = None,
    out: Annotated[Optional[Path], typer.Option("--out", "-o", help="Append the finished dialogue to this .jsonl.")] = None,
    option: Annotated[Optional[list[str]], typer.Option("--option", "-O", help="A task option as name=value (repeatable), e.g. -O max_turns=30.")] = None,
) -> None:
    """Play a task in the terminal against a bot."""
    from duologue.agents import check_agent, make_agent
    from duologue.agents.human import LeftGame, TerminalAgent, outcome_line, partner_label
    from duologue.core.episode import play_episode
    from duologue.tasks import make

    bots = split_agent_specs([vs])
    if len(bots) != 1:
        raise fail(f"--vs {vs!r}: you play against one bot; give one agent spec")
    refuse_output(out, suffixes=(".jsonl",))  # before the game: a game played is not lost to a bad path
    try:
        options = parse_task_options(option or [])
        game = make(task, **options)
        check_agent(bots[0], make(task, **options))
        bot = make_agent(bots[0], game)
    except (UnknownNameError, LLMConfigError, ValueError, TypeError, OSError) as error:
        raise fail(str(error)) from None
    me = as_party or game.party_ids[0]
    if me not in game.party_ids:
        raise fail(f"--as {me!r}: {task} has parties {', '.join(game.party_ids)}")
    person = TerminalAgent(console=console)
    agents = {me: person, game.other(me): bot}
    try:
        try:
            dialogue = play_episode(game, agents, seed=seed if seed is not None else secrets.randbits(32), max_attempts={me: 1000})  # the bot: the usual few
        except LeftGame:
            console.print("[yellow]you left the game[/]")
            game.end("disconnect")
            dialogue = game.to_dialogue()  # judged: a task's own fault here is caught below too
    except (EOFError, KeyboardInterrupt):
        console.print("\n[yellow]left the game[/]")
        raise typer.Exit(130) from None
    except LLMError as error:
        raise fail(f"the bot's model endpoint failed: {error}" + _keep_game(game, out)) from None
    except Exception as error:  # noqa: BLE001 - a fault in the task's or the bot's own code ends the game with its name, not a trace
        where = traceback.extract_tb(error.__traceback__)[-1]
        raise fail(f"the game stopped: {type(error).__name__}: {error} (at {Path(where.filename).name}:{where.lineno})" + _keep_game(game, out), code=1) from None
    person.show_new_events(game.observe(me))
    outcome = dialogue.outcome
    if outcome is not None:
        console.rule("the end")
        console.print(f"outcome: {escape(outcome_line(outcome, me, partner_label(game, me)))}")
    if out is not None:
        with out.open("ab") as handle:
            handle.write(dump_dialogue(dialogue) + b"\n")


def _keep_game(game: Any, out: Path | None) -> str:
    """Append a game that stopped early to `out`, without an outcome (none could be given); what to tell the person."""
    if out is None:
        return ""
    with out.open("ab") as handle:
        handle.write(dump_dialogue(game.to_dialogue(with_outcome=False)) + b"\n")
    return f"; the game so far is in {out}"


@app.command()
def annotate(
    name: Annotated[str, typer.Argument(help=f"Annotator name: {ANNOTATOR_NAMES}.")],
    path: PathArg,
    out: Annotated[Optional[Path], typer.Option("--out", "-o", help="Write the annotated dialogues here (.jsonl or .parquet, duologue's schema).")] = None,
    corpus: Annotated[Optional[str], typer.Option(help=f"Format of PATH: a corpus name or {OWN}; default: {OWN} for files duologue wrote, else the annotator's corpus.")] = None,
    evaluate: Annotated[bool, typer.Option("--evaluate", help="Score the annotator against the gold labels PATH carries.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the evaluation as JSON.")] = False,
    skip_invalid: Annotated[bool, typer.Option(help="Annotate the valid records and count the rest.")] = False,
) -> None:
    """Add an annotation layer to dialogues of any source, and optionally score it against gold labels."""
    from duologue.tasks import CORPUS_FORMATS, annotator as find_annotator

    try:
        tagger = find_annotator(name)
    except UnknownNameError as error:
        raise fail(str(error)) from None
    if out is None and not evaluate:
        raise fail("give --out to write the annotated dialogues, --evaluate to score them, or both")
    if out is not None and out.suffix.lower() not in (".jsonl", ".parquet"):
        raise fail(f"{out}: annotated dialogues are written to a .jsonl or .parquet file")
    refuse_output(out)
    fmt_name = corpus or (OWN if looks_like_own_schema(path) else next((c for c in CORPUS_FORMATS if corpus_format(c).task == tagger.task), OWN))
    result = load(fmt_name, path, skip_invalid=skip_invalid)
    dialogues = [d for d in result.dialogues if d.task == tagger.task]
    if not dialogues:
        raise fail(f"no {tagger.task} dialogues in {path}; the {name} annotator labels {tagger.task} dialogues")
    if evaluate:
        evaluation = tagger.evaluate(dialogues)
        if evaluation is None:
            errors.print(f"[yellow]{path} carries no gold {tagger.layer} labels to score against[/]")
        elif as_json:
            sys.stdout.write(evaluation.model_dump_json(indent=2) + "\n")
        else:
            for table in evaluation_tables(evaluation):
                console.print(table)
            for note in evaluation.notes:
                console.print(note)
    if out is not None:
        annotated = []
        with Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=errors, transient=True) as progress:
            bar = progress.add_task(f"{name}: annotating", total=len(dialogues))
            for dialogue in tagger.annotate_all(dialogues):
                annotated.append(dialogue)
                progress.advance(bar)
        write_dialogues(annotated, out)
        added = sum(1 for d in annotated for a in d.annotations if a.source == tagger.source)
        errors.print(f"[green]wrote {len(annotated)} dialogue(s) with {added} {tagger.layer} annotation(s) to {out}[/]")


def evaluation_tables(evaluation) -> list[Table]:
    """An evaluation as tables: headline figures, per-label scores, and the confusion matrix."""
    head = Table(title=f"{evaluation.annotator}: {evaluation.items} item(s) compared with gold labels", title_justify="left")
    head.add_column("metric")
    head.add_column("value", justify="right")
    for metric, value in evaluation.metrics.items():
        head.add_row(metric, f"{value:.3f}")
    tables = [head]
    if evaluation.per_label:
        per = Table(title="per label", title_justify="left")
        for column in ("label", "precision", "recall", "F1", "support"):
            per.add_column(column, justify="left" if column == "label" else "right")
        for label, score in evaluation.per_label.items():
            per.add_row(label, f"{score.precision:.3f}", f"{score.recall:.3f}", f"{score.f1:.3f}", str(score.support))
        tables.append(per)
    if evaluation.confusion:
        labels = sorted({*evaluation.confusion, *(p for row in evaluation.confusion.values() for p in row)})
        matrix = Table(title="confusion (rows: gold, columns: predicted)", title_justify="left")
        matrix.add_column("gold")
        for label in labels:
            matrix.add_column(label[:8], justify="right")
        for gold in labels:
            row = evaluation.confusion.get(gold, {})
            matrix.add_row(gold, *(str(row.get(p, "")) for p in labels))
        tables.append(matrix)
    return tables


@app.command("report")
def report_command(
    path: PathArg,
    as_json: Annotated[bool, typer.Option("--json", help="Print machine-readable JSON.")] = False,
    ratings: Annotated[bool, typer.Option("--ratings", help="Also rate the agents (Bradley-Terry and Elo with 95% intervals, per task and role).")] = False,
    corpus: Annotated[Optional[str], typer.Option("--corpus", help=f"Read PATH (or, with --people, the people's files) as people's dialogues of this corpus format: {', '.join(CORPUS_FORMATS)}.")] = None,
    people: Annotated[Optional[list[Path]], typer.Option("--people", help="People's dialogues of a corpus (format by --corpus), reported beside the bots' of PATH (repeatable).")] = None,
    html: Annotated[Optional[Path], typer.Option("--html", help="Also write an HTML report (.html) with the utility-space figure of every task that declares values.")] = None,
) -> None:
    """Task metrics with 95% bootstrap intervals for self-play output (`duologue play --out`) and, for
    tasks that declare values, outcome quality (Pareto share, distance to the frontier, surplus)
    beside people's from a corpus (`--people FILE --corpus NAME`, or PATH itself with `--corpus`)."""
    from duologue.arena.ratings import leaderboard_table, ratings_from_dialogues
    from duologue.arena.report import report, report_table
    from duologue.arena.quality import quality_groups

    if people and corpus is None:
        raise fail(f"--people needs --corpus: the format of the people's files (one of {', '.join(corpus_names())})")
    if html is not None:
        refuse_output(html, suffixes=(".html",))
    bots_path = path if corpus is None or people else None
    people_paths = list(people or []) if people else ([path] if corpus is not None else [])
    bots = _read_report_input(OWN, bots_path) if bots_path is not None else []
    humans = [d for found in people_paths for d in _read_report_input(str(corpus), found)]
    try:
        groups = report(bots) if bots else []
        boards = ratings_from_dialogues(bots) if ratings and bots else []
        quality = quality_groups(bots, humans)
    except (ValueError, UnknownNameError) as error:
        raise fail(str(error)) from None
    if as_json:
        payload: object = [g.model_dump() for g in groups]
        if ratings or humans:  # self-play alone keeps its list (its metrics already hold the outcome figures)
            payload = {"metrics": payload, **({"ratings": [b.model_dump() for b in boards]} if ratings else {})}
            if humans:
                payload["outcome_quality"] = {task_id: [g.model_dump() for g in found] for task_id, (_, found, _) in quality.items()}  # type: ignore[index]
        sys.stdout.write(json.dumps(payload, indent=2) + "\n")
    else:
        for group in groups:
            console.print(report_table(group))
        for board in boards:
            console.print(leaderboard_table(board))
        _print_quality(quality)
    if html is not None:
        _write_quality_report(html, quality)


def _read_report_input(corpus: str, path: Path) -> list:
    """The dialogues of one input of `report`, saying what was left out; a clean exit when there are none."""
    result = load(corpus, path, skip_invalid=True)
    records_left_out = len({(p.file, p.record) for p in result.problems if p.record is not None})  # malformed lines too
    files_left_out = sum(1 for p in result.problems if p.record is None)
    left_out = f"{records_left_out} record(s) left out" + (f", {files_left_out} file(s) unreadable" if files_left_out else "")
    if not result.dialogues:
        if result.problems:
            show_problems(result.problems, limit=10)
        what = "in duologue's schema (the output of `duologue play --out`)" if corpus == OWN else f"of the {corpus} corpus"
        raise fail(f"{path}: no readable dialogues {what}; {left_out}", code=1)
    if result.problems:
        errors.print(f"[yellow]{path}: {left_out} as unreadable; {len(result.dialogues)} dialogue(s) reported[/]")
    return result.dialogues


def _print_quality(quality: dict[str, Any]) -> None:
    from duologue.arena.quality import quality_tables

    for table in quality_tables(quality):
        console.print(table)


def _write_quality_report(out: Path, quality: dict[str, Any]) -> None:
    from duologue.analysis.report import Report
    from duologue.arena.quality import add_quality

    document = Report("Outcome quality", subtitle="Pareto share, distance to the frontier and surplus over walking away, people's beside the bots'")
    add_quality(document, quality)
    if not quality:
        document.section("No task with values").text("None of these dialogues is of a task that declares values (Task.values).")
    with writing(out):
        document.write(out)
    errors.print(f"wrote {out}")


from duologue.llm.cli import llm_app  # noqa: E402  (the `duologue llm` commands live with the LLM layer)

app.add_typer(llm_app, name="llm")

from duologue.evaluation.cli import analyze_app  # noqa: E402  (analysis commands live with the evaluation layer)
from duologue.evaluation.judge_cli import judge_command  # noqa: E402
from duologue.arena.cli import tournament_command  # noqa: E402  (tournaments live with the arena)

app.add_typer(analyze_app, name="analyze")
app.command("judge")(judge_command)
app.command("tournament", context_settings=AGENT_LIST_COMMAND)(tournament_command)
from duologue.arena.replay_cli import replay_command  # noqa: E402  (replays against people live with the arena)

app.command("replay")(replay_command)
from duologue.evaluation.bench_cli import bench_command  # noqa: E402  (the model benchmark lives with evaluation: it writes the leaderboard)

app.command("bench")(bench_command)
from duologue.web.study_cli import pilot_command, study_app  # noqa: E402  (crowd studies live with the platform)

app.add_typer(study_app, name="study")
app.command("pilot")(pilot_command)

WS_DEFLATE = False
"""Compress websocket frames? Chat frames are small deltas after the first state, so compressing
each costs the server CPU (a fifth of its send time under load) for little saved bandwidth."""

SLOW_HEADERS_BOUND = "duologue.web.slow_clients:HeaderDeadlineProtocol"
"""uvicorn's HTTP with a deadline for a request's headers (DUOLOGUE_HEADER_TIMEOUT_SECONDS), by name
so each worker process imports it; a deployment still puts a reverse proxy in front (README)."""


@app.command()
def serve(
    study: Annotated[Optional[Path], typer.Option(help="A study YAML file (see study.example.yaml). Default: one study per task with bots ready.")] = None,
    host: Annotated[str, typer.Option(help="Address to listen on (0.0.0.0 to let other machines in).")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on.")] = 8000,
    db: Annotated[Optional[str], typer.Option("--db", help="Database URL (default: sqlite:///duologue.db in this folder; postgresql+psycopg://... works the same).")] = None,
    workers: Annotated[int, typer.Option(min=1, help="Worker processes (more than 1 needs PostgreSQL and --redis).")] = 1,
    redis: Annotated[Optional[str], typer.Option("--redis", help="Redis URL (redis://host:6379/0): workers share dialogues and the lobby through it.")] = None,
) -> None:
    """Start the live platform: people play any task in their browser, against each other or a bot."""
    import os

    try:
        import uvicorn

        from duologue.web.app import create_app
        from duologue.web.settings import Settings
        from duologue.web.study import StudyError, load_studies
    except ImportError as error:
        raise fail(f"the platform needs the web extra: pip install 'duologue[web]' ({error.name} is missing)") from None
    overrides: dict = {}
    if db:
        overrides["database_url"] = db
    if study:
        overrides["study"] = study
    if redis:
        overrides["redis_url"] = redis
    settings = Settings(**overrides)
    if workers > 1 and (settings.database_url.startswith("sqlite") or not settings.redis_url):
        raise fail("--workers > 1 needs a database all workers share (--db postgresql+psycopg://...) and Redis (--redis redis://...); SQLite is for one process")
    try:
        studies = load_studies(settings.study) if settings.study else None
        web_app = create_app(settings, studies)
    except StudyError as error:
        raise fail(str(error)) from None
    except Exception as error:  # noqa: BLE001  a database URL that does not work, a driver that is missing
        raise fail(f"cannot start the platform: {error}") from None
    shown = "localhost" if host in ("127.0.0.1", "0.0.0.0", "::") else host
    base = f"http://{shown}:{port}"
    console.print(f"[bold]duologue[/] platform on [link={base}/]{base}/[/link]  (database: {settings.database_url})")
    console.print("people open (add ?participant=<their id>, or PROLIFIC_PID / workerId):")
    for item in web_app.state.platform.studies.values():
        console.print(f"  {item.task:<18} {base}/study/{item.id}", highlight=False, soft_wrap=True)
    console.print(f"raters: {base}/rate?rater=<their id>")
    console.print(f"admin:  {base}/admin?token={settings.admin_token}")
    if workers == 1 and not settings.redis_url:
        uvicorn.run(web_app, host=host, port=port, log_level="warning", ws_per_message_deflate=WS_DEFLATE, http=SLOW_HEADERS_BOUND)
        return
    web_app.state.platform.storage.close()
    # each worker process builds its own app from the environment: same database, Redis, secrets
    shared = {"database_url": settings.database_url, "redis_url": settings.redis_url, "admin_token": settings.admin_token, "secret": settings.secret}
    if settings.study:
        shared["study"] = str(settings.study)
    os.environ.update({f"DUOLOGUE_{name.upper()}": str(value) for name, value in shared.items() if value is not None})
    console.print(f"{workers} worker process(es) sharing Redis at {settings.redis_url}")
    uvicorn.run("duologue.web.app:create_app_from_env", factory=True, workers=workers, host=host, port=port, log_level="warning", ws_per_message_deflate=WS_DEFLATE, http=SLOW_HEADERS_BOUND)


train_app = typer.Typer(help="Train the models duologue ships (needs the `ml` extra).", no_args_is_help=True)
app.add_typer(train_app, name="train")

from duologue.learning.cli import train_policy_command  # noqa: E402  (strategy learning lives with duologue.learning)

train_app.command("policy")(train_policy_command)


def _train_annotator(name: str, data: Path | None, out: Path | None, seed: int) -> None:
    from duologue.modular.agent import data_root
    from duologue.tasks import annotator as find_annotator

    try:
        tagger = type(find_annotator(name))
    except UnknownNameError as error:
        raise fail(str(error)) from None
    except ImportError as error:
        raise fail(f"the {name} annotator needs the `ml` extra (pip install 'duologue[ml]'): {error}") from None
    if data is None and tagger.training_data is None:
        raise fail(f"the {name} annotator has no model to train")
    if out is None:
        if tagger.model_file is None:
            raise fail(f"give --out: the file to write the {name} annotator's model to")
        out = Path(tagger.model_file)
    package = Path(__file__).resolve().parent
    if out.resolve().is_relative_to(package):
        raise fail(f"--out {out}: inside the installed duologue package; the shipped model is never written over, give a path outside {package}")
    refuse_output(out)
    if data is None:
        assert tagger.training_data is not None
        data = data_root() / tagger.training_data
    if not data.exists():
        raise fail(f"{data}: no such file or folder")
    with Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=errors) as progress:
        bar = progress.add_task(f"{name}: reading", total=None)

        def advance(stage: str, done: int, total: int) -> None:
            progress.update(bar, description=f"{name}: {stage}", completed=done, total=total)

        try:
            summary = tagger.train(data, out, seed=seed, progress=advance)
        except NotImplementedError as error:
            raise fail(str(error)) from None
        except ImportError as error:
            raise fail(f"training needs scikit-learn and scipy (pip install 'duologue[ml]'): {error}") from None
        except (CorpusReadError, ValueError) as error:
            raise fail(str(error)) from None
    errors.print(f"[green]{summary}[/]")


@train_app.command("annotator")
def train_annotator(
    name: Annotated[str, typer.Argument(help=f"Annotator whose model to train: {ANNOTATOR_NAMES}.")],
    data: Annotated[Optional[Path], typer.Option(help="Annotated corpus file or folder (default: the annotator's training split under $DUOLOGUE_DATA).")] = None,
    out: Annotated[Optional[Path], typer.Option("--out", "-o", help="Model file to write (default: the annotator's model file name in the current folder; never the shipped model).")] = None,
    seed: Annotated[int, typer.Option(help="Seed of the fold split; the default reproduces the shipped model.")] = 0,
) -> None:
    """Train an annotator's model into a file of your own (the defaults reproduce the shipped one, which is left as it is)."""
    _train_annotator(name, data, out, seed)


@train_app.command("strategies", hidden=True)
def train_strategies(
    data: Annotated[Optional[Path], typer.Option(help="Annotated corpus file or folder.")] = None,
    out: Annotated[Optional[Path], typer.Option("--out", "-o", help="Model file to write.")] = None,
    seed: Annotated[int, typer.Option(help="Seed of the fold split.")] = 0,
) -> None:
    """Same as `duologue train annotator strategies` (kept for earlier scripts)."""
    _train_annotator("strategies", data, out, seed)


def main() -> None:
    """The `duologue` command. Each command checks its paths first; an operating-system error that
    still gets through (a disk filling up, a file removed mid-run) is a message, not a traceback."""
    try:
        app()
    except OSError as error:
        fail((f"{error.filename}: " if error.filename else "") + str(error.strerror or error))
        sys.exit(2)


if __name__ == "__main__":
    main()

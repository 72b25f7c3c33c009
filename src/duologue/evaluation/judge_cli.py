"""`duologue judge`: rate transcripts with an LLM judge, and say how far to trust it.

Reads a corpus (DUO by default, any corpus format or duologue's own files), rates each dialogue's
bot on DUO's items through an OpenAI-compatible endpoint (`duologue.evaluation.judge`), optionally
writes the judged dialogues (duologue's schema: `.jsonl` or `.parquet`), and, when the dialogues
carry third-party ratings, prints the judge's agreement with them next to the raters' own.

The endpoint: `--base-url` (and `--model`), else `--llm` as in agent specs (`local`, the default:
`DUOLOGUE_LLM_BASE_URL` when set, else a local SmolLM2 server started here; `openai/gpt-4o-mini`,
...), with timeouts and retries from `DUOLOGUE_LLM_*`. An endpoint that cannot be reached or
refuses the requests ends the command with the reason and exit code 1 (the dialogues judged so
far are written beside `--out`, as `<name>.partial.jsonl`, so an earlier finished run there stays);
input mistakes exit with code 2.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any, Optional

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

from duologue.terminal import OWN, console, errors, fail, load, looks_like_own_schema


def _split(values: list[str] | None) -> list[str] | None:
    """`--criteria a,b -c c` -> [a, b, c] (order kept, repeats dropped); None when not given."""
    if not values:
        return None
    return list(dict.fromkeys(v.strip() for value in values for v in value.split(",") if v.strip()))


def _client(llm: str, base_url: str | None, model: str | None) -> Any:
    """A chat client for the chosen endpoint (may start the local server). Raises `LLMError`."""
    from duologue.llm.client import ChatClient
    from duologue.llm.settings import LOCAL_MODEL_NAME, Endpoint, LLMSettings, resolve_endpoint

    settings = LLMSettings()
    if base_url:
        key = settings.api_key.get_secret_value() if settings.api_key else None
        endpoint = Endpoint(base_url, model or settings.model or LOCAL_MODEL_NAME, key)
    else:
        endpoint = resolve_endpoint(llm, settings)
        if endpoint.managed_local:
            from duologue.llm.server import shared_local_server

            endpoint = Endpoint(shared_local_server().url, endpoint.model, endpoint.api_key, endpoint.alias)
        if model:
            endpoint = Endpoint(endpoint.base_url, model, endpoint.api_key, endpoint.alias)
    return ChatClient.from_endpoint(endpoint, settings)


def _has_third_party(dialogue: Any, criteria: list[str] | None) -> bool:
    return any(r.rater_kind == "third_party" and (criteria is None or r.criterion in criteria) for r in dialogue.ratings)


def _figure(figure: dict[str, Any] | None) -> str:
    if figure is None or figure.get("value") is None:
        return "n/a"
    low, high = figure.get("low"), figure.get("high")
    interval = f" [{low:.2f}, {high:.2f}]" if low is not None and high is not None and low == low and high == high else ""
    return f"{figure['value']:.2f}{interval}"


def agreement_table(rows: list[dict[str, Any]], title: str) -> Table:
    """The judge's agreement figures per criterion, the raters' own alpha first (the yardstick)."""
    table = Table(title=title, title_justify="left")
    for column in ("criterion", "n", "no answer", "alpha raters", "alpha raters+judge", "change", "alpha judge~mean", "rho judge~mean", "rho judge~user"):
        table.add_column(column, justify="left" if column == "criterion" else "right", no_wrap=column == "criterion")
    for row in rows:
        table.add_row(row["criterion"], str(row["dialogues"]), str(row["unanswered"]), *agreement_cells(row))
    return table


def agreement_cells(row: dict[str, Any]) -> list[str]:
    """One `agreement_rows` row as table cells: alpha raters, with the judge, change, judge~mean alpha, two rhos."""
    change = row.get("alpha_change")
    return [
        _figure(row["third_party_alpha"]),
        _figure(row["with_judge_alpha"]),
        "n/a" if change is None else f"{change:+.2f}",
        _figure(row["judge_vs_mean_alpha"]),
        _figure(row["spearman_vs_mean"]),
        _figure(row["spearman_vs_user"]),
    ]


def _default_corpus(path: Path) -> str:
    """duologue's own schema when PATH holds it, else the corpus of the first task judged by people's
    ratings (the judge's items are rating items), else duologue's own schema."""
    from duologue.tasks import specs

    if path.exists() and looks_like_own_schema(path):
        return OWN
    return next((spec.corpus for spec in specs() if spec.kind == "rated" and spec.corpus), OWN)


def judge_command(
    path: Annotated[Path, typer.Argument(help="A corpus file or folder, or dialogues duologue wrote (.jsonl / .parquet).")],
    corpus: Annotated[Optional[str], typer.Option("--corpus", help="Corpus format of PATH (`duologue data corpora`) or duologue; default: duologue for files it wrote, else the corpus of the first task that people rate (`duologue tasks`, kind rated).")] = None,
    criteria: Annotated[Optional[list[str]], typer.Option("--criteria", "-c", help="Items to rate, comma-separated or repeated (default: every judge item that applies).")] = None,
    limit: Annotated[Optional[int], typer.Option(min=1, help="Judge at most this many dialogues.")] = None,
    rated_only: Annotated[bool, typer.Option("--rated-only", help="Judge only dialogues that carry third-party ratings.")] = False,
    out: Annotated[Optional[Path], typer.Option("--out", "-o", help="Write the judged dialogues here (duologue's schema, .jsonl or .parquet).")] = None,
    output_format: Annotated[str, typer.Option("--format", help="table or json.")] = "table",
    llm: Annotated[str, typer.Option("--llm", help="Endpoint as in agent specs: local, openai/gpt-4o-mini, a model at DUOLOGUE_LLM_BASE_URL.")] = "local",
    base_url: Annotated[Optional[str], typer.Option("--base-url", help="An OpenAI-compatible base URL (overrides --llm).")] = None,
    model: Annotated[Optional[str], typer.Option("--model", help="Model name to send (default: DUOLOGUE_LLM_MODEL).")] = None,
    judge_id: Annotated[Optional[str], typer.Option("--judge-id", help="Rater id of the judge's ratings (default: llm:<model>).")] = None,
    mode: Annotated[str, typer.Option(help="all (every item in one request) or per_item (one request per item).")] = "all",
    attempts: Annotated[int, typer.Option(min=1, help="Requests per answer before an item is recorded as missing.")] = 3,
    reason_chars: Annotated[int, typer.Option(min=0, help="Longest reason asked for; 0 asks for scores only (faster).")] = 200,
    bootstrap: Annotated[int, typer.Option(min=0, help="Bootstrap resamples for the agreement intervals.")] = 1000,
    skip_invalid: Annotated[bool, typer.Option("--skip-invalid", help="Read the valid records and skip broken ones.")] = False,
    people: Annotated[bool, typer.Option("--people", help="Predict each party's own answers to the task's party questionnaire (for instance satisfaction with the outcome and liking of the partner) and report agreement with them.")] = False,
) -> None:
    """Rate transcripts with an LLM judge on DUO's items, and report its agreement with human raters."""
    from duologue.data.io import write_dialogues
    from duologue.evaluation.judge import Judge, agreement_rows, duo_items, judge_agreement
    from duologue.llm.settings import LLMError

    _check_options(output_format, mode, out)
    wanted = _split(criteria)
    try:
        items = duo_items(criteria=wanted) if not people else []
    except ValueError as error:
        raise fail(str(error), 2) from None
    if people:
        from duologue.evaluation.judge_people_cli import judge_people

        read = load(corpus or _default_corpus(path), path, skip_invalid=skip_invalid).dialogues
        judge_people(read[:limit], corpus or _default_corpus(path), wanted, client=lambda: _client(llm, base_url, model), judge_id=judge_id, mode=mode, attempts=attempts,
                     reason_chars=reason_chars, bootstrap=bootstrap, as_json=output_format == "json", out=out)
        return
    dialogues = _dialogues_to_judge(path, corpus, skip_invalid=skip_invalid, rated_only=rated_only, wanted=wanted, limit=limit)
    try:
        client = _client(llm, base_url, model)
        judge = Judge(client, items=items, judge_id=judge_id, mode=mode, attempts=attempts, reason_chars=reason_chars)  # type: ignore[arg-type]
    except LLMError as error:  # an endpoint that cannot be set up fails as one that fails while judging
        raise fail(str(error), 1) from None
    judged, calls, unusable = _judge_all(dialogues, judge, out)
    if out is not None:
        write_dialogues(judged, out)
    given = sum(1 for d in judged for r in d.ratings if r.rater_kind == "model" and r.rater_id == judge.judge_id)
    missing = sum(len(d.meta["judges"][judge.judge_id]["missing"]) for d in judged)
    summary = {"judge": judge.judge_id, "dialogues": len(judged), "ratings": given, "missing": missing, "calls": calls, "unusable_replies": unusable}

    criteria_seen = [item.name for item in items if any(r.rater_kind == "third_party" and r.criterion == item.name for d in judged for r in d.ratings)]
    results = [judge_agreement(judged, criterion, judge_id=judge.judge_id, bootstrap=bootstrap) for criterion in criteria_seen]
    rows = agreement_rows(results)
    if output_format == "json":
        typer.echo(json.dumps({**summary, "out": None if out is None else str(out), "agreement": rows}, default=float))
        return
    _print_summary(summary, out, rows)


def _check_options(output_format: str, mode: str, out: Path | None) -> None:
    """The format, the mode and the output file, before any dialogue is read or any model asked."""
    from duologue.data.outputs import output_problem
    from duologue.evaluation.judge import MODES

    if output_format not in ("table", "json"):
        raise fail(f"--format {output_format!r}: use table or json", 2)
    if mode not in MODES:
        raise fail(f"--mode {mode!r}: use one of {', '.join(MODES)}", 2)
    if out is not None and out.suffix.lower() not in (".jsonl", ".parquet"):
        raise fail(f"--out {out}: write judged dialogues to a .jsonl or .parquet file", 2)
    if out is not None and (problem := output_problem(out)) is not None:
        raise fail(f"--out {problem}", 2)  # before the model is asked anything


def _dialogues_to_judge(
    path: Path, corpus: str | None, *, skip_invalid: bool, rated_only: bool, wanted: list[str] | None, limit: int | None
) -> list[Any]:
    """The dialogues of PATH to judge (those with third-party ratings only, if asked; the first `limit`); none is a clean exit."""
    dialogues = load(corpus or _default_corpus(path), path, skip_invalid=skip_invalid).dialogues
    if rated_only:
        dialogues = [d for d in dialogues if _has_third_party(d, wanted)]
    if limit is not None:
        dialogues = dialogues[:limit]
    if not dialogues:
        raise fail(f"{path}: no dialogues to judge" + (" with third-party ratings" if rated_only else ""), 2)
    return dialogues


def _judge_all(dialogues: list[Any], judge: Any, out: Path | None) -> tuple[list[Any], int, int]:
    """Judge every dialogue with a progress bar: the judged dialogues, the requests made and the unusable replies.
    A failing endpoint is a clean exit (code 1); what was judged before it is kept beside `out`."""
    from duologue.data.io import write_dialogues
    from duologue.evaluation.judge import iter_judged
    from duologue.llm.settings import LLMError

    judged: list[Any] = []
    calls = unusable = 0
    try:
        with Progress(
            SpinnerColumn(),
            TextColumn("[progress.description]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
            console=errors,
            transient=True,
        ) as progress:
            bar = progress.add_task(f"judging with {judge.judge_id}", total=len(dialogues))

            def advance(result: Any) -> None:
                nonlocal calls, unusable
                calls += result.calls
                unusable += result.unusable_replies
                progress.advance(bar)

            for dialogue in iter_judged(dialogues, judge, on_progress=advance):
                judged.append(dialogue)
    except LLMError as error:
        if out is not None and judged:  # beside `out`: an earlier, finished run there stays as it was
            partial = out.with_name(f"{out.stem}.partial{out.suffix}")
            write_dialogues(judged, partial)
            errors.print(f"wrote the {len(judged)} dialogue(s) judged before the failure to {partial}")
        raise fail(str(error), 1) from None
    return judged, calls, unusable


def _print_summary(summary: dict[str, Any], out: Path | None, rows: list[dict[str, Any]]) -> None:
    """What the judge did, then its agreement with the people (a table) and the notes on each criterion."""
    unusable = summary["unusable_replies"]
    console.print(
        f"judged {summary['dialogues']} dialogue(s) with [bold]{summary['judge']}[/]: {summary['ratings']} rating(s), "
        f"{summary['missing']} missing, {summary['calls']} request(s), {unusable} unusable repl{'y' if unusable == 1 else 'ies'}",
        highlight=False,
    )
    if out is not None:
        console.print(f"wrote {out}")
    if rows:
        # Piped output has no terminal width to fit: give the nine columns room instead of folding them.
        console.print(agreement_table(rows, "agreement with the third-party raters (Krippendorff's alpha, interval; Spearman's rho; 95% bootstrap intervals)"))
        for row in rows:
            for note in row["notes"]:
                console.print(f"[dim]{row['criterion']}: {note}[/]", highlight=False)

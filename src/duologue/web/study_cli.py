"""`duologue study links|codes|payments` and `duologue pilot`: running a paid crowd study from the terminal."""

from __future__ import annotations

import csv
from contextlib import contextmanager
import re
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Callable, Iterator, Optional

import typer
import yaml
from rich.markup import escape
from rich.table import Table

from duologue.terminal import console, errors, fail

if TYPE_CHECKING:
    from duologue.web.protocol import Progress
    from duologue.web.settings import Settings
    from duologue.web.storage import Storage
    from duologue.web.study import Study

study_app = typer.Typer(help="Run a paid crowd study: signed links, completion codes, review, bonus payments, export.", no_args_is_help=True)

StudyArg = Annotated[str, typer.Argument(help="A study id (from --study, else the database's studies, else the built-in ones).")]
StudyFile = Annotated[Optional[Path], typer.Option("--study", help="The study YAML file (default: the built-in studies).")]
DbOption = Annotated[Optional[str], typer.Option("--db", help="The platform's database URL (default: the platform setting, sqlite:///duologue.db).")]


def builtin_studies() -> list[Study]:
    """One default study per task, plus every collection protocol a task ships (`protocol/study.yaml`)."""
    from duologue.tasks import spec, task_ids
    from duologue.web.study import default_studies, parse_studies

    studies = default_studies()
    for task_id in task_ids():
        shipped = spec(task_id).resource("protocol", "study.yaml")
        if shipped.is_file():
            studies.extend(parse_studies(yaml.safe_load(shipped.read_text(encoding="utf-8")), source=f"{task_id} protocol/study.yaml"))
    return studies


def saved_studies(storage: Any) -> list[Study]:
    """The studies kept in the platform's database (added on the admin page); one saved by an
    older version that no longer validates is left out, as the server leaves it out."""
    from pydantic import ValidationError

    from duologue.web.study import Study

    found: list[Study] = []
    for data in storage.studies():
        try:
            found.append(Study.model_validate(data))
        except ValidationError:
            continue
    return found


def find_study(study_id: str, file: Path | None, storage: Any = None) -> Study:
    """The study: from `file` when given, else the database's studies (the admin page's), else the built-in ones."""
    from duologue.web.study import StudyError, load_studies

    try:
        studies = load_studies(file) if file else [*(saved_studies(storage) if storage is not None else []), *builtin_studies()]
    except StudyError as error:
        raise fail(str(error)) from None
    for study in studies:
        if study.id == study_id:
            return study
    names = ", ".join(dict.fromkeys(s.id for s in studies))
    raise fail(f"no study {study_id!r}{f' in {file}' if file else ''}; studies: {names}")


def _database_problem(url_text: str) -> str | None:
    """Why the database cannot be read (a bad URL, a SQLite file that is not there), or None."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        url = make_url(url_text)
    except ArgumentError as error:
        return f"--db {url_text}: {error}"
    if url.get_backend_name() == "sqlite" and url.database not in (None, "", ":memory:") and not Path(str(url.database)).is_file():
        return f"no platform database at {url.database}: give --db the URL `duologue serve` used"  # reading, not making one
    return None


def _platform(db: str | None) -> tuple[Settings, Storage, Progress]:
    from duologue.web.protocol import Progress
    from duologue.web.settings import Settings
    from duologue.web.storage import Storage

    overrides: dict[str, Any] = {"database_url": db} if db else {}
    settings = Settings(**overrides)
    if (problem := _database_problem(settings.database_url)) is not None:
        raise fail(problem)
    try:
        storage = Storage(settings.database_url)
    except Exception as error:  # noqa: BLE001 - a URL that does not work, a driver that is missing
        raise fail(f"cannot open the database {settings.database_url}: {error}") from None
    return settings, storage, Progress(storage.engine)


def _paid(study: Any, needs_pay: bool) -> Any:
    if needs_pay and study.pay is None:
        raise fail(f"study {study.id} has no `pay` settings")
    return study


def _open(study_id: str, file: Path | None, db: str | None, *, needs_pay: bool = False) -> tuple[Study, Settings, Storage, Progress]:
    """The study and the platform's database. The study may have been added on the admin page, so
    the database is read for it; an id found nowhere (or a study without pay where pay is needed)
    is named as such, even when the database is missing."""
    from duologue.web.settings import Settings

    url = db or Settings().database_url
    if _database_problem(url) is not None:
        _paid(find_study(study_id, file), needs_pay)  # what is wrong with the study says so first
    settings, storage, progress = _platform(db)
    try:
        return _paid(find_study(study_id, file, storage), needs_pay), settings, storage, progress
    except typer.Exit:
        storage.close()
        raise


@study_app.command("links")
def links(
    study_id: StudyArg,
    n: Annotated[int, typer.Option("-n", min=1, help="How many links.")] = 10,
    base_url: Annotated[str, typer.Option(help="The platform's public address.")] = "http://localhost:8000",
    prefix: Annotated[str, typer.Option(help="Participant ids are <prefix>-<number>.")] = "p",
    secret: Annotated[Optional[str], typer.Option(help="The signing secret (default: the study's pay.link_secret).")] = None,
    db: Annotated[Optional[str], typer.Option("--db", help="Also look for the study in this platform database (studies added on the admin page).")] = None,
    study: StudyFile = None,
) -> None:
    """Print participant links signed with an HMAC (a study with `pay.link_secret` admits no others)."""
    from duologue.web.payments import signed_link

    if db is not None:
        found, _, storage, _ = _open(study_id, study, db)
        storage.close()
    else:
        found = find_study(study_id, study)
    from duologue.web.crowd import PLATFORMS, mode

    if mode(found) in ("prolific", "mturk"):
        name = PLATFORMS[mode(found)].name
        raise fail(f"study {found.id} runs on {name} (crowd: {mode(found)}): {name} gives everyone the study's address with its own ids, so it takes no per-person links")
    key = secret or (found.pay.link_secret if found.pay else None)
    if not key:
        raise fail(f"study {found.id} has no pay.link_secret; give --secret")
    for i in range(1, n + 1):
        console.print(signed_link(base_url, key, found.id, f"{prefix}-{i}"), highlight=False, soft_wrap=True)


def _codes(found: Study, settings: Settings, storage: Storage, progress: Progress) -> list[dict[str, Any]]:
    """Every code the study handed out: after a dialogue's questionnaire, or for waiting time."""
    from duologue.web.completion_codes import completion_code
    from duologue.web.payments import figures_of
    from duologue.web.waiting import waiting_claims

    rows = []
    for info in storage.dialogues(study_id=found.id):
        dialogue = storage.dialogue(info.id) if info.status == "finished" else None
        for seat in storage.seats(info.id):
            if seat.kind == "human" and seat.completion_code:
                figures = figures_of(dialogue, seat.party) if dialogue else None
                short = found.pay is not None and figures is not None and figures["messages"] < found.pay.min_messages
                note = f"only {int(figures['messages'])} message(s)" if figures and short else ""
                if figures and figures["partner_left"]:
                    note = f"{note}; partner left" if note else "partner left"
                rows.append({"participant": seat.participant_id, "code": seat.completion_code, "why": "dialogue", "dialogue": info.id, "note": note})
    stored = progress.all(found.id)
    codes = {participant: data.get("waiting_code") for participant, _, data in stored}
    for participant, waited in waiting_claims(stored, storage.seated_participants(found.id)):
        code = codes[participant] or completion_code(settings.secret, found.id, participant, prefix=settings.completion_code_prefix)
        rows.append({"participant": participant, "code": code, "why": "waited", "dialogue": "", "note": f"{waited:.0f} s"})
    return rows


CODE_COLUMNS = ("participant", "code", "why", "dialogue", "note")


def _pasted_codes(check: list[str], check_file: Path | None) -> list[str]:
    """The codes to check: each --check (commas between several; spaces and dashes inside a code are forgiven), and a file's lines or CSV cells."""
    pasted = [part.strip() for value in check for part in re.split(r"[,\n;]", value) if part.strip()]
    if check_file is not None:
        try:
            text = check_file.read_text(encoding="utf-8-sig")
        except (OSError, UnicodeDecodeError) as error:
            raise fail(f"--check-file {check_file}: cannot read it ({getattr(error, 'strerror', None) or error})") from None
        pasted.extend(cell.strip() for line in text.splitlines() for cell in line.split(",") if cell.strip())
    return pasted


def _check_codes(found: Study, rows: list[dict[str, Any]], pasted: list[str], as_json: bool) -> None:
    """Say whose each pasted code is (case, dashes and spaces ignored); exit 1 when any is nobody's."""
    import json

    from duologue.web.completion_codes import normalise_code

    by_code: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        by_code.setdefault(normalise_code(row["code"]), []).append(row)
    results: list[dict[str, Any]] = [{"pasted": code, "matches": by_code.get(normalise_code(code), [])} for code in pasted]
    if as_json:
        console.print_json(json.dumps({"study": found.id, "checked": results}))
    for result in [] if as_json else results:
        if not result["matches"]:
            errors.print(f"[red]{escape(result['pasted'])}: not a code of study {escape(found.id)}[/]", highlight=False)
        for r in result["matches"]:
            console.print(f"{result['pasted']}: participant {r['participant']} ({r['why']} {r['dialogue'] or r['note']}) {r['note'] if r['dialogue'] else ''}".strip(), highlight=False)
    if any(not r["matches"] for r in results):
        raise typer.Exit(1)


@study_app.command("codes")
def codes(
    study_id: StudyArg,
    check: Annotated[Optional[list[str]], typer.Option(help="Codes workers pasted (repeat, or separate by commas): say whose each is; exit 1 if any is nobody's.")] = None,
    check_file: Annotated[Optional[Path], typer.Option(help="A file of pasted codes to check (one a line, or CSV cells).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print machine-readable JSON.")] = False,
    db: DbOption = None,
    study: StudyFile = None,
) -> None:
    """List the completion codes handed out (participant, code, why), or check pasted ones."""
    import json

    from duologue.web.export import end_reason_counts

    found, settings, storage, progress = _open(study_id, study, db)
    try:
        rows = _codes(found, settings, storage, progress)
        ends = end_reason_counts((found.id, i.end_reason) for i in storage.dialogues(study_id=found.id, status="finished")).get(found.id, {})
    finally:
        storage.close()
    if check or check_file is not None:
        pasted = _pasted_codes(check or [], check_file)
        if not pasted:
            raise fail("no code to check: give --check CODE or a --check-file with codes in it")
        _check_codes(found, rows, pasted, as_json)
        return
    if as_json:
        console.print_json(json.dumps({"study": found.id, "codes": rows, "end_reasons": ends}))
        return
    table = Table(title=f"{found.id}: {len(rows)} code(s)")
    for column in CODE_COLUMNS:
        table.add_column(column)
    for r in rows:
        table.add_row(*(escape(str(r[c])) for c in CODE_COLUMNS))
    console.print(table)
    endings = Table(title=f"{found.id}: how {sum(ends.values())} dialogue(s) ended")
    endings.add_column("end reason")
    endings.add_column("dialogues", justify="right")
    for reason, count in ends.items():
        endings.add_row(escape(reason), str(count))
    console.print(endings)


def _bonuses(found: Study, storage: Storage, progress: Progress) -> tuple[list[Any], int]:
    """Each participant's bonus (formula plus waiting pay) and how many dialogues it came from."""
    from duologue.web.payments import payments
    from duologue.web.waiting import waiting_claims

    if found.pay is None:
        return [], 0
    dialogues = list(storage.iter_dialogues(study_id=found.id))
    waited = waiting_claims(progress.all(found.id), storage.seated_participants(found.id))
    return payments(found.pay, dialogues, waited), len(dialogues)


def _writable(path: Path, suffixes: tuple[str, ...], *, folder: bool = False) -> Path:
    from duologue.data.outputs import output_problem

    if (problem := output_problem(path, suffixes=suffixes, folder=folder)) is not None:
        raise fail(problem)
    return path


@study_app.command("payments")
def payments_command(
    study_id: StudyArg,
    out: Annotated[Path, typer.Option("--out", "-o", help="The CSV to write (Prolific's bulk bonus: participant id, amount).")],
    db: DbOption = None,
    study: StudyFile = None,
) -> None:
    """Write each participant's bonus (the study's formula, plus waiting-room pay) as a bulk-bonus CSV."""
    from duologue.web.payments import bulk_bonus_csv

    found, _, storage, progress = _open(study_id, study, db, needs_pay=True)
    try:
        rows, dialogues = _bonuses(found, storage, progress)
    finally:
        storage.close()
    _writable(out, (".csv",)).parent.mkdir(parents=True, exist_ok=True)
    out.write_text(bulk_bonus_csv(rows), encoding="utf-8")
    total = sum(r.amount for r in rows)
    currency = found.pay.currency if found.pay is not None else ""
    console.print(f"{len(rows)} bonus(es), {total:.2f} {currency} in all, from {dialogues} dialogue(s) -> {out}", highlight=False)


def _records(found: Study, settings: Settings, storage: Storage, progress: Progress) -> dict[str, Any]:
    """What the platform knows of each participant for review: codes earned, set-aside reasons."""
    from duologue.web.review import records_of

    set_aside = storage.set_aside(found.id)
    reasons: dict[str, list[str]] = {}
    for dialogue_id, reason in set_aside.items():
        for seat in storage.seats(dialogue_id):
            if seat.kind == "human" and seat.participant_id:
                reasons.setdefault(seat.participant_id, []).append(reason)
    arrived = [p for p, _, _ in progress.all(found.id)]
    for info in storage.dialogues(study_id=found.id):
        arrived.extend(s.participant_id for s in storage.seats(info.id) if s.kind == "human" and s.participant_id)
    return records_of(_codes(found, settings, storage, progress), arrived, reasons)


REVIEW_SHOWN = {"approve": "green", "reject": "red", "none": "dim"}


@study_app.command("review")
def review_command(
    study_id: StudyArg,
    submissions: Annotated[Path, typer.Option("--submissions", help="The crowd platform's submissions export (Prolific's CSV, or MTurk's batch results).")],
    out: Annotated[Optional[Path], typer.Option("--out", "-o", help="The review CSV to write (default: review-<study>.csv).")] = None,
    bonus: Annotated[Optional[Path], typer.Option("--bonus", help="The bonus file to write (default: bonus-<study>.csv): Prolific's bulk bonus, or MTurk's worker/assignment form.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the review as JSON instead of a table.")] = False,
    db: DbOption = None,
    study: StudyFile = None,
) -> None:
    """Who to approve, who to reject and why (no code, wrong code, set aside, two submissions,
    unknown participant), and the bonus file for those approved."""
    import json

    from duologue.web.review import SubmissionsError, bonus_file, bonuses_of, read_submissions, review, review_csv

    try:
        text = submissions.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as error:
        raise fail(f"--submissions {submissions}: cannot read it ({getattr(error, 'strerror', None) or error})") from None
    try:
        platform_name, lines = read_submissions(text, str(submissions))
    except SubmissionsError as error:
        raise fail(str(error)) from None
    except csv.Error as error:
        raise fail(f"--submissions {submissions}: not a CSV file ({error})") from None
    out = _writable(out or Path(f"review-{study_id}.csv"), (".csv",))
    bonus = _writable(bonus or Path(f"bonus-{study_id}.csv"), (".csv",))
    found, settings, storage, progress = _open(study_id, study, db)
    try:
        records = _records(found, settings, storage, progress)
        bonuses = bonuses_of(_bonuses(found, storage, progress)[0]) if found.pay is not None else {}
    finally:
        storage.close()
    verdicts = review(lines, records, bonuses)
    for path, content in ((out, review_csv(verdicts)), (bonus, bonus_file(platform_name, verdicts))):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content, encoding="utf-8")
    counted = {d: sum(v.decision == d for v in verdicts) for d in REVIEW_SHOWN}
    summary = f"{found.id} ({platform_name}): {counted['approve']} to approve, {counted['reject']} to reject, {counted['none']} closed; review -> {out}, bonuses -> {bonus}"
    if as_json:
        console.print_json(json.dumps({"study": found.id, "platform": platform_name, "review": [v.model_dump() for v in verdicts], "counts": counted, "files": {"review": str(out), "bonus": str(bonus)}}))
        return
    table = Table(title=summary)
    for column in ("line", "participant", "submission", "status", "code", "decision", "why", "bonus"):
        table.add_column(column, overflow="fold")
    for v in verdicts:
        cells = (escape(str(v.line)), escape(v.participant), escape(v.submission), escape(v.status), escape(v.code))
        table.add_row(*cells, f"[{REVIEW_SHOWN[v.decision]}]{v.decision}[/]", escape(v.why), f"{v.bonus:.2f}" if v.bonus else "")
    console.print(table)


@study_app.command("export")
def export_command(
    study_id: StudyArg,
    out: Annotated[Path, typer.Option("--out", "-o", help="A .zip file, or a folder to write the export into.")],
    status: Annotated[str, typer.Option(help="`finished` dialogues only, or `all`.")] = "finished",
    db: DbOption = None,
    study: StudyFile = None,
) -> None:
    """Export a study as the admin page does: dialogues (jsonl and each corpus's own format, set-aside
    ones flagged), the participant table (CSV and parquet) and a manifest."""
    from duologue.web.export import export_folder, export_zip
    from duologue.web.participants import export_extras

    if status not in ("finished", "all"):
        raise fail(f"--status {status!r}: use finished or all")
    zipped = out.suffix.lower() == ".zip"
    _writable(out, (".zip",) if zipped else (), folder=not zipped)
    found, _, storage, progress = _open(study_id, study, db)
    try:
        dialogues = list(storage.iter_dialogues(study_id=found.id, status="finished" if status == "finished" else None))
        set_aside, participants = export_extras([found], storage, progress)
    finally:
        storage.close()
    if zipped:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(export_zip(dialogues, set_aside=set_aside, participants=participants))
    else:
        export_folder(dialogues, out, set_aside=set_aside, participants=participants)
    console.print(f"{found.id}: {len(dialogues)} dialogue(s) ({len(set_aside)} set aside), {len(participants.rows)} participant(s) -> {out}", highlight=False)


@contextmanager
def _pilot_progress(study_id: str, n: int) -> Iterator[Callable[[Any, str], None]]:
    """A progress bar on the error console: people done out of n, codes, refusals, and where the
    others are now (`3 chat, 2 lobby`)."""
    from collections import Counter

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    where: dict[str, str] = {}
    bar = Progress(SpinnerColumn(), TextColumn("[bold]pilot of {task.fields[study]}"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[codes]} code(s), {task.fields[failed]} failed"), TextColumn("[dim]{task.fields[now]}"), TimeElapsedColumn(), console=errors, transient=True)
    task = bar.add_task("pilot", total=n, study=study_id, codes=0, failed=0, now="starting")

    def told(result: Any, page: str) -> None:
        where[result.participant] = page
        counts = Counter(where.values())
        now = ", ".join(f"{count} {name}" for name, count in counts.most_common() if name not in ("done", "error"))
        bar.update(task, completed=counts["done"] + counts["error"], codes=counts["done"], failed=counts["error"], now=now)

    with bar:
        yield told


def pilot_command(
    study_id: StudyArg,
    n: Annotated[int, typer.Option("-n", min=1, help="How many simulated participants.")] = 20,
    pairs: Annotated[bool, typer.Option("--pairs/--bots", help="Arrive two at a time (people paired with each other) or one at a time (each meets a bot).")] = False,
    bot_wait: Annotated[Optional[float], typer.Option(help="Seconds before a bot takes the seat (default: the study's).")] = None,
    chromium: Annotated[str, typer.Option(help="The Chromium to drive.")] = "/usr/bin/chromium",
    as_json: Annotated[bool, typer.Option("--json", help="Print each participant's result as JSON instead of a table.")] = False,
    at_once: Annotated[Optional[int], typer.Option("--at-once", min=1, help="Most simulated people in the pages together (default: from the machine's cores).")] = None,
    study: StudyFile = None,
) -> None:
    """Pilot a study before launch: simulated participants go through the real pages in Chromium,
    consent to completion code, on a temporary database, several at once with a progress bar;
    they arrive as the study's crowd mode wants (signed links, Prolific's or MTurk's ids); prints
    what each saw and any error (a refusal with its reason)."""
    try:
        from duologue.web.pilot import pilot
    except ImportError as error:
        raise fail(f"the pilot needs the web extra and playwright ({error.name} is missing)") from None
    found = find_study(study_id, study)
    if bot_wait is not None:
        found = found.model_copy(update={"bot_wait_seconds": bot_wait})
    if not Path(chromium).exists():
        raise fail(f"{chromium}: no such browser")
    from playwright.sync_api import Error as BrowserError

    with _pilot_progress(found.id, n) as progress:
        try:
            results, dialogues = pilot(found, n, pairs=pairs, chromium=chromium, at_once=at_once, progress=progress)
        except BrowserError as error:  # a file that is not a browser, or one that will not start here
            raise fail(f"--chromium {chromium}: the browser did not start: {str(error).splitlines()[0]}") from None
    if as_json:
        import dataclasses
        import json

        console.print_json(json.dumps({"study": found.id, "dialogues": len(dialogues), "participants": [dataclasses.asdict(r) for r in results]}, default=str))
        if any(r.error for r in results):
            raise typer.Exit(1)
        return
    table = Table(title=f"pilot of {found.id}: {sum(r.error is None for r in results)}/{len(results)} reached a code, {len(dialogues)} dialogue(s)")
    for column in ("participant", "pages seen", "partner", "moves", "outcome", "code", "seconds", "error"):
        table.add_column(column, overflow="fold")
    for r in results:
        table.add_row(r.participant, " > ".join(r.pages), r.partner or "", str(r.moves), r.outcome or "", r.code or "", f"{r.seconds:.1f}", r.error or "")
    console.print(table)
    if any(r.error for r in results):
        raise typer.Exit(1)


__all__ = ["study_app", "pilot_command", "builtin_studies", "find_study", "saved_studies"]

"""`duologue study links|codes|payments` and `duologue pilot`: running a paid crowd study from the terminal."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer
import yaml
from rich.table import Table

from duologue.terminal import console, errors, fail

if TYPE_CHECKING:
    from duologue.web.protocol import Progress
    from duologue.web.settings import Settings
    from duologue.web.storage import Storage
    from duologue.web.study import Study

study_app = typer.Typer(help="Run a paid crowd study: signed links, completion codes, bonus payments.", no_args_is_help=True)

StudyArg = Annotated[str, typer.Argument(help="A study id (from --study, else the built-in studies).")]
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


def find_study(study_id: str, file: Path | None) -> Study:
    from duologue.web.study import StudyError, load_studies

    try:
        studies = load_studies(file) if file else builtin_studies()
    except StudyError as error:
        raise fail(str(error)) from None
    for study in studies:
        if study.id == study_id:
            return study
    raise fail(f"no study {study_id!r}{f' in {file}' if file else ''}; studies: {', '.join(s.id for s in studies)}")


def _platform(db: str | None) -> tuple[Settings, Storage, Progress]:
    from duologue.web.protocol import Progress
    from duologue.web.settings import Settings
    from duologue.web.storage import Storage

    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    overrides: dict[str, Any] = {"database_url": db} if db else {}
    settings = Settings(**overrides)
    try:
        url = make_url(settings.database_url)
    except ArgumentError as error:
        raise fail(f"--db {settings.database_url}: {error}") from None
    if url.get_backend_name() == "sqlite" and url.database not in (None, "", ":memory:") and not Path(str(url.database)).is_file():
        raise fail(f"no platform database at {url.database}: give --db the URL `duologue serve` used")  # reading, not making one
    try:
        storage = Storage(settings.database_url)
    except Exception as error:  # noqa: BLE001 - a URL that does not work, a driver that is missing
        raise fail(f"cannot open the database {settings.database_url}: {error}") from None
    return settings, storage, Progress(storage.engine)


@study_app.command("links")
def links(
    study_id: StudyArg,
    n: Annotated[int, typer.Option("-n", min=1, help="How many links.")] = 10,
    base_url: Annotated[str, typer.Option(help="The platform's public address.")] = "http://localhost:8000",
    prefix: Annotated[str, typer.Option(help="Participant ids are <prefix>-<number>.")] = "p",
    secret: Annotated[Optional[str], typer.Option(help="The signing secret (default: the study's pay.link_secret).")] = None,
    study: StudyFile = None,
) -> None:
    """Print participant links signed with an HMAC (a study with `pay.link_secret` admits no others)."""
    from duologue.web.payments import signed_link

    found = find_study(study_id, study)
    key = secret or (found.pay.link_secret if found.pay else None)
    if not key:
        raise fail(f"study {found.id} has no pay.link_secret; give --secret")
    for i in range(1, n + 1):
        console.print(signed_link(base_url, key, found.id, f"{prefix}-{i}"), highlight=False, soft_wrap=True)


def _codes(found: Study, settings: Settings, storage: Storage, progress: Progress) -> list[dict[str, Any]]:
    """Every code the study handed out: after a dialogue's questionnaire, or for waiting time."""
    from duologue.web.completion_codes import completion_code
    from duologue.web.payments import figures_of

    rows = []
    for info in storage.dialogues(study_id=found.id):
        dialogue = storage.dialogue(info.id) if found.pay and found.pay.min_messages else None
        for seat in storage.seats(info.id):
            if seat.kind == "human" and seat.completion_code:
                messages = int(figures_of(dialogue, seat.party)["messages"]) if dialogue else None
                short = found.pay is not None and messages is not None and messages < found.pay.min_messages
                rows.append({"participant": seat.participant_id, "code": seat.completion_code, "why": "dialogue", "dialogue": info.id, "note": f"only {messages} message(s)" if short else ""})
    for participant, _, data in progress.all(found.id):
        if "left_waiting" in data:
            code = data.get("waiting_code") or completion_code(settings.secret, found.id, participant, prefix=settings.completion_code_prefix)
            rows.append({"participant": participant, "code": code, "why": "waited", "dialogue": "", "note": f"{data['left_waiting']:.0f} s"})
    return rows


@study_app.command("codes")
def codes(
    study_id: StudyArg,
    check: Annotated[Optional[str], typer.Option(help="A code a worker pasted: say whose it is, or exit 1.")] = None,
    db: DbOption = None,
    study: StudyFile = None,
) -> None:
    """List the completion codes handed out (participant, code, why), or check one."""
    found = find_study(study_id, study)
    settings, storage, progress = _platform(db)
    try:
        rows = _codes(found, settings, storage, progress)
    finally:
        storage.close()
    if check is not None:
        wanted = check.strip().upper()
        mine = [r for r in rows if r["code"].upper() == wanted]
        if not mine:
            errors.print(f"[red]{check}: not a code of study {found.id}[/]", highlight=False)
            raise typer.Exit(1)
        for r in mine:
            console.print(f"{r['code']}: participant {r['participant']} ({r['why']} {r['dialogue'] or r['note']}) {r['note'] if r['dialogue'] else ''}".strip(), highlight=False)
        return
    table = Table(title=f"{found.id}: {len(rows)} code(s)")
    for column in ("participant", "code", "why", "dialogue", "note"):
        table.add_column(column)
    for r in rows:
        table.add_row(*(str(r[c]) for c in ("participant", "code", "why", "dialogue", "note")))
    console.print(table)


@study_app.command("payments")
def payments_command(
    study_id: StudyArg,
    out: Annotated[Path, typer.Option("--out", "-o", help="The CSV to write (Prolific's bulk bonus: participant id, amount).")],
    db: DbOption = None,
    study: StudyFile = None,
) -> None:
    """Write each participant's bonus (the study's formula, plus waiting-room pay) as a bulk-bonus CSV."""
    from duologue.web.payments import bulk_bonus_csv, payments

    found = find_study(study_id, study)
    if found.pay is None:
        raise fail(f"study {found.id} has no `pay` settings")
    settings, storage, progress = _platform(db)
    try:
        dialogues = list(storage.iter_dialogues(study_id=found.id))
        waited = [(p, float(d["left_waiting"])) for p, _, d in progress.all(found.id) if "left_waiting" in d]
    finally:
        storage.close()
    rows = payments(found.pay, dialogues, waited)
    from duologue.data.outputs import output_problem

    if (problem := output_problem(out, suffixes=(".csv",))) is not None:
        raise fail(problem)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(bulk_bonus_csv(rows), encoding="utf-8")
    total = sum(r.amount for r in rows)
    console.print(f"{len(rows)} bonus(es), {total:.2f} {found.pay.currency} in all, from {len(dialogues)} dialogue(s) -> {out}", highlight=False)


def pilot_command(
    study_id: StudyArg,
    n: Annotated[int, typer.Option("-n", min=1, help="How many simulated participants.")] = 20,
    pairs: Annotated[bool, typer.Option("--pairs/--bots", help="Arrive two at a time (people paired with each other) or one at a time (each meets a bot).")] = False,
    bot_wait: Annotated[Optional[float], typer.Option(help="Seconds before a bot takes the seat (default: the study's).")] = None,
    chromium: Annotated[str, typer.Option(help="The Chromium to drive.")] = "/usr/bin/chromium",
    study: StudyFile = None,
) -> None:
    """Pilot a study before launch: simulated participants go through the real pages in Chromium,
    consent to completion code, on a temporary database; prints what each saw and any error."""
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

    with console.status(f"piloting {found.id} with {n} participant(s)"):
        try:
            results, dialogues = pilot(found, n, pairs=pairs, chromium=chromium)
        except BrowserError as error:  # a file that is not a browser, or one that will not start here
            raise fail(f"--chromium {chromium}: the browser did not start: {str(error).splitlines()[0]}") from None
    table = Table(title=f"pilot of {found.id}: {sum(r.error is None for r in results)}/{len(results)} reached a code, {len(dialogues)} dialogue(s)")
    for column in ("participant", "pages seen", "partner", "moves", "outcome", "code", "seconds", "error"):
        table.add_column(column, overflow="fold")
    for r in results:
        table.add_row(r.participant, " > ".join(r.pages), r.partner or "", str(r.moves), r.outcome or "", r.code or "", f"{r.seconds:.1f}", r.error or "")
    console.print(table)
    if any(r.error for r in results):
        raise typer.Exit(1)


__all__ = ["study_app", "pilot_command", "builtin_studies", "find_study"]

"""Admin pages, behind the token from the settings: live counts, quotas, dialogues, export, studies.

The token is accepted from an `X-Admin-Token` header, a `token` query parameter (which also sets
a cookie, so the links on the pages work), or that cookie. Missing: 401. Wrong: 403. The cookie
holds an HMAC of the token, never the token itself, and is `Secure` when the page came over https.
"""

from __future__ import annotations

import hmac
import time
from typing import Any

import yaml
from fastapi import APIRouter, Form, HTTPException, Request
from fastapi.responses import RedirectResponse, Response

from duologue.web.completion_codes import normalise_code
from duologue.web.deps import page, platform
from duologue.web.cluster import ClusterUnavailable
from duologue.web.export import end_reason_counts, export_zip
from duologue.web import monitor
from duologue.web.participants import export_extras
from duologue.web.payments import left_party
from duologue.web.protocol import file_fields, progress_of
from duologue.web.routers.ratings import pool
from duologue.web.storage import DialogueInfo, Seat
from duologue.web.study import Study, StudyError, parse_studies
from duologue.web.waiting import waiting_claims

router = APIRouter(prefix="/admin", tags=["admin"])
COOKIE = "duologue_admin"


def require_admin(request: Request) -> str:
    state = platform(request)
    given = request.headers.get("x-admin-token") or request.query_params.get("token")
    if given:
        if not hmac.compare_digest(given.encode(), state.settings.admin_token.encode()):
            raise HTTPException(403, "wrong admin token")
        return given
    cookie = request.cookies.get(COOKIE)
    if not cookie:
        raise HTTPException(401, "the admin pages need the admin token (DUOLOGUE_ADMIN_TOKEN; `duologue serve` prints it)")
    if not hmac.compare_digest(cookie.encode(), cookie_value(state.settings.admin_token).encode()):
        raise HTTPException(403, "wrong admin token")
    return cookie


def cookie_value(admin_token: str) -> str:
    """What the admin cookie holds: derived from the token, so a leaked cookie does not give the token away."""
    return hmac.new(admin_token.encode(), b"duologue admin cookie", "sha256").hexdigest()


def _remember(response: Response, request: Request) -> Response:
    if request.query_params.get("token"):
        secure = request.url.scheme == "https"
        response.set_cookie(COOKIE, cookie_value(request.query_params["token"]), httponly=True, samesite="strict", secure=secure)
    return response


def counts(state) -> dict[str, Any]:
    """Live counts per study and in total: waiting, in dialogue, finished, fully rated, plus quota progress."""
    waiting = state.matchmaker.waiting_count()
    playing = state.hub.live_count()
    now = time.time()
    studies = {}
    for study in state.studies.values():
        infos = state.storage.dialogues(study_id=study.id)
        finished = [i for i in infos if i.status == "finished"]
        summary = pool(state, study).summary(now) if study.ratings_per_dialogue > 0 else {"fully_rated": 0, "ratings_done": 0, "in_progress": 0}
        by_pairing = state.storage.count_by(study.id, "pairing")
        quotas = [
            {"pairing": p.pairing, "count": by_pairing.get(p.pairing, 0), "quota": study.quotas.get(p.pairing)}
            for p in study.partners
        ]
        studies[study.id] = {
            "task": study.task,
            "waiting": waiting.get(study.id, 0),
            "in_dialogue": playing.get(study.id, 0),
            "live_dialogues": sum(1 for i in infos if i.status == "live"),
            "finished": len(finished),
            "rated": summary["fully_rated"],
            "ratings_done": summary["ratings_done"],
            "rating_jobs_in_progress": summary["in_progress"],
            "quotas": quotas,
            "per_scenario": study.per_scenario,
            "scenarios_used": len({i.scenario_key for i in infos}),
            "end_reasons": end_reason_counts((study.id, i.end_reason) for i in finished).get(study.id, {}),
        }
    total = {key: sum(s[key] for s in studies.values()) for key in ("waiting", "in_dialogue", "live_dialogues", "finished", "rated")}
    return {"total": total, "studies": studies}


def when(stamp: float | None) -> str:
    """A stored time as the admin reads it (UTC, to the second); empty when there is none."""
    return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(stamp)) if stamp else ""


def dialogue_rows(state, limit: int = 200) -> list[dict[str, Any]]:
    """The newest dialogues with who sat in them, when they started and ended, and why one was set aside."""
    rows = []
    newest = list(reversed(state.storage.dialogues()))[:limit]
    set_aside: dict[str, str] = {}
    for study_id in {info.study_id for info in newest}:
        set_aside.update(state.storage.set_aside(study_id))
    for info in newest:
        seats = state.storage.seats(info.id)
        people = ", ".join(s.participant_id or s.agent or s.kind for s in seats)
        rows.append({"info": info, "people": people, "started": when(info.created_at), "ended": when(info.finished_at), "set_aside": set_aside.get(info.id, "")})
    return rows


def completion_codes(state) -> list[dict[str, str]]:
    """Every completion code handed out, newest first: after a dialogue's questionnaire, or for
    time in the waiting room."""
    rows: list[tuple[float, dict[str, str]]] = []
    for study in state.studies.values():
        for info in state.storage.dialogues(study_id=study.id):
            for seat in state.storage.seats(info.id):
                if seat.completion_code:
                    stamp = info.finished_at or info.created_at
                    rows.append((stamp, {"participant": seat.participant_id or "", "study": study.id, "dialogue": info.id, "code": seat.completion_code, "why": "dialogue", "time": when(stamp)}))
        stored = {participant: (arrived, data) for participant, arrived, data in progress_of(state).all(study.id)}
        for participant, waited in waiting_claims(((p, a, d) for p, (a, d) in stored.items()), state.storage.seated_participants(study.id)):
            arrived, data = stored[participant]
            rows.append((arrived, {"participant": participant, "study": study.id, "dialogue": "", "code": str(data.get("waiting_code", "")), "why": f"waited {waited:.0f} s", "time": when(arrived)}))
    return [row for _, row in sorted(rows, key=lambda pair: pair[0], reverse=True)]


def check_code(state, code: str) -> list[dict[str, str]]:
    """The rows a pasted code matches (case, dashes and spaces ignored); empty: not a code of ours."""
    wanted = normalise_code(code)
    return [row for row in completion_codes(state) if wanted and normalise_code(row["code"]) == wanted]


def _dashboard(request: Request, *, study_text: str = "", study_errors: list[str] | None = None, status_code: int = 200):
    state = platform(request)
    context = {"counts": counts(state), "dialogues": dialogue_rows(state), "studies": state.studies, "study_text": study_text, "study_errors": study_errors or []}
    return page(request, "admin.html", context, status_code=status_code)


@router.get("")
async def dashboard(request: Request):
    try:
        require_admin(request)
    except HTTPException as error:
        return page(request, "admin_login.html", {"detail": error.detail}, status_code=error.status_code)
    return _remember(_dashboard(request), request)


@router.get("/codes")
async def codes_page(request: Request, code: str | None = None):
    """The codes handed out, and whose a pasted code is."""
    require_admin(request)
    state = platform(request)
    matches = check_code(state, code) if code is not None else None
    return page(request, "admin_codes.html", {"codes": completion_codes(state), "code": code or "", "matches": matches})


@router.get("/api/codes")
async def codes_api(request: Request, code: str | None = None) -> dict[str, Any]:
    require_admin(request)
    state = platform(request)
    if code is not None:
        matches = check_code(state, code)
        return {"code": code, "valid": bool(matches), "matches": matches}
    return {"codes": completion_codes(state)}


@router.get("/api/counts")
async def counts_api(request: Request) -> dict[str, Any]:
    require_admin(request)
    return counts(platform(request))


def _connected(state) -> dict[tuple[str, str], bool]:
    """(dialogue, party) -> whether a page of that person is open, for the live dialogues this worker holds."""
    return {
        (live.id, party): bool(occupant.connections) or occupant.elsewhere
        for live in list(state.hub.dialogues.values())
        if not live.task.done
        for party, occupant in live.occupants.items()
        if occupant.seat.kind == "human"
    }


async def _waiting(state, study_id: str) -> list[tuple[str, float]]:
    """Who waits in a study's lobby: on every worker (Redis), else this one's."""
    cluster = state.hub.cluster
    if cluster is not None:
        try:
            return await cluster.lobby_members(study_id)
        except ClusterUnavailable:
            pass  # this worker's waiters, while Redis is away
    return [(w.participant_id, w.since) for w in state.matchmaker.waiting.get(study_id, {}).values() if not w.ticket.done()]


def _left(state, seats: list[tuple[Seat, DialogueInfo]]) -> frozenset[tuple[str, str]]:
    """The seats whose person left their dialogue: handed to a bot in a live one this worker holds
    (a person's seat in storage, a bot's here), or named by the end of a finished one they hold no code for (only those dialogues are read)."""
    left = {(live.id, party) for live in list(state.hub.dialogues.values()) for party, occupant in live.occupants.items() if occupant.seat.kind == "bot"}
    for dialogue_id in {info.id for seat, info in seats if info.status == "finished" and not seat.completion_code and not seat.questionnaire_done}:
        party = left_party(state.storage.dialogue(dialogue_id))
        if party is not None:
            left.add((dialogue_id, party))
    return frozenset(left)


def _study_places(state, study: Study, waiting: list[tuple[str, float]], connected: dict[tuple[str, str], bool], now: float, quiet: float) -> list[monitor.Where]:
    """`monitor.places` for one study, read in the storage's thread."""
    seats = state.storage.study_seats(study.id)
    return monitor.places(study, progress_of(state).all(study.id), seats, waiting, connected, now, quiet, _left(state, seats))


@router.get("/api/monitor")
async def monitor_api(request: Request, study: str | None = None, quiet: float = monitor.QUIET_SECONDS) -> dict[str, Any]:
    """Who is on which page now, per study (`monitor.places`); `quiet`: seconds without a sign of
    life that make a dropout. The admin page polls it."""
    require_admin(request)
    state = platform(request)
    if study is not None and study not in state.studies:
        raise HTTPException(404, f"no study {study!r}")
    if not 0 < quiet < 10**7:
        raise HTTPException(422, "quiet is a number of seconds above 0")
    now = time.time()
    connected = _connected(state)
    studies: dict[str, Any] = {}
    for found in [state.studies[study]] if study is not None else list(state.studies.values()):
        waiting = await _waiting(state, found.id)
        people = await state.storage.run(_study_places, state, found, waiting, connected, now, quiet)
        studies[found.id] = {"summary": monitor.summary(people), "people": monitor.as_json(people, now)}
    return {"now": now, "quiet_seconds": quiet, "stages": list(monitor.STAGES), "studies": studies}


@router.get("/api/dialogues/{dialogue_id}")
async def dialogue_api(request: Request, dialogue_id: str) -> dict[str, Any]:
    require_admin(request)
    dialogue = platform(request).storage.dialogue(dialogue_id)
    if dialogue is None:
        raise HTTPException(404, "no such dialogue")
    return dialogue.model_dump(mode="json")


@router.get("/dialogues/{dialogue_id}")
async def dialogue_page(request: Request, dialogue_id: str):
    require_admin(request)
    state = platform(request)
    dialogue = state.storage.dialogue(dialogue_id)
    info = state.storage.info(dialogue_id)
    if dialogue is None or info is None:
        raise HTTPException(404, "no such dialogue")
    events = [{"who": e.party or "system", "kind": e.kind, "text": event_text(e), "time": when(e.time) if e.time and e.time > 1e9 else (f"{e.time:.1f} s" if e.time is not None else "")} for e in dialogue.events]
    context = {
        "dialogue": dialogue, "info": info, "seats": state.storage.seats(dialogue_id), "yaml": yaml, "events": events, "started": when(info.created_at), "ended": when(info.finished_at),
        "set_aside": state.storage.set_aside(info.study_id).get(dialogue_id, ""),
    }
    return page(request, "admin_dialogue.html", context)


def event_text(event: Any) -> str:
    """What an event says, for a person: a message's text, or a move's fields as `name: value`."""
    if event.kind == "message":
        return str(event.text)
    fields = event.model_dump(mode="json", exclude={"party", "time", "extra", "kind"})
    return "; ".join(f"{name}: {_plain(value)}" for name, value in fields.items() if value not in (None, {}, []))


def _plain(value: Any) -> str:
    if isinstance(value, dict):
        return ", ".join(f"{k} {_plain(v)}" for k, v in value.items())
    if isinstance(value, list):
        return ", ".join(_plain(v) for v in value)
    return str(value)


@router.get("/export")
async def export(request: Request, study: str | None = None, status: str = "finished"):
    """Everything as a zip: duologue's jsonl, each corpus's own format, and a manifest."""
    require_admin(request)
    state = platform(request)
    if study is not None:
        state.study(study)
    if status not in ("finished", "all"):
        raise HTTPException(422, "status is `finished` or `all`")
    wanted = "finished" if status == "finished" else None
    chosen = [state.study(study)] if study is not None else list(state.studies.values())
    set_aside, participants = await state.storage.run(export_extras, chosen, state.storage, progress_of(state))
    dialogues = list(state.storage.iter_dialogues(study_id=study, status=wanted))  # every stored study's, known now or not
    data = export_zip(dialogues, set_aside=set_aside, participants=participants)
    name = f"duologue-export-{study or 'all'}-{time.strftime('%Y%m%d-%H%M%S')}.zip"
    return Response(data, media_type="application/zip", headers={"Content-Disposition": f'attachment; filename="{name}"'})


def _no_server_files(studies: list[Study]) -> None:
    """A study added on this page may not name files on the server: its consent and instructions
    are shown to anyone with a link, so a path would publish whatever file it names. Such studies
    come from a `--study` file, written by someone who can read the server's files anyway; here a
    study writes its own text in the YAML (`consent: {text: ...}`)."""
    for study in studies:
        fields = file_fields(study.protocol) if study.protocol is not None else []
        if study.scenarios.path is not None:
            fields.append("scenarios.path")
        if fields:
            advice = "a study added here may name only what the task ships (task:<name>) or write its text in the study ({text: ...}); give file paths in a --study file"
            raise StudyError(f"the study text: study {study.id}: " + "; ".join(f"{field}: {advice}" for field in fields))


@router.post("/studies")
async def add_study(request: Request, text: str = Form("")):
    """Add or replace studies from YAML text (the same format as `--study`). A study with problems
    is refused on the same page, its errors next to the text, the text kept (a browser); a script
    that does not ask for HTML gets the reason as JSON."""
    require_admin(request)
    state = platform(request)
    try:
        data = yaml.safe_load(text)
        _no_server_files(parse_studies(data, source="the study text", check=False))  # before any file is read: its errors could quote it
        studies = parse_studies(data, source="the study text")
    except (yaml.YAMLError, StudyError) as error:
        if "text/html" not in request.headers.get("accept", ""):
            raise HTTPException(422, str(error)) from None  # a script: the reason as JSON
        problems = [part.strip() for part in str(error).replace("\n", "; ").split("; ") if part.strip()]
        return _dashboard(request, study_text=text, study_errors=problems, status_code=422)
    retasked = [s.id for s in studies if s.id in state.studies and state.studies[s.id].task != s.task and state.storage.dialogues(study_id=s.id)]
    if retasked:  # its dialogues, questionnaires and ratings belong to the task they were played in
        message = f"the study text: {', '.join(retasked)} already has dialogues of another task; give a study of a new task a new id"
        if "text/html" not in request.headers.get("accept", ""):
            raise HTTPException(409, message)
        return _dashboard(request, study_text=text, study_errors=[message], status_code=409)
    for study in studies:
        state.add_study(study)
    return RedirectResponse("/admin", status_code=303)

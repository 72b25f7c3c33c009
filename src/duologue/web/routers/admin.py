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

from duologue.web.app import page, platform
from duologue.web.export import export_zip
from duologue.web.routers.ratings import pool
from duologue.web.study import StudyError, parse_studies

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
        }
    total = {key: sum(s[key] for s in studies.values()) for key in ("waiting", "in_dialogue", "live_dialogues", "finished", "rated")}
    return {"total": total, "studies": studies}


@router.get("")
async def dashboard(request: Request):
    state = platform(request)
    try:
        require_admin(request)
    except HTTPException as error:
        return page(request, "admin_login.html", {"detail": error.detail}, status_code=error.status_code)
    infos = list(reversed(state.storage.dialogues()))[:200]
    response = page(request, "admin.html", {"counts": counts(state), "dialogues": infos, "studies": state.studies})
    return _remember(response, request)


@router.get("/api/counts")
async def counts_api(request: Request) -> dict[str, Any]:
    require_admin(request)
    return counts(platform(request))


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
    return page(request, "admin_dialogue.html", {"dialogue": dialogue, "info": info, "seats": state.storage.seats(dialogue_id), "yaml": yaml, "hidden_fields": {"party", "time", "extra", "kind"}})


@router.get("/export")
async def export(request: Request, study: str | None = None, status: str = "finished"):
    """Everything as a zip: duologue's jsonl, each corpus's own format, and a manifest."""
    require_admin(request)
    state = platform(request)
    if study is not None:
        state.study(study)
    if status not in ("finished", "all"):
        raise HTTPException(422, "status is `finished` or `all`")
    dialogues = list(state.storage.iter_dialogues(study_id=study, status=None if status == "all" else "finished"))
    data = export_zip(dialogues)
    name = f"duologue-export-{study or 'all'}-{time.strftime('%Y%m%d-%H%M%S')}.zip"
    return Response(data, media_type="application/zip", headers={"Content-Disposition": f'attachment; filename="{name}"'})


@router.post("/studies")
async def add_study(request: Request, text: str = Form(...)):
    """Add or replace studies from YAML text (the same format as `--study`)."""
    require_admin(request)
    state = platform(request)
    try:
        data = yaml.safe_load(text)
        studies = parse_studies(data, source="the study text")
    except (yaml.YAMLError, StudyError) as error:
        raise HTTPException(422, str(error)) from None
    for study in studies:
        state.add_study(study)
    return RedirectResponse("/admin", status_code=303)

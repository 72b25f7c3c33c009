"""The pages before the lobby (consent, instructions, comprehension check, surveys), the crowd
platform's parameters, signed links, and a waiting room a person may leave with a code."""

from __future__ import annotations

import random
import time
from typing import Any
from urllib.parse import urlencode

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import RedirectResponse

from duologue.web import consent, crowd, identity, waiting
from duologue.web.crowd import BAD_LINK
from duologue.web import protocol as proto
from duologue.web.deps import page, participant_from, platform
from duologue.web.completion_codes import completion_code
from duologue.web.study import Study

router = APIRouter(tags=["protocol"])


def _url(study: Study, step: str, participant: str) -> str:
    return f"/protocol/{study.id}/{step}?{urlencode({'participant': participant})}"


def came_by_link(state: Any, study: Study, participant: str) -> bool:
    """Whether the id may go on without its crowd platform's parameters in the address: the study
    is open, or this id's arrival was checked on the study page before (the pages after it carry
    only the id). Only `check_link` marks that, so no other page can make an id look checked."""
    if crowd.mode(study) == "open":
        return True
    return bool(proto.progress_of(state).get(study.id, participant).get("link_checked"))


def check_link(request: Request, study: Study, participant: str | None) -> None:
    """Refuse an arrival the study's crowd mode does not admit (a link without a valid signature,
    a Prolific arrival without its ids or from another study, ...), before the id is bound to this
    browser, so a guessed id cannot lock out its owner."""
    state = platform(request)
    if participant is not None and came_by_link(state, study, participant):
        return
    problem = crowd.arrival_problem(study, participant, request.query_params)
    if problem is not None:
        raise HTTPException(403, problem)
    if participant is not None and crowd.mode(study) != "open":
        proto.progress_of(state).update(study.id, participant, {"link_checked": True})


def gate(request: Request, state: Any, study: Study, participant: str) -> RedirectResponse | None:
    """Called by the lobby: keep the crowd parameters and send the person to the first protocol page not yet done (None: on to the lobby)."""
    store = proto.progress_of(state)
    data = store.get(study.id, participant)
    crowd = {name: request.query_params[name] for name in proto.CROWD_PARAMS if request.query_params.get(name)}
    if crowd or not data:
        data = store.update(study.id, participant, {"crowd": crowd})
    step = proto.next_step(study.protocol, data)
    if step is not None:
        return RedirectResponse(_url(study, step, participant), status_code=303)
    return None


def _context(request: Request, study_id: str, step: str) -> tuple[Any, Study, str]:
    state = platform(request)
    study = state.study(study_id)
    participant = participant_from(request)
    if participant is None:
        raise HTTPException(400, "this page needs your participant id; please use the study link")
    if not identity.may_use(state, participant, identity.session_of(request)):
        raise HTTPException(403, identity.REFUSED)
    if not came_by_link(state, study, participant):
        raise HTTPException(403, BAD_LINK)  # the pages after consent are no way round the signed link
    if study.protocol is None or step not in study.protocol.steps():
        raise HTTPException(404, f"study {study.id} has no step {step!r}")
    return state, study, participant


DRAWS = random.SystemRandom()


def _drawn(state: Any, study: Study, participant: str, survey: proto.Survey) -> dict[str, str] | None:
    """What the survey draws for this person: drawn the first time, then the same on every visit."""
    if survey.draw is None:
        return None
    store = proto.progress_of(state)
    drawn = store.get(study.id, participant).get("draws", {}).get(survey.id)
    if not drawn:
        drawn = survey.draw.make(DRAWS)
        store.update(study.id, participant, {"draws": {survey.id: drawn}})
    return drawn


def _text_blocks(study: Study, step: str) -> list[Any]:
    """The study's consent or instructions as shown: its template filled with the study's values,
    escaped (the study was checked for every value when it was accepted; a file changed since that
    lacks one is refused here, never shown with a blank)."""
    assert study.protocol is not None
    try:
        return consent.shown(study, proto.text(study.task, getattr(study.protocol, step)))
    except (consent.UnfilledError, proto.ProtocolError, OSError, UnicodeDecodeError) as error:
        raise HTTPException(503, f"this study's {step} page cannot be shown ({error}); please tell the researcher") from None


def _view(state: Any, study: Study, step: str, participant: str) -> dict[str, Any]:
    protocol = study.protocol
    assert protocol is not None
    if step in ("consent", "instructions"):
        return {"kind": step, "title": "Consent" if step == "consent" else "Instructions", "blocks": _text_blocks(study, step)}
    if step == "comprehension":
        return {"kind": step, "title": "A quick check", "checks": protocol.comprehension}
    survey = proto.survey(study.task, protocol.surveys[int(step.split(":")[1])])
    drawn = _drawn(state, study, participant, survey)
    shown = survey.shown(drawn)
    return {
        "kind": "survey", "title": shown.title, "instructions": shown.instructions, "survey": shown,
        "drawn": drawn, "draw_intro": survey.draw.intro if survey.draw else "", "draw_lines": survey.draw_lines(drawn),
        "draw_fills": survey.drawn_fills(drawn),
    }


@router.get("/protocol/{study_id}/{step}")
async def protocol_page(request: Request, study_id: str, step: str):
    state, study, participant = _context(request, study_id, step)
    data = proto.progress_of(state).get(study.id, participant)
    if step in data.get("done", []):
        following = proto.next_step(study.protocol, data)
        return RedirectResponse(_url(study, following, participant) if following else f"/study/{study.id}?{urlencode({'participant': participant})}", status_code=303)
    return page(request, "protocol.html", {"study": study, "participant": participant, "step": step, "problems": [], "answers": {}, **_view(state, study, step, participant)})


@router.post("/protocol/{study_id}/{step}")
async def protocol_submit(request: Request, study_id: str, step: str):
    state, study, participant = _context(request, study_id, step)
    form = {k: v for k, v in (await request.form()).items() if isinstance(v, str)}
    view = _view(state, study, step, participant)
    change: dict[str, Any] = {}
    problems: list[str] = []
    if step == "consent" and form.get("agree") != "yes":
        problems.append("to take part, please tick that you agree")
    elif step == "comprehension":
        wrong = [c.question for i, c in enumerate(view["checks"]) if form.get(f"check_{i}") != c.answer]
        problems.extend(f"{q} Not quite; please read the instructions again." for q in wrong)
        store = proto.progress_of(state)
        tries = int(store.get(study.id, participant).get("comprehension_tries", 0)) + 1
        change["comprehension_tries"] = tries
        if problems:
            store.update(study.id, participant, change)
    elif view["kind"] == "survey":
        values, problems = view["survey"].read(form)
        if not problems:
            change = {"answers": {view["survey"].id: values}, "fills": {**view["draw_fills"], **view["survey"].fills(values)}}
    if problems:
        return page(request, "protocol.html", {"study": study, "participant": participant, "step": step, "problems": problems, "answers": form, **view}, status_code=422)
    store = proto.progress_of(state)
    data = store.get(study.id, participant)
    change["done"] = [*data.get("done", []), step] if step not in data.get("done", []) else data.get("done", [])
    change["times"] = {step: time.time()}
    data = store.update(study.id, participant, change)
    following = proto.next_step(study.protocol, data)
    target = _url(study, following, participant) if following else f"/study/{study.id}?{urlencode({'participant': participant})}"
    return RedirectResponse(target, status_code=303)


@router.get("/waiting-code/{study_id}")
async def waiting_code(request: Request, study_id: str):
    """A code for time spent in the waiting room (`duologue.web.waiting`): once the person's lobby
    socket was open and unpaired for the study's `waiting_leave_after`, and only for a person never
    seated in one of the study's dialogues (they are paid for the dialogue instead)."""
    state = platform(request)
    study = state.study(study_id)
    participant = participant_from(request)
    if participant is None or not identity.may_use(state, participant, identity.session_of(request)):
        raise HTTPException(403, identity.REFUSED)
    if not came_by_link(state, study, participant):
        raise HTTPException(403, BAD_LINK)
    if study.pay is None or study.pay.waiting_leave_after is None:
        raise HTTPException(404, "this study does not give codes for waiting")
    store = proto.progress_of(state)
    data = store.get(study.id, participant)
    seated = bool(await state.storage.run(state.storage.seats_of_participant, participant, study.id))
    code = completion_code(state.settings.secret, study.id, participant, prefix=state.settings.completion_code_prefix)
    if "left_waiting" not in data or seated:
        problem = waiting.leaving_problem(study.pay, data, seated, time.time())
        if problem is not None:
            raise HTTPException(409, problem)
        left = min(waiting.waited(data, time.time()), study.pay.waiting_max_seconds)
        store.update(study.id, participant, {"left_waiting": round(left, 1), "waiting_code": code})
    return page(request, "done.html", {"code": code, "study": study, **crowd.finish(study, code, data.get("crowd") or {})})

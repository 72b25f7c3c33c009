"""Third-party rating jobs: a rater asks for work, reads a finished transcript, answers the items.

Assignment rules live in duologue.web.rating_jobs (balanced load, never the same dialogue twice,
never one the rater took part in); this router rebuilds a study's pool from storage per request.
"""

from __future__ import annotations

import secrets
import time

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import RedirectResponse

from duologue.core.schema import Dialogue, Message, Offer, Select, SubmitDeal, SystemNote
from duologue.web import identity
from duologue.web.deps import PARTICIPANT_ID, page, platform
from duologue.web.questionnaires import QuestionnaireForm, forms_for, get_questionnaire, questionnaires_for
from duologue.web.rating_jobs import RatingJobError, RatingJobs
from duologue.web.routers.questionnaires import read_answers
from duologue.web.study import Study

router = APIRouter(tags=["ratings"])


def pool(state, study: Study) -> RatingJobs:
    return RatingJobs(study.ratings_per_dialogue, dialogues=state.storage.ratable(study.id), assignments=state.storage.assignments(study.id))


def rater_forms(study: Study, dialogue: Dialogue, rater: str) -> list[QuestionnaireForm]:
    task_id = dialogue.meta.get("task_id") or study.task  # the dialogue's own task: a study replaced since may name another
    if study.rating_questionnaire and study.task == task_id:
        return [QuestionnaireForm(get_questionnaire(study.rating_questionnaire), dialogue, "third_party", rater, task_id)]
    return forms_for(dialogue, "third_party", rater, task_id=task_id)


def rater_or_422(rater: str | None) -> str:
    if not rater or not PARTICIPANT_ID.match(rater):
        raise HTTPException(422, "rater: an id of 1-100 letters, digits or _.@:- characters is needed")
    return rater


@router.get("/rate")
async def next_job(request: Request, rater: str | None = None, study: str | None = None):
    """Give the rater their job in progress or a new one, or say there is nothing to rate now."""
    state = platform(request)
    if rater is None:
        rater = request.query_params.get("PROLIFIC_PID") or request.query_params.get("workerId")
    if rater is None:
        return RedirectResponse(f"/rate?rater=rater-{secrets.token_hex(4)}" + (f"&study={study}" if study else ""), status_code=303)
    rater = rater_or_422(rater)
    session = identity.session_of(request)
    fresh = session is None
    session = session or identity.new_session()
    if not identity.claim(state, rater, session):
        raise HTTPException(403, identity.REFUSED)

    def keep(response):
        if fresh:
            identity.set_session(response, session, secure=request.url.scheme == "https")
        return response

    studies = [state.study(study)] if study else list(state.studies.values())
    now = time.time()
    also = identity.same_browser(state, session)  # the `rater` id is only what the address says; the browser is who it proved to be
    for candidate in studies:
        if candidate.ratings_per_dialogue <= 0 or not (candidate.rating_questionnaire or questionnaires_for(candidate.task, "third_party")):
            continue
        jobs = pool(state, candidate)
        assignment = jobs.assign(rater, now, also=also)
        if assignment is None:
            continue
        dialogue = state.storage.dialogue(assignment.dialogue_id)
        if dialogue is None or not rater_forms(candidate, dialogue, rater):
            continue
        state.storage.save_assignment(candidate.id, assignment.model_dump())
        return keep(RedirectResponse(f"/rate/{candidate.id}/{assignment.dialogue_id}?rater={rater}", status_code=303))
    return keep(page(request, "rate_none.html", {"rater": rater}))


def _job(request: Request, study_id: str, dialogue_id: str, rater: str | None):
    state = platform(request)
    study = state.study(study_id)
    rater = rater_or_422(rater)
    if not identity.may_use(state, rater, identity.session_of(request)):
        raise HTTPException(403, identity.REFUSED)
    jobs = pool(state, study)
    current = jobs.current(rater, time.time())
    if current is None or current.dialogue_id != dialogue_id:
        raise HTTPException(403, "this dialogue is not your rating job (or the job expired); ask for a new one at /rate")
    dialogue = state.storage.dialogue(dialogue_id)
    if dialogue is None:
        raise HTTPException(404, "no such dialogue")
    if identity.same_browser(state, identity.session_of(request)).intersection(p.participant_id for p in dialogue.parties if p.participant_id):
        raise HTTPException(403, "you took part in this dialogue, so you may not rate it")  # a job given before this browser was known
    return state, study, jobs, dialogue, rater


MOVE_WORDS = {
    "accept": "accepts the offer",
    "reject": "rejects the offer",
    "quit": "quits without a deal",
    "accept-deal": "accepts the deal",
    "reject-deal": "rejects the deal",
    "walk-away": "walks away without a deal",
}


def _transcript(dialogue: Dialogue) -> list[dict]:
    """What a rater reads: who said what, with parties named by role or A/B, never the private views."""
    from duologue.web.questionnaires import party_label

    rows = []
    for event in dialogue.events:
        label = party_label(dialogue, event.party) if event.party else "System"
        if isinstance(event, Message):
            text = event.text
        elif isinstance(event, SubmitDeal):
            text = f"proposes a deal: they get {event.mine}, the other gets {event.theirs}"
        elif isinstance(event, Offer):
            text = f"makes a final offer of ${event.price:g}" if event.price is not None else "makes an offer"
        elif isinstance(event, Select):
            text = "selects " + ", ".join(str(v) for v in event.item.values())
        elif isinstance(event, SystemNote):
            text = f"(the dialogue ended: {event.name.replace('_', ' ')})"
        else:
            text = MOVE_WORDS.get(event.kind, event.kind.replace("-", " "))
        rows.append({"who": label, "text": text, "kind": event.kind})
    return rows


@router.get("/rate/{study_id}/{dialogue_id}")
async def job_page(request: Request, study_id: str, dialogue_id: str, rater: str | None = None):
    state, study, jobs, dialogue, rater = _job(request, study_id, dialogue_id, rater)
    forms = rater_forms(study, dialogue, rater)
    return page(request, "rate.html", {"study": study, "dialogue": dialogue, "rows": _transcript(dialogue), "forms": forms, "rater": rater, "problems": [], "answers": {}})


@router.post("/rate/{study_id}/{dialogue_id}")
async def job_submit(request: Request, study_id: str, dialogue_id: str, rater: str | None = None):
    state, study, jobs, dialogue, rater = _job(request, study_id, dialogue_id, rater)
    forms = rater_forms(study, dialogue, rater)
    answers = {k: v for k, v in (await request.form()).items() if k != "submit"}
    ratings, problems = read_answers(forms, answers)
    if problems:
        return page(request, "rate.html", {"study": study, "dialogue": dialogue, "rows": _transcript(dialogue), "forms": forms, "rater": rater, "problems": problems, "answers": answers}, status_code=422)
    try:
        assignment = jobs.complete(dialogue_id, rater, time.time())
    except RatingJobError as error:
        raise HTTPException(409, str(error)) from None
    state.storage.save_assignment(study.id, assignment.model_dump(), ratings)
    return page(request, "rate_done.html", {"rater": rater, "count": len(ratings)})

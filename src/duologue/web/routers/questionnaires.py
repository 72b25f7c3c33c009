"""Questionnaires after each dialogue (defined as data in duologue.web.questionnaires), then a completion code."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Body, HTTPException, Request
from fastapi.responses import RedirectResponse

from duologue.core.schema import Dialogue, Rating
from duologue.web import crowd
from duologue.web.deps import page, platform
from duologue.web.protocol import progress_of
from duologue.web.frames import invalid_text
from duologue.web.payments import too_short
from duologue.web.questionnaires import InvalidAnswers, QuestionnaireForm, completion_code, forms_for, get_questionnaire
from duologue.web.routers.chat import seat_or_404
from duologue.web.storage import Seat
from duologue.web.study import Study

router = APIRouter(tags=["questionnaires"])


def party_forms(study: Study | None, dialogue: Dialogue, seat: Seat) -> list[QuestionnaireForm]:
    """The study's questionnaire, else every built-in one that asks this party something in this task
    (the dialogue's own task: a study replaced since may name another)."""
    task_id = dialogue.meta.get("task_id") or (study.task if study else None)
    if study is not None and study.questionnaire and study.task == task_id:
        return [QuestionnaireForm(get_questionnaire(study.questionnaire), dialogue, "party", seat.party, task_id)]
    return forms_for(dialogue, "party", seat.party, task_id=task_id)


def read_answers(forms: list[QuestionnaireForm], answers: dict[str, Any]) -> tuple[list[Rating], list[str]]:
    """All forms' ratings, or every problem (keys are `<form index>.<field key>`)."""
    ratings: list[Rating] = []
    problems: list[str] = []
    for index, form in enumerate(forms):
        prefix = f"{index}."
        mine = {k[len(prefix) :]: v for k, v in answers.items() if isinstance(k, str) and k.startswith(prefix)}
        try:
            ratings.extend(form.ratings(mine))
        except InvalidAnswers as error:
            problems.extend(f"{prefix}{p.key}: {p.message}" for p in error.problems)
    known = {str(index) for index in range(len(forms))}  # compared as text: "²" and a 5,000-digit index are just unknown
    unknown = [k for k in answers if not (isinstance(k, str) and k.split(".", 1)[0] in known)]
    problems.extend(f"{k}: not a question here" for k in unknown)
    return ratings, problems


def _context(request: Request, token: str):
    state = platform(request)
    seat = seat_or_404(state, token, request)
    info = state.storage.info(seat.dialogue_id)
    if info is None:
        raise HTTPException(404, "no such dialogue")
    if info.status != "finished":
        raise HTTPException(409, "the dialogue is not over yet")
    dialogue = state.storage.dialogue(seat.dialogue_id)
    study = state.studies.get(info.study_id)
    short = too_short(study.pay if study else None, dialogue, seat.party)
    if short is not None and not (seat.questionnaire_done and seat.completion_code):
        if not seat.questionnaire_done:  # closed without a code, so the lobby seats this person afresh
            state.storage.complete_questionnaire(seat.token, [], "")
        raise HTTPException(403, f"{short} You may join the study again from its link.")
    return state, seat, info, dialogue, study


def code_for(state, info, seat: Seat) -> str:
    return completion_code(state.settings.secret, info.study_id, seat.participant_id or seat.token, prefix=state.settings.completion_code_prefix)


def _done(request: Request, state: Any, study: Study | None, seat: Seat):
    """The code page, with the study's crowd platform's way back (`crowd.finish`)."""
    code = seat.completion_code or ""
    extra: dict[str, Any] = {}
    if study is not None:
        ids = (progress_of(state).get(study.id, seat.participant_id).get("crowd") or {}) if seat.participant_id else {}
        extra = crowd.finish(study, code, ids)
    return page(request, "done.html", {"code": code, "study": study, **extra})


def _finish(state, info, seat: Seat, ratings) -> Seat:
    return state.storage.complete_questionnaire(seat.token, ratings, code_for(state, info, seat))


@router.get("/questionnaire/{token}")
async def questionnaire_page(request: Request, token: str):
    try:
        state, seat, info, dialogue, study = _context(request, token)
    except HTTPException as error:
        if error.status_code == 409:
            return RedirectResponse(f"/chat/{token}", status_code=303)
        raise
    if seat.questionnaire_done:
        return _done(request, state, study, seat)
    forms = party_forms(study, dialogue, seat)
    if not forms:
        seat = _finish(state, info, seat, [])
        return _done(request, state, study, seat)
    return page(request, "questionnaire.html", {"forms": forms, "token": token, "problems": [], "answers": {}, "study": study})


@router.post("/questionnaire/{token}")
async def questionnaire_submit(request: Request, token: str):
    state, seat, info, dialogue, study = _context(request, token)
    if seat.questionnaire_done:
        return _done(request, state, study, seat)
    form_data = await request.form()
    answers = {k: v for k, v in form_data.items() if k != "submit"}
    forms = party_forms(study, dialogue, seat)
    ratings, problems = read_answers(forms, answers)
    if problems:
        return page(request, "questionnaire.html", {"forms": forms, "token": token, "problems": problems, "answers": answers, "study": study}, status_code=422)
    seat = _finish(state, info, seat, ratings)
    return _done(request, state, study, seat)


@router.get("/api/questionnaire/{token}")
async def questionnaire_api(request: Request, token: str) -> dict[str, Any]:
    """The questions as JSON: keys to answer and the allowed answers."""
    state, seat, info, dialogue, study = _context(request, token)
    forms = party_forms(study, dialogue, seat)
    return {
        "done": seat.questionnaire_done,
        "questions": [
            {"key": f"{i}.{f.key}", "question": f.item.question, "options": f.item.options(), "required": f.item.required}
            for i, form in enumerate(forms)
            for f in form.fields
        ],
    }


@router.post("/api/questionnaire/{token}")
async def questionnaire_api_submit(request: Request, token: str, answers: Any = Body(...)) -> dict[str, Any]:
    state, seat, info, dialogue, study = _context(request, token)
    if seat.questionnaire_done:
        raise HTTPException(409, "this questionnaire was already answered")
    if not isinstance(answers, dict):
        raise HTTPException(422, "answers are a JSON object of question key -> answer")
    problem = invalid_text(answers)
    if problem is not None:
        raise HTTPException(422, f"answers: {problem}")
    ratings, problems = read_answers(party_forms(study, dialogue, seat), answers)
    if problems:  # one sentence in `detail`, as every refusal declares (the Refusal schema)
        raise HTTPException(422, "; ".join(problems))
    seat = _finish(state, info, seat, ratings)
    return {"completion_code": seat.completion_code, "ratings": len(ratings)}

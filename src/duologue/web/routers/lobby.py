"""The landing page and the lobby: participants arrive with an id, wait, and get a seat."""

from __future__ import annotations

import asyncio
import secrets

from fastapi import APIRouter, HTTPException, Request, WebSocket, WebSocketDisconnect
from fastapi.responses import RedirectResponse

from duologue.web import crowd, identity
from duologue.web.deps import PARTICIPANT_ID, PARTICIPANT_PARAMS, page, participant_from, platform
from duologue.web.matchmaker import LobbyRefused
from duologue.web.waiting import LobbyClock

router = APIRouter(tags=["lobby"])


@router.get("/")
async def landing(request: Request):
    state = platform(request)
    waiting = state.matchmaker.waiting_count()
    playing = state.hub.live_count()
    return page(request, "landing.html", {"studies": list(state.studies.values()), "waiting": waiting, "playing": playing})


@router.get("/healthz")
async def health() -> dict[str, str]:
    return {"status": "ok"}


@router.get("/study/{study_id}")
async def lobby(request: Request, study_id: str):
    """The waiting room. Without a participant id, a guest id is made so anyone can try a task."""
    state = platform(request)
    study = state.study(study_id)
    if crowd.is_preview(study, request.query_params):  # an MTurk worker looking before accepting: nobody is seated
        return page(request, "preview.html", {"study": study})
    participant = participant_from(request)
    from duologue.web.routers.protocol import check_link, gate

    if participant is None and crowd.mode(study) == "open":
        return RedirectResponse(f"/study/{study.id}?participant=guest-{secrets.token_hex(4)}", status_code=303)
    check_link(request, study, participant)
    assert participant is not None  # every crowd mode but `open` refuses an arrival without an id
    session = identity.session_of(request)
    fresh = session is None
    session = session or identity.new_session()
    if not identity.claim(state, participant, session):
        raise HTTPException(403, identity.REFUSED)
    try:
        response = gate(request, state, study, participant) or page(request, "lobby.html", {"study": study, "participant": participant})
    except BaseException:
        if fresh:  # the cookie goes out only with an accepted page: a refused one leaves the id unbound
            identity.release(state, participant, session)
        raise
    if fresh:
        identity.set_session(response, session, secure=request.url.scheme == "https")
    return response


async def _join_when_bots_are_warm(state, study, participant: str):
    """The matchmaker's seat, asked for once the study's bots are warm (at once, after the start)."""
    await state.bots_ready(study.id)
    return await state.matchmaker.join(study, participant)


@router.websocket("/ws/lobby/{study_id}")
async def lobby_socket(websocket: WebSocket, study_id: str):
    """Wait for a seat; the page is told where to go (`paired`) or why it cannot play (`refused`)."""
    state = websocket.app.state.platform
    await websocket.accept()
    study = state.studies.get(study_id)
    participant = next((websocket.query_params.get(n) for n in PARTICIPANT_PARAMS if websocket.query_params.get(n)), None)
    if study is None or participant is None or not PARTICIPANT_ID.match(participant):
        await websocket.send_json({"type": "refused", "reason": "unknown study or missing participant id"})
        await websocket.close(code=1008)
        return
    from duologue.web.protocol import next_step, progress_of
    from duologue.web.routers.protocol import BAD_LINK, came_by_link

    if not await state.storage.run(came_by_link, state, study, participant):
        await websocket.send_json({"type": "refused", "reason": BAD_LINK})  # the socket is no way round the signed link
        await websocket.close(code=1008)
        return
    if not await state.storage.run(identity.claim, state, participant, identity.session_of(websocket)):
        await websocket.send_json({"type": "refused", "reason": identity.REFUSED})
        await websocket.close(code=1008)
        return

    progress = progress_of(state)
    pays_waiting = study.pay is not None and study.pay.waiting_leave_after is not None
    done = await state.storage.run(progress.get, study.id, participant) if study.protocol is not None or pays_waiting else {}
    if next_step(study.protocol, done) is not None:  # consent and surveys come first
        await websocket.send_json({"type": "refused", "reason": "please start from the study link: a few pages come before the lobby"})
        await websocket.close(code=1008)
        return
    if "left_waiting" in done:  # paid for waiting: never paired afterwards as well
        await websocket.send_json({"type": "refused", "reason": "you left the waiting room with a code for your time; thank you!"})
        await websocket.close(code=1008)
        return
    await websocket.send_json({"type": "waiting", "bot_wait_seconds": study.bot_wait_seconds, "humans": study.allows_humans})
    clock = LobbyClock(state, study, participant)  # the time this socket is open and unpaired
    await clock.tick()
    joining = asyncio.ensure_future(_join_when_bots_are_warm(state, study, participant))
    leaving = asyncio.ensure_future(websocket.receive())
    try:
        while True:
            done, _ = await asyncio.wait({joining, leaving}, timeout=clock.until_beat(), return_when=asyncio.FIRST_COMPLETED)
            if not clock.until_beat():
                await clock.tick()
            if not done:
                continue
            if joining in done:
                break
            message = leaving.result()
            if message.get("type") == "websocket.disconnect":
                joining.cancel()
                return
            leaving = asyncio.ensure_future(websocket.receive())
        try:
            seat = joining.result()
        except LobbyRefused as refused:
            await websocket.send_json({"type": "refused", "reason": str(refused)})
            await websocket.close()
            return
        await websocket.send_json({"type": "paired", "url": f"/chat/{seat.token}"})
        await websocket.close()
    except WebSocketDisconnect:
        joining.cancel()
    finally:
        leaving.cancel()
        if not joining.done():
            joining.cancel()
        await clock.stop()

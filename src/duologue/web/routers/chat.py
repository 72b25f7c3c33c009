"""The chat: a page per seat (its secret token in the URL), a websocket, and an HTTP move API.

A seat's token only ever opens that party's own view; asking for the other party's view is
refused (403), and so is a token that is not a seat (404).
"""

from __future__ import annotations

import json
from typing import Any

from fastapi import APIRouter, Body, HTTPException, Request, WebSocket, WebSocketDisconnect
from pydantic import ValidationError

from duologue.core import actions
from duologue.web.app import page, platform
from duologue.web.live import MoveRefused, safe_outcome
from duologue.web.storage import Seat

router = APIRouter(tags=["chat"])

MAX_FRAME_CHARS = 20_000
"""A websocket frame longer than this is refused before parsing (no message needs more)."""


def seat_or_404(state, token: str) -> Seat:
    seat = state.storage.seat_by_token(token)
    if seat is None or seat.kind != "human":
        raise HTTPException(404, "no such seat: the link may be wrong or expired")
    return seat


def stored_view(state, seat: Seat) -> dict[str, Any]:
    """A finished dialogue's view for one party, read back from the database (after a restart)."""
    dialogue = state.storage.dialogue(seat.dialogue_id)
    if dialogue is None:
        raise HTTPException(404, "no such dialogue")
    return {
        "type": "state",
        "dialogue": dialogue.id,
        "task": dialogue.meta.get("task_id"),
        "family": dialogue.task,
        "party": seat.party,
        "role": dialogue.party(seat.party).role,
        "public": dialogue.scenario.public,
        "private": dialogue.scenario.private.get(seat.party, {}),
        "items": [],
        "events": [{**e.model_dump(mode="json"), "own": e.party == seat.party} for e in dialogue.events],
        "legal": [],
        "done": True,
        "feedback": [],
        "partner_connected": False,
        "outcome": safe_outcome(dialogue, seat.party),
        "end_reason": dialogue.meta.get("end_reason"),
        "questionnaire_url": f"/questionnaire/{seat.token}",
        "max_message_chars": state.settings.max_message_chars,
    }


def parse_move(data: Any) -> actions.Action:
    try:
        return actions.parse_action(data)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise MoveRefused(f"not a valid move: {where}: {first['msg']}" if where else f"not a valid move: {first['msg']}", status=422) from None


@router.get("/chat/{token}")
async def chat_page(request: Request, token: str):
    state = platform(request)
    seat = seat_or_404(state, token)
    info = state.storage.info(seat.dialogue_id)
    study = state.studies.get(info.study_id) if info else None
    return page(request, "chat.html", {"seat": seat, "study": study, "token": token})


@router.get("/api/chat/{token}/view")
async def view(request: Request, token: str, party: str | None = None) -> dict[str, Any]:
    """This seat's own view. `party` may only name the seat's own party."""
    state = platform(request)
    seat = seat_or_404(state, token)
    if party is not None and party != seat.party:
        raise HTTPException(403, "you can only see your own side of the dialogue")
    live = state.hub.get(seat.dialogue_id)
    return live.view(seat.party) if live is not None else stored_view(state, seat)


@router.post("/api/chat/{token}/moves")
async def post_move(request: Request, token: str, move: Any = Body(...)) -> dict[str, Any]:
    """Make a move (`{"kind": "say", "text": "hi"}`, `{"kind": "submit-deal", ...}`)."""
    state = platform(request)
    seat = seat_or_404(state, token)
    live = state.hub.get(seat.dialogue_id)
    if live is None or live.task.done:
        raise HTTPException(409, "this dialogue is over")
    try:
        await live.move(seat.party, parse_move(move))
    except MoveRefused as refused:
        raise HTTPException(refused.status, refused.reason) from None
    return {"ok": True, "view": live.view(seat.party)}


@router.websocket("/ws/chat/{token}")
async def chat_socket(websocket: WebSocket, token: str):
    """Frames in: `{"type": "move", "action": {...}}`, `{"type": "typing"}`. Out: `state`, `typing`,
    `partner` (connected or not) and `error` frames."""
    state = websocket.app.state.platform
    await websocket.accept()
    seat = state.storage.seat_by_token(token)
    if seat is None or seat.kind != "human":
        await websocket.send_json({"type": "error", "status": 404, "reason": "no such seat"})
        await websocket.close(code=1008)
        return
    live = state.hub.get(seat.dialogue_id)
    if live is None:
        await websocket.send_json(stored_view(state, seat))
        await websocket.close()
        return
    await live.connect(seat.party, websocket)
    try:
        while True:
            raw = await websocket.receive_text()
            if len(raw) > MAX_FRAME_CHARS:
                await websocket.send_json({"type": "error", "status": 413, "reason": "that message is far too long"})
                continue
            try:
                frame = json.loads(raw)
            except ValueError:
                await websocket.send_json({"type": "error", "status": 400, "reason": "frames are JSON objects"})
                continue
            if not isinstance(frame, dict):
                await websocket.send_json({"type": "error", "status": 400, "reason": "frames are JSON objects"})
                continue
            if frame.get("type") == "typing":
                await live.typing(seat.party)
            elif frame.get("type") == "move":
                try:
                    await live.move(seat.party, parse_move(frame.get("action")))
                except MoveRefused as refused:
                    await websocket.send_json({"type": "error", "status": refused.status, "reason": refused.reason})
            elif frame.get("type") == "ping":
                await websocket.send_json({"type": "pong"})
            else:
                await websocket.send_json({"type": "error", "status": 400, "reason": "unknown frame type"})
    except WebSocketDisconnect:
        pass
    finally:
        await live.disconnect(seat.party, websocket)

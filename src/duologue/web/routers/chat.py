"""The chat: a page per seat (its secret token in the URL), a websocket, and an HTTP move API.

A seat's token only ever opens that party's own view; asking for the other party's view is
refused (403), and so is a token that is not a seat (404).

Moves may carry a client-chosen `move_id` (websocket frame field, or in the HTTP body next to
`kind`): a move sent again with the same id (a retry after a lost answer or a reconnect) is
acknowledged (`duplicate: true`) and not applied twice. With several workers any worker serves any
seat: the dialogue is loaded from storage and kept in step with the others.
"""

from __future__ import annotations

import json
from typing import Any

from fastapi import APIRouter, Body, Depends, HTTPException, Request, WebSocket, WebSocketDisconnect
from starlette.requests import HTTPConnection

try:  # starlette 1.x says so when a socket is written after it closed (a client gone mid-move, a missed ping)
    from starlette.websockets import WebSocketDisconnected as SocketClosed
except ImportError:  # older starlette raises a plain RuntimeError there
    SocketClosed = RuntimeError  # type: ignore[misc,assignment]

from duologue.core import actions, moves
from duologue.core.spec import TaskSpec
from duologue.tasks import UnknownNameError, task_class
from duologue.web import identity
from duologue.web.deps import page, platform
from duologue.web.frames import cleaned, invalid_text
from duologue.web.cluster import ClusterUnavailable
from duologue.web.limits import RateLimited, limit_moves
from duologue.web.live import MoveRefused, safe_outcome
from duologue.web.payments import partner_left
from duologue.web.replay import ReplayMismatch
from duologue.web.storage import Seat, StorageUnavailable
from duologue.web.widgets import page_info, task_spec_of

router = APIRouter(tags=["chat"])

MAX_FRAME_CHARS = 20_000
"""A websocket frame longer than this is refused before parsing (no message needs more)."""
MAX_MOVE_ID_CHARS = 100


def move_id_of(value: Any) -> str | None:
    """A client's move id: a short string, or none (older clients send none)."""
    if value is None:
        return None
    if not isinstance(value, str) or not 1 <= len(value) <= MAX_MOVE_ID_CHARS or invalid_text(value) is not None:
        raise MoveRefused(f"move_id must be a string of 1-{MAX_MOVE_ID_CHARS} characters", status=422)
    return value


def echoable(move_id: Any) -> bool:
    """Whether a client's move id can be sent back in an answer (a string a socket can write)."""
    return isinstance(move_id, str) and len(move_id) <= MAX_MOVE_ID_CHARS and invalid_text(move_id) is None


async def seat_of(state, token: str, connection: HTTPConnection | None = None) -> Seat:
    """`seat_or_404`, read in the storage's thread (the event loop goes on meanwhile)."""
    return await state.storage.run(seat_or_404, state, token, connection)


def seat_or_404(state, token: str, connection: HTTPConnection | None = None) -> Seat:
    seat = state.storage.seat_by_token(token)
    if seat is None or seat.kind != "human":
        raise HTTPException(404, "no such seat: the link may be wrong or expired")
    if connection is not None and not identity.may_use(state, seat.participant_id, identity.session_of(connection)):
        raise HTTPException(403, identity.REFUSED)
    return seat


def seat_for_socket(state, token: str, session: str | None) -> tuple[Seat | None, bool]:
    """A socket's seat (None: no such token) and whether this browser may use it, in one call."""
    seat = state.storage.seat_by_token(token)
    return seat, seat is None or identity.may_use(state, seat.participant_id, session)


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
        "schema": moves.action_schema([]),
        **page_info(_spec_or_none(dialogue.meta.get("task_id"))),
        "done": True,
        "feedback": [],
        "partner_connected": False,
        "partner_left": partner_left(dialogue, seat.party),
        "outcome": safe_outcome(dialogue, seat.party),
        "end_reason": dialogue.meta.get("end_reason"),
        "questionnaire_url": f"/questionnaire/{seat.token}",
        "max_message_chars": state.settings.max_message_chars,
    }


def _spec_or_none(task_id: Any) -> TaskSpec | None:
    try:
        return task_spec_of(task_class(task_id)) if isinstance(task_id, str) else None
    except (UnknownNameError, ImportError):
        return None


def parse_move(data: Any) -> actions.Action:
    if not isinstance(data, dict):  # JSON text inside the JSON would be read twice, and checked against the schema as a string
        raise MoveRefused(f"not a valid move: a move is a JSON object with a `kind`, not {type(data).__name__}", status=422)
    problem = invalid_text(data)
    if problem is not None:
        raise MoveRefused(f"not a valid move: {problem}", status=422)
    try:
        return actions.parse_action(cleaned(data))
    except ValueError as error:
        raise MoveRefused(f"not a valid move: {error}", status=422) from None


@router.get("/chat/{token}")
async def chat_page(request: Request, token: str):
    state = platform(request)
    seat = await seat_of(state, token, request)
    info = await state.storage.run(state.storage.info, seat.dialogue_id)
    study = state.studies.get(info.study_id) if info else None
    return page(request, "chat.html", {"seat": seat, "study": study, "token": token})


@router.get("/api/chat/{token}/view")
async def view(request: Request, token: str, party: str | None = None) -> dict[str, Any]:
    """This seat's own view. `party` may only name the seat's own party."""
    state = platform(request)
    seat = await seat_of(state, token, request)
    if party is not None and party != seat.party:
        raise HTTPException(403, "you can only see your own side of the dialogue")
    live = await state.hub.open(seat.dialogue_id)
    return await live.view_now(seat.party) if live is not None else await state.storage.run(stored_view, state, seat)


@router.post("/api/chat/{token}/moves", dependencies=[Depends(limit_moves)])
async def post_move(request: Request, token: str, move: Any = Body(...)) -> dict[str, Any]:
    """Make a move (`{"kind": "say", "text": "hi"}`, `{"kind": "submit-deal", ...}`)."""
    state = platform(request)
    seat = await seat_of(state, token, request)
    try:
        move_id = move_id_of(request.query_params.get("move_id") or (move.pop("move_id", None) if isinstance(move, dict) else None))
        action = parse_move(move)
    except MoveRefused as refused:
        raise HTTPException(refused.status, refused.reason) from None
    live = await state.hub.open(seat.dialogue_id)
    if live is None or live.task.done:
        if move_id is not None and await state.storage.run(state.storage.move_seen, seat.dialogue_id, move_id):
            view = await live.view_now(seat.party) if live is not None else await state.storage.run(stored_view, state, seat)
            return {"ok": True, "duplicate": True, "view": view}
        raise HTTPException(409, "this dialogue is over")
    try:
        applied = await live.move(seat.party, action, move_id, sent=move)
    except MoveRefused as refused:
        raise HTTPException(refused.status, refused.reason) from None
    return {"ok": True, "duplicate": not applied, "view": await live.view_now(seat.party)}


@router.websocket("/ws/chat/{token}")
async def chat_socket(websocket: WebSocket, token: str):
    """Frames in: `{"type": "move", "action": {...}, "move_id": "..."}` (move_id optional),
    `{"type": "typing"}`, `{"type": "resync"}` (send the whole state again). Out: `state` (or, for a
    socket opened with `?frames=delta`, `delta` after the first state: see `web/deltas.py`), `typing`,
    `partner` (connected or not), `ack` (for a move with a move_id) and `error` frames (503: the
    platform is briefly unavailable, reconnect and resend)."""
    state = websocket.app.state.platform
    await websocket.accept()
    try:
        seat, allowed = await state.storage.run(seat_for_socket, state, token, identity.session_of(websocket))
        live = await state.hub.open(seat.dialogue_id) if seat is not None and seat.kind == "human" and allowed else None
    except (StorageUnavailable, ClusterUnavailable, ReplayMismatch):  # a replica the stored events do not rebuild waits too
        await websocket.send_json({"type": "error", "status": 503, "reason": "the platform is briefly unavailable; reconnecting"})
        await websocket.close(code=1013)
        return
    if seat is None or seat.kind != "human":
        await websocket.send_json({"type": "error", "status": 404, "reason": "no such seat"})
        await websocket.close(code=1008)
        return
    if not allowed:
        await websocket.send_json({"type": "error", "status": 403, "reason": identity.REFUSED})
        await websocket.close(code=4403, reason="in use in another browser")
        return
    if live is None:
        await websocket.send_json(await state.storage.run(stored_view, state, seat))
        await websocket.close()
        return
    await live.connect(seat.party, websocket, deltas=websocket.query_params.get("frames") == "delta")
    frame_limit = websocket.app.state.frame_limit
    try:
        while True:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                raise WebSocketDisconnect(message.get("code", 1000))
            raw = message.get("text")
            if raw is None:  # a binary frame: this protocol is JSON text; say so and close cleanly
                await websocket.send_json({"type": "error", "status": 400, "reason": "frames are JSON text, not binary"})
                await websocket.close(code=1003)
                return
            if len(raw) > MAX_FRAME_CHARS:
                await websocket.send_json({"type": "error", "status": 413, "reason": "that message is far too long"})
                continue
            try:
                frame = json.loads(raw)
            except (ValueError, RecursionError):  # not JSON, or nested deeper than any move
                frame = None
            kind = frame.get("type") if isinstance(frame, dict) else None
            if kind != "move" and not frame_limit.allow(token):  # moves have a limit of their own
                if kind != "typing":  # a hint, dropped quietly; anything else is told why
                    await websocket.send_json({"type": "error", "status": 429, "reason": "too many frames: slow down", "retry_after": frame_limit.retry_after(token)})
                continue
            if not isinstance(frame, dict):
                await websocket.send_json({"type": "error", "status": 400, "reason": "frames are JSON objects"})
                continue
            if frame.get("type") == "typing":
                await live.typing(seat.party)
            elif frame.get("type") == "move":
                move_id = frame.get("move_id")
                try:
                    websocket.app.state.move_limit.check(token)
                    move_id = move_id_of(move_id)
                    applied = await live.move(seat.party, parse_move(frame.get("action")), move_id, sent=frame.get("action"))
                    if move_id is not None:
                        await websocket.send_json({"type": "ack", "move_id": move_id, "duplicate": not applied})
                        if not applied:  # the retry's sender may have missed the state that followed
                            await live.resend(seat.party, websocket)
                except MoveRefused as refused:
                    error = {"type": "error", "status": refused.status, "reason": refused.reason}
                    await websocket.send_json({**error, "move_id": move_id} if echoable(move_id) else error)
                except RateLimited as limited:
                    error = {"type": "error", "status": 429, "reason": str(limited), "retry_after": limited.retry_after}
                    await websocket.send_json({**error, "move_id": move_id} if echoable(move_id) else error)
            elif frame.get("type") == "ping":
                await websocket.send_json({"type": "pong"})
            elif frame.get("type") == "resync":
                await live.resend(seat.party, websocket)
            else:
                await websocket.send_json({"type": "error", "status": 400, "reason": "unknown frame type"})
    except (WebSocketDisconnect, SocketClosed):
        pass  # the page reconnects (and resends a move whose answer it missed; its move id makes it once)
    finally:
        await live.disconnect(seat.party, websocket)

"""The bare relay: a minimal websocket server that pairs two clients and forwards each frame.

It is what any relay costs at least on this stack (uvicorn + starlette, as the platform): no
rules, no storage, no views, just receive a text frame and send it to the partner. Clients open
`/ws/{room}/{seat}` (seat 0 or 1); when both seats of a room are taken, each gets
`{"type": "paired"}` and from then on every frame one sends reaches the other unchanged. When one
side leaves, the other is closed.

Run: `python relay.py --port 8765` (loopback only).
"""

from __future__ import annotations

import argparse
import asyncio

from starlette.applications import Starlette
from starlette.routing import Route, WebSocketRoute
from starlette.responses import PlainTextResponse
from starlette.websockets import WebSocket, WebSocketDisconnect


class Room:
    """Two seats; a future per seat that resolves to the socket sitting there."""

    def __init__(self) -> None:
        loop = asyncio.get_running_loop()
        self.seats: list[asyncio.Future] = [loop.create_future(), loop.create_future()]


ROOMS: dict[str, Room] = {}


async def relay_socket(websocket: WebSocket) -> None:
    room_id = websocket.path_params["room"]
    seat = websocket.path_params["seat"]
    await websocket.accept()
    if seat not in (0, 1):
        await websocket.close(code=1008)
        return
    room = ROOMS.setdefault(room_id, Room())
    if room.seats[seat].done():  # a seat is taken once
        await websocket.close(code=1008)
        return
    room.seats[seat].set_result(websocket)
    partner: WebSocket | None = None
    try:
        partner = await room.seats[1 - seat]
        if seat == 1:  # the room is full: forget it, so memory stays flat over a long run
            ROOMS.pop(room_id, None)
        await websocket.send_text('{"type": "paired"}')
        while True:
            text = await websocket.receive_text()
            await partner.send_text(text)
    except WebSocketDisconnect:
        pass
    except Exception:  # noqa: BLE001 - the partner went away while we forwarded
        pass
    finally:
        if partner is None and ROOMS.get(room_id) is room:  # left before a partner came
            del ROOMS[room_id]
        if partner is not None:
            try:
                await partner.close()
            except Exception:  # noqa: BLE001 - already closed by its own side
                pass


async def health(request) -> PlainTextResponse:
    return PlainTextResponse("ok")


app = Starlette(routes=[Route("/healthz", health), WebSocketRoute("/ws/{room}/{seat:int}", relay_socket)])


def main() -> None:
    import uvicorn

    parser = argparse.ArgumentParser(description="the bare websocket relay of the load benchmark")
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    uvicorn.run(app, host="127.0.0.1", port=args.port, log_level="warning")


if __name__ == "__main__":
    main()

"""A seat takes at most `sockets_per_seat` chat sockets on a worker: a newer tab closes the oldest
with a reason (close code 4409, which the page does not reconnect after), so a script opening
hundreds cannot make every move be sent hundreds of times."""

from __future__ import annotations

from contextlib import ExitStack

import pytest
from starlette.websockets import WebSocketDisconnect

from duologue.web.study import Partner, Study

from web.webtest_helpers import join_lobby, state_where, until


def test_a_seat_keeps_its_newest_sockets_and_closes_the_oldest_with_a_reason(make_client):
    study = Study(id="talk", task="casino-v0", partners=[Partner(kind="bot", agent="rule")], bot_wait_seconds=0.05)
    client = make_client([study], sockets_per_seat=4)
    token = join_lobby(client, "talk", "tabs-1")
    with ExitStack() as stack:
        tabs = []
        for _ in range(7):
            ws = stack.enter_context(client.websocket_connect(f"/ws/chat/{token}"))
            until(ws, state_where(lambda s: True))  # this tab is connected before the next opens
            tabs.append(ws)
        hub = client.app.state.platform.hub
        live = next(iter(hub.dialogues.values()))
        seat = client.app.state.platform.storage.seat_by_token(token)
        assert len(live.occupants[seat.party].connections) == 4  # (checked first: no read below waits for a frame that never comes)
        for old in tabs[:3]:  # the three oldest gave way, each told why
            frame = until(old, lambda f: f.get("type") == "error")
            assert frame["status"] == 409 and "newer tabs" in frame["reason"]
            with pytest.raises(WebSocketDisconnect) as closed:
                old.receive_json()
            assert closed.value.code == 4409  # the page shows the reason and does not reconnect
        newest = tabs[-1]
        newest.send_json({"type": "move", "action": {"kind": "say", "text": "Hello from the newest tab"}, "move_id": "m-1"})
        assert until(newest, lambda f: f.get("type") == "ack")["move_id"] == "m-1"
        for tab in tabs[3:]:  # the four kept all see the move
            until(tab, lambda f: f.get("type") in ("state", "delta") and "Hello from the newest tab" in str(f))

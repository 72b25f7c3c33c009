"""Delta state frames: a page that asks for them gets one full state, then only what changed, and
ends up with exactly the view a full-frame page sees; gaps are mended by a resync."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from duologue.web.deltas import FrameLog, apply, delta
from web.webtest_helpers import join_lobby, next_move

SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.text(max_size=4))
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3), max_leaves=8)
VIEWS = st.fixed_dictionaries(
    {"type": st.just("state"), "events": st.lists(st.dictionaries(st.sampled_from(["kind", "text", "party"]), SCALARS, max_size=3), max_size=6)},
    optional={key: VALUES for key in ("legal", "done", "turn", "outcome", "schema", "partner_connected")},
)


@settings(derandomize=True, max_examples=300, suppress_health_check=[HealthCheck.too_slow], print_blob=True)
@given(before=VIEWS, after=VIEWS)
def test_applying_a_delta_gives_the_new_view(before, after):
    frame = {"type": "delta", "seq": 2, **delta(before, after)}
    merged = apply({**before, "seq": 1}, frame)
    merged.pop("seq")
    assert {k: v for k, v in merged.items() if v is not None or k in after} == after


def test_a_growing_transcript_is_sent_once():
    log = FrameLog()
    connection = object()
    log.subscribe(connection)
    view = {"type": "state", "events": [], "legal": ["say"], "turn": 0}
    first = log.frame(connection, view)
    assert first["type"] == "state" and first["seq"] == 1
    for turn in range(1, 30):
        view = {**view, "events": [*view["events"], {"kind": "message", "text": f"line {turn}" * 10}], "turn": turn}
        frame = log.frame(connection, view)
        assert frame["type"] == "delta" and frame["seq"] == turn + 1
        assert frame["events_from"] == turn - 1 and len(frame["events"]) == 1
        assert set(frame["changed"]) == {"turn"}
    assert log.frame(object(), view)["type"] == "state"  # a connection that did not ask: full views, unnumbered
    assert "seq" not in log.frame(object(), view)


@pytest.mark.parametrize("deltas", [True, False])
def test_the_state_a_connection_was_last_sent_is_not_sent_again(deltas):
    """A page that connected while a move was being stored is sent the state once, not once by its
    connection and again by the move's broadcast: the page moves on every state showing its turn."""
    log = FrameLog()
    connection = object()
    log.subscribe(connection, deltas=deltas)
    view = {"type": "state", "events": [{"kind": "message", "text": "hi"}], "legal": ["say"], "turn": 1, "seconds_left": 100.0}
    assert log.full(connection, view)["type"] == "state"
    assert log.frame(connection, {**view, "events": list(view["events"])}) is None
    assert log.frame(connection, {**view, "seconds_left": 98.5}) is None  # only the clock moved
    moved = {**view, "events": [*view["events"], {"kind": "message", "text": "and you?"}], "legal": [], "turn": 2}
    frame = log.frame(connection, moved)
    assert frame is not None and frame["type"] == ("delta" if deltas else "state")


def test_without_a_change_a_delta_is_empty():
    before = {"type": "state", "events": [{"kind": "message"}], "legal": ["say"]}
    assert delta(before, dict(before)) == {"changed": {}}


@pytest.mark.parametrize("study", ["casino", "craigslist"])
def test_a_delta_page_ends_with_the_same_view_as_a_full_page_and_receives_less(client, study):
    token = join_lobby(client, study, f"delta-{study}")
    with client.websocket_connect(f"/ws/chat/{token}?frames=delta") as ws:
        state = ws.receive_json()
        assert state["type"] == "state" and state["seq"] == 1
        full_bytes = delta_bytes = 0
        said, events_sent, first_events = 0, 0, len(state["events"])
        for _ in range(60):
            if state["done"]:
                break
            if state["legal"]:
                ws.send_json({"type": "move", "action": next_move(state, said)})
                said += 1
            while True:
                frame = ws.receive_json()
                if frame["type"] in ("state", "delta"):
                    break
                assert frame["type"] != "error", frame
            if frame["type"] == "delta":
                assert frame["seq"] == state["seq"] + 1
                delta_bytes += len(json.dumps(frame))
                if "events_from" in frame:
                    assert frame["events_from"] == len(state["events"]), "a delta resent events the page already had"
                    events_sent += len(frame["events"])
                state = apply(state, frame)
                full_bytes += len(json.dumps(client.get(f"/api/chat/{token}/view").json()))
            else:
                state = frame
        assert state["done"], "the dialogue did not end"
        reference = client.get(f"/api/chat/{token}/view").json()
        assert {k: v for k, v in state.items() if k != "seq"} == reference
        assert events_sent == len(state["events"]) - first_events  # every event sent once, after the first state
        # the saving grows with the dialogue's length; even a short one about halves the bytes
        assert delta_bytes < 0.75 * full_bytes, (delta_bytes, full_bytes)


def test_a_resync_request_gets_the_whole_state_with_the_next_number(client):
    token = join_lobby(client, "casino", "delta-resync")
    with client.websocket_connect(f"/ws/chat/{token}?frames=delta") as ws:
        first = ws.receive_json()
        ws.send_json({"type": "resync"})
        frame = ws.receive_json()
        while frame["type"] not in ("state", "delta"):
            frame = ws.receive_json()
        assert frame["type"] == "state" and frame["seq"] == first["seq"] + 1
        assert frame["events"] == first["events"][: len(frame["events"])]


def test_a_page_that_does_not_ask_keeps_getting_full_states(client):
    token = join_lobby(client, "casino", "delta-none")
    with client.websocket_connect(f"/ws/chat/{token}") as ws:
        state = ws.receive_json()
        assert state["type"] == "state" and "seq" not in state
        ws.send_json({"type": "move", "action": next_move(state, 0)})
        frame = ws.receive_json()
        while frame["type"] not in ("state", "delta"):
            frame = ws.receive_json()
        assert frame["type"] == "state" and len(frame["events"]) >= 1

"""State frames that carry only what changed since the last one a connection was sent.

A party's page needs the whole view of its dialogue once (on connect or reload), then only its
changes: a full view carries the transcript so far, so sending it after every move makes a
dialogue's traffic grow with the square of its length. A connection that asks for deltas (the
chat page does, with `?frames=delta` on its websocket) gets:

* `{"type": "state", "seq": n, ...the whole view}` first, after a `resync` request, and whenever
  its previous view is unknown here;
* then `{"type": "delta", "seq": n + 1, "changed": {key: new value}, "events_from": k,
  "events": [...]}`: the view's keys whose value changed, and the transcript's events from
  position `k` on (the events before `k` are the ones the client already has).

The client applies a delta only when its `seq` follows the last one it applied; on a gap it sends
`{"type": "resync"}` and gets a full state. A connection that did not ask keeps getting full
`state` frames, as before, so older clients and scripts keep working.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from typing import Any

import orjson

log = logging.getLogger(__name__)

EVENTS = "events"


@dataclass
class Sent:
    """What one connection was last sent: its sequence number and the view."""

    seq: int = 0
    view: dict[str, Any] | None = None
    deltas: bool = True


VOLATILE = frozenset({"seconds_left"})
"""View keys that change with the clock alone: a view that differs only there is nothing new."""


def same_state(before: dict[str, Any], after: dict[str, Any]) -> bool:
    """Whether two views show the same state (the events shared between views compare by identity first)."""
    return before.keys() == after.keys() and all(before[key] == after[key] for key in after if key not in VOLATILE)


@dataclass
class FrameLog:
    """Per connection of one dialogue: whether it takes deltas, and what it was last sent."""

    sent: dict[Any, Sent] = field(default_factory=dict)

    def subscribe(self, connection: Any, *, deltas: bool = True) -> None:
        """Follow what this connection is sent; with `deltas` it takes delta frames from now on
        (its next frame is a full state), else full unnumbered states as before."""
        self.sent[connection] = Sent(deltas=deltas)

    def forget(self, connection: Any) -> None:
        self.sent.pop(connection, None)

    def full(self, connection: Any, view: dict[str, Any]) -> dict[str, Any]:
        """A full state frame for `connection` (numbered when it takes deltas)."""
        record = self.sent.get(connection)
        if record is None:
            return view
        record.view = view
        if not record.deltas:
            return view
        record.seq += 1
        return {**view, "seq": record.seq}

    def frame(self, connection: Any, view: dict[str, Any]) -> dict[str, Any] | None:
        """The frame that brings `connection` from what it was last sent to `view`; None when it
        was last sent this very state (a page that connected while a move was being stored gets
        the state once, not again: a page moves on every state that shows its turn)."""
        record = self.sent.get(connection)
        if record is not None and record.view is not None and same_state(record.view, view):
            return None
        if record is None or record.view is None or not record.deltas:
            return self.full(connection, view)
        frame = delta(record.view, view)
        record.seq += 1
        record.view = view
        return {"type": "delta", "seq": record.seq, **frame}


def delta(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """`changed` keys of `after` (new values), and the transcript's events past the common prefix."""
    changed = {key: value for key, value in after.items() if key != EVENTS and before.get(key, _MISSING) != value}
    removed = [key for key in before if key not in after]
    for key in removed:
        changed[key] = None
    old, new = before.get(EVENTS, []), after.get(EVENTS, [])
    common = 0
    for left, right in zip(old, new, strict=False):
        if left is not right and left != right:  # the live views share unchanged events' JSON
            break
        common += 1
    out: dict[str, Any] = {"changed": changed}
    if common != len(old) or len(new) != len(old):
        out["events_from"] = common
        out["events"] = new[common:]
    return out


def apply(state: dict[str, Any], frame: dict[str, Any]) -> dict[str, Any]:
    """The client's side, for tests and Python clients: `state` after a delta `frame`."""
    out = {**state, **frame.get("changed", {}), "seq": frame["seq"]}
    if "events_from" in frame:
        out[EVENTS] = list(state.get(EVENTS, []))[: frame["events_from"]] + list(frame["events"])
    return out


_MISSING = object()


UNSHOWABLE = {"type": "error", "status": 500, "reason": "this dialogue cannot be shown: the task's view of it is not valid (the organisers can see why in the log)"}
"""Sent instead of a view that the task's code failed to build or that JSON cannot hold."""
UNSHOWABLE_CLOSE = 4500
"""The close code after `UNSHOWABLE`: the page shows the reason and does not reconnect into the same error."""
UNSHOWABLE_REASON = "This dialogue cannot be shown (an error in the task); please tell the study's organisers."
"""The close frame's reason (at most 123 bytes), which the page shows."""


def frame_text(frame: dict[str, Any]) -> str | None:
    """`encode(frame)`, or None (logged) when the task put something in it that JSON cannot hold."""
    try:
        return encode(frame)
    except (TypeError, ValueError):
        log.exception("a %s frame cannot be written as JSON", frame.get("type"))
        return None


def encode(frame: dict[str, Any]) -> str:
    """A frame as JSON text: orjson (several times faster than the standard library, which the
    websocket's own `send_json` uses), falling back to it for what orjson refuses (an integer
    beyond 64 bits)."""
    try:
        return orjson.dumps(frame).decode()
    except TypeError:  # orjson.JSONEncodeError is a TypeError
        return json.dumps(frame, ensure_ascii=False, separators=(",", ":"))

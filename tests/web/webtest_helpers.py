"""Helpers for driving the platform from tests: join a lobby, read frames until a condition."""

from __future__ import annotations

import random
from typing import Any, Callable

from fastapi.testclient import TestClient

from duologue.core import moves

ADMIN = "test-admin-token"
"""The admin token of the test apps."""


def join_lobby(client: TestClient, study: str, participant: str) -> str:
    """Wait in the lobby until paired; returns the seat token."""
    with client.websocket_connect(f"/ws/lobby/{study}?participant={participant}") as ws:
        while True:
            frame = ws.receive_json()
            if frame["type"] == "paired":
                return frame["url"].rsplit("/", 1)[1]
            if frame["type"] == "refused":
                raise AssertionError(f"refused: {frame['reason']}")


def until(ws, condition: Callable[[dict[str, Any]], bool], limit: int = 200, seen: list | None = None) -> dict[str, Any]:
    """Read frames until one satisfies `condition`; every frame is also appended to `seen`."""
    for _ in range(limit):
        frame = ws.receive_json()
        if seen is not None:
            seen.append(frame)
        if condition(frame):
            return frame
    raise AssertionError("condition not met")


def state_where(condition: Callable[[dict[str, Any]], bool]) -> Callable[[dict[str, Any]], bool]:
    return lambda frame: frame.get("type") == "state" and condition(frame)


def pair_two(client: TestClient, study: str, first: str = "alice", second: str = "bob") -> tuple[str, str]:
    """Two people join a lobby one after the other; returns their seat tokens."""
    with client.websocket_connect(f"/ws/lobby/{study}?participant={first}") as lobby_a:
        assert lobby_a.receive_json()["type"] == "waiting"
        with client.websocket_connect(f"/ws/lobby/{study}?participant={second}") as lobby_b:
            assert lobby_b.receive_json()["type"] == "waiting"
            paired_b = lobby_b.receive_json()
        paired_a = lobby_a.receive_json()
    assert paired_a["type"] == paired_b["type"] == "paired", (paired_a, paired_b)
    return paired_a["url"].rsplit("/", 1)[1], paired_b["url"].rsplit("/", 1)[1]


LEAVING = ("quit", "walk", "leave", "reject")
"""Move kinds a cooperative test person does not make on their own (it would end or stall the dialogue)."""


def next_move(state: dict[str, Any], said: int) -> dict[str, Any]:
    """A simple person-like move for any task, read from the party's own view and action schema:
    accept what is proposed, talk first, then make one of the task's own moves (drawn from the
    schema with a seed, so a split adds up and a selection names one of the party's rows)."""
    schema = state["schema"]
    legal = moves.kinds(schema)
    for kind in legal:
        if kind.startswith("accept"):
            return {"kind": kind}
    own = [kind for kind in legal if kind != "say" and not kind.startswith(LEAVING)]
    if own and (said >= 1 or "say" not in legal):
        option = moves.option(schema, own[said % len(own)])
        return moves.sample(option, random.Random(f"{state['dialogue']}:{state['party']}:{said}"))
    if "say" in legal:
        return {"kind": "say", "text": ["Hi there, how are you doing today?", "I see. Tell me more about what you need.", "That sounds fair to me, let us settle it."][said % 3]}
    return {"kind": legal[0]} if legal else {"kind": state["legal"][0]}


def play_to_the_end(ws, seen: list | None = None, limit: int = 120) -> dict[str, Any]:
    """Play one seat over its websocket with `next_move` until the dialogue is over; the last state."""
    state = until(ws, state_where(lambda s: True), seen=seen)
    said = 0
    for _ in range(limit):
        if state["done"]:
            return state
        if state["legal"]:
            ws.send_json({"type": "move", "action": next_move(state, said)})
            said += 1
        state = until(ws, lambda f: f.get("type") == "state" or f.get("type") == "error", seen=seen)
        if state["type"] == "error":
            raise AssertionError(state)
    raise AssertionError("the dialogue did not end")

"""A plug-in task is anyone's code: its bugs must stay inside the move, page or import they hit.

An error raised by the task during a person's move refuses that move and rebuilds the engine from
storage (the partner never sees an event that was not stored); a view that JSON cannot hold ends
the page with a clean error, not a reconnect loop; a replica whose stored events do not replay
refuses moves with 503 rather than judging them on a stale engine; and a plug-in that raises or
calls `sys.exit` on import is a `LoadError` that leaves only that task out.
"""

from __future__ import annotations

import subprocess
import sys
from decimal import Decimal
from pathlib import Path
from typing import Literal

import pytest
from starlette.websockets import WebSocketDisconnect
from typer.testing import CliRunner

from duologue import tasks
from duologue.cli import app
from duologue.core import actions
from duologue.core.schema import EventBase
from duologue.web.storage import StorageUnavailable
from duologue.web.study import Partner, Study
from web.conftest import make_client  # noqa: F401  (a fixture: an app on a temporary SQLite file)
from web.throwaway_task import Marbles
from web.webtest_helpers import pair_two, state_where, until

CRASH = "this message makes the plug-in crash"
UNSHOWABLE_CLOSE = 4500
"""The close code after which the chat page shows the reason and stops reconnecting."""
WEIGHTS = "show me the weights"


class CrashingApply(Marbles):
    """Raises in `_apply` on one message, after the engine has recorded its event."""

    spec = Marbles.spec.model_copy(update={"id": "crashing-apply-v0"})

    def _apply(self, party, action):
        if isinstance(action, actions.Say) and action.text == CRASH:
            raise RuntimeError("a bug in the plug-in's rules")
        super()._apply(party, action)


class UnJSONItems(Marbles):
    """Once asked, shows rows holding a Decimal, which no JSON writer takes."""

    spec = Marbles.spec.model_copy(update={"id": "unjson-items-v0"})

    def items(self, observation):
        asked = any(getattr(e, "text", None) == WEIGHTS for e in observation.transcript)
        return [{"weight": Decimal("1.5")}] if asked else []


class Tallied(EventBase):
    """Stored under another field name than the move's, with no mapping back: it does not replay."""

    kind: Literal["tallied-security"] = "tallied-security"
    count: int


class Tally(actions.Action):
    kind: Literal["tally-security"] = "tally-security"
    n: int

    def to_event(self, party, time):
        return Tallied(party=party, time=time, count=self.n)


class UnreplayableTally(Marbles):
    spec = Marbles.spec.model_copy(update={"id": "unreplayable-tally-v0"})

    def _legal_kinds(self, party):
        kinds = super()._legal_kinds(party)
        return [*kinds, "tally-security"] if kinds else kinds


actions.register_move(Tally, Tallied)


@pytest.fixture
def people(make_client):
    """`people(TaskClass)`: a client with a people-only study of that task, and two paired seats."""
    added: list[str] = []

    def build(cls):
        task_id = tasks.register(cls)
        added.append(task_id)
        client = make_client([Study(id="plug", task=task_id, partners=[Partner(kind="human")], turn_taking="free")])
        return client, pair_two(client, "plug")

    yield build
    for task_id in added:
        tasks.TASKS.pop(task_id, None)


def texts(frames: list[dict]) -> list[str]:
    return [e.get("text") for f in frames if f.get("type") == "state" for e in f["events"]]


def test_an_error_in_the_task_s_apply_refuses_the_move_and_the_partner_never_sees_it(people):
    client, (token_a, token_b) = people(CrashingApply)
    seen_b: list = []
    with client.websocket_connect(f"/ws/chat/{token_a}") as ws_a, client.websocket_connect(f"/ws/chat/{token_b}") as ws_b:
        until(ws_a, state_where(lambda s: True))
        until(ws_b, state_where(lambda s: True), seen=seen_b)
        ws_a.send_json({"type": "move", "action": {"kind": "say", "text": CRASH}, "move_id": "crash"})
        refused = until(ws_a, lambda f: f.get("type") in ("ack", "error"))
        assert refused["type"] == "error" and refused["status"] == 500 and refused["move_id"] == "crash"
        assert refused["reason"].startswith("this move could not be made: the task failed on it")
        ws_a.send_json({"type": "move", "action": {"kind": "say", "text": "hello after the bug"}, "move_id": "after"})
        shown_a = until(ws_a, state_where(lambda s: "hello after the bug" in texts([s])))  # the new state comes before the ack
        assert until(ws_a, lambda f: f.get("type") in ("ack", "error"))["type"] == "ack"
        shown_b = until(ws_b, state_where(lambda s: "hello after the bug" in texts([s])), seen=seen_b)
    assert CRASH not in texts(seen_b)
    stored = client.app.state.platform.storage.dialogue(shown_a["dialogue"])
    stored_events = [e.model_dump(mode="json") for e in stored.events]
    assert [getattr(e, "text", None) for e in stored.events] == ["hello after the bug"]
    for shown in (shown_a, shown_b):
        assert [{k: v for k, v in e.items() if k != "own"} for e in shown["events"]] == stored_events
    http = client.post(f"/api/chat/{token_b}/moves", json={"kind": "say", "text": CRASH})
    assert http.status_code == 500 and http.json()["detail"] == refused["reason"]


def test_a_view_json_cannot_hold_ends_the_page_cleanly_instead_of_a_reconnect_loop(people):
    client, (token_a, token_b) = people(UnJSONItems)
    with client.websocket_connect(f"/ws/chat/{token_a}") as ws_a:
        until(ws_a, state_where(lambda s: True))
        ws_a.send_json({"type": "move", "action": {"kind": "say", "text": WEIGHTS}})
        error = until(ws_a, lambda f: f.get("type") == "error")
        assert error["status"] == 500 and error["reason"].startswith("this dialogue cannot be shown")
        with pytest.raises(WebSocketDisconnect) as closed:
            ws_a.receive_json()
    assert closed.value.code == UNSHOWABLE_CLOSE  # the page stops here; 1013 made it reconnect forever
    with client.websocket_connect(f"/ws/chat/{token_b}") as ws_b:  # opening the page again: the same clean end
        assert ws_b.receive_json() == error
        with pytest.raises(WebSocketDisconnect) as closed:
            ws_b.receive_json()
    assert closed.value.code == UNSHOWABLE_CLOSE
    chat_js = (Path(__file__).parents[2] / "src/duologue/web/static/chat.js").read_text(encoding="utf-8")
    assert f"ev.code === {UNSHOWABLE_CLOSE}" in chat_js


def test_an_engine_the_stored_events_do_not_rebuild_refuses_moves_with_503(people, monkeypatch):
    client, (token_a, token_b) = people(UnreplayableTally)
    storage = client.app.state.platform.storage
    assert client.post(f"/api/chat/{token_a}/moves", json={"kind": "tally-security", "n": 3}).status_code == 200
    real_add = storage.add_events

    def database_gone(*args, **kwargs):
        raise StorageUnavailable("the database is unavailable: test")

    with client.websocket_connect(f"/ws/chat/{token_a}") as ws_a:
        until(ws_a, state_where(lambda s: True))
        monkeypatch.setattr(storage, "add_events", database_gone)  # a failed store: the engine is rebuilt before its next use
        assert client.post(f"/api/chat/{token_b}/moves", json={"kind": "say", "text": "lost"}).status_code == 503
        monkeypatch.setattr(storage, "add_events", real_add)
        ws_a.send_json({"type": "move", "action": {"kind": "say", "text": "judged on what?"}, "move_id": "stale"})
        refused_ws = until(ws_a, lambda f: f.get("type") in ("ack", "error"))
        assert refused_ws["status"] == 503 and refused_ws["reason"].startswith("this dialogue cannot be brought up to date here")
        ws_a.send_json({"type": "ping"})
        assert until(ws_a, lambda f: f.get("type") == "pong")  # the socket stays open: the page may send again
    refused = client.post(f"/api/chat/{token_b}/moves", json={"kind": "say", "text": "judged on what?"})
    assert refused.status_code == 503 and refused.json()["detail"].startswith("this dialogue cannot be brought up to date here")
    assert client.get(f"/api/chat/{token_b}/view").status_code == 503
    with client.websocket_connect(f"/ws/chat/{token_b}") as ws:
        frame = ws.receive_json()
        assert frame["type"] == "error" and frame["status"] == 503
    stored = storage.dialogue(storage.seat_by_token(token_a).dialogue_id)
    assert [e.kind for e in stored.events] == ["tallied-security"]


# ---------------------------------------------------------------------- plug-ins that fail on import


@pytest.fixture
def broken_plugins(tmp_path, monkeypatch):
    (tmp_path / "raises_on_import.py").write_text("raise RuntimeError('the plug-in is broken')\n", encoding="utf-8")
    (tmp_path / "exits_on_import.py").write_text("import sys\nsys.exit(3)\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(tasks.TASKS, "raises-v0", "raises_on_import:Task")
    monkeypatch.setitem(tasks.TASKS, "exits-v0", "exits_on_import:Task")
    return tmp_path


def test_a_plugin_that_raises_or_exits_on_import_is_a_load_error_and_is_left_out(broken_plugins):
    from duologue.web.study import default_studies

    for task_id, words in (("raises-v0", "RuntimeError: the plug-in is broken"), ("exits-v0", "SystemExit: 3")):
        with pytest.raises(tasks.LoadError, match=f"task {task_id} .*cannot be loaded: {words}"):
            tasks.make(task_id)
    loadable = tasks.loadable_task_ids()
    assert "raises-v0" not in loadable and "exits-v0" not in loadable and "casino-v0" in loadable
    assert {s.task for s in default_studies()} >= {"casino-v0"}  # what `serve` offers without a study file
    listed = CliRunner().invoke(app, ["tasks"], env={"COLUMNS": "300"})
    assert listed.exit_code == 0, listed.output
    assert "casino-v0" in listed.output and "SystemExit" in listed.output and "RuntimeError" in listed.output


def test_serve_starts_with_a_plugin_that_raises_on_import(broken_plugins, make_client):
    client = make_client(None)  # the default studies, as `duologue serve` builds them
    assert client.get("/healthz").status_code == 200


# ---------------------------------------------------------------------- corpus formats from plug-ins


def test_data_corpora_lists_plugin_formats_instead_of_crashing(tmp_path):
    dist = tmp_path / "extra_formats-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: extra-formats\nVersion: 0.1\n", encoding="utf-8")
    (dist / "entry_points.txt").write_text("[duologue.corpora]\ncasino-again = duologue.tasks.casino.corpus:CasinoFormat\nbroken-format = no_such_module_for_duologue:Format\n", encoding="utf-8")
    import os

    env = {**os.environ, "COLUMNS": "250", "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])}
    listed = subprocess.run([sys.executable, "-m", "duologue.cli", "data", "corpora"], env=env, capture_output=True, text=True, timeout=300)
    assert listed.returncode == 0, listed.stderr
    assert "dictionary changed size" not in listed.stderr
    assert "casino-again" in listed.stdout and "craigslist" in listed.stdout
    assert "broken-format" in listed.stdout and "cannot be loaded" in listed.stdout

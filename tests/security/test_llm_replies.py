"""What an LLM endpoint sends is bounded and cleaned before it reaches a dialogue.

Two repros, both against a real OpenAI-compatible endpoint on loopback:
* a reply holding a lone surrogate (`\\ud800`, what a stream that splits an emoji yields) ended a
  live dialogue as `platform_error` and aborted `duologue play` with 0 episodes written: a bot's
  text now goes through the same check as a person's, cleaned (with a warning) rather than refused;
* a 300 MB reply body took `duologue llm check` to 3.7 GB: the client now stops reading at
  `max_body_bytes` (DUOLOGUE_LLM_MAX_REPLY_BYTES) with an error naming the endpoint and the limit.
"""

from __future__ import annotations

import json
import logging
import os
import resource
import subprocess
import sys
import threading
import tracemalloc
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

import duologue
from duologue.core.actions import Say
from duologue.core.agent import Agent
from duologue.core.schema import Message
from duologue.data.io import read_dialogues
from duologue.llm.client import ChatClient, LLMResponseError, RetryPolicy
from duologue.llm.replies import json_in_reply
from duologue.llm.settings import Endpoint, LLMSettings
from duologue.web.frames import invalid_text
from duologue.web.study import Partner, Study
from llm.test_client import HI, completion_body
from web.conftest import fast_settings
from web.webtest_helpers import join_lobby, until

SOURCE = str(Path(duologue.__file__).resolve().parents[1])
HUGE = 64 * 1024 * 1024
"""The most any fake reply sends: the code before the fix reads all of it, and must not take the machine down."""
LIMIT = 1_000_000
SAID = "hello \ud800 friend\x07\u202e! 😀"
"""What the fake model says: a lone surrogate, a bell and a right-to-left override (and an emoji,
which a stream splits into its two halves)."""
CLEAN = "hello \ufffd friend! 😀"


class Fake(BaseHTTPRequestHandler):
    """A chat-completions endpoint whose answer is set by `mode`."""

    mode = "surrogate"
    sent = 0
    requests: list[dict] = []

    def do_POST(self):  # noqa: N802 (http.server's naming)
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        Fake.requests.append(body)
        try:
            getattr(self, f"_{Fake.mode.replace('-', '_')}")(body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client stopped reading: what these tests want of a huge body

    def _surrogate(self, body):
        move = {"move": {"kind": "say", "text": SAID}}
        # the first reply carries the lone surrogate as a character; later ones as a JSON escape in the text
        content = json.dumps(move, ensure_ascii=len(Fake.requests) % 2 == 0)
        if body.get("stream"):
            at = content.find("😀")
            pieces = [content[:at] + "\ud83d", "\ude00" + content[at + 1 :]] if at >= 0 else [content[:9], content[9:]]
            self._events([{"choices": [{"index": 0, "delta": {"content": piece}}]} for piece in pieces])
        else:
            self._json(completion_body(content))

    def _events(self, events):
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        for event in events:
            self.wfile.write(f"data: {json.dumps(event)}\n\n".encode())
        self.wfile.write(b"data: [DONE]\n\n")

    def _json(self, data):
        payload = json.dumps(data).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def _pour(self, head: bytes, filler: bytes, headers: dict[str, str], encode=None):
        self.send_response(200)
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(encode(head) if encode else head)
        Fake.sent = len(head)
        while Fake.sent < HUGE:
            chunk = encode(filler) if encode else filler
            self.wfile.write(chunk)
            Fake.sent += len(chunk)

    def _huge_json(self, body):  # no length: read until the connection closes
        self._pour(b'{"choices": [{"message": {"content": "', b"x" * 65536, {"Content-Type": "application/json", "Connection": "close"})

    def _declared(self, body):  # says how big before sending it
        self._pour(b'{"choices": [', b" " * 65536, {"Content-Type": "application/json", "Content-Length": str(300_000_000)})

    def _endless_event(self, body):  # one event line that never ends
        self._pour(b'data: {"choices": [{"delta": {"content": "', b"y" * 65536, {"Content-Type": "text/event-stream", "Connection": "close"})

    def _gzip_bomb(self, body):  # a few kB on the wire, megabytes once decoded
        squeeze = zlib.compressobj(9, zlib.DEFLATED, 31)
        self._pour(b"", b"\0" * 1_048_576, {"Content-Type": "application/json", "Content-Encoding": "gzip", "Connection": "close"},
                   encode=lambda data: squeeze.compress(data) + squeeze.flush(zlib.Z_SYNC_FLUSH))

    def log_message(self, *args):
        pass


@pytest.fixture
def endpoint():
    Fake.mode, Fake.sent, Fake.requests = "surrogate", 0, []
    server = ThreadingHTTPServer(("127.0.0.1", 0), Fake)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()
    thread.join()


def _client(base: str) -> ChatClient:
    return ChatClient(base, "fake", retry=RetryPolicy(max_retries=0), timeout=30)


# --------------------------------------------------------------------------- invalid text


def test_a_reply_with_a_lone_surrogate_comes_out_clean_with_a_warning(endpoint, caplog):
    with _client(endpoint) as client, caplog.at_level(logging.WARNING):
        for stream in (False, True):
            chunks: list[str] = []
            for _ in range(2):  # the lone surrogate as a character, then as a JSON escape in the text
                completion = client.complete(HI, on_chunk=chunks.append if stream else None)
                assert invalid_text(completion.text) is None and "\x07" not in completion.text and "\u202e" not in completion.text
                assert json_in_reply(completion.text)["move"]["text"] == CLEAN
            if stream:  # each chunk is sendable too, and the emoji split across two chunks is whole again
                assert all(invalid_text(chunk) is None for chunk in chunks) and "😀" in "".join(chunks)
    assert any("cleaned" in record.getMessage() and endpoint in record.getMessage() for record in caplog.records)


def test_play_writes_its_episodes_when_the_model_sends_a_lone_surrogate(endpoint, tmp_path):
    out = tmp_path / "episodes.jsonl"
    env = {**os.environ, "PYTHONPATH": SOURCE, "DUOLOGUE_LLM_BASE_URL": endpoint, "DUOLOGUE_LLM_MODEL": "fake", "DUOLOGUE_LLM_MAX_RETRIES": "0"}
    args = ["play", "-t", "casino-v0", "-a", "llm:local", "-a", "rule", "-n", "2", "--max-turns", "6", "--out", str(out)]
    done = subprocess.run([sys.executable, "-m", "duologue.cli", *args], capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    dialogues = read_dialogues(out).dialogues
    assert len(dialogues) == 2
    texts = [e.text for d in dialogues for e in d.events if isinstance(e, Message)]
    assert CLEAN in texts, texts[:6]
    assert all(invalid_text(text) is None for text in texts)


def test_a_live_dialogue_with_such_a_bot_goes_on(endpoint, tmp_path, monkeypatch):
    from fastapi.testclient import TestClient

    from duologue.web.app import create_app

    monkeypatch.setenv("DUOLOGUE_LLM_BASE_URL", endpoint)
    monkeypatch.setenv("DUOLOGUE_LLM_MODEL", "fake")
    monkeypatch.setenv("DUOLOGUE_LLM_MAX_RETRIES", "0")
    study = Study(id="llm", task="casino-v0", partners=[Partner(kind="bot", agent="llm:local")], bot_wait_seconds=0.0)
    with TestClient(create_app(fast_settings(tmp_path), [study])) as client:
        seat = join_lobby(client, "llm", "person-1")
        with client.websocket_connect(f"/ws/chat/{seat}") as ws:
            ws.send_json({"type": "move", "action": {"kind": "say", "text": "hi there"}})
            seen: list[dict] = []
            until(ws, lambda f: CLEAN in json.dumps(f, ensure_ascii=False) or "platform_error" in json.dumps(f) or f.get("type") == "ended", seen=seen)
            assert "platform_error" not in json.dumps(seen) and CLEAN in json.dumps(seen[-1], ensure_ascii=False)


class GarbledBot(Agent):
    """A bot (a plug-in's, say) whose words hold what no database or socket can take."""

    name = "garbled"

    def act(self, observation):
        return Say(text=SAID)


def test_any_bots_unsendable_text_is_cleaned_on_the_platform(tmp_path, monkeypatch, caplog):
    from fastapi.testclient import TestClient

    from duologue import agents
    from duologue.web.app import create_app

    monkeypatch.setitem(agents.GENERIC, "garbled", GarbledBot)
    study = Study(id="garbled", task="casino-v0", partners=[Partner(kind="bot", agent="garbled")], bot_wait_seconds=0.0)
    with TestClient(create_app(fast_settings(tmp_path), [study])) as client, caplog.at_level(logging.WARNING):
        seat = join_lobby(client, "garbled", "person-2")
        with client.websocket_connect(f"/ws/chat/{seat}") as ws:
            ws.send_json({"type": "move", "action": {"kind": "say", "text": "hi there"}})
            seen: list[dict] = []
            until(ws, lambda f: CLEAN in json.dumps(f, ensure_ascii=False) or "platform_error" in json.dumps(f) or f.get("type") == "ended", seen=seen)
            assert "platform_error" not in json.dumps(seen) and CLEAN in json.dumps(seen[-1], ensure_ascii=False)
    assert any("was cleaned" in record.getMessage() for record in caplog.records)


# --------------------------------------------------------------------------- size


@pytest.mark.parametrize("mode", ["huge-json", "declared", "endless-event", "gzip-bomb"])
def test_a_huge_or_endless_body_is_cut_at_the_limit_with_memory_bounded(endpoint, mode):
    Fake.mode = mode
    tracemalloc.start()
    try:
        settings = LLMSettings(max_reply_bytes=LIMIT, max_retries=0, timeout=30)  # the setting an operator sets
        with ChatClient.from_endpoint(Endpoint(endpoint, "fake"), settings) as client, pytest.raises(LLMResponseError) as refused:
            client.complete(HI, stream=mode == "endless-event")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    message = str(refused.value)
    assert endpoint in message and f"{LIMIT:,} bytes" in message and "DUOLOGUE_LLM_MAX_REPLY_BYTES" in message, message
    assert peak < 4 * LIMIT, f"peak {peak:,} bytes"  # a compressed bomb is inflated a bounded piece at a time
    assert Fake.sent < HUGE / 4, f"the server got to send {Fake.sent:,} bytes"


def test_llm_check_stops_at_the_limit_set_in_the_settings(endpoint):
    Fake.mode = "huge-json"
    env = {**os.environ, "PYTHONPATH": SOURCE, "DUOLOGUE_LLM_BASE_URL": endpoint, "DUOLOGUE_LLM_MODEL": "fake", "DUOLOGUE_LLM_MAX_REPLY_BYTES": str(LIMIT), "DUOLOGUE_LLM_MAX_RETRIES": "0"}

    def limit_memory() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))

    done = subprocess.run([sys.executable, "-m", "duologue.cli", "llm", "check"], capture_output=True, text=True, timeout=120, env=env, preexec_fn=limit_memory)
    flat = " ".join(done.stderr.split())
    assert done.returncode == 2 and f"{LIMIT:,} bytes" in flat and "Traceback" not in flat, done.stderr[-2000:]


"""An OpenAI-compatible endpoint on a loopback port for tests: it answers each chat-completions
request with the next of its replies (the last one again once they run out) and keeps the requests."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class FakeEndpoint:
    """`with FakeEndpoint("hello") as fake:` ... `ChatClient(fake.url, "fake")`; `fake.requests` holds the bodies."""

    def __init__(self, replies: str | list[str], *, usage: tuple[int, int] = (10, 3)) -> None:
        fake = self
        self.replies = [replies] if isinstance(replies, str) else list(replies)
        self.requests: list[dict[str, Any]] = []

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                fake.requests.append(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
                text = fake.replies.pop(0) if len(fake.replies) > 1 else fake.replies[0]
                body = {"choices": [{"message": {"role": "assistant", "content": text}, "finish_reason": "stop"}], "usage": {"prompt_tokens": usage[0], "completion_tokens": usage[1]}}
                payload = json.dumps(body).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __enter__(self) -> "FakeEndpoint":
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

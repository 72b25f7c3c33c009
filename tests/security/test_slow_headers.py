"""`duologue serve` bounds how long a request's headers may take: half-sent requests (a slowloris)
are answered 408 and closed within `DUOLOGUE_HEADER_TIMEOUT_SECONDS`, while a request whose headers
arrive in time, even in pieces, is served. A real server on 127.0.0.1 (a `duologue serve` process)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from web.services import free_port, wait_for

BOUND = 1.0
"""The header timeout the server runs with here."""
MARGIN = 5.0
"""How much later than the bound a close may come on a loaded machine."""


@pytest.fixture
def server(tmp_path):
    study = tmp_path / "study.yaml"
    study.write_text("id: people\ntask: casino-v0\npartners: [{kind: human}]\n")
    port = free_port()
    env = {**os.environ, "DUOLOGUE_HEADER_TIMEOUT_SECONDS": str(BOUND), "DUOLOGUE_WARM_BOTS": "false", "DUOLOGUE_ADMIN_TOKEN": "slow-headers-admin-token"}
    command = [str(Path(sys.executable).parent / "duologue"), "serve", "--port", str(port), "--db", f"sqlite:///{tmp_path / 'serve.db'}", "--study", str(study)]
    log = open(tmp_path / "serve.log", "ab")
    process = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        wait_for(lambda: httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200, seconds=120, what="duologue serve")
        yield port
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def closed_after(connection: socket.socket, limit: float) -> tuple[float, bytes]:
    """Read until the server closes the connection (or `limit` seconds pass: then fail)."""
    started, answer = time.monotonic(), b""
    connection.settimeout(0.5)
    while time.monotonic() - started < limit:
        try:
            chunk = connection.recv(4096)
        except TimeoutError:
            continue
        except ConnectionResetError:
            break
        if not chunk:
            break
        answer += chunk
    else:
        raise AssertionError(f"the connection was still open after {limit:.0f} s: {answer!r}")
    return time.monotonic() - started, answer


def test_half_sent_requests_are_closed_within_the_bound(server):
    connections = []
    for n in range(50):  # the review held 1,500 open; fifty show the same
        connection = socket.create_connection(("127.0.0.1", server), timeout=5)
        if n % 2:
            connection.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")  # and nothing more
        connections.append(connection)
    try:
        for connection in connections:  # opened within a moment of each other: each closes within the bound
            seconds, answer = closed_after(connection, BOUND + MARGIN)
            assert answer == b"" or answer.startswith(b"HTTP/1.1 408"), answer
    finally:
        for connection in connections:
            connection.close()


def test_headers_that_arrive_in_time_are_served_and_the_next_request_is_bounded_too(server):
    with socket.create_connection(("127.0.0.1", server), timeout=5) as connection:
        connection.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        time.sleep(BOUND / 4)  # a slow but honest client
        connection.sendall(b"\r\n")
        connection.settimeout(BOUND + MARGIN)
        answer = b""
        while b'"ok"' not in answer:
            chunk = connection.recv(4096)
            assert chunk, answer
            answer += chunk
        assert answer.startswith(b"HTTP/1.1 200")
        connection.sendall(b"GET /healthz HTTP/1.1\r\n")  # the next request on the kept-alive connection stalls
        seconds, rest = closed_after(connection, BOUND + MARGIN)
        assert rest == b"" or rest.startswith(b"HTTP/1.1 408"), rest

"""Real services for the multi-process tests: redis-server, PostgreSQL and `duologue serve` processes.

Each runs on a free loopback port in a temporary folder and can be stopped, killed and started
again on the same port (the fault tests need exactly that). Tests skip when `redis-server`, the
PostgreSQL binaries or psycopg are missing. Clients talk to the servers over real websockets
(`websockets`' synchronous client) and HTTP (`httpx`).
"""

from __future__ import annotations

import glob
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest

ADMIN = "test-admin-token"

BUILT_IN_TASKS = ("mutualfriends-v0", "craigslist-v0", "casino-v0", "openchat-ed-v0", "openchat-wow-v0", "dealornodeal-v0")
"""Every task duologue ships (`tests/web/test_multiworker.py` checks the list is whole)."""

STUDIES_YAML = """
studies:
  - id: casino-people
    task: casino-v0
    turn_taking: alternate
    partners: [{kind: human}]
  - id: casino-bot
    task: casino-v0
    partners: [{kind: bot}]
  - id: leave-end
    task: casino-v0
    partners: [{kind: human}]
    on_partner_leave: end
    partner_grace_seconds: 2
    pay: {base: 1.5, min_messages: 2, left_pay_per_minute: 6}
  - id: leave-bot
    task: casino-v0
    partners: [{kind: human}, {kind: bot, agent: rule}]
    bot_wait_seconds: 600
    on_partner_leave: bot
    partner_grace_seconds: 2
    pay: {base: 1.5, min_messages: 2}
""" + "".join(f"""  - id: people-{task}
    task: {task}
    turn_taking: alternate
    partners: [{{kind: human}}]
""" for task in BUILT_IN_TASKS)
"""The studies every test server runs: people only (pairing across workers), a bot (takeover), a
partner who leaves under each `on_partner_leave` policy, and people only for each built-in task
(`people-<task id>`)."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(condition, seconds: float = 120.0, what: str = "condition") -> Any:
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            value = condition()
        except Exception:  # noqa: BLE001  not yet: a service starting may fail in any way
            value = None
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


# ---------------------------------------------------------------------- Redis


class RedisServer:
    """A throwaway redis-server without persistence (a restart forgets everything, the worst case)."""

    def __init__(self, folder: Path) -> None:
        self.binary = shutil.which("redis-server")
        self.folder = folder
        self.port = free_port()
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        log = open(self.folder / "redis.log", "ab")
        self.process = subprocess.Popen(
            [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", str(self.folder)],
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        wait_for(self._answers, what="redis-server")

    def _answers(self) -> bool:
        with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as s:
            s.sendall(b"PING\r\n")
            return s.recv(16).startswith(b"+PONG")

    def stop(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None


@pytest.fixture
def redis_server(tmp_path):
    if shutil.which("redis-server") is None:
        pytest.skip("redis-server not installed (apt-get install redis-server)")
    pytest.importorskip("redis")
    server = RedisServer(tmp_path)
    server.start()
    yield server
    server.stop()


# ---------------------------------------------------------------------- PostgreSQL


def _pg_bin(name: str) -> str | None:
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    return found[-1] if found else shutil.which(name)


def _as_server_user(command: list[str]) -> list[str]:
    return ["runuser", "-u", "postgres", "--", *command] if os.geteuid() == 0 else command


class PostgresServer:
    """A throwaway PostgreSQL cluster on loopback (as the `postgres` user when the tests run as root)."""

    def __init__(self) -> None:
        self.initdb, self.pg_ctl = _pg_bin("initdb"), _pg_bin("pg_ctl")
        self.folder = tempfile.mkdtemp(prefix="duologue-pg-")
        self.data = os.path.join(self.folder, "data")
        self.port = free_port()

    def create(self) -> None:
        if os.geteuid() == 0:
            shutil.chown(self.folder, "postgres", "postgres")
        subprocess.run(_as_server_user([self.initdb, "-D", self.data, "-U", "postgres", "--auth=trust", "-E", "UTF8"]), check=True, capture_output=True)
        self.start()

    def start(self) -> None:
        options = f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 -c fsync=off"
        subprocess.run(_as_server_user([self.pg_ctl, "-D", self.data, "-o", options, "-w", "-l", os.path.join(self.folder, "log"), "start"]), check=True, capture_output=True)

    def stop(self, mode: str = "fast") -> None:
        subprocess.run(_as_server_user([self.pg_ctl, "-D", self.data, "-m", mode, "-w", "stop"]), capture_output=True)

    def remove(self) -> None:
        self.stop("immediate")
        shutil.rmtree(self.folder, ignore_errors=True)

    def new_database(self) -> str:
        import psycopg

        name = f"duologue_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(f"postgresql://postgres@127.0.0.1:{self.port}/postgres", autocommit=True) as connection:
            connection.execute(f'CREATE DATABASE "{name}"')
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/{name}"


def _postgres() -> PostgresServer:
    pytest.importorskip("psycopg", reason="PostgreSQL tests need psycopg (pip install 'psycopg[binary]')")
    server = PostgresServer()
    if not server.initdb or not server.pg_ctl:
        pytest.skip("PostgreSQL server binaries not installed (apt-get install postgresql)")
    server.create()
    return server


@pytest.fixture(scope="module")
def shared_postgres():
    """One PostgreSQL server for a test module (each test makes its own database on it)."""
    server = _postgres()
    yield server
    server.remove()


@pytest.fixture
def own_postgres():
    """A PostgreSQL server of the test's own, which the test may stop and start."""
    server = _postgres()
    yield server
    server.remove()


# ---------------------------------------------------------------------- duologue servers


class Server:
    """One `duologue serve` process (one worker) on its own port, sharing PostgreSQL and Redis."""

    def __init__(self, folder: Path, database_url: str, redis_url: str, name: str, workers: int = 1, lease_seconds: float = 1.5) -> None:
        self.folder, self.database_url, self.redis_url, self.name = folder, database_url, redis_url, name
        self.workers, self.lease_seconds = workers, lease_seconds
        self.port = free_port()
        self.process: subprocess.Popen | None = None
        self.study_file = folder / "studies.yaml"
        self.study_file.write_text(STUDIES_YAML)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_base(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def start(self) -> None:
        env = {
            **os.environ,
            "DUOLOGUE_ADMIN_TOKEN": ADMIN,
            "DUOLOGUE_SECRET": "test-secret",
            "DUOLOGUE_BOT_TYPING_SECONDS": "0.05",
            "DUOLOGUE_LEASE_SECONDS": str(self.lease_seconds),
            "DUOLOGUE_RECONNECT_SECONDS": "60",
        }
        command = [str(Path(sys.executable).parent / "duologue"), "serve", "--port", str(self.port), "--db", self.database_url, "--redis", self.redis_url, "--study", str(self.study_file), "--workers", str(self.workers)]
        log = open(self.folder / f"{self.name}.log", "ab")
        self.process = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        wait_for(lambda: httpx.get(f"{self.base}/healthz", timeout=1).status_code == 200, seconds=120, what=f"server {self.name}")

    def kill(self) -> None:
        """kill -9 the whole process group (uvicorn's workers too): no chance to clean up."""
        if self.process is not None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
            self.process = None

    def stop(self) -> None:
        if self.process is not None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()
            self.process = None

    def log(self) -> str:
        path = self.folder / f"{self.name}.log"
        return path.read_text(errors="replace")[-3000:] if path.exists() else ""


@pytest.fixture
def servers(tmp_path, redis_server, shared_postgres):
    """`servers(n)`: n single-worker servers on their own ports, one fresh database, one Redis."""
    started: list[Server] = []
    database = shared_postgres.new_database()

    def build(count: int = 2, **options) -> list[Server]:
        for _ in range(count):
            server = Server(tmp_path, database, redis_server.url, f"server{len(started)}", **options)
            server.start()
            started.append(server)
        return started[-count:]

    yield build
    for server in started:
        server.stop()


# ---------------------------------------------------------------------- clients


class Socket:
    """A real websocket with the `receive_json`/`send_json` calls the test helpers use."""

    def __init__(self, url: str, timeout: float = 20.0) -> None:
        from websockets.sync.client import connect

        self.url, self.timeout = url, timeout
        self._opened = connect(url, open_timeout=10)
        self.connection = self._opened.__enter__()

    def receive_json(self) -> dict[str, Any]:
        return json.loads(self.connection.recv(timeout=self.timeout))

    def send_json(self, data: Any) -> None:
        self.connection.send(json.dumps(data))

    def close(self) -> None:
        try:
            self._opened.__exit__(None, None, None)
        except Exception:  # noqa: BLE001  closing a socket the server already dropped
            pass

    def __enter__(self) -> "Socket":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def lobby(server: Server, study: str, participant: str) -> Socket:
    """Start waiting in a study's lobby on `server` (read the `waiting` frame)."""
    socket_ = Socket(f"{server.ws_base}/ws/lobby/{study}?participant={participant}")
    assert socket_.receive_json()["type"] == "waiting"
    return socket_


def seat_token(lobby_socket: Socket) -> str:
    frame = lobby_socket.receive_json()
    assert frame["type"] == "paired", frame
    lobby_socket.close()
    return frame["url"].rsplit("/", 1)[1]


def chat(server: Server, token: str) -> Socket:
    return Socket(f"{server.ws_base}/ws/chat/{token}")


def latest_state(ws: Socket, after_events: int = -1, seen: list | None = None) -> dict[str, Any]:
    """Frames until a state with more than `after_events` events (or a finished one)."""
    while True:
        frame = ws.receive_json()
        if seen is not None:
            seen.append(frame)
        if frame.get("type") == "state" and (len(frame["events"]) > after_events or frame["done"]):
            return frame


def mover(states: dict[str, dict[str, Any]]) -> str | None:
    return next((name for name, state in states.items() if state["legal"] and not state["done"]), None)

"""The platform on PostgreSQL: the same flows as on SQLite, against a real server.

A throwaway PostgreSQL cluster is started in a temporary folder on a loopback port (as the
`postgres` user when the tests run as root, since PostgreSQL refuses to run as root). The tests
skip when Debian's PostgreSQL server or the psycopg driver is not installed.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import uuid

import pytest

from web.webtest_helpers import ADMIN, join_lobby, play_to_the_end

psycopg = pytest.importorskip("psycopg", reason="PostgreSQL tests need psycopg (pip install 'psycopg[binary]')")


def _bin(name: str) -> str | None:
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    return found[-1] if found else shutil.which(name)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _as_server_user(command: list[str]) -> list[str]:
    return ["runuser", "-u", "postgres", "--", *command] if os.geteuid() == 0 else command


@pytest.fixture(scope="module")
def postgres_server():
    initdb, pg_ctl = _bin("initdb"), _bin("pg_ctl")
    if not initdb or not pg_ctl:
        pytest.skip("PostgreSQL server binaries not installed (apt-get install postgresql)")
    folder = tempfile.mkdtemp(prefix="duologue-pg-")
    data = os.path.join(folder, "data")
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres", "postgres")
    port = _free_port()
    subprocess.run(_as_server_user([initdb, "-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8"]), check=True, capture_output=True)
    options = f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 -c fsync=off"
    subprocess.run(_as_server_user([pg_ctl, "-D", data, "-o", options, "-w", "-l", os.path.join(folder, "log"), "start"]), check=True, capture_output=True)
    try:
        yield f"127.0.0.1:{port}"
    finally:
        subprocess.run(_as_server_user([pg_ctl, "-D", data, "-m", "immediate", "stop"]), capture_output=True)
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def postgres_url(postgres_server):
    """A fresh database on the throwaway server for each test."""
    name = f"duologue_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(f"postgresql://postgres@{postgres_server}/postgres", autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{name}"')
    return f"postgresql+psycopg://postgres@{postgres_server}/{name}"


def test_a_person_plays_against_a_bot_and_everything_is_stored_in_postgres(make_client, postgres_url):
    client = make_client(database_url=postgres_url)
    token = join_lobby(client, "casino", "pg-person")
    with client.websocket_connect(f"/ws/chat/{token}") as ws:
        final = play_to_the_end(ws)
    stored = client.app.state.platform.storage.dialogue(final["dialogue"])
    assert stored is not None and stored.outcome is not None
    assert [e.kind for e in stored.events] == [e["kind"] for e in final["events"]]
    with psycopg.connect(postgres_url.replace("+psycopg", "")) as connection:
        tables = {row[0] for row in connection.execute("select tablename from pg_tables where schemaname = 'public'")}
    assert tables, "the platform created no tables in PostgreSQL"


def test_finished_dialogues_survive_a_restart_on_the_same_database(make_client, postgres_url):
    client = make_client(database_url=postgres_url)
    for person in ("pg-a", "pg-b"):
        token = join_lobby(client, "craigslist", person)
        with client.websocket_connect(f"/ws/chat/{token}") as ws:
            play_to_the_end(ws)
    before = client.get("/admin/api/counts", headers={"X-Admin-Token": ADMIN}).json()
    again = make_client(database_url=postgres_url)  # the platform started again on the same database
    after = again.get("/admin/api/counts", headers={"X-Admin-Token": ADMIN}).json()
    assert before["total"]["finished"] == after["total"]["finished"] == 2

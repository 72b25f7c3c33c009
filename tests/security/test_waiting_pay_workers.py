"""Waiting time lives in the database, not in a worker's memory: with two workers (PostgreSQL and
Redis), time in the lobby on one worker pays the code the person asks of the other."""

from __future__ import annotations

import time

import httpx

from duologue.web.protocol import Progress
from duologue.web.storage import Storage

from web.services import Server, lobby, redis_server, shared_postgres  # noqa: F401 (fixtures)

STUDY = "studies:\n  - {id: wait, task: casino-v0, partners: [{kind: human}], pay: {waiting_leave_after: 1.0, waiting_pay_per_minute: 60.0}}\n"


def test_lobby_time_on_one_worker_pays_the_code_asked_of_another(tmp_path, redis_server, shared_postgres):
    database = shared_postgres.new_database()
    servers = [Server(tmp_path, database, redis_server.url, f"worker{n}") for n in range(2)]
    try:
        for server in servers:
            server.study_file.write_text(STUDY)
            server.start()
        first, second = servers
        waiting = lobby(first, "wait", "mw-1")
        assert httpx.get(f"{second.base}/waiting-code/wait?participant=mw-1", timeout=20).status_code == 409  # not long enough yet
        time.sleep(1.5)  # in the first worker's lobby, nobody to pair with
        asked = httpx.get(f"{second.base}/waiting-code/wait?participant=mw-1", timeout=20)  # the page still open there
        assert asked.status_code == 200, asked.text
        assert 'id="completion-code"' in asked.text
        waiting.close()
    finally:
        for server in servers:
            server.stop()
    storage = Storage(database)
    try:
        left = Progress(storage.engine).get("wait", "mw-1")["left_waiting"]
    finally:
        storage.close()
    assert 1.4 <= left < 10.0, left

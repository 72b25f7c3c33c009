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


# ---------------------------------------------------------------------- quota counters on PostgreSQL


def test_quota_counters_equal_the_group_by_after_a_fixed_seed_sequence(postgres_url):
    import random

    from duologue.web.storage import Storage
    from web.test_counters import PAIRINGS, SCENARIOS, STUDIES, Played, assert_counters_true, play

    rng = random.Random(5)
    operations = [
        ("create", rng.choice(STUDIES), rng.choice(SCENARIOS), rng.choice(PAIRINGS)) if rng.random() < 0.5
        else (rng.choice(["finish", "interrupt", "finish-again"]), rng.randrange(10**6), rng.choice([None, "no messages"]))
        for _ in range(150)
    ]
    storage = Storage(postgres_url)
    try:
        play(storage, operations, Played())
        assert_counters_true(storage)
    finally:
        storage.close()


def test_quota_counters_stay_true_when_two_workers_write_at_once(postgres_url):
    """Two processes' worth of storage (each its own pool), four writers creating and setting aside
    dialogues of the same study, scenario and pairing at the same moment: no count is lost or doubled."""
    import threading
    from concurrent.futures import ThreadPoolExecutor

    from duologue.web.storage import Storage
    from web.test_counters import Played, assert_counters_true, play

    workers = [Storage(postgres_url), Storage(postgres_url)]
    start = threading.Barrier(4)

    def write(n: int) -> None:
        operations = [op for i in range(15) for op in (("create", "study-a", "seed:0", "human-human"), ("finish", i, "no messages" if i % 3 == 0 else None))]
        start.wait()
        play(workers[n % 2], operations, Played(), prefix=f"w{n}")

    try:
        with ThreadPoolExecutor(4) as pool:
            for done in [pool.submit(write, n) for n in range(4)]:
                done.result()
        assert workers[0].count_by("study-a", "pairing") == {"human-human": 4 * 15 - 4 * 5}
        assert_counters_true(workers[1])
    finally:
        for storage in workers:
            storage.close()


def test_workers_starting_together_on_a_database_without_counters_build_them_once(postgres_url):
    import threading
    from concurrent.futures import ThreadPoolExecutor

    from duologue.web.storage import Storage
    from web.test_counters import Played, assert_counters_true, play

    first = Storage(postgres_url)
    play(first, [("create", "study-a", "seed:0", "human-human"), ("create", "study-b", "", "bot:rule"), ("finish", 0, "no messages"), ("create", "study-a", "seed:1", "human-human")], Played())
    first.close()
    with psycopg.connect(postgres_url.replace("+psycopg", ""), autocommit=True) as connection:  # as an older duologue left it
        connection.execute("DROP TABLE quota_counts, quota_totals, counter_builds")
    start = threading.Barrier(3)

    def open_storage() -> Storage:
        start.wait()
        return Storage(postgres_url)

    with ThreadPoolExecutor(3) as pool:
        opened = [done.result() for done in [pool.submit(open_storage) for _ in range(3)]]
    try:
        assert opened[0].count_pairs("study-a") == {("seed:1", "human-human"): 1}
        assert opened[1].count_by("study-b", "pairing") == {"bot:rule": 1}
        assert_counters_true(opened[2])
    finally:
        for storage in opened:
            storage.close()


def test_a_rebuild_while_workers_write_counts_each_dialogue_once(postgres_url):
    """Counting again from the dialogues (a repair) while two writers create and set aside dialogues:
    the rebuild locks the counters against writers for its few statements, so none is lost or doubled."""
    import threading
    from concurrent.futures import ThreadPoolExecutor

    from duologue.web.storage import Storage
    from web.test_counters import Played, assert_counters_true, play

    storage = Storage(postgres_url)
    writing = threading.Event()

    def write(n: int) -> None:
        operations = [op for i in range(20) for op in (("create", "study-a", f"seed:{i % 3}", "human-human"), ("finish", i, "no messages" if i % 4 == 0 else None))]
        play(storage, operations, Played(), prefix=f"w{n}")

    def rebuild() -> int:
        times = 0
        while writing.is_set() or times == 0:
            storage.rebuild_counters("study-a")
            times += 1
        return times

    try:
        writing.set()
        with ThreadPoolExecutor(3) as pool:
            writers = [pool.submit(write, n) for n in range(2)]
            rebuilds = pool.submit(rebuild)
            for done in writers:
                done.result()
            writing.clear()
            assert rebuilds.result() >= 1
        assert storage.count_by("study-a", "pairing") == {"human-human": 2 * 20 - 2 * 5}
        assert_counters_true(storage)
    finally:
        storage.close()


def test_workers_starting_together_on_an_empty_database_create_every_table_once(postgres_url):
    """Several workers meeting a fresh database at the same moment, each making the platform's and
    the collection protocol's tables: PostgreSQL refuses the second of two simultaneous creations
    of a table, so they take turns; none fails."""
    import threading
    from concurrent.futures import ThreadPoolExecutor

    from duologue.web.protocol import Progress
    from duologue.web.storage import Storage

    start = threading.Barrier(4)

    def open_platform(person: str) -> Storage:
        start.wait()
        storage = Storage(postgres_url)
        Progress(storage.engine).update("study", person, {"done": ["consent"]})
        return storage

    with ThreadPoolExecutor(4) as pool:
        opened = [done.result() for done in [pool.submit(open_platform, f"person-{n}") for n in range(4)]]
    try:
        assert [Progress(opened[0].engine).get("study", f"person-{n}") for n in range(4)] == [{"done": ["consent"]}] * 4
    finally:
        for storage in opened:
            storage.close()


def test_a_move_is_one_statement_all_or_nothing_and_leaves_the_pool_in_transactions(postgres_url):
    """On PostgreSQL a move's events and id are written by one statement in autocommit
    (`plain_sql.CombinedInsert`): a repeated move id keeps out the move's events too, a batch
    keeps every move but the repeated one, and the connection goes back to the pool taking
    transactions again (a failed transaction on it still leaves nothing behind)."""
    from sqlalchemy import text

    from duologue.core.schema import Dialogue, Message, Party
    from duologue.web.storage import COMBINED_ROWS, EventBatchItem, EventConflict, Storage

    storage = Storage(postgres_url)
    try:
        for key in ("d1", "d2", "d3"):
            dialogue = Dialogue(id=key, task="toy", parties=[Party(id="a", kind="human"), Party(id="b", kind="human")])
            storage.create_dialogue(dialogue, study_id="s", task_id="toy-v0", pairing="human", scenario_key="k", seats=[
                {"party": party, "kind": "human", "participant_id": f"{key}-{party}", "agent": None} for party in ("a", "b")
            ])
        storage.add_events("d1", 0, [Message(party="a", text="first"), Message(party="a", text="second")], "m1")
        with pytest.raises(EventConflict):  # fresh event numbers, a move id already stored
            storage.add_events("d1", 2, [Message(party="a", text="a retried move")], "m1")
        with pytest.raises(EventConflict):  # a fresh move id, an event number already stored
            storage.add_events("d1", 1, [Message(party="b", text="late"), Message(party="b", text="later")], "m2")
        assert [e.text for e in storage.events("d1")] == ["first", "second"]
        assert storage.move_seen("d1", "m1") and not storage.move_seen("d1", "m2")
        outcomes = storage.add_event_batch([
            EventBatchItem("d2", 0, [Message(party="a", text="fresh").model_dump_json()], "x"),
            EventBatchItem("d1", 0, [Message(party="b", text="the same number again").model_dump_json()], "y"),
            EventBatchItem("d3", 0, [Message(party="a", text="also fresh").model_dump_json()], None),
        ])
        assert outcomes[0] is None and outcomes[2] is None and isinstance(outcomes[1], EventConflict)
        for _ in range(4):  # straight after the writes (no read in between): the pool takes transactions
            with pytest.raises(RuntimeError), storage.engine.begin() as connection:
                connection.execute(text("INSERT INTO set_aside (dialogue_id, reason) VALUES ('d3', 'rolled back')"))
                raise RuntimeError("abandon the transaction")
        assert storage.set_aside("s") == {}
        assert [[e.text for e in storage.events(d)] for d in ("d1", "d2", "d3")] == [["first", "second"], ["fresh"], ["also fresh"]]
        # More rows than one statement can carry (PostgreSQL takes 65,535 parameters, three a row): plain inserts
        many = [Message(party="a", text=f"line {n}") for n in range(22_000)]
        assert len(many) > COMBINED_ROWS
        storage.add_events("d3", 1, many, "big")
        assert len(storage.events("d3")) == 22_001 and storage.move_seen("d3", "big")
    finally:
        storage.close()

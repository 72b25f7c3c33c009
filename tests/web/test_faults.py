"""Faults: retried moves, a killed worker, the database and Redis briefly gone.

Each test checks the promise that matters to a study: every event is stored exactly once, what
the people saw is what is stored, errors are clean (503 / an error frame, never a stack trace), and
the dialogue goes on once the fault is over.
"""

from __future__ import annotations

import time
import uuid

import httpx
import pytest

from duologue.web.storage import Storage, StorageUnavailable
from web.services import Server, chat, latest_state, lobby, mover, own_postgres, redis_server, seat_token, servers, shared_postgres  # noqa: F401 (fixtures)
from web.test_multiworker import play_to_a_deal, stored_dialogue
from web.webtest_helpers import join_lobby, pair_two, state_where, until
from web.test_live import people_studies


def say(text: str) -> dict:
    return {"kind": "say", "text": text}


def without_own(events: list[dict]) -> list[dict]:
    return [{k: v for k, v in e.items() if k != "own"} for e in events]


def assert_stored_exactly_as_seen(server, final: dict[str, dict]) -> list[dict]:
    dialogue_id = next(iter(final.values()))["dialogue"]
    stored, info = stored_dialogue(server, dialogue_id)
    assert info.status == "finished"
    stored_events = [e.model_dump(mode="json") for e in stored.events]
    for state in final.values():
        assert without_own(state["events"]) == stored_events
    return stored_events


# ---------------------------------------------------------------------- one process (fast)


def test_a_move_sent_twice_with_the_same_move_id_makes_one_event(make_client):
    client = make_client(people_studies())
    token_a, token_b = pair_two(client, "casino-people")
    with client.websocket_connect(f"/ws/chat/{token_a}") as ws_a, client.websocket_connect(f"/ws/chat/{token_b}") as ws_b:
        first = {"a": until(ws_a, state_where(lambda s: True)), "b": until(ws_b, state_where(lambda s: True))}
        name = mover(first)
        ws, token = (ws_a, token_a) if name == "a" else (ws_b, token_b)
        frame = {"type": "move", "action": say("only once please"), "move_id": "m-1"}
        ws.send_json(frame)
        assert until(ws, lambda f: f["type"] == "ack") == {"type": "ack", "move_id": "m-1", "duplicate": False}
        ws.send_json(frame)
        assert until(ws, lambda f: f["type"] == "ack") == {"type": "ack", "move_id": "m-1", "duplicate": True}
        again = client.post(f"/api/chat/{token}/moves", json={**say("only once please"), "move_id": "m-1"})
        assert again.status_code == 200 and again.json()["duplicate"] is True
        view = client.get(f"/api/chat/{token}/view").json()
    assert [e.get("text") for e in view["events"]].count("only once please") == 1
    dialogue = client.app.state.platform.storage.dialogue(view["dialogue"])
    assert len(dialogue.events) == len(view["events"])


def test_a_move_id_that_is_not_a_short_string_is_refused(make_client):
    client = make_client(people_studies())
    token_a, _ = pair_two(client, "casino-people")
    refused = client.post(f"/api/chat/{token_a}/moves", json={**say("hello"), "move_id": 12})
    assert refused.status_code == 422 and "move_id" in refused.json()["detail"]


def test_a_database_error_during_a_move_refuses_it_and_leaves_the_dialogue_as_stored(make_client, monkeypatch):
    client = make_client(people_studies())
    token_a, token_b = pair_two(client, "casino-people")
    storage = client.app.state.platform.storage
    views = {t: client.get(f"/api/chat/{t}/view").json() for t in (token_a, token_b)}
    token = token_a if views[token_a]["legal"] else token_b
    real_add = storage.add_events

    def database_gone(*args, **kwargs):
        raise StorageUnavailable("the database is unavailable: test")

    monkeypatch.setattr(storage, "add_events", database_gone)
    refused = client.post(f"/api/chat/{token}/moves", json={**say("lost in the outage"), "move_id": "m-db"})
    assert refused.status_code == 503 and "unavailable" in refused.json()["detail"]
    monkeypatch.setattr(storage, "add_events", real_add)
    view = client.get(f"/api/chat/{token}/view").json()
    assert view["events"] == views[token]["events"] and view["legal"] == views[token]["legal"]  # engine not advanced
    retried = client.post(f"/api/chat/{token}/moves", json={**say("lost in the outage"), "move_id": "m-db"})
    assert retried.status_code == 200 and retried.json()["duplicate"] is False
    stored = storage.dialogue(view["dialogue"])
    assert [e.model_dump(mode="json") for e in stored.events] == without_own(retried.json()["view"]["events"])
    assert [getattr(e, "text", None) for e in stored.events].count("lost in the outage") == 1


def test_the_database_unreachable_on_a_page_gives_a_clean_503(make_client, monkeypatch):
    client = make_client()
    token = join_lobby(client, "casino", "outage-person")
    storage = client.app.state.platform.storage

    def database_gone(*args, **kwargs):
        raise StorageUnavailable("the database is unavailable: test")

    monkeypatch.setattr(storage, "seat_by_token", database_gone)
    answer = client.get(f"/api/chat/{token}/view")
    assert answer.status_code == 503 and "unavailable" in answer.json()["detail"]
    with client.websocket_connect(f"/ws/chat/{token}") as ws:
        assert ws.receive_json() == {"type": "error", "status": 503, "reason": "the platform is briefly unavailable; reconnecting"}


# ---------------------------------------------------------------------- several processes


def send_move(ws, frame: dict, after_events: int, seen: list, *, retries_on_503: int = 0) -> tuple[dict, dict | None]:
    """Send a move; the `ack` or `error` reply, and (after an ack) the state that shows the move.

    `retries_on_503`: send the same move again after a 503 ("briefly unavailable: send it again"),
    as the chat page does, up to this many times.
    """
    for attempt in range(retries_on_503 + 1):
        ws.send_json(frame)
        reply, state = None, None
        while reply is None or (reply["type"] == "ack" and state is None):
            got = ws.receive_json()
            seen.append(got)
            if got.get("type") in ("ack", "error") and got.get("move_id") == frame.get("move_id"):
                reply = got
            elif got.get("type") == "state" and len(got["events"]) > after_events:
                state = got
        if not (reply["type"] == "error" and reply.get("status") == 503) or attempt == retries_on_503:
            return reply, state
        time.sleep(0.5)
    raise AssertionError("unreachable")


def play_until_mover(sockets: dict, states: dict, who: str, seen: dict) -> dict:
    """Play ordinary messages until it is `who`'s turn."""
    for _ in range(6):
        if mover(states) == who:
            return states
        name = mover(states)
        count = len(states[name]["events"])
        sockets[name].send_json({"type": "move", "action": say(f"filler from {name}"), "move_id": uuid.uuid4().hex})
        states = {n: latest_state(ws, count, seen=seen[n]) for n, ws in sockets.items()}
    raise AssertionError("never the turn of " + who)


def test_a_worker_killed_mid_dialogue_loses_nothing_and_the_dialogue_finishes(servers):
    owner, other = servers(2)
    waiting_a, waiting_b = lobby(owner, "casino-people", "alice"), lobby(owner, "casino-people", "bob")
    token_a, token_b = seat_token(waiting_a), seat_token(waiting_b)  # paired (and owned) by `owner`
    seen = {"alice": [], "bob": []}
    ws_a, ws_b = chat(owner, token_a), chat(other, token_b)
    states = {"alice": latest_state(ws_a, seen=seen["alice"]), "bob": latest_state(ws_b, seen=seen["bob"])}
    states = play_until_mover({"alice": ws_a, "bob": ws_b}, states, "alice", seen)
    count = len(states["alice"]["events"])
    retried = {"type": "move", "action": say("sent just before the crash"), "move_id": "crash-move"}
    ws_a.send_json(retried)
    owner.kill()  # kill -9 the owner (and alice's connection) while the move may be in flight
    ws_a.close()
    # alice's page reconnects to the surviving process and sends the move again (same id)
    ws_a = chat(other, token_a)
    latest_state(ws_a, seen=seen["alice"])
    frame, state_a = send_move(ws_a, retried, count, seen["alice"], retries_on_503=240)  # until the lease moves: ends at the first ack
    assert frame["type"] == "ack", frame
    states = {"alice": state_a, "bob": latest_state(ws_b, count, seen=seen["bob"])}
    owner.start()  # the killed process comes back; alice's page moves to it again
    ws_a.close()
    ws_a = chat(owner, token_a)
    states["alice"] = latest_state(ws_a, seen=seen["alice"])
    final = play_to_a_deal({"alice": ws_a, "bob": ws_b}, seen, states=states)
    ws_a.close()
    ws_b.close()
    stored_events = assert_stored_exactly_as_seen(other, final)
    assert [e.get("text") for e in stored_events].count("sent just before the crash") == 1


def test_a_bot_dialogue_is_taken_over_when_its_owner_is_killed(servers):
    owner, other = servers(2)
    token = seat_token(lobby(owner, "casino-bot", "frank"))  # started and run (bot) by `owner`
    seen: list = []
    with chat(other, token) as ws:
        state = latest_state(ws, seen=seen)
        if not state["legal"]:
            state = latest_state(ws, len(state["events"]), seen=seen)
        owner.kill()
        said = 0
        for _ in range(40):
            if state["done"]:
                break
            if state["legal"]:
                count = len(state["events"])
                action = {"kind": "say", "text": f"message {said} to the bot"} if said < 3 else {"kind": "walk-away"}
                ws.send_json({"type": "move", "action": action, "move_id": uuid.uuid4().hex})
                said += 1
                state = latest_state(ws, count, seen=seen)
            else:
                state = latest_state(ws, len(state["events"]), seen=seen)
    assert state["done"], state
    stored, info = stored_dialogue(other, state["dialogue"])
    assert info.status == "finished"
    assert [e.model_dump(mode="json") for e in stored.events] == without_own(state["events"])
    bot_party = next(p.id for p in stored.parties if p.kind == "bot")
    assert sum(1 for e in stored.events if e.party == bot_party) >= 3  # the bot went on answering after the kill


def test_the_same_move_id_on_two_processes_makes_one_event(servers):
    first, second = servers(2)
    waiting_a, waiting_b = lobby(first, "casino-people", "gina"), lobby(second, "casino-people", "hank")
    token_a, token_b = seat_token(waiting_a), seat_token(waiting_b)
    views = {t: httpx.get(f"{first.base}/api/chat/{t}/view", timeout=10).json() for t in (token_a, token_b)}
    token = token_a if views[token_a]["legal"] else token_b
    body = {**say("one event, two doors"), "move_id": "twice"}
    answers = [httpx.post(f"{server.base}/api/chat/{token}/moves", json=body, timeout=10).json() for server in (first, second)]
    assert [a["duplicate"] for a in answers] == [False, True]
    view = httpx.get(f"{second.base}/api/chat/{token}/view", timeout=10).json()
    assert [e.get("text") for e in view["events"]].count("one event, two doors") == 1


@pytest.fixture
def servers_on_own_postgres(tmp_path, redis_server, own_postgres):
    database = own_postgres.new_database()
    started = [Server(tmp_path, database, redis_server.url, f"server{i}") for i in range(2)]
    for server in started:
        server.start()
    yield started, own_postgres
    for server in started:
        server.stop()


def test_the_database_briefly_down_gives_clean_errors_and_then_the_dialogue_goes_on(servers_on_own_postgres):
    (first, second), postgres = servers_on_own_postgres
    waiting_a, waiting_b = lobby(first, "casino-people", "ivy"), lobby(second, "casino-people", "jack")
    token_a, token_b = seat_token(waiting_a), seat_token(waiting_b)
    seen = {"ivy": [], "jack": []}
    with chat(first, token_a) as ws_a, chat(second, token_b) as ws_b:
        sockets = {"ivy": ws_a, "jack": ws_b}
        states = {name: latest_state(ws, seen=seen[name]) for name, ws in sockets.items()}
        states = play_until_mover(sockets, states, "ivy", seen)
        count = len(states["ivy"]["events"])
        postgres.stop()
        move = {"type": "move", "action": say("made while the database was away"), "move_id": "db-down"}
        frame, _ = send_move(ws_a, move, count, seen["ivy"])
        assert frame["type"] == "error" and frame["status"] == 503, frame
        page = httpx.get(f"{second.base}/api/chat/{token_b}/view", timeout=10)
        assert page.status_code == 503 and "unavailable" in page.json()["detail"]
        postgres.start()
        # the page sends it again until the database is back: the first ack ends the wait (up to 2 min)
        frame, state_a = send_move(ws_a, move, count, seen["ivy"], retries_on_503=240)
        assert frame == {"type": "ack", "move_id": "db-down", "duplicate": False}
        states = {"ivy": state_a, "jack": latest_state(ws_b, count, seen=seen["jack"])}
        final = play_to_a_deal(sockets, seen, states=states)
    stored_events = assert_stored_exactly_as_seen(first, final)
    assert [e.get("text") for e in stored_events].count("made while the database was away") == 1
    assert [e["kind"] for e in stored_events][-1] in ("accept-deal", "system")


def test_a_redis_restart_is_survived(servers, redis_server):
    """Redis only carries notices between workers: a move made while it is away is stored (the
    database decides), and the partner on the other worker sees it once Redis is back."""
    first, second = servers(2)
    waiting_a, waiting_b = lobby(first, "casino-people", "kim"), lobby(second, "casino-people", "lee")
    token_a, token_b = seat_token(waiting_a), seat_token(waiting_b)
    seen = {"kim": [], "lee": []}
    with chat(first, token_a) as ws_a, chat(second, token_b) as ws_b:
        sockets = {"kim": ws_a, "lee": ws_b}
        states = {name: latest_state(ws, seen=seen[name]) for name, ws in sockets.items()}
        states = play_until_mover(sockets, states, "kim", seen)
        count = len(states["kim"]["events"])
        redis_server.stop()
        move = {"type": "move", "action": say("made while Redis was away"), "move_id": "redis-down"}
        frame, state_a = send_move(ws_a, move, count, seen["kim"])
        assert frame == {"type": "ack", "move_id": "redis-down", "duplicate": False}, frame
        redis_server.start()  # same port, empty: leases, presence and subscriptions are rebuilt
        states = {"kim": state_a, "lee": latest_state(ws_b, count, seen=seen["lee"])}  # shown after the reconnect
        assert states["lee"]["events"][-1]["text"] == "made while Redis was away"
        final = play_to_a_deal(sockets, seen, states=states)
    stored_events = assert_stored_exactly_as_seen(first, final)
    assert [e.get("text") for e in stored_events].count("made while Redis was away") == 1


def test_a_replica_that_missed_a_notice_loses_no_move_and_doubles_none(tmp_path, redis_server):
    """Two workers (hubs) in one process share the database and Redis but hear no notices from each
    other, so one engine falls behind. Its next move must still be stored once, after the other
    worker's, with no event lost or repeated (storage refuses its stale event number; it rebuilds
    and moves again)."""
    import asyncio

    from duologue.core import actions
    from duologue.web.cluster import Cluster
    from duologue.web.hub import LiveHub
    from duologue.web.study import Partner, Study
    from web.conftest import fast_settings

    study = Study(id="people", task="openchat-wow-v0", partners=[Partner(kind="human")], turn_taking="free")
    settings = fast_settings(tmp_path, redis_url=redis_server.url)

    async def scenario() -> list[str]:
        hubs = [LiveHub(Storage(settings.database_url), settings, {study.id: study}) for _ in range(2)]
        for hub in hubs:
            hub.cluster = Cluster(redis_server.url)  # no listener: the other worker's notices never arrive
        first, second = hubs
        seats = await first.start(study, humans=["ann", "ben"], bot=None, pairing="people", scenario_key="k", scenario=None, seed=3)
        live_id = next(iter(seats.values())).dialogue_id
        ann, ben = seats["ann"].party, seats["ben"].party
        here, there = await first.open(live_id), await second.open(live_id)
        assert await here.move(ann, actions.Say(text="one"), "m1")
        assert await there.move(ben, actions.Say(text="two"), "m2")  # `here` never hears of it
        assert await here.move(ann, actions.Say(text="three"), "m3")
        assert not await here.move(ann, actions.Say(text="three"), "m3"), "a retry is acknowledged, not made again"
        texts = [e.text for e in first.storage.events(live_id) if getattr(e, "text", None)]
        for hub in hubs:
            await hub.close()
        return texts

    assert asyncio.run(scenario()) == ["one", "two", "three"]


def test_people_entering_the_lobby_while_redis_is_away_wait_and_are_paired_once_it_is_back(servers, redis_server):
    first, second = servers(2)
    redis_server.stop()
    waiting_a, waiting_b = lobby(first, "casino-people", "ana"), lobby(second, "casino-people", "ben")
    time.sleep(2.0)  # entering is retried meanwhile, not refused
    redis_server.start()
    token_a, token_b = seat_token(waiting_a), seat_token(waiting_b)
    assert token_a != token_b

"""Several server processes as one platform: PostgreSQL shared, Redis between them.

Two people who join the lobby on different processes are paired with each other, each talks to
their own process, and they finish a dialogue of every built-in task (a CaSiNo deal, a
CraigslistBargain offer and accept, ...): every event is stored once and both saw the same
transcript. A CraigslistBargain dialogue with an offer on the table is finished by the other
process after its own process dies. Also `duologue serve --workers 2` (uvicorn's worker processes
behind one port), and the refusal of several workers on SQLite or without Redis.
"""

from __future__ import annotations

import time
import uuid

import httpx
from typer.testing import CliRunner

from duologue import cli
from duologue.tasks import TASKS
from duologue.web.storage import Storage
from web.services import BUILT_IN_TASKS, chat, latest_state, lobby, mover, redis_server, seat_token, servers, shared_postgres  # noqa: F401 (fixtures)
from web.webtest_helpers import ADMIN, next_move


def until_reply(ws, move_id: str, seen: list) -> dict:
    """Frames until the `ack` or `error` of this move (states on the way are kept in `seen`)."""
    while True:
        frame = ws.receive_json()
        seen.append(frame)
        if frame.get("type") in ("ack", "error") and frame.get("move_id") == move_id:
            return frame


def play_to_a_deal(sockets: dict, seen: dict[str, list], limit: int = 40, states: dict | None = None, stop=None, said: dict | None = None) -> dict[str, dict]:
    """Both people play with `next_move` (each move with a fresh move id) until the dialogue ends.

    states: each person's current state when already read (else the next state frame is read).
    stop: end earlier, as soon as `stop(states)` holds. said: each person's count of moves so far
    (kept across calls)."""
    states = states or {name: latest_state(ws, seen=seen[name]) for name, ws in sockets.items()}
    said = said if said is not None else {name: 0 for name in sockets}
    for _ in range(limit):
        if all(s["done"] for s in states.values()) or (stop is not None and stop(states)):
            return states
        name = mover(states)
        assert name is not None, states
        count = len(states[name]["events"])
        move = {"type": "move", "action": next_move(states[name], said[name]), "move_id": uuid.uuid4().hex}
        mark = len(seen[name])
        for _ in range(20):  # like the page: a move refused with 503 (or 429: too fast) is sent again (same id)
            sockets[name].send_json(move)
            reply = until_reply(sockets[name], move["move_id"], seen[name])
            if reply["type"] == "ack":
                break
            assert reply["status"] in (503, 429), reply
            time.sleep(reply.get("retry_after", 0.5))  # the wait the server asks for
        said[name] += 1
        shown = [f for f in seen[name][mark:] if f.get("type") == "state" and len(f["events"]) > count]
        states = {n: shown[-1] if n == name and shown else latest_state(ws, count, seen=seen[n]) for n, ws in sockets.items()}
    raise AssertionError("the dialogue did not end")


def stored_dialogue(server, dialogue_id: str):
    storage = Storage(server.database_url)
    try:
        return storage.dialogue(dialogue_id), storage.info(dialogue_id)
    finally:
        storage.close()


DEALS = {"casino-v0": ("submit-deal", "accept-deal"), "craigslist-v0": ("offer", "accept")}
"""Tasks whose people, played by `next_move`, close a deal: the proposal and the answer both kinds
must replay on the other process (a CraigslistBargain offer once stalled there for good)."""


def test_the_several_worker_studies_cover_every_built_in_task():
    assert set(BUILT_IN_TASKS) == {task_id for task_id, target in TASKS.items() if isinstance(target, str) and target.startswith("duologue.tasks.")}


def test_two_people_on_different_processes_finish_a_dialogue_of_every_built_in_task(servers):
    """One pair of servers for all tasks (starting them is the cost); each task's dialogue runs
    between a person on each process, so every event kind the task stores replays on the other."""
    first, second = servers(2)
    for task_id in BUILT_IN_TASKS:
        study, a, b = f"people-{task_id}", f"{task_id}-alice", f"{task_id}-bob"
        waiting_a, waiting_b = lobby(first, study, a), lobby(second, study, b)
        token_a, token_b = seat_token(waiting_a), seat_token(waiting_b)
        seen: dict[str, list] = {a: [], b: []}
        with chat(first, token_a) as ws_a, chat(second, token_b) as ws_b:
            final = play_to_a_deal({a: ws_a, b: ws_b}, seen, limit=80)
        assert final[a]["dialogue"] == final[b]["dialogue"] and final[a]["party"] != final[b]["party"], task_id
        stored, info = stored_dialogue(first, final[a]["dialogue"])
        assert info.status == "finished" and stored.outcome is not None, task_id
        stored_events = [e.model_dump(mode="json") for e in stored.events]
        for name in (a, b):
            assert [{k: v for k, v in e.items() if k != "own"} for e in final[name]["events"]] == stored_events, (task_id, name)
        kinds = [e["kind"] for e in stored_events]
        if task_id in DEALS:
            assert all(kind in kinds for kind in DEALS[task_id]), (task_id, kinds)
            assert stored.outcome.agreed and final[a]["outcome"]["agreed"] and final[b]["outcome"]["agreed"], task_id
        for server in (first, second):  # the same page works on either process
            view = httpx.get(f"{server.base}/api/chat/{token_a}/view", timeout=10).json()
            assert view["done"] and len(view["events"]) == len(stored_events), task_id


def test_a_craigslist_dialogue_with_an_offer_is_finished_by_the_other_process_after_its_own_dies(servers):
    owner, other = servers(2)
    study = "people-craigslist-v0"
    waiting_a, waiting_b = lobby(owner, study, "kim"), lobby(owner, study, "lou")
    token_a, token_b = seat_token(waiting_a), seat_token(waiting_b)  # paired (and owned) by `owner`
    seen: dict[str, list] = {"kim": [], "lou": []}
    said = {"kim": 0, "lou": 0}
    with chat(owner, token_a) as ws_a, chat(owner, token_b) as ws_b:
        offered = play_to_a_deal({"kim": ws_a, "lou": ws_b}, seen, said=said, stop=lambda states: any(e["kind"] == "offer" for s in states.values() for e in s["events"]))
    assert not any(s["done"] for s in offered.values())
    owner.kill()  # kill -9 with the offer stored and not yet answered
    with chat(other, token_a) as ws_a, chat(other, token_b) as ws_b:  # the pages reconnect to the surviving process
        final = play_to_a_deal({"kim": ws_a, "lou": ws_b}, seen, said=said)
    stored, info = stored_dialogue(other, final["kim"]["dialogue"])
    assert info.status == "finished" and stored.outcome is not None and stored.outcome.agreed
    kinds = [e.kind for e in stored.events]
    assert kinds.count("offer") == 1 and kinds[-1] == "accept"
    stored_events = [e.model_dump(mode="json") for e in stored.events]
    for name in ("kim", "lou"):
        assert [{k: v for k, v in e.items() if k != "own"} for e in final[name]["events"]] == stored_events


def test_serve_with_two_workers_pairs_two_people_behind_one_port(servers):
    (server,) = servers(1, workers=2)
    waiting_a = lobby(server, "casino-people", "carol")
    waiting_b = lobby(server, "casino-people", "dave")
    token_a, token_b = seat_token(waiting_a), seat_token(waiting_b)
    seen = {"carol": [], "dave": []}
    with chat(server, token_a) as ws_a, chat(server, token_b) as ws_b:
        final = play_to_a_deal({"carol": ws_a, "dave": ws_b}, seen)
    stored, info = stored_dialogue(server, final["carol"]["dialogue"])
    assert info.status == "finished" and len(stored.events) == len(final["dave"]["events"])


def test_a_person_and_a_bot_play_through_another_process_than_the_one_that_started_it(servers):
    first, second = servers(2)
    token = seat_token(lobby(first, "casino-bot", "erin"))
    seen: list = []
    with chat(second, token) as ws:
        state = latest_state(ws, seen=seen)
        said = 0
        for _ in range(40):
            if state["done"]:
                break
            if state["legal"]:
                count = len(state["events"])
                ws.send_json({"type": "move", "action": next_move(state, said), "move_id": uuid.uuid4().hex})
                said += 1
                state = latest_state(ws, count, seen=seen)
            else:
                state = latest_state(ws, len(state["events"]), seen=seen)
    assert state["done"], state
    stored, _ = stored_dialogue(first, state["dialogue"])
    assert len(stored.events) == len(state["events"])
    assert {e.party for e in stored.events if e.kind != "system"} == {p.id for p in stored.parties}  # the bot moved too


runner = CliRunner()


def test_serve_refuses_several_workers_on_sqlite_or_without_redis(tmp_path):
    on_sqlite = runner.invoke(cli.app, ["serve", "--workers", "2", "--db", f"sqlite:///{tmp_path / 'x.db'}", "--redis", "redis://127.0.0.1:1/0"])
    assert on_sqlite.exit_code == 2 and "SQLite is for one process" in on_sqlite.output
    without_redis = runner.invoke(cli.app, ["serve", "--workers", "2", "--db", "postgresql+psycopg://nobody@127.0.0.1:1/x"])
    assert without_redis.exit_code == 2 and "Redis" in without_redis.output and "Traceback" not in without_redis.output


def test_two_tabs_per_participant_on_two_workers_get_one_seat_each(servers):
    """Each person opens the lobby in two tabs, one on each worker: one dialogue, both tabs in it."""
    first, second = servers(2)
    tabs = {name: [lobby(first, "casino-people", name), lobby(second, "casino-people", name)] for name in ("fay", "gus")}
    tokens = {name: {seat_token(tab) for tab in both} for name, both in tabs.items()}
    assert all(len(found) == 1 for found in tokens.values()), tokens  # both tabs of a person: the same seat
    storage = Storage(first.database_url)
    try:
        seats = [seat for name in tabs for seat, info in storage.seats_of_participant(name, "casino-people") if info.status == "live"]
    finally:
        storage.close()
    assert len(seats) == 2 and len({seat.dialogue_id for seat in seats}) == 1, seats  # no ghost partner, no second dialogue
    bot_tabs = [lobby(first, "casino-bot", "hal"), lobby(second, "casino-bot", "hal")]
    assert len({seat_token(tab) for tab in bot_tabs}) == 1


def test_a_waiter_whose_worker_died_is_never_paired(servers, redis_server):
    """A lobby entry nobody keeps alive (its worker died) is dropped, never handed a partner."""
    import redis

    (server,) = servers(1)
    client = redis.Redis.from_url(redis_server.url)
    client.zadd("duologue:lobby:casino-people", {"ghost": time.time() - 60})  # waiting longest, but nobody's
    ivy = lobby(server, "casino-people", "ivy")
    jay = lobby(server, "casino-people", "jay")
    token_ivy, token_jay = seat_token(ivy), seat_token(jay)
    storage = Storage(server.database_url)
    try:
        dialogue = storage.seat_by_token(token_ivy).dialogue_id
        assert storage.seat_by_token(token_jay).dialogue_id == dialogue
        assert storage.seats_of_participant("ghost", "casino-people") == []
    finally:
        storage.close()
    assert client.zscore("duologue:lobby:casino-people", "ghost") is None


def _one_message_then_b_leaves(first, second, study: str, a: str, b: str):
    """A on `first`, B on `second`; A says one thing; B closes their page and never comes back.
    Returns A's socket (open), A's and B's tokens, and A's party."""
    waiting_a, waiting_b = lobby(first, study, a), lobby(second, study, b)
    token_a, token_b = seat_token(waiting_a), seat_token(waiting_b)
    ws_a = chat(first, token_a)
    state = latest_state(ws_a)
    with chat(second, token_b) as ws_b:
        latest_state(ws_b)
    ws_a.send_json({"type": "move", "action": {"kind": "say", "text": "Hello! I could really use some extra water."}, "move_id": uuid.uuid4().hex})
    return ws_a, token_a, token_b, state["party"]


def _until_done(ws) -> dict:
    while True:
        frame = ws.receive_json()
        if frame.get("type") == "state" and frame["done"]:
            return frame


def test_a_partner_who_leaves_on_another_process_leaves_a_code_and_pay_behind(servers):
    """`on_partner_leave: end` across two processes: B, on the other process, leaves after A's one
    message; past the grace period A's dialogue ends as `partner_left` and A gets a code on either process."""
    first, second = servers(2)
    ws_a, token_a, token_b, party_a = _one_message_then_b_leaves(first, second, "leave-end", "end-ann", "end-ben")
    with ws_a:
        final = _until_done(ws_a)
    assert final["end_reason"] == "partner_left" and final["partner_left"] is True
    stored, info = stored_dialogue(first, final["dialogue"])
    assert info.status == "finished" and info.end_reason == "partner_left"
    assert stored.events[-1].name == "partner_left" and stored.events[-1].data["party"] != party_a
    answer = httpx.post(f"{second.base}/api/questionnaire/{token_a}", json={"0.satisfaction": 3, "0.opponent_likeness": 1}, timeout=10)
    assert answer.status_code == 200 and answer.json()["completion_code"], answer.text
    assert httpx.get(f"{first.base}/questionnaire/{token_b}", timeout=10).status_code == 403  # the one who left: held to min_messages
    counts = httpx.get(f"{second.base}/admin/api/counts", headers={"X-Admin-Token": ADMIN}, timeout=10).json()
    assert counts["studies"]["leave-end"]["end_reasons"] == {"partner_left": 1}


def test_under_bot_a_bot_takes_the_seat_left_on_another_process(servers):
    first, second = servers(2)
    ws_a, token_a, token_b, party_a = _one_message_then_b_leaves(first, second, "leave-bot", "bot-ann", "bot-ben")
    seen: dict[str, list] = {"bot-ann": []}

    def bot_moved(state: dict) -> bool:
        kinds = [(e["kind"], e.get("name"), e["party"]) for e in state["events"]]
        handed = next((i for i, (kind, name, _) in enumerate(kinds) if kind == "system" and name == "handover"), None)
        return handed is not None and any(party not in (None, party_a) for _, _, party in kinds[handed + 1 :])

    with ws_a:
        state = latest_state(ws_a, seen=seen["bot-ann"])
        while not bot_moved(state):  # the bot answers A's message in the departed person's seat
            state = latest_state(ws_a, seen=seen["bot-ann"])
        final = play_to_a_deal({"bot-ann": ws_a}, seen, limit=60, states={"bot-ann": state})
    stored, info = stored_dialogue(second, final["bot-ann"]["dialogue"])
    assert info.status == "finished" and info.end_reason != "partner_left"
    handover = next(e for e in stored.events if e.kind == "system")
    assert handover.name == "handover" and handover.data["party"] != party_a
    view = httpx.get(f"{second.base}/api/chat/{token_a}/view", timeout=10).json()
    assert view["done"] and len(view["events"]) == len(stored.events)
    assert httpx.post(f"{second.base}/api/questionnaire/{token_a}", json={"0.satisfaction": 3, "0.opponent_likeness": 1}, timeout=10).status_code == 200

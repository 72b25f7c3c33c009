"""The web part of the plug-in test: a task registered from outside duologue (tests/web/throwaway_task.py,
with its own kind of move) gets a default study, is played over the websocket through its action
schema, and its moves are checked against that schema with the field named."""

from __future__ import annotations

import pytest

from duologue import tasks
from duologue.web.study import Partner, Study, default_studies

from web.throwaway_task import TASK_ID, register_marbles
from web.webtest_helpers import join_lobby, pair_two, play_to_the_end, state_where, until


@pytest.fixture
def marbles():
    """The throwaway task, registered as a plug-in would register it, for one test."""
    task_id = register_marbles()
    yield task_id
    tasks.TASKS.pop(task_id, None)


def test_a_plugin_task_gets_a_default_study_from_its_spec(marbles):
    study = next(s for s in default_studies() if s.task == marbles)
    assert (study.id, study.title) == ("marbles", "Marbles: share a jar")
    assert [p.pairing for p in study.partners] == ["human-human", "bot:random"]  # it ships no rule agent


def test_a_plugin_task_plays_against_a_bot_over_the_websocket(marbles, make_client):
    client = make_client([Study(id="marbles", task=marbles, partners=[Partner(kind="bot", agent="random")], bot_wait_seconds=0.0)])
    token = join_lobby(client, "marbles", "m-1")
    seen: list = []
    with client.websocket_connect(f"/ws/chat/{token}") as ws:
        final = play_to_the_end(ws, seen=seen)
    assert final["done"] and final["task"] == TASK_ID
    assert final["end_reason"] == "claimed" and final["outcome"]["agreed"] is not None  # both claimed: the rules ended it
    dialogue_id = client.app.state.platform.storage.seat_by_token(token).dialogue_id
    stored = client.app.state.platform.storage.dialogue(dialogue_id)
    other = next(p.id for p in stored.parties if p.kind == "bot")
    secret = stored.scenario.private[other]["lucky_word"]
    assert all(secret not in str(frame) for frame in seen)  # the bot's private view never reached the person


def test_two_people_play_a_plugin_task_and_bad_claims_are_refused_with_the_field(marbles, make_client):
    client = make_client([Study(id="marbles-people", task=marbles, partners=[Partner(kind="human")])])
    a, b = pair_two(client, "marbles-people", "p-a", "p-b")
    with client.websocket_connect(f"/ws/chat/{a}") as ws:
        state = until(ws, state_where(lambda s: True))
        claim = next(o for o in state["schema"]["oneOf"] if o["properties"]["kind"]["const"] == "claim")
        most = claim["properties"]["count"]["maximum"]
        mine = claim["properties"]["colour"]["enum"]
        ws.send_json({"type": "move", "action": {"kind": "claim", "count": most + 1, "colour": mine[0]}})
        error = until(ws, lambda f: f.get("type") == "error")
        assert error["status"] == 422 and error["reason"].startswith("not a valid move: claim: count")
        not_mine = next(c for c in ("red", "blue", "green") if c not in mine)
        ws.send_json({"type": "move", "action": {"kind": "claim", "count": 0, "colour": not_mine}})
        error = until(ws, lambda f: f.get("type") == "error")
        assert error["status"] == 422 and "colour" in error["reason"]
        ws.send_json({"type": "move", "action": {"kind": "claim", "count": 1, "colour": mine[0]}})
        until(ws, state_where(lambda s: any(e["kind"] == "claimed" for e in s["events"])))
    with client.websocket_connect(f"/ws/chat/{b}") as ws:
        state = until(ws, state_where(lambda s: True))
        own = next(o for o in state["schema"]["oneOf"] if o["properties"]["kind"]["const"] == "claim")
        ws.send_json({"type": "move", "action": {"kind": "claim", "count": 0, "colour": own["properties"]["colour"]["enum"][0]}})
        final = until(ws, state_where(lambda s: s["done"]))
    assert final["outcome"]["agreed"] is True and final["outcome"]["score"] == 0
    assert final["score_label"] == "marbles claimed" and final["widget"] is None

"""Deal or No Deal on the platform: two people over websockets, and a person against the rule bot.

The moves come from each party's own action schema in its state frame; a choice reaches the other
party as a `choose` event with nothing in it until the dialogue is over.
"""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from duologue.core import moves
from duologue.web.app import create_app
from duologue.web.study import Partner, Study

from web.conftest import fast_settings
from web.webtest_helpers import pair_two, play_to_the_end, state_where, until

STUDIES = [
    Study(id="deal-people", task="dealornodeal-v0", partners=[Partner(kind="human")]),
    Study(id="deal-bot", task="dealornodeal-v0", bot_wait_seconds=0.1, partners=[Partner(kind="bot", agent="rule")]),
]


@pytest.fixture
def client(tmp_path):
    with TestClient(create_app(fast_settings(tmp_path), STUDIES)) as client:
        yield client


def move(ws, action: dict) -> None:
    ws.send_json({"type": "move", "action": action})


def test_two_people_choose_in_private_and_agree(client):
    token_a, token_b = pair_two(client, "deal-people")
    with client.websocket_connect(f"/ws/chat/{token_a}") as ws_a, client.websocket_connect(f"/ws/chat/{token_b}") as ws_b:
        state_a = until(ws_a, state_where(lambda s: True))
        state_b = until(ws_b, state_where(lambda s: True))
        first, first_state, second = (ws_a, state_a, ws_b) if state_a["legal"] else (ws_b, state_b, ws_a)
        pool = first_state["public"]["pool"]
        choose = moves.option(first_state["schema"], "choose")
        mine = {item: pool[item] if item == "book" else 0 for item in pool}
        action = moves.complete(choose, {"kind": "choose", "mine": mine})
        assert moves.validate(first_state["schema"], action) is None
        move(first, action)
        seen = until(second, state_where(lambda s: any(e["kind"] == "choose" for e in s["events"])))
        hidden = [e for e in seen["events"] if e["kind"] == "choose"]
        assert [(e["mine"], e["theirs"]) for e in hidden] == [(None, None)]
        assert seen["legal"] == ["choose"]
        move(second, {"kind": "choose", "mine": action["theirs"], "theirs": action["mine"]})
        end = until(second, state_where(lambda s: s["done"]))
        assert end["outcome"]["agreed"] is True
        assert [e["mine"] for e in end["events"] if e["kind"] == "choose"] == [action["mine"], action["theirs"]]
        assert until(first, state_where(lambda s: s["done"]))["outcome"]["agreed"] is True


def test_a_person_plays_the_rule_bot_to_the_end(client):
    with client.websocket_connect("/ws/lobby/deal-bot?participant=p1") as lobby:
        frame = until(lobby, lambda f: f["type"] == "paired")
    token = frame["url"].rsplit("/", 1)[1]
    with client.websocket_connect(f"/ws/chat/{token}") as ws:
        last = play_to_the_end(ws)
    assert last["done"] and last["outcome"] is not None

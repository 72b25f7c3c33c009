"""The admin's participant monitor (`/admin/api/monitor`): people on their pages, updated as they
move on, dropouts past the quiet threshold, and nothing without the admin token."""

from __future__ import annotations

from duologue.web.study import Partner, Study
from web.test_protocol import collection_study
from web.webtest_helpers import ADMIN, join_lobby, pair_two, play_to_the_end, state_where, until

HEADERS = {"X-Admin-Token": ADMIN}


def places(client, **query) -> dict[str, dict]:
    """Every person the monitor shows, by participant id."""
    reply = client.get("/admin/api/monitor", headers=HEADERS, params=query)
    assert reply.status_code == 200, reply.text
    return {p["participant"]: p for study in reply.json()["studies"].values() for p in study["people"]}


def test_the_monitor_shows_people_on_their_pages_and_follows_them(make_client):
    collection = collection_study(bot_wait_seconds=60, partners=[{"kind": "human"}, {"kind": "bot", "agent": "rule"}])
    people = Study(id="casino-people", task="casino-v0", partners=[Partner(kind="human")])
    solo = Study(id="casino-solo", task="casino-v0", partners=[Partner(kind="bot", agent="rule")], bot_wait_seconds=0.1)
    leave = Study(id="casino-leave", task="casino-v0", partners=[Partner(kind="human")], partner_grace_seconds=0.3)
    client = make_client([collection, people, solo, leave])

    client.get(f"/study/{collection.id}?participant=reader")
    seen = places(client)
    assert (seen["reader"]["stage"], seen["reader"]["page"], seen["reader"]["study"]) == ("protocol", "consent", collection.id)
    assert client.post(f"/protocol/{collection.id}/consent?participant=reader", data={"agree": "yes"}, follow_redirects=False).status_code == 303
    assert places(client)["reader"]["page"] == "instructions"  # the same endpoint, asked again, follows the person

    with client.websocket_connect("/ws/lobby/casino-people?participant=waiter") as lobby:
        assert lobby.receive_json()["type"] == "waiting"
        waiting = places(client)["waiter"]
        assert (waiting["stage"], waiting["page"], waiting["connected"]) == ("lobby", "waiting for a partner", True)
        summary = client.get("/admin/api/monitor", headers=HEADERS, params={"study": "casino-people"}).json()["studies"]["casino-people"]["summary"]
        assert summary["waiting"] == 1 and summary["lobby"] == 1

    token_a, token_b = pair_two(client, "casino-people", "talker-a", "talker-b")
    with client.websocket_connect(f"/ws/chat/{token_a}") as ws:
        until(ws, state_where(lambda s: True))
        seen = places(client)
        assert seen["talker-a"]["stage"] == seen["talker-b"]["stage"] == "dialogue"
        assert seen["talker-a"]["connected"] is True and seen["talker-b"]["connected"] is False
        assert seen["talker-a"]["dialogue"] == seen["talker-b"]["dialogue"] != ""

    seat = join_lobby(client, "casino-solo", "finisher")  # against the bot: dialogue, questionnaire, done
    with client.websocket_connect(f"/ws/chat/{seat}") as ws:
        play_to_the_end(ws)
    assert places(client)["finisher"]["stage"] == "questionnaire"
    assert client.post(f"/api/questionnaire/{seat}", json={"0.satisfaction": 3, "0.opponent_likeness": 1}).status_code == 200
    done = places(client)["finisher"]
    assert done["stage"] == "done" and done["dropout"] is False

    # past a (tiny) quiet threshold everyone not done and not connected is a dropout
    quiet = places(client, quiet=0.001)
    assert quiet["reader"]["dropout"] is True and quiet["finisher"]["dropout"] is False
    assert places(client)["reader"]["dropout"] is False  # under the default ten minutes

    # a person who left a dialogue is a dropout at once; the one left behind is on the questionnaire
    token_a, token_b = pair_two(client, "casino-leave", "stayer", "leaver")
    with client.websocket_connect(f"/ws/chat/{token_a}") as ws:
        until(ws, state_where(lambda s: True))
        with client.websocket_connect(f"/ws/chat/{token_b}") as ws_b:
            until(ws_b, state_where(lambda s: True))
        until(ws, state_where(lambda s: s["done"]))
    seen = places(client, study="casino-leave")
    assert (seen["leaver"]["stage"], seen["leaver"]["page"], seen["leaver"]["dropout"]) == ("dialogue", "left the dialogue", True)
    assert (seen["stayer"]["stage"], seen["stayer"]["dropout"]) == ("questionnaire", False)

    page = client.get("/admin", headers=HEADERS)
    assert 'id="monitor-rows"' in page.text and "/static/monitor.js" in page.text


def test_the_monitor_refuses_without_the_admin_token_and_bad_queries(client):
    assert client.get("/admin/api/monitor").status_code == 401
    assert client.get("/admin/api/monitor", headers={"X-Admin-Token": "guess"}).status_code == 403
    assert client.get("/admin/api/monitor", params={"token": "guess"}).status_code == 403
    assert client.get("/admin/api/monitor", headers=HEADERS, params={"study": "no-such-study"}).status_code == 404
    assert client.get("/admin/api/monitor", headers=HEADERS, params={"quiet": "-3"}).status_code == 422
    assert client.get("/admin/api/monitor", headers=HEADERS, params={"quiet": "soon"}).status_code == 422

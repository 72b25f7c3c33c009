"""Bad input is refused with a clear 4xx, and nothing stored is changed by it."""

from __future__ import annotations

import pytest
from starlette.websockets import WebSocketDisconnect

from duologue.web.study import Partner, Study, default_studies
from web.webtest_helpers import ADMIN, join_lobby, pair_two, state_where, until


@pytest.fixture
def people(make_client):
    studies = default_studies(bot_wait_seconds=0.1) + [
        Study(id="casino-people", task="casino-v0", partners=[Partner(kind="human")]),
        Study(id="craigslist-people", task="craigslist-v0", partners=[Partner(kind="human")]),
    ]
    client = make_client(studies, max_message_chars=200)
    a, b = pair_two(client, "casino-people")
    return client, a, b


def stored_events(client, token):
    state = client.app.state.platform
    seat = state.storage.seat_by_token(token)
    return state.storage.dialogue(seat.dialogue_id).events


def move(client, token, action):
    return client.post(f"/api/chat/{token}/moves", json=action)


def test_oversized_messages_are_refused(people):
    client, a, _ = people
    response = move(client, a, {"kind": "say", "text": "x" * 201})
    assert response.status_code == 413
    assert "at most 200 characters" in response.json()["detail"]
    assert stored_events(client, a) == []
    assert move(client, a, {"kind": "say", "text": "x" * 200}).status_code == 200
    assert len(stored_events(client, a)) == 1


@pytest.mark.parametrize(
    "action, status, words",
    [
        ({"kind": "fly"}, 422, "not a valid move"),
        ({"kind": "say"}, 422, "text"),
        ({"kind": "say", "text": "   "}, 422, "some text"),
        ({"kind": "offer", "price": 10}, 409, "not allowed"),
        ({"kind": "accept-deal"}, 409, "not allowed"),
        ("just a string", 422, "not a valid move"),
        ('{"kind": "say", "text": "hi"}', 422, "a move is a JSON object"),  # a move as JSON text inside the JSON
        ([{"kind": "say", "text": "hi"}], 422, "not list"),
    ],
)
def test_invalid_moves_are_refused(people, action, status, words):
    client, a, _ = people
    response = move(client, a, action)
    assert response.status_code == status
    assert words in str(response.json()["detail"])
    assert stored_events(client, a) == []


@pytest.mark.parametrize(
    "mine, theirs",
    [
        ({"Food": 3, "Water": 3, "Firewood": 3}, {"Food": 3, "Water": 0, "Firewood": 0}),  # more than there is
        ({"Food": 1, "Water": 1, "Firewood": 1}, {"Food": 1, "Water": 1, "Firewood": 1}),  # less than there is
        ({"Food": -1, "Water": 3, "Firewood": 3}, {"Food": 4, "Water": 0, "Firewood": 0}),  # negative
        ({"Food": 3, "Water": 3}, {"Food": 0, "Water": 0}),  # an item missing
        ({"Gold": 3, "Water": 3, "Firewood": 3}, {"Gold": 0, "Water": 0, "Firewood": 0}),  # not an item
    ],
)
def test_a_deal_that_does_not_add_up_is_refused(people, mine, theirs):
    """Refused by the action schema (422, with the field or the reason), before the engine sees it."""
    client, a, _ = people
    response = move(client, a, {"kind": "submit-deal", "mine": mine, "theirs": theirs})
    assert response.status_code == 422
    assert response.json()["detail"].startswith("not a valid move: submit-deal")
    assert stored_events(client, a) == []
    good = move(client, a, {"kind": "submit-deal", "mine": {"Food": 2, "Water": 1, "Firewood": 0}, "theirs": {"Food": 1, "Water": 2, "Firewood": 3}})
    assert good.status_code == 200


def test_casino_partner_must_answer_a_deal_before_anything_else(people):
    client, a, b = people
    deal = {"kind": "submit-deal", "mine": {"Food": 2, "Water": 1, "Firewood": 0}, "theirs": {"Food": 1, "Water": 2, "Firewood": 3}}
    assert move(client, a, deal).status_code == 200
    assert move(client, b, {"kind": "say", "text": "hmm"}).status_code == 409
    assert move(client, a, {"kind": "say", "text": "please answer"}).status_code == 409
    assert move(client, b, {"kind": "reject-deal"}).status_code == 200
    assert [e.kind for e in stored_events(client, a)] == ["submit-deal", "reject-deal"]


def test_html_in_messages_is_stored_verbatim_and_shown_escaped(people):
    client, a, b = people
    evil = '<script>alert("x")</script><img src=x onerror=alert(1)>'
    assert move(client, a, {"kind": "say", "text": evil}).status_code == 200
    assert stored_events(client, a)[0].text == evil
    view = client.get(f"/api/chat/{b}/view").json()
    assert view["events"][0]["text"] == evil  # data, rendered with textContent by chat.js
    dialogue_id = client.app.state.platform.storage.seat_by_token(a).dialogue_id
    client.app.state.platform.hub.get(dialogue_id).task.end("test_over")
    page = client.get(f"/admin/dialogues/{dialogue_id}", headers={"X-Admin-Token": ADMIN})
    assert page.status_code == 200
    assert "&lt;script&gt;alert(" in page.text and "<script>alert(" not in page.text
    chat_js = client.get("/static/chat.js").text
    assert "innerHTML" not in chat_js


def test_wrong_or_missing_admin_token_is_refused(client):
    assert client.get("/admin/api/counts").status_code == 401
    assert client.get("/admin/api/counts", headers={"X-Admin-Token": "nope"}).status_code == 403
    assert client.get("/admin/export?token=nope").status_code == 403
    assert client.get("/admin/dialogues/x", headers={"X-Admin-Token": "nope"}).status_code == 403
    assert client.post("/admin/studies", data={"text": "id: x\ntask: casino-v0"}, headers={"X-Admin-Token": "nope"}).status_code == 403
    page = client.get("/admin?token=nope")
    assert page.status_code == 403 and "wrong admin token" in page.text
    assert client.get("/admin/api/counts", headers={"X-Admin-Token": ADMIN}).status_code == 200


def test_a_participant_cannot_read_the_other_partys_view(people):
    client, a, b = people
    mine = client.get(f"/api/chat/{a}/view").json()
    other = client.get(f"/api/chat/{b}/view").json()
    response = client.get(f"/api/chat/{a}/view", params={"party": other["party"]})
    assert response.status_code == 403 and "your own side" in response.json()["detail"]
    assert client.get("/api/chat/not-a-token/view").status_code == 404
    assert client.get("/chat/not-a-token").status_code == 404
    assert mine["private"] != other["private"]
    for value in other["private"]["reasons"].values():
        assert value not in str(mine)


def test_moves_on_someone_elses_seat_or_a_bots_seat_are_impossible(client):
    token = join_lobby(client, "casino", "solo")
    bot_seat = next(s for s in client.app.state.platform.storage.seats(client.app.state.platform.storage.seat_by_token(token).dialogue_id) if s.kind == "bot")
    assert move(client, bot_seat.token, {"kind": "say", "text": "I am the bot now"}).status_code == 404


def test_not_your_turn_against_a_bot_is_refused(make_client):
    studies = [Study(id="bot-first", task="openchat-wow-v0", partners=[Partner(kind="bot")], human_party="user")]
    client = make_client(studies, bot_typing_seconds=0.5)
    token = join_lobby(client, "bot-first", "eager")  # in WoW the bot speaks first
    response = move(client, token, {"kind": "say", "text": "me first!"})
    assert response.status_code == 409 and "turn" in response.json()["detail"]


def test_bad_websocket_frames_get_an_error_and_change_nothing(people):
    client, a, _ = people
    with client.websocket_connect(f"/ws/chat/{a}") as ws:
        until(ws, state_where(lambda s: True))
        ws.send_text("not json")
        assert ws.receive_json() == {"type": "error", "status": 400, "reason": "frames are JSON objects"}
        ws.send_text("[1, 2]")
        assert ws.receive_json()["status"] == 400
        ws.send_text("x" * 30_000)
        assert ws.receive_json()["status"] == 413
        ws.send_json({"type": "move", "action": {"kind": "say", "text": "y" * 500}})
        assert ws.receive_json()["status"] == 413
        ws.send_json({"type": "move", "action": {"kind": "submit-deal", "mine": {}, "theirs": {}}})
        error = ws.receive_json()  # checked against the action schema, with the field named
        assert error["status"] == 422 and error["reason"].startswith("not a valid move: submit-deal: ")
        ws.send_json({"type": "dance"})
        assert ws.receive_json()["status"] == 400
    assert stored_events(client, a) == []


def test_bad_participant_ids_and_unknown_studies(client):
    assert client.get("/study/nope?participant=x").status_code == 404
    assert client.get("/study/casino?participant=<script>").status_code == 422
    with client.websocket_connect("/ws/lobby/casino?participant=%3Cscript%3E") as ws:
        assert ws.receive_json()["type"] == "refused"
    guest = client.get("/study/casino", follow_redirects=False)
    assert guest.status_code == 303 and "participant=guest-" in guest.headers["location"]


def test_questionnaire_answers_are_checked_before_anything_is_stored(people):
    client, a, b = people
    assert client.post(f"/api/questionnaire/{a}", json={"0.satisfaction": 3}).status_code == 409  # not over yet
    assert move(client, a, {"kind": "walk-away"}).status_code == 200
    bad = client.post(f"/api/questionnaire/{a}", json={"0.satisfaction": 9, "0.opponent_likeness": "Extremely like"})
    assert bad.status_code == 422 and "0.satisfaction" in str(bad.json()["detail"])
    assert client.app.state.platform.storage.ratings() == []
    unknown = client.post(f"/api/questionnaire/{a}", json={"0.satisfaction": 1, "0.opponent_likeness": 1, "hack": 5})
    assert unknown.status_code == 422
    for key in ("².x", "9" * 5000 + ".x", "٣.x", "00.satisfaction"):  # digits int() refuses or cannot afford, an index out of range
        odd = client.post(f"/api/questionnaire/{a}", json={"0.satisfaction": 1, "0.opponent_likeness": 1, key: 5})
        assert odd.status_code == 422 and "not a question here" in str(odd.json()["detail"]), key
    assert client.post(f"/questionnaire/{a}", data={"².x": "1"}).status_code == 422
    form = client.post(f"/questionnaire/{a}", data={"0.satisfaction": "Undecided"})
    assert form.status_code == 422 and "not answered" in form.text
    good = client.post(f"/api/questionnaire/{a}", json={"0.satisfaction": "Undecided", "0.opponent_likeness": 5})
    assert good.status_code == 200
    ratings = client.app.state.platform.storage.ratings()
    assert [(r.criterion, r.value, r.rater_kind) for r in ratings] == [("satisfaction", "Undecided", "party"), ("opponent_likeness", "Extremely like", "party")]
    assert client.post(f"/api/questionnaire/{a}", json={"0.satisfaction": 1, "0.opponent_likeness": 1}).status_code == 409
    done_page = client.get(f"/questionnaire/{a}")
    assert good.json()["completion_code"] in done_page.text


def test_admin_study_text_with_mistakes_is_refused(client):
    bad = client.post("/admin/studies", data={"text": "id: x\ntask: chess-v0"}, headers={"X-Admin-Token": ADMIN})
    assert bad.status_code == 422 and "unknown task" in bad.json()["detail"]
    assert "x" not in client.app.state.platform.studies
    ok = client.post("/admin/studies", data={"text": "id: x\ntask: casino-v0\npartners: [{kind: bot}]"}, headers={"X-Admin-Token": ADMIN}, follow_redirects=False)
    assert ok.status_code == 303 and "x" in client.app.state.platform.studies


def test_hostile_websocket_frames_close_cleanly_or_are_refused(people):
    """Binary frames, nesting 100,000 deep (and deep enough to exhaust the parser within the size
    limit) and lone surrogates: each gets a reason, nothing is stored, the server never fails."""
    client, a, _ = people
    with client.websocket_connect(f"/ws/chat/{a}") as ws:
        until(ws, state_where(lambda s: True))
        ws.send_text("[" * 5_000 + "]" * 5_000)  # under the size limit, deeper than the parser goes
        assert ws.receive_json() == {"type": "error", "status": 400, "reason": "frames are JSON objects"}
        ws.send_text('{"type": "move", "action": {"kind": "say", "text": "\\ud800"}}')
        error = ws.receive_json()
        assert error["status"] == 422 and "lone surrogate" in error["reason"]
        ws.send_text('{"type": "move", "action": {"kind": "say", "text": "hi"}, "move_id": "\\udfff"}')
        error = ws.receive_json()
        assert error["status"] == 422 and "move_id" not in error  # not echoed: it cannot be written back
        ws.send_bytes(b"\x00\x01binary")
        assert ws.receive_json() == {"type": "error", "status": 400, "reason": "frames are JSON text, not binary"}
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_json()
        assert closed.value.code == 1003
    with client.websocket_connect(f"/ws/chat/{a}") as ws:
        until(ws, state_where(lambda s: True))
        ws.send_text("[" * 100_000 + "]" * 100_000)  # over the frame size limit: closed before it is read
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_json()
        assert closed.value.code == 1009
    assert stored_events(client, a) == []


def test_hostile_http_bodies_are_refused_not_failed(people):
    client, a, _ = people
    deep = client.post(f"/api/chat/{a}/moves", content="[" * 100_000 + "]" * 100_000, headers={"content-type": "application/json"})
    assert deep.status_code == 400
    lone = client.post(f"/api/chat/{a}/moves", content='{"kind": "say", "text": "a\\ud800b"}', headers={"content-type": "application/json"})
    assert lone.status_code == 422 and "lone surrogate" in lone.json()["detail"]
    assert stored_events(client, a) == []
    assert move(client, a, {"kind": "say", "text": "still fine"}).status_code == 200

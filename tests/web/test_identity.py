"""A participant id belongs to the browser that arrived with it first (an HttpOnly session cookie):
a second browser with the same id gets a clear refusal, never the seat, the questionnaire or the code."""

from __future__ import annotations

from fastapi.testclient import TestClient

from duologue.web import identity
from duologue.web.study import Partner, Study

from web.webtest_helpers import until

REFUSED = "already in use in another browser"


def two_browsers(make_client) -> tuple[TestClient, TestClient]:
    """Two clients of one platform, each with its own cookie jar (two browsers)."""
    first = make_client([Study(id="solo", task="casino-v0", partners=[Partner(kind="bot", agent="rule")], bot_wait_seconds=0.0, time_limit_seconds=None)])
    return first, TestClient(first.app)


def seat_of(browser: TestClient, participant: str) -> str:
    assert browser.get(f"/study/solo?participant={participant}").status_code == 200
    with browser.websocket_connect(f"/ws/lobby/solo?participant={participant}") as ws:
        paired = until(ws, lambda f: f["type"] in ("paired", "refused"))
    assert paired["type"] == "paired", paired
    return paired["url"].rsplit("/", 1)[1]


def test_the_first_browser_gets_an_httponly_session_cookie(make_client):
    first, _ = two_browsers(make_client)
    response = first.get("/study/solo?participant=alice")
    cookie = response.headers["set-cookie"]
    assert cookie.startswith(f"{identity.COOKIE}=") and "HttpOnly" in cookie and "SameSite=lax" in cookie
    again = first.get("/study/solo?participant=alice")  # the same browser comes back: no new cookie, same welcome
    assert again.status_code == 200 and "set-cookie" not in again.headers


def test_a_second_browser_with_the_same_id_gets_a_clear_page_not_the_seat(make_client):
    first, second = two_browsers(make_client)
    token = seat_of(first, "alice")
    lobby = second.get("/study/solo?participant=alice")
    assert lobby.status_code == 403 and REFUSED in lobby.text
    with second.websocket_connect("/ws/lobby/solo?participant=alice") as ws:
        refused = ws.receive_json()
    assert refused["type"] == "refused" and REFUSED in refused["reason"]
    chat = second.get(f"/chat/{token}")  # even holding the seat's link
    assert chat.status_code == 403 and REFUSED in chat.text and "data-token" not in chat.text
    assert second.get(f"/api/chat/{token}/view").status_code == 403
    move = second.post(f"/api/chat/{token}/moves", json={"kind": "say", "text": "it is me, honestly"})
    assert move.status_code == 403
    with second.websocket_connect(f"/ws/chat/{token}") as ws:
        frame = ws.receive_json()
    assert frame["type"] == "error" and frame["status"] == 403
    view = first.get(f"/api/chat/{token}/view")
    mine = view.json()["party"]
    assert view.status_code == 200 and not [e for e in view.json()["events"] if e["party"] == mine]  # nothing the second browser sent was made


def test_the_questionnaire_and_code_stay_with_the_first_browser(make_client):
    first, second = two_browsers(make_client)
    token = seat_of(first, "bob")
    assert first.post(f"/api/chat/{token}/moves", json={"kind": "walk-away"}).status_code == 200
    assert second.get(f"/questionnaire/{token}").status_code == 403
    assert second.get(f"/api/questionnaire/{token}").status_code == 403
    assert second.post(f"/api/questionnaire/{token}", json={}).status_code == 403
    assert first.get(f"/api/questionnaire/{token}").status_code == 200


def test_a_client_without_cookies_may_not_take_an_id_a_browser_holds(make_client):
    first, _ = two_browsers(make_client)
    seat_of(first, "carol")
    script = TestClient(first.app, cookies=None)
    script.cookies.clear()
    with script.websocket_connect("/ws/lobby/solo?participant=carol") as ws:
        assert ws.receive_json()["type"] == "refused"


def test_rater_ids_are_bound_the_same_way(make_client):
    first, second = two_browsers(make_client)
    assert first.get("/rate?rater=rater-1", follow_redirects=False).status_code in (200, 303)
    refused = second.get("/rate?rater=rater-1", follow_redirects=False)
    assert refused.status_code == 403 and REFUSED in refused.text


def test_a_lobby_page_that_fails_leaves_the_id_free_for_the_browser_that_tries_again(make_client):
    from sqlalchemy import text

    from duologue.web.protocol import _Base, progress_of

    first, _ = two_browsers(make_client)
    storage = first.app.state.platform.storage
    progress_of(first.app.state.platform)
    with storage.engine.begin() as connection:  # the pages' progress table is away: the lobby page fails after the id was claimed
        connection.execute(text("DROP TABLE protocol_progress"))
    failing = TestClient(first.app, raise_server_exceptions=False)
    assert failing.get("/study/solo?participant=unlucky").status_code == 500
    assert identity.COOKIE not in failing.cookies and storage.session_of("unlucky") is None
    _Base.metadata.create_all(storage.engine)
    again = TestClient(first.app)
    assert again.get("/study/solo?participant=unlucky").status_code == 200 and identity.COOKIE in again.cookies
    assert storage.session_of("unlucky") is not None

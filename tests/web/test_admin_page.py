"""The admin pages as a researcher uses them: inline study errors, completion codes, readable events, who and when."""

from __future__ import annotations

import html
import re

import pytest

from duologue.core.schema import Message, SubmitDeal
from duologue.web.routers.admin import event_text
from duologue.web.study import Partner, Study, default_studies
from web.webtest_helpers import ADMIN, pair_two

HTML = {"X-Admin-Token": ADMIN, "Accept": "text/html,application/xhtml+xml"}
JSON = {"X-Admin-Token": ADMIN}


@pytest.fixture
def finished(make_client):
    """Two people in a study of humans: one walks away, both answer the questionnaire and get a code."""
    studies = default_studies(bot_wait_seconds=0.1) + [Study(id="people", task="casino-v0", partners=[Partner(kind="human")])]
    client = make_client(studies)
    a, b = pair_two(client, "people", "worker-a", "worker-b")
    with client.websocket_connect(f"/ws/chat/{a}") as ws:
        ws.receive_json()
        ws.send_json({"type": "move", "action": {"kind": "walk-away"}})
        ws.receive_json()
    codes = {}
    for who, token in (("worker-a", a), ("worker-b", b)):
        answer = client.post(f"/api/questionnaire/{token}", json={"0.satisfaction": "Undecided", "0.opponent_likeness": 3})
        assert answer.status_code == 200, answer.text
        codes[who] = answer.json()["completion_code"]
    return client, codes


def test_a_bad_study_shows_its_errors_beside_the_text_which_is_kept(client):
    text = "id: broken\ntask: chess-v0\npartners: [{kind: bot}]"
    page = client.post("/admin/studies", data={"text": text}, headers=HTML)
    assert page.status_code == 422 and page.headers["content-type"].startswith("text/html")
    errors = re.search(r'<div class="error" role="alert" id="study-errors">(.*?)</div>', page.text, re.S)
    assert errors and "unknown task" in errors.group(1)
    textarea = re.search(r'<textarea id="study-text"[^>]*>(.*?)</textarea>', page.text, re.S)
    assert textarea and html.unescape(textarea.group(1)) == text
    assert "broken" not in client.app.state.platform.studies
    # YAML that does not parse: the same page, the text kept
    broken_yaml = "id: [unclosed\ntask: casino-v0"
    page = client.post("/admin/studies", data={"text": broken_yaml}, headers=HTML)
    assert page.status_code == 422 and 'id="study-errors"' in page.text
    assert html.unescape(re.search(r"<textarea[^>]*>(.*?)</textarea>", page.text, re.S).group(1)) == broken_yaml
    # a good study is saved and the browser goes back to the dashboard
    ok = client.post("/admin/studies", data={"text": "id: fine\ntask: casino-v0\npartners: [{kind: bot}]"}, headers=HTML, follow_redirects=False)
    assert ok.status_code == 303 and "fine" in client.app.state.platform.studies


def test_completion_codes_are_listed_and_a_pasted_code_is_checked(finished):
    client, codes = finished
    listing = client.get("/admin/codes", headers=JSON)
    assert listing.status_code == 200
    for who, code in codes.items():
        assert re.search(rf"<td>{who}</td><td>people</td>.*?<code>{re.escape(code)}</code>", listing.text)
    rows = client.get("/admin/api/codes", headers=JSON).json()["codes"]
    assert {(r["participant"], r["code"]) for r in rows} == set(codes.items())
    assert all(r["study"] == "people" and r["dialogue"] and re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", r["time"]) for r in rows)
    # what a worker pastes: lower case, spaces around
    pasted = f"  {codes['worker-b'].lower()} "
    valid = client.get("/admin/codes", params={"code": pasted}, headers=JSON)
    result = re.search(r'id="code-result">(.*?)</div>', valid.text, re.S).group(1)
    assert "Valid." in result and "worker-b" in result and "worker-a" not in result
    answer = client.get("/admin/api/codes", params={"code": pasted}, headers=JSON).json()
    assert answer["valid"] and [m["participant"] for m in answer["matches"]] == ["worker-b"]
    forged = codes["worker-b"][:-1] + ("0" if codes["worker-b"][-1] != "0" else "1")
    invalid = client.get("/admin/codes", params={"code": forged}, headers=JSON)
    assert "Invalid." in re.search(r'id="code-result">(.*?)</p>', invalid.text, re.S).group(1)
    assert client.get("/admin/api/codes", params={"code": forged}, headers=JSON).json() == {"code": forged, "valid": False, "matches": []}
    assert client.get("/admin/codes").status_code == 401


def test_dashboard_and_dialogue_page_show_who_when_and_readable_events(finished):
    client, _ = finished
    dashboard = client.get("/admin", headers=JSON).text
    row = re.search(r'<tr><td><a href="/admin/dialogues/([^"]+)">.*?</tr>', dashboard, re.S)
    assert row and "worker-a" in row.group(0) and "worker-b" in row.group(0)
    assert len(re.findall(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", row.group(0))) == 2  # started and ended
    page = client.get(f"/admin/dialogues/{row.group(1)}", headers=JSON).text
    events = re.search(r'<ol class="transcript" id="events">(.*?)</ol>', page, re.S).group(1)
    assert "walk-away" in events and "{&#39;" not in events and "{'" not in events
    assert "worker-a" in page and "UTC" in page


def test_event_text_says_a_message_or_the_moves_fields():
    assert event_text(Message(party="0", text="hello there")) == "hello there"
    deal = event_text(SubmitDeal(party="1", mine={"food": 2, "water": 1}, theirs={"food": 1, "water": 2}))
    assert deal == "mine: food 2, water 1; theirs: food 1, water 2"

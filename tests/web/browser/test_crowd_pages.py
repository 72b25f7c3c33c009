"""Crowd identity in Chromium: a Prolific arrival (PROLIFIC_PID, STUDY_ID, SESSION_ID) plays to a
code and is sent back to Prolific; another study's STUDY_ID and the same PID in a second browser
are refused; an MTurk preview seats nobody, and an MTurk worker's code is posted back to MTurk.
Prolific and MTurk are never reached: their addresses are answered inside the browser."""

from __future__ import annotations

import re
from urllib.parse import parse_qs

import pytest

from duologue.web.study import Partner, Study

from web.browser.conftest import running_server
from web.browser.test_browser import finish_questionnaire
from web.browser.test_generic_controls import block_widgets, play_generically

playwright_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
expect = playwright_api.expect

PID, STUDY_ID, SESSION = "5f1e2d3c4b5a69788796a5b4", "63aa0bcc1122334455667788", "b1c2d3e4f5"
PROLIFIC = re.compile(r"^https://app\.prolific\.com/.*")
MTURK = re.compile(r"^https://workersandbox\.mturk\.com/.*")


@pytest.fixture(scope="module")
def crowd_server(tmp_path_factory):
    bot = [Partner(kind="bot", agent="rule")]
    studies = [
        Study(id="pro", title="Camping (Prolific)", task="casino-v0", partners=bot, bot_wait_seconds=0.3, crowd="prolific", prolific_study_id=STUDY_ID),
        Study(id="turk", title="Camping (MTurk)", description="Split food, water and firewood with a partner.", task="casino-v0", partners=bot, bot_wait_seconds=0.3, crowd="mturk"),
    ]
    with running_server(tmp_path_factory.mktemp("crowd"), studies) as url:
        yield url


def arrival(server: str, pid: str = PID, study_id: str = STUDY_ID, session: str = SESSION) -> str:
    return f"{server}/study/pro?PROLIFIC_PID={pid}&STUDY_ID={study_id}&SESSION_ID={session}"


def answered(page, pattern, seen: list) -> None:
    """Answer the crowd platform's address inside the browser, noting each request."""
    page.context.route(pattern, lambda route: (seen.append(route.request), route.fulfill(status=200, content_type="text/plain", body="the crowd platform")))


def test_a_prolific_arrival_reaches_a_code_and_goes_back_to_prolific(crowd_server, page_factory, shots):
    page = page_factory()
    seen: list = []
    answered(page, PROLIFIC, seen)
    block_widgets(page)
    page.goto(arrival(crowd_server, pid="aa11bb22cc33dd44ee55ff66"))
    page.wait_for_url(re.compile(r".*/chat/.*"), timeout=30_000)
    play_generically(page, "prolific")
    code = finish_questionnaire(page, shots, "prolific")
    expect(page.locator("#completion-link")).to_have_attribute("href", f"https://app.prolific.com/submissions/complete?cc={code}")
    page.wait_for_url(PROLIFIC, timeout=30_000)  # the code page goes back to Prolific by itself
    assert page.url == f"https://app.prolific.com/submissions/complete?cc={code}" and len(seen) == 1


def test_another_studys_study_id_is_refused(crowd_server, page_factory):
    page = page_factory()
    response = page.goto(arrival(crowd_server, pid="0a0b0c0d0e0f0a0b0c0d0e0f", study_id="000000000000000000000000"))
    assert response is not None and response.status == 403
    expect(page.locator("#error-page")).to_contain_text("another Prolific study")
    assert not page.context.cookies()  # refused before the id is bound: its owner is not locked out


def test_the_same_pid_from_a_second_browser_is_refused(crowd_server, page_factory):
    first, second = page_factory(), page_factory()
    arrived = first.goto(arrival(crowd_server, pid="1234567890abcdef12345678"))
    assert arrived is not None and arrived.status == 200
    first.wait_for_url(re.compile(r".*/chat/.*"), timeout=30_000)  # seated: the seat is this browser's
    response = second.goto(arrival(crowd_server, pid="1234567890abcdef12345678", session="other-session"))
    assert response is not None and response.status == 403
    expect(second.locator("#error-page")).to_contain_text("another browser")


def test_an_mturk_preview_shows_the_task_and_seats_nobody(crowd_server, page_factory):
    page = page_factory()
    sockets: list = []
    page.on("websocket", lambda ws: sockets.append(ws.url))
    response = page.goto(f"{crowd_server}/study/turk?assignmentId=ASSIGNMENT_ID_NOT_AVAILABLE&hitId=HIT1&turkSubmitTo=https%3A%2F%2Fworkersandbox.mturk.com")
    assert response is not None and response.status == 200
    expect(page.locator("#preview")).to_contain_text("Split food, water and firewood")
    page.wait_for_load_state("networkidle")
    assert page.locator("#lobby").count() == 0 and sockets == [] and not page.context.cookies()


def test_an_mturk_workers_code_is_posted_back_to_mturk(crowd_server, page_factory, shots):
    page = page_factory()
    seen: list = []
    answered(page, MTURK, seen)
    block_widgets(page)
    page.goto(f"{crowd_server}/study/turk?workerId=A1PILOTWORKER&assignmentId=ASSIGN1&hitId=HIT1&turkSubmitTo=https%3A%2F%2Fworkersandbox.mturk.com")
    page.wait_for_url(re.compile(r".*/chat/.*"), timeout=30_000)
    play_generically(page, "mturk")
    code = finish_questionnaire(page, shots, "mturk")
    page.wait_for_url(MTURK, timeout=30_000)  # the code page posts the HIT by itself
    (posted,) = seen
    assert posted.method == "POST" and posted.url == "https://workersandbox.mturk.com/mturk/externalSubmit"
    assert parse_qs(posted.post_data) == {"assignmentId": ["ASSIGN1"], "code": [code]}

"""A plug-in task whose view JSON cannot hold: the chat page in chromium shows a clean error and
stops, rather than reconnecting into the same failure for ever."""

from __future__ import annotations

import re

import pytest

from duologue import tasks
from duologue.web.deltas import UNSHOWABLE_REASON
from duologue.web.study import Partner, Study

from web.browser.conftest import running_server
from web.throwaway_task import Marbles

playwright_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
expect = playwright_api.expect

ASK = "show me the weights"


class DecimalWeights(Marbles):
    """Once asked, shows rows holding a Decimal, which no JSON writer takes."""

    spec = Marbles.spec.model_copy(update={"id": "decimal-weights-v0"})

    def items(self, observation):
        from decimal import Decimal

        asked = any(getattr(e, "text", None) == ASK for e in observation.transcript)
        return [{"weight": Decimal("1.5")}] if asked else []


@pytest.fixture(scope="module")
def unshowable_server(tmp_path_factory):
    task_id = tasks.register(DecimalWeights)
    try:
        study = Study(id="weights", title="Weights", task=task_id, partners=[Partner(kind="bot", agent="random")], bot_wait_seconds=0.5, time_limit_seconds=None)
        with running_server(tmp_path_factory.mktemp("unshowable"), [study]) as url:
            yield url
    finally:
        tasks.TASKS.pop(task_id, None)


def test_a_view_json_cannot_hold_stops_the_page_with_its_reason(unshowable_server, page_factory):
    page = page_factory()
    sockets: list = []
    page.on("websocket", lambda ws: sockets.append(ws.url) if "/ws/chat/" in ws.url else None)
    page.goto(f"{unshowable_server}/study/weights?participant=weights-1")
    page.wait_for_url(re.compile(r".*/chat/.*"), timeout=20_000)
    expect(page.locator("#say-input")).to_be_enabled(timeout=30_000)
    page.locator("#say-input").fill(ASK)
    page.locator("#say-input").press("Enter")
    connection = page.locator("#connection")
    expect(connection).to_have_text(UNSHOWABLE_REASON, timeout=20_000)  # the close branch that does not reconnect
    assert len(sockets) == 1, sockets

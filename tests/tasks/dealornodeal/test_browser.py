"""Deal or No Deal in chromium: a person plays the rule bot with the task's page widget (the
schema-driven controls are played with widgets blocked in tests/web/browser/test_generic_controls.py).

Skipped when playwright or the system chromium is missing (as the platform's own browser tests).
"""

from __future__ import annotations

import re

import pytest

from duologue.web.study import Partner, Study

playwright_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
from web.browser.conftest import CHROMIUM, running_server  # noqa: E402

expect = playwright_api.expect
pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason=f"chromium is not installed at {CHROMIUM}")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    studies = [Study(id="deal-bot", title="Deal or No Deal", task="dealornodeal-v0", bot_wait_seconds=0.3, partners=[Partner(kind="bot", agent="rule")])]
    with running_server(tmp_path_factory.mktemp("deal-server"), studies) as url:
        yield url


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    with playwright_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"])
        context = browser.new_context(viewport={"width": 1200, "height": 900})
        context.set_default_timeout(20_000)
        yield context.new_page()
        browser.close()


def test_a_person_gives_the_bot_everything_and_both_choose_it(server, page, tmp_path):
    page.goto(f"{server}/study/deal-bot?participant=browser-1")
    page.wait_for_url(re.compile(r".*/chat/.*"))
    expect(page.locator("#choose-form")).to_be_attached()
    page.wait_for_function("() => !document.getElementById('say-input').disabled")
    page.locator("#say-input").fill("you can have everything")
    page.locator("#say-button").click()
    expect(page.locator("#transcript")).to_contain_text("deal")
    page.screenshot(path=str(tmp_path / "dealornodeal-chat.png"), full_page=True)
    for item in ("book", "hat", "ball"):  # take nothing: the partner gets the whole pool
        page.select_option(f"#choose-{item}", "0")
    expect(page.locator("#choose-points")).to_have_text("0")
    page.locator("#submit-choice").click()
    expect(page.locator("#end")).to_be_visible()
    page.screenshot(path=str(tmp_path / "dealornodeal-end.png"), full_page=True)
    token = page.url.rsplit("/", 1)[1]
    view = page.request.get(f"{server}/api/chat/{token}/view").json()  # the seat belongs to this browser
    assert view["done"] and view["outcome"]["agreed"] is True

"""In Chromium: a partner who leaves after one message. The person left behind is told, sees the
dialogue end, and gets a completion code (not a refusal) although they wrote fewer messages than
the study's `min_messages`; at a phone's and a laptop's width."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

NO_SIDEWAYS_SCROLL = "() => document.documentElement.scrollWidth <= document.documentElement.clientWidth"


@pytest.mark.parametrize("width,height,mobile", [(390, 844, True), (1280, 800, False)], ids=["390", "1280"])
def test_the_person_left_behind_gets_a_code_after_one_message(server, page_factory, shots, width, height, mobile):
    stays, leaves = page_factory(width, height, mobile), page_factory()
    stays.goto(f"{server}/study/casino-leave?participant=stays-{width}")
    expect(stays.locator("#lobby-status")).to_contain_text("Looking")
    leaves.goto(f"{server}/study/casino-leave?participant=leaves-{width}")
    stays.wait_for_url(re.compile(r".*/chat/.*"), timeout=20_000)
    leaves.wait_for_url(re.compile(r".*/chat/.*"), timeout=20_000)
    stays.locator("#say-input").fill("Hello! I could really use some extra water for the trip.")
    stays.locator("#say-button").click()
    expect(leaves.locator("#transcript")).to_contain_text("extra water")
    leaves.close()  # walks away: the tab is gone

    expect(stays.locator("#connection")).to_contain_text("lost their connection")
    expect(stays.locator("#end")).to_contain_text("Your partner left", timeout=20_000)
    expect(stays.locator("#transcript")).to_contain_text("not your doing")
    assert stays.evaluate(NO_SIDEWAYS_SCROLL)
    stays.screenshot(path=str(shots / f"partner-left-chat-{width}.png"), full_page=True)

    stays.locator("#to-questionnaire").click()
    stays.wait_for_url(re.compile(r".*/questionnaire/.*"))
    assert "Sorry" not in stays.title()
    for fieldset in stays.locator("fieldset.item").all():
        fieldset.locator("input[type=radio]").last.check()
    stays.locator("#submit-questionnaire").click()
    code = stays.locator("#completion-code")
    expect(code).to_be_visible()
    assert re.fullmatch(r"[A-Z0-9-]{6,}", code.inner_text().strip())
    assert stays.evaluate(NO_SIDEWAYS_SCROLL)
    stays.screenshot(path=str(shots / f"partner-left-code-{width}.png"), full_page=True)

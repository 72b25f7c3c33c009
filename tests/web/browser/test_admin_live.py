"""The admin page in Chromium: counts follow the lobby without a reload, a bad study's errors show
beside the text (which is kept), at a phone's and a laptop's width."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from web.browser.conftest import ADMIN

NO_SIDEWAYS_SCROLL = "() => document.documentElement.scrollWidth <= document.documentElement.clientWidth"


@pytest.mark.parametrize("width,height,mobile", [(390, 844, True), (1280, 800, False)], ids=["390", "1280"])
def test_admin_counts_update_live_and_a_bad_study_is_shown_inline(server, page_factory, shots, width, height, mobile):
    admin = page_factory(width, height, mobile)
    admin.goto(f"{server}/admin?token={ADMIN}")
    cell = admin.locator('tr[data-study="mutualfriends-people"] [data-key="waiting"]')
    before = int(cell.inner_text())
    admin.evaluate("() => { window.notReloaded = true; }")
    person = page_factory()
    person.goto(f"{server}/study/mutualfriends-people?participant=admin-watch-{width}")
    expect(person.locator("#lobby-status")).to_contain_text("Looking")
    expect(cell).to_have_text(str(before + 1), timeout=10_000)
    expect(admin.locator("#counts-updated")).to_contain_text("updated")
    assert admin.evaluate("() => window.notReloaded === true"), "the page reloaded instead of updating"
    person.close()
    expect(cell).to_have_text(str(before), timeout=15_000)

    text = "id: broken-study\ntask: no-such-task-v0\npartners: [{kind: bot}]"
    admin.locator("#study-text").fill(text)
    admin.locator("#study-form button[type=submit]").click()
    expect(admin.locator("#study-errors")).to_contain_text("unknown task")
    expect(admin.locator("#study-text")).to_have_value(text)
    assert admin.evaluate(NO_SIDEWAYS_SCROLL)
    box, area = admin.locator("#study-errors").bounding_box(), admin.locator("#study-text").bounding_box()
    assert box and area and box["x"] + box["width"] <= width + 1 and area["x"] + area["width"] <= width + 1
    admin.screenshot(path=str(shots / f"admin-bad-study-{width}.png"), full_page=True)

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


BAD_SETTINGS = [
    ("task: no-such-task-v0\n", "task", "unknown task"),
    ("task_options: {colour: blue}\n", "task_options.colour", "colour"),
    ("partners: [{kind: human}, {kind: bot, agent: telepath}]\n", "partners.1.agent", "cannot be built"),
    ("quotas: {bot:random: 3}\n", "quotas.bot:random", "no partner of that kind"),
    ("scenarios: {source: corpus, corpus: casino, path: /etc/hostname}\n", "scenarios.path", "name only what the task ships"),
    ("scenarios: {pool: 100000000}\n", "scenarios.pool", "less than or equal to 10000"),
    ("questionnaire: no-such-form\n", "questionnaire", "unknown questionnaire"),
    ("human_party: referee\n", "human_party", "not a party"),
    ("protocol: {consent: /etc/hostname}\n", "protocol.consent", "name only what the task ships"),
    ("protocol: {consent: task:no-such-text}\n", "protocol.consent", "ships no"),
]


@pytest.mark.parametrize("setting,field,words", BAD_SETTINGS, ids=[field for _, field, _ in BAD_SETTINGS])
def test_each_kind_of_bad_setting_is_refused_on_the_admin_page_with_its_field(server, page_factory, setting, field, words):
    """Typed into the admin page in Chromium, each bad setting is refused beside the text, naming its field;
    the study is not added (its lobby does not exist) and the text stays for fixing."""
    admin = page_factory(1280, 800, False)
    admin.goto(f"{server}/admin?token={ADMIN}")
    study_id = f"bad-{field.replace('.', '-').replace(':', '-')}"
    base = {"id": study_id, "task": "casino-v0", "partners": "[{kind: human}, {kind: bot, agent: rule}]", "quotas": "{bot:rule: 5}"}
    key = setting.split(":", 1)[0]
    lines = [f"{k}: {v}" for k, v in base.items() if k != key]
    text = "\n".join(lines) + "\n" + setting
    admin.locator("#study-text").fill(text)
    admin.locator("#study-form button[type=submit]").click()
    errors = admin.locator("#study-errors")
    expect(errors).to_contain_text(f"{field}: ", timeout=15_000)
    assert words in errors.inner_text().lower(), errors.inner_text()
    expect(admin.locator("#study-text")).to_have_value(text)
    page = page_factory()
    response = page.goto(f"{server}/study/{study_id}?participant=someone")
    assert response is not None and response.status == 404, f"{study_id} was added: {response and response.status}"


@pytest.mark.parametrize("width,height,mobile", [(390, 844, True), (1280, 800, False)], ids=["390", "1280"])
def test_the_participant_monitor_follows_a_person_through_the_pages_without_a_reload(server, page_factory, shots, width, height, mobile):
    """The admin's monitor shows a person on the consent page, then on the instructions once they
    agree, without reloading; it fits a phone's and a laptop's width."""
    admin = page_factory(width, height, mobile)
    admin.goto(f"{server}/admin?token={ADMIN}")
    admin.evaluate("() => { window.notReloaded = true; }")
    person = page_factory()
    participant = f"monitored-{width}"
    person.goto(f"{server}/study/casino-collection?participant={participant}")
    row = admin.locator(f'#monitor-rows tr[data-participant="{participant}"]')
    expect(row).to_contain_text("before the lobby", timeout=10_000)
    expect(row).to_contain_text("consent")
    person.locator("#agree").check()
    person.locator("#protocol-next").click()
    expect(row).to_contain_text("instructions", timeout=10_000)
    expect(admin.locator("#monitor-updated")).to_contain_text("updated")
    assert int(admin.locator("#monitor-protocol").inner_text()) >= 1
    assert admin.evaluate("() => window.notReloaded === true"), "the page reloaded instead of updating"
    assert admin.evaluate(NO_SIDEWAYS_SCROLL)
    box = admin.locator("#monitor").bounding_box()
    assert box and box["x"] + box["width"] <= width + 1
    admin.locator("#monitor").screenshot(path=str(shots / f"admin-monitor-{width}.png"))
    admin.screenshot(path=str(shots / f"admin-monitor-page-{width}.png"), full_page=True)

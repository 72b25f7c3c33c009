"""Every registered task is playable in chromium through the controls drawn from its action schema
alone (its page widget blocked), on a phone (390 px) and a desktop (1280 px), with no sideways
scroll and every control on screen at every step; task pages with their widgets fit too; and a task
registered from outside duologue plays in the browser with no web edit."""

from __future__ import annotations

import re

import pytest

from duologue import tasks
from duologue.web.study import Partner, Study

from web.browser.conftest import running_server
from web.throwaway_task import register_marbles

playwright_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
Page, expect = playwright_api.Page, playwright_api.expect

WIDTHS = {390: (390, 844, True), 1280: (1280, 800, False)}
LEAVING = ("quit", "walk", "leave")
ANSWERS = ("accept", "reject")

LAYOUT = """() => {
  const width = document.documentElement.clientWidth;
  const shown = Array.from(document.querySelectorAll('button, .button, input, select, output'))
    .filter(b => b.offsetParent !== null && b.type !== 'hidden');
  const off = shown.filter(b => { const r = b.getBoundingClientRect(); return r.left < -1 || r.right > width + 1; })
    .map(b => (b.id || b.name || b.textContent || '').trim().slice(0, 40));
  return {scroll: document.documentElement.scrollWidth, width: width, off: off};
}"""


def assert_fits(page: Page, where: str) -> None:
    """No sideways scroll, and every visible control inside the viewport's width."""
    layout = page.evaluate(LAYOUT)
    assert layout["scroll"] <= layout["width"], f"{where}: the page scrolls sideways ({layout['scroll']} px in {layout['width']} px)"
    assert not layout["off"], f"{where}: controls off screen: {layout['off']}"


def block_widgets(page: Page) -> None:
    """Refuse every task widget, so only the schema-driven form is on the page."""
    page.route(re.compile(r".*/tasks/[^/]+/static/.*"), lambda route: route.abort())


def ready(page: Page) -> None:
    page.wait_for_function(
        "() => !document.getElementById('end').hidden || !document.getElementById('say-input').disabled || document.querySelector('#actions form')",
        timeout=30_000,
    )


def fill_form(page: Page, kind: str, step: int) -> None:
    """Fill one move form as a person would: a row of each choice, numbers within their bounds,
    one count per item of a split (the other half fills itself)."""
    form = page.locator(f"#actions form[data-kind='{kind}']")
    for group in form.locator("[role=radiogroup]").all():
        radios = group.locator("input[type=radio]")
        radios.nth(step % radios.count()).check()
    for field in form.locator("input[type=number]").all():
        low = float(field.get_attribute("min") or 0)
        high = float(field.get_attribute("max") or low + 10)
        value = low + (high - low) / 2
        field.fill(str(int(value)) if field.get_attribute("step") == "1" else f"{max(value, low + 0.5):.2f}")
    for select in form.locator("select").all():
        options = select.locator("option")
        select.select_option(index=(step + options.count() // 2) % options.count())
        other = page.locator(f"#{select.get_attribute('id')}-other")
        if other.count():  # the split's other half is the pool minus this half
            expect(other).to_have_text(re.compile(r"^\d+$"))


def play_generically(page: Page, where: str, limit: int = 60, shot=None) -> None:
    """Play one seat to the end with the schema-driven controls only, checking the layout each step."""
    page.on("dialog", lambda dialog: dialog.accept())
    said = own = 0
    for step in range(limit):
        ready(page)
        assert_fits(page, f"{where} step {step}")
        if not page.locator("#end").is_hidden():
            return
        kinds = [f.get_attribute("data-kind") for f in page.locator("#actions form.move-form").all()]
        answer = next((k for k in kinds if k.startswith(ANSWERS[0])), None)
        moves = [k for k in kinds if not k.startswith(LEAVING + ANSWERS)]
        leave = next((k for k in kinds if k.startswith(LEAVING)), None)
        if answer:
            page.locator(f"#move-{answer}").click()
        elif leave and own >= 3:
            page.locator(f"#move-{leave}").click()
        elif moves and (said >= 1 or page.locator("#say-input").is_disabled()):
            kind = moves[own % len(moves)]
            fill_form(page, kind, own)
            if shot is not None and own == 0:
                page.screenshot(path=str(shot), full_page=True)
            page.locator(f"#move-{kind}").click()
            own += 1
        elif not page.locator("#say-input").is_disabled():
            page.locator("#say-input").fill(["Hello! What matters most to you?", "I see, that sounds fair.", "Let us settle it."][said % 3])
            page.locator("#say-button").click()
            said += 1
        page.wait_for_timeout(400)
    raise AssertionError(f"{where}: the dialogue did not end in {limit} steps")


@pytest.mark.parametrize("width", sorted(WIDTHS))
@pytest.mark.parametrize("task_id", tasks.task_ids())
def test_every_task_plays_to_the_end_with_the_schema_form(server, page_factory, shots, task_id, width):
    w, h, mobile = WIDTHS[width]
    page = page_factory(width=w, height=h, mobile=mobile)
    block_widgets(page)
    study = task_id.rpartition("-v")[0]  # the default study of every registered task
    page.goto(f"{server}/study/{study}?participant=generic-{study}-{width}")
    page.wait_for_url(re.compile(r".*/chat/.*"), timeout=20_000)
    expect(page.locator("#private")).not_to_contain_text("Loading")
    play_generically(page, f"{task_id} at {width} px", shot=shots / f"generic-{study}-{width}-form.png")
    expect(page.locator("#end")).to_be_visible()
    assert_fits(page, f"{task_id} at {width} px, the end")
    page.screenshot(path=str(shots / f"generic-{study}-{width}.png"), full_page=True)


@pytest.mark.parametrize("width", sorted(WIDTHS))
def test_task_pages_with_their_widgets_fit(server, page_factory, shots, width):
    """Every task's own page (widget loaded), including MutualFriends with 4 attributes and 12 friends."""
    w, h, mobile = WIDTHS[width]
    for task_id in [*tasks.task_ids(), "mutualfriends-wide"]:
        study = task_id.rpartition("-v")[0] if task_id in tasks.task_ids() else task_id
        page = page_factory(width=w, height=h, mobile=mobile)
        page.goto(f"{server}/study/{study}?participant=fit-{study}-{width}")
        page.wait_for_url(re.compile(r".*/chat/.*"), timeout=20_000)
        ready(page)
        page.wait_for_timeout(500)  # the widget, if any, has drawn
        assert_fits(page, f"{study} at {width} px")
        page.screenshot(path=str(shots / f"fit-{study}-{width}.png"), full_page=True)
        page.context.close()


@pytest.fixture(scope="module")
def plugin_server(tmp_path_factory):
    """A platform running a study of a task registered from outside duologue (no web edit)."""
    task_id = register_marbles()
    try:
        study = Study(id="marbles", title="Marbles", task=task_id, partners=[Partner(kind="bot", agent="random")], bot_wait_seconds=0.5, time_limit_seconds=None)
        with running_server(tmp_path_factory.mktemp("plugin"), [study]) as url:
            yield url
    finally:
        tasks.TASKS.pop(task_id, None)


@pytest.mark.parametrize("width", sorted(WIDTHS))
def test_a_plugin_task_plays_in_the_browser(plugin_server, page_factory, shots, width):
    w, h, mobile = WIDTHS[width]
    page = page_factory(width=w, height=h, mobile=mobile)
    page.goto(f"{plugin_server}/study/marbles?participant=marbles-{width}")
    page.wait_for_url(re.compile(r".*/chat/.*"), timeout=20_000)
    expect(page.locator("#private")).to_contain_text("Colours")  # its own private list, drawn from its view
    play_generically(page, f"plug-in at {width} px")
    expect(page.locator("#end")).to_be_visible()
    page.screenshot(path=str(shots / f"plugin-{width}.png"), full_page=True)

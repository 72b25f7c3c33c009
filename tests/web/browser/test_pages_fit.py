"""The pages as people see them, on a phone (390 px) and a desktop (1280 px): no sideways scroll, no
word broken inside (MutualFriends' names and schools), five-point scales in order, and Deal or No
Deal's widget (the split with the person's points; the partner's hidden choice as "Your partner
has chosen", the header and the message box right when the person's only move is their choice).
Screenshots of each go to the screenshot folder."""

from __future__ import annotations

import re

import pytest

from web.browser.test_browser import enter_chat
from web.browser.test_generic_controls import WIDTHS, assert_fits

playwright_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
Page, expect = playwright_api.Page, playwright_api.expect

LONG_TOKEN = 20
"""A token this long (a URL, a code) may break anywhere; words shorter than it must not."""

BROKEN_WORDS = """(selectors) => {
  const broken = [];
  for (const selector of selectors) {
    for (const root of document.querySelectorAll(selector)) {
      const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        if (!node.parentElement || node.parentElement.offsetParent === null) continue;
        for (const match of node.data.matchAll(/[A-Za-z0-9]+/g)) {
          if (match[0].length < 2 || match[0].length >= %d) continue;
          const range = document.createRange();
          range.setStart(node, match.index); range.setEnd(node, match.index + match[0].length);
          const tops = new Set(Array.from(range.getClientRects()).filter(r => r.width > 0).map(r => Math.round(r.top)));
          if (tops.size > 1) broken.push(match[0]);
        }
      }
    }
  }
  return broken;
}""" % LONG_TOKEN

SCALES_OUT_OF_ORDER = """() => {
  const bad = [];
  for (const group of document.querySelectorAll('.options')) {
    const boxes = Array.from(group.querySelectorAll('.option')).map(o => o.getBoundingClientRect());
    if (boxes.length < 3) continue;
    const oneRow = boxes.every((b, i) => i === 0 || (Math.abs(b.top - boxes[0].top) < 2 && b.left > boxes[i - 1].left));
    const oneColumn = boxes.every((b, i) => i === 0 || (Math.abs(b.left - boxes[0].left) < 2 && b.top > boxes[i - 1].top));
    if (!oneRow && !oneColumn) bad.push(group.closest('fieldset').querySelector('legend').textContent.trim().slice(0, 60));
  }
  return bad;
}"""


def assert_words_whole(page: Page, where: str, selectors: tuple[str, ...]) -> None:
    broken = page.evaluate(BROKEN_WORDS, list(selectors))
    assert not broken, f"{where}: words broken inside: {broken[:10]}"


@pytest.mark.parametrize("width", sorted(WIDTHS))
def test_mutualfriends_keeps_every_word_whole_and_fits(server, page_factory, shots, width):
    w, h, mobile = WIDTHS[width]
    page = page_factory(width=w, height=h, mobile=mobile)
    enter_chat(page, server, "mutualfriends-wide", f"words-{width}")
    expect(page.locator("#friends tbody tr").first).to_be_visible()
    page.locator("#say-input").fill("Do any of your friends study Pharmaceutical Sciences at the University of North Carolina?")
    page.locator("#say-button").click()
    expect(page.locator("#transcript li.mine")).to_have_count(1)
    page.screenshot(path=str(shots / f"mutualfriends-words-{width}.png"), full_page=True)
    assert_fits(page, f"MutualFriends at {width} px")
    assert_words_whole(page, f"MutualFriends at {width} px", ("#friends", "#transcript", "#private"))


@pytest.mark.parametrize("width", sorted(WIDTHS))
def test_questionnaire_scales_stay_in_order(server, page_factory, shots, width):
    w, h, mobile = WIDTHS[width]
    page = page_factory(width=w, height=h, mobile=mobile)
    enter_chat(page, server, "casino", f"scales-{width}")
    page.once("dialog", lambda dialog: dialog.accept())
    page.locator("#walk-away").click()
    page.locator("#to-questionnaire").click()
    page.wait_for_url(re.compile(r".*/questionnaire/.*"))
    expect(page.locator("fieldset.item").first).to_be_visible()
    page.screenshot(path=str(shots / f"questionnaire-{width}.png"), full_page=True)
    assert page.locator(".options").count() >= 2
    assert page.evaluate(SCALES_OUT_OF_ORDER) == [], f"scales out of order at {width} px"
    assert_fits(page, f"the questionnaire at {width} px")
    assert_words_whole(page, f"the questionnaire at {width} px", ("#questionnaire",))


@pytest.mark.parametrize("width", sorted(WIDTHS))
def test_deal_or_no_deal_shows_the_split_and_a_hidden_choice_in_words(server, page_factory, shots, width):
    w, h, mobile = WIDTHS[width]
    ann, ben = page_factory(width=w, height=h, mobile=mobile), page_factory(width=w, height=h, mobile=mobile)
    ann.goto(f"{server}/study/dealornodeal-people?participant=dond-ann-{width}")
    expect(ann.locator("#lobby-status")).to_contain_text("Looking")
    ben.goto(f"{server}/study/dealornodeal-people?participant=dond-ben-{width}")
    for page in (ann, ben):
        page.wait_for_url(re.compile(r".*/chat/.*"))
        expect(page.locator("table.pool tbody tr")).to_have_count(3)  # the widget: books, hats, balls with their worth
        expect(page.locator("#choose-form")).to_be_visible()  # either may choose at any time
    first, second = ann, ben
    first.screenshot(path=str(shots / f"dealornodeal-choose-{width}.png"), full_page=True)
    assert_fits(first, f"Deal or No Deal at {width} px")
    for select in first.locator("#choose-form select").all():  # take everything
        select.select_option(index=select.locator("option").count() - 1)
    expect(first.locator("#choose-points")).to_have_text("10")
    first.locator("#submit-choice").click()
    expect(first.locator("#choose-waiting")).to_be_visible()
    expect(first.locator("#transcript")).to_contain_text("You chose: you take")
    expect(second.locator("#transcript")).to_contain_text("Your partner has chosen.")
    assert "Choose:" not in second.locator("#transcript").inner_text()
    expect(second.locator("#choose-form legend")).to_contain_text("Your partner has chosen")
    expect(second.locator("#turns-left")).to_have_text("Your move")
    assert second.locator("#say-input").get_attribute("placeholder") == "Chat is closed: see below."
    second.screenshot(path=str(shots / f"dealornodeal-partner-chose-{width}.png"), full_page=True)
    assert_fits(second, f"Deal or No Deal (partner chose) at {width} px")
    assert_words_whole(second, f"Deal or No Deal at {width} px", ("#private", "#transcript", "#actions"))
    expect(second.locator("#choose-points")).to_have_text("0")
    second.locator("#submit-choice").click()  # nothing: the complement of everything
    expect(first.locator("#end")).to_contain_text("Your points: 10 of 10.")
    expect(second.locator("#end")).to_contain_text("Your points: 0 of 10.")
    expect(second.locator("#transcript")).to_contain_text("Your partner chose: they take")
    second.screenshot(path=str(shots / f"dealornodeal-end-{width}.png"), full_page=True)


RIGHT_ANSWERS = ("5", "5 points")
"""The comprehension check's answers in CaSiNo's shipped protocol."""


def _fill_protocol_page(page: Page) -> None:
    """Answer one protocol page as a person would (the right answers to the check)."""
    if page.locator("#agree").count():
        page.locator("#agree").check()
    for number in page.locator("input[type=number]").all():
        number.fill(number.get_attribute("min") or "1")
    for text in page.locator("textarea").all():
        text.fill("It matters a lot to my family on this trip.")
    for group in page.locator(".options").all():
        labels = group.locator("label.option")
        texts = [t.strip() for t in labels.all_inner_texts()]
        right = next((i for i, t in enumerate(texts) if t in RIGHT_ANSWERS), len(texts) - 1)
        labels.nth(right).locator("input").check()


@pytest.mark.parametrize("width", sorted(WIDTHS))
def test_every_protocol_page_fits_keeps_words_whole_and_scales_in_order(server, page_factory, shots, width):
    w, h, mobile = WIDTHS[width]
    page = page_factory(width=w, height=h, mobile=mobile)
    page.goto(f"{server}/study/casino-collection?participant=protocol-{width}")
    seen = []
    while "/protocol/" in page.url:
        step = page.locator("#protocol").get_attribute("data-step")
        assert step not in seen, f"{step} again: {page.locator('.error').all_inner_texts()}"
        seen.append(step)
        where = f"protocol page {step} at {width} px"
        page.screenshot(path=str(shots / f"protocol-{step.replace(':', '-')}-{width}.png"), full_page=True)
        assert_fits(page, where)
        assert_words_whole(page, where, ("#protocol",))
        assert page.evaluate(SCALES_OUT_OF_ORDER) == [], f"{where}: scales out of order"
        _fill_protocol_page(page)
        with page.expect_navigation():
            page.locator("#protocol-next").click()
    assert seen == ["consent", "instructions", "comprehension", "survey:0", "survey:1", "survey:2"]


PLAIN_PAGES = {
    "landing": "/",
    "lobby": "/study/casino-people?participant=lonely-{width}",
    "refused": "/study/no-such-study?participant=x",
    "admin": "/admin?token=browser-admin-token",
    "admin-codes": "/admin/codes?token=browser-admin-token",
}


@pytest.mark.parametrize("width", sorted(WIDTHS))
@pytest.mark.parametrize("name", sorted(PLAIN_PAGES))
def test_the_other_pages_fit_and_keep_words_whole(server, page_factory, shots, name, width):
    w, h, mobile = WIDTHS[width]
    page = page_factory(width=w, height=h, mobile=mobile)
    page.goto(server + PLAIN_PAGES[name].format(width=width))
    expect(page.locator("main")).to_be_visible()
    page.screenshot(path=str(shots / f"page-{name}-{width}.png"), full_page=True)
    assert_fits(page, f"{name} at {width} px")
    assert_words_whole(page, f"{name} at {width} px", ("main",))

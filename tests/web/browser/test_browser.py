"""End-to-end in chromium: people play every task, pair with each other, answer questionnaires,
rate dialogues, and the admin exports it all in the corpus formats."""

from __future__ import annotations

import io
import json
import re
import zipfile

import httpx
import pytest

playwright_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
Page, expect = playwright_api.Page, playwright_api.expect

ADMIN = "browser-admin-token"  # the browser conftest starts the server with this token


def enter_chat(page: Page, server: str, study: str, participant: str) -> None:
    page.goto(f"{server}/study/{study}?participant={participant}")
    page.wait_for_url(re.compile(r".*/chat/.*"), timeout=20_000)
    expect(page.locator("#transcript")).to_be_attached()


def finish_questionnaire(page: Page, shots, name: str) -> str:
    page.locator("#to-questionnaire").click()
    page.wait_for_url(re.compile(r".*/questionnaire/.*"))
    for fieldset in page.locator("fieldset.item").all():
        fieldset.locator("input[type=radio]").last.check()
    page.screenshot(path=str(shots / f"{name}-questionnaire.png"), full_page=True)
    page.locator("#submit-questionnaire").click()
    code = page.locator("#completion-code")
    expect(code).to_be_visible()
    return code.inner_text()


def wait_for_my_move(page: Page) -> None:
    """Until the page lets this person act (or the dialogue is over)."""
    page.wait_for_function(
        "() => !document.getElementById('say-input').disabled || document.querySelector('#accept-deal, #accept-offer, #submit-deal, #make-offer') || !document.getElementById('end').hidden"
    )


def test_casino_against_the_bot_then_questionnaire(server, page_factory, shots):
    page = page_factory()
    page.goto(server + "/")
    page.screenshot(path=str(shots / "landing.png"), full_page=True)
    page.locator("#play-casino").click()
    expect(page.locator("#lobby-status")).to_contain_text(re.compile("partner", re.I))
    page.wait_for_url(re.compile(r".*/chat/.*"), timeout=20_000)
    expect(page.locator("#private table")).to_contain_text("Food")
    page.on("dialog", lambda dialog: dialog.accept())
    wait_for_my_move(page)
    if not page.locator("#say-input").is_disabled():
        page.locator("#say-input").fill("Hi! Food matters most to me, we are a big group. What do you need?")
        page.locator("#say-button").click()
    for _ in range(12):
        page.wait_for_timeout(400)
        wait_for_my_move(page)
        if not page.locator("#end").is_hidden():
            break
        if page.locator("#accept-deal").count():
            page.locator("#accept-deal").click()
        elif page.locator("#submit-deal").count():
            page.screenshot(path=str(shots / "casino-chat.png"), full_page=True)
            page.select_option("#deal-food", "2")
            page.select_option("#deal-water", "1")
            page.select_option("#deal-firewood", "1")
            expect(page.locator("#deal-food-theirs")).to_have_text("1")
            page.locator("#submit-deal").click()
    else:
        page.locator("#walk-away").click()
    expect(page.locator("#end")).to_be_visible()
    page.screenshot(path=str(shots / "casino-end.png"), full_page=True)
    code = finish_questionnaire(page, shots, "casino")
    assert re.fullmatch(r"[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}", code)
    page.screenshot(path=str(shots / "casino-done.png"), full_page=True)


def test_craigslist_bargain_against_the_bot(server, page_factory, shots):
    page = page_factory(width=390, height=844, mobile=True)  # a phone
    enter_chat(page, server, "craigslist", "buyer-phone-1")
    expect(page.locator("#private")).to_contain_text("target price")
    page.on("dialog", lambda dialog: dialog.accept())
    said = False
    for _ in range(15):
        wait_for_my_move(page)
        if not page.locator("#end").is_hidden():
            break
        if page.locator("#accept-offer").count():
            page.locator("#accept-offer").click()
        elif not said and not page.locator("#say-input").is_disabled():
            page.locator("#say-input").fill("Hi, is it still available? Would you take a bit less than the listed price?")
            page.locator("#say-input").press("Enter")
            said = True
        elif page.locator("#make-offer").count():
            page.screenshot(path=str(shots / "craigslist-chat-phone.png"), full_page=True)
            text = page.locator("#private").inner_text()
            listed = int(re.search(r"Listed at \$([\d,]+)", text).group(1).replace(",", ""))
            price = listed if "You are the buyer" in text else round(listed * 0.7)  # a deal the bot takes
            page.locator("#offer-price").fill(str(price))
            page.locator("#make-offer").click()
        page.wait_for_timeout(600)
    else:
        if page.locator("#quit").count():  # no deal in time: end it the way a person would
            page.locator("#quit").click()
    expect(page.locator("#end")).to_be_visible()
    expect(page.locator("#end")).to_contain_text(re.compile("agreement|ended", re.I))
    page.screenshot(path=str(shots / "craigslist-end-phone.png"), full_page=True)
    finish_questionnaire(page, shots, "craigslist")


def test_open_chat_against_the_bot(server, page_factory, shots):
    page = page_factory()
    enter_chat(page, server, "openchat-ed", "talker-1")
    expect(page.locator("#private")).to_contain_text("Emotion")  # the party's own private view, drawn generically
    for text in ["Something scary happened last night.", "The power went out and I was alone."]:
        page.wait_for_function("() => !document.getElementById('say-input').disabled || !document.getElementById('end').hidden")
        if not page.locator("#end").is_hidden():
            break
        page.locator("#say-input").fill(text)
        page.locator("#say-button").click()
        page.wait_for_timeout(300)
    expect(page.locator("#end")).to_be_visible(timeout=15_000)
    page.screenshot(path=str(shots / "openchat-chat.png"), full_page=True)
    finish_questionnaire(page, shots, "openchat")


def test_two_people_pair_chat_and_agree_on_a_casino_deal(server, page_factory, shots):
    alice, bob = page_factory(), page_factory()
    alice.goto(f"{server}/study/casino-people?participant=alice")
    expect(alice.locator("#lobby-status")).to_contain_text("Looking")
    bob.goto(f"{server}/study/casino-people?participant=bob")
    alice.wait_for_url(re.compile(r".*/chat/.*"))
    bob.wait_for_url(re.compile(r".*/chat/.*"))
    alice.locator("#say-input").fill("<b>hello</b> & welcome")
    bob.locator("#say-input").press("a")  # typing indicator
    expect(alice.locator("#typing")).to_contain_text("typing")
    alice.locator("#say-button").click()
    expect(bob.locator("#transcript")).to_contain_text("<b>hello</b> & welcome")  # shown as text, not bold
    assert bob.locator("#transcript b").count() == 0
    bob.locator("#say-input").fill("Hi! I need water most.")
    bob.locator("#say-button").click()
    expect(alice.locator("#transcript")).to_contain_text("I need water most")
    alice.screenshot(path=str(shots / "casino-people-alice.png"), full_page=True)
    alice.select_option("#deal-food", "2")
    alice.select_option("#deal-water", "1")
    alice.locator("#submit-deal").click()
    expect(bob.locator("#accept-deal")).to_be_visible()
    expect(bob.locator("#say-input")).to_be_disabled()  # CaSiNo: answer the deal first
    bob.screenshot(path=str(shots / "casino-people-bob-deal.png"), full_page=True)
    bob.locator("#accept-deal").click()
    for page in (alice, bob):
        expect(page.locator("#end")).to_contain_text("agreement")
    finish_questionnaire(bob, shots, "casino-people-bob")
    finish_questionnaire(alice, shots, "casino-people-alice")


def test_two_people_find_their_mutual_friend(server, page_factory, shots):
    ann, ben = page_factory(), page_factory()
    ann.goto(f"{server}/study/mutualfriends-people?participant=ann")
    expect(ann.locator("#lobby-status")).to_contain_text("Looking")
    ben.goto(f"{server}/study/mutualfriends-people?participant=ben")
    for page in (ann, ben):
        page.wait_for_url(re.compile(r".*/chat/.*"))
        expect(page.locator("#friends tbody tr").first).to_be_visible()

    def rows(page: Page) -> list[str]:
        """Each friend row's cells (without the Select button, which comes first), in screen order."""
        return page.eval_on_selector_all("#friends tbody tr", "rows => rows.map(r => Array.from(r.cells).slice(1).map(c => c.textContent).join(' | '))")

    def select(page: Page, friend: str) -> None:
        page.locator("#friends tbody tr").nth(rows(page).index(friend)).locator("button").click()

    ann.locator("#friends th button").first.click()  # sort by the first column of friends
    expect(ann.locator("#friends th").nth(1)).to_have_attribute("aria-sort", "ascending")
    ann.screenshot(path=str(shots / "mutualfriends-chat.png"), full_page=True)
    shared = set(rows(ann)) & set(rows(ben))
    assert len(shared) == 1
    friend = shared.pop()
    wrong = next(r for r in rows(ann) if r != friend)
    ann.locator("#say-input").fill("Do you know anyone who likes the same things as my friends?")
    ann.locator("#say-button").click()
    expect(ben.locator("#transcript")).to_contain_text("Do you know anyone")
    select(ann, wrong)
    expect(ann.locator("#feedback li")).to_have_count(1)
    expect(ben.locator("#transcript")).to_contain_text("Your partner selected")
    for page in (ann, ben):
        select(page, friend)
    for page in (ann, ben):
        expect(page.locator("#end")).to_contain_text("mutual friend")
    ben.screenshot(path=str(shots / "mutualfriends-end.png"), full_page=True)
    finish_questionnaire(ann, shots, "mutualfriends-ann")


def test_rater_completes_a_job_and_admin_exports_everything(server, page_factory, shots):
    page = page_factory()
    page.goto(f"{server}/rate?rater=rater-one")
    page.wait_for_url(re.compile(r".*/rate/.*"))
    expect(page.locator("#rating-transcript li").first).to_be_visible()
    for fieldset in page.locator("fieldset.item").all():
        fieldset.locator("input[type=radio]").nth(3).check()
    page.screenshot(path=str(shots / "rating-job.png"), full_page=True)
    page.locator("#submit-rating").click()
    expect(page.locator("#rate-done")).to_be_visible()

    admin = page_factory()
    admin.goto(f"{server}/admin?token=wrong")
    expect(admin.locator(".error")).to_contain_text("wrong admin token")
    admin.goto(f"{server}/admin?token={ADMIN}")
    expect(admin.locator("#counts")).to_be_visible()
    admin.screenshot(path=str(shots / "admin.png"), full_page=True)
    with admin.expect_download() as download_info:
        admin.locator("#export-all").click()
    data = open(download_info.value.path(), "rb").read()
    archive = zipfile.ZipFile(io.BytesIO(data))
    names = set(archive.namelist())
    assert "dialogues.jsonl" in names
    assert {"native/casino/casino.json", "native/craigslist/craigslist.json", "native/mutualfriends/mutualfriends.json"} <= names
    assert any(n.startswith("native/duo/") for n in names)
    lines = [json.loads(line) for line in archive.read("dialogues.jsonl").decode().splitlines()]
    assert any(rating["rater_kind"] == "third_party" and rating["rater_id"] == "rater-one" for d in lines for rating in d["ratings"])
    assert any(rating["rater_kind"] == "party" for d in lines for rating in d["ratings"])
    casino = json.loads(archive.read("native/casino/casino.json"))
    assert any(
        info.get("outcomes", {}).get("satisfaction") for record in casino for info in record["participant_info"].values()
    )
    # the same export is available to scripts with the header token
    response = httpx.get(f"{server}/admin/export", headers={"X-Admin-Token": ADMIN})
    assert response.status_code == 200 and response.headers["content-type"] == "application/zip"


def test_the_same_id_in_a_second_browser_does_not_get_the_seat(server, page_factory, shots):
    """The participant id belongs to the first browser (its session cookie): a second browser gets a
    clear page, in the lobby and even with the seat's own link."""
    first, second = page_factory(), page_factory()
    enter_chat(first, server, "casino", "twice-1")
    seat_url = first.url
    response = second.goto(f"{server}/study/casino?participant=twice-1")
    assert response.status == 403
    expect(second.locator("main")).to_contain_text("already in use in another browser")
    response = second.goto(seat_url)
    assert response.status == 403
    expect(second.locator("#chat")).to_have_count(0)
    second.screenshot(path=str(shots / "identity-refused.png"), full_page=True)
    first.reload()
    expect(first.locator("#private table")).to_contain_text("Food")  # the first browser keeps its seat

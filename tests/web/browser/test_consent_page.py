"""The consent page in Chromium, on a phone (390 px) and a desktop (1280 px): the shipped CaSiNo
consent filled with a researcher's values fits and shows them; a study's own consent text, written
in its YAML file or posted on the admin page, is shown as text: the <script> in it never runs."""

from __future__ import annotations

import re
import urllib.parse
import urllib.request

import pytest
import yaml

from duologue.web.study import load_studies

from web.browser.conftest import ADMIN, running_server
from web.browser.test_generic_controls import WIDTHS, assert_fits
from web.browser.test_pages_fit import assert_words_whole
from web.test_consent import HOSTILE, VALUES, study_data, written

playwright_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
expect = playwright_api.expect


@pytest.fixture(scope="module")
def consent_server(tmp_path_factory):
    """A platform running two studies from a YAML file (the shipped template with the researcher's
    values; a text of the study's own), and a third posted on its admin page."""
    folder = tmp_path_factory.mktemp("consent")
    from_file = []
    for study_id, text in (("lowmoor", None), ("lowmoor-inline", HOSTILE)):
        (study,) = load_studies(written(folder, study_data(consent_text=text, study_id=study_id)))
        from_file.append(study)
    with running_server(folder, from_file) as url:
        body = urllib.parse.urlencode({"text": yaml.safe_dump(study_data(consent_text=HOSTILE, study_id="lowmoor-admin"))}).encode()
        request = urllib.request.Request(f"{url}/admin/studies", data=body, headers={"X-Admin-Token": ADMIN})
        with urllib.request.urlopen(request) as reply:  # follows the redirect to the admin page
            assert reply.status == 200
        yield url


def open_consent(page, server: str, study_id: str, who: str) -> None:
    page.goto(f"{server}/study/{study_id}?participant={who}")
    page.wait_for_url(re.compile(r".*/protocol/.*/consent\?.*"))
    expect(page.locator("#study-text")).to_be_visible()


@pytest.mark.parametrize("width", sorted(WIDTHS))
def test_the_filled_consent_fits_and_shows_the_researchers_values(consent_server, page_factory, shots, width):
    w, h, mobile = WIDTHS[width]
    page = page_factory(width=w, height=h, mobile=mobile)
    open_consent(page, consent_server, "lowmoor", f"values-{width}")
    shown = page.locator("#study-text").inner_text()
    for value in [*VALUES.values(), "2.50 GBP", "up to 1.25 GBP"]:
        assert value in shown, f"{value!r} is not on the consent page at {width} px"
    assert "{" not in shown and "}" not in shown
    page.screenshot(path=str(shots / f"consent-values-{width}.png"), full_page=True)
    assert_fits(page, f"the consent page at {width} px")
    assert_words_whole(page, f"the consent page at {width} px", ("#protocol",))
    page.locator("#agree").check()
    with page.expect_navigation():
        page.locator("#protocol-next").click()
    expect(page.locator("#study-text")).to_contain_text("up to 1.25 GBP")  # the instructions fill {bonus} too


@pytest.mark.parametrize("width", sorted(WIDTHS))
@pytest.mark.parametrize("study_id", ["lowmoor-inline", "lowmoor-admin"])
def test_a_studys_own_consent_text_is_shown_and_its_script_never_runs(consent_server, page_factory, shots, study_id, width):
    w, h, mobile = WIDTHS[width]
    page = page_factory(width=w, height=h, mobile=mobile)
    open_consent(page, consent_server, study_id, f"script-{study_id}-{width}")
    text = page.locator("#study-text")
    expect(text).to_contain_text("<script>window.pwned = 1</script>")  # shown as the words it is
    expect(text.locator("strong")).to_have_text(f"Run by {VALUES['researcher']}")
    assert text.locator("a").count() == 1 and text.locator("a").get_attribute("href") == "https://lowmoor.example/notice"
    assert text.locator("script, img").count() == 0
    text.locator("text=click").click()  # the javascript: "link" is plain text: clicking runs nothing
    assert page.evaluate("() => window.pwned") is None
    page.screenshot(path=str(shots / f"consent-{study_id}-{width}.png"), full_page=True)
    assert_fits(page, f"{study_id}'s consent at {width} px")

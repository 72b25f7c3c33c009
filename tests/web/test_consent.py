"""Consent and instructions as templates: the study's values (researcher, institution, contact,
ethics approval, duration, pay, bonus, data use, withdrawal) fill the texts on the pages; a
placeholder without a value refuses the study at load with the field named; a study's own text,
written in its YAML or posted on the admin page, is shown escaped; a path on the admin page is refused."""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

import pytest
import yaml

from duologue.web import consent
from duologue.web.study import StudyError, load_studies, parse_studies

from web.webtest_helpers import ADMIN

VALUES = {
    "researcher": "Dr Ada Quillfeather",
    "institution": "University of Lowmoor",
    "contact": "ada.quillfeather@lowmoor.example",
    "ethics_approval": "the Lowmoor Ethics Board (LEB-2026-041)",
    "duration": "12 minutes",
    "data_use": "Anonymised dialogues go to the Lowmoor archive for research only.",
    "withdrawal": "Write to us within 14 days to have your data deleted.",
}
"""A researcher's values, none of which appears in any text the project ships."""

HOSTILE = "Welcome.\n\n<script>window.pwned = 1</script><img src=x onerror=\"window.pwned = 2\"> [click](javascript:window.pwned=3)\n\n**Run by {researcher}**, see [our notice](https://lowmoor.example/notice)."


def study_data(*, consent_text: str | None = None, drop: tuple[str, ...] = (), study_id: str = "lowmoor") -> dict[str, Any]:
    """CaSiNo's shipped collection study (its consent and instructions are templates) with the values above."""
    data: dict[str, Any] = {
        "id": study_id,
        "title": "Lowmoor negotiation",
        "task": "casino-v0",
        "partners": [{"kind": "bot", "agent": "rule"}],
        "protocol": {"consent": {"text": consent_text} if consent_text is not None else "task:consent", "instructions": "task:instructions"},
        "pay": {"currency": "GBP", "base": 2.5, "bonus": "0.05 * points", "max_bonus": 1.25},
        "consent": {name: value for name, value in VALUES.items() if name not in drop},
    }
    return data


def written(tmp_path: Path, data: dict[str, Any]) -> Path:
    path = tmp_path / "study.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def text_of(page: str) -> str:
    return html.unescape(page)


def test_the_consent_page_shows_the_researchers_values(make_client, tmp_path):
    (study,) = load_studies(written(tmp_path, study_data()))
    client = make_client([study])
    assert client.get("/study/lowmoor?participant=p1", follow_redirects=False).headers["location"].endswith("/consent?participant=p1")
    page = client.get("/protocol/lowmoor/consent?participant=p1")
    assert page.status_code == 200
    shown = text_of(page.text)
    for value in VALUES.values():
        assert value in shown, value
    assert "2.50 GBP" in shown and "up to 1.25 GBP" in shown  # {pay} and {bonus} from the pay block
    assert "15 minutes" not in shown and "{" not in shown.split('id="study-text"')[1].split("</div>")[0]
    client.post("/protocol/lowmoor/consent?participant=p1", data={"agree": "yes"})
    assert "up to 1.25 GBP" in text_of(client.get("/protocol/lowmoor/instructions?participant=p1").text)


@pytest.mark.parametrize("field", sorted(VALUES))
def test_a_missing_value_is_refused_at_load_with_the_field_named(tmp_path, field):
    with pytest.raises(StudyError) as refused:
        load_studies(written(tmp_path, study_data(drop=(field,))))
    message = str(refused.value)
    assert f"consent.{field}: " in message and f"{{{field}}}" in message, message
    assert [name for name in VALUES if f"consent.{name}:" in message] == [field]


def test_pay_and_bonus_come_from_the_consent_block_or_else_the_pay_block():
    data = study_data()
    del data["pay"]
    with pytest.raises(StudyError) as refused:
        parse_studies(data)
    assert "consent.pay: " in str(refused.value) and "pay.base" in str(refused.value)
    assert "consent.bonus: " in str(refused.value) and "pay.max_bonus" in str(refused.value)
    data["consent"] |= {"pay": "£3", "bonus": "up to £1 by your points", "more": {"lab": "Tide Lab"}}
    data["protocol"]["consent"] = {"text": "{researcher} of {lab} pays {pay}; bonus {bonus}. Braces: {{not a placeholder}}."}
    (study,) = parse_studies(data)
    assert consent.fill(data["protocol"]["consent"]["text"], consent.values(study)) == (
        "Dr Ada Quillfeather of Tide Lab pays £3; bonus up to £1 by your points. Braces: {not a placeholder}."
    )


def test_an_unknown_placeholder_or_a_blank_value_is_refused_with_the_field_named():
    with pytest.raises(StudyError, match=r"consent\.more\.lab: the consent text \(protocol\.consent\) uses \{lab\}"):
        parse_studies(study_data(consent_text="Run at {lab}."))
    for name in ("Lab", "contact"):  # one no text could use, one that is a field of its own
        with pytest.raises(StudyError, match=rf"consent\.more: .*'{name}'"):
            parse_studies(study_data() | {"consent": VALUES | {"more": {name: "x"}}})
    blank = study_data()
    blank["consent"]["contact"] = "   "
    with pytest.raises(StudyError, match=r"consent\.contact: "):
        parse_studies(blank)


def test_an_inline_consent_in_the_study_file_is_shown_escaped(make_client, tmp_path):
    (study,) = load_studies(written(tmp_path, study_data(consent_text=HOSTILE)))
    client = make_client([study])
    client.get("/study/lowmoor?participant=p2")
    page = client.get("/protocol/lowmoor/consent?participant=p2").text
    assert "<script>window.pwned" not in page and "<img src=x" not in page
    assert "&lt;script&gt;window.pwned = 1&lt;/script&gt;" in page
    assert '<a href="javascript:' not in page
    assert "<strong>Run by Dr Ada Quillfeather</strong>" in page  # Markdown-light: bold and an https link
    assert '<a href="https://lowmoor.example/notice" rel="noopener noreferrer" target="_blank">our notice</a>' in page


def test_a_consent_posted_on_the_admin_page_is_shown_escaped(client):
    posted = client.post("/admin/studies", data={"text": yaml.safe_dump(study_data(consent_text=HOSTILE))}, headers={"X-Admin-Token": ADMIN}, follow_redirects=False)
    assert posted.status_code == 303, posted.text
    client.get("/study/lowmoor?participant=p3")
    page = client.get("/protocol/lowmoor/consent?participant=p3").text
    assert "<script>window.pwned" not in page and "&lt;script&gt;" in page and "Dr Ada Quillfeather" in page


def test_a_consent_given_as_a_path_on_the_admin_page_is_refused(client, tmp_path):
    secret = tmp_path / "consent.txt"
    secret.write_text("DUOLOGUE_SECRET=hunter2 {researcher}\n")
    data = study_data()
    data["protocol"]["consent"] = str(secret)
    posted = client.post("/admin/studies", data={"text": yaml.safe_dump(data)}, headers={"X-Admin-Token": ADMIN}, follow_redirects=False)
    assert posted.status_code == 422 and "protocol.consent" in posted.text and "hunter2" not in posted.text
    assert "{text: ...}" in posted.json()["detail"]  # says how to give the text instead
    assert "lowmoor" not in client.app.state.platform.studies


def test_a_text_file_changed_after_load_to_lack_a_value_is_refused_not_shown_blank(make_client, tmp_path):
    template = tmp_path / "consent.txt"
    template.write_text("Run by {researcher}.")
    data = study_data()
    data["protocol"]["consent"] = str(template)
    (study,) = load_studies(written(tmp_path, data))
    client = make_client([study])
    client.get("/study/lowmoor?participant=p4")
    assert "Run by Dr Ada Quillfeather." in client.get("/protocol/lowmoor/consent?participant=p4").text
    template.write_text("Run by {researcher} of {lab}.")
    refused = client.get("/protocol/lowmoor/consent?participant=p4")
    assert refused.status_code == 503 and "{lab}" in refused.text


@pytest.mark.parametrize(
    "text, blocks",
    [
        ("a <b>\n\nb", ["<p>a &lt;b&gt;</p>", "<p>b</p>"]),
        ("- one\n- **two**", ["<ul><li>one</li><li><strong>two</strong></li></ul>"]),
        ("[x](mailto:a@b.example) [y](data:text/html,hi) [z](https://e.example/\"onmouseover=1)", None),
    ],
)
def test_markdown_light_adds_only_its_own_tags(text, blocks):
    rendered = [str(block) for block in consent.render(text)]
    if blocks is not None:
        assert rendered == blocks
    else:
        (only,) = rendered
        assert '<a href="mailto:a@b.example"' in only and 'href="data:' not in only
        assert '"onmouseover' not in only and 'href="https://e.example/&#34;onmouseover=1"' in only  # the quote stays inside the address

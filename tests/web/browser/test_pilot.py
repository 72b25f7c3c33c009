"""`duologue pilot`: simulated participants go through every built-in study's real pages in chromium,
consent to code; a piloted CaSiNo collection exports records that pass the corpus's own check, with
demographics, personality, reasons and outcomes filled from the answers the pilot gave."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from duologue.cli import app as cli
from duologue.core.schema import Message
from duologue.web.export import export_folder
from duologue.web.pilot import pilot
from duologue.web.study import Partner
from duologue.web.study_cli import builtin_studies

from web.browser.conftest import CHROMIUM

STUDIES = {s.id: s for s in builtin_studies()}


@pytest.mark.parametrize("study_id", sorted(STUDIES))
def test_a_pilot_of_every_built_in_study_reaches_a_code(study_id):
    study = STUDIES[study_id].model_copy(update={"bot_wait_seconds": 0.5})
    if study.task.startswith("openchat"):
        study = study.model_copy(update={"task_options": {"utterances": 4}})
    results, dialogues = pilot(study, 1, chromium=str(CHROMIUM))
    (result,) = results
    assert result.error is None, result
    assert result.code and len(result.code) == 14
    assert "chat" in result.pages and result.pages[-1] == "questionnaire"
    assert len(dialogues) == 1 and dialogues[0].outcome is not None
    assert result.partner is not None and result.partner.startswith("bot:") and result.outcome
    if study.protocol is not None:
        assert result.pages[: len(study.protocol.steps()) + 1] == [*study.protocol.steps(), "lobby"]


def test_two_pilot_participants_are_paired_with_each_other():
    study = STUDIES["casino"].model_copy(update={"bot_wait_seconds": 60.0})
    results, dialogues = pilot(study, 2, pairs=True, chromium=str(CHROMIUM))
    assert [r.error for r in results] == [None, None], results
    assert len(dialogues) == 1 and sorted(p.participant_id for p in dialogues[0].parties) == ["pilot-1", "pilot-2"]
    assert [r.partner for r in results] == ["human", "human"]


def test_a_piloted_casino_collection_exports_valid_records_filled_by_the_person(tmp_path):
    study = STUDIES["casino-collection"].model_copy(update={"bot_wait_seconds": 0.5})
    results, dialogues = pilot(study, 2, chromium=str(CHROMIUM), folder=tmp_path)
    assert [r.error for r in results] == [None, None], results
    report = export_folder(dialogues, tmp_path / "export")
    native = tmp_path / "export" / report.native["casino"].files[0]
    checked = subprocess.run([sys.executable, "-m", "duologue.cli", "data", "validate", "casino", str(native), "--strict"], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    records = json.loads(native.read_text(encoding="utf-8"))
    assert len(records) == 2
    answers = {r.participant: r.answers for r in results}
    for record, dialogue in zip(records, dialogues, strict=True):
        person = next(p for p in dialogue.parties if p.kind == "human")
        given = answers[person.participant_id]
        info = record["participant_info"][person.id]
        assert info["demographics"] == {"age": int(given["age"]), "gender": given["gender"], "ethnicity": given["ethnicity"], "education": given["education"]}
        svo = [given[f"svo_{i}"] for i in range(1, 10)]
        best = max(set(svo), key=svo.count)
        assert info["personality"]["svo"] == (best if svo.count(best) >= 6 else "unclassified")
        tipi = {i: int(given[f"tipi_{i}"]) for i in range(1, 11)}
        assert info["personality"]["big-five"]["extraversion"] == (tipi[1] + 8 - tipi[6]) / 2
        assert info["personality"]["big-five"]["openness-to-experiences"] == (tipi[5] + 8 - tipi[10]) / 2
        assert info["value2reason"] == {level: given[f"reason_{level.lower()}"] for level in ("High", "Medium", "Low")}  # asked per priority shown
        assert info["value2issue"] == dialogue.scenario.private[person.id]["value2issue"]
        assert info["outcomes"]["satisfaction"] is not None and info["outcomes"]["opponent_likeness"] is not None
        assert info["outcomes"]["points_scored"] == dialogue.outcome.scores[person.id]
        assert sum(isinstance(e, Message) and e.party == person.id for e in dialogue.events) >= 2

    db = f"sqlite:///{tmp_path / 'pilot.db'}"
    runner = CliRunner()
    listed = runner.invoke(cli, ["study", "codes", "casino-collection", "--db", db])
    assert listed.exit_code == 0, listed.output
    for result in results:
        assert result.code in listed.output
        found = runner.invoke(cli, ["study", "codes", "casino-collection", "--db", db, "--check", result.code])
        assert found.exit_code == 0 and result.participant in found.output
    assert runner.invoke(cli, ["study", "codes", "casino-collection", "--db", db, "--check", "AAAA-BBBB-CCCC"]).exit_code == 1
    out = tmp_path / "bonus.csv"
    paid = runner.invoke(cli, ["study", "payments", "casino-collection", "--db", db, "--out", str(out)])
    assert paid.exit_code == 0, paid.output
    rows = dict(line.split(",") for line in out.read_text().splitlines())
    for dialogue in dialogues:
        person = next(p for p in dialogue.parties if p.kind == "human")
        expected = min(1.0, 0.05 * dialogue.outcome.scores[person.id])
        assert float(rows.get(person.participant_id, 0)) == pytest.approx(round(expected, 2))
    assert results[0].redirect == f"https://app.prolific.com/submissions/complete?cc={results[0].code}"


def test_a_chromium_that_is_not_a_browser_is_a_message_not_a_traceback(tmp_path):
    fake = tmp_path / "chromium"
    fake.write_text("not a browser\n")
    result = CliRunner().invoke(cli, ["pilot", "casino", "-n", "1", "--chromium", str(fake)])
    assert result.exit_code == 2 and "did not start" in result.output and "Traceback" not in result.output


def test_the_pilot_prints_json_when_asked():
    result = CliRunner().invoke(cli, ["pilot", "dealornodeal", "-n", "1", "--bot-wait", "0.5", "--json"])
    assert result.exit_code == 0, result.output
    shown = json.loads(result.stdout)
    (person,) = shown["participants"]
    assert shown["study"] == "dealornodeal" and shown["dialogues"] == 1 and person["error"] is None and len(person["code"]) == 14


PROLIFIC_STUDY_ID = "63aa0bcc1122334455667788"


@pytest.mark.parametrize("crowd", ["links", "prolific", "mturk"])
def test_the_pilot_reaches_a_code_for_everyone_on_a_study_of_each_crowd_mode(crowd):
    """Signed links (the pilot signs them with the study's secret), Prolific's three ids with the
    study's STUDY_ID, MTurk's ids: four people at once, each to a code and the platform's way back."""
    from duologue.web.crowd import mode
    from duologue.web.payments import Pay

    extra = {"links": {"pay": Pay(link_secret="pilot-secret")}, "prolific": {"prolific_study_id": PROLIFIC_STUDY_ID}, "mturk": {}}[crowd]
    study = STUDIES["casino"].model_copy(update={"bot_wait_seconds": 0.5, "crowd": crowd, **extra})
    assert mode(study) == crowd
    seen: list[tuple[str, str]] = []
    results, dialogues = pilot(study, 4, chromium=str(CHROMIUM), at_once=4, progress=lambda result, where: seen.append((result.participant, where)))
    assert [r.error for r in results] == [None] * 4, results
    assert all(r.code and len(r.code) == 14 for r in results) and len(dialogues) == 4
    assert {(r.participant, "done") for r in results} <= set(seen)  # the progress bar heard of each
    crowd_ids = {p.participant_id for d in dialogues for p in d.parties if p.kind == "human"}
    assert crowd_ids == {r.participant for r in results}
    if crowd == "prolific":
        assert all(re.fullmatch(r"[0-9a-f]{24}", r.participant) for r in results)
        assert [r.redirect for r in results] == [f"https://app.prolific.com/submissions/complete?cc={r.code}" for r in results]
    if crowd == "mturk":
        assert {r.redirect for r in results} == {"https://workersandbox.mturk.com/mturk/externalSubmit"}


def test_a_full_quota_is_reported_at_once_with_its_reason():
    study = STUDIES["casino"].model_copy(update={"bot_wait_seconds": 0.5, "partners": [Partner(kind="bot", agent="rule")], "quotas": {"bot:rule": 0}})
    results, dialogues = pilot(study, 2, chromium=str(CHROMIUM))
    assert not dialogues
    for result in results:
        assert result.error is not None and "refused on lobby" in result.error and "full" in result.error, result
        assert result.seconds < 20  # not the lobby's 120 s wait


def test_a_refused_link_is_reported_at_once_with_its_reason():
    """An arrival the platform refuses (here another Prolific study's STUDY_ID): the page's reason, in seconds."""
    import asyncio

    from playwright.async_api import async_playwright

    from duologue.web.pilot import CHROMIUM_FLAGS, participant_run, running_platform

    study = STUDIES["casino"].model_copy(update={"crowd": "prolific", "prolific_study_id": PROLIFIC_STUDY_ID})

    async def run(base: str):
        async with async_playwright() as playwright:
            browser = await playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_FLAGS)
            try:
                address = f"{base}/study/{study.id}?PROLIFIC_PID=abc&STUDY_ID=not-this-one&SESSION_ID=s1"
                return await participant_run(browser, base, study, "abc", address=address)
            finally:
                await browser.close()

    with running_platform([study]) as (base, _):
        result = asyncio.run(run(base))
    assert result.error is not None and result.error.startswith("refused on lobby: 403") and "another Prolific study" in result.error, result
    assert result.seconds < 20 and result.code is None

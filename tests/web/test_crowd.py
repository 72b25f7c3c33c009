"""A study's crowd mode decides who may arrive: Prolific's three ids and its STUDY_ID, MTurk's ids
and its preview, signed links, or any id; the ids are kept for the participant table, and a study
whose crowd settings contradict each other is refused whole."""

from __future__ import annotations

import pytest
from starlette.testclient import TestClient

from duologue.web.participants import participant_rows
from duologue.web.payments import Pay, signed_link
from duologue.web.protocol import progress_of
from duologue.web.study import Partner, StudyError, Study, parse_studies

PID, STUDY, SESSION = "5f1e2d3c4b5a69788796a5b4", "63aa0bcc1122334455667788", "sess-1"


def prolific(**extra) -> Study:
    return Study(id="pro", task="casino-v0", partners=[Partner(kind="human")], crowd="prolific", prolific_study_id=STUDY, **extra)


def arrival(pid: str = PID, study: str = STUDY, session: str = SESSION) -> str:
    return f"/study/pro?PROLIFIC_PID={pid}&STUDY_ID={study}&SESSION_ID={session}"


def test_a_prolific_arrival_needs_all_three_ids_and_the_studys_own_study_id(make_client):
    client = make_client([prolific()])
    wrong = client.get(arrival(study="000000000000000000000000"))
    assert wrong.status_code == 403 and "another Prolific study" in wrong.text
    missing = client.get(f"/study/pro?PROLIFIC_PID={PID}&STUDY_ID={STUDY}")
    assert missing.status_code == 403 and "missing: SESSION_ID" in missing.text
    assert client.get("/study/pro", follow_redirects=False).status_code == 403  # no guest id on a Prolific study
    assert client.get(f"/study/pro?participant=someone-else&PROLIFIC_PID={PID}&STUDY_ID={STUDY}&SESSION_ID=s").status_code == 403
    with client.websocket_connect(f"/ws/lobby/pro?participant={PID}") as ws:  # the socket is no way round the check
        assert ws.receive_json()["type"] == "refused"
    assert client.get(arrival()).status_code == 200
    assert client.get(f"/study/pro?participant={PID}").status_code == 200  # the pages after the arrival carry only the id


def test_the_same_pid_in_a_second_browser_is_refused(make_client):
    first = make_client([prolific()])
    assert first.get(arrival()).status_code == 200
    second = TestClient(first.app)
    refused = second.get(arrival(session="sess-2"))
    assert refused.status_code == 403 and "another browser" in refused.text


def test_prolific_ids_are_kept_for_the_participant_table(make_client):
    client = make_client([prolific()])
    assert client.get(arrival()).status_code == 200
    state = client.app.state.platform
    (row,) = participant_rows(state.studies["pro"], state.storage, progress_of(state))
    assert (row["participant"], row["PROLIFIC_PID"], row["STUDY_ID"], row["SESSION_ID"]) == (PID, PID, STUDY, SESSION)
    assert row["browser_session"]


def test_an_mturk_preview_shows_the_task_and_seats_nobody(make_client):
    study = Study(id="turk", task="casino-v0", description="Split food, water and firewood.", partners=[Partner(kind="human")], crowd="mturk")
    client = make_client([study])
    preview = client.get("/study/turk?assignmentId=ASSIGNMENT_ID_NOT_AVAILABLE&hitId=H1&workerId=")
    assert preview.status_code == 200 and "Split food, water and firewood." in preview.text and 'id="lobby"' not in preview.text
    state = client.app.state.platform
    assert state.storage.session_of("A1WORKER") is None and not client.cookies
    assert client.get("/study/turk?workerId=A1WORKER&hitId=H1").status_code == 403  # no assignment: refused
    bad = client.get("/study/turk?workerId=A1WORKER&assignmentId=AS1&hitId=H1&turkSubmitTo=https://evil.example")
    assert bad.status_code == 403 and "turkSubmitTo" in bad.text
    good = client.get("/study/turk?workerId=A1WORKER&assignmentId=AS1&hitId=H1&turkSubmitTo=https://workersandbox.mturk.com")
    assert good.status_code == 200 and 'id="lobby"' in good.text


def test_a_study_without_crowd_keeps_what_its_pay_said():
    from duologue.web.crowd import mode

    assert mode(Study(id="a", task="casino-v0")) == "open"
    assert mode(Study(id="b", task="casino-v0", pay=Pay(link_secret="k"))) == "links"


@pytest.mark.parametrize(
    ("extra", "field"),
    [
        ("crowd: prolific", "prolific_study_id"),
        ("crowd: links", "pay.link_secret"),
        ("crowd: prolific\nprolific_study_id: abc\npay: {link_secret: k}", "pay.link_secret"),
        ("crowd: mturk\npay: {completion_url: 'https://example.org/?c={code}'}", "pay.completion_url"),
        ("crowd: prolific\nprolific_study_id: abc\npay: {completion_url: 'https://example.org/?c={code}'}", "pay.completion_url"),
        ("crowd: open\nprolific_study_id: abc", "prolific_study_id"),
    ],
)
def test_contradicting_crowd_settings_are_refused_by_field(extra, field):
    import yaml

    with pytest.raises(StudyError, match=field.replace(".", r"\.")):
        parse_studies(yaml.safe_load(f"id: s\ntask: casino-v0\n{extra}\n"))


def test_a_links_study_still_admits_only_signed_links(make_client):
    study = Study(id="signed", task="casino-v0", partners=[Partner(kind="human")], crowd="links", pay=Pay(link_secret="k3y"))
    client = make_client([study])
    assert client.get("/study/signed?participant=p-1").status_code == 403
    assert client.get(signed_link("", "k3y", "signed", "p-1")).status_code == 200


def test_study_links_refuses_a_prolific_study(tmp_path):
    from typer.testing import CliRunner

    from duologue.cli import app as cli

    study_file = tmp_path / "pro.yaml"
    study_file.write_text(f"id: pro\ntask: casino-v0\ncrowd: prolific\nprolific_study_id: {STUDY}\n")
    result = CliRunner().invoke(cli, ["study", "links", "pro", "--study", str(study_file), "--secret", "k"])
    assert result.exit_code == 2 and "Prolific" in result.output and "Traceback" not in result.output

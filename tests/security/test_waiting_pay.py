"""Waiting-room pay is earned: it is the time the person's lobby socket was open and unpaired (not
the time since the lobby page was first served), capped by the study, and only for a person never
seated in one of the study's dialogues (never a dialogue's code and bonus and waiting pay as well).

The time here passes for real (a few tenths of a second): that is the repro, not a synchronisation.
"""

from __future__ import annotations

import time

import pytest
from pydantic import ValidationError
from typer.testing import CliRunner

from duologue.cli import app as cli
from duologue.web.payments import Pay
from duologue.web.study import Partner, Study

from web.webtest_helpers import LEAVING, join_lobby, play_to_the_end, state_where, until

runner = CliRunner()


def code_of(page_text: str) -> str:
    return page_text.split('id="completion-code">', 1)[1].split("<", 1)[0]


def study_file(tmp_path, text: str):
    path = tmp_path / "study.yaml"
    path.write_text(text)
    return path


def paid(tmp_path, study: str, path) -> dict[str, float]:
    """`duologue study payments`: participant -> amount."""
    out = tmp_path / f"{study}-bonus.csv"
    done = runner.invoke(cli, ["study", "payments", study, "--study", str(path), "--db", f"sqlite:///{tmp_path / 'test.db'}", "-o", str(out)])
    assert done.exit_code == 0, done.output
    return {line.split(",")[0]: float(line.split(",")[1]) for line in out.read_text().splitlines()}


def codes_listed(tmp_path, study: str, path) -> str:
    listed = runner.invoke(cli, ["study", "codes", study, "--study", str(path), "--db", f"sqlite:///{tmp_path / 'test.db'}"], env={"COLUMNS": "200"})
    assert listed.exit_code == 0, listed.output
    return listed.output


def test_the_lobby_page_alone_earns_no_waiting_code(make_client):
    """The review's repro: load the lobby page, come back later: a code and its pay, for nothing."""
    study = Study(id="wait", task="casino-v0", partners=[Partner(kind="human")], pay=Pay(waiting_leave_after=0.2, waiting_pay_per_minute=6.0))
    client = make_client([study])
    assert client.get("/study/wait?participant=idle-1").status_code == 200
    time.sleep(0.5)  # the page was served long enough ago; no lobby socket was ever open
    refused = client.get("/waiting-code/wait?participant=idle-1")
    assert refused.status_code == 409 and "with the waiting room open" in refused.text
    assert 'id="completion-code"' not in refused.text


def test_waiting_pay_is_the_time_the_lobby_socket_was_open_and_is_capped(make_client, tmp_path):
    text = (
        "studies:\n"
        "  - {id: wait, task: casino-v0, partners: [{kind: human}], pay: {waiting_leave_after: 0.2, waiting_pay_per_minute: 60.0, waiting_max_seconds: 60}}\n"
        "  - {id: capped, task: casino-v0, partners: [{kind: human}], pay: {waiting_leave_after: 0.2, waiting_pay_per_minute: 60.0, waiting_max_seconds: 0.3}}\n"
    )
    path = study_file(tmp_path, text)
    from duologue.web.study import load_studies

    client = make_client(load_studies(path))
    for study in ("wait", "capped"):
        client.get(f"/study/{study}?participant=w-1")
        time.sleep(1.5)  # the page open, its socket not yet: this time is not waiting
        with client.websocket_connect(f"/ws/lobby/{study}?participant=w-1") as ws:
            assert ws.receive_json()["type"] == "waiting"
            time.sleep(0.6)  # nobody to pair with: waiting
        done = client.get(f"/waiting-code/{study}?participant=w-1")
        assert done.status_code == 200, done.text
        assert code_of(done.text)
    progress = client.app.state.platform
    from duologue.web.protocol import progress_of

    waited = progress_of(progress).get("wait", "w-1")["left_waiting"]
    assert 0.5 <= waited < 1.5, waited  # the socket's time, not the page's
    assert progress_of(progress).get("capped", "w-1")["left_waiting"] == 0.3
    assert paid(tmp_path, "wait", path)["w-1"] == pytest.approx(waited, abs=0.011)  # 60 a minute: one a second
    assert paid(tmp_path, "capped", path) == {"w-1": 0.3}


def test_the_cap_is_checked_up_front_and_bounds_pay_for_any_stored_time():
    with pytest.raises(ValidationError, match="waiting_max_seconds"):
        Pay(waiting_leave_after=600, waiting_max_seconds=300)
    with pytest.raises(ValidationError):
        Pay(waiting_max_seconds=0)
    assert Pay().waiting_max_seconds == 1800
    assert Pay(waiting_pay_per_minute=0.10).waiting_bonus(10 * 3600) == 3.0  # ten hours in the lobby: half an hour's pay


def test_a_person_who_took_a_waiting_code_is_not_paired_afterwards(make_client):
    study = Study(id="wait", task="casino-v0", partners=[Partner(kind="human")], pay=Pay(waiting_leave_after=0.2))
    client = make_client([study])
    client.get("/study/wait?participant=w-2")
    with client.websocket_connect("/ws/lobby/wait?participant=w-2") as ws:
        assert ws.receive_json()["type"] == "waiting"
        time.sleep(0.4)
    assert client.get("/waiting-code/wait?participant=w-2").status_code == 200
    with client.websocket_connect("/ws/lobby/wait?participant=w-2") as ws:
        refused = ws.receive_json()
    assert refused["type"] == "refused" and "code for your time" in refused["reason"]


def answer_questionnaire(client, token: str) -> str:
    """Answer every question of a seat's questionnaire (the first option, or a few words); its code."""
    asked = client.get(f"/api/questionnaire/{token}")
    assert asked.status_code == 200, asked.text
    questions = asked.json()["questions"]
    answers = {}
    for question in questions:
        options = question["options"]
        first = options[0] if options else "fine, thank you"
        answers[question["key"]] = first.get("value", first.get("label")) if isinstance(first, dict) else first
    done = client.post(f"/api/questionnaire/{token}", json=answers)
    assert done.status_code == 200, done.text
    return done.json()["completion_code"]


PAIRED = "id: bot\ntask: casino-v0\npartners: [{kind: bot, agent: rule}]\nbot_wait_seconds: 0.6\npay: {bonus: '0.01 * points', waiting_leave_after: 0.2, waiting_pay_per_minute: 60.0, min_messages: 1}\n"
"""A person waits 0.6 s for a bot: long enough, by the lobby's socket, for a waiting code."""


def test_a_person_who_walked_away_from_their_dialogue_gets_no_waiting_code(make_client, tmp_path):
    """Refused a code by `min_messages`, they must not get one from the waiting room instead."""
    from duologue.web.study import load_studies

    client = make_client(load_studies(study_file(tmp_path, PAIRED)))
    client.get("/study/bot?participant=gone-1")
    token = join_lobby(client, "bot", "gone-1")  # waited 0.6 s with the socket open, then seated
    with client.websocket_connect(f"/ws/chat/{token}") as ws:
        first = until(ws, state_where(lambda s: True))
        leave = next(kind for kind in first["legal"] if kind.startswith(LEAVING))
        ws.send_json({"type": "move", "action": {"kind": leave}})  # walks away before a word
        until(ws, state_where(lambda s: s["done"]))
    assert client.get(f"/questionnaire/{token}").status_code == 403  # 0 messages, fewer than min_messages
    refused = client.get("/waiting-code/bot?participant=gone-1")
    assert refused.status_code == 409 and "partner" in refused.text
    assert 'id="completion-code"' not in refused.text


def test_a_person_who_finished_a_dialogue_is_paid_and_listed_once(make_client, tmp_path):
    from duologue.web.study import load_studies

    path = study_file(tmp_path, PAIRED.replace("min_messages: 1", "min_messages: 0"))  # however few words the deal took
    client = make_client(load_studies(path))
    client.get("/study/bot?participant=done-1")
    token = join_lobby(client, "bot", "done-1")
    with client.websocket_connect(f"/ws/chat/{token}") as ws:
        play_to_the_end(ws)
    code = answer_questionnaire(client, token)
    assert client.get("/waiting-code/bot?participant=done-1").status_code == 409
    # a waiting code taken before the fix (or in a race with the pairing) still pays nothing more
    from duologue.web.protocol import progress_of

    progress_of(client.app.state.platform).update("bot", "done-1", {"left_waiting": 600.0, "waiting_code": code})
    listed = codes_listed(tmp_path, "bot", path)
    assert listed.count(code) == 1 and "waited" not in listed, listed
    dialogue = client.app.state.platform.storage.dialogues(study_id="bot")[0].id
    bonus = paid(tmp_path, "bot", path)
    assert list(bonus) == ["done-1"] and bonus["done-1"] < 5.0, bonus  # the dialogue's bonus; 600 s of waiting would be 600
    admin = client.get("/admin/codes", headers={"X-Admin-Token": "test-admin-token"})
    assert admin.status_code == 200 and admin.text.count(code) == 1 and dialogue in admin.text


def test_tabs_open_at_once_count_once_in_any_order_of_their_beats():
    """The stored time is the union of the sockets' open intervals, whichever tab (or worker) beats first."""
    from duologue.web.waiting import FRESH_SECONDS, added, waited

    data: dict = {}
    data = added(data, "a", 0.0)  # tab a opens
    data = added(data, "a", 15.0)  # and beats
    data = added(data, "b", 20.0)  # tab b opens
    data = added(data, "b", 28.0)  # b beats before a does
    data = added(data, "a", 30.0)
    data = added(data, "a", 31.0, closing=True)
    assert waited(data, 32.0) == 32.0  # b is still open: up to now
    data = added(data, "b", 33.0, closing=True)
    assert waited(data, 100.0) == 33.0  # nothing open: the time stops
    data = added(data, "c", 200.0)  # a tab on a worker that then dies: it counts only while it could still beat
    assert waited(data, 200.0 + FRESH_SECONDS + 1) == 33.0

"""A partner who leaves a dialogue between two people: the study's `on_partner_leave` (`end` or
`bot`), its grace period for a reconnect, and the person left behind always getting a code and
pay for their time; every end reason counted per study (admin, `study codes`, export)."""

from __future__ import annotations

import io
import json
import time
import zipfile

import pytest
from typer.testing import CliRunner

from duologue.cli import app as cli
from duologue.core.replay import ReplayClock, replay
from duologue.tasks import make
from duologue.web.payments import Pay, payments
from duologue.web.study import Partner, Study
from web.webtest_helpers import ADMIN, pair_two, play_to_the_end, state_where, until

ADMIN_HEADERS = {"X-Admin-Token": ADMIN}
ANSWERS = {"0.satisfaction": 3, "0.opponent_likeness": 1}


def leaving_study(policy: str, grace: float = 0.5) -> Study:
    """CaSiNo between two people, a code only after two messages of one's own, pay for waiting/leaving."""
    return Study(
        id=f"leave-{policy}",
        task="casino-v0",
        partners=[Partner(kind="human"), Partner(kind="bot", agent="rule")],
        bot_wait_seconds=60,
        on_partner_leave=policy,
        partner_grace_seconds=grace,
        pay=Pay(base=1.5, bonus="0.01 * points", min_messages=2, left_pay_per_minute=6.0),
    )


def storage(client):
    return client.app.state.platform.storage


def one_message_then_b_leaves(client, study: str):
    """A and B are paired; each sees the dialogue; A says one thing; B closes their page and never comes back.
    Returns (A's socket context manager entered, A's token, B's token, A's first state)."""
    token_a, token_b = pair_two(client, study)
    ws_a = client.websocket_connect(f"/ws/chat/{token_a}")
    ws = ws_a.__enter__()
    first = until(ws, state_where(lambda s: True))
    with client.websocket_connect(f"/ws/chat/{token_b}") as ws_b:
        until(ws_b, state_where(lambda s: True))
    until(ws, lambda f: f["type"] == "partner" and not f["connected"])
    if "say" not in first["legal"]:  # B moves first: wait for the turn (turns are free here, so A may talk at once)
        first = until(ws, state_where(lambda s: "say" in s["legal"]))
    ws.send_json({"type": "move", "action": {"kind": "say", "text": "Hello! I could really use some extra water."}})
    return ws_a, ws, token_a, token_b, first


def test_under_end_the_person_left_behind_gets_a_code_and_pay_for_their_time(make_client, tmp_path):
    client = make_client([leaving_study("end")])
    ws_a, ws, token_a, token_b, first = one_message_then_b_leaves(client, "leave-end")
    try:
        final = until(ws, state_where(lambda s: s["done"]))
    finally:
        ws_a.__exit__(None, None, None)
    assert final["end_reason"] == "partner_left" and final["partner_left"] is True
    dialogue = storage(client).dialogue(final["dialogue"])
    note = dialogue.events[-1]
    assert note.kind == "system" and note.name == "partner_left" and note.data == {"party": next(p.id for p in dialogue.parties if p.id != first["party"])}

    # one message of A's own, below min_messages 2: before, a page titled "Sorry (403)"; now a code
    page = client.get(f"/questionnaire/{token_a}")
    assert page.status_code == 200, page.text
    answer = client.post(f"/api/questionnaire/{token_a}", json=ANSWERS)
    assert answer.status_code == 200 and answer.json()["completion_code"]
    # B, who left with nothing said, is held to min_messages as before
    assert client.get(f"/questionnaire/{token_b}").status_code == 403

    study = leaving_study("end")
    assert study.pay is not None
    paid = {p.participant_id: p for p in payments(study.pay, [dialogue])}
    assert list(paid) == [next(p.participant_id for p in dialogue.parties if p.id == first["party"])]
    seconds = max(e.time for e in dialogue.events) - min(e.time for e in dialogue.events)
    assert paid[list(paid)[0]].amount >= round(6.0 * seconds / 60.0, 2) > 0
    assert "partner left" in paid[list(paid)[0]].why

    # the end reason is counted per study: the admin page, its JSON, the export's manifest, `study codes`
    counts = client.get("/admin/api/counts", headers=ADMIN_HEADERS).json()["studies"]["leave-end"]
    assert counts["end_reasons"] == {"partner_left": 1}
    assert "partner_left" in client.get("/admin", headers=ADMIN_HEADERS).text
    archive = zipfile.ZipFile(io.BytesIO(client.get("/admin/export?study=leave-end", headers=ADMIN_HEADERS).content))
    assert json.loads(archive.read("manifest.json"))["end_reasons"] == {"leave-end": {"partner_left": 1}}
    study_file = tmp_path / "leave.yaml"
    study_file.write_text(json.dumps(study.model_dump(mode="json", exclude_none=True)), encoding="utf-8")
    listed = CliRunner().invoke(cli, ["study", "codes", "leave-end", "--study", str(study_file), "--db", f"sqlite:///{tmp_path / 'test.db'}", "--json"])
    assert listed.exit_code == 0, listed.output
    out = json.loads(listed.output)
    assert out["end_reasons"] == {"partner_left": 1}
    assert [r["note"] for r in out["codes"]] == ["only 1 message(s); partner left"]


def test_under_bot_the_bot_takes_the_seat_and_the_dialogue_finishes(make_client):
    client = make_client([leaving_study("bot")])
    ws_a, ws, token_a, token_b, first = one_message_then_b_leaves(client, "leave-bot")
    try:
        handed = until(ws, state_where(lambda s: any(e["kind"] == "system" and e["name"] == "handover" for e in s["events"])))
        assert not handed["done"] and handed["partner_connected"] is True and handed["partner_left"] is True
        final = play_to_the_end(ws)
    finally:
        ws_a.__exit__(None, None, None)
    assert final["done"] and final["end_reason"] != "partner_left"
    dialogue = storage(client).dialogue(final["dialogue"])
    notes = [e for e in dialogue.events if e.kind == "system" and e.name == "handover"]
    departed = next(p.id for p in dialogue.parties if p.id != first["party"])
    assert len(notes) == 1 and notes[0].data == {"party": departed, "agent": "rule"}
    after = dialogue.events[dialogue.events.index(notes[0]) + 1 :]
    assert any(e.party == departed for e in after), "the bot moved in the departed person's seat"
    assert storage(client).info(dialogue.id).status == "finished"

    # the stored events replay through a fresh engine (how a worker rebuilds it) and the judge reads them
    task = make("casino-v0", turn_taking="free")
    clock = ReplayClock()
    clock.fixed = dialogue.meta["started_at"]
    task.reset(seed=dialogue.meta.get("seed"), scenario=dialogue.scenario)
    clock.fixed = None
    task.parties = dialogue.parties
    replay(task, clock, dialogue.events)
    assert task.done and [e.kind for e in task.events] == [e.kind for e in dialogue.events]
    assert task.judge(dialogue).reason == dialogue.outcome.reason

    # A gets a code whatever they wrote; B's seat is no longer theirs to move in
    assert client.post(f"/api/questionnaire/{token_a}", json=ANSWERS).status_code == 200
    with client.websocket_connect(f"/ws/chat/{token_b}") as ws_b:
        seen = until(ws_b, state_where(lambda s: True))
    assert seen["done"]


def test_a_reconnect_within_the_grace_period_keeps_the_seat(make_client):
    client = make_client([leaving_study("bot", grace=3.0)])
    token_a, token_b = pair_two(client, "leave-bot")
    with client.websocket_connect(f"/ws/chat/{token_a}") as ws_a:
        until(ws_a, state_where(lambda s: True))
        with client.websocket_connect(f"/ws/chat/{token_b}") as ws_b:
            until(ws_b, state_where(lambda s: True))
        notice = until(ws_a, lambda f: f["type"] == "partner" and not f["connected"])
        assert notice["reconnect_seconds"] == 3.0  # the study's grace, not the platform's 30 s
        with client.websocket_connect(f"/ws/chat/{token_b}") as ws_b:
            back = until(ws_b, state_where(lambda s: True))
            assert until(ws_a, lambda f: f["type"] == "partner")["connected"] is True
            if "say" not in back["legal"]:
                back = until(ws_b, state_where(lambda s: "say" in s["legal"]))
            ws_b.send_json({"type": "move", "action": {"kind": "say", "text": "Sorry, my connection dropped. I am back."}})
            said = until(ws_b, state_where(lambda s: any(e["kind"] == "message" and e["own"] for e in s["events"])))
            assert not said["done"]
            deadline = time.monotonic() + 4.0  # past the grace period with B connected: nothing is handed over
            while time.monotonic() < deadline:
                ws_b.send_json({"type": "ping"})
                until(ws_b, lambda f: f["type"] == "pong")
    dialogue = storage(client).dialogue(said["dialogue"])
    assert not any(e.kind == "system" for e in dialogue.events)


@pytest.mark.parametrize("policy", ["end", "bot"])
def test_a_study_names_its_partner_leave_policy_or_is_refused(policy):
    assert leaving_study(policy).on_partner_leave == policy
    with pytest.raises(ValueError, match="on_partner_leave"):
        Study(id="x", task="casino-v0", on_partner_leave="pause")
    with pytest.raises(ValueError, match="partner_grace_seconds"):
        Study(id="x", task="casino-v0", partner_grace_seconds=0)

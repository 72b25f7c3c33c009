"""Pay: bonus formulas (no Python eval), min_messages, the bulk-bonus CSV, signed links, and the
waiting room a person may leave with a code for their time (listed and paid by the CLI)."""

from __future__ import annotations

import time

import pytest
from typer.testing import CliRunner

from duologue.cli import app as cli
from duologue.web.payments import FormulaError, Pay, Payment, bulk_bonus_csv, evaluate, link_ok, link_signature, signed_link
from duologue.web.study import Partner, Study


def test_formulas_compute_with_known_names_only():
    assert evaluate("min(1.0, 0.05 * points)", {"points": 30}) == 1.0
    assert evaluate("0.05 * points + 0.1 * agreed", {"points": 10, "agreed": 1}) == pytest.approx(0.6)
    assert evaluate("round(waited / 60, 1)", {"waited": 95}) == 1.6
    for bad in ("__import__('os')", "points ** 2", "open('x')", "secret", "points if agreed else 0", "1 +"):
        with pytest.raises(FormulaError):
            evaluate(bad, {"points": 1})
    with pytest.raises(ValueError, match="unknown name"):
        Pay(bonus="0.1 * score")


def test_bonus_respects_min_messages_and_the_cap():
    pay = Pay(bonus="0.1 * points", max_bonus=1.5, min_messages=2)
    assert pay.bonus_for({"points": 12, "messages": 1}) == 0.0
    assert pay.bonus_for({"points": 12, "messages": 2}) == pytest.approx(1.2)
    assert pay.bonus_for({"points": 30, "messages": 5}) == 1.5
    assert Pay(waiting_pay_per_minute=0.12).waiting_bonus(150) == 0.3
    assert Pay(completion_url="https://example.org/done?cc={code}").redirect("ABCD") == "https://example.org/done?cc=ABCD"


def test_bulk_bonus_csv_is_id_comma_amount_without_header():
    text = bulk_bonus_csv([Payment("5f1a", 1.2, "d1"), Payment("60b2", 0.05, "waited")])
    assert text == "5f1a,1.20\n60b2,0.05\n"


def test_signed_links_check_study_and_participant():
    link = signed_link("https://x.org/", "k3y", "s1", "p-7")
    signature = link.rsplit("sig=", 1)[1]
    assert link.startswith("https://x.org/study/s1?participant=p-7&sig=")
    assert link_ok("k3y", "s1", "p-7", signature)
    assert not link_ok("k3y", "s1", "p-8", signature) and not link_ok("other", "s1", "p-7", signature) and not link_ok("k3y", "s1", "p-7", None)
    assert link_signature("k3y", "s2", "p-7") != signature


def test_a_signed_study_refuses_unsigned_links(make_client):
    study = Study(id="signed", task="casino-v0", partners=[Partner(kind="human")], pay=Pay(link_secret="k3y"))
    client = make_client([study])
    assert client.get("/study/signed?participant=p-1").status_code == 403
    assert client.get("/study/signed?participant=p-1&sig=0000").status_code == 403
    good = signed_link("", "k3y", "signed", "p-1")
    assert client.get(good).status_code == 200


def test_a_signature_in_another_script_is_refused_not_a_crash(make_client):
    study = Study(id="signed", task="casino-v0", partners=[Partner(kind="human")], pay=Pay(link_secret="k3y"))
    client = make_client([study])
    assert not link_ok("k3y", "signed", "p-1", "é" * 24)
    assert client.get("/study/signed", params={"participant": "p-1", "sig": "é"}).status_code == 403


def test_no_page_after_the_signed_link_and_no_socket_is_a_way_round_it(make_client):
    """An attacker who knows a participant id but not its signed link: posting the consent page
    directly, opening a survey, or the lobby socket, must neither let them in nor lock the owner out."""
    from duologue.web.protocol import Protocol
    from starlette.testclient import TestClient

    with_protocol = Study(id="signed", task="casino-v0", partners=[Partner(kind="human")], pay=Pay(link_secret="k3y"), protocol=Protocol(consent={"text": "Do you agree to take part?"}))
    plain = Study(id="plain", task="casino-v0", partners=[Partner(kind="human")], pay=Pay(link_secret="k3y"))
    owner = make_client([with_protocol, plain])
    attacker = TestClient(owner.app)
    assert attacker.post("/protocol/signed/consent?participant=victim", data={"agree": "yes"}, follow_redirects=False).status_code == 403
    assert attacker.get("/protocol/signed/consent?participant=victim").status_code == 403
    assert attacker.get("/study/signed?participant=victim").status_code == 403  # still unsigned, still refused
    for study in ("signed", "plain"):
        with attacker.websocket_connect(f"/ws/lobby/{study}?participant=victim") as ws:
            refused = ws.receive_json()
        assert refused["type"] == "refused" and "link is not valid" in refused["reason"]
    arrived = owner.get(signed_link("", "k3y", "signed", "victim"), follow_redirects=False)
    assert arrived.status_code == 303 and "/protocol/signed/consent" in arrived.headers["location"]
    assert owner.post("/protocol/signed/consent?participant=victim", data={"agree": "yes"}, follow_redirects=False).status_code == 303
    assert owner.get(signed_link("", "k3y", "plain", "victim")).status_code == 200
    with owner.websocket_connect("/ws/lobby/plain?participant=victim") as ws:
        assert ws.receive_json()["type"] == "waiting"


def test_leaving_the_waiting_room_gives_a_code_listed_and_paid(make_client, tmp_path):
    study = Study(id="wait", task="casino-v0", partners=[Partner(kind="human")], pay=Pay(waiting_leave_after=0.3, waiting_pay_per_minute=6.0))
    client = make_client([study])
    lobby = client.get("/study/wait?participant=w-1")
    assert 'id="leave-waiting"' in lobby.text
    assert client.get("/waiting-code/wait?participant=w-1").status_code == 409  # not yet
    with client.websocket_connect("/ws/lobby/wait?participant=w-1") as ws:  # waiting is the lobby socket's time
        assert ws.receive_json()["type"] == "waiting"
        time.sleep(0.4)
    done = client.get("/waiting-code/wait?participant=w-1")
    assert done.status_code == 200
    code = done.text.split('id="completion-code">', 1)[1].split("<", 1)[0]
    study_file = tmp_path / "wait.yaml"
    study_file.write_text("id: wait\ntask: casino-v0\npartners: [{kind: human}]\npay: {waiting_leave_after: 0.3, waiting_pay_per_minute: 6.0}\n")
    db = f"sqlite:///{tmp_path / 'test.db'}"
    runner = CliRunner()
    listed = runner.invoke(cli, ["study", "codes", "wait", "--study", str(study_file), "--db", db, "--check", code])
    assert listed.exit_code == 0 and "w-1" in listed.output and "waited" in listed.output, listed.output
    out = tmp_path / "bonus.csv"
    paid = runner.invoke(cli, ["study", "payments", "wait", "--study", str(study_file), "--db", db, "-o", str(out)])
    assert paid.exit_code == 0, paid.output
    participant, amount = out.read_text().strip().split(",")
    assert participant == "w-1" and 0.04 <= float(amount) <= 0.2  # 6.00 a minute for about half a second


def test_cli_refuses_an_unknown_study_and_a_study_without_pay(tmp_path):
    runner = CliRunner()
    unknown = runner.invoke(cli, ["study", "codes", "no-such-study", "--db", f"sqlite:///{tmp_path / 'x.db'}"])
    assert unknown.exit_code == 2 and "no study 'no-such-study'" in unknown.output
    nopay = runner.invoke(cli, ["study", "payments", "casino", "--db", f"sqlite:///{tmp_path / 'x.db'}", "-o", str(tmp_path / "b.csv")])
    assert nopay.exit_code == 2 and "no `pay` settings" in nopay.output


def test_cli_refuses_a_database_that_is_not_there_rather_than_making_an_empty_one(tmp_path):
    """A mistyped --db would report 0 codes and 0 payments from a fresh database, and leave it behind."""
    from duologue.web.storage import Storage

    Storage(f"sqlite:///{tmp_path / 'real.db'}")
    runner = CliRunner()
    for command in (["study", "codes", "casino"], ["study", "codes", "casino", "--check", "AAAA-BBBB"]):
        missing = runner.invoke(cli, [*command, "--db", f"sqlite:///{tmp_path / 'typo.db'}"])
        assert missing.exit_code == 2 and "no platform database at" in missing.output, missing.output
        assert not (tmp_path / "typo.db").exists()
    assert runner.invoke(cli, ["study", "codes", "casino", "--db", f"sqlite:///{tmp_path / 'real.db'}"]).exit_code == 0


def test_a_dialogue_below_min_messages_earns_no_code_and_the_person_may_play_again(make_client):
    from web.webtest_helpers import join_lobby, play_to_the_end

    study = Study(id="short", task="casino-v0", partners=[Partner(kind="bot", agent="rule")], bot_wait_seconds=0.1, pay=Pay(min_messages=50))
    client = make_client([study])
    client.get("/study/short?participant=q-1")
    token = join_lobby(client, "short", "q-1")
    with client.websocket_connect(f"/ws/chat/{token}") as ws:
        play_to_the_end(ws)  # a few messages, far fewer than 50
    refused = client.get(f"/questionnaire/{token}")
    assert refused.status_code == 403 and "at least 50" in refused.text
    assert client.post(f"/api/questionnaire/{token}", json={}).status_code == 403
    again = join_lobby(client, "short", "q-1")
    assert again != token  # a new dialogue, not the closed one


def test_a_dialogue_below_min_messages_counts_toward_no_quota_and_reaches_no_rater(make_client):
    from duologue.web.rating_jobs import RatingJobs
    from web.webtest_helpers import join_lobby, play_to_the_end

    studies = [
        Study(id=name, task="casino-v0", partners=[Partner(kind="bot", agent="rule")], quotas={"bot:rule": 1}, bot_wait_seconds=0.1, pay=Pay(min_messages=least))
        for name, least in (("short", 50), ("enough", 1))
    ]
    client = make_client(studies)
    storage = client.app.state.platform.storage
    for name in ("short", "enough"):
        client.get(f"/study/{name}?participant=p-{name}")
        token = join_lobby(client, name, f"p-{name}")
        with client.websocket_connect(f"/ws/chat/{token}") as ws:
            play_to_the_end(ws)  # a few messages: fewer than 50, at least 1
    short = storage.dialogues(study_id="short")
    assert len(short) == 1 and short[0].status == "finished"
    assert storage.count_by("short", "pairing") == {} and storage.count_pairs("short") == {}
    assert storage.ratable("short") == [] and RatingJobs(3, dialogues=storage.ratable("short")).assign("rater-1", time.time()) is None
    assert "fewer than min_messages 50" in storage.set_aside("short")[short[0].id]
    assert join_lobby(client, "short", "p-short")  # the quota of one is still open
    assert storage.count_by("enough", "pairing") == {"bot:rule": 1}
    assert [r["dialogue_id"] for r in storage.ratable("enough")] == [storage.dialogues(study_id="enough")[0].id]
    assert storage.set_aside("enough") == {}


def test_a_dialogue_left_before_anyone_typed_counts_toward_no_quota_and_reaches_no_rater(make_client):
    from web.webtest_helpers import pair_two, state_where, until

    study = Study(id="people", task="casino-v0", partners=[Partner(kind="human")], quotas={"human-human": 1})
    client = make_client([study], reconnect_seconds=0.5)
    storage = client.app.state.platform.storage
    token_a, _ = pair_two(client, "people")
    with client.websocket_connect(f"/ws/chat/{token_a}") as ws:
        final = until(ws, state_where(lambda s: s["done"]))  # nobody types; the partner never comes
    assert final["end_reason"] == "partner_left"  # the partner never came: a leave, set aside all the same
    assert storage.set_aside("people") == {final["dialogue"]: "no messages"}
    assert storage.count_by("people", "pairing") == {} and storage.ratable("people") == []
    assert pair_two(client, "people", "carol", "dave")  # the quota of one is still open

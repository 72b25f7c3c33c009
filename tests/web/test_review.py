"""Reviewing a crowd study from the terminal: a submissions export (Prolific's or MTurk's) checked
against what the platform recorded, the bonus file, codes checked in bulk, the participant table in
the export, and studies added on the admin page working with every `study` command."""

from __future__ import annotations

import csv
import html
import io
import json
import zipfile

import pytest
from typer.testing import CliRunner

from duologue.cli import app as cli
from duologue.web.review import SubmissionsError, read_submissions
from web.webtest_helpers import ADMIN, join_lobby, play_to_the_end

HTML = {"X-Admin-Token": ADMIN, "Accept": "text/html,application/xhtml+xml"}
PAID_STUDY = """\
id: paid
task: casino-v0
partners: [{kind: bot, agent: rule}]
bot_wait_seconds: 0.1
protocol: {comprehension: [{question: "Who do you talk to?", options: [a person, nobody], answer: a person}]}
pay: {currency: GBP, base: 1.5, bonus: "0.1 * points", min_messages: 1}
"""


def _arrive(client, participant: str, query: str = "") -> None:
    """Arrive with the crowd's parameters and pass the comprehension check (wrong once for `tries-`)."""
    first = client.get(f"/study/paid?participant={participant}{query}", follow_redirects=False)
    assert first.status_code == 303, first.text
    if participant.startswith("tries-"):
        assert client.post(f"/protocol/paid/comprehension?participant={participant}", data={"check_0": "nobody"}).status_code == 422
    done = client.post(f"/protocol/paid/comprehension?participant={participant}", data={"check_0": "a person"}, follow_redirects=False)
    assert done.status_code == 303


def _play(client, participant: str, *, talk: bool = True) -> str | None:
    """One dialogue with the rule bot; the completion code from the questionnaire, or None."""
    token = join_lobby(client, "paid", participant)
    with client.websocket_connect(f"/ws/chat/{token}") as ws:
        if talk:
            play_to_the_end(ws)
        else:  # walk away before typing a word: too short to earn a code
            ws.receive_json()
            ws.send_json({"type": "move", "action": {"kind": "walk-away"}})
            while not ws.receive_json().get("done"):
                pass
    answer = client.post(f"/api/questionnaire/{token}", json={"0.satisfaction": "Undecided", "0.opponent_likeness": 3})
    return answer.json()["completion_code"] if answer.status_code == 200 else None


@pytest.fixture
def collected(make_client, tmp_path):
    """A study added on the admin page (not in any file), people who earned a code and people who did not."""
    client = make_client([])
    added = client.post("/admin/studies", data={"text": PAID_STUDY}, headers=HTML, follow_redirects=False)
    assert added.status_code == 303, added.text
    codes = {}
    for who in ("ok-1", "tries-2", "wrong-1", "lower-1"):
        _arrive(client, who, "&PROLIFIC_PID=" + who + "&STUDY_ID=S1&SESSION_ID=sess-" + who)
        codes[who] = _play(client, who)
        assert codes[who], who
    _arrive(client, "short-1", "&PROLIFIC_PID=short-1&STUDY_ID=S1&SESSION_ID=sess-short")
    assert _play(client, "short-1", talk=False) is None
    _arrive(client, "nocode-1")
    return client, codes, f"sqlite:///{tmp_path / 'test.db'}"


def _prolific_export(codes: dict[str, str]) -> str:
    rows = [
        ("s-1", "ok-1", "AWAITING REVIEW", codes["ok-1"]),
        ("s-2", "lower-1", "AWAITING REVIEW", codes["lower-1"].lower().replace("-", " ")),
        ("s-3", "wrong-1", "AWAITING REVIEW", codes["ok-1"]),
        ("s-4", "short-1", "AWAITING REVIEW", ""),
        ("s-5", "nocode-1", "AWAITING REVIEW", "NOCODE"),
        ("s-6", "stranger", "AWAITING REVIEW", "ABCD-EFGH-JKMN"),
        ("s-7", "ok-1", "AWAITING REVIEW", codes["ok-1"]),
        ("s-8", "tries-2", "RETURNED", ""),
        ("s-9", "tries-2", "AWAITING REVIEW", ""),
        ("s-10", "lower-1", "APPROVED", codes["lower-1"]),
    ]
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["Submission id", "Participant id", "Status", "Custom study tncs accepted at", "Started at", "Completed at", "Reviewed at", "Archived at", "Time taken", "Completion code", "Total approvals"])
    for submission, participant, status, code in rows:
        writer.writerow([submission, participant, status, "", "2026-12-04T10:00:00Z", "", "", "", "300", code, "12"])
    return out.getvalue()


def test_review_of_a_prolific_export_approves_rejects_and_explains_each_line(collected, tmp_path):
    client, codes, db = collected
    export = tmp_path / "prolific.csv"
    export.write_text(_prolific_export(codes), encoding="utf-8")
    out, bonus = tmp_path / "review.csv", tmp_path / "bonus.csv"
    result = CliRunner().invoke(cli, ["study", "review", "paid", "--submissions", str(export), "--db", db, "--out", str(out), "--bonus", str(bonus), "--json"])
    assert result.exit_code == 0, result.output
    shown = json.loads(result.output)
    verdicts = {row["submission"]: (row["decision"], row["why"]) for row in shown["review"]}
    assert shown["platform"] == "prolific"
    assert verdicts["s-1"] == ("approve", "code matches")
    assert verdicts["s-2"] == ("approve", "code matches")  # lower case, spaces for dashes
    assert verdicts["s-3"][0] == "reject" and "wrong code" in verdicts["s-3"][1] and "ok-1's code" in verdicts["s-3"][1]
    assert verdicts["s-4"][0] == "reject" and verdicts["s-4"][1].startswith("set aside: ")  # no messages, or none of short-1's
    assert verdicts["s-5"][0] == "reject" and "wrong code 'NOCODE'" in verdicts["s-5"][1]
    assert verdicts["s-6"] == ("reject", "unknown participant: never arrived at this study")
    assert verdicts["s-7"][0] == "reject" and verdicts["s-7"][1].startswith("two submissions")
    assert verdicts["s-8"][0] == "none" and "returned" in verdicts["s-8"][1]
    assert verdicts["s-9"][0] == "approve"  # a return and a later submission: the later one is judged
    assert verdicts["s-10"][0] == "none" and verdicts["s-10"][1].startswith("approved on the platform already")
    written = list(csv.DictReader(out.open(encoding="utf-8")))
    assert [r["decision"] for r in written] == [row["decision"] for row in shown["review"]] and len(written) == 10 and all(r["why"] for r in written)
    paid = dict(line.split(",") for line in bonus.read_text().splitlines())
    approved = {"ok-1", "lower-1", "tries-2"}
    assert set(paid) <= approved and "wrong-1" not in paid and all(float(a) > 0 for a in paid.values())
    table = CliRunner().invoke(cli, ["study", "review", "paid", "--submissions", str(export), "--db", db, "--out", str(out), "--bonus", str(bonus)])
    assert table.exit_code == 0 and "two submissions" in table.output and "unknown participant" in table.output


def test_review_of_mturk_batch_results_writes_the_worker_assignment_bonus_file(collected, tmp_path):
    _, codes, db = collected
    export = tmp_path / "batch.csv"
    export.write_text(
        "HITId,HITTypeId,AssignmentId,WorkerId,AssignmentStatus,WorkTimeInSeconds,Answer.surveycode\n"
        f"H1,T1,A1,ok-1,Submitted,300,{codes['ok-1']}\n"
        "H1,T1,A2,wrong-1,Submitted,300,XXXX-YYYY\n",
        encoding="utf-8",
    )
    out, bonus = tmp_path / "review.csv", tmp_path / "bonus.csv"
    result = CliRunner().invoke(cli, ["study", "review", "paid", "--submissions", str(export), "--db", db, "--out", str(out), "--bonus", str(bonus), "--json"])
    assert result.exit_code == 0, result.output
    assert [(r["participant"], r["decision"]) for r in json.loads(result.output)["review"]] == [("ok-1", "approve"), ("wrong-1", "reject")]
    lines = bonus.read_text().splitlines()
    assert lines[0] == "WorkerId,AssignmentId,BonusAmount,Reason" and lines[1].startswith("ok-1,A1,") and len(lines) == 2


def test_a_submissions_file_without_a_participant_column_is_refused_by_name(tmp_path, collected):
    with pytest.raises(SubmissionsError, match="no participant column"):
        read_submissions("name,code\nx,y\n", "s.csv")
    bad = tmp_path / "s.csv"
    bad.write_text("name,code\nx,y\n")
    result = CliRunner().invoke(cli, ["study", "review", "paid", "--submissions", str(bad), "--db", collected[2]])
    assert result.exit_code == 2 and "no participant column" in result.output and "Traceback" not in result.output


def test_codes_check_takes_several_codes_and_a_file_forgiving_case_dashes_and_spaces(collected, tmp_path):
    _, codes, db = collected
    pasted = codes["ok-1"].lower().replace("-", "")
    several = CliRunner().invoke(cli, ["study", "codes", "paid", "--db", db, "--check", pasted, "--check", f"{codes['wrong-1']} ,{codes['lower-1'].replace('-', ' - ')}"])
    assert several.exit_code == 0, several.output
    assert all(who in several.output for who in ("ok-1", "wrong-1", "lower-1"))
    listed = tmp_path / "codes.txt"
    listed.write_text(f"{codes['ok-1']}\nNOT-A-CODE\n")
    admin = collected[0].get("/admin/api/codes", params={"code": pasted}, headers={"X-Admin-Token": ADMIN}).json()
    assert [row["participant"] for row in admin["matches"]] == ["ok-1"], admin  # the admin page forgives the same
    checked = CliRunner().invoke(cli, ["study", "codes", "paid", "--db", db, "--check-file", str(listed), "--json"])
    assert checked.exit_code == 1
    found = {r["pasted"]: [m["participant"] for m in r["matches"]] for r in json.loads(checked.stdout)["checked"]}
    assert found == {codes["ok-1"]: ["ok-1"], "NOT-A-CODE": []}


def test_a_study_added_on_the_admin_page_works_with_every_study_command(collected, tmp_path):
    _, _, db = collected
    runner = CliRunner()
    listed = runner.invoke(cli, ["study", "codes", "paid", "--db", db, "--json"])
    assert listed.exit_code == 0, listed.output
    assert {r["participant"] for r in json.loads(listed.output)["codes"]} == {"ok-1", "tries-2", "wrong-1", "lower-1"}
    paid = runner.invoke(cli, ["study", "payments", "paid", "--db", db, "-o", str(tmp_path / "b.csv")])
    assert paid.exit_code == 0, paid.output
    exported = runner.invoke(cli, ["study", "export", "paid", "--db", db, "-o", str(tmp_path / "paid.zip")])
    assert exported.exit_code == 0, exported.output
    links = runner.invoke(cli, ["study", "links", "paid", "--db", db, "-n", "2", "--secret", "k3y"])
    assert links.exit_code == 0 and links.output.count("/study/paid?participant=p-") == 2, links.output
    unknown = runner.invoke(cli, ["study", "export", "nope", "--db", db, "-o", str(tmp_path / "nope.zip")])
    assert unknown.exit_code == 2 and "no study 'nope'" in unknown.output and "paid" in unknown.output


PARTICIPANT_COLUMNS = (
    "participant", "study", "PROLIFIC_PID", "STUDY_ID", "SESSION_ID", "workerId", "assignmentId", "hitId", "browser_session", "arrived",
    "comprehension_at", "lobby_seconds", "left_waiting_seconds", "comprehension_tries", "dialogues", "pairings", "end_reasons", "set_aside",
    "code", "currency", "base", "bonus", "waiting_pay", "status",
)


def test_the_export_holds_a_participant_table_with_every_column_for_every_person(collected, tmp_path):
    import pyarrow.parquet as pq

    client, codes, db = collected
    archive = zipfile.ZipFile(io.BytesIO(client.get("/admin/export?study=paid", headers={"X-Admin-Token": ADMIN}).content))
    names = set(archive.namelist())
    assert {"participants.csv", "participants.parquet", "dialogues.jsonl", "manifest.json"} <= names
    rows = {r["participant"]: r for r in csv.DictReader(io.StringIO(archive.read("participants.csv").decode()))}
    assert set(rows) == {"ok-1", "tries-2", "wrong-1", "lower-1", "short-1", "nocode-1"}
    for row in rows.values():
        assert set(PARTICIPANT_COLUMNS) <= set(row), set(PARTICIPANT_COLUMNS) - set(row)
    ok = rows["ok-1"]
    assert (ok["PROLIFIC_PID"], ok["STUDY_ID"], ok["SESSION_ID"]) == ("ok-1", "S1", "sess-ok-1")
    assert ok["status"] == "completed" and ok["code"] == codes["ok-1"] and float(ok["base"]) == 1.5 and float(ok["bonus"]) > 0
    assert ok["browser_session"] and ok["comprehension_at"].endswith("Z") and ok["dialogues"] and ok["end_reasons"]
    assert rows["tries-2"]["comprehension_tries"] == "2" and ok["comprehension_tries"] == "1"
    assert rows["short-1"]["status"] == "set aside" and rows["short-1"]["set_aside"] and float(rows["short-1"]["base"]) == 0
    assert rows["nocode-1"]["status"] == "returned" and rows["nocode-1"]["dialogues"] == "" and rows["nocode-1"]["PROLIFIC_PID"] == ""
    parquet = pq.read_table(io.BytesIO(archive.read("participants.parquet")))
    assert parquet.num_rows == 6 and set(PARTICIPANT_COLUMNS) <= set(parquet.column_names)
    manifest = json.loads(archive.read("manifest.json"))
    short_dialogue = rows["short-1"]["dialogues"]
    assert manifest["set_aside"] == {short_dialogue: rows["short-1"]["set_aside"]}
    flagged = {json.loads(line)["id"]: json.loads(line)["meta"].get("set_aside") for line in archive.read("dialogues.jsonl").decode().splitlines()}
    assert flagged[short_dialogue] and all(reason is None for d, reason in flagged.items() if d != short_dialogue)
    # the terminal writes the same table
    folder = tmp_path / "export"
    assert CliRunner().invoke(cli, ["study", "export", "paid", "--db", db, "-o", str(folder)]).exit_code == 0
    assert {r["participant"] for r in csv.DictReader((folder / "participants.csv").open())} == set(rows)


def test_the_admin_list_flags_a_set_aside_dialogue(collected):
    client, _, _ = collected
    (reason,) = client.app.state.platform.storage.set_aside("paid").values()
    page = client.get("/admin", headers=HTML).text
    assert page.count('class="set-aside"') == 1 and f"set aside: {html.escape(reason)}" in page
    (short,) = client.app.state.platform.storage.set_aside("paid")
    assert f"set aside: {html.escape(reason)}" in client.get(f"/admin/dialogues/{short}", headers=HTML).text


def test_analyze_leaves_set_aside_dialogues_out_unless_asked(collected, tmp_path):
    _, _, db = collected
    folder = tmp_path / "export"
    assert CliRunner().invoke(cli, ["study", "export", "paid", "--db", db, "-o", str(folder)]).exit_code == 0
    runner = CliRunner()
    for command in (["analyze", "casino", str(folder / "native" / "casino" / "casino.json")], ["analyze", "dialogues", str(folder / "dialogues.jsonl")]):
        counts = []
        for extra in ([], ["--include-set-aside"]):
            result = runner.invoke(cli, [*command, "--format", "json", "--bootstrap", "0", *extra])
            assert result.exit_code == 0, result.output
            counts.append(json.loads(result.stdout)["stats"]["overall"]["dialogues"])
            assert ("set-aside dialogue(s) left out" in result.stderr) == (not extra)
        assert counts[1] == counts[0] + 1 == 5, (command, counts)

"""Reviewing a crowd platform's submissions against what the platform recorded: who to approve, who
to reject and why, and the bonus file in the platform's own shape.

A submissions export is read by its column names, which differ per platform and per export
version (`SUBMISSION_COLUMNS`): Prolific's current export ("Participant id", "Submission id",
"Status", "Completion code"), its older one and its API (`participant_id`, `session_id`,
`entered_code`, `study_code`), and MTurk's batch results (`WorkerId`, `AssignmentId`, `HITId`,
`AssignmentStatus`, `Answer.<field>` for the code the worker typed).

Each submission gets one verdict (`VERDICTS`), decided in this order: a line the platform already
closed (returned, timed out, rejected, still active) needs nothing; a participant nobody recorded is
rejected; a second line of one participant is rejected; a pasted code is compared with the codes the
person earned (case, dashes and spaces ignored); a person with no code is rejected with the reason
their dialogue was set aside, when it was. A line approved on the platform already is judged the
same way, left as it is, and keeps its bonus when the judgement is to approve.
"""

from __future__ import annotations

import csv
import io
import re
from typing import Any, Iterable, Literal

from pydantic import BaseModel, ConfigDict

from duologue.web.completion_codes import normalise_code
from duologue.web.payments import Payment

Platform = Literal["prolific", "mturk"]


def _header(name: str) -> str:
    """A column name as compared: case, spaces, underscores, dashes and dots ignored."""
    return re.sub(r"[\s_.\-]", "", name).lower()


SUBMISSION_COLUMNS: dict[str, tuple[str, ...]] = {
    "participant": ("Participant id", "participant_id", "PROLIFIC_PID", "WorkerId"),
    "submission": ("Submission id", "session_id", "submission_id", "AssignmentId"),
    "status": ("Status", "AssignmentStatus"),
    "code": ("Completion code", "entered_code", "study_code", "Answer.surveycode", "Answer.completioncode", "Answer.code", "Answer.completion_code"),
    "hit": ("HITId",),
}
"""Our field -> the column names that carry it in Prolific's and MTurk's exports (first found wins)."""

MTURK_MARKS = ("WorkerId", "AssignmentId", "HITId")
"""Columns only MTurk's batch results have."""

CLOSED_STATUSES = {"RETURNED": "returned", "TIMEDOUT": "timed out", "TIMED-OUT": "timed out", "REJECTED": "already rejected", "SCREENED OUT": "screened out", "ACTIVE": "still active"}
"""Platform statuses that leave nothing to decide (upper case, as both platforms write them)."""
APPROVED = "APPROVED"
"""A line approved already: judged all the same (its bonus is still owed), but nothing to approve."""

VERDICTS = ("approve", "reject", "none")


class SubmissionsError(ValueError):
    """A submissions file that cannot be reviewed; the message says what and where."""


class Submission(BaseModel):
    model_config = ConfigDict(extra="forbid")

    line: int
    participant: str
    submission: str = ""
    status: str = ""
    code: str = ""
    hit: str = ""


class Record(BaseModel):
    """What the platform knows of one participant: the codes they earned and why others were not."""

    model_config = ConfigDict(extra="forbid")

    participant: str
    codes: list[str] = []
    set_aside: list[str] = []
    """Reasons their dialogues were set aside (too short to earn a code)."""


class Verdict(BaseModel):
    model_config = ConfigDict(extra="forbid")

    line: int
    participant: str
    submission: str
    status: str
    code: str
    decision: Literal["approve", "reject", "none"]
    why: str
    bonus: float = 0.0


def read_submissions(text: str, source: str = "submissions") -> tuple[Platform, list[Submission]]:
    """The platform that wrote the export and its lines, by column name; a clear error when the
    file has no participant column."""
    reader = csv.DictReader(io.StringIO(text.lstrip("\ufeff")))
    headers = reader.fieldnames or []
    by_name = {_header(h): h for h in headers}
    if not headers:
        raise SubmissionsError(f"{source}: empty; give the submissions export (CSV) of Prolific or MTurk")
    platform: Platform = "mturk" if any(_header(m) in by_name for m in MTURK_MARKS) else "prolific"
    columns = {field: next((by_name[_header(n)] for n in names if _header(n) in by_name), None) for field, names in SUBMISSION_COLUMNS.items()}
    if columns["participant"] is None:
        expected = " or ".join(repr(n) for n in SUBMISSION_COLUMNS["participant"])
        raise SubmissionsError(f"{source}: no participant column ({expected}); its columns are {', '.join(headers)}")
    found = []
    for number, row in enumerate(reader, start=2):
        values = {field: (row.get(column) or "").strip() for field, column in columns.items() if column}
        if not values.get("participant"):
            continue  # a blank line, or a summary line some exports end with
        found.append(Submission(line=number, **values))
    return platform, found


def _closed(status: str) -> str | None:
    key = status.strip().upper().replace("_", " ")
    return CLOSED_STATUSES.get(key) or CLOSED_STATUSES.get(key.replace(" ", ""))


def judge(submission: Submission, record: Record | None, seen_before: bool, owners: dict[str, str]) -> tuple[str, str]:
    """One submission's decision and its reason (`owners`: normalised code -> whose it is), as if it awaited review."""
    if record is None:
        return "reject", "unknown participant: never arrived at this study"
    if seen_before:
        return "reject", "two submissions: an earlier line of this participant is reviewed"
    mine = {normalise_code(c) for c in record.codes}
    pasted = normalise_code(submission.code) if submission.code else ""
    if pasted and pasted in mine:
        return "approve", "code matches"
    if pasted:
        owner = owners.get(pasted)
        whose = f" (it is {owner}'s code)" if owner and owner != record.participant else ""
        return "reject", f"wrong code {submission.code!r}{whose}"
    if mine:
        return "approve", "no code pasted, but the platform gave this person a code"
    if record.set_aside:
        return "reject", f"set aside: {'; '.join(record.set_aside)}"
    return "reject", "no code: never reached a completion code"


def review(submissions: Iterable[Submission], records: dict[str, Record], bonuses: dict[str, float] | None = None) -> list[Verdict]:
    """A verdict for every line; approved people carry their bonus (`bonuses`: participant -> amount)."""
    owners = {normalise_code(code): record.participant for record in records.values() for code in record.codes}
    seen: set[str] = set()
    verdicts = []
    for submission in submissions:
        closed = _closed(submission.status)
        if closed:
            decision, why, payable = "none", f"nothing to do: {closed} on the platform", False
        else:
            decision, why = judge(submission, records.get(submission.participant), submission.participant in seen, owners)
            seen.add(submission.participant)
            payable = decision == "approve"
            if submission.status.strip().upper() == APPROVED:
                decision, why = "none", f"approved on the platform already; {why}"
        bonus = round(float((bonuses or {}).get(submission.participant, 0.0)), 2) if payable else 0.0
        verdicts.append(Verdict(line=submission.line, participant=submission.participant, submission=submission.submission, status=submission.status, code=submission.code, decision=decision, why=why, bonus=bonus))
    return verdicts


REVIEW_COLUMNS = ("line", "participant", "submission", "status", "code", "decision", "why", "bonus")


def review_csv(verdicts: list[Verdict]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(REVIEW_COLUMNS)
    for v in verdicts:
        writer.writerow([getattr(v, c) if c != "bonus" else f"{v.bonus:.2f}" for c in REVIEW_COLUMNS])
    return out.getvalue()


def bonus_file(platform: Platform, verdicts: list[Verdict], reason: str = "Bonus for your dialogue") -> str:
    """The bonus file for approved people with a bonus: Prolific's bulk bonus (`participant id,amount`,
    no header) or MTurk's (`WorkerId,AssignmentId,BonusAmount,Reason`, the assignment a bonus goes with)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    paid = [v for v in verdicts if v.bonus > 0]  # approved now, or approved on the platform already and owed
    if platform == "mturk":
        writer.writerow(["WorkerId", "AssignmentId", "BonusAmount", "Reason"])
        for v in paid:
            writer.writerow([v.participant, v.submission, f"{v.bonus:.2f}", reason])
    else:
        for v in paid:
            writer.writerow([v.participant, f"{v.bonus:.2f}"])
    return out.getvalue()


def records_of(code_rows: Iterable[dict[str, Any]], arrived: Iterable[str], set_aside: dict[str, list[str]]) -> dict[str, Record]:
    """Records from the study's code list (`participant`, `code`), everyone who arrived, and set-aside reasons per participant."""
    records: dict[str, Record] = {p: Record(participant=p) for p in arrived}
    for row in code_rows:
        record = records.setdefault(row["participant"], Record(participant=row["participant"]))
        record.codes.append(row["code"])
    for participant, reasons in set_aside.items():
        records.setdefault(participant, Record(participant=participant)).set_aside.extend(reasons)
    return records


def bonuses_of(rows: Iterable[Payment]) -> dict[str, float]:
    return {row.participant_id: row.amount for row in rows}


__all__ = ["SUBMISSION_COLUMNS", "Record", "Submission", "SubmissionsError", "Verdict", "bonus_file", "bonuses_of", "read_submissions", "records_of", "review", "review_csv"]

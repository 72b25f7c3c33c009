"""One wide row per participant of a study, for reconciling pay and reporting a collection.

What the platform keeps about a person is spread over the protocol progress (crowd ids, consent
and page times, comprehension tries, survey answers, waiting), the identity table (the browser
the id is bound to), the seats (dialogues and codes) and the set-aside list. `participant_rows`
puts it in one table whose columns do not depend on who arrived: every crowd id and every page of
the study's protocol has its column, empty when nobody gave it.

Status: `completed` (holds a code), `in dialogue` (a dialogue still live), `set aside` (their
dialogue was too short to earn a code), `timed out` (a dialogue ended by its time limit without a
code), `returned` (arrived and left before a code).
"""

from __future__ import annotations

import csv
import io
import time
from dataclasses import dataclass
from typing import Any

from duologue.web import protocol as proto
from duologue.web.payments import dialogue_bonus

CROWD_COLUMNS = ("PROLIFIC_PID", "STUDY_ID", "SESSION_ID", "workerId", "assignmentId", "hitId")
"""The crowd platforms' ids, as the arrival's query carried them."""

_HEAD = ("participant", "study", *CROWD_COLUMNS, "browser_session", "arrived")
_TAIL = (
    "lobby_seconds", "left_waiting_seconds", "comprehension_tries", "dialogues", "pairings", "end_reasons",
    "set_aside", "code", "currency", "base", "bonus", "waiting_pay", "status",
)


def _stamp(value: Any) -> str:
    """A stored time as ISO 8601 UTC (empty when absent)."""
    if value in (None, ""):
        return ""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(float(value)))


def _step_column(step: str, protocol: proto.Protocol | None) -> str:
    if step.startswith("survey:") and protocol is not None:
        return f"{protocol.surveys[int(step.split(':')[1])].rsplit('/', 1)[-1].removesuffix('.yaml')}_at"
    return f"{step}_at"


def _answer_columns(study: Any) -> list[tuple[str, str, str]]:
    """(column, survey id, item id) for every item of the study's surveys."""
    protocol = study.protocol
    found: list[tuple[str, str, str]] = []
    for name in protocol.surveys if protocol is not None else []:
        try:
            survey = proto.survey(study.task, name)
        except proto.ProtocolError:  # a survey that no longer loads: its answers still come through below
            continue
        found.extend((f"{survey.id}.{item.id}", survey.id, item.id) for item in survey.items)
    return found


def columns(study: Any) -> list[str]:
    """The table's columns for this study, in order."""
    protocol = study.protocol
    steps = [_step_column(s, protocol) for s in (protocol.steps() if protocol is not None else [])]
    return [*_HEAD, *steps, *(c for c, _, _ in _answer_columns(study)), *_TAIL]


def _status(codes: list[str], seats: list[tuple[Any, Any]], aside: list[str]) -> str:
    if codes:
        return "completed"
    if any(info.status == "live" for _, info in seats):
        return "in dialogue"
    if aside:
        return "set aside"
    if any(info.end_reason == "timeout" for _, info in seats):
        return "timed out"
    return "returned"


def _dialogue_part(study: Any, storage: Any, seats: list[tuple[Any, Any]], set_aside: dict[str, str]) -> dict[str, Any]:
    """Dialogues, their ends, set-aside reasons, codes and the formula bonus of one person."""
    bonus = 0.0
    codes = [seat.completion_code for seat, _ in seats if seat.completion_code]
    for seat, info in seats:
        if study.pay is not None and info.status == "finished" and seat.completion_code:
            dialogue = storage.dialogue(info.id)
            if dialogue is not None:
                bonus += dialogue_bonus(study.pay, dialogue, seat.party)[0]
    return {
        "dialogues": ";".join(info.id for _, info in seats),
        "pairings": ";".join(info.pairing for _, info in seats),
        "end_reasons": ";".join(info.end_reason or info.status for _, info in seats),
        "set_aside": ";".join(set_aside[info.id] for _, info in seats if info.id in set_aside),
        "codes": codes,
        "bonus": round(bonus, 2),
    }


def participant_row(study: Any, storage: Any, participant: str, arrived: float | None, data: dict[str, Any], set_aside: dict[str, str]) -> dict[str, Any]:
    """One person's row (see the module docstring)."""
    protocol = study.protocol
    row: dict[str, Any] = dict.fromkeys(columns(study), "")
    crowd = data.get("crowd") or {}
    row.update({"participant": participant, "study": study.id, "arrived": _stamp(arrived), "browser_session": storage.session_of(participant) or ""})
    row.update({name: crowd.get(name, "") for name in CROWD_COLUMNS})
    for step in protocol.steps() if protocol is not None else []:
        row[_step_column(step, protocol)] = _stamp((data.get("times") or {}).get(step))
    for survey_id, answers in (data.get("answers") or {}).items():
        for item, value in (answers or {}).items():
            row[f"{survey_id}.{item}"] = value if not isinstance(value, (list, dict)) else str(value)
    seats = [(seat, info) for seat, info in storage.seats_of_participant(participant, study.id) if seat.kind == "human"]
    part = _dialogue_part(study, storage, seats, set_aside)
    codes = part.pop("codes")
    if data.get("waiting_code"):
        codes.append(str(data["waiting_code"]))
    waited = data.get("left_waiting") if not seats else None  # waiting pay is only for someone never seated
    pay = study.pay
    row.update(part)
    row.update({
        "lobby_seconds": float((data.get("lobby") or {}).get("waited", 0.0)),
        "left_waiting_seconds": "" if waited is None else float(waited),
        "comprehension_tries": int(data.get("comprehension_tries") or (1 if "comprehension" in (data.get("done") or []) else 0)),
        "code": ";".join(dict.fromkeys(codes)),
        "currency": pay.currency if pay else "",
        "base": (pay.base if codes else 0.0) if pay else 0.0,
        "waiting_pay": pay.waiting_bonus(float(waited)) if pay and waited is not None else 0.0,
        "status": _status(codes, seats, [r for r in part["set_aside"].split(";") if r]),
    })
    return row


def participant_rows(study: Any, storage: Any, progress: proto.Progress) -> list[dict[str, Any]]:
    """Everyone who arrived at the study (protocol progress) or sat in one of its dialogues, oldest first."""
    set_aside = storage.set_aside(study.id)
    known = {participant: (arrived, data) for participant, arrived, data in progress.all(study.id)}
    for info in storage.dialogues(study_id=study.id):
        for seat in storage.seats(info.id):
            if seat.kind == "human" and seat.participant_id and seat.participant_id not in known:
                known[seat.participant_id] = (info.created_at, {})
    ordered = sorted(known.items(), key=lambda pair: (pair[1][0] or 0.0, pair[0]))
    return [participant_row(study, storage, participant, arrived, data, set_aside) for participant, (arrived, data) in ordered]


@dataclass
class ParticipantTable:
    """The participant table to put beside the dialogues: its columns, in order, and its rows."""

    columns: list[str]
    rows: list[dict[str, Any]]


def export_extras(studies: list[Any], storage: Any, progress: proto.Progress) -> tuple[dict[str, str], Any]:
    """What an export of these studies holds beside the dialogues: the set-aside reasons, and one
    participant table (the union of the studies' columns, in first-seen order)."""
    set_aside: dict[str, str] = {}
    header: dict[str, None] = {}
    rows: list[dict[str, Any]] = []
    for study in studies:
        set_aside.update(storage.set_aside(study.id))
        header.update(dict.fromkeys(columns(study)))
        rows.extend(participant_rows(study, storage, progress))
    return set_aside, ParticipantTable(list(header), rows)


def rows_csv(rows: list[dict[str, Any]], header: list[str]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=header, lineterminator="\n", extrasaction="ignore")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


def write_parquet(rows: list[dict[str, Any]], header: list[str], path: Any) -> None:
    """The same table as parquet; every column as text but the figures, so an empty column keeps its type."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    numbers = {"base", "bonus", "waiting_pay", "comprehension_tries"}
    arrays = {}
    for column in header:
        values = [row.get(column, "") for row in rows]
        if column in numbers:
            arrays[column] = pa.array([float(v or 0) for v in values], type=pa.float64())
        else:
            arrays[column] = pa.array(["" if v is None else str(v) for v in values], type=pa.string())
    pq.write_table(pa.table(arrays), path)


__all__ = ["CROWD_COLUMNS", "columns", "export_extras", "participant_row", "participant_rows", "rows_csv", "write_parquet"]

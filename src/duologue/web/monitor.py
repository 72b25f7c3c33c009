"""The admin's live participant monitor: who is on which page of a study now, and since when.

Each person of a study is at one stage, read from what the platform already keeps:

* `protocol`: a page before the lobby (consent, instructions, comprehension, a survey), from the
  protocol progress (the page is the next step not done; since the last step done, or arrival);
* `lobby`: waiting for a partner (`waiting`), or through the protocol and not waiting now;
* `dialogue`: seated in a live dialogue (`connected`: whether a page of theirs is open, when this
  worker knows), or gone from one they left (its other person was handed a bot or the end);
* `questionnaire`: their dialogue is over and the questionnaire not answered;
* `done`: they hold a completion code (after a dialogue, or for waiting).

A person not done who has shown no sign of life for `quiet_seconds` (no page moved on, no page
of the dialogue open) is a dropout.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Iterable

from duologue.web.protocol import next_step
from duologue.web.storage import DialogueInfo, Seat

STAGES = ("protocol", "lobby", "dialogue", "questionnaire", "done")
QUIET_SECONDS = 600.0
"""A person not done who showed no sign of life this long is counted as a dropout (the page's default)."""


@dataclass
class Where:
    """One person's place in a study now."""

    participant: str
    study: str
    stage: str
    page: str
    since: float
    connected: bool | None = None
    """Whether a page of theirs is open (lobby, dialogue); None when not known."""
    dialogue: str = ""
    dropout: bool = False


def _from_seat(participant: str, study: str, seat: Seat, info: DialogueInfo, connected: bool | None, left: bool) -> Where:
    if left and not seat.completion_code:
        return Where(participant, study, "dialogue", "left the dialogue", info.finished_at or info.created_at, connected=False, dialogue=info.id, dropout=True)
    if seat.completion_code:
        return Where(participant, study, "done", "code after the dialogue", info.finished_at or info.created_at, dialogue=info.id)
    if info.status == "live":
        return Where(participant, study, "dialogue", "chat", info.created_at, connected=connected, dialogue=info.id)
    if not seat.questionnaire_done:
        return Where(participant, study, "questionnaire", "questionnaire", info.finished_at or info.created_at, dialogue=info.id)
    return Where(participant, study, "lobby", f"no code ({info.end_reason or 'ended'}); may join again", info.finished_at or info.created_at, connected=False, dialogue=info.id)


def _from_progress(participant: str, study: Any, arrived: float, data: dict[str, Any]) -> Where:
    times = [float(t) for t in (data.get("times") or {}).values() if isinstance(t, (int, float))]
    since = max([arrived, *times])
    if data.get("waiting_code"):
        return Where(participant, study.id, "done", "code for waiting", since)
    step = next_step(study.protocol, data)
    if step is not None:
        return Where(participant, study.id, "protocol", step, since)
    return Where(participant, study.id, "lobby", "through the protocol, not waiting" if study.protocol is not None else "arrived, not waiting", since, connected=False)


def places(
    study: Any,
    progress: Iterable[tuple[str, float, dict[str, Any]]],
    seats: Iterable[tuple[Seat, DialogueInfo]],
    waiting: Iterable[tuple[str, float]],
    connected: dict[tuple[str, str], bool],
    now: float,
    quiet_seconds: float = QUIET_SECONDS,
    left: frozenset[tuple[str, str]] = frozenset(),
) -> list[Where]:
    """Where each person of `study` is: the latest of their seats (`seats` oldest first), unless
    they wait in the lobby now; else their protocol progress. `connected`: (dialogue, party) ->
    whether a page of theirs is open, for the dialogues this worker knows; `left`: the (dialogue,
    party) seats whose person left the dialogue (a dropout at once)."""
    found: dict[str, Where] = {}
    for participant, arrived, data in progress:
        found[participant] = _from_progress(participant, study, arrived, data)
    for seat, info in seats:
        if seat.participant_id is not None:
            key = (info.id, seat.party)
            found[seat.participant_id] = _from_seat(seat.participant_id, study.id, seat, info, connected.get(key), key in left)
    for participant, since in waiting:
        found[participant] = Where(participant, study.id, "lobby", "waiting for a partner", since, connected=True)
    for where in found.values():
        where.dropout = where.dropout or (where.stage != "done" and where.connected is not True and now - where.since >= quiet_seconds)
    return sorted(found.values(), key=lambda w: (STAGES.index(w.stage), w.since))


def summary(people: list[Where]) -> dict[str, int]:
    """How many people are at each stage, how many wait, and how many dropped out."""
    counts = {stage: sum(1 for w in people if w.stage == stage) for stage in STAGES}
    counts["waiting"] = sum(1 for w in people if w.stage == "lobby" and w.connected)
    counts["dropouts"] = sum(1 for w in people if w.dropout)
    return counts


def as_json(people: list[Where], now: float) -> list[dict[str, Any]]:
    """The rows as the monitor page takes them (`seconds`: how long at this stage)."""
    return [{**asdict(w), "seconds": max(0, round(now - w.since))} for w in people]

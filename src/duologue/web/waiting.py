"""Waiting-room pay: the time a person's lobby socket was open and they were not yet paired.

Loading the lobby page proves nothing; an open lobby socket is a person the matchmaker could pair
at any moment. So each open lobby socket of a study that pays for waiting (`pay.waiting_leave_after`)
is noted in the person's protocol progress (the database, shared by every worker) when it opens,
every `HEARTBEAT_SECONDS` and when it closes; the time since the last note counts while any of the
person's sockets is open (`added`), so two tabs at once, on any workers, count once. A socket whose
worker died stops counting after `FRESH_SECONDS` without a beat.

Only a person never seated in one of the study's dialogues may leave with a code for waiting, and
it pays at most `pay.waiting_max_seconds`: a person who was paired is paid for their dialogue.
"""

from __future__ import annotations

import logging
import secrets
import time
from typing import Any, Iterable

from duologue.web.protocol import progress_of

log = logging.getLogger(__name__)

HEARTBEAT_SECONDS = 15.0
"""An open lobby socket stores its time this often."""
FRESH_SECONDS = 3 * HEARTBEAT_SECONDS
"""A socket whose time was last stored longer ago than this is gone (its worker died): it counts no more."""
KEY = "lobby"
"""Where the waiting time lives in a person's progress: {"waited": s, "mark": t, "open": {socket: t}}."""


def added(data: dict[str, Any], socket: str, now: float, *, closing: bool = False) -> dict[str, Any]:
    """`data` after a lobby socket opened, beat or closed (`closing`) at `now`.

    Every opening, beat and close passes here and moves `mark` to its moment, so between `mark` and
    `now` the same sockets were open: those in `open`. When there were any, that stretch is waiting
    time, counted once however many tabs were open (the union of their intervals)."""
    record = dict(data.get(KEY) or {})
    mark = float(record.get("mark", now))
    sockets = {key: float(at) for key, at in (record.get("open") or {}).items() if now - float(at) < FRESH_SECONDS}
    waited = float(record.get("waited", 0.0)) + (max(0.0, now - mark) if sockets else 0.0)
    if closing:
        sockets.pop(socket, None)
    else:
        sockets[socket] = now
    data[KEY] = {"waited": round(waited, 3), "mark": max(mark, now), "open": sockets}
    return data


def waited(data: dict[str, Any], now: float) -> float:
    """Seconds a person's lobby socket was open and unpaired, up to `now` (a socket open now counts
    to this moment, so the code asked for as the page leaves is not short of the last heartbeat)."""
    record = data.get(KEY) or {}
    total = float(record.get("waited", 0.0))
    if any(now - float(at) < FRESH_SECONDS for at in (record.get("open") or {}).values()):
        total += max(0.0, now - float(record.get("mark", now)))
    return total


class LobbyClock:
    """Stores the time of one open lobby socket (see the module docstring): `tick` when it opens and
    every heartbeat, `stop` when it closes. Does nothing for a study that does not pay for waiting."""

    def __init__(self, state: Any, study: Any, participant: str) -> None:
        self.state, self.study, self.participant = state, study, participant
        self.on = study.pay is not None and study.pay.waiting_leave_after is not None
        self.socket = secrets.token_hex(6)
        self.beat_at = time.monotonic()

    def until_beat(self) -> float:
        """Seconds until the next heartbeat is due (0: now)."""
        return max(0.0, self.beat_at - time.monotonic())

    async def tick(self, *, closing: bool = False) -> None:
        self.beat_at = time.monotonic() + HEARTBEAT_SECONDS
        if not self.on:
            return
        store = progress_of(self.state)
        now = time.time()
        try:
            await self.state.storage.run(store.amend, self.study.id, self.participant, lambda data: added(data, self.socket, now, closing=closing))
        except Exception as error:  # noqa: BLE001  the database away for a moment: the next beat counts the time since
            log.warning("waiting time of %s in %s not stored: %s", self.participant, self.study.id, error)

    async def stop(self) -> None:
        await self.tick(closing=True)
        self.on = False


def leaving_problem(pay: Any, data: dict[str, Any], seated: bool, now: float) -> str | None:
    """Why this person may not (yet) leave the waiting room with a code, or None."""
    if seated:
        return "you were given a partner in this study: your code comes after your dialogue's questionnaire"
    left = waited(data, now)
    if left < pay.waiting_leave_after:
        return f"please wait {pay.waiting_leave_after - left:.0f} more seconds for a partner, with the waiting room open"
    return None


def waiting_claims(rows: Iterable[tuple[str, float, dict[str, Any]]], seated: set[str]) -> list[tuple[str, float]]:
    """(participant, seconds) of those who left the waiting room with a code and were never
    seated in one of the study's dialogues (`rows`: the study's progress, `Progress.all`)."""
    return [(participant, float(data["left_waiting"])) for participant, _, data in rows if "left_waiting" in data and participant not in seated]

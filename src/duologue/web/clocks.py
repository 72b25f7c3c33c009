"""The clocks of a live dialogue: the study's time limit, the idle timeout, and the reconnect
window of a person who lost their connection (the study's `partner_grace_seconds`).

The first to run out ends the dialogue, except a person's reconnect window in a dialogue between
two people: the person gone past it has left, and the study's `on_partner_leave` says what
happens to the one left behind (`PARTNER_LEFT`: the dialogue ends; `bot`: a bot takes the seat).
"""

from __future__ import annotations

import time

from duologue.core.schema import SystemNote
from duologue.web.presence import LiveParts

PARTNER_LEFT = "partner_left"
"""The end reason of a dialogue between two people that one of them left (`on_partner_leave: end`)."""
HANDOVER = "handover"
"""The system note of a seat handed to a bot (`on_partner_leave: bot`; `duologue.core.schema.CONTINUING_NOTES`)."""


class Clocks(LiveParts):
    """Deadlines of a live dialogue (a part of `LiveDialogue`)."""

    def grace_seconds(self) -> float:
        grace = self.study.partner_grace_seconds
        return grace if grace is not None else self.hub.settings.reconnect_seconds

    def _deadlines(self) -> list[tuple[float, str, str | None]]:
        """(when, why, whose) for every clock running now."""
        deadlines: list[tuple[float, str, str | None]] = [(self.last_move + self.idle_seconds, "idle", None)]
        if self.task.time_limit is not None:
            deadlines.append((self.started + self.task.time_limit, "timeout", None))
        for party, occupant in self.occupants.items():
            if occupant.seat.kind == "human" and occupant.away_since is not None:
                deadlines.append((occupant.away_since + self.grace_seconds(), "disconnect", party))
        return deadlines

    def _seconds_to_next_deadline(self) -> float:
        return max(0.05, min(t for t, _, _ in self._deadlines()) - time.time())

    def _a_clock_ran_out(self) -> bool:
        """Whether any deadline has passed, by what this worker knows (a stale view only errs early,
        and `_check_clocks` looks again under the lock with the engine up to date)."""
        now = time.time()
        return any(now >= deadline for deadline, _, _ in self._deadlines())

    def _left_behind(self, party: str) -> bool:
        """Whether `party`'s partner is a person still here (connected, or within their own window)."""
        other = self.occupants[self.task.other(party)]
        return other.seat.kind == "human" and other.away_since is None

    async def _check_clocks(self) -> bool:
        """End the dialogue, or hand a departed person's seat to a bot, when a clock ran out; True when something changed."""
        now = time.time()
        for deadline, reason, party in sorted(self._deadlines(), key=lambda d: d[0]):
            if now < deadline or self.task.done:
                continue
            if party is not None and self._left_behind(party):
                if self.study.on_partner_leave == "bot":
                    self.hand_to_bot(party)
                else:
                    self.task.end(PARTNER_LEFT)
                    note = self.task.events[-1]
                    assert isinstance(note, SystemNote)
                    note.data = {"party": party}  # who left: the other is paid for their time
            else:
                self.task.end(reason)
            await self.commit()
            return True
        return False

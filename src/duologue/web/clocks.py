"""The clocks of a live dialogue: the study's time limit, the idle timeout, and the reconnect
window of a person who lost their connection. The first to run out ends the dialogue."""

from __future__ import annotations

import time

from duologue.web.presence import LiveParts


class Clocks(LiveParts):
    """Deadlines of a live dialogue (a part of `LiveDialogue`)."""

    def _deadlines(self) -> list[tuple[float, str]]:
        deadlines = [(self.last_move + self.idle_seconds, "idle")]
        if self.task.time_limit is not None:
            deadlines.append((self.started + self.task.time_limit, "timeout"))
        for occupant in self.occupants.values():
            if occupant.seat.kind == "human" and occupant.away_since is not None:
                deadlines.append((occupant.away_since + self.hub.settings.reconnect_seconds, "disconnect"))
        return deadlines

    def _seconds_to_next_deadline(self) -> float:
        return max(0.05, min(t for t, _ in self._deadlines()) - time.time())

    def _a_clock_ran_out(self) -> bool:
        """Whether any deadline has passed, by what this worker knows (a stale view only errs early,
        and `_check_clocks` looks again under the lock with the engine up to date)."""
        now = time.time()
        return any(now >= deadline for deadline, _ in self._deadlines())

    async def _check_clocks(self) -> bool:
        """End the dialogue when a clock ran out; True when it did."""
        now = time.time()
        for deadline, reason in sorted(self._deadlines()):
            if now >= deadline and not self.task.done:
                self.task.end(reason)
                await self.commit()
                return True
        return False


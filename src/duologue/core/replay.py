"""Stored events are the truth: replaying them through a fresh engine rebuilds a dialogue.

A dialogue is rebuilt with the stored scenario, seed and first mover, then stepped through its
stored events at the times they were made (`ReplayClock`), so views and the final record are
identical whichever process built them. Each stored event becomes the move that made it through
the move's own mapping (`Action.from_event`). The platform uses it to undo a move whose events
could not be stored, to keep several workers' replicas in step and to take over the dialogues of
a worker that died; the conformance checker (`duologue.testing`) replays every task's transcripts
with it, so a task whose stored events do not replay is found before it is served.
"""

from __future__ import annotations

import time

from duologue.core import actions
from duologue.core.schema import CONTINUING_NOTES, Event, SystemNote
from duologue.core.task import IllegalAction, Task


class ReplayMismatch(RuntimeError):
    """Stored events that the engine does not reproduce (a changed task version, a damaged record,
    a task whose events do not map back to its moves, or its code failing on them)."""


class ReplayClock:
    """The wall clock, except while stored events are replayed: then the time each one was made."""

    def __init__(self) -> None:
        self.fixed: float | None = None

    def __call__(self) -> float:
        return self.fixed if self.fixed is not None else time.time()


def action_of(event: Event) -> actions.Action:
    """The move that produced a stored event, for the built-in kinds and every kind a task
    registered (`actions.register_move`); `ReplayMismatch` when no move makes it or it does not
    map back to one."""
    try:
        move = actions.action_of_event(event)
    except ValueError as error:  # pydantic's ValidationError is one
        raise ReplayMismatch(f"a stored {event.kind} event does not map back to its move: {error}") from None
    if move is None:
        raise ReplayMismatch(f"no move makes a {event.kind} event")
    return move


def _step(task: Task, event: Event, number: int) -> None:
    """Apply one stored event to `task`; any failure of the task's code is a `ReplayMismatch`."""
    try:
        if isinstance(event, SystemNote):
            if task.done:
                raise ReplayMismatch(f"event {number} ({event.name}) comes after the end")
            if event.name in CONTINUING_NOTES:
                task.events.append(event.model_copy(deep=True))  # recorded, and the dialogue goes on
            else:
                task.end(event.name or "ended")
        else:
            task.step(action_of(event), event.party)
    except IllegalAction as error:
        raise ReplayMismatch(f"stored event {number} is not legal on replay: {error.reason}") from None
    except ReplayMismatch:
        raise
    except Exception as error:  # noqa: BLE001  the task's own code failed on a stored move
        raise ReplayMismatch(f"replaying stored event {number} ({event.kind}) failed in the task: {type(error).__name__}: {error}") from error


def replay(task: Task, clock: ReplayClock, events: list[Event]) -> None:
    """Step `task` through the stored `events` it has not seen yet, at their recorded times.

    Afterwards `task.events` are the stored events themselves (same times), so views and the final
    record are identical whichever process built them. Raises `ReplayMismatch` when they do not
    replay; the engine is then half-way and must be thrown away.
    """
    done = len(task.events)
    while done < len(events):
        event = events[done]
        clock.fixed = event.time
        try:
            _step(task, event, done)
        finally:
            clock.fixed = None
        made = len(task.events)
        if made > len(events) or made == done or any(task.events[i].kind != events[i].kind for i in range(done, made)):
            raise ReplayMismatch(f"replaying event {done} gave different events than stored")
        task.events[done:made] = [e.model_copy(deep=True) for e in events[done:made]]
        done = made

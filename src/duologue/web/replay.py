"""Stored events are the truth: replaying them through a fresh engine rebuilds a live dialogue.

A dialogue is rebuilt with the stored scenario, seed and first mover, then stepped through its
stored events at the times they were made (`ReplayClock`), so views and the final record are
identical whichever worker built them. Used to undo a move whose events could not be stored, to
keep several workers' replicas in step, and to take over the dialogues of a worker that died.
"""

from __future__ import annotations

import time

from duologue.core import actions
from duologue.core.schema import Event, SystemNote
from duologue.core.task import IllegalAction, Task


class ReplayMismatch(RuntimeError):
    """Stored events that the engine does not reproduce (a changed task version, a damaged record)."""


class ReplayClock:
    """The wall clock, except while stored events are replayed: then the time each one was made."""

    def __init__(self) -> None:
        self.fixed: float | None = None

    def __call__(self) -> float:
        return self.fixed if self.fixed is not None else time.time()


def action_of(event: Event) -> actions.Action:
    """The move that produced a stored event (the inverse of `Action.to_event`), for the built-in
    kinds and every kind a task registered (`actions.register_move`), whenever it registered."""
    kind = actions.KIND_OF_EVENT[event.kind]
    return actions.BY_KIND[kind](**event.model_dump(exclude={"kind", "party", "time", "extra"}))


def replay(task: Task, clock: ReplayClock, events: list[Event]) -> None:
    """Step `task` through the stored `events` it has not seen yet, at their recorded times.

    Afterwards `task.events` are the stored events themselves (same times), so views and the final
    record are identical whichever worker built them.
    """
    done = len(task.events)
    while done < len(events):
        event = events[done]
        clock.fixed = event.time
        try:
            if isinstance(event, SystemNote):
                if task.done:
                    raise ReplayMismatch(f"event {done} ({event.name}) comes after the end")
                task.end(event.name or "ended")
            else:
                task.step(action_of(event), event.party)
        except IllegalAction as error:
            raise ReplayMismatch(f"stored event {done} is not legal on replay: {error.reason}") from None
        finally:
            clock.fixed = None
        made = len(task.events)
        if made > len(events) or any(task.events[i].kind != events[i].kind for i in range(done, made)):
            raise ReplayMismatch(f"replaying event {done} gave different events than stored")
        task.events[done:made] = [e.model_copy(deep=True) for e in events[done:made]]
        done = made

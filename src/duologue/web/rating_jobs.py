"""Third-party rating jobs: which finished dialogue a rater gets next.

Each finished dialogue needs `k` ratings from raters who did not take part in it (DUO used 3).
Raters arrive one at a time and ask for a job; `RatingJobs.assign` picks one so that:

* load is balanced: the dialogue with the fewest ratings done + in progress goes first, the
  oldest (earliest finished) first among equals;
* a rater never gets a dialogue they took part in, nor one they already rated, are rating, or
  were given before (a job that expired or was declined is not offered to them again);
* a job left unfinished for `timeout` seconds expires and its slot goes back to the pool;
* a dialogue gets no more jobs once `k` are done or in progress (done + in progress never
  exceeds `k`), so no rater's work is wasted;
* a rater with a job in progress gets that same job back (a reloaded page resumes it).

The state is two lists of plain records, `RatableDialogue` and `Assignment` (pydantic models whose
fields map one to one onto SQL columns). How to persist it: keep the records in two tables and
build a `RatingJobs` from the rows whenever a rater asks (`RatingJobs(k, timeout, dialogues=rows,
assignments=rows)`); every call that changes something returns the one `Assignment` it created or
changed, to be upserted by its key (`dialogue_id`, `rater_id`), which is unique because a rater never
gets a dialogue twice. Expiry is not stored: a job is expired when it is still `assigned` and
`now >= assigned_at + timeout`, so nothing has to run on a timer. `state()` / `from_state()` give
the whole thing as JSON-ready data for those who prefer one blob.

Time is always passed in (`now`, seconds) so the logic is pure and testable.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Literal

from pydantic import Field

from duologue.core.schema import Model

AssignmentStatus = Literal["assigned", "done", "declined"]
DEFAULT_RATINGS_PER_DIALOGUE = 3
DEFAULT_TIMEOUT_SECONDS = 30 * 60.0


class RatingJobError(ValueError):
    """A rating-job request that cannot be honoured; the message says why."""


class UnknownJob(RatingJobError):
    """No such dialogue, or the rater was never given this dialogue."""


class JobClosed(RatingJobError):
    """The job is already done, was declined, or expired and its slot went to someone else."""


class RatableDialogue(Model):
    """A finished dialogue waiting for third-party ratings."""

    dialogue_id: str
    participants: list[str] = Field(default_factory=list)
    """Participant ids of the people in it: none of them may rate it."""
    finished_at: float
    """When the dialogue ended: older dialogues go first among equally rated ones."""


class Assignment(Model):
    """One rater's job on one dialogue. `(dialogue_id, rater_id)` is unique."""

    dialogue_id: str
    rater_id: str
    assigned_at: float
    status: AssignmentStatus = "assigned"
    done_at: float | None = None
    """When it was completed or declined."""

    def expired(self, now: float, timeout: float) -> bool:
        """Still open but left too long: its slot is free again."""
        return self.status == "assigned" and now >= self.assigned_at + timeout

    def active(self, now: float, timeout: float) -> bool:
        """In progress: assigned and not expired."""
        return self.status == "assigned" and now < self.assigned_at + timeout


@dataclass(frozen=True)
class DialogueProgress:
    """How far one dialogue is: ratings done and jobs in progress, out of `needed`."""

    dialogue_id: str
    done: int
    in_progress: int
    needed: int

    @property
    def complete(self) -> bool:
        return self.done >= self.needed


class RatingJobs:
    """The rating-job pool of one study (see the module docstring for the rules)."""

    def __init__(
        self,
        ratings_per_dialogue: int = DEFAULT_RATINGS_PER_DIALOGUE,
        timeout: float = DEFAULT_TIMEOUT_SECONDS,
        *,
        dialogues: Iterable[RatableDialogue | dict[str, Any]] = (),
        assignments: Iterable[Assignment | dict[str, Any]] = (),
    ) -> None:
        if ratings_per_dialogue < 0:
            raise ValueError(f"ratings_per_dialogue must be 0 or more, got {ratings_per_dialogue}")
        if timeout <= 0:
            raise ValueError(f"timeout must be positive, got {timeout}")
        self.ratings_per_dialogue = ratings_per_dialogue
        self.timeout = float(timeout)
        self._dialogues: dict[str, RatableDialogue] = {}
        self._order: dict[str, int] = {}
        self._assignments: dict[tuple[str, str], Assignment] = {}
        self._by_dialogue: dict[str, list[Assignment]] = {}
        self._by_rater: dict[str, dict[str, Assignment]] = {}
        for dialogue in dialogues:
            record = RatableDialogue.model_validate(dialogue)
            self.add_dialogue(record.dialogue_id, record.participants, record.finished_at)
        for assignment in assignments:
            given = Assignment.model_validate(assignment)
            if given.dialogue_id not in self._dialogues:
                raise UnknownJob(f"assignment of rater {given.rater_id!r} names unknown dialogue {given.dialogue_id!r}")
            if (given.dialogue_id, given.rater_id) in self._assignments:
                raise RatingJobError(f"rater {given.rater_id!r} has two assignments for dialogue {given.dialogue_id!r}")
            self._store(given)

    # ------------------------------------------------------------------ dialogues

    def add_dialogue(self, dialogue_id: str, participants: Iterable[str | None], finished_at: float) -> RatableDialogue:
        """Put a finished dialogue in the pool (again with the same facts: no change)."""
        people = sorted({p for p in participants if p})
        record = RatableDialogue(dialogue_id=dialogue_id, participants=people, finished_at=finished_at)
        existing = self._dialogues.get(dialogue_id)
        if existing is not None:
            if existing != record:
                raise RatingJobError(f"dialogue {dialogue_id!r} is already in the pool with other facts ({existing.model_dump()})")
            return existing
        self._dialogues[dialogue_id] = record
        self._order[dialogue_id] = len(self._order)
        self._by_dialogue[dialogue_id] = []
        return record

    @property
    def dialogues(self) -> list[RatableDialogue]:
        return list(self._dialogues.values())

    @property
    def assignments(self) -> list[Assignment]:
        return list(self._assignments.values())

    # ------------------------------------------------------------------ jobs

    def current(self, rater_id: str, now: float) -> Assignment | None:
        """The rater's job in progress, if any."""
        for assignment in self._by_rater.get(rater_id, {}).values():
            if assignment.active(now, self.timeout):
                return assignment
        return None

    def assign(self, rater_id: str, now: float, *, also: Iterable[str] = ()) -> Assignment | None:
        """The rater's next job: their job in progress, else a new one, else None (nothing for them now).

        `also`: other ids the rater is known to be (the ids their browser proved it holds): no
        dialogue any of them took part in is given to them either."""
        if not rater_id:
            raise RatingJobError("a rater needs an id")
        ongoing = self.current(rater_id, now)
        if ongoing is not None:
            return ongoing
        best: tuple[int, float, int] | None = None
        chosen: str | None = None
        seen = self._by_rater.get(rater_id, {})
        who = {rater_id, *also}
        for dialogue_id, dialogue in self._dialogues.items():
            if who.intersection(dialogue.participants) or dialogue_id in seen:
                continue
            load = self._load(dialogue_id, now)
            if load >= self.ratings_per_dialogue:
                continue
            key = (load, dialogue.finished_at, self._order[dialogue_id])
            if best is None or key < best:
                best, chosen = key, dialogue_id
        if chosen is None:
            return None
        assignment = Assignment(dialogue_id=chosen, rater_id=rater_id, assigned_at=now)
        self._store(assignment)
        return assignment

    def complete(self, dialogue_id: str, rater_id: str, now: float) -> Assignment:
        """Record that the rater finished this job; returns the changed assignment.

        A job handed in after it expired is still taken while the dialogue has a free slot (its
        `k` ratings are not all done or in progress); otherwise `JobClosed`.
        """
        assignment = self._get(dialogue_id, rater_id)
        if assignment.status != "assigned":
            raise JobClosed(f"rater {rater_id!r} already {'completed' if assignment.status == 'done' else 'declined'} dialogue {dialogue_id!r}")
        if assignment.expired(now, self.timeout) and self._load(dialogue_id, now) >= self.ratings_per_dialogue:
            raise JobClosed(f"the job on dialogue {dialogue_id!r} expired after {self.timeout:g} s and was given to other raters")
        assignment.status = "done"
        assignment.done_at = now
        return assignment

    def decline(self, dialogue_id: str, rater_id: str, now: float) -> Assignment:
        """The rater gives the job back: the slot is free at once, and they are not offered it again."""
        assignment = self._get(dialogue_id, rater_id)
        if assignment.status != "assigned":
            raise JobClosed(f"rater {rater_id!r} already {'completed' if assignment.status == 'done' else 'declined'} dialogue {dialogue_id!r}")
        assignment.status = "declined"
        assignment.done_at = now
        return assignment

    # ------------------------------------------------------------------ progress

    def progress(self, dialogue_id: str, now: float) -> DialogueProgress:
        if dialogue_id not in self._dialogues:
            raise UnknownJob(f"dialogue {dialogue_id!r} is not in the rating pool")
        jobs = self._by_dialogue[dialogue_id]
        done = sum(1 for a in jobs if a.status == "done")
        in_progress = sum(1 for a in jobs if a.active(now, self.timeout))
        return DialogueProgress(dialogue_id, done, in_progress, self.ratings_per_dialogue)

    def summary(self, now: float) -> dict[str, int]:
        """Counts for the admin page: dialogues in the pool, fully rated, ratings done, jobs in progress, expired."""
        jobs = self._assignments.values()
        return {
            "dialogues": len(self._dialogues),
            "fully_rated": sum(1 for d in self._dialogues if self.progress(d, now).complete),
            "ratings_done": sum(1 for a in jobs if a.status == "done"),
            "in_progress": sum(1 for a in jobs if a.active(now, self.timeout)),
            "expired": sum(1 for a in jobs if a.expired(now, self.timeout)),
            "declined": sum(1 for a in jobs if a.status == "declined"),
        }

    # ------------------------------------------------------------------ state

    def state(self) -> dict[str, Any]:
        """Everything, as JSON-ready data (`from_state` rebuilds an equal pool)."""
        return {
            "ratings_per_dialogue": self.ratings_per_dialogue,
            "timeout": self.timeout,
            "dialogues": [d.model_dump() for d in self._dialogues.values()],
            "assignments": [a.model_dump() for a in self._assignments.values()],
        }

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> "RatingJobs":
        return cls(
            state["ratings_per_dialogue"],
            state["timeout"],
            dialogues=state.get("dialogues", ()),
            assignments=state.get("assignments", ()),
        )

    # ------------------------------------------------------------------ internals

    def _load(self, dialogue_id: str, now: float) -> int:
        """Ratings done plus jobs in progress: what counts towards `k`."""
        return sum(1 for a in self._by_dialogue[dialogue_id] if a.status == "done" or a.active(now, self.timeout))

    def _get(self, dialogue_id: str, rater_id: str) -> Assignment:
        assignment = self._assignments.get((dialogue_id, rater_id))
        if assignment is None:
            raise UnknownJob(f"rater {rater_id!r} was never given dialogue {dialogue_id!r}")
        return assignment

    def _store(self, assignment: Assignment) -> None:
        self._assignments[(assignment.dialogue_id, assignment.rater_id)] = assignment
        self._by_dialogue[assignment.dialogue_id].append(assignment)
        self._by_rater.setdefault(assignment.rater_id, {})[assignment.dialogue_id] = assignment


__all__ = [
    "Assignment",
    "DialogueProgress",
    "JobClosed",
    "RatableDialogue",
    "RatingJobError",
    "RatingJobs",
    "UnknownJob",
]

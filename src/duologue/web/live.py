"""Running dialogues: one asyncio Task per dialogue, people over websockets, bots off the loop.

A `LiveDialogue` owns one task engine. People's moves arrive over a websocket (or the HTTP move
endpoint) and are applied at once under the dialogue's lock; its runner task makes the bots'
moves (`make_agent` agents, whose `act` runs in a worker thread so a slow model never blocks
other dialogues) and watches the clocks: the study's time limit, the idle timeout, and the
reconnect window of a person who lost their connection. Every event is stored as it happens.

Each party receives only `view(party)`, built from the engine's `observe(party)`: its own
private view and the shared transcript, never the other party's private view.

The stored events are the truth: a dialogue can always be rebuilt by replaying them through a
fresh engine with the stored scenario, seed and first mover (`duologue.web.replay`, `LiveHub.load`
in `duologue.web.hub`). That is how a move
whose events could not be stored is undone (the engine is rebuilt, nothing half-applied stays),
and, with several worker processes (`duologue.web.cluster`), how every worker keeps its replica
up to date and how a worker takes over the dialogues of one that died. A move may carry a
`move_id`; a move id seen before is acknowledged and not applied again (exactly once on retries).

A task's code is not trusted to be free of bugs (plug-ins are anyone's code): an error it raises
during a person's move refuses the move and rebuilds the engine from storage, so nobody is shown
an event that was not stored; a replica whose stored events will not replay refuses moves (503)
rather than judging them on a stale engine; a view that cannot be written as JSON closes the page
with a clean error instead of a reconnect loop.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import time
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any, AsyncIterator, Callable

from duologue.core import actions, moves
from duologue.core.schema import Dialogue, Event, Outcome
from duologue.core.task import IllegalAction, Task
from duologue.web.bots import Bots, make_bot
from duologue.web.cluster import ClusterUnavailable
from duologue.web.clocks import Clocks
from duologue.web.payments import partner_left, set_aside
from duologue.web.presence import Occupant, Presence
from duologue.web.deltas import UNSHOWABLE, encode, frame_text
from duologue.web.replay import ReplayClock, ReplayMismatch, replay
from duologue.web.storage import EventConflict, StorageUnavailable
from duologue.web.study import Study
from duologue.web.widgets import page_info, task_spec_of

if TYPE_CHECKING:
    from duologue.web.hub import LiveHub

log = logging.getLogger(__name__)

UNAVAILABLE = (StorageUnavailable, ClusterUnavailable)
"""Errors of the shared services: the move is refused with 503 and may be sent again."""

NOT_REBUILT = "this dialogue cannot be brought up to date here; your move was not made, please send it again"
"""Why a move is refused (503) on an engine that the stored events do not rebuild (`ReplayMismatch`)."""

TASK_FAILED = "this move could not be made: the task failed on it (the organisers can see why in the log); nothing changed"
"""Why a move is refused when the task's own code raised on it."""


class TaskFailed(RuntimeError):
    """The task's own code raised while a move was made (not a refusal by its rules)."""


class MoveRefused(ValueError):
    """A person's move that is not applied; `status` is the HTTP status that fits."""

    def __init__(self, reason: str, status: int = 409):
        super().__init__(reason)
        self.reason = reason
        self.status = status


SEND_SECONDS = 10.0
"""A page that takes no frame for this long (it stopped reading its socket) is closed: its
dialogue's frames go out in order, one broadcast at a time, and would wait for it."""

INTERRUPTED = "interrupted"
"""The end reason of a dialogue the platform cut off (a restart, a shutdown), not the parties."""


def interrupted_outcome() -> Outcome:
    """The outcome of a dialogue the platform cut off: no deal and no scores, whatever the task's
    judge would say of a dialogue that simply stopped (no agreement, walk-away points)."""
    return Outcome(reason=INTERRUPTED, agreed=None)


def safe_outcome(dialogue: Dialogue, party: str) -> dict[str, Any] | None:
    """The outcome as one party may see it: how it ended, the deal, and only its own score."""
    if dialogue.outcome is None:
        return None
    outcome = dialogue.outcome
    return {"reason": outcome.reason, "agreed": outcome.agreed, "deal": outcome.deal, "score": outcome.scores.get(party)}


class LiveDialogue(Presence, Bots, Clocks):
    """One dialogue being played now (in multi-process mode: this worker's replica of it).

    Its connections (`Presence`), bots (`Bots`) and clocks (`Clocks`) each live in their own module.
    """

    def __init__(
        self,
        hub: "LiveHub",
        study: Study,
        task: Task,
        dialogue_id: str,
        occupants: dict[str, Occupant],
        pairing: str,
        scenario_key: str,
        *,
        clock: ReplayClock | None = None,
        started: float | None = None,
        stored: int = 0,
    ) -> None:
        self.hub = hub
        self.study = study
        self.task = task
        self.clock = clock or ReplayClock()
        self.id = dialogue_id
        self.occupants = occupants
        self.pairing = pairing
        self.scenario_key = scenario_key
        self.lock = asyncio.Lock()
        self.sending = asyncio.Lock()
        """Held while views are built and sent (`broadcast`, `resend`), so they go out in order."""
        self.wakeup = asyncio.Event()
        self.stored = stored
        self.announced = stored
        """Events up to this number were announced to the other workers."""
        self.started = started if started is not None else time.time()
        self.last_move = task.events[-1].time if task.events and task.events[-1].time else self.started
        self.final: Dialogue | None = None
        self.runner: asyncio.Task[Any] | None = None
        self.dirty = False
        """The engine is ahead of the database (a store failed): rebuild it before anything else."""
        self._dumped: dict[str, list[tuple[Event, dict[str, Any]]]] = {}
        """Per party: the transcript's events with their JSON as last shown (`_events_json`)."""
        self.schemas: dict[str, tuple[tuple[Any, ...], dict[str, Any]]] = {}
        """Per party: the action schema of the engine's current state (`schema`)."""
        settings = hub.settings
        self.idle_seconds = study.idle_seconds if study.idle_seconds is not None else settings.idle_seconds
        now = time.time()
        for occupant in occupants.values():
            if occupant.seat.kind == "human":
                occupant.away_since = now

    # ------------------------------------------------------------------ what a party sees

    def view(self, party: str) -> dict[str, Any]:
        """Everything the page of `party` shows, from the engine's view of that party only."""
        observation = self.task.observe(party)
        done = self.task.done
        dialogue = self.final
        seat = self.occupants[party].seat
        return {
            "type": "state",
            "dialogue": self.id,
            "task": self.task.id,
            "family": self.task.family,
            "party": party,
            "role": observation.role,
            "public": observation.public,
            "private": observation.private,
            "items": self.task.items(observation),
            "events": self._events_json(party, observation.transcript),
            "legal": observation.legal,
            "schema": self.schema(party) if not done else moves.action_schema([]),
            **page_info(task_spec_of(self.task)),
            "turn": observation.turn,
            "turns_left": observation.turns_left,
            "seconds_left": observation.seconds_left if not done else None,
            "done": done,
            "feedback": observation.feedback,
            "partner_connected": self._partner_connected(party),
            "partner_left": partner_left(self.task, party),
            "outcome": safe_outcome(dialogue, party) if dialogue is not None else None,
            "end_reason": self.task.end_reason,
            "questionnaire_url": f"/questionnaire/{seat.token}" if done else None,
            "max_message_chars": self.hub.settings.max_message_chars,
        }

    def _events_json(self, party: str, transcript: list[Event]) -> list[dict[str, Any]]:
        """The transcript as the page gets it, each event turned into JSON once: a view is built per
        frame, and dumping the whole transcript each time made a dialogue's cost grow with the square
        of its length. An event is reused only while the engine shows the very same object at that
        place (a task may show an event differently later, e.g. a choice hidden until the end)."""
        cache = self._dumped.setdefault(party, [])
        del cache[len(transcript) :]
        out = []
        for index, event in enumerate(transcript):
            if index < len(cache) and cache[index][0] is event:
                out.append(cache[index][1])
                continue
            dumped = {**event.model_dump(mode="json"), "own": event.party == party}
            if index < len(cache):
                cache[index] = (event, dumped)
            else:
                cache.append((event, dumped))
            out.append(dumped)
        return out

    def schema(self, party: str) -> dict[str, Any]:
        """`Task.action_schema(party)`, computed once per state: every frame and move check of the
        same state shares it (a split enumerates its combinations; a view is built per frame)."""
        key = (id(self.task), len(self.task.events), self.task.done)
        cached = self.schemas.get(party)
        if cached is None or cached[0] != key:
            cached = (key, self.task.action_schema(party))
            self.schemas[party] = cached
        return cached[1]

    async def send(self, party: str, message: dict[str, Any]) -> None:
        """To this worker's connections of `party`."""
        await self._deliver(self.occupants[party], lambda _connection: message)

    async def _deliver(self, occupant: Occupant, frame_for: Callable[[Any], dict[str, Any] | None]) -> None:
        """Each of `occupant`'s connections here gets its own frame (none when it has nothing new);
        a socket that fails is dropped."""
        for connection in list(occupant.connections):
            frame = frame_for(connection)
            if frame is None:
                continue
            text = frame_text(frame) if frame is not UNSHOWABLE else None  # None: the page cannot be shown this state
            try:
                async with asyncio.timeout(SEND_SECONDS):
                    await connection.send_text(text if text is not None else encode(UNSHOWABLE))
                if text is None:
                    await self.refuse_to_show(occupant, connection)
            except Exception:  # noqa: BLE001  a socket closing while we write (its handler cleans up), or one that stopped reading
                occupant.connections.pop(connection, None)
                occupant.frames.forget(connection)
                close = getattr(connection, "close", None)
                if close is not None:  # a page that stopped reading reconnects, and gets the whole state
                    self.hub.in_background(close(code=1013))

    async def send_everywhere(self, party: str, message: dict[str, Any]) -> None:
        """To every connection of `party`, on this worker and (multi-process) on the others. A
        `typing` frame, which only decorates the page, goes to the others only when `party` may
        have a connection there (one a move each: most of the notices between workers)."""
        await self.send(party, message)
        occupant = self.occupants[party]
        if message.get("type") != "typing" or occupant.elsewhere or not occupant.connections:
            await self.hub.relay(self.id, party, message)

    def safe_view(self, party: str) -> dict[str, Any] | None:
        """`view(party)`, or None (logged) when the task's code fails to build it."""
        try:
            return self.view(party)
        except Exception:  # noqa: BLE001  a task's bug must not take the dialogue's other pages down
            log.exception("the view of %s in %s failed", party, self.id)
            return None

    async def safe_view_now(self, party: str) -> dict[str, Any] | None:
        """`view_now(party)`, or None (logged) when the task's code fails to build it."""
        async with self.lock:
            return self.safe_view(party)

    async def view_now(self, party: str) -> dict[str, Any]:
        """`view(party)` of a stored state: taken under the lock, so never of a move whose events
        are still being stored (and could yet be undone)."""
        async with self.lock:
            return self.view(party)

    async def broadcast(self) -> None:
        """The new view to every connection here: the whole view, or what changed for those taking deltas.

        One broadcast (or resend) at a time, each sending the state of its own moment: two that
        overlapped could deliver an older view after a newer one, and a page shown a turn it
        already took would move again."""
        async with self.sending:
            async with self.lock:  # the views of one stored state (see `view_now`)
                views = {o.seat.party: self.safe_view(o.seat.party) for o in self.occupants.values() if o.seat.kind == "human" and o.connections}
            for party, view in views.items():
                occupant = self.occupants[party]
                await self._deliver(occupant, functools.partial(occupant.frames.frame, view=view) if view is not None else lambda _connection: UNSHOWABLE)

    async def changed(self) -> None:
        """After a change: new views here, and a word to the other workers to show theirs.

        The word carries the stored events since the last one, so a worker that was up to date
        applies them without asking the database (it asks whenever it was not).
        """
        await self.broadcast()
        first, self.announced = self.announced, self.stored
        await self.hub.announce(self.id, first, self.task.events[first : self.stored])

    # ------------------------------------------------------------------ keeping the engine true to storage

    @asynccontextmanager
    async def changing(self) -> AsyncIterator[None]:
        """The right to change this dialogue in this process, with the engine rebuilt if a store failed.

        Across workers nothing is locked: each keeps its replica up to date from the others'
        notices, and storage's unique event numbers refuse the second of two writers of the same
        number (`EventConflict`), whose engine is then rebuilt from storage and its change tried
        again (a person's move at once, a bot's or a clock's on the runner's next turn).
        """
        async with self.lock:
            await self.sync()
            yield

    async def refresh(self) -> None:
        """Up to date for reading (a page load, a socket opened): with several workers, what the
        others stored since this replica last heard of it is read from storage."""
        async with self.lock:
            await self.sync(catch_up=True)
        await self.refresh_presence()

    async def sync(self, known: tuple[int, list[Event]] | None = None, *, catch_up: bool = False) -> None:
        """Rebuild the engine after a failed store; with several workers, replay their new events too.

        `known`: (first number, events) another worker announced as stored; used instead of a
        database read when they reach at least where this engine is (a worker announces all it
        stored since its last notice, which may include events it heard from others); a notice
        that starts past this engine's last event means one was lost: storage is read. `catch_up`: read storage for events this replica
        has not heard of.
        """
        storage = self.hub.storage
        if self.dirty:
            task, clock, events = await storage.run(self.hub.load_engine, self.id, self.study)
            self.task, self.clock, self.stored, self.dirty = task, clock, len(events), False
            for occupant in self.occupants.values():
                if occupant.seat.kind == "bot":
                    occupant.agent = make_bot(occupant.seat, task, task.seed)
        elif self.hub.cluster is not None and (known is not None or catch_up):
            if known is not None and known[0] <= self.stored <= known[0] + len(known[1]):
                new = known[1][self.stored - known[0] :]  # a notice may repeat events this engine has
            elif known is not None and known[0] + len(known[1]) <= self.stored:
                new = []  # nothing this engine lacks (a later change, if any, is announced too)
            else:
                new = await storage.run(storage.events, self.id, since=self.stored)
            if new:
                try:
                    replay(self.task, self.clock, [*self.task.events[: self.stored], *new])
                except ReplayMismatch:
                    self.dirty = True
                    raise
                self.stored = len(self.task.events)
                self.last_move = max(self.last_move, new[-1].time or 0.0)
                self.take_handovers(new)
        if self.task.done and self.final is None:
            self.final = self._final_record()
            self.hub.finished(self)

    async def commit(self, move_id: str | None = None) -> None:
        """Store the engine's new events (one transaction, in the storage's thread); on failure, or
        when cancelled not knowing whether they were stored, the engine is rebuilt before it is used."""
        new = self.task.events[self.stored :]
        if new:
            storage = self.hub.storage
            try:
                await storage.run(storage.add_events, self.id, self.stored, list(new), move_id)
            except BaseException:
                self.dirty = True
                raise
            self.stored += len(new)
        if self.task.done:
            await self._finish_now()

    # ------------------------------------------------------------------ people

    def check_say(self, action: actions.Action) -> None:
        if isinstance(action, actions.Say) and len(action.text) > self.hub.settings.max_message_chars:
            raise MoveRefused(f"a message can have at most {self.hub.settings.max_message_chars} characters (this one has {len(action.text)})", status=413)

    def check_schema(self, party: str, action: actions.Action, sent: Any) -> None:
        """Refuse (422, with the field and why) a move of a kind allowed now whose fields break the
        task's action schema (`Task.action_schema`: bounds, a split that must add up, a row of the
        party's own list). A kind not allowed now is left to the engine (409, its own reason)."""
        schema = self.schema(party)
        if moves.option(schema, action.kind) is None:
            return
        problem = moves.validate(schema, sent)
        if problem is not None:
            raise MoveRefused(f"not a valid move: {problem}", status=422)

    async def move(self, party: str, action: actions.Action, move_id: str | None = None, sent: Any = None) -> bool:
        """Apply a person's move now; raises `MoveRefused` (nothing changes) when not allowed.

        `sent`: the move as the person sent it (JSON), checked against the action schema.
        Returns False when `move_id` was applied before (a retry): acknowledged, not applied again.
        """
        if self.occupants[party].seat.kind != "human":
            raise MoveRefused("this seat is played by a bot", status=403)
        self.check_say(action)
        # Optimistic about retries, which are rare: the move is stepped and stored with its id, and
        # storage's unique (dialogue, move id) turns a repeat into a conflict; only then (or when the
        # repeat is no longer legal) is the id looked up. A conflict over event numbers means this
        # engine was behind (another worker, or a notice lost in a crash): rebuilt, it tries once more.
        try:
            async with self.changing():
                for attempt in range(2):
                    try:
                        self._step(party, action, sent)
                    except IllegalAction as error:
                        if move_id is not None and await self._move_seen(move_id):
                            return False
                        raise MoveRefused(error.reason, status=409) from None
                    except TaskFailed:
                        await self.sync()  # rebuilt from storage now: nothing half-applied is ever shown
                        raise MoveRefused(TASK_FAILED, status=500) from None
                    self.last_move = time.time()
                    try:
                        await self.commit(move_id)
                        break
                    except EventConflict:
                        await self.sync()  # `commit` marked the engine dirty: rebuild it from storage
                        if move_id is not None and await self._move_seen(move_id):
                            return False
                        if attempt == 1:
                            raise MoveRefused("the other party moved at the same moment; look again and retry", status=409) from None
        except UNAVAILABLE as error:
            log.warning("move in %s refused: %s", self.id, error)
            raise MoveRefused("the platform is briefly unavailable; your move was not made, please send it again", status=503) from None
        except ReplayMismatch as error:  # never judged on an engine the stored events do not rebuild
            log.error("move in %s refused: the stored events do not replay: %s", self.id, error)
            raise MoveRefused(NOT_REBUILT, status=503) from None
        await self.changed()
        self.wakeup.set()
        return True

    def _step(self, party: str, action: actions.Action, sent: Any) -> None:
        """Check and make a person's move on the engine. The task's rules refuse it with
        `IllegalAction` (or `MoveRefused` for its schema); any other error of the task's code marks
        the engine dirty (it may hold half-applied events) and is a `TaskFailed`."""
        try:
            if sent is not None:
                self.check_schema(party, action, sent)
            self.task.step(action, party)
        except (IllegalAction, MoveRefused):
            raise
        except Exception as error:  # noqa: BLE001  a plug-in's bug: contained, logged, and the move refused
            log.exception("the task of %s failed on a move by %s", self.id, party)
            self.dirty = True
            raise TaskFailed(str(error)) from error

    # ------------------------------------------------------------------ the runner

    async def run(self) -> None:
        """Bots' moves and clocks until the dialogue is over; then store the final dialogue."""
        try:
            while True:
                try:
                    if self.task.done:
                        async with self.changing():
                            await self._finish_now()
                        break
                    await self._bot_turns()
                    if self.task.done:
                        continue
                    self.wakeup.clear()
                    try:
                        await asyncio.wait_for(self.wakeup.wait(), timeout=self._seconds_to_next_deadline())
                    except asyncio.TimeoutError:
                        pass
                    if not self._a_clock_ran_out():
                        continue  # woken by a move: nothing to end, and no lock to take for it
                    await self.refresh_presence()  # several workers: a person away here may be on another
                    async with self.changing():
                        ended = await self._check_clocks()
                    if ended:
                        await self.changed()
                except UNAVAILABLE as error:  # wait for the database / Redis; nothing is lost
                    log.warning("dialogue %s waits: %s", self.id, error)
                    await asyncio.sleep(1.0)
                except ReplayMismatch as error:  # nothing is judged on a stale engine; people are refused with 503
                    log.error("dialogue %s waits: its stored events do not replay: %s", self.id, error)
                    await asyncio.sleep(5.0)
                except EventConflict:  # another worker wrote first: rebuild from storage and go on
                    await asyncio.sleep(0.05)
            await self.changed()
        except asyncio.CancelledError:
            if self.hub.cluster is None:  # one process: it is going away, so is the dialogue
                async with self.lock:
                    try:
                        await self.sync()  # rebuilt first if a store was cut off
                        if not self.task.done:
                            self.task.end(INTERRUPTED)
                        await self.commit()
                    except Exception:
                        log.exception("could not store the end of %s", self.id)
            raise  # several processes: another worker takes the dialogue over
        except Exception:  # never leave a dialogue hanging: end it and keep the record
            log.exception("dialogue %s failed", self.id)
            try:
                async with self.changing():
                    if not self.task.done:
                        self.task.end("platform_error")
                    await self.commit()
                await self.changed()
            except Exception:
                log.exception("could not store the end of %s", self.id)

    def _final_record(self) -> Dialogue:
        dialogue = self.task.to_dialogue()
        dialogue.id = self.id
        if self.task.end_reason == INTERRUPTED:
            dialogue.outcome = interrupted_outcome()
        dialogue.meta = {
            **dialogue.meta,
            "study": self.study.id,
            "pairing": self.pairing,
            "scenario_key": self.scenario_key,
            "end_reason": self.task.end_reason,
            "started_at": self.started,
            "finished_at": time.time(),
        }
        return dialogue

    async def _move_seen(self, move_id: str) -> bool:
        storage = self.hub.storage
        return await storage.run(storage.move_seen, self.id, move_id)

    async def _finish_now(self) -> None:
        """Store the finished dialogue (parties, outcome, meta), once."""
        if not self.task.done:
            return
        storage = self.hub.storage
        info = await storage.run(storage.info, self.id)
        if info is not None and info.status == "finished":
            if self.final is None:
                self.final = self._final_record()
                self.hub.finished(self)
            return
        dialogue = self.final or self._final_record()
        await storage.run(storage.finish_dialogue, dialogue, self.task.end_reason, set_aside(self.study.pay, dialogue))
        if self.final is None:
            self.final = dialogue
            self.hub.finished(self)


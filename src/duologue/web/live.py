"""Running dialogues: one asyncio Task per dialogue, people over websockets, bots off the loop.

A `LiveDialogue` owns one task engine. People's moves arrive over a websocket (or the HTTP move
endpoint) and are applied at once under the dialogue's lock; its runner task makes the bots'
moves (`make_agent` agents, whose `act` runs in a worker thread so a slow model never blocks
other dialogues) and watches the clocks: the study's time limit, the idle timeout, and the
reconnect window of a person who lost their connection. Every event is stored as it happens.

Each party receives only `view(party)`, built from the engine's `observe(party)`: its own
private view and the shared transcript, never the other party's private view.

The stored events are the truth: a dialogue can always be rebuilt by replaying them through a
fresh engine with the stored scenario, seed and first mover (`LiveHub.load`). That is how a move
whose events could not be stored is undone (the engine is rebuilt, nothing half-applied stays),
and, with several worker processes (`duologue.web.cluster`), how every worker keeps its replica
up to date and how a worker takes over the dialogues of one that died. A move may carry a
`move_id`; a move id seen before is acknowledged and not applied again (exactly once on retries).
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
import uuid
from contextlib import asynccontextmanager, nullcontext
from dataclasses import dataclass, field
from typing import Any, AsyncIterator, Protocol

from pydantic import TypeAdapter

from duologue.agents import make_agent
from duologue.core import actions
from duologue.core.agent import Agent
from duologue.core.schema import Dialogue, Event, Party, Scenario, SystemNote
from duologue.core.task import IllegalAction, Task
from duologue.tasks import make
from duologue.web.cluster import Cluster, ClusterUnavailable
from duologue.web.settings import Settings
from duologue.web.storage import DialogueInfo, EventConflict, Seat, Storage, StorageUnavailable
from duologue.web.study import Study

log = logging.getLogger(__name__)

MAX_BOT_ATTEMPTS = 3
EVENT = TypeAdapter(Event)
PRESENCE_SECONDS = 1.0
"""Several workers: how often a dialogue's runner looks in Redis for who is connected elsewhere."""
UNAVAILABLE = (StorageUnavailable, ClusterUnavailable)
"""Errors of the shared services: the move is refused with 503 and may be sent again."""


class Connection(Protocol):
    """What the live layer needs from a websocket."""

    async def send_json(self, data: Any) -> None: ...


class MoveRefused(ValueError):
    """A person's move that is not applied; `status` is the HTTP status that fits."""

    def __init__(self, reason: str, status: int = 409):
        super().__init__(reason)
        self.reason = reason
        self.status = status


class ReplayMismatch(RuntimeError):
    """Stored events that the engine does not reproduce (a changed task version, a damaged record)."""


class ReplayClock:
    """The wall clock, except while stored events are replayed: then the time each one was made."""

    def __init__(self) -> None:
        self.fixed: float | None = None

    def __call__(self) -> float:
        return self.fixed if self.fixed is not None else time.time()


ACTION_KIND_OF_EVENT = {event_class: kind for kind, event_class in actions.EVENT_OF.items()}


def action_of(event: Event) -> actions.Action:
    """The move that produced a stored event (the inverse of `Action.to_event`)."""
    kind = ACTION_KIND_OF_EVENT[type(event)]
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


@dataclass
class Occupant:
    """Who sits in one party's seat of a live dialogue."""

    seat: Seat
    agent: Agent | None = None
    connections: set = field(default_factory=set)
    away_since: float | None = None
    """When the person's last connection closed (or the dialogue started, before they connect)."""
    elsewhere: bool = False
    """Multi-process mode: another worker holds a connection of this person."""


def safe_outcome(dialogue: Dialogue, party: str) -> dict[str, Any] | None:
    """The outcome as one party may see it: how it ended, the deal, and only its own score."""
    if dialogue.outcome is None:
        return None
    outcome = dialogue.outcome
    return {"reason": outcome.reason, "agreed": outcome.agreed, "deal": outcome.deal, "score": outcome.scores.get(party)}


def make_bot(seat: Seat, task: Task, seed: int) -> Agent:
    agent = make_agent(seat.agent or "rule", task)
    agent.reset(task, seat.party, random.Random(f"{seed}:{seat.party}"))
    return agent


class LiveDialogue:
    """One dialogue being played now (in multi-process mode: this worker's replica of it)."""

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
        self.wakeup = asyncio.Event()
        self.stored = stored
        self.announced = stored
        """Events up to this number were announced to the other workers."""
        self.started = started if started is not None else time.time()
        self.last_move = task.events[-1].time if task.events and task.events[-1].time else self.started
        self.final: Dialogue | None = None
        self.runner: asyncio.Task | None = None
        self.dirty = False
        """The engine is ahead of the database (a store failed): rebuild it before anything else."""
        self.presence_checked = float("-inf")
        """Monotonic time of the last look at presence in Redis (several workers)."""
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
            "events": [{**e.model_dump(mode="json"), "own": e.party == party} for e in observation.transcript],
            "legal": observation.legal,
            "turn": observation.turn,
            "turns_left": observation.turns_left,
            "seconds_left": observation.seconds_left if not done else None,
            "done": done,
            "feedback": observation.feedback,
            "partner_connected": self._partner_connected(party),
            "outcome": safe_outcome(dialogue, party) if dialogue is not None else None,
            "end_reason": self.task.end_reason,
            "questionnaire_url": f"/questionnaire/{seat.token}" if done else None,
            "max_message_chars": self.hub.settings.max_message_chars,
        }

    def _partner_connected(self, party: str) -> bool:
        other = self.occupants[self.task.other(party)]
        return other.seat.kind == "bot" or bool(other.connections) or other.elsewhere

    async def send(self, party: str, message: dict[str, Any]) -> None:
        """To this worker's connections of `party`."""
        for connection in list(self.occupants[party].connections):
            try:
                await connection.send_json(message)
            except Exception:  # a socket closing while we write: its handler cleans up
                self.occupants[party].connections.discard(connection)

    async def send_everywhere(self, party: str, message: dict[str, Any]) -> None:
        """To every connection of `party`, on this worker and (multi-process) on the others."""
        await self.send(party, message)
        await self.hub.relay(self.id, party, message)

    async def broadcast(self) -> None:
        for party, occupant in self.occupants.items():
            if occupant.seat.kind == "human" and occupant.connections:
                await self.send(party, self.view(party))

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
        """The exclusive right to change this dialogue, with the engine up to date with storage."""
        async with self.lock:
            async with self.hub.exclusive(self.id):
                self.sync(count=await self.hub.stored_count(self.id))
                before = self.stored
                try:
                    yield
                finally:
                    if self.stored != before:
                        await self.hub.set_stored_count(self.id, self.stored)

    async def refresh(self) -> None:
        """Up to date for reading (a page load, another worker's change)."""
        async with self.lock:
            self.sync()
        await self.refresh_presence()

    def sync(self, known: tuple[int, list[Event]] | None = None, count: int | None = None) -> None:
        """Rebuild the engine after a failed store; with several workers, replay their new events too.

        `known`: (first number, events) another worker announced as stored; used instead of a
        database read when they continue exactly where this engine is. `count`: how many events
        Redis says are stored; when this engine has exactly those, the database is not asked (a
        count left behind by a crash is caught by storage's unique event numbers, see `move`).
        """
        if self.dirty:
            task, clock, events = self.hub.load_engine(self.id, self.study)
            self.task, self.clock, self.stored, self.dirty = task, clock, len(events), False
            for occupant in self.occupants.values():
                if occupant.seat.kind == "bot":
                    occupant.agent = make_bot(occupant.seat, task, task.seed)
        elif self.hub.cluster is not None:
            if known is not None and known[0] == self.stored:
                new = known[1]
            elif known is not None and known[0] + len(known[1]) <= self.stored:
                new = []  # nothing this engine lacks (a later change, if any, is announced too)
            elif count is not None and count == self.stored:
                new = []
            else:
                new = self.hub.storage.events(self.id, since=self.stored)
            if new:
                try:
                    replay(self.task, self.clock, [*self.task.events[: self.stored], *new])
                except ReplayMismatch:
                    self.dirty = True
                    raise
                self.stored = len(self.task.events)
                self.last_move = max(self.last_move, new[-1].time or 0.0)
        if self.task.done and self.final is None:
            self.final = self._final_record()
            self.hub.finished(self)

    def commit(self, move_id: str | None = None) -> None:
        """Store the engine's new events (one transaction); on failure the engine is rebuilt later."""
        new = self.task.events[self.stored :]
        if new:
            try:
                self.hub.storage.add_events(self.id, self.stored, list(new), move_id)
            except Exception:
                self.dirty = True
                raise
            self.stored += len(new)
        if self.task.done:
            self._finish_now()

    # ------------------------------------------------------------------ people

    def check_say(self, action: actions.Action) -> None:
        if isinstance(action, actions.Say) and len(action.text) > self.hub.settings.max_message_chars:
            raise MoveRefused(f"a message can have at most {self.hub.settings.max_message_chars} characters (this one has {len(action.text)})", status=413)

    async def move(self, party: str, action: actions.Action, move_id: str | None = None) -> bool:
        """Apply a person's move now; raises `MoveRefused` (nothing changes) when not allowed.

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
                        self.task.step(action, party)
                    except IllegalAction as error:
                        if move_id is not None and self.hub.storage.move_seen(self.id, move_id):
                            return False
                        raise MoveRefused(error.reason, status=409) from None
                    self.last_move = time.time()
                    try:
                        self.commit(move_id)
                        break
                    except EventConflict:
                        self.sync()  # `commit` marked the engine dirty: rebuild it from storage
                        if move_id is not None and self.hub.storage.move_seen(self.id, move_id):
                            return False
                        if attempt == 1:
                            raise MoveRefused("the other party moved at the same moment; look again and retry", status=409) from None
        except UNAVAILABLE as error:
            log.warning("move in %s refused: %s", self.id, error)
            raise MoveRefused("the platform is briefly unavailable; your move was not made, please send it again", status=503) from None
        await self.changed()
        self.wakeup.set()
        return True

    async def typing(self, party: str) -> None:
        other = self.task.other(party)
        if self.occupants[other].seat.kind == "human":
            await self.send_everywhere(other, {"type": "typing"})

    async def connect(self, party: str, connection: Connection) -> None:
        occupant = self.occupants[party]
        occupant.connections.add(connection)
        occupant.away_since = None
        await self.hub.mark_present(self.id, party, True)
        await connection.send_json(self.view(party))
        await self._tell_partner(party, True)

    async def disconnect(self, party: str, connection: Connection) -> None:
        occupant = self.occupants[party]
        occupant.connections.discard(connection)
        if not occupant.connections:
            await self.hub.mark_present(self.id, party, False)
            if not self.task.done and not occupant.elsewhere:
                occupant.away_since = time.time()
                await self._tell_partner(party, False)
                self.wakeup.set()

    async def _tell_partner(self, party: str, connected: bool) -> None:
        other = self.task.other(party)
        if self.occupants[other].seat.kind == "human" and not self.task.done:
            await self.send_everywhere(other, {"type": "partner", "connected": connected, "reconnect_seconds": self.hub.settings.reconnect_seconds})

    async def refresh_presence_now_and_then(self) -> None:
        """`refresh_presence` at most once per `PRESENCE_SECONDS`: each look costs Redis round trips,
        and a move wakes the runner far more often than presence can matter to a clock."""
        if time.monotonic() - self.presence_checked >= PRESENCE_SECONDS:
            await self.refresh_presence()

    async def refresh_presence(self) -> None:
        """Multi-process mode: which people have a connection on another worker (for clocks and views)."""
        cluster = self.hub.cluster
        if cluster is None:
            return
        self.presence_checked = time.monotonic()
        now = time.time()
        for party, occupant in self.occupants.items():
            if occupant.seat.kind != "human":
                continue
            try:
                occupant.elsewhere = await cluster.present_elsewhere(self.id, party)
            except ClusterUnavailable:
                continue  # unknown while Redis is away: nobody is declared gone for it
            if occupant.connections or occupant.elsewhere:
                occupant.away_since = None
            elif occupant.away_since is None:
                occupant.away_since = now

    # ------------------------------------------------------------------ the runner

    async def run(self) -> None:
        """Bots' moves and clocks until the dialogue is over; then store the final dialogue."""
        try:
            while True:
                try:
                    if self.task.done:
                        async with self.changing():
                            self._finish_now()
                        break
                    await self._bot_turns()
                    if self.task.done:
                        continue
                    self.wakeup.clear()
                    try:
                        await asyncio.wait_for(self.wakeup.wait(), timeout=self._seconds_to_next_deadline())
                    except asyncio.TimeoutError:
                        pass
                    await self.refresh_presence_now_and_then()
                    if not self._a_clock_ran_out():
                        continue  # woken by a move: nothing to end, and no lock to take for it
                    async with self.changing():
                        ended = self._check_clocks()
                    if ended:
                        await self.changed()
                except UNAVAILABLE as error:  # wait for the database / Redis; nothing is lost
                    log.warning("dialogue %s waits: %s", self.id, error)
                    await asyncio.sleep(1.0)
                except EventConflict:  # another worker wrote first: rebuild from storage and go on
                    await asyncio.sleep(0.05)
            await self.changed()
        except asyncio.CancelledError:
            if self.hub.cluster is None:  # one process: it is going away, so is the dialogue
                async with self.lock:
                    if not self.task.done:
                        self.task.end("interrupted")
                    try:
                        self.commit()
                        self._finish_now()
                    except Exception:
                        log.exception("could not store the end of %s", self.id)
            raise  # several processes: another worker takes the dialogue over
        except Exception:  # never leave a dialogue hanging: end it and keep the record
            log.exception("dialogue %s failed", self.id)
            try:
                async with self.changing():
                    if not self.task.done:
                        self.task.end("platform_error")
                    self.commit()
                    self._finish_now()
                await self.changed()
            except Exception:
                log.exception("could not store the end of %s", self.id)

    def _bot_to_move(self) -> str | None:
        for party, occupant in self.occupants.items():
            if occupant.agent is not None and self.task.legal_actions(party) and (self.task.turn_taking == "alternate" and self.task.to_move == party):
                return party
        return None

    async def _bot_turns(self) -> None:
        while not self.task.done and (party := self._bot_to_move()) is not None:
            agent = self.occupants[party].agent
            assert agent is not None
            for occupant_party, occupant in self.occupants.items():
                if occupant.seat.kind == "human":
                    await self.send_everywhere(occupant_party, {"type": "typing"})
            await asyncio.sleep(self.hub.settings.bot_typing_seconds)
            task, seen = self.task, self.stored
            moved = False
            for _ in range(MAX_BOT_ATTEMPTS):
                action = await asyncio.to_thread(agent.act, task.observe(party))
                async with self.changing():
                    if self.task is not task or self.stored != seen:
                        break  # the dialogue changed while the bot thought: think again
                    try:
                        self.task.step(action, party)
                    except IllegalAction as error:
                        agent.on_illegal(error)
                        continue
                    self.last_move = time.time()
                    self.commit()
                    moved = True
                    break
            else:
                async with self.changing():
                    if self.task is task and self.stored == seen:
                        self.task.end("illegal_actions")
                        self.commit()
                        moved = True
            if moved:
                await self.changed()

    def _deadlines(self) -> list[tuple[float, str]]:
        deadlines = [(self.last_move + self.idle_seconds, "idle")]
        if self.task.time_limit is not None:
            deadlines.append((self.started + self.task.time_limit, "timeout"))
        for occupant in self.occupants.values():
            if occupant.seat.kind == "human" and occupant.away_since is not None:
                deadlines.append((occupant.away_since + self.hub.settings.reconnect_seconds, "disconnect"))
        return deadlines

    def _seconds_to_next_deadline(self) -> float:
        wait = max(0.05, min(t for t, _ in self._deadlines()) - time.time())
        # with several workers, presence lives in Redis: look again regularly
        return min(wait, 1.0) if self.hub.cluster is not None else wait

    def _a_clock_ran_out(self) -> bool:
        """Whether any deadline has passed, by what this worker knows (a stale view only errs early,
        and `_check_clocks` looks again under the lock with the engine up to date)."""
        now = time.time()
        return any(now >= deadline for deadline, _ in self._deadlines())

    def _check_clocks(self) -> bool:
        """End the dialogue when a clock ran out; True when it did."""
        now = time.time()
        for deadline, reason in sorted(self._deadlines()):
            if now >= deadline and not self.task.done:
                self.task.end(reason)
                self.commit()
                return True
        return False

    def _final_record(self) -> Dialogue:
        dialogue = self.task.to_dialogue()
        dialogue.id = self.id
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

    def _finish_now(self) -> None:
        """Store the finished dialogue (parties, outcome, meta), once."""
        if not self.task.done:
            return
        info = self.hub.storage.info(self.id)
        if info is not None and info.status == "finished":
            if self.final is None:
                self.final = self._final_record()
                self.hub.finished(self)
            return
        dialogue = self.final or self._final_record()
        self.hub.storage.finish_dialogue(dialogue, self.task.end_reason)
        if self.final is None:
            self.final = dialogue
            self.hub.finished(self)


class LiveHub:
    """All live dialogues of this server process (with several processes: this worker's replicas)."""

    KEEP_FINISHED_SECONDS = 600.0
    """A finished dialogue stays in memory this long (late page loads); then pages read it from storage."""

    def __init__(self, storage: Storage, settings: Settings, studies: dict[str, Study] | None = None) -> None:
        self.storage = storage
        self.settings = settings
        self.studies = studies if studies is not None else {}
        """Every study by id (shared with the platform), to rebuild dialogues from storage."""
        self.dialogues: dict[str, LiveDialogue] = {}
        self.rng = random.Random()
        self.cluster: Cluster | None = None
        self.owned: set[str] = set()
        self._background: list[asyncio.Task] = []

    # ------------------------------------------------------------------ finding dialogues

    def get(self, dialogue_id: str) -> LiveDialogue | None:
        return self.dialogues.get(dialogue_id)

    async def open(self, dialogue_id: str) -> LiveDialogue | None:
        """The live dialogue, up to date; None when it is over and no longer in memory (read storage).

        With several workers, a dialogue started elsewhere is loaded from storage as a replica.
        """
        live = self.dialogues.get(dialogue_id)
        if self.cluster is None:
            if live is not None and live.dirty:
                await live.refresh()
            return live
        if live is None:
            info = self.storage.info(dialogue_id)
            if info is None or info.status != "live":
                return None
            live = self.dialogues.get(dialogue_id) or self.load(info)
            if live is None:
                return None
            self.dialogues.setdefault(dialogue_id, live)
            live = self.dialogues[dialogue_id]
        await live.refresh()
        return live

    def reachable(self, info: DialogueInfo) -> bool:
        """Whether a stored live dialogue can be played on (one process: only if it is in memory)."""
        return info.status == "live" and (self.cluster is not None or info.id in self.dialogues)

    def load_engine(self, dialogue_id: str, study: Study) -> tuple[Task, ReplayClock, list[Event]]:
        """A fresh engine replayed to the stored events (same scenario, seed and first mover)."""
        record = self.storage.dialogue(dialogue_id)
        if record is None:
            raise KeyError(dialogue_id)
        replay_info = record.meta.get("replay", {})
        clock = ReplayClock()
        bot = any(p.kind == "bot" for p in record.parties)
        task = make(study.task, turn_taking="alternate" if bot else study.turn_taking, clock=clock, time_limit=study.time_limit_seconds, **study.task_options)
        clock.fixed = record.meta.get("started_at", time.time())
        try:
            task.reset(seed=record.meta.get("seed"), scenario=record.scenario if replay_info.get("scenario_given", True) else None)
        finally:
            clock.fixed = None
        task.parties = record.parties
        replay(task, clock, record.events)
        return task, clock, record.events

    def load(self, info: DialogueInfo) -> LiveDialogue | None:
        """A replica of a live dialogue from storage (started by another worker, or one that died)."""
        study = self.studies.get(info.study_id)
        if study is None:
            return None
        task, clock, events = self.load_engine(info.id, study)
        record_started = self.storage.dialogue(info.id)
        started = record_started.meta.get("started_at", info.created_at) if record_started else info.created_at
        occupants: dict[str, Occupant] = {}
        for seat in self.storage.seats(info.id):
            occupants[seat.party] = Occupant(seat=seat, agent=make_bot(seat, task, task.seed) if seat.kind == "bot" else None)
        live = LiveDialogue(self, study, task, info.id, occupants, info.pairing, info.scenario_key, clock=clock, started=started, stored=len(events))
        if task.done:
            live.final = live._final_record()
        return live

    # ------------------------------------------------------------------ starting

    def start(self, study: Study, *, humans: list[str], bot: str | None, pairing: str, scenario_key: str, scenario: Scenario | None, seed: int) -> dict[str, Seat]:
        """Create, store and start a dialogue; returns the seats by participant id (humans only).

        humans: participant ids (one with a bot, two for human-human); bot: agent spec or None.
        """
        turn_taking = "alternate" if bot is not None else study.turn_taking
        clock = ReplayClock()
        started = time.time()
        task = make(study.task, turn_taking=turn_taking, clock=clock, time_limit=study.time_limit_seconds, **study.task_options)
        clock.fixed = started
        try:
            task.reset(seed=seed, scenario=scenario)
        finally:
            clock.fixed = None
        party_ids = list(task.party_ids)
        if bot is not None:
            human_party = study.human_party if study.human_party in party_ids else self.rng.choice(party_ids)
            assignment = {human_party: ("human", humans[0]), task.other(human_party): ("bot", bot)}
        else:
            order = list(humans)
            self.rng.shuffle(order)
            assignment = {party_ids[0]: ("human", order[0]), party_ids[1]: ("human", order[1])}
        task.parties = [
            Party(
                id=p.id,
                kind=assignment[p.id][0],  # type: ignore[arg-type]
                role=p.role,
                agent=assignment[p.id][1] if assignment[p.id][0] == "bot" else None,
                participant_id=assignment[p.id][1] if assignment[p.id][0] == "human" else None,
            )
            for p in task.parties
        ]
        dialogue_id = f"{study.id}-{uuid.uuid4().hex[:12]}"
        seats_in = [
            {"party": party, "kind": kind, "participant_id": who if kind == "human" else None, "agent": who if kind == "bot" else None}
            for party, (kind, who) in assignment.items()
        ]
        first = task.to_dialogue(with_outcome=False)
        first.id = dialogue_id
        # what a worker needs to rebuild this engine from the stored events (replaced by the final meta)
        first.meta = {**first.meta, "study": study.id, "pairing": pairing, "scenario_key": scenario_key, "started_at": started, "replay": {"scenario_given": scenario is not None}}
        seats = self.storage.create_dialogue(first, study_id=study.id, task_id=study.task, pairing=pairing, scenario_key=scenario_key, seats=seats_in)
        occupants = {seat.party: Occupant(seat=seat, agent=make_bot(seat, task, seed) if seat.kind == "bot" else None) for seat in seats}
        live = LiveDialogue(self, study, task, dialogue_id, occupants, pairing, scenario_key, clock=clock, started=started)
        self.dialogues[dialogue_id] = live
        loop = asyncio.get_running_loop()
        live.runner = loop.create_task(live.run() if self.cluster is None else self._run_owned(live), name=f"dialogue {dialogue_id}")
        return {s.participant_id: s for s in seats if s.kind == "human" and s.participant_id is not None}

    def finished(self, live: LiveDialogue) -> None:
        """Called once a dialogue is over: forget it after a while, so memory stays flat."""
        try:
            asyncio.get_running_loop().call_later(self.KEEP_FINISHED_SECONDS, self.dialogues.pop, live.id, None)
        except RuntimeError:  # no loop (called while shutting down)
            pass

    def live_count(self) -> dict[str, int]:
        """People in dialogues now, per study."""
        counts: dict[str, int] = {}
        for live in self.dialogues.values():
            if not live.task.done:
                humans = sum(1 for o in live.occupants.values() if o.seat.kind == "human")
                counts[live.study.id] = counts.get(live.study.id, 0) + humans
        return counts

    async def close(self) -> None:
        for task in self._background:
            task.cancel()
        runners = [d.runner for d in self.dialogues.values() if d.runner is not None and not d.runner.done()]
        for runner in runners:
            runner.cancel()
        await asyncio.gather(*self._background, *runners, return_exceptions=True)
        if self.cluster is not None:
            for dialogue_id in list(self.owned):
                await self.cluster.release(dialogue_id)  # the others take over at once
            await self.cluster.close()

    def mark_interrupted(self) -> int:
        """Dialogues left `live` by an earlier process end as `interrupted` (their events are kept)."""
        count = 0
        for info in self.storage.dialogues(status="live"):
            if info.id in self.dialogues:
                continue
            dialogue = self.storage.dialogue(info.id)
            if dialogue is None:
                continue
            note = SystemNote(party=None, time=time.time(), name="interrupted")
            self.storage.add_event(info.id, len(dialogue.events), note)
            dialogue.events.append(note)
            try:
                dialogue.outcome = make(info.task_id).judge(dialogue)
            except Exception:
                dialogue.outcome = None
            self.storage.finish_dialogue(dialogue, "interrupted")
            count += 1
        return count

    # ------------------------------------------------------------------ several worker processes

    async def join_cluster(self, url: str) -> None:
        """Multi-process mode: share dialogues with the other workers through Redis (`duologue.web.cluster`)."""
        self.cluster = Cluster(url, lease_seconds=self.settings.lease_seconds)
        loop = asyncio.get_running_loop()
        self._background = [
            loop.create_task(self.cluster.listen(self._on_message, self._on_reconnect), name="cluster listener"),
            loop.create_task(self._keep_leases(), name="cluster leases"),
        ]

    def exclusive(self, dialogue_id: str) -> Any:
        return self.cluster.lock(dialogue_id) if self.cluster is not None else nullcontext()

    async def stored_count(self, dialogue_id: str) -> int | None:
        """How many events of the dialogue are stored, as last written to Redis (None: ask the database)."""
        return await self.cluster.stored_count(dialogue_id) if self.cluster is not None else None

    async def set_stored_count(self, dialogue_id: str, count: int) -> None:
        if self.cluster is not None:
            await self.cluster.set_stored_count(dialogue_id, count)

    async def announce(self, dialogue_id: str, first: int = 0, events: list[Event] | None = None) -> None:
        if self.cluster is not None:
            stored = [e.model_dump(mode="json") for e in events or []]
            await self.cluster.publish({"type": "changed", "dialogue": dialogue_id, "first": first, "events": stored})

    async def relay(self, dialogue_id: str, party: str, frame: dict[str, Any]) -> None:
        if self.cluster is not None:
            await self.cluster.publish({"type": "frame", "dialogue": dialogue_id, "to": party, "frame": frame})

    async def mark_present(self, dialogue_id: str, party: str, present: bool) -> None:
        if self.cluster is not None:
            try:
                await self.cluster.set_present(dialogue_id, party, present)
            except ClusterUnavailable:
                pass  # written again by `_keep_leases` once Redis is back

    async def _on_message(self, message: dict[str, Any]) -> None:
        live = self.dialogues.get(message.get("dialogue", ""))
        if live is None:
            return
        if message["type"] == "changed":
            known = None
            if isinstance(message.get("first"), int) and isinstance(message.get("events"), list):
                known = (message["first"], [EVENT.validate_python(e) for e in message["events"]])
            async with live.lock:  # the engine up to date; presence comes with "partner" frames and the lease rounds
                live.sync(known)
            await live.broadcast()
            live.wakeup.set()
        elif message["type"] == "frame" and message.get("to") in live.occupants:
            if message["frame"].get("type") == "partner":
                live.occupants[live.task.other(message["to"])].elsewhere = bool(message["frame"].get("connected"))
            await live.send(message["to"], message["frame"])

    async def _on_reconnect(self) -> None:
        """Subscribed (again): catch up on changes that happened while Redis was away."""
        for live in list(self.dialogues.values()):
            if any(o.connections for o in live.occupants.values()):
                try:
                    await live.refresh()
                    await live.broadcast()
                except Exception as error:
                    log.warning("could not refresh %s: %s", live.id, error)

    async def _run_owned(self, live: LiveDialogue) -> None:
        """Run a dialogue's bots and clocks while this worker holds its lease."""
        assert self.cluster is not None
        try:
            if not await self.cluster.claim(live.id):
                return
        except ClusterUnavailable:
            return  # `_keep_leases` claims it once Redis is back
        self.owned.add(live.id)
        try:
            await live.refresh()
            await live.run()
        finally:
            self.owned.discard(live.id)
            if live.task.done:
                await self.cluster.release(live.id)

    async def _keep_leases(self) -> None:
        """Renew our leases, announce our sockets, and take over dialogues nobody runs."""
        period = max(0.2, self.settings.lease_seconds / 3)
        while True:
            await asyncio.sleep(period)
            try:
                await self._leases_once()
            except asyncio.CancelledError:
                raise
            except Exception as error:  # Redis or the database away: try again next round
                log.warning("lease round failed: %s", error)

    async def _leases_once(self) -> None:
        assert self.cluster is not None
        for dialogue_id in list(self.owned):
            if not await self.cluster.claim(dialogue_id):  # we were too slow and someone took it
                live = self.dialogues.get(dialogue_id)
                if live is not None and live.runner is not None:
                    live.runner.cancel()
                self.owned.discard(dialogue_id)
        await self.cluster.set_all_present([(live.id, party) for live in list(self.dialogues.values()) for party, occupant in live.occupants.items() if occupant.connections])
        orphans = []
        for info in self.storage.dialogues(status="live"):
            live = self.dialogues.get(info.id)
            if live is not None and live.runner is not None and not live.runner.done():
                continue
            if info.study_id in self.studies:
                orphans.append(info)
        owners = await self.cluster.owners([info.id for info in orphans])
        for info in orphans:
            if owners.get(info.id) is not None:
                continue
            live = await self.open(info.id)
            if live is None or (live.runner is not None and not live.runner.done()):
                continue
            live.runner = asyncio.get_running_loop().create_task(self._run_owned(live), name=f"dialogue {info.id}")

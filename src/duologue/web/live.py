"""Running dialogues: one asyncio Task per dialogue, people over websockets, bots off the loop.

A `LiveDialogue` owns one task engine. People's moves arrive over a websocket (or the HTTP move
endpoint) and are applied at once under the dialogue's lock; its runner task makes the bots'
moves (`make_agent` agents, whose `act` runs in a worker thread so a slow model never blocks
other dialogues) and watches the clocks: the study's time limit, the idle timeout, and the
reconnect window of a person who lost their connection. Every event is stored as it happens.

Each party receives only `view(party)`, built from the engine's `observe(party)`: its own
private view and the shared transcript, never the other party's private view.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
import uuid
from dataclasses import dataclass, field
from typing import Any, Protocol

from duologue.agents import make_agent
from duologue.core import actions
from duologue.core.agent import Agent
from duologue.core.schema import Dialogue, Party, Scenario, SystemNote
from duologue.core.task import IllegalAction, Task
from duologue.tasks import make
from duologue.web.settings import Settings
from duologue.web.storage import Seat, Storage
from duologue.web.study import Study

log = logging.getLogger(__name__)

MAX_BOT_ATTEMPTS = 3


class Connection(Protocol):
    """What the live layer needs from a websocket."""

    async def send_json(self, data: Any) -> None: ...


class MoveRefused(ValueError):
    """A person's move that is not applied; `status` is the HTTP status that fits."""

    def __init__(self, reason: str, status: int = 409):
        super().__init__(reason)
        self.reason = reason
        self.status = status


@dataclass
class Occupant:
    """Who sits in one party's seat of a live dialogue."""

    seat: Seat
    agent: Agent | None = None
    connections: set = field(default_factory=set)
    away_since: float | None = None
    """When the person's last connection closed (or the dialogue started, before they connect)."""


def safe_outcome(dialogue: Dialogue, party: str) -> dict[str, Any] | None:
    """The outcome as one party may see it: how it ended, the deal, and only its own score."""
    if dialogue.outcome is None:
        return None
    outcome = dialogue.outcome
    return {"reason": outcome.reason, "agreed": outcome.agreed, "deal": outcome.deal, "score": outcome.scores.get(party)}


class LiveDialogue:
    """One dialogue being played now."""

    def __init__(self, hub: "LiveHub", study: Study, task: Task, dialogue_id: str, occupants: dict[str, Occupant], pairing: str, scenario_key: str) -> None:
        self.hub = hub
        self.study = study
        self.task = task
        self.id = dialogue_id
        self.occupants = occupants
        self.pairing = pairing
        self.scenario_key = scenario_key
        self.lock = asyncio.Lock()
        self.wakeup = asyncio.Event()
        self.stored = 0
        self.started = time.time()
        self.last_move = self.started
        self.final: Dialogue | None = None
        self.runner: asyncio.Task | None = None
        settings = hub.settings
        self.idle_seconds = study.idle_seconds if study.idle_seconds is not None else settings.idle_seconds
        for occupant in occupants.values():
            if occupant.seat.kind == "human":
                occupant.away_since = self.started

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
        return other.seat.kind == "bot" or bool(other.connections)

    async def send(self, party: str, message: dict[str, Any]) -> None:
        for connection in list(self.occupants[party].connections):
            try:
                await connection.send_json(message)
            except Exception:  # a socket closing while we write: its handler cleans up
                self.occupants[party].connections.discard(connection)

    async def broadcast(self) -> None:
        for party, occupant in self.occupants.items():
            if occupant.seat.kind == "human" and occupant.connections:
                await self.send(party, self.view(party))

    # ------------------------------------------------------------------ people

    def check_say(self, action: actions.Action) -> None:
        if isinstance(action, actions.Say) and len(action.text) > self.hub.settings.max_message_chars:
            raise MoveRefused(f"a message can have at most {self.hub.settings.max_message_chars} characters (this one has {len(action.text)})", status=413)

    async def move(self, party: str, action: actions.Action) -> None:
        """Apply a person's move now; raises `MoveRefused` (nothing changes) when not allowed."""
        if self.occupants[party].seat.kind != "human":
            raise MoveRefused("this seat is played by a bot", status=403)
        self.check_say(action)
        async with self.lock:
            try:
                self.task.step(action, party)
            except IllegalAction as error:
                raise MoveRefused(error.reason, status=409) from None
            self.last_move = time.time()
            self._store_new_events()
            if self.task.done:
                self._finish_now()
        await self.broadcast()
        self.wakeup.set()

    async def typing(self, party: str) -> None:
        other = self.task.other(party)
        if self.occupants[other].seat.kind == "human":
            await self.send(other, {"type": "typing"})

    async def connect(self, party: str, connection: Connection) -> None:
        occupant = self.occupants[party]
        occupant.connections.add(connection)
        occupant.away_since = None
        await connection.send_json(self.view(party))
        await self._tell_partner(party, True)

    async def disconnect(self, party: str, connection: Connection) -> None:
        occupant = self.occupants[party]
        occupant.connections.discard(connection)
        if not occupant.connections and not self.task.done:
            occupant.away_since = time.time()
            await self._tell_partner(party, False)
            self.wakeup.set()

    async def _tell_partner(self, party: str, connected: bool) -> None:
        other = self.task.other(party)
        if self.occupants[other].seat.kind == "human" and not self.task.done:
            await self.send(other, {"type": "partner", "connected": connected, "reconnect_seconds": self.hub.settings.reconnect_seconds})

    # ------------------------------------------------------------------ the runner

    async def run(self) -> None:
        """Bots' moves and clocks until the dialogue is over; then store the final dialogue."""
        try:
            while not self.task.done:
                await self._bot_turns()
                if self.task.done:
                    break
                self.wakeup.clear()
                try:
                    await asyncio.wait_for(self.wakeup.wait(), timeout=self._seconds_to_next_deadline())
                except asyncio.TimeoutError:
                    pass
                async with self.lock:
                    self._check_clocks()
            async with self.lock:
                self._finish_now()
            await self.broadcast()
        except asyncio.CancelledError:
            async with self.lock:
                if not self.task.done:
                    self.task.end("interrupted")
                    self._store_new_events()
                self._finish_now()
            raise
        except Exception:  # never leave a dialogue hanging: end it and keep the record
            log.exception("dialogue %s failed", self.id)
            async with self.lock:
                if not self.task.done:
                    self.task.end("platform_error")
                    self._store_new_events()
                self._finish_now()
            await self.broadcast()

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
                    await self.send(occupant_party, {"type": "typing"})
            await asyncio.sleep(self.hub.settings.bot_typing_seconds)
            for _ in range(MAX_BOT_ATTEMPTS):
                action = await asyncio.to_thread(agent.act, self.task.observe(party))
                async with self.lock:
                    try:
                        self.task.step(action, party)
                        break
                    except IllegalAction as error:
                        agent.on_illegal(error)
            else:
                async with self.lock:
                    self.task.end("illegal_actions")
            async with self.lock:
                self.last_move = time.time()
                self._store_new_events()
                if self.task.done:
                    self._finish_now()
            await self.broadcast()

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

    def _check_clocks(self) -> None:
        now = time.time()
        for deadline, reason in sorted(self._deadlines()):
            if now >= deadline and not self.task.done:
                self.task.end(reason)
                self._store_new_events()

    def _store_new_events(self) -> None:
        for event in self.task.events[self.stored :]:
            self.hub.storage.add_event(self.id, self.stored, event)
            self.stored += 1

    def _finish_now(self) -> None:
        """Store the finished dialogue once (parties, outcome, meta)."""
        if self.final is not None or not self.task.done:
            return
        self._store_new_events()
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
        self.final = dialogue
        self.hub.storage.finish_dialogue(dialogue, self.task.end_reason)
        self.hub.finished(self)


class LiveHub:
    """All live dialogues of this server process."""

    def __init__(self, storage: Storage, settings: Settings) -> None:
        self.storage = storage
        self.settings = settings
        self.dialogues: dict[str, LiveDialogue] = {}
        self.rng = random.Random()

    def get(self, dialogue_id: str) -> LiveDialogue | None:
        return self.dialogues.get(dialogue_id)

    def start(self, study: Study, *, humans: list[str], bot: str | None, pairing: str, scenario_key: str, scenario: Scenario | None, seed: int) -> dict[str, Seat]:
        """Create, store and start a dialogue; returns the seats by participant id (humans only).

        humans: participant ids (one with a bot, two for human-human); bot: agent spec or None.
        """
        turn_taking = "alternate" if bot is not None else study.turn_taking
        task = make(study.task, turn_taking=turn_taking, clock=time.time, time_limit=study.time_limit_seconds, **study.task_options)
        task.reset(seed=seed, scenario=scenario)
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
        first.meta = {**first.meta, "study": study.id, "pairing": pairing, "scenario_key": scenario_key}
        seats = self.storage.create_dialogue(first, study_id=study.id, task_id=study.task, pairing=pairing, scenario_key=scenario_key, seats=seats_in)
        occupants: dict[str, Occupant] = {}
        for seat in seats:
            agent = None
            if seat.kind == "bot":
                agent = make_agent(seat.agent or "rule", task)
                agent.reset(task, seat.party, random.Random(f"{seed}:{seat.party}"))
            occupants[seat.party] = Occupant(seat=seat, agent=agent)
        live = LiveDialogue(self, study, task, dialogue_id, occupants, pairing, scenario_key)
        self.dialogues[dialogue_id] = live
        live.runner = asyncio.get_running_loop().create_task(live.run(), name=f"dialogue {dialogue_id}")
        return {s.participant_id: s for s in seats if s.kind == "human" and s.participant_id is not None}

    KEEP_FINISHED_SECONDS = 600.0
    """A finished dialogue stays in memory this long (late page loads); then pages read it from storage."""

    def finished(self, live: LiveDialogue) -> None:
        """Called once a dialogue is stored as finished: forget it after a while, so memory stays flat."""
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
        runners = [d.runner for d in self.dialogues.values() if d.runner is not None and not d.runner.done()]
        for runner in runners:
            runner.cancel()
        await asyncio.gather(*runners, return_exceptions=True)

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

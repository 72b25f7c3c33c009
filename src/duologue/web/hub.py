"""All live dialogues of one server process: starting, finding, rebuilding and ending them."""

from __future__ import annotations

import asyncio
import random
import time
import uuid
from typing import Any, Coroutine

from duologue.core.schema import Dialogue, Event, Party, Scenario, SystemNote
from duologue.core.task import Task
from duologue.tasks import make, spec
from duologue.web.bots import make_bot
from duologue.web.cluster import Cluster
from duologue.web.leases import Leases
from duologue.web.live import INTERRUPTED, LiveDialogue, interrupted_outcome
from duologue.web.payments import set_aside
from duologue.web.presence import Occupant
from duologue.web.replay import ReplayClock, replay
from duologue.web.settings import Settings
from duologue.web.storage import DialogueInfo, Seat, Storage
from duologue.web.study import Study


Made = tuple[Task, ReplayClock, float, str, list[Seat], dict[str, Occupant], str, str]
"""A dialogue `LiveHub.create` made and stored: engine, clock, start time, id, seats, occupants, pairing, scenario key."""


class LiveHub(Leases):
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
        self._background: list[asyncio.Task[Any]] = []

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
            info = await self.storage.run(self.storage.info, dialogue_id)
            if info is None or info.status != "live":
                return None
            await self.cluster.follow(dialogue_id)  # before reading it: no notice falls in between
            live = self.dialogues.get(dialogue_id)
            if live is None:
                loaded = await self.storage.run(self.load, info)
                if loaded is None:
                    return None
                live = self.dialogues.setdefault(dialogue_id, loaded)
                if live is loaded:  # read just now, after following: nothing stored earlier is missing
                    await live.refresh_presence()
                    return live
        await live.refresh()
        return live

    def reachable(self, info: DialogueInfo) -> bool:
        """Whether a stored live dialogue can be played on (one process: only if it is in memory)."""
        return info.status == "live" and (self.cluster is not None or info.id in self.dialogues)

    def load_engine(self, dialogue_id: str, study: Study, record: Dialogue | None = None) -> tuple[Task, ReplayClock, list[Event]]:
        """A fresh engine replayed to the stored events (same scenario, seed and first mover); from
        `record` when the caller has just read the dialogue."""
        record = record or self.storage.dialogue(dialogue_id)
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
        """A replica of a live dialogue from storage (started by another worker, or one that died).
        Reads the database: the platform calls it in the storage's thread."""
        study = self.studies.get(info.study_id)
        record = self.storage.dialogue(info.id)
        if study is None or record is None:
            return None
        task, clock, events = self.load_engine(info.id, study, record)
        started = record.meta.get("started_at", info.created_at)
        occupants: dict[str, Occupant] = {}
        for seat in self.storage.seats(info.id):
            occupants[seat.party] = Occupant(seat=seat, agent=make_bot(seat, task, task.seed) if seat.kind == "bot" else None)
        live = LiveDialogue(self, study, task, info.id, occupants, info.pairing, info.scenario_key, clock=clock, started=started, stored=len(events))
        live.take_handovers(events)
        if task.done:
            live.final = live._final_record()
        return live

    # ------------------------------------------------------------------ starting

    async def start(self, study: Study, *, humans: list[str], bot: str | None, pairing: str, scenario_key: str, scenario: Scenario | None, seed: int) -> dict[str, Seat]:
        """Create, store and start a dialogue; returns the seats by participant id (humans only).

        humans: participant ids (one with a bot, two for human-human); bot: agent spec or None.
        The engine is made and the dialogue stored in the storage's thread, off the event loop.
        """
        made = await self.storage.run(self.create, study, humans=humans, bot=bot, pairing=pairing, scenario_key=scenario_key, scenario=scenario, seed=seed)
        return await self.launch(study, made)

    async def launch(self, study: Study, made: Made) -> dict[str, Seat]:
        """Run a dialogue `create` made and stored: its runner starts on this loop; the seats by participant id."""
        task, clock, started, dialogue_id, seats, occupants, pairing, scenario_key = made
        live = LiveDialogue(self, study, task, dialogue_id, occupants, pairing, scenario_key, clock=clock, started=started)
        self.dialogues[dialogue_id] = live
        if self.cluster is not None:
            await self.cluster.follow(dialogue_id)
        loop = asyncio.get_running_loop()
        live.runner = loop.create_task(live.run() if self.cluster is None else self._run_owned(live, fresh=True), name=f"dialogue {dialogue_id}")
        return {s.participant_id: s for s in seats if s.kind == "human" and s.participant_id is not None}

    def create(self, study: Study, *, humans: list[str], bot: str | None, pairing: str, scenario_key: str, scenario: Scenario | None, seed: int) -> Made:
        """`start`'s blocking part, for the storage's thread: the engine, the people's protocol
        answers, the stored dialogue and seats (`launch` then runs it)."""
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
            wanted = study.human_party or spec(study.task).person
            human_party = wanted if wanted in party_ids else self.rng.choice(party_ids)
            assignment = {human_party: ("human", humans[0]), task.other(human_party): ("bot", bot)}
        else:
            order = list(humans)
            self.rng.shuffle(order)
            assignment = {party_ids[0]: ("human", order[0]), party_ids[1]: ("human", order[1])}
        task.parties = [
            Party(
                id=p.id,
                kind=assignment[p.id][0],
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
        from duologue.web.protocol import personalise

        answered = study.protocol is not None and personalise(self, study, task)  # own reasons change the scenario
        scenario_given = answered or scenario is not None
        first = task.to_dialogue(with_outcome=False)
        first.id = dialogue_id
        # what a worker needs to rebuild this engine from the stored events (replaced by the final meta)
        first.meta = {**first.meta, "study": study.id, "pairing": pairing, "scenario_key": scenario_key, "started_at": started, "replay": {"scenario_given": scenario_given}}
        seats = self.storage.create_dialogue(first, study_id=study.id, task_id=study.task, pairing=pairing, scenario_key=scenario_key, seats=seats_in)
        occupants = {seat.party: Occupant(seat=seat, agent=make_bot(seat, task, seed) if seat.kind == "bot" else None) for seat in seats}
        return task, clock, started, dialogue_id, seats, occupants, pairing, scenario_key

    def finished(self, live: LiveDialogue) -> None:
        """Called once a dialogue is over: forget it after a while, so memory stays flat."""
        try:
            asyncio.get_running_loop().call_later(self.KEEP_FINISHED_SECONDS, self._forget, live.id)
        except RuntimeError:  # no loop (called while shutting down)
            pass

    def _forget(self, dialogue_id: str) -> None:
        self.dialogues.pop(dialogue_id, None)
        if self.cluster is not None:
            self.in_background(self.cluster.unfollow(dialogue_id))

    def in_background(self, work: Coroutine[Any, Any, Any]) -> None:
        """Run `work` on this loop without waiting for it (cancelled when the hub closes)."""
        self._background = [t for t in self._background if not t.done()]
        self._background.append(asyncio.get_running_loop().create_task(work))

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
            note = SystemNote(party=None, time=time.time(), name=INTERRUPTED)
            self.storage.add_event(info.id, len(dialogue.events), note)
            dialogue.events.append(note)
            dialogue.outcome = interrupted_outcome()  # not the task's verdict on a dialogue that just stopped
            dialogue.meta = {**dialogue.meta, "end_reason": INTERRUPTED, "finished_at": time.time()}
            study = self.studies.get(info.study_id)
            self.storage.finish_dialogue(dialogue, INTERRUPTED, set_aside(study.pay if study else None, dialogue))
            count += 1
        return count


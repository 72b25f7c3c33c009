"""Simulated participants: websocket clients that play a task with a rule agent, and what they measure.

A participant behaves like a person at a browser: it waits in the lobby until paired, opens its
seat's websocket, and whenever the state it was sent lets it move it "thinks" (a jittered pause of
about `think` seconds, sending a `typing` frame first when it will write), then asks its agent for
a move from its own view and sends it. The agent decides from what the server sent (its `state`
frame turned back into an `Observation`), so the dialogue is played, not replayed.

Measured per seat (`SeatReport`):
* `acked`: each move the server applied, as (event index, event signature, send time); a move is
  acknowledged when the sender's own next `state` frame holds the event. Each move carries a fresh
  `move_id`, so an `ack` frame calling it a duplicate is an error. Refused moves (an `error`
  frame) are counted apart.
* `first_seen`: when this seat first received a frame holding each event index.
* `final_events`: the event signatures of the last frame, to compare with the stored dialogue.
Relay latency of an event = the partner's `first_seen` minus the sender's send time; both seats of
a dialogue run in the same process, so one `perf_counter` clock serves both.

The bare relay has no server-side game: both seats keep the same local task engine (same seed) in
step, apply their own moves and the partner's forwarded moves to it, and send each move with its
event index. The same `SeatReport` comes out, so both kinds of run are judged by one code path.
"""

from __future__ import annotations

import asyncio
import random
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

import orjson
from pydantic import TypeAdapter
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from duologue.agents import make_agent
from duologue.core import actions
from duologue.core.schema import Event
from duologue.core.task import IllegalAction, Observation
from duologue.tasks import make
from duologue.web.deltas import apply as apply_delta

EVENT = TypeAdapter(Event)
NOT_CONTENT = ("time", "extra", "own")
"""Event fields that are no part of what a party did (when, platform notes, whose view)."""


def signature(event: dict[str, Any]) -> str:
    """An event's identity for matching: who did what, without the time it was stamped with."""
    return orjson.dumps({k: v for k, v in event.items() if k not in NOT_CONTENT}, option=orjson.OPT_SORT_KEYS).decode()


def action_signature(action: actions.Action, party: str) -> str:
    """The signature of the event a move becomes once applied."""
    return signature(action.to_event(party, None).model_dump(mode="json"))


LAG_PROBE_SECONDS = 0.05


async def probe_loop_lag(samples: list[tuple[float, float]], interval: float = LAG_PROBE_SECONDS) -> None:
    """Until cancelled: how late this process's event loop wakes a task that asked to sleep
    `interval`, as (perf_counter when the sleep began, seconds late). A client loop that runs late
    delays every frame it reads by as much, so a latency measured while it lags is partly the
    simulated people's own, not the platform's."""
    while True:
        began = time.perf_counter()
        await asyncio.sleep(interval)
        samples.append((began, max(time.perf_counter() - began - interval, 0.0)))


async def with_lag_probe(work: Any, samples: list[tuple[float, float]]) -> Any:
    """Await `work` while `probe_loop_lag` records into `samples`."""
    probe = asyncio.get_running_loop().create_task(probe_loop_lag(samples))
    try:
        return await work
    finally:
        probe.cancel()


def think_seconds(think: float, rng: random.Random) -> float:
    """A person's pause before a move: uniform between half and one and a half times `think`."""
    return think * rng.uniform(0.5, 1.5) if think > 0 else 0.0


@dataclass
class SeatReport:
    """What one simulated participant did and saw (plain data, so it crosses process boundaries)."""

    participant: str
    dialogue: str | None = None
    party: str | None = None
    acked: list[tuple[int, str, float]] = field(default_factory=list)
    first_seen: dict[int, float] = field(default_factory=dict)
    seen_twice: int = 0
    """Events delivered again after they were seen (the bare relay numbers each move)."""
    final_events: list[str] = field(default_factory=list)
    final_parties: list[str | None] = field(default_factory=list)
    done: bool = False
    end_reason: str | None = None
    refused: int = 0
    frames: int = 0
    inconsistent: int = 0
    """Frames whose transcript did not extend the one seen before (an event changed or vanished)."""
    errors: list[str] = field(default_factory=list)
    started: float = 0.0
    finished: float = 0.0
    lobby_seconds: float | None = None
    """From opening the lobby's websocket to the `paired` frame (None: never paired, or no lobby)."""


class Seat:
    """The part shared by platform and relay seats: the think-then-act loop over incoming frames."""

    def __init__(self, participant: str, think: float, rng: random.Random) -> None:
        self.report = SeatReport(participant=participant)
        self.think = think
        self.rng = rng
        self.changed = asyncio.Event()
        self.pending: tuple[str, float, int] | None = None
        """The move sent and not yet acknowledged: (signature, send time, transcript length then)."""
        self.socket: ClientConnection | None = None

    # subclasses: whether to move now, the move, and sending it
    def done(self) -> bool:
        raise NotImplementedError

    def may_move(self) -> bool:
        raise NotImplementedError

    def will_write(self) -> bool:
        return False

    def decide(self) -> actions.Action:
        raise NotImplementedError

    async def send_move(self, action: actions.Action) -> None:
        raise NotImplementedError

    async def handle(self, frame: dict[str, Any], now: float) -> None:
        raise NotImplementedError

    async def read_frames(self) -> None:
        assert self.socket is not None
        try:
            async for raw in self.socket:
                now = time.perf_counter()
                self.report.frames += 1
                await self.handle(orjson.loads(raw), now)
                self.changed.set()
        except ConnectionClosed as closed:
            if not self.done():
                self.report.errors.append(f"connection closed mid-dialogue ({closed.rcvd.code if closed.rcvd else 'no close frame'})")
        finally:
            self.changed.set()

    async def play(self) -> None:
        """Think and move whenever allowed, until the dialogue is over or the connection is gone."""
        reader = asyncio.create_task(self.read_frames())
        try:
            while not self.done() and not reader.done():
                await self.changed.wait()
                self.changed.clear()
                if self.done() or self.pending is not None or not self.may_move():
                    continue
                if self.will_write():
                    await self.socket.send('{"type": "typing"}')
                await asyncio.sleep(think_seconds(self.think, self.rng))
                if self.done() or self.pending is not None or not self.may_move():
                    continue
                await self.send_move(self.decide())
        finally:
            await self.socket.close()
            await asyncio.gather(reader, return_exceptions=True)


class PlatformSeat(Seat):
    """A participant of the live platform: lobby, then the seat's websocket."""

    def __init__(self, base_url: str, study: str, participant: str, think: float, rng: random.Random, agent: str = "rule", frames: str = "delta") -> None:
        super().__init__(participant, think, rng)
        self.frames = frames
        """`delta`: ask for delta state frames, as the chat page does (`duologue.web.deltas`); `full`: whole states."""
        self.base_url = base_url.rstrip("/")
        self.study = study
        self.agent_spec = agent
        self.state: dict[str, Any] | None = None
        self.transcript: list = []
        self.agent = None
        self.moves = 0

    async def join(self) -> str:
        """Wait in the lobby; the seat token."""
        url = f"{self.base_url}/ws/lobby/{quote(self.study)}?participant={quote(self.participant)}"
        async with connect(url, open_timeout=60) as lobby:
            async for raw in lobby:
                frame = orjson.loads(raw)
                if frame.get("type") == "paired":
                    return frame["url"].rsplit("/", 1)[1]
                if frame.get("type") == "refused":
                    raise RuntimeError(f"lobby refused: {frame.get('reason')}")
        raise RuntimeError("lobby closed without a seat")

    @property
    def participant(self) -> str:
        return self.report.participant

    async def run(self) -> SeatReport:
        self.report.started = time.perf_counter()
        token = await self.join()
        self.report.lobby_seconds = time.perf_counter() - self.report.started
        query = "?frames=delta" if self.frames == "delta" else ""
        async with connect(f"{self.base_url}/ws/chat/{token}{query}", open_timeout=60, max_size=2**22) as socket:
            self.socket = socket
            await self.play()
        self.report.finished = time.perf_counter()
        return self.report

    def done(self) -> bool:
        return self.state is not None and bool(self.state.get("done"))

    def may_move(self) -> bool:
        return self.state is not None and bool(self.state.get("legal"))

    def will_write(self) -> bool:
        return self.state is not None and "say" in self.state.get("legal", [])

    def observation(self) -> Observation:
        state = self.state
        assert state is not None
        return Observation(
            task=state["task"],
            party=state["party"],
            role=state.get("role"),
            public=state.get("public") or {},
            private=state.get("private") or {},
            transcript=self.transcript,
            to_move=state["party"] if state.get("legal") else None,
            legal=state.get("legal") or [],
            turn=state.get("turn") or 0,
            turns_left=state.get("turns_left"),
            seconds_left=state.get("seconds_left"),
            done=bool(state.get("done")),
            feedback=state.get("feedback") or [],
        )

    def decide(self) -> actions.Action:
        if self.agent is None:  # the agent needs a task for the rules (legal moves, a fallback move)
            rules = make(self.state["task"])
            rules.reset(seed=self.rng.randrange(2**31))
            self.agent = make_agent(self.agent_spec, rules)
            self.agent.reset(rules, self.state["party"], random.Random(self.rng.random()))
        return self.agent.act(self.observation())

    async def send_move(self, action: actions.Action) -> None:
        self.moves += 1
        frame = {"type": "move", "action": action.model_dump(mode="json"), "move_id": f"{self.participant}-{self.moves}"}
        self.pending = (action_signature(action, self.state["party"]), time.perf_counter(), len(self.transcript))
        await self.socket.send(orjson.dumps(frame).decode())

    async def handle(self, frame: dict[str, Any], now: float) -> None:
        kind = frame.get("type")
        if kind == "error":
            if self.pending is not None:
                self.report.refused += 1
                self.pending = None
            else:
                self.report.errors.append(f"error frame: {frame.get('status')} {frame.get('reason')}")
            return
        if kind == "ack" and frame.get("duplicate"):  # each move id is sent once: never a duplicate
            self.report.errors.append(f"move {frame.get('move_id')} acknowledged as a duplicate")
            return
        if kind == "delta":
            if self.state is None or frame.get("seq") != self.state.get("seq", 0) + 1:
                self.report.errors.append(f"delta frame {frame.get('seq')} out of order")
                await self.socket.send(orjson.dumps({"type": "resync"}).decode())
                return
            frame, kind = apply_delta(self.state, frame), "state"
        if kind != "state":
            return  # typing, partner (dis)connected, ack, pong
        events = frame.get("events") or []
        report = self.report
        report.dialogue, report.party = frame.get("dialogue"), frame.get("party")
        known = report.final_events
        signatures = [signature(e) for e in events]
        if signatures[: len(known)] != known:
            report.inconsistent += 1
            self.transcript = [EVENT.validate_python({k: v for k, v in e.items() if k != "own"}) for e in events]
        else:
            self.transcript.extend(EVENT.validate_python({k: v for k, v in e.items() if k != "own"}) for e in events[len(known) :])
        for index in range(len(known), len(events)):
            report.first_seen.setdefault(index, now)
        if self.pending is not None:
            wanted, sent, start = self.pending
            for index in range(start, len(events)):
                if events[index].get("party") == report.party and signatures[index] == wanted:
                    report.acked.append((index, wanted, sent))
                    self.pending = None
                    break
        report.final_events = signatures
        report.final_parties = [e.get("party") for e in events]
        self.state = frame
        if frame.get("done"):
            report.done = True
            report.end_reason = frame.get("end_reason")


class RelaySeat(Seat):
    """A participant over the bare relay: the game runs in both clients' local engines, in step."""

    def __init__(self, base_url: str, room: str, seat: int, task_id: str, seed: int, participant: str, think: float, rng: random.Random, agent: str = "rule") -> None:
        super().__init__(participant, think, rng)
        self.url = f"{base_url.rstrip('/')}/ws/{quote(room)}/{seat}"
        self.task = make(task_id)
        self.task.reset(seed=seed)
        self.me = self.task.party_ids[seat]
        self.partner = self.task.other(self.me)
        self.agent = make_agent(agent, self.task)
        self.agent.reset(self.task, self.me, random.Random(rng.random()))
        self.paired = False
        self.report.dialogue = f"{room}"
        self.report.party = self.me

    async def run(self) -> SeatReport:
        self.report.started = time.perf_counter()
        async with connect(self.url, open_timeout=60, max_size=2**22) as socket:
            self.socket = socket
            await self.play()
        self.report.finished = time.perf_counter()
        self._final()
        return self.report

    def _final(self) -> None:
        events = [e.model_dump(mode="json") for e in self.task.events]
        self.report.final_events = [signature(e) for e in events]
        self.report.final_parties = [e.get("party") for e in events]
        self.report.done = self.task.done
        self.report.end_reason = self.task.end_reason

    def done(self) -> bool:
        return self.task.done

    def may_move(self) -> bool:
        return self.paired and bool(self.task.legal_actions(self.me))

    def will_write(self) -> bool:
        return "say" in self.task.legal_actions(self.me)

    def decide(self) -> actions.Action:
        return self.agent.act(self.task.observe(self.me))

    async def send_move(self, action: actions.Action) -> None:
        index = len(self.task.events)
        try:
            self.task.step(action, self.me)
        except IllegalAction as error:  # refused locally, as the platform would
            self.report.refused += 1
            self.agent.on_illegal(error)
            self.changed.set()
            return
        sent = time.perf_counter()
        await self.socket.send(orjson.dumps({"type": "move", "index": index, "action": action.model_dump(mode="json")}).decode())
        self.report.acked.append((index, action_signature(action, self.me), sent))
        self.changed.set()  # it may be our move again (free turn-taking) or the dialogue may be over
        if self.task.done:
            self._final()

    async def handle(self, frame: dict[str, Any], now: float) -> None:
        kind = frame.get("type")
        if kind == "paired":
            self.paired = True
            return
        if kind != "move":
            return  # typing
        self.paired = True
        index = frame["index"]
        if index in self.report.first_seen:
            self.report.seen_twice += 1
            return
        self.report.first_seen[index] = now
        if index != len(self.task.events):
            self.report.inconsistent += 1
        try:
            self.task.step(actions.parse_action(frame["action"]), self.partner)
        except IllegalAction as error:
            self.report.errors.append(f"partner's move refused by the local engine: {error.reason}")
        if self.task.done:
            self._final()

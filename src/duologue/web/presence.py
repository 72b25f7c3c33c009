"""Who is connected: a party's seat, its websockets here, and (several workers) elsewhere.

A person who loses their connection has `reconnect_seconds` to come back (the clocks read
`away_since`); their partner is told. With several workers, presence lives in Redis: each
worker's lease round reads it for all the dialogues it holds, and a runner looks again before a
clock ends a dialogue.
"""

from __future__ import annotations

import time
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from duologue.core.agent import Agent
from duologue.web.cluster import ClusterUnavailable
from duologue.web.deltas import FrameLog, encode
from duologue.web.storage import Seat

if TYPE_CHECKING:
    import asyncio

    from duologue.core.task import Task
    from duologue.web.hub import LiveHub


class Connection(Protocol):
    """What the live layer needs from a websocket."""

    async def send_text(self, data: str) -> None: ...


@dataclass
class Occupant:
    """Who sits in one party's seat of a live dialogue."""

    seat: Seat
    agent: Agent | None = None
    connections: set[Any] = field(default_factory=set)
    away_since: float | None = None
    """When the person's last connection closed (or the dialogue started, before they connect)."""
    elsewhere: bool = False
    """Multi-process mode: another worker holds a connection of this person."""
    frames: FrameLog = field(default_factory=FrameLog)
    """Which connections take delta state frames, and what each was last sent (`deltas.py`)."""


class LiveParts:
    """What the parts of a live dialogue (`Presence`, `Bots`, `Clocks`) use of each other and of
    the state `LiveDialogue.__init__` sets: declared for the type checker only, nothing at run time."""

    if TYPE_CHECKING:
        hub: LiveHub
        task: Task
        id: str
        occupants: dict[str, Occupant]
        stored: int
        started: float
        last_move: float
        idle_seconds: float
        wakeup: asyncio.Event
        sending: asyncio.Lock

        def view(self, party: str) -> dict[str, Any]: ...
        async def view_now(self, party: str) -> dict[str, Any]: ...
        async def send_everywhere(self, party: str, message: dict[str, Any]) -> None: ...
        async def changed(self) -> None: ...
        def changing(self) -> AbstractAsyncContextManager[None]: ...
        async def commit(self, move_id: str | None = None) -> None: ...


class Presence(LiveParts):
    """Connections and presence of a live dialogue's people (a part of `LiveDialogue`)."""

    def _partner_connected(self, party: str) -> bool:
        other = self.occupants[self.task.other(party)]
        return other.seat.kind == "bot" or bool(other.connections) or other.elsewhere

    async def typing(self, party: str) -> None:
        other = self.task.other(party)
        if self.occupants[other].seat.kind == "human":
            await self.send_everywhere(other, {"type": "typing"})

    async def connect(self, party: str, connection: Connection, *, deltas: bool = False) -> None:
        """A connection of `party`'s page; `deltas`: it takes delta state frames after the first full one."""
        occupant = self.occupants[party]
        occupant.connections.add(connection)
        occupant.frames.subscribe(connection, deltas=deltas)
        occupant.away_since = None
        await self.hub.mark_present(self.id, party, True)
        await self.resend(party, connection)
        await self._tell_partner(party, True)

    async def resend(self, party: str, connection: Connection) -> None:
        """The whole view again to one connection (it asked for a resync, or may have missed a frame)."""
        async with self.sending:  # in order with broadcasts (see `LiveDialogue.broadcast`)
            view = await self.view_now(party)
            await connection.send_text(encode(self.occupants[party].frames.full(connection, view)))

    async def disconnect(self, party: str, connection: Connection) -> None:
        occupant = self.occupants[party]
        occupant.connections.discard(connection)
        occupant.frames.forget(connection)
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

    async def refresh_presence(self) -> None:
        """Multi-process mode: which people have a connection on another worker (for clocks and views).
        The lease round does the same for every dialogue a worker holds (`Leases._presence_round`)."""
        cluster = self.hub.cluster
        if cluster is None:
            return
        parties = [party for party, occupant in self.occupants.items() if occupant.seat.kind == "human"]
        try:
            found = await cluster.all_present_elsewhere([(self.id, party) for party in parties])
        except ClusterUnavailable:
            return  # unknown while Redis is away: nobody is declared gone for it
        for party, elsewhere in zip(parties, found, strict=True):
            self.note_presence(party, elsewhere)

    def note_presence(self, party: str, elsewhere: bool) -> bool:
        """What another worker holds of `party`'s connections; whether it changes who is away."""
        occupant = self.occupants[party]
        occupant.elsewhere = elsewhere
        if occupant.connections or elsewhere:
            was, occupant.away_since = occupant.away_since, None
            return was is not None
        if occupant.away_since is None:
            occupant.away_since = time.time()
            return True
        return False

"""Who is connected: a party's seat, its websockets here, and (several workers) elsewhere.

A person who loses their connection has `reconnect_seconds` to come back (the clocks read
`away_since`); their partner is told. With several workers, presence lives in Redis: each
worker's lease round reads it for all the dialogues it holds, and a runner looks again before a
clock ends a dialogue.
"""

from __future__ import annotations

import asyncio
import time
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from duologue.core.agent import Agent
from duologue.web.cluster import ClusterUnavailable
from duologue.web.deltas import UNSHOWABLE, UNSHOWABLE_CLOSE, UNSHOWABLE_REASON, FrameLog, encode, frame_text
from duologue.web.storage import Seat

if TYPE_CHECKING:
    from duologue.core.task import Task
    from duologue.web.hub import LiveHub
    from duologue.web.study import Study


class Connection(Protocol):
    """What the live layer needs from a websocket."""

    async def send_text(self, data: str) -> None: ...


@dataclass
class Occupant:
    """Who sits in one party's seat of a live dialogue."""

    seat: Seat
    agent: Agent | None = None
    connections: dict[Any, None] = field(default_factory=dict)
    """This worker's websockets of the seat, oldest first (a dict as an ordered set)."""
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
        study: Study
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
        def grace_seconds(self) -> float: ...
        def hand_to_bot(self, party: str) -> None: ...
        async def view_now(self, party: str) -> dict[str, Any]: ...
        async def safe_view_now(self, party: str) -> dict[str, Any] | None: ...
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
        self._make_room(occupant)
        occupant.connections[connection] = None
        occupant.frames.subscribe(connection, deltas=deltas)
        occupant.away_since = None
        await self.hub.mark_present(self.id, party, True)
        await self.resend(party, connection)
        if occupant.seat.kind == "human":  # not a person whose seat a bot took over
            await self._tell_partner(party, True)

    def _make_room(self, occupant: Occupant) -> None:
        """At most `sockets_per_seat` connections per seat on this worker (each move is sent to
        every one of them): the oldest gives way to the newest. The newest tab is the one in front
        of the person; the oldest is a tab they left behind, or a connection a network change left
        half-open that the server has not noticed yet, so refusing the newest would lock out just
        the person whose network changed. The tab closed says why and does not reconnect by itself
        (a reload takes the seat back)."""
        while len(occupant.connections) >= self.hub.settings.sockets_per_seat:
            oldest = next(iter(occupant.connections))
            occupant.connections.pop(oldest, None)
            occupant.frames.forget(oldest)
            self.hub.in_background(_give_way(oldest))

    async def resend(self, party: str, connection: Connection) -> None:
        """The whole view again to one connection (it asked for a resync, or may have missed a frame)."""
        async with self.sending:  # in order with broadcasts (see `LiveDialogue.broadcast`)
            view = await self.safe_view_now(party)
            text = frame_text(self.occupants[party].frames.full(connection, view)) if view is not None else None
            if text is None:
                await connection.send_text(encode(UNSHOWABLE))
                await self.refuse_to_show(self.occupants[party], connection)
                return
            await connection.send_text(text)

    async def refuse_to_show(self, occupant: Occupant, connection: Any) -> None:
        """Close a page that was just sent `UNSHOWABLE`, with the code that stops it reconnecting
        into the same error (the task's bug is in the log)."""
        occupant.connections.pop(connection, None)
        occupant.frames.forget(connection)
        close = getattr(connection, "close", None)
        if close is not None:
            await close(code=UNSHOWABLE_CLOSE, reason=UNSHOWABLE_REASON)

    async def disconnect(self, party: str, connection: Connection) -> None:
        occupant = self.occupants[party]
        occupant.connections.pop(connection, None)
        occupant.frames.forget(connection)
        if not occupant.connections:
            await self.hub.mark_present(self.id, party, False)
            if not self.task.done and not occupant.elsewhere and occupant.seat.kind == "human":
                occupant.away_since = time.time()
                await self._tell_partner(party, False)
                self.wakeup.set()

    async def _tell_partner(self, party: str, connected: bool) -> None:
        other = self.task.other(party)
        if self.occupants[other].seat.kind == "human" and not self.task.done:
            await self.send_everywhere(other, {"type": "partner", "connected": connected, "reconnect_seconds": self.grace_seconds()})

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


GIVE_WAY_CODE = 4409
"""Close code of a tab that gave its seat's socket to a newer tab (the page then does not reconnect)."""
GIVE_WAY_REASON = "this dialogue is open in newer tabs; continue there, or reload this one"
GIVE_WAY_SECONDS = 5.0
"""How long the old tab's last frame may take before it is closed without it."""


async def _give_way(connection: Connection) -> None:
    """Tell an old tab why it is closed, and close it (a tab that stopped reading is just closed)."""
    close = getattr(connection, "close", None)
    try:
        async with asyncio.timeout(GIVE_WAY_SECONDS):
            await connection.send_text(encode({"type": "error", "status": 409, "reason": GIVE_WAY_REASON}))
    except Exception:  # noqa: BLE001  already closing, or not reading: closed all the same
        pass
    if close is not None:
        try:
            await close(code=GIVE_WAY_CODE, reason="open in newer tabs")
        except Exception:  # noqa: BLE001  closed meanwhile by the page itself
            pass


"""Several worker processes: dialogues shared through Redis (`duologue.web.cluster`).

Each dialogue's runner (bots, clocks) runs on the worker that holds its lease; every worker keeps
a replica in step from announced events (or storage) and relays frames to its own sockets. A
worker renews its leases, writes who is connected to it, and takes over dialogues nobody runs.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

from pydantic import TypeAdapter

from duologue.core.schema import Event
from duologue.web.cluster import Cluster, ClusterUnavailable

if TYPE_CHECKING:
    from duologue.web.live import LiveDialogue
    from duologue.web.settings import Settings
    from duologue.web.storage import Storage
    from duologue.web.study import Study

log = logging.getLogger(__name__)

EVENT = TypeAdapter(Event)


class Leases:
    """The several-workers part of `LiveHub`: leases, announcements, relayed frames, presence."""

    if TYPE_CHECKING:  # what `LiveHub` sets and defines, declared for the type checker only
        storage: Storage
        settings: Settings
        studies: dict[str, Study]
        dialogues: dict[str, LiveDialogue]
        owned: set[str]
        cluster: Cluster | None

        async def open(self, dialogue_id: str) -> LiveDialogue | None: ...

    async def join_cluster(self, url: str) -> None:
        """Multi-process mode: share dialogues with the other workers through Redis (`duologue.web.cluster`)."""
        self.cluster = Cluster(url, lease_seconds=self.settings.lease_seconds)
        loop = asyncio.get_running_loop()
        self._background = [
            loop.create_task(self.cluster.listen(self._on_message, self._on_reconnect), name="cluster listener"),
            loop.create_task(self._keep_leases(), name="cluster leases"),
        ]

    async def announce(self, dialogue_id: str, first: int = 0, events: list[Event] | None = None) -> None:
        if self.cluster is not None:
            stored = [e.model_dump(mode="json") for e in events or []]
            await self.cluster.publish(dialogue_id, {"type": "changed", "first": first, "events": stored})

    async def relay(self, dialogue_id: str, party: str, frame: dict[str, Any]) -> None:
        if self.cluster is not None:
            await self.cluster.publish(dialogue_id, {"type": "frame", "to": party, "frame": frame})

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
                await live.sync(known)
            await live.broadcast()
            live.wakeup.set()
        elif message["type"] == "frame" and message.get("to") in live.occupants:
            if message["frame"].get("type") == "partner":
                live.occupants[live.task.other(message["to"])].elsewhere = bool(message["frame"].get("connected"))
            await live.send(message["to"], message["frame"])

    async def _on_reconnect(self) -> None:
        """Subscribed (again): say again which sockets this worker holds (a restarted Redis lost
        them) and catch up on changes that happened while Redis was away, in the dialogues this
        worker has sockets of or runs (a bot whose partner is on another worker)."""
        assert self.cluster is not None
        await self.cluster.beat()
        await self.cluster.set_all_present([(live.id, party) for live in list(self.dialogues.values()) for party, occupant in live.occupants.items() if occupant.connections])
        for live in list(self.dialogues.values()):
            if live.id in self.owned or any(o.connections for o in live.occupants.values()):
                try:
                    await live.refresh()
                    await live.broadcast()
                    live.wakeup.set()
                except Exception as error:  # noqa: BLE001  one dialogue's refresh must not stop the others
                    log.warning("could not refresh %s: %s", live.id, error)

    async def _run_owned(self, live: LiveDialogue, *, fresh: bool = False) -> None:
        """Run a dialogue's bots and clocks while this worker holds its lease (`fresh`: one this
        worker has just started, with nothing stored that its replica lacks)."""
        assert self.cluster is not None
        try:
            if not await self.cluster.claim(live.id):
                return
        except ClusterUnavailable:
            return  # `_keep_leases` claims it once Redis is back
        self.owned.add(live.id)
        try:
            if not fresh:
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
            except Exception as error:  # noqa: BLE001  Redis or the database away: try again next round
                log.warning("lease round failed: %s", error)

    async def _leases_once(self) -> None:
        """One round, a few pipelined round trips whatever the number of dialogues: leases renewed,
        this worker's sockets announced, who is connected elsewhere read for every dialogue held
        here, and dialogues nobody runs taken over."""
        assert self.cluster is not None
        owned = list(self.owned)
        for dialogue_id, held in zip(owned, await self.cluster.claim_all(owned), strict=True):
            if not held:  # we were too slow and someone took it
                live = self.dialogues.get(dialogue_id)
                if live is not None and live.runner is not None:
                    live.runner.cancel()
                self.owned.discard(dialogue_id)
        await self.cluster.beat()
        await self._presence_round([live for live in list(self.dialogues.values()) if live.id in self.owned and not live.task.done])
        orphans = []
        for info in await self.storage.run(self.storage.dialogues, status="live"):
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

    async def _presence_round(self, owned: list[LiveDialogue]) -> None:
        """Who is connected on another worker, for the people of the dialogues this worker runs
        (their clocks need it) who have no socket here, in one round trip; a runner whose clocks
        that changes is woken. (A replica's page learns of its partner from relayed frames.)"""
        assert self.cluster is not None
        seats = [(live, party) for live in owned for party, occupant in live.occupants.items() if occupant.seat.kind == "human" and not occupant.connections]
        found = await self.cluster.all_present_elsewhere([(live.id, party) for live, party in seats])
        for (live, party), elsewhere in zip(seats, found, strict=True):
            if live.note_presence(party, elsewhere):
                live.wakeup.set()

"""Several workers keep their replicas in step from each other's notices, not from the database.

Two workers (hubs) in one process share a database and Redis, each holding one person's socket of
the same dialogue. A worker announces everything it stored since its last notice, which can repeat
events the other worker already has (they came from it): the replica must take just the new ones
and never read storage for them; each worker hears only the dialogues it holds (a channel per
dialogue).
"""

from __future__ import annotations

import asyncio

from duologue.core import actions
from duologue.web.cluster import Cluster
from duologue.web.hub import LiveHub
from duologue.web.storage import Storage
from duologue.web.study import Partner, Study
from web.conftest import fast_settings
from web.services import redis_server  # noqa: F401 (fixture)


class Socket:
    def __init__(self) -> None:
        self.frames: list[str] = []

    async def send_text(self, text: str) -> None:
        self.frames.append(text)


def test_replicas_follow_each_others_notices_without_reading_storage(tmp_path, redis_server):
    study = Study(id="people", task="casino-v0", partners=[Partner(kind="human")])
    settings = fast_settings(tmp_path, redis_url=redis_server.url)

    async def scenario() -> tuple[int, list, list, dict]:
        hubs = [LiveHub(Storage(settings.database_url), settings, {study.id: study}) for _ in range(2)]
        for hub in hubs:
            await hub.join_cluster(redis_server.url)
        await asyncio.sleep(0.3)  # both listeners subscribed
        first, second = hubs
        seats = await first.start(study, humans=["ann", "ben"], bot=None, pairing="people", scenario_key="k", scenario=None, seed=3)
        other = await first.start(study, humans=["cat", "dan"], bot=None, pairing="people", scenario_key="k", scenario=None, seed=4)
        dialogue = seats["ann"].dialogue_id
        lives = {"ann": await first.open(dialogue), "ben": await second.open(dialogue)}
        for name, live in lives.items():
            await live.connect(seats[name].party, Socket(), deltas=True)
        reads = []
        for hub in hubs:  # count every read of stored events from now on
            original = hub.storage.events
            hub.storage.events = lambda *a, _original=original, **k: reads.append(a) or _original(*a, **k)  # type: ignore[method-assign]
        for turn in range(8):
            name = "ann" if lives["ann"].task.to_move == seats["ann"].party else "ben"
            assert await lives[name].move(seats[name].party, actions.Say(text=f"line {turn}"), f"m{turn}")
            other_name = "ben" if name == "ann" else "ann"
            for _ in range(200):  # the notice reaches the other worker
                if len(lives[other_name].task.events) == len(lives[name].task.events):
                    break
                await asyncio.sleep(0.01)
        held = {"first": set(first.dialogues), "second": set(second.dialogues)}
        events = [[e.model_dump() for e in live.task.events] for live in lives.values()]
        for hub in hubs:
            await hub.close()
        assert other["cat"].dialogue_id not in held["second"]
        return len(reads), events[0], events[1], held

    reads, ann_sees, ben_sees, held = asyncio.run(scenario())
    assert reads == 0
    assert ann_sees == ben_sees and len(ann_sees) == 8


def test_a_worker_hears_only_the_dialogues_it_holds(tmp_path, redis_server):
    async def scenario() -> list[str]:
        heard: list[str] = []
        listener, speaker = Cluster(redis_server.url), Cluster(redis_server.url)

        async def handle(message: dict) -> None:
            heard.append(message["dialogue"])

        async def ready() -> None:
            pass

        task = asyncio.get_running_loop().create_task(listener.listen(handle, ready))
        await listener.follow("held")
        await asyncio.sleep(0.3)
        await speaker.publish("elsewhere", {"type": "changed", "first": 0, "events": []})
        await speaker.publish("held", {"type": "changed", "first": 0, "events": []})
        await listener.unfollow("held")
        await asyncio.sleep(0.3)
        await speaker.publish("held", {"type": "changed", "first": 1, "events": []})
        await asyncio.sleep(0.3)
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        await listener.close()
        await speaker.close()
        return heard

    assert asyncio.run(scenario()) == ["held"]


def test_a_page_that_stops_reading_is_closed_and_does_not_hold_up_its_partner(tmp_path, monkeypatch):
    """A dialogue's frames go out in order, one broadcast at a time: a socket that takes no frame
    (its page stopped reading) would hold up the partner's. It is closed after `SEND_SECONDS`."""
    from duologue.web import live as live_module

    monkeypatch.setattr(live_module, "SEND_SECONDS", 0.2)
    study = Study(id="people", task="casino-v0", partners=[Partner(kind="human")])
    settings = fast_settings(tmp_path)

    class Stuck(Socket):
        def __init__(self) -> None:
            super().__init__()
            self.closed_with: int | None = None

        async def send_text(self, text: str) -> None:
            if self.frames:  # takes the first frame, then never another
                await asyncio.Event().wait()
            self.frames.append(text)

        async def close(self, code: int = 1000) -> None:
            self.closed_with = code

    async def scenario() -> tuple[Stuck, Socket, bool]:
        hub = LiveHub(Storage(settings.database_url), settings, {study.id: study})
        seats = await hub.start(study, humans=["ann", "ben"], bot=None, pairing="people", scenario_key="k", scenario=None, seed=3)
        live = hub.dialogues[seats["ann"].dialogue_id]
        stuck, reading = Stuck(), Socket()
        await live.connect(seats["ann"].party, stuck, deltas=True)
        await live.connect(seats["ben"].party, reading, deltas=True)
        mover = "ann" if live.task.to_move == seats["ann"].party else "ben"
        before = len(reading.frames)
        assert await asyncio.wait_for(live.move(seats[mover].party, actions.Say(text="hello"), "m1"), 5)
        await asyncio.sleep(0.1)  # the close runs in the background
        still_connected = stuck in live.occupants[seats["ann"].party].connections
        shown = len(reading.frames) > before
        await hub.close()
        return stuck, reading, still_connected and shown

    stuck, reading, both = asyncio.run(asyncio.wait_for(scenario(), 20))  # without the limit a stuck page would hold this forever
    assert stuck.closed_with == 1013 and not both
    assert any('"hello"' in frame for frame in reading.frames)

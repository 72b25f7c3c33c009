"""Several server processes as one platform: what the workers share through Redis.

Multi-process mode is on when `Settings.redis_url` is set (`DUOLOGUE_REDIS_URL`); the database must
then be one all workers reach (PostgreSQL). Without it nothing here is used: one process, SQLite by
default, everything in memory.

How the workers cooperate (the database is the truth, Redis only coordinates):

* The stored events are the dialogue. Every worker that has a party's page open keeps a replica of
  the dialogue's task engine, brought up to date by replaying new stored events (`LiveDialogue.sync`).
* A change (a person's move on any worker, a bot's move, a clock ending the dialogue) is stepped on
  the worker's replica and its events stored in one transaction. Nothing is locked between
  workers: events are unique per (dialogue, seq) in the database, so of two workers that write
  event number n at the same moment one is refused; it rebuilds its replica from storage and tries
  its change again. A replica that missed a notice is caught the same way.
* After a change the worker publishes `changed`, with the new events, on the dialogue's own
  channel (`duologue:dialogue:<id>`), to which only the workers holding a replica of it listen;
  they apply the events and push the new view to their sockets. A lost message is harmless: the
  next notice shows the gap (storage is read) and a reconnect reads storage.
* One worker OWNS each live dialogue (a lease key with a TTL, renewed while it lives): the owner runs
  the bots and the clocks (time limit, idle, reconnect window). A worker that dies stops renewing;
  after `lease_seconds` any other worker claims the dialogue, rebuilds it from the stored events
  (same scenario and seed) and goes on, bots included. Leases are renewed in one pipelined round
  trip per round, whatever the number of dialogues.
* Presence (is the partner connected?) is a sorted set per dialogue and party: the workers holding
  that party's sockets, written when a socket opens or closes. A worker's marks count while its
  heartbeat (one key for all its sockets, renewed each lease round) is recent, so a dead worker's
  people count as gone. Each round reads it for the people the worker's own runners need.
* The lobby (`duologue.web.lobby_redis`) is a sorted set per study (participant -> arrival
  time). Pairing pops the two oldest in one Lua script, so two people waiting on different workers
  are paired with each other exactly once; the seat is handed over as a short-lived key the waiting
  workers read in rounds.
* Redis unavailable: moves are still stored (the database decides), notices wait for the next
  change or reconnect, the listener reconnects with backoff and subscribes again, and the lobby
  and leases are written again from the workers' memory once it is back.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
import uuid
from contextlib import asynccontextmanager
from typing import Any, AsyncIterator, Awaitable, Callable

import redis.asyncio as aioredis
from redis import __version__ as redis_version
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff, NoBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError
from redis.exceptions import TimeoutError as RedisTimeoutError

from duologue.web.lobby_redis import SharedLobby

log = logging.getLogger(__name__)

PREFIX = "duologue"


def channel(dialogue_id: str) -> str:
    """The pub/sub channel of one dialogue's notices."""
    return f"{PREFIX}:dialogue:{dialogue_id}"


class ClusterUnavailable(RuntimeError):
    """Redis cannot be reached now; the caller refuses cleanly and the client retries."""


# Takes every one of KEYS (locks) with token ARGV[1] for ARGV[2] ms, or none of them.
LOCKS_SCRIPT = """
for _, key in ipairs(KEYS) do
  if redis.call('EXISTS', key) == 1 then return 0 end
end
for _, key in ipairs(KEYS) do
  redis.call('SET', key, ARGV[1], 'PX', ARGV[2])
end
return 1
"""

UNLOCK_SCRIPT = """
for _, key in ipairs(KEYS) do
  if redis.call('GET', key) == ARGV[1] then redis.call('DEL', key) end
end
return 0
"""

RELEASE_SCRIPT = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""

# Keeps a lease alive, or takes it again after Redis lost it (a restart without persistence).
RENEW_SCRIPT = """
local holder = redis.call('GET', KEYS[1])
if holder == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) return 1 end
if not holder then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) return 1 end
return 0
"""


LOCK_SECONDS = 3.0
LOCK_WAIT_SECONDS = 5.0
POOL_CONNECTIONS = 64
"""Redis connections per worker process."""
POOL_WAIT_SECONDS = 5.0


def _driver_info() -> dict[str, Any]:
    """The client's name and version for Redis, given once: left to itself, redis-py 8 reads its
    own package metadata from disk for every connection it opens (a few ms each; a crowd arriving
    at a fresh worker opens its whole pool at once)."""
    try:
        from redis.driver_info import DriverInfo
    except ImportError:  # an older redis-py does not look its version up
        return {}
    return {"driver_info": DriverInfo(name="redis-py", lib_version=redis_version)}


class Cluster(SharedLobby):
    """This worker's connection to the others (the lobby's part: `duologue.web.lobby_redis`)."""

    prefix = PREFIX

    def __init__(self, url: str, *, lease_seconds: float = 5.0) -> None:
        self.url = url
        self.worker = uuid.uuid4().hex[:12]
        self.lease_ms = int(lease_seconds * 1000)
        # a pooled connection that died with a Redis restart is retried on a fresh one, not reported
        retry = Retry(ExponentialBackoff(cap=0.5, base=0.05), 3)
        # A blocking pool: when every connection is busy (hundreds of people joining at once), a
        # command waits its turn for up to `POOL_WAIT_SECONDS` instead of failing at once.
        pool = aioredis.BlockingConnectionPool.from_url(
            url,
            max_connections=POOL_CONNECTIONS,
            timeout=POOL_WAIT_SECONDS,
            decode_responses=True,
            socket_timeout=3,
            socket_connect_timeout=2,
            retry=retry,
            retry_on_error=[RedisConnectionError, RedisTimeoutError],
            **_driver_info(),
        )
        self.redis = aioredis.Redis(connection_pool=pool)
        self._renew = self.redis.register_script(RENEW_SCRIPT)
        self._following: set[str] = set()
        """The channels of the dialogues this worker holds a replica of."""
        self._pubsub: Any = None
        self._alive: set[str] = set()
        """The workers whose heartbeat was recent at this worker's last `beat`."""
        # The listener's own connection, without silent retries: a connection lost (a Redis
        # restart) must reach `listen`, which then catches up on the notices it missed; a pub/sub
        # connection that reconnected and subscribed again by itself would just miss them.
        self._listening = aioredis.Redis.from_url(url, decode_responses=True, socket_connect_timeout=2, retry=Retry(NoBackoff(), 0))

    async def close(self) -> None:
        await self._listening.aclose()
        await self.redis.aclose()

    async def _pipelined(self, fill: Callable[[Any], None]) -> list[Any]:
        """The commands `fill` queues on a pipeline, sent in one round trip (not a transaction)."""

        async def send() -> list[Any]:
            async with self.redis.pipeline(transaction=False) as pipe:
                fill(pipe)
                replies: list[Any] = await pipe.execute()
                return replies

        sent: list[Any] = await self._call(send)
        return sent

    async def _call(self, command: Callable[[], Awaitable[Any]]) -> Any:
        try:
            return await command()
        except (RedisError, OSError) as error:
            raise ClusterUnavailable(f"Redis is unavailable: {error}") from None

    # ------------------------------------------------------------------ locks and leases

    @asynccontextmanager
    async def locks(self, names: list[str], wait_seconds: float = LOCK_WAIT_SECONDS) -> AsyncIterator[None]:
        """Exclusive right to all of `names` at once (all or none, in one round trip), for a moment:
        it expires by itself if we die holding it. A lock outlives a dead holder by at most
        `LOCK_SECONDS`, shorter than a waiter's patience, so a waiter goes through instead of failing."""
        keys, token = [f"{PREFIX}:lock:{name}" for name in names], uuid.uuid4().hex
        deadline = time.monotonic() + wait_seconds
        while not await self._call(lambda: self.redis.eval(LOCKS_SCRIPT, len(keys), *keys, token, int(LOCK_SECONDS * 1000))):
            if time.monotonic() > deadline:
                raise ClusterUnavailable(f"{', '.join(names)} stayed locked for {wait_seconds:.0f} s")
            await asyncio.sleep(0.005)  # contention is rare (the same person seated from two tabs) and short
        try:
            yield
        finally:
            try:
                await self.redis.eval(UNLOCK_SCRIPT, len(keys), *keys, token)
            except (RedisError, OSError):
                pass  # they expire by themselves

    async def claim(self, dialogue_id: str) -> bool:
        """Become the dialogue's owner if nobody is (or we already are)."""
        return (await self.claim_all([dialogue_id]))[0]

    async def claim_all(self, dialogue_ids: list[str]) -> list[bool]:
        """`claim` for many dialogues in one pipelined round trip (a lease round renews them all)."""
        if not dialogue_ids:
            return []

        async def renew() -> list[Any]:
            async with self.redis.pipeline(transaction=False) as pipe:
                for dialogue_id in dialogue_ids:  # a registered script: sent once, then by its hash
                    await self._renew(keys=[f"{PREFIX}:owner:{dialogue_id}"], args=[self.worker, self.lease_ms], client=pipe)
                replies: list[Any] = await pipe.execute()
                return replies

        return [bool(held) for held in await self._call(renew)]

    async def owners(self, dialogue_ids: list[str]) -> dict[str, str | None]:
        """The owner of each dialogue, in one round trip (a lease round looks at every live dialogue)."""
        if not dialogue_ids:
            return {}
        found = await self._call(lambda: self.redis.mget([f"{PREFIX}:owner:{d}" for d in dialogue_ids]))
        return dict(zip(dialogue_ids, found, strict=True))  # MGET answers one value per key

    async def release(self, dialogue_id: str) -> None:
        try:
            await self.redis.eval(RELEASE_SCRIPT, 1, f"{PREFIX}:owner:{dialogue_id}", self.worker)
        except (RedisError, OSError):
            pass

    # ------------------------------------------------------------------ presence

    def _here(self, dialogue_id: str, party: str) -> str:
        return f"{PREFIX}:here:{dialogue_id}:{party}"

    async def set_present(self, dialogue_id: str, party: str, present: bool) -> None:
        """This worker holds (or no longer holds) a socket of this party: written when it changes,
        not every round; a worker that dies stops its heartbeat (`beat`), which makes its marks void."""
        if present:
            await self.set_all_present([(dialogue_id, party)])
        else:
            await self._call(lambda: self.redis.zrem(self._here(dialogue_id, party), self.worker))

    async def set_all_present(self, seats: list[tuple[str, str]]) -> None:
        """`set_present(..., True)` for many (dialogue, party) seats in one pipelined round trip
        (after a Redis restart, every socket of this worker again)."""
        if not seats:
            return
        now = time.time()

        def write(pipe: Any) -> None:
            for dialogue_id, party in seats:
                pipe.zadd(self._here(dialogue_id, party), {self.worker: now})
                pipe.expire(self._here(dialogue_id, party), 6 * 3600)

        await self._pipelined(write)

    async def beat(self) -> None:
        """This worker is alive for another `alive_seconds`; the workers alive now are noted
        (one round trip, each lease round)."""
        now = time.time()

        def beat(pipe: Any) -> None:
            pipe.zadd(f"{PREFIX}:workers", {self.worker: now})
            pipe.zremrangebyscore(f"{PREFIX}:workers", "-inf", now - 3600)
            pipe.zrangebyscore(f"{PREFIX}:workers", now - self.alive_seconds, "+inf")

        self._alive = set((await self._pipelined(beat))[-1])

    async def present_elsewhere(self, dialogue_id: str, party: str) -> bool:
        """Whether another worker holds a live socket of this party."""
        return (await self.all_present_elsewhere([(dialogue_id, party)]))[0]

    async def all_present_elsewhere(self, seats: list[tuple[str, str]]) -> list[bool]:
        """`present_elsewhere` for many (dialogue, party) seats in one pipelined round trip: a
        worker's mark counts while its heartbeat is recent (as of this worker's last `beat`)."""
        if not seats:
            return []

        def read(pipe: Any) -> None:
            for dialogue_id, party in seats:
                pipe.zrange(self._here(dialogue_id, party), 0, -1)

        return [any(worker != self.worker and worker in self._alive for worker in found) for found in await self._pipelined(read)]

    # ------------------------------------------------------------------ messages between workers

    async def publish(self, dialogue_id: str, message: dict[str, Any]) -> None:
        """Tell the workers that follow this dialogue (best effort: a lost message is repaired by the next one)."""
        try:
            await self.redis.publish(channel(dialogue_id), json.dumps({**message, "dialogue": dialogue_id, "origin": self.worker}))
        except (RedisError, OSError) as error:
            log.warning("could not publish %s: %s", message.get("type"), error)

    async def follow(self, dialogue_id: str) -> None:
        """Hear the notices of this dialogue from now on (this worker holds a replica of it)."""
        name = channel(dialogue_id)
        if name in self._following:
            return
        self._following.add(name)
        if self._pubsub is not None:
            try:
                await self._pubsub.subscribe(name)
            except (RedisError, OSError) as error:  # subscribed again with the rest after a reconnect
                log.warning("could not follow %s: %s", dialogue_id, error)

    async def unfollow(self, dialogue_id: str) -> None:
        name = channel(dialogue_id)
        self._following.discard(name)
        if self._pubsub is not None:
            try:
                await self._pubsub.unsubscribe(name)
            except (RedisError, OSError):
                pass  # the subscription ends with the connection anyway

    async def listen(self, handle: Callable[[dict[str, Any]], Awaitable[None]], on_reconnect: Callable[[], Awaitable[None]]) -> None:
        """Deliver the notices of the dialogues this worker follows to `handle` forever, subscribing
        again after Redis restarts."""
        backoff = 0.1
        while True:
            pubsub = self._listening.pubsub(ignore_subscribe_messages=True)
            try:
                await pubsub.subscribe(f"{PREFIX}:workers")  # a channel of its own, so the connection listens from the start
                if self._following:
                    await pubsub.subscribe(*self._following)
                self._pubsub = pubsub
                backoff = 0.1
                await on_reconnect()
                while True:
                    message = await pubsub.get_message(timeout=1.0)
                    if message is None or message.get("type") != "message":
                        continue
                    data = json.loads(message["data"])
                    if data.get("origin") == self.worker:
                        continue
                    try:
                        await handle(data)
                    except Exception:
                        log.exception("handling %s failed", data.get("type"))
            except asyncio.CancelledError:
                raise
            except Exception as error:  # noqa: BLE001  Redis went away: wait, then subscribe again
                log.warning("lost Redis (%s); retrying in %.1f s", error, backoff)
                await asyncio.sleep(backoff)
                backoff = min(backoff * 2, 2.0)
            finally:
                self._pubsub = None
                try:
                    await pubsub.aclose()
                except Exception:  # noqa: BLE001  closing a connection already lost
                    pass

"""Several server processes as one platform: what the workers share through Redis.

Multi-process mode is on when `Settings.redis_url` is set (`DUOLOGUE_REDIS_URL`); the database must
then be one all workers reach (PostgreSQL). Without it nothing here is used: one process, SQLite by
default, everything in memory.

How the workers cooperate (the database is the truth, Redis only coordinates):

* The stored events are the dialogue. Every worker that has a party's page open keeps a replica of
  the dialogue's task engine, brought up to date by replaying new stored events (`LiveDialogue.sync`).
* A change (a person's move on any worker, a bot's move, a clock ending the dialogue) is made under
  a short Redis lock per dialogue (`lock`): sync, step the engine, store the new events in one
  transaction, release. Events are unique per (dialogue, seq) in the database, so even a lock that
  expired cannot produce two event number n; a failed store is rolled back by rebuilding the replica.
* After a change the worker publishes `changed` on one pub/sub channel; every worker holding a
  replica of that dialogue syncs it and pushes the new view to the sockets it holds. A lost message
  is harmless: a view is the whole state, the next change or a reconnect repairs it.
* One worker OWNS each live dialogue (a lease key with a TTL, renewed while it lives): the owner runs
  the bots and the clocks (time limit, idle, reconnect window). A worker that dies stops renewing;
  after `lease_seconds` any other worker claims the dialogue, rebuilds it from the stored events
  (same scenario and seed) and goes on, bots included.
* Presence (is the partner connected?) is a sorted set per dialogue and party: the workers holding
  that party's sockets, with an expiry they keep pushing forward.
* The lobby is a sorted set per study (participant -> arrival time). Pairing pops the two oldest in
  one Lua script, so two people waiting on different workers are paired with each other exactly
  once; the seat is handed over as a short-lived key the waiting worker polls.
* Redis unavailable: moves are refused with 503 (the page retries), the listener reconnects with
  backoff, and the lobby and leases are written again from the workers' memory once it is back.
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
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError
from redis.exceptions import TimeoutError as RedisTimeoutError

log = logging.getLogger(__name__)

PREFIX = "duologue"
CHANNEL = f"{PREFIX}:changes"


class ClusterUnavailable(RuntimeError):
    """Redis cannot be reached now; the caller refuses cleanly and the client retries."""


# Pops the two longest-waiting participants and marks both as being seated, atomically.
PAIR_SCRIPT = """
local found = redis.call('ZRANGE', KEYS[1], 0, 1, 'WITHSCORES')
if #found < 4 then return {} end
redis.call('ZREM', KEYS[1], found[1], found[3])
redis.call('SET', ARGV[1] .. found[1], '1', 'EX', 60)
redis.call('SET', ARGV[1] .. found[3], '1', 'EX', 60)
return found
"""

# Takes one waiting participant out of the lobby (for a bot partner) unless someone else already did.
TAKE_SCRIPT = """
if redis.call('ZREM', KEYS[1], ARGV[1]) == 1 then
  redis.call('SET', KEYS[2], '1', 'EX', 60)
  return 1
end
return 0
"""

# Puts a waiting participant (back) into the lobby unless they are being seated or have a seat.
KEEP_SCRIPT = """
if redis.call('EXISTS', KEYS[2]) == 1 or redis.call('EXISTS', KEYS[3]) == 1 then return 0 end
return redis.call('ZADD', KEYS[1], 'NX', ARGV[2], ARGV[1])
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


STORED_COUNT_SECONDS = 6 * 3600
"""How long a dialogue's stored-event count is kept in Redis (longer than any dialogue lasts)."""
LOCK_SECONDS = 3.0
LOCK_WAIT_SECONDS = 5.0
POOL_CONNECTIONS = 64
"""Redis connections per worker process."""
POOL_WAIT_SECONDS = 5.0


class Cluster:
    """This worker's connection to the others."""

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
        )
        self.redis = aioredis.Redis(connection_pool=pool)

    async def close(self) -> None:
        await self.redis.aclose()

    async def _call(self, command: Callable[[], Awaitable[Any]]) -> Any:
        try:
            return await command()
        except (RedisError, OSError) as error:
            raise ClusterUnavailable(f"Redis is unavailable: {error}") from None

    # ------------------------------------------------------------------ locks and leases

    @asynccontextmanager
    async def lock(self, dialogue_id: str, wait_seconds: float = LOCK_WAIT_SECONDS) -> AsyncIterator[None]:
        """Exclusive right to change one dialogue for a moment (auto-expires if we die holding it).

        The lock outlives a dead holder by at most `LOCK_SECONDS`, shorter than a waiter's patience,
        so a move that meets a crashed worker's lock waits and goes through instead of failing. A
        holder slower than that is still safe: events are unique per (dialogue, seq) in storage.
        """
        key, token = f"{PREFIX}:lock:{dialogue_id}", uuid.uuid4().hex
        deadline = time.monotonic() + wait_seconds
        while not await self._call(lambda: self.redis.set(key, token, nx=True, px=int(LOCK_SECONDS * 1000))):
            if time.monotonic() > deadline:
                raise ClusterUnavailable(f"dialogue {dialogue_id} stayed locked for {wait_seconds:.0f} s")
            await asyncio.sleep(0.005)  # contention is rare (one dialogue, two people) and short
        try:
            yield
        finally:
            try:
                await self.redis.eval(RELEASE_SCRIPT, 1, key, token)
            except (RedisError, OSError):
                pass  # it expires by itself

    async def claim(self, dialogue_id: str) -> bool:
        """Become the dialogue's owner if nobody is (or we already are)."""
        return bool(await self._call(lambda: self.redis.eval(RENEW_SCRIPT, 1, f"{PREFIX}:owner:{dialogue_id}", self.worker, self.lease_ms)))

    async def stored_count(self, dialogue_id: str) -> int | None:
        """The number of stored events the last writer noted (a hint: storage stays the truth)."""
        value = await self._call(lambda: self.redis.get(f"{PREFIX}:stored:{dialogue_id}"))
        return int(value) if value is not None else None

    async def set_stored_count(self, dialogue_id: str, count: int) -> None:
        """Note the count after a write; if that fails, drop the old note so nobody trusts it."""
        key = f"{PREFIX}:stored:{dialogue_id}"
        try:
            await self.redis.set(key, count, ex=STORED_COUNT_SECONDS)
        except (RedisError, OSError):
            try:
                await self.redis.delete(key)
            except (RedisError, OSError):
                pass  # Redis is away; the lock is too, and a later writer notes the count again

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

    async def set_present(self, dialogue_id: str, party: str, present: bool) -> None:
        if present:
            await self.set_all_present([(dialogue_id, party)])
        else:
            await self._call(lambda: self.redis.zrem(f"{PREFIX}:here:{dialogue_id}:{party}", self.worker))

    async def set_all_present(self, seats: list[tuple[str, str]]) -> None:
        """`set_present(..., True)` for many (dialogue, party) seats in one pipelined round trip."""
        if not seats:
            return
        until = time.time() + self.lease_ms / 1000

        async def write() -> None:
            async with self.redis.pipeline(transaction=False) as pipe:
                for dialogue_id, party in seats:
                    key = f"{PREFIX}:here:{dialogue_id}:{party}"
                    pipe.zadd(key, {self.worker: until})
                    pipe.expire(key, 3600)
                await pipe.execute()

        await self._call(write)

    async def present_elsewhere(self, dialogue_id: str, party: str) -> bool:
        """Whether another worker holds a live socket of this party."""
        key = f"{PREFIX}:here:{dialogue_id}:{party}"
        found = await self._call(lambda: self.redis.zrangebyscore(key, time.time(), "+inf"))
        return any(worker != self.worker for worker in found)

    # ------------------------------------------------------------------ messages between workers

    async def publish(self, message: dict[str, Any]) -> None:
        """Tell the other workers (best effort: a lost message is repaired by the next one)."""
        try:
            await self.redis.publish(CHANNEL, json.dumps({**message, "origin": self.worker}))
        except (RedisError, OSError) as error:
            log.warning("could not publish %s: %s", message.get("type"), error)

    async def listen(self, handle: Callable[[dict[str, Any]], Awaitable[None]], on_reconnect: Callable[[], Awaitable[None]]) -> None:
        """Deliver the other workers' messages to `handle` forever, subscribing again after Redis restarts."""
        backoff = 0.1
        while True:
            pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
            try:
                await pubsub.subscribe(CHANNEL)
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
                try:
                    await pubsub.aclose()
                except Exception:  # noqa: BLE001  closing a connection already lost
                    pass

    # ------------------------------------------------------------------ the lobby

    def _lobby(self, study_id: str) -> str:
        return f"{PREFIX}:lobby:{study_id}"

    def _seating(self, study_id: str) -> str:
        return f"{PREFIX}:seating:{study_id}:"

    def _seat_key(self, study_id: str, participant: str) -> str:
        return f"{PREFIX}:seat:{study_id}:{participant}"

    def _alive_key(self, study_id: str, participant: str) -> str:
        return f"{PREFIX}:waiting:{study_id}:{participant}"

    @property
    def alive_seconds(self) -> float:
        """A waiter not kept alive this long (its worker died) is a ghost: never paired, dropped."""
        return max(2.0, 2 * self.lease_ms / 1000)

    async def _heartbeat(self, study_id: str, participant: str) -> None:
        await self._call(lambda: self.redis.set(self._alive_key(study_id, participant), "1", px=int(self.alive_seconds * 1000)))

    async def lobby_enter(self, study_id: str, participant: str, since: float) -> None:
        """A participant starts waiting (a seat handed over earlier and never picked up is dropped)."""
        await self._call(lambda: self.redis.delete(self._seat_key(study_id, participant), self._seating(study_id) + participant))
        await self._heartbeat(study_id, participant)
        await self._call(lambda: self.redis.zadd(self._lobby(study_id), {participant: since}))

    async def lobby_keep(self, study_id: str, participant: str, since: float) -> None:
        """Still waiting: alive for another while, and back into the lobby if Redis lost it
        (restart), unless being seated."""
        await self._heartbeat(study_id, participant)
        keys = [self._lobby(study_id), self._seating(study_id) + participant, self._seat_key(study_id, participant)]
        await self._call(lambda: self.redis.eval(KEEP_SCRIPT, 3, *keys, participant, since))

    async def lobby_alive(self, study_id: str, participants: list[str]) -> list[bool]:
        """Whether each participant's waiting worker still keeps them alive (False: a ghost)."""
        if not participants:
            return []
        found = await self._call(lambda: self.redis.mget([self._alive_key(study_id, p) for p in participants]))
        return [value is not None for value in found]

    async def lobby_drop(self, study_id: str, participant: str) -> None:
        """Forget a ghost taken out of the lobby (nobody waits for it any more)."""
        await self._call(lambda: self.redis.delete(self._seating(study_id) + participant, self._alive_key(study_id, participant)))

    async def lobby_leave(self, study_id: str, participant: str) -> None:
        try:
            await self.redis.zrem(self._lobby(study_id), participant)
            await self.redis.delete(self._alive_key(study_id, participant))
        except (RedisError, OSError):
            pass

    async def lobby_pair(self, study_id: str) -> list[tuple[str, float]]:
        """The two longest-waiting participants, taken out of the lobby together (or nobody)."""
        found = await self._call(lambda: self.redis.eval(PAIR_SCRIPT, 1, self._lobby(study_id), self._seating(study_id)))
        return [(found[i], float(found[i + 1])) for i in range(0, len(found), 2)]

    async def lobby_take(self, study_id: str, participant: str) -> bool:
        """Take one participant out of the lobby (for a bot); False when a pairing took them first."""
        keys = [self._lobby(study_id), self._seating(study_id) + participant]
        return bool(await self._call(lambda: self.redis.eval(TAKE_SCRIPT, 2, *keys, participant)))

    async def lobby_return(self, study_id: str, waiting: list[tuple[str, float]]) -> None:
        """Put participants back (their dialogue could not be started)."""
        for participant, since in waiting:
            await self._return_one(study_id, participant, since)

    async def _return_one(self, study_id: str, participant: str, since: float) -> None:
        await self._call(lambda: self.redis.delete(self._seating(study_id) + participant))
        await self._call(lambda: self.redis.zadd(self._lobby(study_id), {participant: since}))

    async def hand_seat(self, study_id: str, participant: str, token: str) -> None:
        """Tell the worker where `participant` waits which seat they got."""
        await self._call(lambda: self.redis.set(self._seat_key(study_id, participant), token, ex=300))
        await self._call(lambda: self.redis.delete(self._seating(study_id) + participant))

    async def pick_up_seat(self, study_id: str, participant: str) -> str | None:
        return await self._call(lambda: self.redis.getdel(self._seat_key(study_id, participant)))

    async def lobby_size(self, study_id: str) -> int:
        return int(await self._call(lambda: self.redis.zcard(self._lobby(study_id))))

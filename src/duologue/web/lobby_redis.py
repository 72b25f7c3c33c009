"""Several workers: the studies' lobbies in Redis (a part of `duologue.web.cluster.Cluster`).

A study's lobby is a sorted set (participant -> arrival time). Each waiting participant has a
heartbeat key its worker renews; pairing pops the two oldest whose heartbeat is alive in one Lua
script (a waiter whose worker died is dropped, never paired), marks them as being seated, and the
seat is handed over as a short-lived key that every worker holding a tab of the person reads in
its lobby rounds. `duologue.web.matchmaker` decides who is paired; this module only keeps the keys.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Awaitable, Callable

from redis.exceptions import RedisError

# Pops up to ARGV[3] pairs of the longest-waiting participants whose worker still keeps them alive
# (ARGV[2] .. participant exists) and marks each as being seated (ARGV[1] .. participant); a waiter
# nobody keeps alive (its worker died) is dropped on the way, never paired; an odd one out goes back.
PAIRS_SCRIPT = """
local out = {}
local pending, pending_score = nil, nil
local pairs = 0
while pairs < tonumber(ARGV[3]) do
  local found = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  if #found == 0 then break end
  redis.call('ZREM', KEYS[1], found[1])
  if redis.call('EXISTS', ARGV[2] .. found[1]) == 1 then
    if pending then
      redis.call('SET', ARGV[1] .. pending, '1', 'EX', 60)
      redis.call('SET', ARGV[1] .. found[1], '1', 'EX', 60)
      table.insert(out, pending)
      table.insert(out, pending_score)
      table.insert(out, found[1])
      table.insert(out, found[2])
      pending = nil
      pairs = pairs + 1
    else
      pending, pending_score = found[1], found[2]
    end
  end
end
if pending then redis.call('ZADD', KEYS[1], pending_score, pending) end
return out
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


class SharedLobby:
    """The lobby's Redis keys and commands, for `Cluster` (which supplies the connection)."""

    if TYPE_CHECKING:  # what `Cluster` sets and defines, declared for the type checker only
        prefix: str
        redis: Any
        lease_ms: int

        async def _call(self, command: Callable[[], Awaitable[Any]]) -> Any: ...
        async def _pipelined(self, fill: Callable[[Any], None]) -> list[Any]: ...

    def _lobby(self, study_id: str) -> str:
        return f"{self.prefix}:lobby:{study_id}"

    def _seating(self, study_id: str) -> str:
        return f"{self.prefix}:seating:{study_id}:"

    def _seat_key(self, study_id: str, participant: str) -> str:
        return f"{self.prefix}:seat:{study_id}:{participant}"

    def _alive_key(self, study_id: str, participant: str) -> str:
        return f"{self.prefix}:waiting:{study_id}:{participant}"

    @property
    def alive_seconds(self) -> float:
        """A waiter not kept alive this long (its worker died) is a ghost: never paired, dropped."""
        return max(2.0, 2 * self.lease_ms / 1000)

    async def lobby_enter(self, study_id: str, participant: str, since: float) -> None:
        """A participant starts waiting (a seat handed over earlier is dropped), in one round trip."""

        def enter(pipe: Any) -> None:
            pipe.delete(self._seat_key(study_id, participant), self._seating(study_id) + participant)
            pipe.set(self._alive_key(study_id, participant), "1", px=int(self.alive_seconds * 1000))
            pipe.zadd(self._lobby(study_id), {participant: since})

        await self._pipelined(enter)

    async def lobby_round(self, study_id: str, waiting: list[tuple[str, float]], *, keep: bool) -> list[dict[str, Any] | None]:
        """For this worker's waiters (participant, arrival) of a study, in one round trip: the seat
        handed to each (`hand_seat`), or None; with `keep`, also a heartbeat for each and, after a
        Redis restart lost the lobby, each put back unless being seated or already seated."""

        def round_trip(pipe: Any) -> None:
            for participant, _ in waiting:
                pipe.get(self._seat_key(study_id, participant))
            if keep:
                for participant, since in waiting:
                    pipe.set(self._alive_key(study_id, participant), "1", px=int(self.alive_seconds * 1000))
                    keys = [self._lobby(study_id), self._seating(study_id) + participant, self._seat_key(study_id, participant)]
                    pipe.eval(KEEP_SCRIPT, 3, *keys, participant, since)

        found = await self._pipelined(round_trip)
        return [json.loads(value) if value else None for value in found[: len(waiting)]]

    async def lobby_drop(self, study_id: str, participants: list[str]) -> None:
        """Forget participants taken out of the lobby who will not wait on (seated already)."""
        keys = [key for p in participants for key in (self._seating(study_id) + p, self._alive_key(study_id, p))]
        if keys:
            await self._call(lambda: self.redis.delete(*keys))

    async def lobby_leave(self, study_id: str, participant: str) -> None:
        try:
            await self.redis.zrem(self._lobby(study_id), participant)
            await self.redis.delete(self._alive_key(study_id, participant))
        except (RedisError, OSError):
            pass

    async def lobby_pairs(self, study_id: str, limit: int) -> list[list[tuple[str, float]]]:
        """Up to `limit` pairs of the longest-waiting participants, taken out of the lobby together
        (ghosts dropped on the way), in one round trip."""
        found = await self._call(lambda: self.redis.eval(PAIRS_SCRIPT, 1, self._lobby(study_id), self._seating(study_id), self._alive_key(study_id, ""), limit))
        people = [(found[i], float(found[i + 1])) for i in range(0, len(found), 2)]
        return [people[i : i + 2] for i in range(0, len(people), 2)]

    async def lobby_take(self, study_id: str, participant: str) -> bool:
        """Take one participant out of the lobby (for a bot); False when a pairing took them first."""
        keys = [self._lobby(study_id), self._seating(study_id) + participant]
        return bool(await self._call(lambda: self.redis.eval(TAKE_SCRIPT, 2, *keys, participant)))

    async def lobby_return(self, study_id: str, waiting: list[tuple[str, float]]) -> None:
        """Put participants back (their dialogue could not be started), in one round trip."""
        if not waiting:
            return

        def put_back(pipe: Any) -> None:
            for participant, since in waiting:
                pipe.delete(self._seating(study_id) + participant)
                pipe.zadd(self._lobby(study_id), {participant: since})

        await self._pipelined(put_back)

    async def hand_seats(self, study_id: str, seats: dict[str, dict[str, Any]]) -> None:
        """Tell every worker where each participant waits (every tab) which seat they got, in one
        round trip; kept a few minutes, for a tab that looks late, and dropped when the person
        enters a lobby again."""

        def hand(pipe: Any) -> None:
            for participant, seat in seats.items():
                pipe.set(self._seat_key(study_id, participant), json.dumps(seat), ex=300)
                pipe.delete(self._seating(study_id) + participant)

        await self._pipelined(hand)

    async def lobby_size(self, study_id: str) -> int:
        return int(await self._call(lambda: self.redis.zcard(self._lobby(study_id))))

    async def lobby_members(self, study_id: str) -> list[tuple[str, float]]:
        """Who waits in a study's lobby, on any worker, with since when (the admin's monitor)."""
        found = await self._call(lambda: self.redis.zrange(self._lobby(study_id), 0, -1, withscores=True))
        return [(member.decode() if isinstance(member, bytes) else str(member), float(score)) for member, score in found]

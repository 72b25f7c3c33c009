"""Matchmaking: people wait in a study's lobby and are paired with a person or, after a wait, a bot.

Rules: a participant is never paired with themselves (two tabs with the same id are one person);
a returning participant gets their unfinished dialogue back; quotas per partner type and per
scenario are respected (a full study says so instead of pairing); a bot takes the seat after the
study's `bot_wait_seconds`, or at once when the study allows no human partner.

With several worker processes (`Settings.redis_url`) the waiting list lives in Redis instead
(`duologue.web.cluster`). Each worker looks after its own waiters in rounds, one pipelined Redis
round trip per study and round whatever the number of waiters (the seats handed to them; now and
then a heartbeat); the two longest-waiting people of a study are taken out together by one atomic
script (whichever worker they wait on), and a bot is given only to a waiter that an atomic removal
proves nobody has paired meanwhile. A seat is handed over through Redis, so every tab of the
person, on any worker, gets the same one.

Everything that reads or writes the database runs in the storage's thread (`Storage.run`), and
a study's pairing rounds run one at a time in each process (`_rounds`), so two rounds never seat
the same waiter nor overfill a quota between their count and their start.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from dataclasses import asdict, dataclass, field
from typing import Any

from duologue.web.cluster import ClusterUnavailable
from duologue.web.hub import LiveHub, Made
from duologue.web.storage import DialogueInfo, Seat, Storage, StorageUnavailable
from duologue.web.study import Partner, ScenarioPool, Study


log = logging.getLogger(__name__)

ENTER_PATIENCE_SECONDS = 20.0
"""How long entering a shared lobby is retried while Redis is too busy to answer, before refusing."""
PAIRS_AT_ONCE = 8
"""Pairs a lobby round makes at once: in one visit to the storage's thread (one process), or taken
out of the shared lobby and seated side by side (several workers)."""


class LobbyRefused(Exception):
    """A participant who cannot be paired (study full, already took part). The message says why."""


@dataclass
class Waiter:
    participant_id: str
    since: float
    ticket: asyncio.Future[Seat] = field(repr=False)


class Matchmaker:
    """The lobbies of all studies."""

    def __init__(self, studies: dict[str, Study], storage: Storage, hub: LiveHub, *, tick_seconds: float = 0.2) -> None:
        self.studies = studies
        self.storage = storage
        self.hub = hub
        self.tick_seconds = tick_seconds
        self.waiting: dict[str, dict[str, Waiter]] = {}
        self.pools: dict[str, ScenarioPool] = {}
        self.rng = random.Random()
        self._ticker: asyncio.Task[Any] | None = None
        self._rounds: dict[str, asyncio.Lock] = {}
        self._kept: dict[str, float] = {}
        """Per study, monotonic time of the last heartbeat for this worker's waiters (several workers)."""

    def pool(self, study: Study) -> ScenarioPool:
        if study.id not in self.pools:
            self.pools[study.id] = ScenarioPool(study)
        return self.pools[study.id]

    def waiting_count(self) -> dict[str, int]:
        return {study: len(waiters) for study, waiters in self.waiting.items() if waiters}

    def _round(self, study: Study) -> asyncio.Lock:
        return self._rounds.setdefault(study.id, asyncio.Lock())

    # ------------------------------------------------------------------ arriving

    def _existing(self, seats: list[tuple[Seat, DialogueInfo]]) -> Seat | None:
        """Among a participant's seats, one to send them back to: live, or finished with the questionnaire open."""
        for seat, info in reversed(seats):
            if self.hub.reachable(info):
                return seat
            if info.status == "finished" and not seat.questionnaire_done:
                return seat
        return None

    async def existing_seat(self, study: Study, participant_id: str) -> Seat | None:
        """A dialogue to send a returning participant back to."""
        return self._existing(await self.storage.run(self.storage.seats_of_participant, participant_id, study.id))

    def _arrival(self, study: Study, participant_id: str) -> tuple[list[tuple[Seat, DialogueInfo]], list[Partner], int]:
        """In the storage's thread, at once: the participant's seats so far, the partners still
        open, and how many of the seats count toward `max_dialogues_per_participant`: a dialogue set
        aside as too short counts only for a person who still got a code for it (the page that
        refused one a code promised they may join again)."""
        taken = self.storage.seats_of_participant(participant_id, study.id)
        used = len(taken)
        limit = study.max_dialogues_per_participant
        if limit is not None and used >= limit:
            aside = self.storage.set_aside_among([info.id for _, info in taken])
            used = sum(1 for seat, info in taken if info.id not in aside or seat.completion_code)
        return taken, self._open(study), used

    async def join(self, study: Study, participant_id: str) -> Seat:
        """Wait until this participant has a seat. Cancel the await to leave the lobby."""
        taken, open_partners, used = await self.storage.run(self._arrival, study, participant_id)
        seat = self._existing(taken)
        if seat is not None:
            return seat
        limit = study.max_dialogues_per_participant
        if limit is not None and used >= limit:
            raise LobbyRefused("you have already taken part in this study; thank you!")
        if open_partners == []:
            raise LobbyRefused("this study is full; thank you for your interest")
        since = time.time()
        if self.hub.cluster is not None:
            await self._enter_shared(study, participant_id, since)
        lobby = self.waiting.setdefault(study.id, {})
        previous = lobby.pop(participant_id, None)
        if previous is not None and not previous.ticket.done():
            previous.ticket.set_exception(LobbyRefused("you joined again from another window"))
        ticket: asyncio.Future[Seat] = asyncio.get_running_loop().create_future()
        waiter = Waiter(participant_id, since, ticket)
        lobby[participant_id] = waiter
        self._ensure_ticker()
        seated = False
        try:
            if self.hub.cluster is None:
                await self._pair_humans(study)
            seat = await ticket
            seated = True
            return seat
        finally:
            mine = lobby.get(participant_id) is waiter
            if mine:
                del lobby[participant_id]
            if mine and not seated and self.hub.cluster is not None:
                await self.hub.cluster.lobby_leave(study.id, participant_id)

    @staticmethod
    def _seat(waiter: Waiter, seat: Seat) -> None:
        if not waiter.ticket.done():
            waiter.ticket.set_result(seat)

    @staticmethod
    def _refuse(waiter: Waiter, reason: str) -> None:
        if not waiter.ticket.done():
            waiter.ticket.set_exception(LobbyRefused(reason))

    # ------------------------------------------------------------------ pairing

    def _open(self, study: Study, counts: dict[str, int] | None = None) -> list[Partner]:
        """Partner types whose quota is not full (counting live and finished dialogues); reads storage."""
        counts = counts if counts is not None else self.storage.count_by(study.id, "pairing")
        return [p for p in study.partners if study.quotas.get(p.pairing) is None or counts.get(p.pairing, 0) < study.quotas[p.pairing]]

    async def _partners_open(self, study: Study) -> list[Partner]:
        return await self.storage.run(self._open, study)

    def _create(self, study: Study, humans: list[str], candidates: list[Partner]) -> Made | None:
        """In the storage's thread, as one step: the least used of `candidates` whose quota is not
        full, a scenario with room, and the dialogue made and stored (None: no room left)."""
        counts = self.storage.count_by(study.id, "pairing")
        open_now = [p for p in candidates if p in self._open(study, counts)]
        if not open_now:
            return None
        fewest = min(counts.get(p.pairing, 0) for p in open_now)
        partner = next(p for p in open_now if counts.get(p.pairing, 0) == fewest)
        choice = self.pool(study).choose(self.storage.count_pairs(study.id), partner.pairing, self.rng)
        if choice is None:
            return None
        key, scenario, seed = choice
        return self.hub.create(study, humans=humans, bot=partner.agent if partner.kind == "bot" else None, pairing=partner.pairing, scenario_key=key, scenario=scenario, seed=seed)

    def _create_pairs(self, study: Study, pairs: list[list[str]], candidates: list[Partner]) -> list[Made]:
        """`_create` for each pair in turn, in one visit to the storage's thread; stops at the first
        pair with no room (the quota or every scenario is full), so it may return fewer."""
        made: list[Made] = []
        for humans in pairs:
            one = self._create(study, humans, candidates)
            if one is None:
                break
            made.append(one)
        return made

    async def _start(self, study: Study, humans: list[str], candidates: list[Partner]) -> dict[str, Seat] | None:
        """A dialogue for these people with one of `candidates` (`_create`), running; their seats."""
        made = await self.storage.run(self._create, study, humans, candidates)
        return await self.hub.launch(study, made) if made is not None else None

    async def _pair_humans(self, study: Study) -> None:
        async with self._round(study):
            human = next((p for p in study.partners if p.kind == "human"), None)
            if human is None:  # (a full quota is found where the dialogue would be made, `_create`)
                return
            lobby = self.waiting.get(study.id, {})
            while True:
                waiters = sorted((w for w in lobby.values() if not w.ticket.done()), key=lambda w: w.since)
                if len(waiters) < 2:
                    return
                # a crowd is paired in arrival order, up to PAIRS_AT_ONCE pairs per visit to the
                # storage's thread: one wait for it instead of one per pair
                pairs = [(waiters[k], waiters[k + 1]) for k in range(0, min(len(waiters) - 1, 2 * PAIRS_AT_ONCE), 2)]
                made = await self.storage.run(self._create_pairs, study, [[a.participant_id, b.participant_id] for a, b in pairs], [human])
                for pair, one in zip(pairs[: len(made)], made, strict=True):
                    seats = await self.hub.launch(study, one)
                    for waiter in pair:
                        self._seat(waiter, seats[waiter.participant_id])
                if len(made) < len(pairs):  # the quota or every scenario is full
                    return
                await asyncio.sleep(0)  # let other dialogues' moves through between batches of a crowd

    async def _pair_bots(self, study: Study) -> None:
        async with self._round(study):
            lobby = self.waiting.get(study.id, {})
            now = time.time()
            open_partners = await self._partners_open(study)
            humans_possible = any(p.kind == "human" for p in open_partners)
            for waiter in sorted(lobby.values(), key=lambda w: w.since):
                if waiter.ticket.done() or (humans_possible and now - waiter.since < study.bot_wait_seconds):
                    continue
                bots = [p for p in open_partners if p.kind == "bot"]
                if not bots:
                    if not humans_possible:
                        self._refuse(waiter, "this study is full; thank you for your interest")
                    continue
                seats = await self._start(study, [waiter.participant_id], bots)
                if seats is None:
                    self._refuse(waiter, "every scenario of this study has its dialogues; thank you!")
                else:
                    self._seat(waiter, seats[waiter.participant_id])
                open_partners = await self._partners_open(study)

    def _ensure_ticker(self) -> None:
        if self._ticker is None or self._ticker.done():
            self._ticker = asyncio.get_running_loop().create_task(self._tick(), name="matchmaker")

    async def _tick(self) -> None:
        while any(self.waiting.values()):
            await asyncio.sleep(self.tick_seconds)
            for study_id, lobby in list(self.waiting.items()):
                study = self.studies.get(study_id)
                if study is None or not lobby:
                    continue
                try:
                    if self.hub.cluster is not None:
                        await self._shared_round(study)
                    else:
                        await self._pair_humans(study)
                        await self._pair_bots(study)
                except (ClusterUnavailable, StorageUnavailable) as error:  # wait it out in the lobby
                    log.warning("lobby of %s waits: %s", study_id, error)
                except Exception:  # a failed round must not end the lobby: the next one tries again
                    log.exception("a round of the lobby of %s failed", study_id)
    # ------------------------------------------------------------------ several worker processes

    async def _enter_shared(self, study: Study, participant_id: str, since: float) -> None:
        """Into the study's lobby in Redis; a busy moment (hundreds joining at once) is waited out,
        only a lasting outage refuses."""
        cluster = self.hub.cluster
        assert cluster is not None
        while True:
            try:
                await cluster.lobby_enter(study.id, participant_id, since)
                return
            except ClusterUnavailable as error:
                if time.time() - since >= ENTER_PATIENCE_SECONDS:
                    raise LobbyRefused("the platform is briefly unavailable; please reload this page in a moment") from None
                log.warning("lobby of %s: entering waits: %s", study.id, error)
                await asyncio.sleep(self.tick_seconds)

    async def _shared_round(self, study: Study) -> None:
        """One round for this worker's waiters of a study: seats handed over (one round trip for
        all of them), people paired (several pairs at a time), bots given to those who waited
        long enough."""
        cluster = self.hub.cluster
        assert cluster is not None
        lobby = self.waiting.get(study.id, {})
        waiters = [w for w in lobby.values() if not w.ticket.done()]
        if not waiters:
            return
        keep = time.monotonic() - self._kept.get(study.id, float("-inf")) >= cluster.alive_seconds / 4
        handed = await cluster.lobby_round(study.id, [(w.participant_id, w.since) for w in waiters], keep=keep)
        if keep:
            self._kept[study.id] = time.monotonic()
        for waiter, seat in zip(waiters, handed, strict=True):
            if seat is not None:
                self._seat(waiter, Seat(**seat))
        async with self._round(study):
            open_partners = await self._partners_open(study)
            human = next((p for p in open_partners if p.kind == "human"), None)
            while human is not None and await self._pair_shared(study, human):
                pass
            for waiter in sorted(lobby.values(), key=lambda w: w.since):
                if not waiter.ticket.done() and await self._bot_for(study, waiter, open_partners):
                    open_partners = await self._partners_open(study)

    async def _hand(self, study: Study, seats: dict[str, Seat]) -> None:
        """Each participant's seat to every tab that waits for it, here at once and elsewhere through Redis."""
        cluster = self.hub.cluster
        assert cluster is not None
        for participant, seat in seats.items():
            waiter = self.waiting.get(study.id, {}).get(participant)
            if waiter is not None:
                self._seat(waiter, seat)
        await cluster.hand_seats(study.id, {participant: asdict(seat) for participant, seat in seats.items()})

    def _seat_or_create(self, study: Study, humans: list[str], candidates: list[Partner]) -> tuple[dict[str, Seat], Made | None]:
        """In the storage's thread, under the seating lock of these people: the seats some of them
        already have (a tab on another worker was seated a moment ago: no second dialogue), or
        else a new dialogue for them (`_create`; None when there is no room)."""
        earlier = {person: seat for person in humans if (seat := self._existing(self.storage.seats_of_participant(person, study.id))) is not None}
        return earlier, (None if earlier else self._create(study, humans, candidates))

    async def _seat_shared(self, study: Study, waiting: list[tuple[str, float]], candidates: list[Partner]) -> str:
        """Seat people taken out of the shared lobby together, with one of `candidates`, under their
        seating lock (every worker: one step from the check for an earlier seat to the start).
        What became of them: `seated`, `earlier` (a seat they had already) or `full` (put back)."""
        cluster = self.hub.cluster
        assert cluster is not None
        people = [person for person, _ in waiting]
        try:
            async with cluster.locks([f"seating:{study.id}:{person}" for person in people]):
                earlier, made = await self.storage.run(self._seat_or_create, study, people, candidates)
                seats = await self.hub.launch(study, made) if made is not None else {}
        except BaseException:
            await cluster.lobby_return(study.id, waiting)
            raise
        if earlier:  # one seat each, never a second dialogue; the others wait on
            await cluster.lobby_drop(study.id, list(earlier))
            await self._hand(study, earlier)
            await cluster.lobby_return(study.id, [(person, since) for person, since in waiting if person not in earlier])
            return "earlier"
        if not seats:
            await cluster.lobby_return(study.id, waiting)
            return "full"
        await self._hand(study, seats)
        return "seated"

    async def _pair_shared(self, study: Study, human: Partner) -> bool:
        """Take the longest-waiting people of the study (on any worker) out of the lobby in pairs,
        up to `PAIRS_AT_ONCE`, and seat each pair together, the pairs side by side; whether more
        may wait (every pair taken, none refused for lack of room)."""
        cluster = self.hub.cluster
        assert cluster is not None
        pairs = await cluster.lobby_pairs(study.id, PAIRS_AT_ONCE)
        if not pairs:
            return False
        outcomes = await asyncio.gather(*(self._seat_shared(study, pair, [human]) for pair in pairs), return_exceptions=True)
        for outcome in outcomes:
            if isinstance(outcome, BaseException):
                log.warning("lobby of %s: a pair waits on: %s", study.id, outcome)
        return len(pairs) == PAIRS_AT_ONCE and all(outcome in ("seated", "earlier") for outcome in outcomes)

    async def _bot_for(self, study: Study, waiter: Waiter, open_partners: list[Partner]) -> bool:
        """A bot partner for this waiter once it has waited long enough (or no person can be a
        partner); whether a dialogue was started."""
        cluster = self.hub.cluster
        assert cluster is not None
        humans_possible = any(p.kind == "human" for p in open_partners)
        if humans_possible and time.time() - waiter.since < study.bot_wait_seconds:
            return False
        bots = [p for p in open_partners if p.kind == "bot"]
        if not bots:
            if not humans_possible:
                self._refuse(waiter, "this study is full; thank you for your interest")
            return False
        if not await cluster.lobby_take(study.id, waiter.participant_id):
            return False  # a pairing took this person a moment ago: the seat is on its way
        outcome = await self._seat_shared(study, [(waiter.participant_id, waiter.since)], bots)
        if outcome == "full":
            await cluster.lobby_drop(study.id, [waiter.participant_id])
            self._refuse(waiter, "every scenario of this study has its dialogues; thank you!")
        return outcome == "seated"

    async def close(self) -> None:
        if self._ticker is not None:
            self._ticker.cancel()
            await asyncio.gather(self._ticker, return_exceptions=True)

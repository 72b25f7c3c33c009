"""Matchmaking: people wait in a study's lobby and are paired with a person or, after a wait, a bot.

Rules: a participant is never paired with themselves (two tabs with the same id are one person);
a returning participant gets their unfinished dialogue back; quotas per partner type and per
scenario are respected (a full study says so instead of pairing); a bot takes the seat after the
study's `bot_wait_seconds`, or at once when the study allows no human partner.

With several worker processes (`Settings.redis_url`) the waiting list lives in Redis instead
(`duologue.web.cluster`): each worker polls for its own waiters, the two longest-waiting people of
a study are taken out together by one atomic script (whichever worker they wait on), and a bot is
given only to a waiter that an atomic removal proves nobody has paired meanwhile.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from typing import AsyncIterator

from duologue.web.cluster import ClusterUnavailable
from duologue.web.hub import LiveHub
from duologue.web.storage import Seat, Storage, StorageUnavailable
from duologue.web.study import Partner, ScenarioPool, Study


log = logging.getLogger(__name__)

ENTER_PATIENCE_SECONDS = 20.0
"""How long entering a shared lobby is retried while Redis is too busy to answer, before refusing."""


class LobbyRefused(Exception):
    """A participant who cannot be paired (study full, already took part). The message says why."""


@dataclass
class Waiter:
    participant_id: str
    since: float
    ticket: asyncio.Future = field(repr=False)


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
        self._ticker: asyncio.Task | None = None

    def pool(self, study: Study) -> ScenarioPool:
        if study.id not in self.pools:
            self.pools[study.id] = ScenarioPool(study)
        return self.pools[study.id]

    def waiting_count(self) -> dict[str, int]:
        return {study: len(waiters) for study, waiters in self.waiting.items() if waiters}

    # ------------------------------------------------------------------ arriving

    def existing_seat(self, study: Study, participant_id: str) -> Seat | None:
        """A dialogue to send a returning participant back to: live, or finished with the questionnaire open."""
        for seat, info in reversed(self.storage.seats_of_participant(participant_id, study.id)):
            if self.hub.reachable(info):
                return seat
            if info.status == "finished" and not seat.questionnaire_done:
                return seat
        return None

    async def join(self, study: Study, participant_id: str) -> Seat:
        """Wait until this participant has a seat. Cancel the await to leave the lobby."""
        seat = self.existing_seat(study, participant_id)
        if seat is not None:
            return seat
        limit = study.max_dialogues_per_participant
        if limit is not None and len(self.storage.seats_of_participant(participant_id, study.id)) >= limit:
            raise LobbyRefused("you have already taken part in this study; thank you!")
        if self._partners_open(study) == []:
            raise LobbyRefused("this study is full; thank you for your interest")
        if self.hub.cluster is not None:
            return await self._join_shared(study, participant_id)
        lobby = self.waiting.setdefault(study.id, {})
        previous = lobby.pop(participant_id, None)
        if previous is not None and not previous.ticket.done():
            previous.ticket.set_exception(LobbyRefused("you joined again from another window"))
        ticket: asyncio.Future = asyncio.get_running_loop().create_future()
        waiter = Waiter(participant_id, time.time(), ticket)
        lobby[participant_id] = waiter
        self._pair_humans(study)
        self._ensure_ticker()
        try:
            return await ticket
        finally:
            if lobby.get(participant_id) is waiter:
                del lobby[participant_id]

    # ------------------------------------------------------------------ pairing

    def _partners_open(self, study: Study) -> list[Partner]:
        """Partner types whose quota is not full (counting live and finished dialogues)."""
        counts = self.storage.count_by(study.id, "pairing")
        open_partners = []
        for partner in study.partners:
            quota = study.quotas.get(partner.pairing)
            if quota is None or counts.get(partner.pairing, 0) < quota:
                open_partners.append(partner)
        return open_partners

    def _start(self, study: Study, humans: list[str], partner: Partner) -> dict[str, Seat] | None:
        choice = self.pool(study).choose(self.storage.count_pairs(study.id), partner.pairing, self.rng)
        if choice is None:
            return None
        key, scenario, seed = choice
        return self.hub.start(study, humans=humans, bot=partner.agent if partner.kind == "bot" else None, pairing=partner.pairing, scenario_key=key, scenario=scenario, seed=seed)

    def _pair_humans(self, study: Study) -> None:
        human = next((p for p in self._partners_open(study) if p.kind == "human"), None)
        if human is None:
            return
        lobby = self.waiting.get(study.id, {})
        waiters = sorted((w for w in lobby.values() if not w.ticket.done()), key=lambda w: w.since)
        while len(waiters) >= 2:
            first, second = waiters.pop(0), waiters.pop(0)
            seats = self._start(study, [first.participant_id, second.participant_id], human)
            if seats is None:
                return
            for waiter in (first, second):
                lobby.pop(waiter.participant_id, None)
                waiter.ticket.set_result(seats[waiter.participant_id])

    def _pair_bots(self, study: Study) -> None:
        lobby = self.waiting.get(study.id, {})
        now = time.time()
        open_partners = self._partners_open(study)
        humans_possible = any(p.kind == "human" for p in open_partners)
        for waiter in sorted(lobby.values(), key=lambda w: w.since):
            if waiter.ticket.done():
                continue
            if humans_possible and now - waiter.since < study.bot_wait_seconds:
                continue
            bots = [p for p in self._partners_open(study) if p.kind == "bot"]
            if not bots:
                if not humans_possible:
                    lobby.pop(waiter.participant_id, None)
                    waiter.ticket.set_exception(LobbyRefused("this study is full; thank you for your interest"))
                continue
            bot = self._least_used(study, bots)
            seats = self._start(study, [waiter.participant_id], bot)
            lobby.pop(waiter.participant_id, None)
            if seats is None:
                waiter.ticket.set_exception(LobbyRefused("every scenario of this study has its dialogues; thank you!"))
            else:
                waiter.ticket.set_result(seats[waiter.participant_id])

    def _least_used(self, study: Study, bots: list[Partner]) -> Partner:
        counts = self.storage.count_by(study.id, "pairing")
        fewest = min(counts.get(b.pairing, 0) for b in bots)
        return next(b for b in bots if counts.get(b.pairing, 0) == fewest)

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
                self._pair_humans(study)
                self._pair_bots(study)

    # ------------------------------------------------------------------ several worker processes

    async def _join_shared(self, study: Study, participant_id: str) -> Seat:
        """Wait in the study's lobby in Redis until paired here, on another worker, or with a bot."""
        cluster = self.hub.cluster
        assert cluster is not None
        since = time.time()
        while True:  # a busy moment (hundreds joining at once) is waited out; only a lasting outage refuses
            try:
                await cluster.lobby_enter(study.id, participant_id, since)
                break
            except ClusterUnavailable as error:
                if time.time() - since >= ENTER_PATIENCE_SECONDS:
                    raise LobbyRefused("the platform is briefly unavailable; please reload this page in a moment") from None
                log.warning("lobby of %s: entering waits: %s", study.id, error)
                await asyncio.sleep(self.tick_seconds)
        here = Waiter(participant_id, since, asyncio.get_running_loop().create_future())
        self.waiting.setdefault(study.id, {})[participant_id] = here
        seated = False
        try:
            while True:
                try:
                    token = await cluster.pick_up_seat(study.id, participant_id)
                    seat = self.storage.seat_by_token(token) if token else None
                    # another tab (here or on another worker) may have been seated already: one seat each
                    seat = seat or self.existing_seat(study, participant_id)
                    if seat is None:
                        await cluster.lobby_keep(study.id, participant_id, since)
                        await self._pair_shared(study)
                        seat = await self._bot_for(study, participant_id, since)
                    if seat is not None:
                        seated = True
                        return seat
                except (ClusterUnavailable, StorageUnavailable) as error:  # wait it out in the lobby
                    log.warning("lobby of %s waits: %s", study.id, error)
                await asyncio.sleep(self.tick_seconds)
        finally:
            if self.waiting.get(study.id, {}).get(participant_id) is here:
                del self.waiting[study.id][participant_id]
            if not seated:
                await cluster.lobby_leave(study.id, participant_id)

    @asynccontextmanager
    async def _seating(self, study: Study, participants: list[str]) -> AsyncIterator[None]:
        """The exclusive right to seat these participants (every worker, in one order: no deadlock),
        so a check for an earlier seat and the start of a dialogue happen as one step."""
        cluster = self.hub.cluster
        assert cluster is not None
        async with AsyncExitStack() as held:
            for participant in sorted(participants):
                await held.enter_async_context(cluster.lock(f"seating:{study.id}:{participant}"))
            yield

    async def _pair_shared(self, study: Study) -> None:
        cluster = self.hub.cluster
        assert cluster is not None
        human = next((p for p in self._partners_open(study) if p.kind == "human"), None)
        if human is None:
            return
        pair = await cluster.lobby_pair(study.id)
        if len(pair) < 2:
            return
        alive = await cluster.lobby_alive(study.id, [participant for participant, _ in pair])
        if not all(alive):  # a ghost whose worker died: dropped; the living go back to wait
            for (participant, since), live in zip(pair, alive, strict=True):
                if live:
                    await cluster.lobby_return(study.id, [(participant, since)])
                else:
                    await cluster.lobby_drop(study.id, participant)
            return
        async with self._seating(study, [participant for participant, _ in pair]):
            seated = [self.existing_seat(study, participant) is not None for participant, _ in pair]
            if any(seated):  # seated a moment ago from another tab: one seat each, never a second dialogue
                for (participant, since), has_seat in zip(pair, seated, strict=True):
                    if has_seat:
                        await cluster.lobby_drop(study.id, participant)
                    else:
                        await cluster.lobby_return(study.id, [(participant, since)])
                return
            try:
                seats = self._start(study, [participant for participant, _ in pair], human)
            except Exception:
                await cluster.lobby_return(study.id, pair)
                raise
            if seats is None:
                await cluster.lobby_return(study.id, pair)
                return
        for participant, _ in pair:
            await cluster.hand_seat(study.id, participant, seats[participant].token)

    async def _bot_for(self, study: Study, participant_id: str, since: float) -> Seat | None:
        """A bot partner once this waiter has waited long enough (or no person can be a partner)."""
        cluster = self.hub.cluster
        assert cluster is not None
        open_partners = self._partners_open(study)
        humans_possible = any(p.kind == "human" for p in open_partners)
        if humans_possible and time.time() - since < study.bot_wait_seconds:
            return None
        bots = [p for p in open_partners if p.kind == "bot"]
        if not bots:
            if not humans_possible:
                raise LobbyRefused("this study is full; thank you for your interest")
            return None
        if not await cluster.lobby_take(study.id, participant_id):
            return None  # a pairing took this person a moment ago: the seat is on its way
        async with self._seating(study, [participant_id]):
            earlier = self.existing_seat(study, participant_id)
            if earlier is not None:  # seated a moment ago from another tab: that seat, not a second one
                return earlier
            try:
                seats = self._start(study, [participant_id], self._least_used(study, bots))
            except Exception:
                await cluster.lobby_return(study.id, [(participant_id, since)])
                raise
        if seats is None:
            raise LobbyRefused("every scenario of this study has its dialogues; thank you!")
        return seats[participant_id]

    async def close(self) -> None:
        if self._ticker is not None:
            self._ticker.cancel()
            await asyncio.gather(self._ticker, return_exceptions=True)

"""Bots in live dialogues: built from a seat's agent spec, they move on their turn, off the loop.

An agent's `act` runs in a worker thread so a slow model never blocks other dialogues. A bot
whose move is refused tries again (`MAX_BOT_ATTEMPTS`), then the dialogue ends as
`illegal_actions`; a bot that thought while the dialogue changed thinks again. A person's text that
cannot be stored or sent is refused at the socket; a bot's (any agent's, a plug-in's too) is cleaned
here (`duologue.llm.replies.clean_value`) before the move is judged, so it can never fail the store.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import random
import time
from typing import Any

from duologue.agents import make_agent
from duologue.core import actions
from duologue.core.agent import Agent
from duologue.core.schema import SystemNote
from duologue.core.task import IllegalAction, Task
from duologue.llm.replies import clean_value
from duologue.web.clocks import HANDOVER
from duologue.web.presence import LiveParts
from duologue.web.storage import Seat

MAX_BOT_ATTEMPTS = 3
log = logging.getLogger(__name__)


def make_bot(seat: Seat, task: Task, seed: int) -> Agent:
    agent = make_agent(seat.agent or "rule", task)
    agent.reset(task, seat.party, random.Random(f"{seed}:{seat.party}"))
    return agent


def sendable(action: actions.Action, party: str) -> actions.Action:
    """The bot's `action` with its text made safe to store and send (the same action when it was);
    `IllegalAction` when nothing of it is left to send."""
    changed: list[str] = []
    data = clean_value(action.model_dump(), changed)
    if not changed:
        return action
    log.warning("the %s move of bot %s was cleaned: %s", action.kind, party, "; ".join(dict.fromkeys(changed)))
    try:
        return actions.parse_action(data)
    except ValueError as error:
        raise IllegalAction(party, action.kind, f"once its unsendable characters were dropped: {error}") from None


class Bots(LiveParts):
    """The bots' turns of a live dialogue (a part of `LiveDialogue`)."""

    def _bot_to_move(self) -> str | None:
        for party, occupant in self.occupants.items():
            if occupant.agent is not None and self.task.legal_actions(party) and self._bots_turn(party):
                return party
        return None

    def _bots_turn(self, party: str) -> bool:
        """Whether the bot in `party`'s seat moves now: on its turn; in a dialogue whose turns are
        free (two people, one of whom left it to a bot), once after each move of its partner."""
        if self.task.turn_taking == "alternate":
            return self.task.to_move == party
        last = next((e.party for e in reversed(self.task.events) if e.party is not None), None)
        return last is not None and last != party

    def hand_to_bot(self, party: str) -> None:
        """A person left for good (`on_partner_leave: bot`): the study's bot plays their seat from
        now on, and the transcript says so (a `HANDOVER` note, which replays and ends nothing)."""
        agent = self.study.leave_bot
        self.task.events.append(SystemNote(party=None, time=time.time(), name=HANDOVER, data={"party": party, "agent": agent}))
        self._seat_to_bot(party, agent)

    def take_handovers(self, events: list[Any]) -> None:
        """The seats that `HANDOVER` notes among `events` gave to a bot (a replica, a dialogue rebuilt from storage)."""
        for event in events:
            if isinstance(event, SystemNote) and event.name == HANDOVER:
                party = event.data.get("party")
                if isinstance(party, str) and party in self.occupants and self.occupants[party].seat.kind == "human":
                    agent = event.data.get("agent")
                    self._seat_to_bot(party, agent if isinstance(agent, str) else self.study.leave_bot)

    def _seat_to_bot(self, party: str, agent: str) -> None:
        occupant = self.occupants[party]
        occupant.seat = dataclasses.replace(occupant.seat, kind="bot", agent=agent)
        occupant.agent = make_bot(occupant.seat, self.task, self.task.seed)
        occupant.away_since = None

    async def _bot_turns(self) -> None:
        while not self.task.done and (party := self._bot_to_move()) is not None:
            agent = self.occupants[party].agent
            assert agent is not None
            for occupant_party, occupant in self.occupants.items():
                if occupant.seat.kind == "human":
                    await self.send_everywhere(occupant_party, {"type": "typing"})
            await asyncio.sleep(self.hub.settings.bot_typing_seconds)
            task, seen = self.task, self.stored
            moved = False
            for _ in range(MAX_BOT_ATTEMPTS):
                action = await asyncio.to_thread(agent.act, task.observe(party))
                async with self.changing():
                    if self.task is not task or self.stored != seen:
                        break  # the dialogue changed while the bot thought: think again
                    try:
                        self.task.step(sendable(action, party), party)
                    except IllegalAction as error:
                        agent.on_illegal(error)
                        continue
                    self.last_move = time.time()
                    await self.commit()
                    moved = True
                    break
            else:
                async with self.changing():
                    if self.task is task and self.stored == seen:
                        self.task.end("illegal_actions")
                        await self.commit()
                        moved = True
            if moved:
                await self.changed()


"""A throwaway task that lives outside duologue, to prove a plug-in needs no edit to duologue.

Two parties each privately prefer a hand. They chat, then each waves (a move kind of this task's
own, `wave`, with its own event); they score 1 each when they waved the same hand, else 0.
"""

from __future__ import annotations

import random
from typing import Literal

from duologue.core import actions, moves
from duologue.core.schema import Dialogue, EventBase, Outcome, Scenario
from duologue.core.spec import Metric, TaskSpec
from duologue.core.task import Task

HANDS = ("left", "right")


class Wave(actions.Action):
    """Wave one hand; waving the same hand as the partner wins."""

    kind: Literal["wave"] = "wave"
    hand: str


class Waved(EventBase):
    kind: Literal["wave"] = "wave"
    hand: str


actions.register_move(Wave, Waved)


class HandshakeTask(Task):
    spec = TaskSpec(
        id="handshake-v0",
        family="handshake",
        title="Handshake: wave the same hand",
        description="Each party privately prefers a hand. Chat, then both wave: the same hand scores 1 each.",
        parties=("a", "b"),
        kind="cooperative",
        metrics=[Metric(name="agreement", label="same hand")],
        score="1 when both waved the same hand",
        judge_context="Two people try to wave the same hand.",
        resources="handshake",
    )
    default_max_turns = 10

    def generate_scenario(self, rng: random.Random) -> Scenario:
        return Scenario(public={"hands": list(HANDS)}, private={p: {"prefers": rng.choice(HANDS), "code": rng.randrange(10)} for p in self.party_ids})

    def _on_reset(self) -> None:
        self.waved: dict[str, str] = {}

    def _legal_kinds(self, party: str) -> list[str]:
        return ["wave"] if party in self.waved or self.waved else ["say", "wave"]

    def move_schema(self, party: str, kind: str) -> moves.Schema:
        if kind == "wave":
            return moves.move(kind, {"hand": {"enum": list(HANDS)}}, description="Wave a hand.")
        return super().move_schema(party, kind)

    def _check(self, party: str, action: actions.Action) -> str | None:
        if isinstance(action, Wave) and party in self.waved:
            return "you already waved"
        return None

    def _apply(self, party: str, action: actions.Action) -> None:
        if isinstance(action, Wave):
            self.waved[party] = action.hand
            if len(self.waved) == 2:
                self._terminate("done")

    def judge(self, dialogue: Dialogue) -> Outcome:
        hands = {e.party: e.hand for e in dialogue.events if isinstance(e, Waved)}
        same = len(hands) == 2 and len(set(hands.values())) == 1
        return Outcome(reason="agreement" if same else "no_agreement", agreed=same, scores={p.id: float(same) for p in dialogue.parties})

    def sample_action(self, party: str, rng: random.Random) -> actions.Action:
        kinds = self.legal_actions(party) or self._legal_kinds(party)
        if "say" in kinds and rng.random() < 0.5:
            return actions.Say(text=rng.choice(["left?", "right?", "ok"]))
        return Wave(hand=rng.choice(HANDS))

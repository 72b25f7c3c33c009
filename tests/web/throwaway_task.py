"""A throwaway task from outside duologue, for the web part of the plug-in test.

It lives outside the package, registers with `duologue.register`, and brings its own kind of move
(`claim`, with its event `claimed`), so the platform can only play it by reading its spec and its
action schema. Rules: a jar of red and blue marbles; the parties chat, then each claims a count
of marbles in one of its own lucky colours (a row of its private list). If the two counts fit in
the jar, each scores its count; otherwise both score 0. Each party's lucky word is private.
"""

from __future__ import annotations

import random
from typing import Any, Literal

from duologue import register
from duologue.core import actions, moves
from duologue.core.schema import Dialogue, EventBase, Outcome, Scenario
from duologue.core.spec import Metric, TaskSpec
from duologue.core.task import Task

TASK_ID = "marbles-v0"


class Claim(actions.Action):
    """Claim a count of marbles in one of your colours."""

    kind: Literal["claim"] = "claim"
    count: int
    colour: str


class Claimed(EventBase):
    kind: Literal["claimed"] = "claimed"
    count: int
    colour: str


actions.register_move(Claim, Claimed)


class Marbles(Task):
    spec = TaskSpec(
        id=TASK_ID,
        family="marbles",
        title="Marbles: share a jar",
        description="Chat, then each claims some marbles; claims that fit in the jar score, others score 0.",
        parties=("north", "south"),
        kind="competitive",
        metrics=[Metric(name="agreement", label="claims fit")],
        score="marbles claimed",
        resources=__name__,
    )
    default_max_turns = 10

    def generate_scenario(self, rng: random.Random) -> Scenario:
        jar = {"red": rng.randint(1, 4), "blue": rng.randint(1, 4)}
        private = {p: {"lucky_word": f"zebra{rng.randrange(10**6)}", "colours": rng.sample(["red", "blue", "green"], 2)} for p in self.party_ids}
        return Scenario(public={"jar": jar}, private=private)

    def total(self) -> int:
        return sum(self.scenario.public["jar"].values())

    def _on_reset(self) -> None:
        self.claims: dict[str, Claimed] = {}

    def _legal_kinds(self, party: str) -> list[str]:
        return [] if party in self.claims else ["say", "claim"]

    def move_schema(self, party: str, kind: str) -> moves.Schema:
        if kind == "claim":
            colours = self.scenario.private[party]["colours"]
            return moves.move("claim", {"count": {"type": "integer", "minimum": 0, "maximum": self.total()}, "colour": {"enum": list(colours)}}, description="Claim marbles in one of your colours.")
        return super().move_schema(party, kind)

    def _check(self, party: str, action: actions.Action) -> str | None:
        if isinstance(action, Claim):
            if not 0 <= action.count <= self.total():
                return f"claim between 0 and {self.total()} marbles"
            if action.colour not in self.scenario.private[party]["colours"]:
                return "claim one of your own colours"
        return None

    def _apply(self, party: str, action: actions.Action) -> None:
        if isinstance(action, Claim):
            self.claims[party] = self.events[-1]  # type: ignore[assignment]
            if len(self.claims) == 2:
                self._terminate("claimed")

    def next_party(self, party: str, action: actions.Action) -> str:
        """Whoever has not claimed yet keeps the turn once the other has claimed."""
        return party if self.other(party) in self.claims else self.other(party)

    def judge(self, dialogue: Dialogue) -> Outcome:
        claims = {e.party: e.count for e in dialogue.events if e.kind == "claimed"}
        reason = next((e.name for e in reversed(dialogue.events) if e.kind == "system"), "claimed")
        if len(claims) < 2:
            return Outcome(reason=reason or "unfinished", agreed=False)
        fits = sum(claims.values()) <= sum(dialogue.scenario.public["jar"].values())
        return Outcome(reason="claimed", agreed=fits, deal=claims if fits else None, scores={p: (c if fits else 0) for p, c in claims.items()})

    def sample_action(self, party: str, rng: random.Random) -> actions.Action:
        schema = self.action_schema(party)
        if "claim" in moves.kinds(schema) and (rng.random() < 0.5 or "say" not in moves.kinds(schema)):
            return actions.parse_action(moves.sample(moves.option(schema, "claim"), rng))
        return actions.Say(text=rng.choice(["hello", "how many do you want?", "I take a few"]))


def register_marbles() -> str:
    """Register the task as a plug-in would (returns its id)."""
    return register(Marbles)


def private_secrets(task: Task, party: str) -> list[Any]:
    """What only `party` knows (the lucky word), to check the other party never receives it."""
    return [task.scenario.private[party]["lucky_word"]]

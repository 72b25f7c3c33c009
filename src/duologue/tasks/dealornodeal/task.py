"""The Deal or No Deal task (`dealornodeal-v0`): split books, hats and balls, then choose in private.

The facts (pool, values, generator constraints, scoring, Pareto optimality) live in `rules.py`;
this module adds the game. Rule decisions:

* Parties are `alice` and `bob` (the names the reference self-play logs use); a corpus line's
  `YOU` is `alice` (see `corpus.py`). The first mover is drawn from the episode's RNG.
* Before anyone has chosen, the party to move may chat (`say`) or `choose`: privately enter what it
  takes (`mine`) and what the other gets (`theirs`), together exactly the pool. A choice is the
  task's own move kind (`Choose`, recorded as a `ChooseEvent`), registered here with `register_move`.
* Once one party has chosen, the other may only choose, and the chooser has no move left. The
  choice stays private until the episode ends: the other party's observation shows that a choice
  was made, never what (the event reaches it with `mine` and `theirs` hidden as null).
* The second choice ends the episode. Complementary choices (the two `mine` add up to the pool)
  score each side the value of what it took (out of 10); anything else scores 0 for both.
* The turn limit (`default_max_turns = 22`) counts every move. The reference code stops a dialogue
  after a fixed number of turns; here chat is allowed for `max_turns - 2` moves (20 messages by
  default; the longest validation-split dialogue has 18), after which both must choose. An episode
  that ends otherwise (time limit, disconnect, an agent that keeps breaking the rules) scores 0.

Scenarios come from the paper's generator (`rules.generate`, seeded by the episode RNG), or with
`contexts=PATH` from a file of context pairs like the reference `selfplay.txt` (a line
`c0 v0 c1 v1 c2 v2` for each side, two lines per scenario), drawn with the episode RNG.

Episode metrics: `agreement`, `points_alice`, `points_bob`, `joint_points`, `pareto_optimal`
(1/0, agreements only), `turns`. The declared values (`values.py`) add the generic
outcome figures: `pareto_efficient`, `frontier_distance`, `pareto_score`, `nash_distance`, `surplus`
and `surplus_<party>` (`duologue.core.values`).
"""

from __future__ import annotations

import random
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from pydantic import Field

from duologue.core import actions, moves
from duologue.core.schema import Dialogue, EventBase, Outcome, Scenario, SystemNote
from duologue.core.spec import Metric, TaskSpec
from duologue.core.values import Values
from duologue.core.task import Observation, Task
from duologue.tasks.dealornodeal.rules import ITEMS, TOTAL_VALUE, complement, generate, is_pareto_optimal, split_problems, value

PARTY_IDS: tuple[str, str] = ("alice", "bob")
CHOICES_AT_THE_END = 2
"""Moves kept for the two choices once chat runs out."""
NO_DEAL_NOTES = ("disagree", "no_agreement", "disconnect", "turn_limit", "timeout", "illegal_actions")
"""System notes that end an episode without a deal (the first three are the corpus's own outputs)."""

RANDOM_LINES: tuple[str, ...] = (
    "Hi! How should we split these?",
    "What do you want most?",
    "I'd like the books.",
    "You can have the hats.",
    "Could I get the ball?",
    "How about we split everything evenly?",
    "That doesn't work for me.",
    "Ok, deal.",
    "No deal.",
    "I need more than that.",
)
"""What the random agent says: generic lines, never anything private."""


class Choose(actions.Action):
    """Enter privately what you take (mine) and what the other side gets (theirs): together the whole pool."""

    kind: Literal["choose"] = "choose"
    mine: dict[str, int] = Field(default_factory=dict)
    theirs: dict[str, int] = Field(default_factory=dict)


class ChooseEvent(EventBase):
    """A party's private choice. `mine`/`theirs` are null where they are not known: hidden from the
    other party until the end, or not written by the corpus (a choice that did not match)."""

    kind: Literal["choose"] = "choose"
    mine: dict[str, int] | None = None
    theirs: dict[str, int] | None = None


actions.register_move(Choose, ChooseEvent)


def public_view(pool: dict[str, int]) -> dict[str, Any]:
    return {"items": list(ITEMS), "pool": {item: int(pool[item]) for item in ITEMS}, "total_value": TOTAL_VALUE}


def scenario_of(pool: dict[str, int], values: dict[str, dict[str, int]]) -> Scenario:
    """A scenario from a pool and each party's values (party id -> item -> value)."""
    return Scenario(public=public_view(pool), private={p: {"values": {item: int(v[item]) for item in ITEMS}} for p, v in values.items()})


def parse_context(line: str) -> tuple[dict[str, int], dict[str, int]]:
    """`c0 v0 c1 v1 c2 v2` -> (pool, values)."""
    numbers = [int(token) for token in line.split()]
    if len(numbers) != 2 * len(ITEMS):
        raise ValueError(f"a context has {2 * len(ITEMS)} numbers (count and value of each item), got {line!r}")
    return dict(zip(ITEMS, numbers[0::2], strict=True)), dict(zip(ITEMS, numbers[1::2], strict=True))


@lru_cache(maxsize=8)
def read_contexts(path: str) -> tuple[Scenario, ...]:
    """The scenarios of a context-pair file (one line per side, two lines per scenario)."""
    lines = [line for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]
    if not lines or len(lines) % 2:
        raise ValueError(f"{path}: expected pairs of context lines, got {len(lines)} line(s)")
    scenarios = []
    for number in range(0, len(lines), 2):
        try:
            (pool, a), (other_pool, b) = parse_context(lines[number]), parse_context(lines[number + 1])
        except ValueError as error:
            raise ValueError(f"{path}:{number + 1}: {error}") from None
        if pool != other_pool:
            raise ValueError(f"{path}:{number + 1}: the two sides of a context pair have different counts")
        scenarios.append(scenario_of(pool, dict(zip(PARTY_IDS, (a, b), strict=True))))
    return tuple(scenarios)


def choices(events: list) -> dict[str, ChooseEvent]:
    """Each party's (first) choice in a transcript."""
    found: dict[str, ChooseEvent] = {}
    for event in events:
        if isinstance(event, ChooseEvent) and event.party is not None:
            found.setdefault(event.party, event)
    return found


def outcome_of(dialogue: Dialogue) -> Outcome:
    """The outcome of a transcript by the rules: pure, so the corpus reader judges with it too."""
    ids = [p.id for p in dialogue.parties]
    for event in dialogue.events:
        if isinstance(event, SystemNote) and event.name in NO_DEAL_NOTES:
            return no_deal(event.name, ids)
    chosen = choices(dialogue.events)
    if len(ids) != 2 or len(chosen) < 2:
        return no_deal("no_agreement", ids)
    pool = {item: int(dialogue.scenario.public["pool"][item]) for item in ITEMS}
    a, b = (chosen[pid] for pid in ids)
    if a.mine is None or b.mine is None or complement(a.mine, pool) != {item: b.mine.get(item, 0) for item in ITEMS}:
        return no_deal("disagree", ids)
    deal = {ids[0]: dict(a.mine), ids[1]: dict(b.mine)}
    scores = {pid: float(value(deal[pid], dialogue.scenario.private[pid]["values"])) for pid in ids}
    return Outcome(reason="agreement", agreed=True, deal=deal, scores=scores)


def no_deal(reason: str, ids: list[str]) -> Outcome:
    return Outcome(reason=reason, agreed=False, scores={pid: 0.0 for pid in ids})


class DealOrNoDealTask(Task):
    """Deal or No Deal (rules and decisions in the module docstring)."""

    spec = TaskSpec(
        id="dealornodeal-v0",
        family="dealornodeal",
        title="Deal or No Deal: split books, hats and balls",
        description=(
            "Two people divide a pool of books, hats and balls (5-7 items). Each privately values the item types, the "
            "whole pool being worth 10 to each. They chat, then each privately enters what it takes: if the two choices "
            "together make up the pool, each scores the value of what it took; otherwise both score 0."
        ),
        parties=PARTY_IDS,
        kind="competitive",
        metrics=[
            Metric(name="joint_points", label="joint points"),
            Metric(name="agreement", label="agreement"),
            Metric(name="points_alice", label="points alice"),
            Metric(name="points_bob", label="points bob"),
            Metric(name="pareto_efficient", label="Pareto-optimal share"),
        ],
        score="points out of 10 (0 without agreement)",
        judge_context=(
            "Two people negotiate how to divide books, hats and balls; each values the items differently (the pool is "
            "worth 10 to each) and only scores if their final private choices match."
        ),
        corpus="dealornodeal",
        resources="duologue.tasks.dealornodeal",
        widget="choose.js",
    )
    default_max_turns = 22
    agents = {"rule": "duologue.tasks.dealornodeal.agents:DealRuleAgent", "modular": "duologue.tasks.dealornodeal.modular:DealModularAgent"}

    def __init__(self, *, contexts: str | Path | None = None, **options: Any) -> None:
        """contexts: a file of context pairs (`selfplay.txt`) to draw scenarios from, instead of generating them."""
        super().__init__(**options)
        self.contexts = str(contexts) if contexts is not None else None
        if self.contexts is not None:
            read_contexts(self.contexts)  # a bad file is an error now, not at the first episode

    # ------------------------------------------------------------------ scenarios

    def generate_scenario(self, rng: random.Random) -> Scenario:
        if self.contexts is not None:
            return rng.choice(read_contexts(self.contexts)).model_copy(deep=True)
        pool, a, b = generate(rng)
        return scenario_of(pool, dict(zip(self.party_ids, (a, b), strict=True)))

    def pool(self) -> dict[str, int]:
        return {item: int(self.scenario.public["pool"][item]) for item in ITEMS}

    # ------------------------------------------------------------------ rules

    def _on_reset(self) -> None:
        self.chosen: dict[str, ChooseEvent] = {}

    def _legal_kinds(self, party: str) -> list[str]:
        if party in self.chosen:
            return []
        if self.chosen or self.turn >= self.max_turns - CHOICES_AT_THE_END:
            return ["choose"]
        return ["say", "choose"]

    def move_schema(self, party: str, kind: str) -> moves.Schema:
        if kind == "choose":
            return moves.split(kind, self.pool(), description="Enter privately what you take (mine) and what the other side gets (theirs).")
        return super().move_schema(party, kind)

    def _check(self, party: str, action: actions.Action) -> str | None:
        if isinstance(action, Choose):
            problems = split_problems(action.mine, action.theirs, self.pool())
            if problems:
                return "the choice does not split the pool: " + "; ".join(problems)
        return None

    def _apply(self, party: str, action: actions.Action) -> None:
        if isinstance(action, Choose):
            self.chosen[party] = self.events[-1]  # type: ignore[assignment]
            if len(self.chosen) == len(self.party_ids):
                self._terminate("chosen")

    def observe(self, party: str) -> Observation:
        """The base view, with the other party's choice hidden until the episode is over."""
        observation = super().observe(party)
        if self.done:
            return observation
        hidden = [
            e.model_copy(update={"mine": None, "theirs": None}) if isinstance(e, ChooseEvent) and e.party != party else e
            for e in observation.transcript
        ]
        return observation.model_copy(update={"transcript": hidden})

    def closing_moves(self, party: str) -> list[actions.Action]:
        """Once the other party has chosen: the choice that complements theirs."""
        made = self.chosen.get(self.other(party))
        if party in self.chosen or made is None or made.mine is None or made.theirs is None:
            return []
        return [Choose(mine=dict(made.theirs), theirs=dict(made.mine))]

    # ------------------------------------------------------------------ judging

    def judge(self, dialogue: Dialogue) -> Outcome:
        return outcome_of(dialogue)

    def episode_metrics(self, dialogue: Dialogue) -> dict[str, float | None]:
        outcome = dialogue.outcome or self.judge(dialogue)
        figures = super().episode_metrics(dialogue)
        for pid in self.party_ids:
            figures[f"points_{pid}"] = outcome.scores.get(pid)
        figures["joint_points"] = float(sum(outcome.scores.values())) if outcome.scores else None
        figures["pareto_optimal"] = None
        if outcome.agreed and outcome.deal:
            a, b = self.party_ids
            pool = {item: int(dialogue.scenario.public["pool"][item]) for item in ITEMS}
            private = dialogue.scenario.private
            figures["pareto_optimal"] = float(is_pareto_optimal(outcome.deal[a], pool, private[a]["values"], private[b]["values"]))
        return figures

    def values(self, scenario: Scenario) -> Values:
        from duologue.tasks.dealornodeal.values import DealValues  # its words come from the rule bot, which imports this module

        return DealValues(self.party_ids, scenario)

    # ------------------------------------------------------------------ random play

    def sample_action(self, party: str, rng: random.Random) -> actions.Action:
        legal = self.legal_actions(party) if self.turn_taking == "alternate" else self._legal_kinds(party)
        if "say" in legal and rng.random() < 0.6:
            return actions.Say(text=rng.choice(RANDOM_LINES))
        pool = self.pool()
        mine = {item: rng.randint(0, pool[item]) for item in ITEMS}
        return Choose(mine=mine, theirs=complement(mine, pool))

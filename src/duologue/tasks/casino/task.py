"""The CaSiNo task (`casino-v0`): two campsite neighbours split Food, Water and Firewood.

The facts (points, packages, walk-away value, Pareto optimality) live in `rules.py`; this module
adds the game: scenarios, whose move it is, what is legal, and how an episode is judged.

Rule decisions (grounded in the 930 dialogues of the corpus, where they could be):

* Parties are the corpus's `mturk_agent_1` and `mturk_agent_2`. The first mover is drawn from the
  episode's RNG, and is listed first among the parties, as the corpus lists the first speaker first
  in `participant_info` (true of all 930 dialogues).
* With no deal pending, a party may chat (`say`), submit a deal (`submit-deal`: its own share and
  the partner's, each issue adding up to 3) or walk away.
* While a deal is pending, the partner may only `accept-deal`, `reject-deal` or `walk-away`: no
  chatting and no counter-deal until it has answered (in the corpus a Submit-Deal is always answered
  by the very next entry). So a new deal never replaces a pending one; the partner rejects and then
  counters. The proposer, waiting for the answer, may only walk away (relevant with free turns only).
* After a `reject-deal` the rejecter moves again (to explain or counter), as in every one of the
  154 rejections in the corpus; otherwise turns alternate.
* `accept-deal` ends the episode with that split; `walk-away` ends it with 5 points each.
* The turn limit (`default_max_turns = 40`) counts every move; the corpus's longest dialogue has
  39 entries and its mean is 14. Running out of turns (or time, or of legal moves) ends the episode
  with no agreement, and each side gets the same 5 points as a walk-away: without a deal each keeps
  its fallback.

Scenarios: each party's priorities are a ranking of the three issues. The corpus pairs them in a
fixed mix (of 930 dialogues, 234 have identical rankings, 236 share only the top issue and 460 have
different top issues), so generated scenarios draw the same mix: 1/4 identical, 1/4 same top issue,
1/2 different top issues. Reasons come from the project's own reason bank (`reasons.json`). The
private view uses the corpus reader's keys (`priorities`, `value2issue`, `reasons`) and the public
view is the reader's, so corpus scenarios replay and played transcripts write natively.

Episode metrics: `agreement`, `walk_away`, `turn_limit` (truncated), `points_mturk_agent_1`,
`points_mturk_agent_2`, `points_first_mover`, `points_second_mover`, `joint_points`,
`pareto_optimal` (1/0, deals only), `deals_submitted` and `turns`. The declared values (`values.py`) add the generic
outcome figures: `pareto_efficient`, `frontier_distance`, `pareto_score`, `nash_distance`, `surplus`
and `surplus_<party>` (`duologue.core.values`).
"""

from __future__ import annotations

import json
import random
from functools import lru_cache
from importlib import resources
from itertools import permutations
from typing import Any

from duologue.core import actions, moves
from duologue.core.schema import AcceptDeal, Dialogue, Outcome, RejectDeal, Scenario, SubmitDeal, WalkAway
from duologue.core.spec import Metric, TaskSpec
from duologue.core.values import Values
from duologue.core.task import Task
from duologue.tasks.casino.rules import (
    ISSUES,
    PACKAGES_PER_ISSUE,
    POINTS_PER_PRIORITY,
    PRIORITY_LEVELS,
    WALK_AWAY_POINTS,
    is_pareto_optimal,
    points,
    split_problems,
)

PARTY_IDS: tuple[str, str] = ("mturk_agent_1", "mturk_agent_2")
RANKINGS: tuple[tuple[str, ...], ...] = tuple(permutations(ISSUES))
"""All six ways to rank the issues, highest first."""

PAIRING_MIX: tuple[tuple[str, float], ...] = (("identical", 0.25), ("same_top", 0.25), ("different_top", 0.5))
"""How the two parties' rankings relate, in the proportions of the corpus (see the module docstring)."""

LIMIT_NOTES = ("turn_limit", "timeout", "illegal_actions", "disconnect")
"""System notes that end an episode without a deal."""

RANDOM_LINES: tuple[str, ...] = (
    "Hello there!",
    "Hi, how are you doing today?",
    "What do you need the most?",
    "I could really use some extra food.",
    "Water is important to me.",
    "We don't need much firewood.",
    "How about we split everything evenly?",
    "Can I have all the water?",
    "You can have the firewood.",
    "That seems fair to me.",
    "I'm not sure about that.",
    "It gets cold at night here.",
    "Let's make a deal.",
    "I need more than that.",
)
"""What the random agent says: generic lines, never anything private."""


def public_view() -> dict[str, Any]:
    """The public scenario, exactly as the corpus reader builds it."""
    return {
        "issues": list(ISSUES),
        "packages": {issue: PACKAGES_PER_ISSUE for issue in ISSUES},
        "points": dict(POINTS_PER_PRIORITY),
        "walk_away_points": WALK_AWAY_POINTS,
    }


@lru_cache(maxsize=1)
def reason_bank() -> dict[str, dict[str, list[str]]]:
    """Issue -> priority level -> reasons a camper gives (the project's own `reasons.json`)."""
    data = json.loads(resources.files("duologue.tasks.casino").joinpath("reasons.json").read_text(encoding="utf-8"))
    return {issue: data[issue] for issue in ISSUES}


def private_view(ranking: tuple[str, ...] | list[str], reasons: dict[str, str]) -> dict[str, Any]:
    """A party's private view in the corpus reader's keys, from its ranking (highest first)."""
    value2issue = dict(zip(PRIORITY_LEVELS, ranking, strict=True))
    by_issue = {issue: level for level, issue in value2issue.items()}
    return {
        "priorities": {issue: by_issue[issue] for issue in ISSUES},
        "value2issue": value2issue,
        "reasons": {issue: reasons[issue] for issue in ISSUES},
    }


def pending_deal(events: list) -> SubmitDeal | None:
    """The submitted deal still awaiting an answer at the end of these events, if any."""
    pending: SubmitDeal | None = None
    for event in events:
        if isinstance(event, SubmitDeal):
            pending = event
        elif isinstance(event, (RejectDeal, AcceptDeal, WalkAway)):
            pending = None
    return pending


class CasinoTask(Task):
    """CaSiNo campsite negotiation (rules and decisions in the module docstring)."""

    spec = TaskSpec(
        id="casino-v0",
        family="casino",
        title="CaSiNo: campsite negotiation",
        description=(
            "Two campsite neighbours split 3 packages each of food, water and firewood before a trip. Each privately "
            "ranks the three (High 5, Medium 4, Low 3 points a package) with a reason for each. They chat, one submits "
            "a split, the other accepts or rejects; either may walk away (5 points each)."
        ),
        parties=PARTY_IDS,
        kind="competitive",
        metrics=[
            Metric(name="joint_points", label="joint points"),
            Metric(name="agreement", label="agreement"),
            Metric(name="points_mturk_agent_1", label="points mturk_agent_1"),
            Metric(name="points_mturk_agent_2", label="points mturk_agent_2"),
            Metric(name="pareto_efficient", label="Pareto-optimal share"),
            Metric(name="walk_away", label="walk-aways", higher_is_better=False),
        ],
        score="points (at most 36; 5 after a walk-away)",
        judge_context="Two campsite neighbours negotiate how to split packages of food, water and firewood.",
        corpus="casino",
        resources="duologue.tasks.casino",
        widget="deal.js",
        questionnaires={"party": "party.yaml"},
        analysis="duologue.tasks.casino.analysis:analyze",
    )
    default_max_turns = 40
    agents = {"rule": "duologue.tasks.casino.agents:CasinoRuleAgent", "modular": "duologue.tasks.casino.modular:CasinoModularAgent"}

    # ------------------------------------------------------------------ scenarios

    def generate_scenario(self, rng: random.Random) -> Scenario:
        first = rng.choice(RANKINGS)
        pairing = rng.choices([name for name, _ in PAIRING_MIX], weights=[w for _, w in PAIRING_MIX])[0]
        if pairing == "identical":
            second = first
        elif pairing == "same_top":
            second = (first[0], first[2], first[1])
        else:
            second = rng.choice([r for r in RANKINGS if r[0] != first[0]])
        rankings = [first, second]
        rng.shuffle(rankings)
        bank = reason_bank()
        reasons: list[dict[str, str]] = [{}, {}]
        for issue in ISSUES:
            levels = [PRIORITY_LEVELS[r.index(issue)] for r in rankings]
            if levels[0] == levels[1]:
                # never the same sentence for both: a party's reasons stay its own
                reasons[0][issue], reasons[1][issue] = rng.sample(bank[issue][levels[0]], 2)
            else:
                for k in (0, 1):
                    reasons[k][issue] = rng.choice(bank[issue][levels[k]])
        return Scenario(public=public_view(), private={p: private_view(rankings[k], reasons[k]) for k, p in enumerate(self.party_ids)})

    def private_set(self, scenario: Scenario, party: str, before: dict[str, Any], fixed: set[str]) -> None:
        """A person was shown priorities of their own: rename the items in the other party's view the
        same way, so the pair keeps the relation it was drawn with (identical, same top issue or
        different top issues: `PAIRING_MIX`), unless a person set that party's view too."""
        old, new = before.get("value2issue") or {}, scenario.private.get(party, {}).get("value2issue") or {}
        rename = {old[level]: new[level] for level in PRIORITY_LEVELS if level in old and level in new}
        if sorted(rename) != sorted(ISSUES) or sorted(rename.values()) != sorted(ISSUES):
            return
        for other, view in scenario.private.items():
            if other == party or other in fixed or "value2issue" not in view:
                continue
            ranking = [rename[view["value2issue"][level]] for level in PRIORITY_LEVELS]
            rng, bank = random.Random(f"{scenario.id}:{other}"), reason_bank()  # reasons that fit the new levels
            reasons = {issue: rng.choice(bank[issue][PRIORITY_LEVELS[ranking.index(issue)]]) for issue in ISSUES}
            scenario.private[other] = {**view, **private_view(ranking, reasons)}

    # ------------------------------------------------------------------ rules

    def _on_reset(self) -> None:
        self.pending: SubmitDeal | None = None
        # the corpus lists the first speaker first
        self.parties = sorted(self.parties, key=lambda p: p.id != self.to_move)

    def _legal_kinds(self, party: str) -> list[str]:
        if self.pending is None:
            return ["say", "submit-deal", "walk-away"]
        if party == self.pending.party:
            return ["walk-away"]
        return ["accept-deal", "reject-deal", "walk-away"]

    def move_schema(self, party: str, kind: str) -> moves.Schema:
        if kind == "submit-deal":
            pool = {issue: int(n) for issue, n in self.scenario.public.get("packages", {}).items()} or {i: PACKAGES_PER_ISSUE for i in ISSUES}
            return moves.split(kind, pool, description="Propose a split: what you get (mine) and what they get (theirs).")
        return super().move_schema(party, kind)

    def _check(self, party: str, action: actions.Action) -> str | None:
        if isinstance(action, actions.SubmitDeal):
            problems = split_problems(action.mine, action.theirs)
            if problems:
                return "the deal does not split the packages: " + "; ".join(problems)
        return None

    def _apply(self, party: str, action: actions.Action) -> None:
        if isinstance(action, actions.SubmitDeal):
            self.pending = SubmitDeal(party=party, mine=dict(action.mine), theirs=dict(action.theirs))
        elif isinstance(action, actions.RejectDeal):
            self.pending = None
        elif isinstance(action, actions.AcceptDeal):
            self._terminate("agreement")
        elif isinstance(action, actions.WalkAway):
            self._terminate("walk_away")

    def next_party(self, party: str, action: actions.Action) -> str:
        if isinstance(action, actions.RejectDeal):
            return party  # the rejecter explains or counters next, as in the corpus
        return self.other(party)

    # ------------------------------------------------------------------ judging

    # the outcome: `Task.judge` replays a transcript through a fresh engine and asks `score` (the
    # rules live once, in `_legal_kinds`/`_check`/`_apply`); a corpus move the rules refuse (an
    # accept with no deal pending) changes nothing, as it did in the corpus.

    def score(self) -> Outcome:
        """A deal accepted scores each side its points; a walk-away or a limit scores the walk-away points."""
        ids = [p.id for p in self.parties]
        if self.end_reason == "agreement" and self.pending is not None:
            return self._deal(self.pending, ids, self.scenario.private)
        return self._no_deal(self.end_reason if self.end_reason in (*LIMIT_NOTES, "walk_away") else "no_agreement", ids)

    @staticmethod
    def _deal(pending: SubmitDeal, ids: list[str], private: dict[str, Any]) -> Outcome:
        deal = {pid: dict(pending.mine if pid == pending.party else pending.theirs) for pid in ids}
        scores = {pid: float(points(deal[pid], private[pid]["priorities"])) for pid in ids}
        return Outcome(reason="agreement", agreed=True, deal=deal, scores=scores)

    @staticmethod
    def _no_deal(reason: str, ids: list[str]) -> Outcome:
        return Outcome(reason=reason, agreed=False, scores={pid: float(WALK_AWAY_POINTS) for pid in ids})

    def episode_metrics(self, dialogue: Dialogue) -> dict[str, float | None]:
        outcome = dialogue.outcome or self.judge(dialogue)
        figures = super().episode_metrics(dialogue)
        figures["walk_away"] = float(outcome.reason == "walk_away")
        figures["turn_limit"] = float(outcome.reason in LIMIT_NOTES)
        for pid in self.party_ids:
            figures[f"points_{pid}"] = outcome.scores.get(pid)
        movers = [e.party for e in dialogue.events if e.party is not None]
        first = movers[0] if movers else None
        second = next((p.id for p in dialogue.parties if p.id != first), None) if first else None
        figures["points_first_mover"] = outcome.scores.get(first) if first else None
        figures["points_second_mover"] = outcome.scores.get(second) if second else None
        figures["joint_points"] = float(sum(outcome.scores.values())) if outcome.scores else None
        figures["pareto_optimal"] = None
        if outcome.agreed and outcome.deal:
            a, b = self.party_ids
            private = dialogue.scenario.private
            figures["pareto_optimal"] = float(is_pareto_optimal(outcome.deal[a], private[a]["priorities"], private[b]["priorities"]))
        figures["deals_submitted"] = float(sum(1 for e in dialogue.events if isinstance(e, SubmitDeal)))
        return figures

    def values(self, scenario: Scenario) -> Values:
        from duologue.tasks.casino.values import CasinoValues

        return CasinoValues(self.party_ids, scenario)

    # ------------------------------------------------------------------ random play

    def sample_action(self, party: str, rng: random.Random) -> actions.Action:
        legal = self.legal_actions(party) if self.turn_taking == "alternate" else self._legal_kinds(party)
        weights = {"say": 0.5, "submit-deal": 0.4, "walk-away": 0.1, "accept-deal": 0.45, "reject-deal": 0.45}
        kind = rng.choices(legal, weights=[weights[k] for k in legal])[0] if legal else "walk-away"
        if kind == "say":
            return actions.Say(text=rng.choice(RANDOM_LINES))
        if kind == "submit-deal":
            mine = {issue: rng.randint(0, PACKAGES_PER_ISSUE) for issue in ISSUES}
            return actions.SubmitDeal(mine=mine, theirs={issue: PACKAGES_PER_ISSUE - n for issue, n in mine.items()})
        return actions.BY_KIND[kind].model_validate({"kind": kind})

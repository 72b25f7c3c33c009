"""The rewards strategy learning optimises, after CoCoA (He et al. 2018), for any scored task.

Read from the task's own judge: `own` and `other` are the two parties' scores (CraigslistBargain's
utility is already CoCoA's normalised price, zero-sum; point tasks give points). A dialogue with no
deal gets CoCoA's -0.5 (added to the task's own no-deal score for `utility` and `joint`, so a
walk-away value the rules grant still counts).

* utility: own score;
* fairness: 2 - the gap between the two scores, in [1, 2] for a deal: CoCoA's 2 - |utility| on a
  zero-sum normalised price (|own - other| / 2), and on points both sides keep (both scores >= 0)
  the gap as a share of the total, |own - other| / (own + other), so a deal is never worth less
  than no deal (a raw points gap of 6 would score below -0.5) and the scenario's size drops out;
* length: the number of moves, in tens;
* joint: own + other (the points both sides take home).
"""

from __future__ import annotations

from typing import Callable

from duologue.core.schema import Dialogue

NO_DEAL = -0.5


def _scores(dialogue: Dialogue, party: str) -> tuple[float, float, bool]:
    outcome = dialogue.outcome
    scores = outcome.scores if outcome is not None else {}
    other = next((p.id for p in dialogue.parties if p.id != party), None)
    own = float(scores.get(party, 0.0) or 0.0)
    theirs = float(scores.get(other, 0.0) or 0.0) if other is not None else 0.0
    return own, theirs, bool(outcome is not None and outcome.agreed)


def _moves(dialogue: Dialogue) -> int:
    return sum(1 for e in dialogue.events if e.kind != "system")


def utility(dialogue: Dialogue, party: str) -> float:
    own, _, agreed = _scores(dialogue, party)
    return own if agreed else own + NO_DEAL


def gap(own: float, theirs: float) -> float:
    """How unequal a deal is, 0 (even) to about 1: the share gap on points, half the spread on a zero-sum score."""
    if own >= 0 and theirs >= 0 and own + theirs > 0:
        return abs(own - theirs) / (own + theirs)
    return abs(own - theirs) / 2.0


def fairness_score(own: float, theirs: float) -> float:
    """How fair a deal is, 2 - `gap`: 2 for an even deal, 1 at the most lopsided. The one definition of
    fairness in duologue's strategy learning: the reward trains on it and `benchmarks/bench_rl.py` measures it."""
    return 2.0 - gap(own, theirs)


def fairness(dialogue: Dialogue, party: str) -> float:
    own, theirs, agreed = _scores(dialogue, party)
    return fairness_score(own, theirs) if agreed else NO_DEAL


def length(dialogue: Dialogue, party: str) -> float:
    _, _, agreed = _scores(dialogue, party)
    return _moves(dialogue) / 10.0 if agreed else NO_DEAL


def joint(dialogue: Dialogue, party: str) -> float:
    own, theirs, agreed = _scores(dialogue, party)
    return own + theirs if agreed else own + theirs + NO_DEAL


REWARDS: dict[str, Callable[[Dialogue, str], float]] = {"utility": utility, "fairness": fairness, "length": length, "joint": joint}


def reward(name: str, dialogue: Dialogue, party: str) -> float:
    """The reward `name` of a finished dialogue for `party`."""
    if name not in REWARDS:
        raise ValueError(f"unknown reward {name!r}: choose one of {', '.join(REWARDS)}")
    return REWARDS[name](dialogue, party)

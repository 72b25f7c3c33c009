"""How people answer a CaSiNo deal that is put to them: the chance they accept it, by what it is worth to them.

In the corpus (train and valid splits) 1,069 submitted deals were answered by the other party:
906 accepted, the rest rejected or walked away from. How often people accept depends steeply on
the points the deal gives them: about nine in ten at 18-23 points, about half at 13-15, about one
in three at 6-9. A logistic fit of "accepted" on the answerer's points,

    P(accept | points) = 1 / (1 + exp(-(SLOPE * points + INTERCEPT))),

crosses one half at about 10.7 points of the 36 a side can get. `fit_acceptance` refits it from
dialogues read in duologue's schema (`tests/tasks/casino/test_answering.py` checks the shipped
figures against the corpus).

People also leave: of the 154 times a party's deal was refused, 7 ended with that party walking
away (`walk_aways_after_refusal`), about one in twenty-two.

The rule agent and the modular agent use these where their own rules would take a deal below the
fair split only because time is running out (a softening threshold, or the last chance before the
turn limit): they then accept as often as people accept a deal worth that much to them, and
otherwise turn it down; after the partner refuses a deal of theirs that was already below the fair
split, they make the next concession below it only as often as people would take what it leaves
them (else the last offer stands), and walk away as often as refused people do. A partner who stalls and asks for nearly everything at the last moment is
refused as people refuse it, instead of being paid for stalling; deals at or above the fair split
are answered by the rules alone, so ordinary negotiations do not change.
"""

from __future__ import annotations

import math
import random
from typing import Iterable

from duologue.core.schema import AcceptDeal, Dialogue, RejectDeal, SubmitDeal, WalkAway
from duologue.tasks.casino.rules import points

SLOPE = 0.2502
INTERCEPT = -2.6764
ANSWERS = 1069
"""The corpus figures the constants were fitted on (train + valid splits), for the check that refits them."""
WALKED_AFTER_REFUSAL, REFUSALS = 7, 154
"""Walk-aways by a party whose deal had been refused, and refusals of deals, in the same splits."""


def accept_chance(value: float) -> float:
    """The chance a person accepts a deal worth `value` points to them."""
    return 1.0 / (1.0 + math.exp(-(SLOPE * value + INTERCEPT)))


def accepts_like_people(value: float, rng: random.Random) -> bool:
    """One draw: does a person take a deal worth `value` to them?"""
    return rng.random() < accept_chance(value)


def answered_deals(dialogues: Iterable[Dialogue]) -> list[tuple[int, bool]]:
    """(points to the answerer, accepted?) for every submitted deal the other party answered."""
    found: list[tuple[int, bool]] = []
    for dialogue in dialogues:
        private = dialogue.scenario.private if dialogue.scenario is not None else {}
        pending: SubmitDeal | None = None
        for event in dialogue.events:
            if isinstance(event, SubmitDeal):
                pending = event
            elif isinstance(event, (AcceptDeal, RejectDeal, WalkAway)):
                answerer = event.party
                if pending is not None and pending.party != answerer and answerer in private:
                    value = points(pending.theirs, private[answerer]["priorities"])
                    found.append((value, isinstance(event, AcceptDeal)))
                if not isinstance(event, WalkAway):
                    pending = None
    return found


def walk_aways_after_refusal(dialogues: Iterable[Dialogue]) -> tuple[int, int]:
    """(walk-aways, refusals): how often a party whose submitted deal had been refused walked away.

    Every refusal of a party's deal counts once; a walk-away counts when its party had at least one
    deal refused before it."""
    walked = refusals = 0
    for dialogue in dialogues:
        refused: dict[str, int] = {}
        pending: SubmitDeal | None = None
        for event in dialogue.events:
            if isinstance(event, SubmitDeal):
                pending = event
            elif isinstance(event, RejectDeal):
                if pending is not None and pending.party is not None and pending.party != event.party:
                    refused[pending.party] = refused.get(pending.party, 0) + 1
                    refusals += 1
                pending = None
            elif isinstance(event, AcceptDeal):
                pending = None
            elif isinstance(event, WalkAway) and event.party is not None and refused.get(event.party, 0) > 0:
                walked += 1
    return walked, refusals


def walks_away_after_refusal(rng: random.Random) -> bool:
    """One draw: does a person whose deal was just refused walk away?"""
    return rng.random() < WALKED_AFTER_REFUSAL / REFUSALS


def fit_acceptance(dialogues: Iterable[Dialogue]) -> tuple[float, float, int]:
    """(slope, intercept, answers) of the logistic fit of acceptance on the answerer's points (Newton's method)."""
    data = answered_deals(dialogues)
    if not data:
        raise ValueError("no answered deals to fit")
    slope, intercept = 0.0, 0.0
    for _ in range(50):
        g0 = g1 = h00 = h01 = h11 = 0.0
        for value, accepted in data:
            p = 1.0 / (1.0 + math.exp(-(slope * value + intercept)))
            residual = float(accepted) - p
            weight = p * (1.0 - p)
            g0, g1 = g0 + residual * value, g1 + residual
            h00, h01, h11 = h00 + weight * value * value, h01 + weight * value, h11 + weight
        det = h00 * h11 - h01 * h01
        step_slope = (h11 * g0 - h01 * g1) / det
        step_intercept = (h00 * g1 - h01 * g0) / det
        slope, intercept = slope + step_slope, intercept + step_intercept
        if abs(step_slope) + abs(step_intercept) < 1e-10:
            break
    return slope, intercept, len(data)

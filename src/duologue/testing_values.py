"""Conformance of declared values (`Task.values`), for tasks that declare them.

The values are a second statement of the scoring, so they must agree with `judge`: every outcome
is valued finitely by both parties; an agreement's deal is worth to each party the score the judge
gives it; an episode without agreement is worth each party's walk-away value where the judge scores
it; the moves the values name (`propose`, `accept`, `reject`) fit the task's action schema when
they apply; and the classic baselines, which play by nothing else, reach a deal. Problems come back
as lines, like `duologue.testing.check_task`'s.
"""

from __future__ import annotations

import math
import random

from duologue.agents import make_agent
from duologue.agents.concession import BASELINES
from duologue.core.episode import play_episode
from duologue.core.schema import Dialogue
from duologue.core.task import Task
from duologue.core.values import Values
from duologue.tasks import make
from duologue.testing import ConformanceError

TOLERANCE = 1e-6


def check_values(task_id: str, *, episodes: int = 6, seed: int = 0) -> None:
    """Raise `ConformanceError` listing every way `task_id`'s declared values disagree with its rules."""
    problems = value_problems(task_id, episodes=episodes, seed=seed)
    if problems:
        raise ConformanceError(f"{task_id}'s values fail {len(problems)} check(s):\n" + "\n".join(f"  - {p}" for p in problems[:40]))


def value_problems(task_id: str, *, episodes: int = 6, seed: int = 0) -> list[str]:
    """What is wrong with `task_id`'s declared values (empty when nothing is, or it declares none)."""
    task = make(task_id)
    probe = task.values(task.generate_scenario(random.Random(seed)))
    if probe is None:
        compare = task.spec.compare
        return [f"spec.compare is {compare!r}, which needs declared values (Task.values), and the task declares none"] if compare == "surplus" else []
    problems = _space_problems(probe, task)
    agreed = 0
    pairs = [(a, b) for a in BASELINES for b in BASELINES][: max(episodes, 1)]
    for number, (first, second) in enumerate(pairs):
        agents = dict(zip(task.party_ids, (make_agent(first, task), make_agent(second, task)), strict=True))
        try:
            dialogue = play_episode(task, agents, seed=seed + number)
        except Exception as error:  # noqa: BLE001 - a task's or values' own bug is reported, not raised
            problems.append(f"{first} vs {second}, seed {seed + number}: the episode failed: {type(error).__name__}: {error}")
            continue
        problems += [f"{first} vs {second}, seed {seed + number}: {p}" for p in _outcome_problems(task, dialogue)]
        agreed += bool(dialogue.outcome and dialogue.outcome.agreed)
    if not agreed and not problems:
        problems.append(f"the baselines reached no deal in {len(pairs)} episode(s): check propose/accept/proposed")
    return problems


def _space_problems(values: Values, task: Task) -> list[str]:
    problems = []
    if tuple(values.parties) != tuple(task.party_ids):
        problems.append(f"Values.parties {values.parties} are not the task's parties {task.party_ids}")
    outcomes = values.outcomes()
    if not outcomes:
        return [*problems, "Values.outcomes() is empty"]
    for party in task.party_ids:
        walk = values.walk_away(party)
        if not math.isfinite(walk):
            problems.append(f"walk_away({party!r}) is {walk}")
        bad = [deal for deal in outcomes if not math.isfinite(values.value(party, deal))]
        if bad:
            problems.append(f"value({party!r}, ...) is not a finite number for {len(bad)} outcome(s), e.g. {bad[0]}")
    return problems


def _outcome_problems(task: Task, dialogue: Dialogue) -> list[str]:
    outcome = dialogue.outcome or task.judge(dialogue)
    values = task.values(dialogue.scenario)
    if values is None:
        return ["Task.values gives None for a scenario of its own"]
    problems = []
    for party in task.party_ids:
        score = outcome.scores.get(party)
        if score is None:
            continue
        if outcome.agreed and outcome.deal is not None:
            worth = values.value(party, outcome.deal)
            if abs(worth - score) > TOLERANCE:
                problems.append(f"the deal {outcome.deal} is worth {worth} to {party} by the values but scores {score}")
        elif outcome.agreed is False:
            walk = values.walk_away(party)
            if abs(walk - score) > TOLERANCE:
                problems.append(f"no agreement ({outcome.reason}) scores {score} for {party}, its walk-away value is {walk}")
    return problems

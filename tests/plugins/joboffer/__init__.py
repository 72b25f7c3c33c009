"""A job-offer negotiation written as a plug-in: the whole interface a task author writes, in one file.

A recruiter and a candidate agree on salary, start month and remote days a week, or walk away.
Each privately weighs the three issues and holds a walk-away value (what no deal is worth to it).
One proposes a `job-offer` (this task's own move); the other accepts, rejects (and counters), or
walks away. A deal scores each side the weighted value of its terms (0..1); no deal scores each
its walk-away value.

What the author writes: the spec, a scenario generator, the rules (`_legal_kinds`, `move_schema`,
`_apply`), `score`, and the values (`values`: every package an agreement can have, what each is
worth to each side, and what walking away is worth). What duologue derives from them: the event the
move is stored as (`register_move` without an event class), random play (`sample_action` from the
action schema), the judge (a replay of the events through a fresh engine, then `score`), per-party
and per-role score metrics, the RL menu, the LLM's move line, the terminal's `/help` and the page's
form; and from the values, the Pareto frontier, the Nash and Kalai points, each deal's surplus and
distance to the frontier (in `report`, `tournament`, `replay` and `analyze`, with the utility-space
figure in their HTML reports), the baseline negotiators (`boulware`, `linear`, `conceder`,
`tit-for-tat`), and ratings by surplus over the walk-away (`compare="surplus"`).
Installed as a package, it declares itself as an entry point:
`[project.entry-points."duologue.tasks"] joboffer-v0 = "joboffer:JobOfferTask"`.
"""

from __future__ import annotations

import itertools
import random
from typing import Any, Literal

from duologue.core import actions, moves
from duologue.core.schema import Outcome, Party, Scenario
from duologue.core.spec import Metric, TaskSpec
from duologue.core.task import Task
from duologue.core.values import Deal, Values

SALARIES = (60, 70, 80, 90)
"""Yearly salary in thousands: what the recruiter offers and the candidate wants differ."""
MONTHS = ("june", "july", "september")
REMOTE_DAYS = (0, 5)
ISSUES = ("salary", "start", "remote")


@actions.register_move  # the event it is stored as (`JobOfferMoveEvent`) is made from its fields
class JobOfferMove(actions.Action):
    """Propose the whole package: salary (thousands a year), start month, remote days a week."""

    kind: Literal["job-offer"] = "job-offer"
    salary: int
    start: str
    remote: int


def appeal(role: str, issue: str, value: object) -> float:
    """How much a role likes one term, 0..1: the candidate likes pay, an early start's certainty
    and remote days; the recruiter the opposite."""
    if issue == "salary":
        share = SALARIES.index(int(value)) / (len(SALARIES) - 1)  # type: ignore[call-overload]
    elif issue == "start":
        share = 1 - MONTHS.index(str(value)) / (len(MONTHS) - 1)
    else:
        share = (int(value) - REMOTE_DAYS[0]) / (REMOTE_DAYS[1] - REMOTE_DAYS[0])  # type: ignore[call-overload]
    return share if role == "candidate" else 1 - share


class JobOfferValues(Values):
    """Every package (salary x start x remote days), each side's weighted value of it, its walk-away value."""

    offer_kind, accept_kind, reject_kind = "job-offer", "accept", "reject"  # a deal is the move's own fields

    def __init__(self, parties: tuple[str, str], scenario: Scenario) -> None:
        super().__init__(parties)
        self.private = {p: view for p, view in scenario.private.items() if isinstance(view, dict)}

    def outcomes(self) -> list[Deal]:
        remote = range(REMOTE_DAYS[0], REMOTE_DAYS[1] + 1)
        return [{"salary": s, "start": m, "remote": r} for s, m, r in itertools.product(SALARIES, MONTHS, remote)]

    def value(self, party: str, deal: Deal) -> float:
        view: dict[str, Any] = self.private[party]
        return round(sum(view["weights"][issue] * appeal(view["role"], issue, deal[issue]) for issue in ISSUES), 4)

    def walk_away(self, party: str) -> float:
        return float(self.private[party]["walk_away"])


class JobOfferTask(Task):
    spec = TaskSpec(
        id="joboffer-v0",
        family="joboffer",
        title="Job offer: salary, start month and remote days",
        description="A recruiter and a candidate agree on a job offer or walk away. Each privately weighs the issues and knows what no deal is worth to it.",
        parties=("recruiter", "candidate"),
        roles=("recruiter", "candidate"),
        kind="competitive",
        compare="surplus",  # walk-away values are private and differ: a no-deal game is won by neither
        metrics=[Metric(name="agreement", label="agreement"), Metric(name="score_candidate", label="candidate's value")],
        score="the value of the deal to you (0..1), or your walk-away value",
        judge_context="A recruiter and a candidate negotiate salary, start month and remote days.",
        resources="joboffer",
    )
    default_max_turns = 16

    def generate_scenario(self, rng: random.Random) -> Scenario:
        def view(role: str) -> dict[str, object]:
            raw = [rng.randint(1, 9) for _ in ISSUES]
            weights = {issue: round(w / sum(raw), 2) for issue, w in zip(ISSUES, raw, strict=True)}
            return {"role": role, "weights": weights, "walk_away": round(rng.uniform(0.2, 0.45), 2)}

        public = {"salaries": list(SALARIES), "months": list(MONTHS), "remote_days": list(REMOTE_DAYS)}
        return Scenario(public=public, private={p: view(p) for p in self.party_ids})

    def make_parties(self, scenario: Scenario) -> list[Party]:
        return [Party(id=p, kind="bot", role=p) for p in self.party_ids]  # each party always plays its own role

    def _on_reset(self) -> None:
        self.pending: tuple[str, JobOfferMove] | None = None

    def _legal_kinds(self, party: str) -> list[str]:
        if self.pending is None:
            return ["say", "job-offer", "walk-away"]
        if self.pending[0] == party:
            return ["say", "walk-away"]
        return ["accept", "reject", "walk-away"]

    def move_schema(self, party: str, kind: str) -> moves.Schema:
        if kind == "job-offer":
            terms = {
                "salary": {"enum": list(SALARIES)},
                "start": {"enum": list(MONTHS)},
                "remote": {"type": "integer", "minimum": REMOTE_DAYS[0], "maximum": REMOTE_DAYS[1]},
            }
            return moves.move(kind, terms, description=JobOfferMove.__doc__)
        return super().move_schema(party, kind)

    def _check(self, party: str, action: actions.Action) -> str | None:
        if isinstance(action, JobOfferMove):
            return moves.validate(self.move_schema(party, action.kind), action.model_dump(mode="json"))
        return None

    def _apply(self, party: str, action: actions.Action) -> None:
        if isinstance(action, JobOfferMove):
            self.pending = (party, action)
        elif isinstance(action, actions.Reject):
            self.pending = None
        elif isinstance(action, actions.Accept):
            self._terminate("agreement")
        elif isinstance(action, actions.WalkAway):
            self._terminate("walk_away")

    def values(self, scenario: Scenario) -> JobOfferValues:
        return JobOfferValues(self.party_ids, scenario)

    def score(self) -> Outcome:
        values = self.values(self.scenario)
        if self.end_reason != "agreement" or self.pending is None:
            return Outcome(reason=self.end_reason or "no_agreement", agreed=False, scores={p: values.walk_away(p) for p in self.party_ids})
        deal = self.pending[1].model_dump(exclude={"kind"})
        return Outcome(reason="agreement", agreed=True, deal=deal, scores={p: values.value(p, deal) for p in self.party_ids})

"""How parties compare is the task spec's (`TaskSpec.compare`): by score, by surplus over the
walk-away, or within a role; each changes who wins in a case built for it."""

from __future__ import annotations

import pytest

from duologue.arena.ratings import game_from_dialogue, ratings_from_dialogues
from duologue.core import actions
from duologue.core.schema import Dialogue, Outcome, Party, Scenario
from duologue.core.spec import TaskSpec
from duologue.core.task import Task
from duologue.core.values import Values
from duologue.tasks import TASKS, register


class Shares(Values):
    """Split 10 coins; each party's walk-away value is private."""

    def __init__(self, parties, scenario):
        super().__init__(parties)
        self.walks = {p: view["walk"] for p, view in scenario.private.items()}

    def outcomes(self):
        a, b = self.parties
        return [{a: n, b: 10 - n} for n in range(11)]

    def value(self, party, deal):
        return float(deal[party])

    def walk_away(self, party):
        return float(self.walks[party])

    def propose(self, party, deal):
        return actions.Offer(price=float(deal[party]))

    def accept(self, party, deal):
        return actions.Accept()

    def proposed(self, event, reader):
        return None


class Fallback(Task):
    """Built only to be rated: dialogues are made by hand, never played."""

    spec = TaskSpec(
        id="fallback-v0", family="fallback", title="Coins with a fallback", description="Split 10 coins; each has a private fallback.",
        parties=("a", "b"), roles=("lender", "borrower"), kind="competitive", resources="duologue",
    )

    def generate_scenario(self, rng):
        return Scenario(private={"a": {"walk": 0}, "b": {"walk": 0}})

    def _legal_kinds(self, party):
        return ["offer", "accept"]

    def judge(self, dialogue):
        return dialogue.outcome or Outcome(reason="no_agreement", agreed=False)

    def sample_action(self, party, rng):
        return actions.Accept()

    def values(self, scenario):
        return Shares(self.party_ids, scenario)


class BySurplus(Fallback):
    spec = Fallback.spec.model_copy(update={"id": "fallback-surplus-v0", "compare": "surplus"})


class ByRole(Fallback):
    spec = Fallback.spec.model_copy(update={"id": "fallback-role-v0", "compare": "role"})


@pytest.fixture
def registered():
    ids = [register(cls) for cls in (Fallback, BySurplus, ByRole)]
    yield
    for task_id in ids:
        TASKS.pop(task_id, None)


def game(task_id: str, agents: tuple[str, str], walks: tuple[int, int], scores: tuple[int, int] | None, roles=("lender", "borrower"), n: int = 0) -> Dialogue:
    deal = None if scores is None else {"a": scores[0], "b": scores[1]}
    outcome = Outcome(reason="agreement", agreed=True, deal=deal, scores={"a": float(scores[0]), "b": float(scores[1])}) if scores else Outcome(
        reason="walk_away", agreed=False, scores={"a": float(walks[0]), "b": float(walks[1])}
    )
    return Dialogue(
        id=f"{task_id}-{n}", task="fallback", scenario=Scenario(private={"a": {"walk": walks[0]}, "b": {"walk": walks[1]}}),
        parties=[Party(id="a", kind="bot", role=roles[0]), Party(id="b", kind="bot", role=roles[1])], events=[], outcome=outcome,
        meta={"task_id": task_id, "agents": {"a": agents[0], "b": agents[1]}},
    )


def leader(dialogues: list[Dialogue]) -> str:
    board = ratings_from_dialogues(dialogues, by_role=False, bootstrap=0, methods=("bradley-terry",))[0]
    return max(board.rows, key=lambda row: row.rating).name


def fallback_games(task_id: str) -> list[Dialogue]:
    """X always draws the larger fallback: it walks away with 8 against Y's 2, and takes 6 of 10
    where its fallback was 5 (gaining 1) while Y, whose fallback was 0, gains 4."""
    found = []
    for n in range(6):
        found.append(game(task_id, ("X", "Y"), (8, 2), None, n=2 * n))
        found.append(game(task_id, ("X", "Y"), (5, 0), (6, 4), n=2 * n + 1))
    return found


def test_by_score_the_larger_fallback_wins_by_surplus_it_does_not(registered):
    walked = game("fallback-v0", ("X", "Y"), (8, 2), None)
    assert game_from_dialogue(walked).result == 1.0  # by score: 8 beats 2 with no deal at all
    assert game_from_dialogue(game("fallback-surplus-v0", ("X", "Y"), (8, 2), None)).result == 0.5  # by surplus: nobody gained
    assert game_from_dialogue(game("fallback-surplus-v0", ("X", "Y"), (5, 0), (6, 4))).result == 0.0  # 1 over 5 loses to 4 over 0
    assert leader(fallback_games("fallback-v0")) == "X"
    assert leader(fallback_games("fallback-surplus-v0")) == "Y"


def role_games(task_id: str) -> list[Dialogue]:
    """Lenders score more whoever they are. X lends and gets 7 (Y 3); Y lends and gets 9 (X 1): by
    score one game each; against their roles' means (lender 8, borrower 2), Y wins both."""
    found = []
    for n in range(6):
        found.append(game(task_id, ("X", "Y"), (0, 0), (7, 3), n=2 * n))
        found.append(game(task_id, ("Y", "X"), (0, 0), (9, 1), n=2 * n + 1))
    return found


def test_within_a_role_each_score_is_measured_against_its_roles_mean(registered):
    by_score = ratings_from_dialogues(role_games("fallback-v0"), by_role=False, bootstrap=0, methods=("bradley-terry",))[0]
    ratings = {row.name: row.rating for row in by_score.rows}
    assert ratings["X"] == pytest.approx(ratings["Y"])  # one win each, six times over
    by_role = ratings_from_dialogues(role_games("fallback-role-v0"), by_role=False, bootstrap=0, methods=("bradley-terry",))[0]
    assert leader(role_games("fallback-role-v0")) == "Y"
    assert {row.name: row.wins for row in by_role.rows} == {"X": 0, "Y": 12}
    assert "against its role's mean" in by_role.note

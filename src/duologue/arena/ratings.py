"""Ratings of agents from the dialogues they played: Bradley-Terry and Elo, with bootstrap intervals.

What a game is
--------------
Every finished dialogue between two agents is one game, judged by the task's own scores
(`Outcome.scores`, i.e. `Task.judge`), read as the task's spec says (`TaskSpec.kind`), so a new
task is rated as soon as it is registered:

* Competitive tasks (CraigslistBargain, CaSiNo): the party with the higher score wins, equal scores
  are a tie (half a win each). A dialogue without a deal is a tie: both sides get the walk-away
  value (CaSiNo: 5 points each; CraigslistBargain: no utility for either side), so neither won.
  CraigslistBargain's utility is zero-sum, so the winner is whoever pulled the price past the
  midpoint of the two targets; CaSiNo's winner is the side with more points.
* Cooperative tasks (MutualFriends): both parties share one score (did they find the friend), so
  "A beat B" means nothing. Instead each game is a pair against the task: the pair succeeds with
  probability `sigmoid(mu + theta_A + theta_B)`, a logistic (Rasch-like) model where `mu` is how
  easy the task is and `theta` is an agent's contribution to its pairs' success. The leaderboard
  method is then `pair-success`: a gap of D points means that swapping one agent for the other,
  in any pair, multiplies the odds of success by `10 ** (D / 400)`. Elo is not defined for it.
* `rated` tasks (open chat) have no task score: their dialogues are not rated (the leaderboard says so).

How two parties compare is the spec's too (`TaskSpec.compare`): by `score` (above); by `surplus`,
each party's score over its own walk-away value from the task's declared values (with private
walk-aways, the side that drew the larger fallback no longer "wins" a game without a deal); or
within a `role`, each score less the mean score of its role over the games rated together.

Bradley-Terry
-------------
`P(i beats j) = sigmoid(theta_i - theta_j)`, fitted by Newton's method on the log-likelihood with
ties counted as half a win and half a loss. A small prior keeps every rating finite, even for an
agent that never lost: each agent gets `prior` virtual ties against a fixed reference at theta 0
(the same as a weak logistic pull towards the middle). Ratings are shown on the Elo scale,
`400 / ln 10 * theta`, shifted so that the mean of the leaderboard's agents is 1000 (or so that a
named `anchor` agent is at 1000): a gap of 400 points means 10:1 odds.

Roles: `by_role=True` also rates each agent per party slot (`buyer`/`seller`; CaSiNo's
`mturk_agent_1`/`mturk_agent_2`): the players are then (agent, role) pairs fitted jointly, and an
agent's rating as buyer comes from its games as buyer only. The joint fit anchors the mean over
both roles at 1000, so a role advantage shows: a buyer rated 1100 beats a seller rated 1000 in 64%
of games. The pooled rating (`role=None`) ignores seats, which is fair when seats are balanced (a
tournament plays both); self-play games (an agent against itself) say nothing about one agent
against another and are left out of the pooled competitive rating, while in the per-role rating
(agent as buyer vs the same agent as seller) they count.

Elo, for comparison
-------------------
Sequential updates `R_i += K (S_i - E_i)` with `E_i = 1 / (1 + 10 ** ((R_j - R_i) / 400))`, from
1000 for everyone, over the games in a seeded random order, averaged over `elo_orders` orders.
The result depends on the order of the games (Elo's known flaw for a fixed set of results): the
leaderboard's `order_sd` column is the standard deviation of each rating across the orders.

Intervals
---------
95% percentile bootstrap: the games are resampled with replacement (seeded), the model refitted
(all resamples at once: Newton's method runs on a stack of resamples, Elo runs its updates on all
resamples in step), and the 2.5th and 97.5th percentiles of each rating reported. Elo resamples
are also played in a fresh random order, so its interval covers the order dependence too.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass
from typing import Any, Iterable, Literal

import numpy as np
from pydantic import Field
from rich.table import Table

from duologue.core.schema import Dialogue, Model, Outcome
from duologue.core.spec import Comparison, TaskSpec
from duologue.core.values import surplus
from duologue.tasks import UnknownNameError, make, spec, spec_of_family

ELO_SCALE = 400 / math.log(10)
"""Points per unit of log-odds: 400 points = odds of 10 to 1."""
BASE_RATING = 1000.0
TIE_TOLERANCE = 1e-9

GameKind = Literal["competitive", "cooperative"]
Method = Literal["bradley-terry", "elo", "pair-success"]

def spec_of_dialogue(dialogue: Dialogue) -> TaskSpec | None:
    """The spec of the task that played a dialogue: `meta.task_id` when registered, else the first
    registered task of its family (a corpus dialogue); None when no registered task matches."""
    task_id = dialogue.meta.get("task_id")
    if isinstance(task_id, str):
        try:
            return spec(task_id)
        except UnknownNameError:
            pass
    return spec_of_family(dialogue.task)


def game_kind(dialogue: Dialogue) -> GameKind | None:
    """How a dialogue's games are rated, from its task's spec (`TaskSpec.kind`); None: not rated.

    The spec is the one registered under `meta.task_id`, else the first of the dialogue's family
    (a corpus dialogue). A `rated` task (people's ratings, no score) and an unknown task give None.
    """
    found = spec_of_dialogue(dialogue)
    if found is None or found.kind == "rated":
        return None
    return found.kind


class Game(Model):
    """One rated dialogue: who sat where and how it went for the first party."""

    task: str
    kind: GameKind
    agents: tuple[str, str]
    """Agent names (specs) in the task's party order."""
    roles: tuple[str, str]
    """The party slots they sat in: a party's role when the task has roles, else its id."""
    result: float
    """Competitive: 1 when the first party won, 0.5 a tie, 0 a loss. Cooperative: 1 success, 0 failure."""
    scores: tuple[float, float] | None = None
    """Competitive: the two figures compared (scores, or surpluses by the spec's `compare`)."""
    compare: Comparison = "score"
    dialogue: str = ""


class LeaderboardRow(Model):
    name: str
    rating: float
    low: float
    high: float
    games: int
    wins: int
    ties: int
    losses: int
    """Cooperative tasks: `wins` are the pair's successes, `losses` its failures."""
    order_sd: float | None = None
    """Elo only: standard deviation of the rating across game orders."""


class Leaderboard(Model):
    """Ratings of agents on one task, in one role (None: both roles pooled), by one method."""

    task: str
    role: str | None = None
    method: Method
    kind: GameKind | None = None
    rows: list[LeaderboardRow] = Field(default_factory=list)
    games: int = 0
    bootstrap: int = 0
    seed: int = 0
    note: str = ""


# --------------------------------------------------------------------------- games


def agent_names(dialogue: Dialogue) -> tuple[str, str]:
    """The two agents' names in party order: `meta.agents` from self-play, else the parties' own."""
    agents = dialogue.meta.get("agents")
    by_party = agents if isinstance(agents, dict) else {}
    names = [str(by_party.get(p.id) or p.agent or p.kind) for p in dialogue.parties]
    return names[0], names[1]


def task_id_of(dialogue: Dialogue) -> str:
    return str(dialogue.meta.get("task_id") or dialogue.task)


def _outcome(dialogue: Dialogue) -> Outcome | None:
    if dialogue.outcome is not None:
        return dialogue.outcome
    try:
        return make(task_id_of(dialogue)).judge(dialogue)
    except (UnknownNameError, ValueError):
        return None


def game_from_dialogue(dialogue: Dialogue) -> Game | None:
    """The game a dialogue records, or None when it cannot be rated (no score, unfinished, not two parties)."""
    kind = game_kind(dialogue)
    if kind is None or len(dialogue.parties) != 2:
        return None
    outcome = _outcome(dialogue)
    if outcome is None:
        return None
    first, second = dialogue.parties
    if kind == "cooperative":
        if outcome.agreed is None:
            return None
        result = 1.0 if outcome.agreed else 0.0
    else:
        compare = _comparison(dialogue)
        compared = _compared(dialogue, outcome, compare)
        if compared is None:
            return None
        one, two = compared
        result = 0.5 if math.isclose(one, two, abs_tol=TIE_TOLERANCE) else float(one > two)
    return Game(
        task=task_id_of(dialogue),
        kind=kind,
        agents=agent_names(dialogue),
        roles=(first.role or first.id, second.role or second.id),
        result=result,
        scores=None if kind == "cooperative" else (one, two),
        compare="score" if kind == "cooperative" else compare,
        dialogue=dialogue.id,
    )


WINS_BY: dict[str, str] = {
    "score": "higher task score wins",
    "surplus": "larger surplus over one's own walk-away wins",
    "role": "higher score against its role's mean wins",
}
"""How a leaderboard's note says who won a game, by the spec's `compare`."""


def _comparison(dialogue: Dialogue) -> Comparison:
    found = spec_of_dialogue(dialogue)
    return found.compare if found is not None else "score"


def _compared(dialogue: Dialogue, outcome: Outcome, compare: Comparison) -> tuple[float, float] | None:
    """The two parties' figures a competitive game compares, in party order; None when there are none."""
    first, second = (p.id for p in dialogue.parties)
    if compare == "surplus":
        try:
            declared = make(task_id_of(dialogue)).values(dialogue.scenario)
        except (UnknownNameError, ValueError):
            declared = None
        gains = surplus(declared, outcome) if declared is not None else {}
        if first in gains and second in gains:
            return gains[first], gains[second]
    one, two = outcome.scores.get(first), outcome.scores.get(second)
    if one is None or two is None:
        if outcome.agreed is not False:
            return None  # a deal that could not be scored: nothing to compare
        return 0.0, 0.0  # no deal: both keep their walk-away value
    return one, two


def within_roles(games: list[Game]) -> list[Game]:
    """Games of a `role` comparison judged again: each score less the mean score of its role over these games."""
    totals: dict[str, list[float]] = defaultdict(list)
    for game in games:
        if game.compare == "role" and game.scores is not None:
            for role, score in zip(game.roles, game.scores, strict=True):
                totals[role].append(score)
    means = {role: sum(found) / len(found) for role, found in totals.items()}
    judged = []
    for game in games:
        if game.compare == "role" and game.scores is not None:
            one, two = (score - means[role] for role, score in zip(game.roles, game.scores, strict=True))
            game = game.model_copy(update={"result": 0.5 if math.isclose(one, two, abs_tol=TIE_TOLERANCE) else float(one > two)})
        judged.append(game)
    return judged


def _why_unrated(dialogue: Dialogue) -> str:
    found = spec_of_dialogue(dialogue)
    if found is None:
        return f"no registered task plays {task_id_of(dialogue)!r}"
    if found.kind == "rated":
        return "the task keeps no score: people rate its dialogues"
    return "none finished with a score for both parties"


# --------------------------------------------------------------------------- fitting


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * x))  # stable for large |x|


def fit_logistic(design: np.ndarray, target: np.ndarray, weights: np.ndarray, *, prior: float = 1.0, iterations: int = 100) -> np.ndarray:
    """Maximum a posteriori logistic fit for a stack of weightings of the same rows.

    design: (rows, params); target: (rows,) in [0, 1] (a tie is 0.5); weights: (samples, rows),
    how often each row counts in each sample (a bootstrap resample). `prior` adds that many
    virtual ties of every parameter against a reference at 0, which keeps estimates finite when an
    agent never lost. Returns (samples, params). Newton's method, all samples at once.
    """
    weights = np.atleast_2d(np.asarray(weights, dtype=float))
    samples, params = weights.shape[0], design.shape[1]
    theta = np.zeros((samples, params))
    for _ in range(iterations):
        p = _sigmoid(theta @ design.T)
        q = _sigmoid(theta)
        gradient = (weights * (target - p)) @ design + prior * (0.5 - q)
        curvature = np.einsum("su,up,uq->spq", weights * p * (1 - p), design, design)
        curvature[:, np.arange(params), np.arange(params)] += prior * q * (1 - q)
        step = np.einsum("spq,sq->sp", np.linalg.pinv(curvature, hermitian=True), gradient)
        step = np.clip(step, -4.0, 4.0)  # damping: far from the optimum a full step can overshoot
        theta += step
        if np.max(np.abs(step)) < 1e-10:
            break
    return theta


def bradley_terry(winners: Iterable[int], losers: Iterable[int], players: int, *, ties: Iterable[bool] | None = None, prior: float = 1.0) -> np.ndarray:
    """Bradley-Terry strengths (log-odds scale) of `players` from games `winners[k]` vs `losers[k]`.

    A game marked in `ties` counts half a win for each side. A small, direct entry point for
    scripts and tests; leaderboards go through `ratings_from_dialogues`.
    """
    first, second = np.asarray(list(winners), dtype=int), np.asarray(list(losers), dtype=int)
    tied = np.zeros(first.size, dtype=bool) if ties is None else np.asarray(list(ties), dtype=bool)
    design = np.zeros((first.size, players))
    design[np.arange(first.size), first] += 1
    design[np.arange(first.size), second] -= 1
    target = np.where(tied, 0.5, 1.0)
    return fit_logistic(design, target, np.ones((1, first.size)), prior=prior)[0]


def elo(first: np.ndarray, second: np.ndarray, result: np.ndarray, players: int, *, k_factor: float = 16.0) -> np.ndarray:
    """Elo ratings after playing games in the given orders, from 1000 for everyone.

    first, second, result: (orders, games) arrays: in each order (row), game t is `first[t]` vs
    `second[t]` with `result[t]` for the first (1, 0.5, 0). All rows are updated in step.
    Returns (orders, players).
    """
    first, second, result = np.atleast_2d(first), np.atleast_2d(second), np.atleast_2d(result)
    rows = np.arange(first.shape[0])
    ratings = np.full((first.shape[0], players), BASE_RATING)
    for t in range(first.shape[1]):
        i, j = first[:, t], second[:, t]
        expected = 1.0 / (1.0 + 10.0 ** ((ratings[rows, j] - ratings[rows, i]) / 400.0))
        change = k_factor * (result[:, t] - expected)
        ratings[rows, i] += change
        ratings[rows, j] -= change
    return ratings


# --------------------------------------------------------------------------- leaderboards


class _Players:
    """Names of the rated players (agents, or agent@role) and their index in the fit."""

    def __init__(self) -> None:
        self.index: dict[tuple[str, str | None], int] = {}

    def __call__(self, name: str, role: str | None) -> int:
        return self.index.setdefault((name, role), len(self.index))

    def __len__(self) -> int:
        return len(self.index)


def _records(games: list[Game], players: _Players, by_role: bool) -> tuple[list[tuple[int, int]], list[float]]:
    pairs, results = [], []
    for game in games:
        roles = game.roles if by_role else (None, None)
        if not by_role and game.kind == "competitive" and game.agents[0] == game.agents[1]:
            continue  # an agent against itself: no information about its strength against others
        pairs.append((players(game.agents[0], roles[0]), players(game.agents[1], roles[1])))
        results.append(game.result)
    return pairs, results


def _tally(pairs: list[tuple[int, int]], results: list[float], kind: GameKind, players: int) -> np.ndarray:
    """(players, 4): games, wins, ties, losses (cooperative: successes and failures of its pairs)."""
    counts = np.zeros((players, 4), dtype=int)
    for (a, b), result in zip(pairs, results, strict=True):
        sides = [(a, result)] if a == b else [(a, result), (b, result if kind == "cooperative" else 1 - result)]
        for player, score in sides:
            counts[player, 0] += 1
            counts[player, 1 if score == 1 else 2 if score == 0.5 else 3] += 1
    return counts


def _design(pairs: list[tuple[int, int]], kind: GameKind, players: int) -> np.ndarray:
    """One row per game: +1/-1 for a competitive game, +1/+1 and the intercept for a cooperative one."""
    columns = players + (1 if kind == "cooperative" else 0)
    design = np.zeros((len(pairs), columns))
    for row, (a, b) in enumerate(pairs):
        design[row, a] += 1
        design[row, b] += 1 if kind == "cooperative" else -1
        if kind == "cooperative":
            design[row, players] = 1  # mu: how easy the task is
    return design


def _anchor_offsets(theta: np.ndarray, groups: list[list[int]], anchor_members: list[list[int]]) -> np.ndarray:
    """theta (samples, params) -> ratings, each group of players shifted so its anchor averages 1000."""
    ratings = np.empty_like(theta)
    for members, anchors in zip(groups, anchor_members, strict=True):
        shift = theta[:, anchors].mean(axis=1, keepdims=True)
        ratings[:, members] = BASE_RATING + ELO_SCALE * (theta[:, members] - shift)
    return ratings


def _unique_rows(design: np.ndarray, target: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Collapse identical games (same players, same result) so a fit costs the same for 100 or 100,000 games."""
    table = np.column_stack([design, target])
    unique, inverse, multiplicity = np.unique(table, axis=0, return_inverse=True, return_counts=True)
    return unique[:, :-1], unique[:, -1], multiplicity.astype(float), inverse.reshape(-1)


@dataclass
class _Field:
    """The players of one rating run (one task, roles pooled or split) and what each of its boards shares."""

    task: str
    kind: GameKind
    names: list[tuple[str, str | None]]
    """(agent, role) per player index; the role is None when roles are pooled."""
    roles: list[str | None]
    groups: list[list[int]]
    """The players of each role, in the order of `roles`: one board per role."""
    scale_groups: list[list[int]]
    """Players rated on one scale: all of them, or (cooperative tasks) each role's own."""
    anchors: list[list[int]]
    """Per scale group, the players it is anchored on (the named anchor, else all)."""
    tally: np.ndarray
    games: int
    bootstrap: int
    seed: int

    @property
    def count(self) -> int:
        return len(self.names)

    def rows(
        self, point: np.ndarray, low: np.ndarray, high: np.ndarray, members: list[int], spread: np.ndarray | None
    ) -> list[LeaderboardRow]:
        rows = [
            LeaderboardRow(
                name=self.names[k][0],
                rating=float(point[k]),
                low=float(low[k]),
                high=float(high[k]),
                games=int(self.tally[k, 0]),
                wins=int(self.tally[k, 1]),
                ties=int(self.tally[k, 2]),
                losses=int(self.tally[k, 3]),
                order_sd=None if spread is None else float(spread[k]),
            )
            for k in members
        ]
        return sorted(rows, key=lambda row: -row.rating)

    def boards(
        self, method: Method, point: np.ndarray, resampled: np.ndarray, note: str, spread: np.ndarray | None = None
    ) -> list[Leaderboard]:
        """One board per role, with 95% intervals from the resampled ratings (none without resamples)."""
        if resampled.shape[0] > 1:
            low, high = np.percentile(resampled, [2.5, 97.5], axis=0)
        else:
            low = high = point
        return [
            Leaderboard(
                task=self.task, role=role, method=method, kind=self.kind, games=self.games, bootstrap=self.bootstrap,
                seed=self.seed, note=note, rows=self.rows(point, low, high, members, spread),
            )
            for role, members in zip(self.roles, self.groups, strict=True)
        ]


def _field(
    task: str, kind: GameKind, players: _Players, pairs: list[tuple[int, int]], results: list[float], *,
    anchor: str | None, bootstrap: int, seed: int,
) -> _Field:
    """The players named by role (or pooled), their scale groups and anchors, and their tally of games."""
    names = list(players.index)
    roles = sorted({role for _, role in names}, key=lambda r: (r is None, str(r)))
    groups = [[k for k, (_, role) in enumerate(names) if role == r] for r in roles]
    count = len(players)
    # Competitive roles share one scale (the role advantage shows); cooperative roles have one each.
    scale_groups = groups if kind == "cooperative" else [list(range(count))]
    anchors = []
    for members in scale_groups:
        chosen = [k for k in members if names[k][0] == anchor]
        anchors.append(chosen or members)
    tally = _tally(pairs, results, kind, count)
    return _Field(task, kind, names, roles, groups, scale_groups, anchors, tally, len(pairs), bootstrap, seed)


def _leaderboards_for(
    task: str,
    games: list[Game],
    *,
    by_role: bool,
    methods: tuple[str, ...],
    bootstrap: int,
    seed: int,
    prior: float,
    k_factor: float,
    elo_orders: int,
    anchor: str | None,
) -> list[Leaderboard]:
    kind = games[0].kind
    players = _Players()
    pairs, results = _records(games, players, by_role)
    role_label = "per role" if by_role else "pooled over both roles"
    if not pairs:
        return [Leaderboard(task=task, method="bradley-terry", kind=kind, note=f"{role_label}: no games between different agents to rate")]
    field = _field(task, kind, players, pairs, results, anchor=anchor, bootstrap=bootstrap, seed=seed)
    count = field.count
    rng = np.random.default_rng(seed)
    target = np.asarray(results, dtype=float)
    anchor_text = f"{anchor} at 1000" if anchor and any(name == anchor for name, _ in field.names) else "mean 1000"
    if kind == "cooperative":
        point, resampled = _logistic_ratings(field, _design(pairs, kind, count), target, rng, prior=prior, columns=count)
        note = (
            f"cooperative task, {role_label}: rated by its pairs' success (logit model: a gap of 400 points "
            f"= 10x the odds of success when one agent replaces the other; {anchor_text}"
            f"{' in each role' if by_role else ''}); wins/losses = successes/failures of its pairs"
        )
        return field.boards("pair-success", point, resampled, note)
    boards: list[Leaderboard] = []
    if "bradley-terry" in methods:
        point, resampled = _logistic_ratings(field, _design(pairs, kind, count), target, rng, prior=prior, columns=None)
        note = f"Bradley-Terry, {role_label}: {WINS_BY[games[0].compare]}, equal (incl. no deal) is a tie; {anchor_text}" + (
            " over both roles" if by_role else "; self-play games left out"
        )
        boards += field.boards("bradley-terry", point, resampled, note)
    if "elo" in methods:
        orders = np.array([rng.permutation(len(pairs)) for _ in range(max(elo_orders, 1))])
        point, spread, resampled = _elo_ratings(field, pairs, target, orders, rng, k_factor=k_factor)
        note = (
            f"Elo (K={k_factor:g}), {role_label}: mean over {len(orders)} random game orders; order_sd = spread across orders "
            f"(Elo depends on the order of the games); {anchor_text}"
        )
        boards += field.boards("elo", point, resampled, note, spread)
    return boards


def _logistic_ratings(
    field: _Field, design: np.ndarray, target: np.ndarray, rng: np.random.Generator, *, prior: float, columns: int | None
) -> tuple[np.ndarray, np.ndarray]:
    """The logistic fit's ratings (its first `columns` parameters, else all) and, with a bootstrap, the
    ratings of each resample (games drawn again with replacement, as weights on the distinct games)."""
    rows, row_target, multiplicity, _ = _unique_rows(design, target)

    def ratings(weights: np.ndarray) -> np.ndarray:
        theta = fit_logistic(rows, row_target, weights, prior=prior)
        return _anchor_offsets(theta if columns is None else theta[:, :columns], field.scale_groups, field.anchors)

    point = ratings(multiplicity[None, :])[0]
    resampled = point[None, :]
    if field.bootstrap > 0:
        weights = rng.multinomial(field.games, multiplicity / multiplicity.sum(), size=field.bootstrap)
        resampled = ratings(weights)
    return point, resampled


def _elo_ratings(
    field: _Field, pairs: list[tuple[int, int]], target: np.ndarray, orders: np.ndarray, rng: np.random.Generator, *,
    k_factor: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Elo's mean over the game orders, its spread across them, and (with a bootstrap) each resample's ratings."""
    first = np.array([a for a, _ in pairs])
    second = np.array([b for _, b in pairs])
    anchors = field.anchors[0]
    by_order = _anchor_elo(elo(first[orders], second[orders], target[orders], field.count, k_factor=k_factor), anchors)
    point, spread = by_order.mean(axis=0), by_order.std(axis=0)
    resampled = point[None, :]
    if field.bootstrap > 0:
        picks = rng.integers(0, len(pairs), size=(field.bootstrap, len(pairs)))  # a resample, already in random order
        resampled = _anchor_elo(elo(first[picks], second[picks], target[picks], field.count, k_factor=k_factor), anchors)
    return point, spread, resampled


def _anchor_elo(ratings: np.ndarray, anchors: list[int]) -> np.ndarray:
    """Elo keeps the mean at 1000 by itself; with a named anchor, shift so the anchor is at 1000."""
    return ratings - ratings[:, anchors].mean(axis=1, keepdims=True) + BASE_RATING


def ratings_from_dialogues(
    dialogues: Iterable[Dialogue],
    *,
    by_role: bool = True,
    bootstrap: int = 1000,
    seed: int = 0,
    prior: float = 1.0,
    methods: tuple[str, ...] = ("bradley-terry", "elo"),
    k_factor: float = 16.0,
    elo_orders: int = 20,
    anchor: str | None = None,
) -> list[Leaderboard]:
    """Leaderboards per task: pooled over roles, then (with `by_role`) one per role; for each method.

    Works on any dialogues with two named agents (`duologue play --out`, a tournament's folder):
    the agents are named by `meta.agents` (the specs), else by the parties' `agent`/`kind`.
    Tasks without a score (open chat) get an empty leaderboard that says why.
    """
    by_task: dict[str, list[Game]] = defaultdict(list)
    unrated: dict[str, int] = defaultdict(int)
    why_not: dict[str, str] = {}
    for dialogue in dialogues:
        game = game_from_dialogue(dialogue)
        if game is None:
            unrated[task_id_of(dialogue)] += 1
            why_not.setdefault(task_id_of(dialogue), _why_unrated(dialogue))
        else:
            by_task[game.task].append(game)
    boards: list[Leaderboard] = []
    for task in sorted(set(by_task) | set(unrated)):
        games = within_roles(by_task.get(task, []))
        skipped = f"; {unrated[task]} dialogue(s) without a score left out" if unrated.get(task) else ""
        if not games:
            boards.append(Leaderboard(task=task, method="bradley-terry", note=f"no dialogue could be rated ({why_not.get(task, '')}){skipped}"))
            continue
        task_boards: list[Leaderboard] = []
        for split_roles in (False, True) if by_role else (False,):  # roles pooled, then (asked) each role
            task_boards += _leaderboards_for(
                task, games, by_role=split_roles, methods=methods, bootstrap=bootstrap, seed=seed,
                prior=prior, k_factor=k_factor, elo_orders=elo_orders, anchor=anchor,
            )
        order = {"bradley-terry": 0, "pair-success": 0, "elo": 1}
        task_boards.sort(key=lambda board: order[board.method])  # stable: pooled before the roles
        for board in task_boards:
            board.note += skipped
        boards.extend(task_boards)
    return boards


METHOD_NAMES = {"bradley-terry": "Bradley-Terry", "elo": "Elo", "pair-success": "pair success"}


def leaderboard_title(board: Leaderboard) -> str:
    method = METHOD_NAMES[board.method]
    if board.role is None:
        return f"{board.task}: {method}, both roles pooled ({board.games} games)"
    return f"{board.task}: {method} as {board.role} (fitted with the other role, {board.games} games in all)"


def leaderboard_table(board: Leaderboard) -> Table:
    """A leaderboard as a rich table: rating, 95% interval, record (and Elo's order spread)."""
    table = Table(title=leaderboard_title(board), title_justify="left", caption=board.note or None, caption_justify="left")
    cooperative = board.kind == "cooperative"
    headings = ["#", "agent", "rating", "95% interval", "games", *(("successes", "failures") if cooperative else ("wins", "ties", "losses"))]
    if board.method == "elo":
        headings.append("order sd")
    for heading in headings:
        table.add_column(heading, justify="left" if heading == "agent" else "right")
    for place, row in enumerate(board.rows, start=1):
        record = (str(row.wins), str(row.losses)) if cooperative else (str(row.wins), str(row.ties), str(row.losses))
        cells = [str(place), row.name, f"{row.rating:.0f}", f"[{row.low:.0f}, {row.high:.0f}]", str(row.games), *record]
        if board.method == "elo":
            cells.append("-" if row.order_sd is None else f"{row.order_sd:.1f}")
        table.add_row(*cells)
    return table


def add_to_report(report: Any, board: Leaderboard) -> None:
    """Add a leaderboard to a `duologue.analysis.report.Report`: its table (with the record) and the interval figure."""
    from duologue.analysis.report import LeaderboardRow as Entry, leaderboard_figure

    title = leaderboard_title(board)
    section = report.section(title)
    if not board.rows:
        section.text(board.note)
        return
    cooperative = board.kind == "cooperative"
    columns = ["rank", "agent", "rating", "low", "high", "games", *(("successes", "failures") if cooperative else ("wins", "ties", "losses"))]
    if board.method == "elo":
        columns.append("order sd")
    rows = []
    for place, row in enumerate(board.rows, start=1):
        record = [row.wins, row.losses] if cooperative else [row.wins, row.ties, row.losses]
        rows.append([place, row.name, round(row.rating, 1), round(row.low, 1), round(row.high, 1), row.games, *record, *([row.order_sd] if board.method == "elo" else [])])
    section.table(columns, rows, caption=board.note)
    entries = [Entry(name=row.name, rating=row.rating, low=row.low, high=row.high, games=row.games) for row in board.rows]
    short = f"{board.task}: {METHOD_NAMES[board.method]}, " + ("both roles" if board.role is None else f"as {board.role}")
    figure = leaderboard_figure(entries, title=short, rating_label="rating (Elo scale) with 95% bootstrap interval")
    section.figure(figure, alt=f"{title}: ratings with 95% intervals", caption=board.note)

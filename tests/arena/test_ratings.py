"""Bradley-Terry and Elo ratings: hand-computed cases, recovery of known strengths, intervals, games from dialogues."""

import math
import time

import numpy as np
import pytest
from rich.console import Console
from scipy.optimize import brentq
from scipy.stats import spearmanr

from duologue.arena.ratings import (
    ELO_SCALE,
    bradley_terry,
    elo,
    fit_logistic,
    game_from_dialogue,
    leaderboard_table,
    ratings_from_dialogues,
)
from duologue.core.schema import Dialogue, Outcome, Party, Scenario

# --------------------------------------------------------------------------- helpers


def casino(first: str, second: str, points: tuple[float, float] | None, *, number: int = 0) -> Dialogue:
    """A finished CaSiNo dialogue between two named agents with the given points (None: walk-away)."""
    parties = [Party(id="mturk_agent_1", kind="bot"), Party(id="mturk_agent_2", kind="bot")]
    if points is None:
        outcome = Outcome(reason="walk_away", agreed=False, scores={"mturk_agent_1": 5.0, "mturk_agent_2": 5.0})
    else:
        outcome = Outcome(reason="agreement", agreed=True, scores={"mturk_agent_1": points[0], "mturk_agent_2": points[1]})
    return Dialogue(
        id=f"casino-{number}",
        task="casino",
        scenario=Scenario(),
        parties=parties,
        events=[],
        outcome=outcome,
        meta={"task_id": "casino-v0", "agents": {"mturk_agent_1": first, "mturk_agent_2": second}, "episode": number},
    )


def craigslist(buyer: str, seller: str, seller_utility: float | None, *, number: int = 0) -> Dialogue:
    parties = [Party(id="0", kind="bot", role="buyer"), Party(id="1", kind="bot", role="seller")]
    if seller_utility is None:
        outcome = Outcome(reason="no_agreement", agreed=False)
    else:
        outcome = Outcome(reason="agreement", agreed=True, deal={"price": 100}, scores={"0": 0.0 - seller_utility, "1": seller_utility})
    return Dialogue(
        id=f"cl-{number}", task="craigslist", scenario=Scenario(), parties=parties, events=[], outcome=outcome,
        meta={"task_id": "craigslist-v0", "agents": {"0": buyer, "1": seller}, "episode": number},
    )


def mutualfriends(first: str, second: str, success: bool, *, number: int = 0) -> Dialogue:
    parties = [Party(id="0", kind="bot"), Party(id="1", kind="bot")]
    outcome = Outcome(reason="success" if success else "failure", agreed=success, scores={"0": float(success), "1": float(success)})
    return Dialogue(
        id=f"mf-{number}", task="mutualfriends", scenario=Scenario(), parties=parties, events=[], outcome=outcome,
        meta={"task_id": "mutualfriends-v0", "agents": {"0": first, "1": second}, "episode": number},
    )


def simulated(strengths: dict[str, float], games: int, *, seed: int, tie_band: float = 0.0) -> list[Dialogue]:
    """Casino dialogues between agents of known Bradley-Terry strengths (log-odds), both seats, seeded."""
    rng = np.random.default_rng(seed)
    names = list(strengths)
    dialogues = []
    for number in range(games):
        a, b = rng.choice(len(names), size=2, replace=False)
        p = 1 / (1 + math.exp(strengths[names[b]] - strengths[names[a]]))
        u = rng.random()
        points = (10.0, 10.0) if abs(u - p) < tie_band else (20.0, 10.0) if u < p else (10.0, 20.0)
        dialogues.append(casino(names[a], names[b], points, number=number))
    return dialogues


def board(boards, method="bradley-terry", role=None):
    return next(b for b in boards if b.method == method and b.role == role)


def rating(leaderboard, name):
    return next(row for row in leaderboard.rows if row.name == name)


# --------------------------------------------------------------------------- Bradley-Terry by hand


def test_bradley_terry_reproduces_a_hand_computed_three_player_example():
    # True strengths p = (4, 2, 1) for A, B, C give P(A>B) = 4/6 = 2/3, P(B>C) = 2/3, P(A>C) = 4/5.
    # Observed: A beats B 2 of 3, B beats C 2 of 3, A beats C 4 of 5: exactly those proportions, so
    # the score equations (observed wins = expected wins, for each player) hold at p = (4, 2, 1),
    # and without a prior that is the maximum-likelihood fit: theta = ln 4, ln 2, 0 (+ a constant).
    # Elo scale: 400/ln10 * ln 4 = 400 * log10(4) = 240.82, 400 * log10(2) = 120.41, 0;
    # mean 120.41, so the ratings anchored at a mean of 1000 are 1120.41, 1000.00, 879.59.
    winners = [0, 0, 1] + [1, 1, 2] + [0, 0, 0, 0, 2]
    losers = [1, 1, 0] + [2, 2, 1] + [2, 2, 2, 2, 0]
    theta = bradley_terry(winners, losers, 3, prior=0)
    assert theta - theta[2] == pytest.approx([math.log(4), math.log(2), 0.0], abs=1e-8)
    points = ELO_SCALE * theta
    assert points - points.mean() + 1000 == pytest.approx([1120.41, 1000.0, 879.59], abs=0.01)


def test_a_tie_counts_half_a_win_for_each_side():
    # A-B: 1 win and 2 ties = 2 wins of 3, as above; B-C and A-C as above: the same fit.
    winners = [0, 0, 0] + [1, 1, 2] + [0, 0, 0, 0, 2]
    losers = [1, 1, 1] + [2, 2, 1] + [2, 2, 2, 2, 0]
    ties = [False, True, True] + [False] * 8
    theta = bradley_terry(winners, losers, 3, ties=ties, prior=0)
    assert theta - theta[2] == pytest.approx([math.log(4), math.log(2), 0.0], abs=1e-8)


def test_the_prior_keeps_an_undefeated_agent_finite_at_the_value_it_promises():
    # A beats B 5 times, never loses. With one virtual tie each against a reference at 0, the
    # fit is symmetric (theta_A = t, theta_B = -t) and solves 5 (1 - s(2t)) = s(t) - 1/2.
    theta = bradley_terry([0] * 5, [1] * 5, 2, prior=1.0)
    sigmoid = lambda x: 1 / (1 + math.exp(-x))  # noqa: E731
    t = brentq(lambda t: 5 * (1 - sigmoid(2 * t)) - (sigmoid(t) - 0.5), 0, 20)
    assert theta == pytest.approx([t, -t], abs=1e-8)
    assert 0 < t < 5


def test_recovers_known_strengths_from_simulated_games():
    true = {"weak": -1.2, "meh": -0.5, "ok": 0.0, "good": 0.6, "great": 1.3}
    boards = ratings_from_dialogues(simulated(true, 3000, seed=1), bootstrap=0, by_role=False)
    bt = board(boards)
    recovered = {row.name: row.rating for row in bt.rows}
    assert spearmanr([true[n] for n in true], [recovered[n] for n in true]).statistic == pytest.approx(1.0)
    # on the log-odds scale, each estimate is within 0.15 of the truth (after removing the mean)
    mean_true = np.mean(list(true.values()))
    for name, value in true.items():
        assert (recovered[name] - 1000) / ELO_SCALE == pytest.approx(value - mean_true, abs=0.15)
    assert [row.name for row in bt.rows] == ["great", "good", "ok", "meh", "weak"]


def test_agrees_with_an_unpenalised_logistic_regression():
    pytest.importorskip("sklearn")
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(3)
    players, games = 4, 400
    first = rng.integers(0, players, games)
    second = (first + rng.integers(1, players, games)) % players
    strengths = np.array([0.8, 0.2, -0.3, -0.7])
    u = rng.random(games)
    p = 1 / (1 + np.exp(strengths[second] - strengths[first]))
    target = np.where(np.abs(u - p) < 0.1, 0.5, (u < p).astype(float))
    design = np.zeros((games, players))
    design[np.arange(games), first] += 1
    design[np.arange(games), second] -= 1
    ours = fit_logistic(design, target, np.ones((1, games)), prior=0)[0]
    # sklearn wants labels: a tie is a half-weighted win plus a half-weighted loss
    x = np.vstack([design, design])
    y = np.concatenate([np.ones(games), np.zeros(games)])
    weight = np.concatenate([target, 1 - target])
    reference = LogisticRegression(C=np.inf, fit_intercept=False, tol=1e-10, max_iter=10_000).fit(x, y, sample_weight=weight).coef_[0]
    assert ours - ours.mean() == pytest.approx(reference - reference.mean(), abs=1e-4)


# --------------------------------------------------------------------------- Elo by hand


def test_elo_update_arithmetic():
    # Game 1: both at 1000, expected 0.5 each; A wins: A += 16 * (1 - 0.5) = +8 -> 1008, B -> 992.
    # Game 2: B (992) beats A (1008): E_B = 1 / (1 + 10 ** (16 / 400)) = 1 / 2.096478 = 0.476990,
    # change = 16 * (1 - 0.476990) = 8.36816: B -> 1000.368, A -> 999.632.
    ratings = elo(np.array([0, 1]), np.array([1, 0]), np.array([1.0, 1.0]), 2, k_factor=16)[0]
    assert ratings == pytest.approx([999.632, 1000.368], abs=1e-3)
    # a draw between equals changes nothing; K scales the change
    assert elo(np.array([0]), np.array([1]), np.array([0.5]), 2)[0] == pytest.approx([1000, 1000])
    assert elo(np.array([0]), np.array([1]), np.array([1.0]), 2, k_factor=32)[0] == pytest.approx([1016, 984])


def test_elo_depends_on_the_order_of_the_games_and_the_leaderboard_shows_it():
    # the same two results in the two orders end differently (see the arithmetic above)
    one = elo(np.array([0, 1]), np.array([1, 0]), np.array([1.0, 1.0]), 2)[0]
    two = elo(np.array([1, 0]), np.array([0, 1]), np.array([1.0, 1.0]), 2)[0]
    assert one[0] != pytest.approx(two[0])
    boards = ratings_from_dialogues(simulated({"a": 0.5, "b": 0.0, "c": -0.5}, 200, seed=2), bootstrap=0, by_role=False)
    elo_board = board(boards, "elo")
    assert all(row.order_sd is not None and row.order_sd > 0 for row in elo_board.rows)
    assert "order" in elo_board.note
    assert np.mean([row.rating for row in elo_board.rows]) == pytest.approx(1000)


# --------------------------------------------------------------------------- intervals


def test_intervals_contain_the_estimate_and_shrink_with_more_games():
    strengths = {"a": 0.6, "b": 0.0, "c": -0.6}
    widths = {}
    for games in (60, 600):
        boards = ratings_from_dialogues(simulated(strengths, games, seed=4), bootstrap=400, seed=0, by_role=False)
        for method in ("bradley-terry", "elo"):
            for row in board(boards, method).rows:
                assert row.low <= row.rating <= row.high
        widths[games] = np.mean([row.high - row.low for row in board(boards).rows])
    assert widths[600] < widths[60] / 2  # ~ 1/sqrt(10) in theory


def test_bootstrap_is_seeded():
    dialogues = simulated({"a": 0.5, "b": 0.0}, 80, seed=5)
    first = ratings_from_dialogues(dialogues, bootstrap=200, seed=9)
    assert first == ratings_from_dialogues(dialogues, bootstrap=200, seed=9)
    assert first != ratings_from_dialogues(dialogues, bootstrap=200, seed=10)


def test_a_thousand_resamples_of_hundreds_of_games_take_seconds():
    dialogues = simulated({f"agent{k}": k / 5 for k in range(6)}, 500, seed=6, tie_band=0.1)
    start = time.perf_counter()
    boards = ratings_from_dialogues(dialogues, bootstrap=1000)
    assert time.perf_counter() - start < 15  # ~1-2 s on a free core; generous for a shared machine
    assert len(boards) == 2 * 3  # (pooled, 2 roles) x (Bradley-Terry, Elo)


# --------------------------------------------------------------------------- games from dialogues


def test_the_higher_task_score_wins_and_no_deal_is_a_tie():
    assert game_from_dialogue(casino("rule", "random", (20, 12))).result == 1.0
    assert game_from_dialogue(casino("rule", "random", (12, 20))).result == 0.0
    assert game_from_dialogue(casino("rule", "random", (16, 16))).result == 0.5
    assert game_from_dialogue(casino("rule", "random", None)).result == 0.5  # walk-away: 5 points each
    assert game_from_dialogue(craigslist("rule", "random", 0.4)).result == 0.0  # the seller got more than half
    assert game_from_dialogue(craigslist("rule", "random", -0.2)).result == 1.0
    assert game_from_dialogue(craigslist("rule", "random", None)).result == 0.5  # no deal, no utilities
    game = game_from_dialogue(craigslist("rule", "random", 0.4))
    assert (game.agents, game.roles, game.kind) == (("rule", "random"), ("buyer", "seller"), "competitive")


def test_dialogues_that_cannot_be_rated_are_left_out_and_counted():
    unscored = craigslist("rule", "random", 0.4, number=1)
    unscored.outcome = Outcome(reason="agreement", agreed=True, deal={"price": 1})  # a deal without utilities
    assert game_from_dialogue(unscored) is None
    chat = Dialogue(id="c", task="openchat", scenario=Scenario(), parties=[Party(id="user", kind="bot"), Party(id="bot", kind="bot")], events=[], outcome=Outcome(reason="completed"), meta={"task_id": "openchat-ed-v0"})
    assert game_from_dialogue(chat) is None
    boards = ratings_from_dialogues([chat, unscored, craigslist("rule", "random", 0.4)], bootstrap=0)
    chat_board = next(b for b in boards if b.task == "openchat-ed-v0")
    assert chat_board.rows == [] and "no dialogue could be rated" in chat_board.note
    assert "1 dialogue(s) without a score left out" in board(boards).note


def test_per_role_ratings_come_from_that_role_and_show_a_seat_advantage():
    # The buyer wins 3 of 4 games whoever plays; "strong" also beats "weak" in both seats.
    dialogues = []
    number = 0
    for buyer, seller in [("strong", "weak"), ("weak", "strong"), ("strong", "strong"), ("weak", "weak")]:
        for k in range(40):
            buyer_wins = k % 4 != 0 if buyer == seller else (k % 8 != 0 if buyer == "strong" else k % 2 == 0)
            dialogues.append(craigslist(buyer, seller, -0.3 if buyer_wins else 0.3, number=number))
            number += 1
    boards = ratings_from_dialogues(dialogues, bootstrap=0)
    as_buyer, as_seller = board(boards, role="buyer"), board(boards, role="seller")
    assert {row.name for row in as_buyer.rows} == {"strong", "weak"}
    assert rating(as_buyer, "strong").games == 80  # its games as buyer only, self-play included
    assert min(r.rating for r in as_buyer.rows) > max(r.rating for r in as_seller.rows)  # buyers win more
    assert rating(as_buyer, "strong").rating > rating(as_buyer, "weak").rating
    assert rating(as_seller, "strong").rating > rating(as_seller, "weak").rating
    pooled = board(boards)
    assert rating(pooled, "strong").games == 80  # self-play left out of the pooled rating
    assert "self-play games left out" in pooled.note


def test_a_named_anchor_sits_at_1000():
    boards = ratings_from_dialogues(simulated({"a": 0.5, "b": 0.0, "c": -0.5}, 300, seed=7), bootstrap=50, anchor="c", by_role=False)
    for method in ("bradley-terry", "elo"):
        assert rating(board(boards, method), "c").rating == pytest.approx(1000)
        assert rating(board(boards, method), "a").rating > 1000


def test_cooperative_tasks_rate_agents_by_their_pairs_success():
    # "helpful" pairs succeed 3/4 of the time, "idle" pairs 1/4, mixed pairs 1/2.
    dialogues = []
    rates = {("helpful", "helpful"): 3, ("helpful", "idle"): 2, ("idle", "helpful"): 2, ("idle", "idle"): 1}
    for (first, second), successes in rates.items():
        for k in range(40):
            dialogues.append(mutualfriends(first, second, k % 4 < successes, number=len(dialogues)))
    boards = ratings_from_dialogues(dialogues, bootstrap=100)
    assert {b.method for b in boards} == {"pair-success"}  # no head-to-head, no Elo
    pooled = board(boards, "pair-success")
    assert rating(pooled, "helpful").rating > rating(pooled, "idle").rating
    assert rating(pooled, "helpful").wins == 30 + 20 + 20  # successes of its pairs (a self-pair counted once)
    assert "pairs' success" in pooled.note
    # logit(3/4) - logit(1/2) = ln 3 per agent swapped: the gap is about 400 * log10(3) = 191 points
    gap = rating(pooled, "helpful").rating - rating(pooled, "idle").rating
    assert gap == pytest.approx(400 * math.log10(3), rel=0.1)


def test_leaderboard_table_shows_ratings_and_intervals():
    boards = ratings_from_dialogues(simulated({"rule": 0.8, "random": -0.8}, 100, seed=8), bootstrap=100, by_role=False)
    console = Console(width=200, record=True)
    console.print(leaderboard_table(board(boards, "elo")))
    text = console.export_text()
    assert "rule" in text and "random" in text and "order sd" in text
    row = rating(board(boards, "elo"), "rule")
    assert f"[{row.low:.0f}, {row.high:.0f}]" in text


# --------------------------------------------------------------------------- tasks registered from outside


def coin_split(first: str, second: str, coins_first: int | None, *, task_id: str = "coins-v0", number: int = 0) -> Dialogue:
    """A finished toy-task dialogue (tests/toy_task.py): the first party got `coins_first` of 10 (None: no deal)."""
    parties = [Party(id="0", kind="bot"), Party(id="1", kind="bot")]
    if coins_first is None:
        outcome = Outcome(reason="quit", agreed=False)
    else:
        outcome = Outcome(reason="agreement", agreed=True, scores={"0": float(coins_first), "1": float(10 - coins_first)})
    return Dialogue(
        id=f"coins-{number}", task="coins", scenario=Scenario(), parties=parties, events=[], outcome=outcome,
        meta={"task_id": task_id, "agents": {"0": first, "1": second}, "episode": number},
    )


def test_a_task_registered_from_outside_is_rated_as_its_spec_says(coins):
    assert game_from_dialogue(coin_split("greedy", "shy", 8)).result == 1.0
    assert game_from_dialogue(coin_split("greedy", "shy", 5)).result == 0.5
    assert game_from_dialogue(coin_split("greedy", "shy", None)).kind == "competitive"
    dialogues = [coin_split("greedy", "shy", 7, number=n) for n in range(6)] + [coin_split("shy", "greedy", 2, number=6 + n) for n in range(6)]
    boards = ratings_from_dialogues(dialogues, bootstrap=0)
    pooled = board(boards)
    assert pooled.task == "coins-v0" and pooled.kind == "competitive"
    assert rating(pooled, "greedy").rating > 1000 > rating(pooled, "shy").rating
    assert rating(pooled, "greedy").wins == 12


def test_a_cooperative_spec_rates_pairs_against_the_task(coins, monkeypatch):
    from duologue import tasks
    from toy_task import CoinSplit

    class SharedCoins(CoinSplit):
        spec = CoinSplit.spec.model_copy(update={"id": "sharedcoins-v0", "family": "sharedcoins", "kind": "cooperative"})

    monkeypatch.setitem(tasks.TASKS, "sharedcoins-v0", SharedCoins)
    together = [coin_split("keen", "keen", 5, task_id="sharedcoins-v0", number=n) for n in range(4)]
    apart = [coin_split("keen", "lazy", None, task_id="sharedcoins-v0", number=4 + n) for n in range(4)]
    for dialogue in together + apart:
        dialogue.task = "sharedcoins"
    assert game_from_dialogue(together[0]).kind == "cooperative" and game_from_dialogue(apart[0]).result == 0.0
    pooled = board(ratings_from_dialogues(together + apart, bootstrap=0), method="pair-success")
    assert rating(pooled, "keen").rating > rating(pooled, "lazy").rating


def test_an_unregistered_task_is_left_out_and_the_note_says_why():
    stray = coin_split("a", "b", 8, task_id="nosuchtask-v0")
    stray.task = "nosuchtask"
    assert game_from_dialogue(stray) is None
    (only,) = ratings_from_dialogues([stray], bootstrap=0)
    assert only.rows == [] and "no registered task" in only.note

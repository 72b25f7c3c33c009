"""Strategy learning: rewards, the policy's start at the supervised policy, a resumable training run."""

from __future__ import annotations

import random

import numpy as np
import pytest

pytest.importorskip("torch")

from duologue import tasks  # noqa: E402
from duologue.agents import make_agent  # noqa: E402
from duologue.arena.selfplay import PlayConfig, play_one  # noqa: E402
from duologue.core.schema import Dialogue, Outcome, Party, Scenario  # noqa: E402
from duologue.modular.coarse_policy import CoarsePolicy, features, option_prior  # noqa: E402
from duologue.learning.rewards import fairness_score, reward  # noqa: E402
from duologue.learning.rollout import pick_partner  # noqa: E402
from duologue.learning.train import TrainConfig, checkpoint_path, train  # noqa: E402


def dialogue(scores: dict[str, float], agreed: bool, moves: int = 4) -> Dialogue:
    from duologue.core.schema import Message

    return Dialogue(
        id="d", task="t", scenario=Scenario(), parties=[Party(id="a", kind="bot"), Party(id="b", kind="bot")],
        events=[Message(party="ab"[i % 2], text="hi") for i in range(moves)], outcome=Outcome(agreed=agreed, scores=scores),
    )


def test_rewards_follow_cocoa():
    deal = dialogue({"a": 0.4, "b": -0.4}, True, moves=12)
    assert reward("utility", deal, "a") == pytest.approx(0.4)
    assert reward("utility", deal, "b") == pytest.approx(-0.4)
    assert reward("fairness", deal, "a") == pytest.approx(2 - 0.4)  # 2 - |utility| on a zero-sum price
    assert reward("length", deal, "a") == pytest.approx(1.2)
    assert reward("fairness", dialogue({"a": 0.0, "b": 0.0}, True), "a") == 2.0  # the midpoint price: even
    assert reward("joint", dialogue({"a": 20, "b": 18}, True), "a") == 38
    none = dialogue({"a": 5, "b": 5}, False)
    assert reward("utility", none, "a") == 4.5  # the walk-away points the rules grant, minus CoCoA's -0.5
    assert reward("fairness", none, "a") == reward("length", none, "a") == -0.5
    with pytest.raises(ValueError, match="unknown reward"):
        reward("speed", deal, "a")


def test_fairness_on_points_is_the_share_gap_and_beats_no_deal():
    assert reward("fairness", dialogue({"a": 20, "b": 20}, True), "a") == 2.0
    assert reward("fairness", dialogue({"a": 24, "b": 16}, True), "b") == pytest.approx(2 - 8 / 40)
    lopsided = reward("fairness", dialogue({"a": 30, "b": 6}, True), "a")  # a raw gap of 24 points
    assert 1.0 <= lopsided < 2.0 and lopsided > reward("fairness", dialogue({"a": 5, "b": 5}, False), "a")


def test_one_fairness_serves_the_reward_and_the_benchmark():
    import importlib.util
    from pathlib import Path

    assert fairness_score(0.3, -0.3) == pytest.approx(2 - 0.3)  # CoCoA's 2 - |utility| on the zero-sum price
    assert fairness_score(24, 16) == pytest.approx(2 - 8 / 40)  # the share gap on points
    path = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_rl.py"
    if not path.exists():
        pytest.skip("benchmarks not in this checkout")
    spec = importlib.util.spec_from_file_location("bench_rl", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    row = bench.play("casino-v0", "rule", "rule", 0, 7)
    assert row["agreement"] == 1.0
    mine, theirs = row["own"], row["partner_own"]
    assert row["fairness"] == pytest.approx(fairness_score(mine, theirs))


def test_a_fresh_policy_is_the_supervised_one_and_survives_a_file(tmp_path):
    policy = CoarsePolicy.fresh(["agree", "insist", "counter-price"], task="x-v0", base="modular")
    base = {"agree": 0.7, "insist": 0.2, "counter-price": 0.1}
    rng = random.Random(0)
    picks = [policy.decide(("seller", "init-price"), list(base), base, rng)[0] for _ in range(3000)]
    assert abs(picks.count("agree") / 3000 - 0.7) < 0.03
    policy.weights[policy.index("insist"), features(("seller", "init-price"))] = 3.0
    loaded = CoarsePolicy.load(policy.save(tmp_path / "p.npz"))
    assert loaded.meta["task"] == "x-v0" and loaded.acts == policy.acts
    picks = [loaded.decide(("seller", "init-price"), list(base), base, rng)[0] for _ in range(500)]
    assert picks.count("insist") > picks.count("agree")  # the correction now dominates
    assert (tmp_path / "p.npz").stat().st_size < 300_000


def test_the_option_prior_keeps_most_mass_on_the_planners_variant():
    prior = option_prior(["offer:step", "offer:hold", "offer:meet"], share=0.2)
    assert prior == pytest.approx({"offer:step": 0.8, "offer:hold": 0.1, "offer:meet": 0.1})
    assert option_prior(["answer:accept"]) == {"answer:accept": 1.0}
    policy = CoarsePolicy.fresh(list(prior), task="x-v0")
    picks = [policy.decide(("buyer",), list(prior), prior, random.Random(i))[0] for i in range(2000)]
    assert abs(picks.count("offer:step") / 2000 - 0.8) < 0.04 and picks.count("offer:meet") > 100


def test_training_moves_the_policy_checkpoints_and_resumes(tmp_path):
    out = tmp_path / "p.npz"
    config = TrainConfig(task="craigslist-v0", reward="length", episodes=8, batch=4, seed=3)
    seen = []
    policy, curve = train(config, out, progress=lambda done, total, point: seen.append(done))
    assert seen[-1] == 8 and len(curve) == 2
    assert np.abs(policy.weights).sum() > 0  # a gradient step was taken
    assert out.exists() and checkpoint_path(out).exists()
    recorded = CoarsePolicy.load(out).meta  # the file says how to train it again
    assert {k: recorded[k] for k in ("reward", "seed", "baseline", "batch", "lr", "episodes")} == {
        "reward": "length", "seed": 3, "baseline": "mean", "batch": 4, "lr": config.lr, "episodes": 8}
    run = checkpoint_path(out).parent
    assert (run / "curve.png").stat().st_size > 0 and "<table>" in (run / "curve.html").read_text()
    longer = TrainConfig(**{**config.model_dump(), "episodes": 8})
    again, curve_again = train(longer, out)  # resumed: already done, nothing replayed
    assert [p.episodes for p in curve_again] == [4, 8]
    np.testing.assert_allclose(again.weights, policy.weights, atol=1e-3)
    other = TrainConfig(**{**config.model_dump(), "reward": "utility"})
    with pytest.raises(ValueError, match="another run"):
        train(other, out)


def test_the_same_seed_gives_the_same_policy(tmp_path):
    config = TrainConfig(task="craigslist-v0", reward="utility", episodes=4, batch=2, seed=5)
    first, _ = train(config, tmp_path / "a.npz")
    second, _ = train(config, tmp_path / "b.npz")
    np.testing.assert_array_equal(first.weights, second.weights)


@pytest.mark.parametrize("task_id", ["craigslist-v0", "casino-v0"])
@pytest.mark.parametrize("name", ["utility", "fairness", "length"])
def test_shipped_policies_play_as_agent_specs(task_id, name):
    dialogue = play_one(PlayConfig(task=task_id, agents=[f"rl:{name}", "modular"]), 0)
    assert dialogue.outcome is not None
    assert sum(dialogue.meta["illegal_actions"].values()) == 0


def test_rl_with_a_missing_policy_says_what_exists():
    task = tasks.make("craigslist-v0")
    task.reset(seed=0)
    agent = make_agent("rl:nonsense", task)
    with pytest.raises(ValueError, match="shipped: rl:"):
        agent.reset(task, task.party_ids[0], random.Random(0))


def test_a_task_without_a_modular_agent_is_refused_in_words(coins, tmp_path):
    with pytest.raises(ValueError, match="needs a modular agent"):
        train(TrainConfig(task=coins, episodes=2, batch=2), tmp_path / "p.npz")


def test_a_run_with_several_partners_draws_each_reproducibly():
    drawn = [pick_partner("modular,rule", 0, number) for number in range(40)]
    assert set(drawn) == {"modular", "rule"}
    assert drawn == [pick_partner("modular, rule", 0, number) for number in range(40)]
    assert drawn != [pick_partner("modular,rule", 1, number) for number in range(40)]
    assert pick_partner("rule", 0, 3) == "rule"


def test_a_paired_baseline_is_the_supervised_agents_reward_in_the_same_game():
    from duologue.agents.rl import RLAgent  # noqa: F401 - the job builds one
    from duologue.arena.selfplay import episode_seed
    from duologue.core.episode import play_episode
    from duologue.learning.rollout import RolloutJob, read_rollout
    from duologue.learning.train import supervised_acts

    config = TrainConfig(task="casino-v0", reward="utility", partner="rule")
    policy = CoarsePolicy.fresh(supervised_acts(config), task="casino-v0", base="modular")
    job = RolloutJob(task="casino-v0", reward="utility", partner="rule", run_seed=4, acts=tuple(policy.acts),
                     weights=policy.weights, bias=policy.bias, meta=dict(policy.meta), baseline="paired")
    for number in (0, 1):
        rollout = read_rollout(job(number))
        task = tasks.make("casino-v0")
        seat = task.party_ids[number % 2]
        again = play_episode(task, {seat: make_agent("modular", task), task.other(seat): make_agent("rule", task)}, seed=episode_seed(4, number))
        assert rollout["reference"] == reward("utility", again, seat)
    plain = RolloutJob(**{**job.__dict__, "baseline": "mean"})
    assert read_rollout(plain(0))["reference"] is None
    assert TrainConfig(task="casino-v0").baseline == "mean"

"""The coarse-act environment: the learner's actions are the modular agent's acts; Gymnasium's checker passes."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("gymnasium")

from gymnasium.utils.env_checker import check_env  # noqa: E402

from duologue.envs import coarse_env  # noqa: E402


@pytest.fixture(scope="module")
def env():
    made = coarse_env("craigslist-v0", max_turns=16)
    yield made
    made.close()


def test_check_env_passes(env):
    check_env(env, skip_render_check=True)


def test_actions_are_allowed_acts_and_the_reward_comes_at_the_end(env):
    observation, _ = env.reset(seed=5)
    rewards, acts = [], []
    for _ in range(40):
        allowed = np.flatnonzero(observation["action_mask"])
        assert len(allowed) > 0 and (observation["supervised"][allowed] > -20).all()
        choice = int(allowed[-1])
        observation, value, terminated, truncated, info = env.step(choice)
        acts.append((env.acts[choice], info["act"]))
        rewards.append(value)
        if terminated or truncated:
            break
    assert terminated or truncated
    assert all(value == 0.0 for value in rewards[:-1]) and rewards[-1] != 0.0
    assert all(chosen == played for chosen, played in acts)


def test_an_act_the_rules_forbid_becomes_the_supervised_choice(env):
    observation, _ = env.reset(seed=6)
    forbidden = int(np.flatnonzero(observation["action_mask"] == 0)[0])
    best = env.acts[int(np.argmax(np.where(observation["action_mask"] == 1, observation["supervised"], -np.inf)))]
    _, _, _, _, info = env.step(forbidden)
    assert info["act"] == best


def test_argument_variants_are_decisions_of_the_view(env):
    assert {"counter-price:hold", "answer:reject", "offer:meet"} <= set(env.acts)
    observation, _ = env.reset(seed=7)
    variant_steps = 0
    for _ in range(60):
        allowed = [env.acts[i] for i in np.flatnonzero(observation["action_mask"])]
        if all(":" in act for act in allowed):  # an option point: the planner's own variant keeps most prior mass
            variant_steps += 1
            supervised = {act: observation["supervised"][env.acts.index(act)] for act in allowed}
            assert max(supervised, key=supervised.__getitem__).split(":")[1] in ("step", "accept", "reject")
        choice = env.acts.index(allowed[-1])
        observation, _, terminated, truncated, info = env.step(choice)
        assert info["act"] == allowed[-1]
        if terminated or truncated:
            break
    assert variant_steps > 0

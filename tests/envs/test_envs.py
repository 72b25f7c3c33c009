"""The RL environments pass PettingZoo's and Gymnasium's own checkers on every registered task."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

pytest.importorskip("pettingzoo")
pytest.importorskip("gymnasium")

from gymnasium.utils.env_checker import check_env  # noqa: E402
from pettingzoo.test import api_test  # noqa: E402

from duologue import tasks  # noqa: E402
from duologue.envs import gymnasium_env, pettingzoo_env  # noqa: E402
from duologue.envs.spaces import decode  # noqa: E402

TASK_IDS = tasks.task_ids()


@pytest.mark.parametrize("task_id", TASK_IDS)
def test_pettingzoo_api_test_passes(task_id):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the checker's advice on Dict spaces, not failures
        api_test(pettingzoo_env(task_id), num_cycles=60)


@pytest.mark.parametrize("task_id", TASK_IDS)
def test_gymnasium_check_env_passes(task_id):
    check_env(gymnasium_env(task_id), skip_render_check=True)


def test_a_plugin_task_is_an_environment_too(coins):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(pettingzoo_env(coins), num_cycles=30)
    check_env(gymnasium_env(coins, partner="random"), skip_render_check=True)


def play_out(env, seed: int, choose) -> list:
    """Play one AEC episode; returns (agent, action, reward) per step."""
    env.reset(seed=seed)
    trace = []
    for agent in env.agent_iter(400):
        observation, reward, terminated, truncated, _ = env.last()
        action = None if terminated or truncated else choose(observation)
        trace.append((agent, action, reward))
        env.step(action)
    return trace


@pytest.mark.parametrize("task_id", ["casino-v0", "craigslist-v0"])
def test_same_seed_same_episode_and_rewards_are_the_task_scores(task_id):
    env = pettingzoo_env(task_id, max_turns=12)
    first = play_out(env, 7, lambda obs: int(np.flatnonzero(obs["action_mask"])[-1]))
    dialogue = env.task.to_dialogue()
    again = play_out(env, 7, lambda obs: int(np.flatnonzero(obs["action_mask"])[-1]))
    assert first == again
    assert env.task.to_dialogue().events == dialogue.events
    finals = {agent: reward for agent, _, reward in first[-2:]}
    assert finals == {p: float(dialogue.outcome.scores.get(p, 0.0)) for p in env.possible_agents}
    other = play_out(env, 8, lambda obs: int(np.flatnonzero(obs["action_mask"])[-1]))
    assert env.task.to_dialogue().scenario != dialogue.scenario or other != first


def test_the_mask_lists_exactly_the_legal_moves_and_any_index_is_legal():
    env = pettingzoo_env("casino-v0")
    env.reset(seed=3)
    observation, *_ = env.last()
    legal = int(observation["action_mask"].sum())
    assert legal == len(env._legal) and legal > 60  # say, walk away, and every split of the pool
    before = env.task.illegal[env.agent_selection]
    env.step(10_000)  # out of range: read modulo the legal moves, never refused
    assert sum(env.task.illegal.values()) == before


def test_observation_text_holds_the_own_view_and_the_transcript_not_the_partners_secret():
    env = gymnasium_env("casino-v0", partner="rule", render_mode="ansi")
    observation, _ = env.reset(seed=11)
    mine = env.task.scenario.private[env.party]["priorities"]
    theirs = env.task.scenario.private[env.other]["reasons"]
    view = decode(observation["observation"]["view"])
    assert all(level in view for level in mine.values())
    assert not any(reason[:30] in view for reason in theirs.values())
    for _ in range(3):
        observation, *_ = env.step(0)
    text = decode(observation["observation"]["transcript"])
    assert text and text == env.render()[-len(text):]


def test_render_human_prints_the_transcript(capsys):
    env = pettingzoo_env("craigslist-v0", render_mode="human")
    env.reset(seed=1)
    env.step(0)
    assert capsys.readouterr().out.strip()

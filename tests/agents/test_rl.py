"""The `rl:` agent: a learned policy picks the modular agent's acts and, where its task offers them, their variants."""

from __future__ import annotations

import pytest

from duologue import tasks
from duologue.agents import make_agent
from duologue.agents.rl import RLAgent, turns_bucket, turns_features
from duologue.core.episode import play_episode
from duologue.modular.coarse_policy import CoarsePolicy
from duologue.learning.train import TrainConfig, supervised_acts


def vocabulary(task_id: str) -> list[str]:
    return supervised_acts(TrainConfig(task=task_id))


@pytest.mark.parametrize(("task_id", "expected"), [
    ("craigslist-v0", {"counter-price:step", "counter-price:hold", "counter-price:meet", "counter-price:fair", "offer:fair", "offer:step", "answer:reject", "init-price:bold"}),
    ("casino-v0", {"propose:plan", "propose:greedy", "propose:even", "answer:accept", "answer:reject"}),
])
def test_the_vocabulary_holds_the_acts_and_their_variants(task_id, expected):
    acts = vocabulary(task_id)
    assert expected <= set(acts)
    assert any(":" not in act for act in acts)  # the coarse acts themselves stay


def play(task_id: str, policy: CoarsePolicy, partner: str, games: int) -> tuple[list, list[RLAgent]]:
    dialogues, agents = [], []
    for number in range(games):
        task = tasks.make(task_id)
        agent = RLAgent("test", policy=policy, record=True)
        seat = task.party_ids[number % 2]
        dialogues.append(play_episode(task, {seat: agent, task.other(seat): make_agent(partner, task)}, seed=100 + number))
        agents.append(agent)
    return dialogues, agents


def chosen(policy: CoarsePolicy, agents: list[RLAgent]) -> list[str]:
    return [policy.acts[d.acts[d.chosen]] for agent in agents for d in agent.decisions if d.acts[d.chosen] >= 0]


def test_a_fresh_policy_mostly_plays_the_planners_variant_and_tries_the_others():
    policy = CoarsePolicy.fresh(vocabulary("craigslist-v0"), task="craigslist-v0", base="modular")
    dialogues, agents = play("craigslist-v0", policy, "modular", 8)
    picks = [act for act in chosen(policy, agents) if act.startswith("counter-price:")]
    assert picks and picks.count("counter-price:step") > len(picks) / 2
    assert all(sum(d.meta["illegal_actions"].values()) == 0 for d in dialogues)


def test_a_policy_that_never_concedes_and_turns_offers_down_loses_deals_the_planner_makes():
    acts = vocabulary("craigslist-v0")
    stubborn = CoarsePolicy.fresh(acts, task="craigslist-v0", base="modular")
    for name in ("counter-price:hold", "answer:reject", "init-price:bold", "insist", "offer:hold"):
        stubborn.bias[stubborn.index(name)] = 12.0
    dialogues, agents = play("craigslist-v0", stubborn, "rule", 10)
    picks = chosen(stubborn, agents)
    assert "answer:reject" in picks and "counter-price:step" not in picks
    agreed = sum(bool(d.outcome and d.outcome.agreed) for d in dialogues)
    planner_dialogues, _ = play("craigslist-v0", CoarsePolicy.fresh(acts, task="craigslist-v0", base="modular"), "rule", 10)
    assert agreed < sum(bool(d.outcome and d.outcome.agreed) for d in planner_dialogues)


def test_an_even_handed_casino_policy_proposes_the_even_split():
    policy = CoarsePolicy.fresh(vocabulary("casino-v0"), task="casino-v0", base="modular")
    policy.bias[policy.index("propose:even")] = 12.0
    _, agents = play("casino-v0", policy, "modular", 4)
    even = policy.index("propose:even")
    offered = [d for agent in agents for d in agent.decisions if even in d.acts]  # only where it differs from the planner's split
    assert offered and sum(d.acts[d.chosen] == even for d in offered) >= 0.9 * len(offered)


def test_turns_buckets_go_from_early_to_last():
    assert [turns_bucket(t) for t in (None, 30, 12, 6, 2)] == ["turns=open", "turns=early", "turns=mid", "turns=late", "turns=last"]


def test_in_the_last_turns_the_exact_count_is_seen_too():
    assert turns_features(30) == ("turns=early",)
    assert turns_features(7) == ("turns=late",)
    assert turns_features(6) == ("turns=late", "left=6")
    assert turns_features(1) == ("turns=last", "left=1")
    assert turns_features(None) == ("turns=open",)


def test_a_policy_trained_with_the_turn_count_sees_it_and_an_older_one_does_not():
    acts = vocabulary("craigslist-v0")
    late = CoarsePolicy.fresh(acts, task="craigslist-v0", base="modular", turns="exact")
    bucketed = CoarsePolicy.fresh(acts, task="craigslist-v0", base="modular", turns=True)  # a file from before the exact count
    old = CoarsePolicy.fresh(acts, task="craigslist-v0", base="modular")
    agent = RLAgent("test", policy=late)
    agent.turns_left = 3
    assert agent._seen(("buyer", "intro")) == ("buyer", "intro", "turns=last", "left=3")
    earlier = RLAgent("test", policy=bucketed)
    earlier.turns_left = 3
    assert earlier._seen(("buyer", "intro")) == ("buyer", "intro", "turns=last")
    assert RLAgent("test", policy=old)._seen(("buyer", "intro")) == ("buyer", "intro")
    _, with_turns = play("craigslist-v0", late, "modular", 1)
    _, without = play("craigslist-v0", old, "modular", 1)
    first_with, first_without = with_turns[0].decisions[0], without[0].decisions[0]
    assert set(first_without.features) < set(first_with.features)  # the same context, plus how late it is


def test_a_casino_policy_sees_how_balanced_the_split_in_question_is():
    seen: list[tuple[str, tuple[str, ...]]] = []

    class Watching(RLAgent):
        def _option(self, point, context, options):
            seen.append((point, tuple(context)))
            return super()._option(point, context, options)

    policy = CoarsePolicy.fresh(vocabulary("casino-v0"), task="casino-v0", base="modular")
    for number in range(6):
        task = tasks.make("casino-v0")
        seat = task.party_ids[number % 2]
        play_episode(task, {seat: Watching("test", policy=policy), task.other(seat): make_agent("rule", task)}, seed=300 + number)
    for point in ("propose", "answer"):
        contexts = [context for name, context in seen if name == point]
        assert contexts, point
        assert all(sum(feature.startswith("balance=") for feature in context) == 1 for context in contexts), point


def test_a_casino_policy_may_answer_a_refusal_in_words_where_the_deal_rules_put_a_deal():
    from duologue.core.schema import Message, RejectDeal

    def answers_in_words(bias: str) -> int:
        policy = CoarsePolicy.fresh(vocabulary("casino-v0"), task="casino-v0", base="modular")
        policy.bias[policy.index(bias)] = 12.0
        dialogues, agents = play("casino-v0", policy, "rule", 16)
        count = 0
        for dialogue, agent in zip(dialogues, agents, strict=True):
            me = agent.party
            for k, event in enumerate(dialogue.events[:-1]):
                if isinstance(event, RejectDeal) and event.party == me:  # I turned a deal down and move again
                    count += isinstance(dialogue.events[k + 1], Message)
        return count

    assert "due:talk" in vocabulary("casino-v0")
    assert answers_in_words("due:talk") >= 2 * answers_in_words("due:deal") + 4


def test_a_policy_trained_before_a_decision_point_existed_plays_the_usual_variant_there():
    chosen_there: list[str] = []

    class Watching(RLAgent):
        def _option(self, point, context, options):
            picked = super()._option(point, context, options)
            if point == "due":
                chosen_there.append(picked)
            return picked

    acts = [a for a in vocabulary("casino-v0") if not a.startswith("due:")]  # as a file written before `due` was offered
    policy = CoarsePolicy.fresh(acts, task="casino-v0", base="modular")
    for number in range(8):
        task = tasks.make("casino-v0")
        seat = task.party_ids[number % 2]
        play_episode(task, {seat: Watching("test", policy=policy), task.other(seat): make_agent("rule", task)}, seed=200 + number)
    assert chosen_there and set(chosen_there) == {"deal"}


def test_a_file_that_is_not_a_policy_is_named_and_never_unpickled(tmp_path):
    import numpy as np

    from duologue.agents.rl import load_policy

    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"not a zip")
    pickled = tmp_path / "pickled.npz"
    np.savez(pickled, weights=np.array([{"x": 1}], dtype=object), meta=np.array([{"task": "casino-v0"}], dtype=object))
    for path in (junk, pickled):
        with pytest.raises(ValueError, match="not a policy file written by `duologue train policy`") as refused:
            load_policy(path)
        assert "allow_pickle" not in str(refused.value)

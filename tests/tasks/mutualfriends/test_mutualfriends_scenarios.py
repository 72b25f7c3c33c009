"""The MutualFriends scenario generator: the corpus's invariants hold for every seed, and a seed fixes the scenario."""

from __future__ import annotations

import random
from statistics import mean

import pytest

from duologue.tasks.mutualfriends import rules, scenarios
from duologue.tasks.mutualfriends.corpus import MutualFriendsFormat

SEEDS = range(400)


def friends(scenario, party: str) -> list[dict]:
    return scenario.private[party]["friends"]


@pytest.fixture(scope="module")
def generated():
    return [scenarios.generate(random.Random(seed)) for seed in SEEDS]


def test_value_lists_are_large_enough_to_be_realistic():
    sizes = {a: len(scenarios.value_list(a)) for a in rules.ATTRIBUTE_NAMES}
    assert sizes["Name"] >= 300
    assert sizes["School"] >= 100
    assert sizes["Major"] >= 50
    assert sizes["Company"] >= 100
    assert sizes["Hobby"] >= 60
    assert scenarios.value_list("Time Preference") == ("morning", "afternoon", "evening")
    assert scenarios.value_list("Location Preference") == ("indoor", "outdoor")
    for attribute in rules.ATTRIBUTE_NAMES:
        values = scenarios.value_list(attribute)
        assert len(set(values)) == len(values), f"{attribute} repeats a value"
        assert all(v == v.strip() and v for v in values)


def test_exactly_one_mutual_friend_for_every_seed(generated):
    for scenario in generated:
        shared = rules.shared_friends(friends(scenario, "0"), friends(scenario, "1"))
        assert len(shared) == 1, scenario.id


def test_no_list_repeats_a_friend(generated):
    for scenario in generated:
        for party in ("0", "1"):
            records = [tuple(sorted(f.items())) for f in friends(scenario, party)]
            assert len(set(records)) == len(records)


def test_sizes_attributes_and_alphas_follow_the_corpus(generated):
    for scenario in generated:
        names = [a["name"] for a in scenario.public["attributes"]]
        assert len(names) in (3, 4)
        assert names == [a for a in rules.ATTRIBUTE_NAMES if a in names], "attributes keep CoCoA's order"
        assert len(scenario.public["alphas"]) == len(names)
        assert all(alpha in rules.ALPHA_CHOICES for alpha in scenario.public["alphas"])
        for party in ("0", "1"):
            listed = friends(scenario, party)
            assert rules.MIN_FRIENDS <= len(listed) <= rules.MAX_FRIENDS
            for friend in listed:
                assert list(friend) == names
                for attribute, value in friend.items():
                    assert value in scenarios.value_list(attribute)


def test_every_size_attribute_and_alpha_occurs(generated):
    sizes = {len(friends(s, p)) for s in generated for p in ("0", "1")}
    assert sizes == set(range(5, 13))
    used = {a["name"] for s in generated for a in s.public["attributes"]}
    assert used == set(rules.ATTRIBUTE_NAMES)
    alphas = {alpha for s in generated for alpha in s.public["alphas"]}
    assert alphas == set(rules.ALPHA_CHOICES)


def test_the_same_seed_gives_the_same_scenario_and_another_seed_another():
    assert scenarios.generate(random.Random(7)) == scenarios.generate(random.Random(7))
    assert scenarios.generate(random.Random(7)) != scenarios.generate(random.Random(8))


def test_generated_scenarios_are_valid_corpus_scenarios(generated):
    fmt = MutualFriendsFormat()
    for scenario in generated[:50]:
        record = {
            "uuid": "C_test",
            "scenario": {"uuid": scenario.id, "alphas": scenario.public["alphas"], "attributes": scenario.public["attributes"],
                         "kbs": [friends(scenario, "0"), friends(scenario, "1")]},
            "agents": {"0": "human", "1": "human"},
            "outcome": {"reward": 0},
            "events": [],
        }
        assert fmt.check(record) == []


def test_a_small_alpha_makes_friends_alike():
    """Dirichlet(0.3) concentrates a party's values on few of them; Dirichlet(3) spreads them."""

    def distinct(alpha: float) -> float:
        counts = []
        for seed in range(150):
            scenario = scenarios.generate(random.Random(seed), attributes=["Name", "School", "Hobby"], alphas=[alpha] * 3, sizes=(12, 12))
            for party in ("0", "1"):
                counts.append(len({f["School"] for f in friends(scenario, party)}))
        return mean(counts)

    assert distinct(0.3) + 2 < distinct(3.0)


def test_tiny_value_lists_still_give_distinct_friends():
    scenario = scenarios.generate(random.Random(3), attributes=["Hobby", "Time Preference", "Location Preference"], alphas=[0.3, 0.3, 0.3], sizes=(12, 12))
    assert len(rules.shared_friends(friends(scenario, "0"), friends(scenario, "1"))) == 1


@pytest.mark.parametrize(
    "options",
    [
        {"attributes": ["School", "Nickname"]},
        {"attributes": ["School", "School", "Hobby"]},
        {"attributes": ["School", "Hobby"], "alphas": [1.0]},
        {"sizes": (4, 8)},
        {"sizes": (5, 13)},
    ],
)
def test_impossible_settings_are_refused(options):
    with pytest.raises(ValueError):
        scenarios.generate(random.Random(0), **options)


def test_dirichlet_draws_a_distribution():
    draw = scenarios.dirichlet(random.Random(1), 0.3, 20)
    assert len(draw) == 20 and abs(sum(draw) - 1) < 1e-9 and all(p >= 0 for p in draw)

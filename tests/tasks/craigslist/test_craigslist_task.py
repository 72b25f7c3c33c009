"""craigslist-v0: scenarios, rules, scoring, corpus transcripts and corpus scenarios."""

import json
import math
import random

import pytest

from duologue.agents import make_agent
from duologue.core import actions
from duologue.core.episode import play_episode
from duologue.core.schema import Dialogue
from duologue.core.task import IllegalAction
from duologue.data.compare import record_differences
from duologue.data.io import read_corpus
from duologue.tasks import corpus_format, make
from duologue.tasks.craigslist.listings import CATEGORIES, listings, target_ratios
from duologue.tasks.craigslist.task import CraigslistTask, ratio_bucket, scenario_from_listing, target_ratio
from duologue.testing import check_task

FMT = corpus_format("craigslist")


def started(seed=0, first="0", **options):
    task = CraigslistTask(first=first, **options)
    task.reset(seed=seed)
    return task


# ---------------------------------------------------------------- conformance and scenarios


def test_conforms():
    check_task("craigslist-v0", episodes=25, seed=7)


def test_conforms_with_bottomlines():
    check_task("craigslist-v0", episodes=15, seed=99, bottomlines=True)


def test_scenarios_are_reproducible_and_follow_the_corpus_views():
    task = CraigslistTask()
    a = task.generate_scenario(random.Random(5))
    b = task.generate_scenario(random.Random(5))
    assert a == b
    buyer, seller = a.private["0"], a.private["1"]
    assert (buyer["role"], seller["role"]) == ("buyer", "seller")
    for view in (buyer, seller):
        assert set(view) == {"role", "target", "bottomline", "item"}
        assert set(view["item"]) == {"category", "title", "description", "price", "images"}
        assert view["bottomline"] is None
    assert seller["target"] == a.public["listing_price"] == seller["item"]["price"]
    assert round(target_ratio(a), 1) in target_ratios()
    assert list(a.public) == ["category", "post_id", "title", "listing_price"]


def test_scenarios_cover_every_category_and_ratio():
    task = CraigslistTask()
    scenarios = [task.generate_scenario(random.Random(seed)) for seed in range(300)]
    assert {s.public["category"] for s in scenarios} == set(CATEGORIES)
    assert {ratio_bucket(target_ratio(s)) for s in scenarios} == {"0.5", "0.7", "0.9"}


def test_bottomlines_are_private_and_sensible():
    task = CraigslistTask(bottomlines=True)
    for seed in range(30):
        scenario = task.generate_scenario(random.Random(seed))
        listed = scenario.public["listing_price"]
        buyer, seller = scenario.private["0"], scenario.private["1"]
        assert 0.6 * listed - 1 <= seller["bottomline"] <= 0.8 * listed + 1
        assert buyer["target"] <= buyer["bottomline"] <= listed
        assert "bottomline" not in json.dumps(scenario.public)


def test_categories_option():
    task = CraigslistTask(categories=["car"])
    assert {task.generate_scenario(random.Random(s)).public["category"] for s in range(20)} == {"car"}
    with pytest.raises(ValueError, match="unknown categories"):
        CraigslistTask(categories=["boats"])


def test_listing_set_is_large_and_balanced():
    every = listings()
    assert len(every) >= 40
    for category in CATEGORIES:
        assert sum(1 for item in every if item.category == category) >= 6
    assert len({item.id for item in every}) == len(every)


def test_listings_do_not_spell_a_secret():
    """The leak check searches observations for the other side's private values: no listing may
    contain the words `buyer` / `seller` or the digits of a buyer target drawn from it."""
    for item in listings():
        text = json.dumps(item.model_dump()).lower()
        assert "buyer" not in text and "seller" not in text, item.id
        for ratio in target_ratios():
            target = str(int(round(ratio * item.price)))
            assert len(target) < 3 or target not in text, (item.id, target)


# ---------------------------------------------------------------- rules


def test_an_offer_must_be_answered_with_accept_or_reject():
    task = started()
    task.step(actions.Offer(price=100.0))
    assert task.to_move == "1"
    assert task.legal_actions("1") == ["accept", "reject"]
    for move in (actions.Say(text="hmm"), actions.Quit(), actions.Offer(price=90.0)):
        with pytest.raises(IllegalAction):
            task.step(move)
    assert task.illegal["1"] == 3


def test_a_rejecting_party_moves_again_and_bargaining_goes_on():
    task = started()
    task.step(actions.Offer(price=100.0))
    task.step(actions.Reject())
    assert task.to_move == "1" and not task.done
    assert task.legal_actions("1") == ["say", "offer", "quit"]
    task.step(actions.Say(text="How about 120?"))
    assert task.to_move == "0"


def test_accept_makes_a_deal_scored_with_cocoa_utility():
    task = started(seed=3)
    price = task.scenario.public["listing_price"] * 0.8
    task.step(actions.Say(text="hi"))
    task.step(actions.Offer(price=price))
    task.step(actions.Accept())
    terminated, truncated, outcome = task.last()
    assert terminated and not truncated
    assert outcome.reason == "agreement" and outcome.agreed and outcome.deal == {"price": price}
    seller_target = task.scenario.private["1"]["target"]
    buyer_target = task.scenario.private["0"]["target"]
    middle = (seller_target + buyer_target) / 2
    assert outcome.scores["1"] == pytest.approx((price - middle) / abs(middle - seller_target))
    assert outcome.scores["0"] == pytest.approx(-outcome.scores["1"])


def test_quit_ends_without_a_deal():
    task = started()
    task.step(actions.Quit())
    assert task.last()[2].reason == "quit"
    assert task.last()[2].agreed is False and task.last()[2].scores == {}


@pytest.mark.parametrize("price", [0.0, -5.0, math.inf, math.nan])
def test_an_offer_needs_a_positive_finite_price(price):
    task = started()
    with pytest.raises(IllegalAction, match="positive"):
        task.step(actions.Offer(price=price))
    assert task.events == []


def test_the_offering_party_may_only_talk_while_its_offer_is_open():
    task = CraigslistTask(turn_taking="free", first="0")
    task.reset(seed=0)
    task.step(actions.Offer(price=50.0), "0")
    assert task.legal_actions("0") == ["say"]
    with pytest.raises(IllegalAction):
        task.step(actions.Quit(), "0")


def test_turn_limit_truncates_and_judge_says_so():
    task = CraigslistTask(max_turns=4, first="0")
    task.reset(seed=1)
    for _ in range(4):
        task.step(actions.Say(text="hello"))
    terminated, truncated, outcome = task.last()
    assert truncated and not terminated
    assert outcome.reason == "turn_limit" and outcome.agreed is False


def test_episode_metrics():
    task = started(seed=3)
    listed = task.scenario.public["listing_price"]
    task.step(actions.Offer(price=listed * 0.75))
    task.step(actions.Accept())
    metrics = task.episode_metrics(task.to_dialogue())
    assert metrics["agreement"] == 1.0
    assert metrics["utility_buyer"] == pytest.approx(-metrics["utility_seller"])
    assert metrics["fairness"] == pytest.approx(2 - abs(metrics["utility_seller"]))
    assert metrics["price_ratio"] == pytest.approx(0.75)
    assert metrics["length"] == 0.2 and metrics["turns"] == 2.0
    quitter = started()
    quitter.step(actions.Quit())
    none = quitter.episode_metrics(quitter.to_dialogue())
    assert none["agreement"] == 0.0 and none["utility_buyer"] is None and none["fairness"] is None


# ---------------------------------------------------------------- transcripts in the corpus format


def test_a_played_transcript_is_a_valid_cocoa_record_that_round_trips():
    task = make("craigslist-v0")
    agents = {p: make_agent("rule", task) for p in task.party_ids}
    for seed in range(5):
        dialogue = play_episode(task, agents, seed=seed)
        record = FMT.from_dialogue(dialogue)
        assert FMT.check(record) == []
        assert record["scenario"]["kbs"][0]["personal"]["Role"] == "buyer"
        assert record["outcome"]["reward"] == (1 if dialogue.outcome.agreed else 0)
        back = FMT.to_dialogue(record)
        assert record_differences(record, FMT.from_dialogue(back)) == []
        assert [e.kind for e in back.events] == [e.kind for e in dialogue.events if e.kind != "system"]
        assert FMT.check(FMT.from_dialogue(dialogue, shape="hf")) == []


# ---------------------------------------------------------------- corpus scenarios


def test_a_corpus_scenario_replays(fixtures):
    corpus = read_corpus(FMT, fixtures / "craigslist" / "cocoa.json").dialogues
    task = make("craigslist-v0")
    for record in corpus:
        agents = {p: make_agent("rule", task) for p in task.party_ids}
        dialogue = play_episode(task, agents, seed=11, scenario=record)
        assert dialogue.scenario == record.scenario
        roles = {p.id: p.role for p in dialogue.parties}
        assert roles == {p.id: p.role for p in record.parties}
        assert dialogue.outcome.agreed, record.id
        assert FMT.check(FMT.from_dialogue(dialogue)) == []


def test_scenarios_option_takes_a_path_or_dialogues(fixtures):
    path = fixtures / "craigslist" / "cocoa.json"
    corpus = read_corpus(FMT, path).dialogues
    from_path = CraigslistTask(scenarios=str(path))
    from_list = CraigslistTask(scenarios=corpus)
    ids = {d.scenario.id for d in corpus}
    for seed in range(10):
        assert from_path.generate_scenario(random.Random(seed)).id in ids
        assert from_path.generate_scenario(random.Random(seed)) == from_list.generate_scenario(random.Random(seed))
    with pytest.raises(ValueError, match="no playable"):
        CraigslistTask(scenarios=[Dialogue(id="x", task="craigslist", parties=[{"id": "a", "kind": "human"}, {"id": "b", "kind": "human"}])])


def test_check_task_with_corpus_scenarios(fixtures):
    check_task("craigslist-v0", episodes=4, seed=0, scenarios=str(fixtures / "craigslist" / "cocoa.json"))


@pytest.mark.corpus
def test_every_validation_scenario_plays(corpus_path):
    task = CraigslistTask(scenarios=corpus_path("craigslist/validation.json"))
    assert len(task._scenarios) == 597
    assert all(s.private["0"]["role"] == "buyer" for s in task._scenarios)
    agents = {p: make_agent("rule", task) for p in task.party_ids}
    agreed = 0
    for number, scenario in enumerate(task._scenarios[:60]):
        agreed += play_episode(task, agents, seed=number, scenario=scenario).outcome.agreed
    assert agreed / 60 >= 0.9


def test_scenario_from_listing_rounds_the_buyer_target():
    item = listings()[0]
    scenario = scenario_from_listing(item, 0.7, scenario_id="S_x")
    assert scenario.private["0"]["target"] == round(0.7 * item.price)
    assert isinstance(scenario.private["0"]["target"], int)

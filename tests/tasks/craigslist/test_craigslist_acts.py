"""The coarse act parser: the corpus parser's tokens, price contexts, cues, acts in context, and its scores."""

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from duologue.cli import app
from duologue.core.schema import Accept, Annotation, Dialogue, Message, Offer, Party, Quit, Reject, Scenario
from duologue.tasks.craigslist.acts import ActAnnotator, ActTracker, dialogue_acts, price_scores
from duologue.tasks.craigslist.prices import listing_token_numbers, parser_tokens, token_number, tracked_prices
from duologue.tasks.craigslist.reading import parser_cues

BIKE = ["Trek road bike, 2012 model", "56 cm frame, 18 speeds, new tires"]


# ---------------------------------------------------------------------- tokens and prices


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("I can do $1,200.", ["i", "can", "do", "$1,200", "."]),
        ("ok 45$ for it", ["ok", "45$", "for", "it"]),
        ("Okay, I will do 45$.", ["okay", ",", "i", "will", "do", "45", "$."]),  # the `$` sticks to the full stop
        ("$120/mo works..", ["$120", "mo", "works", "..."]),
    ],
)
def test_parser_tokens_follow_the_corpus_tokenisation(text, tokens):
    assert parser_tokens(text) == tokens


@pytest.mark.parametrize(
    ("token", "value"),
    [("$1,200", 1200.0), ("1.2k", 1200.0), ("10k", 10000.0), ("45$", 45.0), ("7.9", 7.9), ("5pm", None), ("nan", None), ("inf", None), ("$.", None), ("2nd", None)],
)
def test_token_number(token, value):
    assert token_number(token) == value


def prices_in(text, listing_price=None, listing=()):
    return [p.value for p in tracked_prices(parser_tokens(text), listing_price=listing_price, listing_numbers=listing_token_numbers(listing))]


def test_prices_need_a_price_context_unless_marked_with_a_dollar():
    assert prices_in("I can do 150 for it", 200) == [150]
    assert prices_in("I have had it 2 years", 200) == []  # a unit after the number
    assert prices_in("my iphone 7 is fine", 200) == []  # a product word before it
    assert prices_in("the iphone $7", 200) == [7]  # `$` always makes a price
    assert prices_in("I'd like 1.2k", 1500) == [1200]


def test_unmarked_numbers_far_above_the_listing_or_copied_from_it_are_not_prices():
    assert prices_in("would you do 400?", 250) == []  # above 1.5 x the listing price
    assert prices_in("would you do $400?", 250) == [400]
    assert prices_in("is it 56 or 58?", 250, BIKE) == [58]  # 56 is in the description
    assert prices_in("so 250 it is, as listed", 250, ["asking 250, firm"]) == [250]  # the listing price stays a price


# ---------------------------------------------------------------------- cues


@pytest.mark.parametrize(
    ("text", "cues"),
    [
        ("how are you today?", ["question", "greeting"]),
        ("Hi, is it still available", ["greeting"]),  # `hi` is the first token, not `is`, and no `?`
        ("Is it still available", ["question"]),
        ("don't worry about it", ["question", "negative"]),  # Treebank splits `do` + `n't`
        ("what is your lowest?", ["question", "vague-price"]),
        ("Lowest I go.", []),  # price talk is matched case-sensitively, as the parser did
        ("deal!", ["agree"]),
        ("I think we have a deal", ["agree"]),
        ("ok, but not today", ["negative"]),  # agreement must be the whole message
        ("I'm interested in the bike", ["greeting"]),
    ],
)
def test_parser_cues(text, cues):
    assert parser_cues(text, parser_tokens(text)) == cues


# ---------------------------------------------------------------------- acts in context


def bike_dialogue(*events, annotations=()):
    item = {"category": "bike", "title": "Trek road bike", "description": BIKE, "price": 300}
    return Dialogue(
        id="C_test",
        task="craigslist",
        scenario=Scenario(
            public={"category": "bike", "title": "Trek road bike", "listing_price": 300},
            private={"0": {"role": "buyer", "target": 210, "item": item}, "1": {"role": "seller", "target": 300, "item": item}},
        ),
        parties=[Party(id="0", kind="human", role="buyer"), Party(id="1", kind="human", role="seller")],
        events=list(events),
        annotations=list(annotations),
    )


def say(party, text):
    return Message(party=party, text=text)


def test_a_whole_negotiation_gets_the_acts_the_corpus_parser_gives():
    dialogue = bike_dialogue(
        say("0", "Hi there"),  # first event, no price
        say("1", "Hello!"),  # a greeting later on
        say("0", "Is it still available?"),  # question only
        say("1", "It is, barely ridden"),  # no cue, right after the partner asked
        say("0", "Could you come down a bit?"),  # price talk without a price
        say("0", "I could do 200 for it"),  # the first price of the dialogue
        say("1", "No"),  # only a negation
        say("1", "I can go to 280 or 290"),  # a new price: the seller's highest
        say("0", "I can only pay $200"),  # the buyer's own price again
        say("1", "Fine, 200 then"),  # the partner's price named back: agree
        say("1", "Actually 300"),  # the listing price counts as a new price
        Offer(party="1", price=250.0),
        Reject(party="0"),
        Accept(party="1"),
        Quit(party="0"),
    )
    acts = dialogue_acts(dialogue)
    assert [a.intent for a in acts] == [
        "intro", "unknown", "inquiry", "inform", "vague-price", "init-price", "disagree", "counter-price",
        "insist", "agree", "counter-price", "offer", "reject", "accept", "quit",
    ]
    assert [a.price for a in acts[5:12]] == [200.0, None, 290.0, 200.0, 200.0, None, 250.0]
    assert acts[10].price is None  # a seller does not go back up from 200 to 300
    assert [a.priced for a in acts[11:]] == [True, False, False, False]


def test_a_buyer_never_proposes_the_listing_price_and_picks_the_lowest():
    acts = dialogue_acts(bike_dialogue(say("0", "it says 300 but i can do 250 or 240")))
    assert (acts[0].intent, acts[0].price) == ("init-price", 240.0)
    acts = dialogue_acts(bike_dialogue(say("1", "it is 300")))
    assert acts[0].price == 300.0  # a seller may


def test_a_price_named_after_an_offer_is_a_counter_price():
    acts = dialogue_acts(bike_dialogue(Offer(party="0", price=200.0), say("1", "How about $260?")))
    assert (acts[1].intent, acts[1].price) == ("counter-price", 260.0)


def test_the_tracker_reads_events_one_at_a_time():
    item = {"price": 300, "title": "Trek road bike", "description": BIKE}
    tracker = ActTracker.for_parties({"0": {"role": "buyer", "item": item}, "1": {"role": "seller", "item": item}})
    assert tracker.read(say("0", "hey")).intent == "intro"
    assert tracker.read(say("0", "what would you take?")).intent == "inquiry"
    assert tracker.read(say("1", "$280")).price == 280.0
    assert tracker.current_price == 280.0
    assert tracker.read(say("0", "280 is a lot, 220?")).intent == "counter-price"


# ---------------------------------------------------------------------- annotator and scores


def test_annotations_carry_intent_and_price_layers():
    dialogue = bike_dialogue(say("0", "Would you take 200?"), Offer(party="0", price=200.0), Accept(party="1"))
    annotations = ActAnnotator().annotate(dialogue)
    assert {a.source for a in annotations} == {"duologue.acts-v1"}
    assert [(a.event, a.layer, a.labels, a.value) for a in annotations] == [
        (0, "intent", ["init-price"], None), (0, "price", [], 200.0),
        (1, "intent", ["offer"], None), (1, "price", [], 200.0),
        (2, "intent", ["accept"], None),  # accept has no price slot
    ]


def gold(event, intent, price="none"):
    labels = [Annotation(event=event, layer="intent", labels=[intent], source="corpus-parser")]
    if price != "none":
        labels.append(Annotation(event=event, layer="price", value=price, source="corpus-parser"))
    return labels


def test_evaluate_by_hand():
    dialogue = bike_dialogue(
        say("0", "Hi there"),
        say("0", "Would you take 200?"),
        say("1", "How about 250?"),
        Accept(party="0"),
        annotations=[*gold(0, "intro", None), *gold(1, "init-price", 200.0), *gold(2, "unknown", 260.0), *gold(3, "accept")],
    )
    evaluation = ActAnnotator().evaluate([dialogue])
    assert evaluation.items == 4
    assert evaluation.metrics["intent_accuracy"] == 0.75  # event 2 is counter-price, gold says unknown
    assert evaluation.metrics["message_intent_accuracy"] == pytest.approx(2 / 3)
    # prices: 200 right, 250 predicted where gold has 260: P = 1/2, R = 1/2
    assert (evaluation.metrics["price_precision"], evaluation.metrics["price_recall"], evaluation.metrics["price_f1"]) == (0.5, 0.5, 0.5)
    assert evaluation.confusion["unknown"] == {"counter-price": 1}
    assert evaluation.per_label["intro"].f1 == 1.0


def test_evaluate_without_gold_labels_is_none():
    assert ActAnnotator().evaluate([bike_dialogue(say("0", "hi"))]) is None


def test_price_scores():
    score = price_scores([(100.0, 100), (None, 50.0), (80.0, None), (None, None), (70.0, 75.0)])
    assert (score.precision, score.recall, score.support) == (1 / 3, 1 / 3, 3)


def test_cli_evaluates_the_fixture(fixtures: Path):
    result = CliRunner().invoke(app, ["annotate", "acts", str(fixtures / "craigslist" / "cocoa.json"), "--evaluate", "--json"])
    assert result.exit_code == 0, result.output
    evaluation = json.loads(result.output)
    assert evaluation["annotator"] == "acts" and evaluation["items"] == 15
    assert {"intent_accuracy", "price_f1", "price_precision", "price_recall"} <= set(evaluation["metrics"])


@pytest.mark.corpus
def test_reproduces_the_validation_labels(corpus_path):
    from duologue.data.io import read_corpus
    from duologue.tasks import corpus_format

    dialogues = read_corpus(corpus_format("craigslist"), corpus_path("craigslist/validation.json"), skip_invalid=True).dialogues
    evaluation = ActAnnotator().evaluate(dialogues)
    assert evaluation.items == 4797
    assert evaluation.metrics["intent_accuracy"] >= 0.95
    assert evaluation.metrics["price_f1"] >= 0.95


def test_the_rule_agent_follows_its_partners_acts():
    from duologue.core.episode import play_episode
    from duologue.tasks import make
    from duologue.tasks.craigslist.agents import CraigslistRuleAgent

    task = make("craigslist-v0")
    agents = {party: CraigslistRuleAgent() for party in task.party_ids}
    dialogue = play_episode(task, agents, seed=3)
    expected = [act.intent if act else None for act in dialogue_acts(dialogue)]
    for agent in agents.values():
        seen = [act.intent if act else None for act in agent.acts.history]
        assert seen and seen == expected[: len(seen)]
        assert agent.last_reading.act == next(act for act, event in zip(reversed(seen), reversed(dialogue.events[: len(seen)]), strict=True) if isinstance(event, Message) and event.party != agent.party)

"""Understanding people in CraigslistBargain (issue 14): the sentences the rule bot misread, and the labelled sets."""

import pytest

from duologue.core import actions
from duologue.core.episode import agent_rng, play_episode
from duologue.tasks import make
from duologue.tasks.craigslist.agents import CraigslistRuleAgent
from duologue.tasks.craigslist.listings import listings
from duologue.tasks.craigslist.prices import find_price
from duologue.tasks.craigslist.reading import answer_question, labelled_messages, read_message
from duologue.tasks.craigslist.task import CraigslistTask, scenario_from_listing


def listing(listing_id):
    return next(item for item in listings() if item.id == listing_id)


def seller_reply(item, line, *, seed=0):
    """The rule seller's answer to one buyer message on `item`, after its opening."""
    task = CraigslistTask(first="0", max_turns=40)
    task.reset(seed=seed, scenario=scenario_from_listing(item, 0.7, scenario_id="S_reply"))
    agent = CraigslistRuleAgent()
    agent.reset(task, "1", agent_rng(seed, "1"))
    task.step(actions.Say(text="hi, is it still available?"), "0")
    task.step(agent.act(task.observe("1")), "1")
    task.step(actions.Say(text=line), "0")
    return agent.act(task.observe("1"))


# ---------------------------------------------------------------- prices in words and shares of the listing


@pytest.mark.parametrize(
    ("text", "listed", "price"),
    [
        ("half the asking price?", 300, 150),
        ("would you take a tenner?", 15, 10),
        ("I'll give you a fiver for it", 8, 5),
        ("how about 75% of the list price", 200, 150),
        ("could you do two thirds of what you're asking?", 90, 60),
        ("a couple hundred and it's mine", 260, 200),
    ],
)
def test_prices_in_words_and_shares_of_the_listing(text, listed, price):
    assert find_price(text, listing_price=listed) == pytest.approx(price)


@pytest.mark.parametrize(
    "text",
    [
        "I don't think I could go so low as half price",  # refused
        "That's less than half price!",  # compared, not offered
        "it was 300 dollars when I bought it",  # what it cost, not an offer
        "that album is worth a grand",
        "I have 5 of the wall chargers and 3 of the selfie clickers",  # counts
    ],
)
def test_no_price_is_put_forward(text):
    assert find_price(text, listing_price=400) is None


def test_an_attribute_price_is_not_the_offer():
    assert find_price("I'll sell it for $50 today and I'll even throw in a $20 case", listing_price=60) == 50
    assert find_price("$1 is too low. The lowest I can go is $8.", listing_price=2) == 8


# ---------------------------------------------------------------- questions answered from the listing


def test_how_much_is_the_deposit_is_deflected_not_answered_with_bike_storage():
    item = listing("housing-06")  # its description has "Bike storage in the basement." and no deposit
    reading = read_message("how much is the deposit", listing_price=item.price)
    assert reading.question and not reading.asks_price
    assert answer_question("how much is the deposit", [item.title, *item.description]).kind == "deflect"
    for seed in range(6):
        move = seller_reply(item, "how much is the deposit", seed=seed)
        assert isinstance(move, actions.Say)
        assert "Bike storage" not in move.text and "deposit" in move.text, move.text


def test_a_question_the_listing_answers_gets_that_line():
    item = listing("car-01")  # "2012 Civic LX sedan, automatic, 98k miles."
    for seed in range(4):
        move = seller_reply(item, "how many miles are on it?", seed=seed)
        assert "98k miles" in move.text, move.text


def test_availability_is_answered_plainly():
    assert answer_question("Hi there is the item avaialble?", ["Desk", "Oak desk."]).kind == "other"


# ---------------------------------------------------------------- leaving vs bargaining


def test_leaving_is_not_a_reason_for_a_final_offer():
    reading = read_message("ok nevermind, I'll look elsewhere", listing_price=350)
    assert reading.leaving and not reading.agree
    item = listing("furniture-01")
    task = CraigslistTask(first="0", max_turns=40)
    task.reset(seed=1, scenario=scenario_from_listing(item, 0.7, scenario_id="S_leave"))
    agent = CraigslistRuleAgent()
    agent.reset(task, "1", agent_rng(1, "1"))
    for line in ["hi, is the dresser available?", "would you take 200?", "ok nevermind, I'll look elsewhere"]:
        task.step(actions.Say(text=line), "0")
        move = agent.act(task.observe("1"))
        task.step(move, "1")
    assert isinstance(move, actions.Say) and find_price(move.text, listing_price=item.price) is None, move
    task.step(actions.Say(text="yeah, bye"), "0")
    assert isinstance(agent.act(task.observe("1")), actions.Quit)


def test_a_price_after_a_goodbye_word_still_bargains():
    assert not read_message("good luck trying to find someone to pay that much. 3,800 firm", listing_price=5500).leaving
    assert read_message("I was looking in the low 1100's.... I will have to look somewhere else then", listing_price=1500).leaving


# ---------------------------------------------------------------- the rule seller's words fit the listing


def test_no_canned_reason_contradicts_the_listing():
    dresser = listing("furniture-01")  # a 1960s walnut dresser
    task = make("craigslist-v0")
    said = []
    for seed in range(40):
        scenario = scenario_from_listing(dresser, 0.5, scenario_id=f"S_dresser_{seed}")
        episode = play_episode(task, {"0": CraigslistRuleAgent(), "1": CraigslistRuleAgent()}, seed=seed, scenario=scenario)
        said += [e.text for e in episode.events if getattr(e, "text", None) and e.party == "1"]
    assert said and not any("barely been used" in text for text in said)


def test_no_price_is_said_three_times_running():
    task = make("craigslist-v0")
    for seed in range(40):
        episode = play_episode(task, {"0": CraigslistRuleAgent(), "1": CraigslistRuleAgent()}, seed=seed)
        listed = episode.scenario.public["listing_price"]
        for party in ("0", "1"):
            named = [find_price(e.text, listing_price=listed) for e in episode.events if e.party == party and getattr(e, "kind", "") == "message"]
            named = [p for p in named if p is not None]
            assert not any(a == b == c for a, b, c in zip(named, named[1:], named[2:], strict=False)), (seed, party, named)


# ---------------------------------------------------------------- the labelled sets (real corpus)


def test_labelled_prices_are_read(corpus_path):
    items = labelled_messages("price", corpus_path("craigslist/validation.json"))
    assert len(items) == sum(1 for item in items if item.split in ("dev", "test", "test2", "heldout"))
    assert [sum(item.split == split for item in items) for split in ("test", "test2", "heldout")] == [100, 326, 100]
    for split, floor in (("dev", 0.98), ("test", 0.95), ("test2", 0.93), ("heldout", 0.95)):
        chosen = [i for i in items if i.split == split]
        right = sum(
            (lambda got, want: (got is None and want is None) or (got is not None and want is not None and abs(got - want) < 0.01))(
                find_price(i.text, listing_price=i.listing_price, listing_text=i.lines), i.label["price"]
            )
            for i in chosen
        )
        assert right / len(chosen) >= floor, (split, right, len(chosen))


def test_labelled_questions_and_leaving(corpus_path):
    path = corpus_path("craigslist/validation.json")
    questions = labelled_messages("question", path)
    right = sum(
        (lambda a, want: a.kind == want["answer"] and (a.kind != "line" or a.line == want["line"]))(answer_question(q.text, q.lines), q.label)
        for q in questions
    )
    assert right / len(questions) >= 0.9
    leaving = labelled_messages("leaving", path)
    wrong = [m.text for m in leaving if read_message(m.text, listing_price=m.listing_price).leaving != m.label["leaving"]]
    assert len(wrong) <= 2, wrong

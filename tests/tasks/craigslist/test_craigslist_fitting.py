"""The modular CraigslistBargain agent's words fit the partner's last message and the item (issue 14)."""

import pytest

from duologue.core.episode import play_episode
from duologue.core.schema import Message
from duologue.tasks import make
from duologue.tasks.craigslist.agents import CraigslistRuleAgent
from duologue.tasks.craigslist.listings import listings
from duologue.tasks.craigslist.fitting import context_fit, unbacked_claims
from duologue.tasks.craigslist.modular import CraigslistModularAgent, own_words
from duologue.tasks.craigslist.task import scenario_from_listing

CIVIC = next(item for item in listings() if item.id == "car-01")  # 2012 Honda Civic LX sedan
LINES = [CIVIC.title, *CIVIC.description]


pytestmark = pytest.mark.usefixtures("fresh_modular_cache")


@pytest.mark.parametrize(
    ("reply", "partner_said", "history", "why"),
    [
        ("is the convertible still available?", "", [], "not grounded"),
        ("A haunted car?", "Yes, it runs great.", ["Hi, is it available?", "Yes, it runs great."], "not grounded"),
        ("That is very unfair", "", [], "reacts as an opening"),
        ("I see.", "Would you take $6500?", ["Hi", "Hello", "Would you take $6500?"], "ignores the price on the table"),
        ("Hey how are you doing?", "I could do $7000.", ["a", "b", "c", "d", "I could do $7000."], "greets in the middle"),
        ("It's brand new, never used.", "How is it?", ["How is it?"], "claims what the listing does not say"),
    ],
)
def test_issue_14_lines_do_not_fit(reply, partner_said, history, why):
    ok, reason = context_fit(reply, partner_said=partner_said, lines=LINES, history=history, common=own_words() | {"unfair", "brand", "never", "used"})
    assert not ok and reason.startswith(why), reason


@pytest.mark.parametrize(
    ("reply", "partner_said", "history"),
    [
        ("Hi! Is the Civic still available?", "", []),
        ("How many miles are on it?", "Hi, yes it is.", ["Hi, is it for sale?", "Hi, yes it is."]),
        ("Could you do $6,900?", "I'm asking $7800.", ["Hi", "I'm asking $7800."]),
        ("98k miles, and it has a clean title.", "How many miles does it have?", ["How many miles does it have?"]),
    ],
)
def test_lines_that_fit(reply, partner_said, history):
    assert context_fit(reply, partner_said=partner_said, lines=LINES, history=history, common=own_words()) == (True, "")


def test_claims_need_the_listing():
    assert unbacked_claims("These are brand new", "iPhone 8 Plus, like new") == ["brand new"]
    assert unbacked_claims("It's like new!", "iPhone 8 Plus, like new") == []
    assert unbacked_claims("Is it brand new?", "anything") == []


def test_the_modular_agent_never_talks_about_another_item(corpus_path):
    corpus = corpus_path("craigslist/validation.json")
    task = make("craigslist-v0")
    for seed in range(8):
        scenario = scenario_from_listing(CIVIC, 0.7, scenario_id=f"S_civic_{seed}")
        party = "0" if seed % 2 else "1"
        agent = CraigslistModularAgent(str(corpus))
        dialogue = play_episode(task, {party: agent, ("1" if party == "0" else "0"): CraigslistRuleAgent()}, seed=seed, scenario=scenario)
        common = agent.knowledge.extra["common"]
        history: list[str] = []
        partner_said = ""
        for event in dialogue.events:
            if not isinstance(event, Message):
                continue
            if event.party == party:
                assert "convertible" not in event.text.lower() and "haunted" not in event.text.lower()
                ok, why = context_fit(event.text, partner_said=partner_said, lines=LINES, history=history, common=common)
                assert ok or event.text.lower() in {g.text.lower() for g in agent.generated if g.source == "template"}, (event.text, why)
            else:
                partner_said = event.text
            history.append(event.text)


@pytest.mark.parametrize(
    ("reply", "partner_said", "history", "why"),
    [
        ("Thanks for letting me know.", "I can't go higher than that, sorry.", ["Could you do $6500?", "I can do $7000.", "I can't go higher than that, sorry."],
         "ignores the price talk"),
        ("Pretty good thanks!", "Hi there! Yes, it's available.", ["Hi", "Hi there! Yes, it's available."], "answers a question nobody asked"),
        ("Hi is the car still available?", "Clean title, one owner.", ["Hi", "Yes, the car is still available.", "Any accidents?", "Clean title, one owner."],
         "greets in the middle"),
        ("Is it still available?", "Clean title, one owner.", ["Hi", "Yes, it's still available.", "Any accidents?", "Clean title, one owner."],
         "asks what was already answered"),
        ("I paid $7000 for it, so no lower.", "Would you take $6000?", ["Would you take $6000?"], "claims what the listing does not say"),
        ("Oh cool. Why are you selling it?", "I'm not sure about that, sorry.", ["Any accidents?", "I'm not sure about that, sorry."], "welcomes an I-don't-know"),
        ("Thank you so much", "Hi, thanks for your interest. Yes, the Civic is available.", ["Hi", "Hi, thanks for your interest. Yes, the Civic is available."],
         "thanks a greeting"),
    ],
)
def test_replies_that_ignore_or_restart_do_not_fit(reply, partner_said, history, why):
    ok, reason = context_fit(reply, partner_said=partner_said, lines=LINES, history=history, common=own_words() | {"paid", "accidents"})
    assert not ok and reason.startswith(why), reason


def test_a_number_quoted_from_the_listing_is_no_price_on_the_table():
    said = "Hello! Glad you're interested. 2012 Civic LX sedan, automatic, 98k miles."
    assert context_fit("That's good to know.", partner_said=said, lines=LINES, history=["Hi", said], common=own_words()) == (True, "")


def test_an_availability_answer_fits_after_an_opening_price():
    asked = "Hi! Is the Civic still for sale? Does it have a clean title?"
    reply = "Yes, it's still available. Clean title, one owner, all service records."
    assert context_fit(reply, partner_said=asked, lines=LINES, history=["I'd like to get $7800 for it.", asked], common=own_words()) == (True, "")


def test_item_words_of_the_corpus_are_not_common_talk(corpus_path):
    """`iphone`, `chair`: frequent in the corpus, but they fit only a listing or dialogue that has them (issue 14)."""
    agent = CraigslistModularAgent(str(corpus_path("craigslist/validation.json")))
    agent.reset(make("craigslist-v0"), "0", __import__("random").Random(0))
    common = agent.knowledge.extra["common"]
    assert {"iphone", "chair", "sofa"}.isdisjoint(common)
    assert {"price", "cash", "condition", "pick"} <= common
    flip = next(item for item in listings() if item.id.startswith("phone") and "flip" in item.title.lower())
    ok, why = context_fit("Can you tell me more about this Iphone?", partner_said="", lines=[flip.title, *flip.description], history=[], common=common)
    assert not ok and "iphone" in why

"""Reading a CaSiNo message with the dialogue before it (`understanding.read(text, context=...)`):
counts of the item under discussion, who gives which in a bare swap, answers to "how many do you
need?", lists going on in fragments, and the rule agent handing its reader the dialogue."""

from __future__ import annotations

from duologue.core.schema import Message
from duologue.tasks.casino import agents as casino_agents
from duologue.tasks.casino.understanding import Context, read
from duologue.tasks.casino.understanding_context import Hints, hints_of

PARTNER, SPEAKER = False, True


def offer(text: str, *turns: tuple[str, bool]) -> dict[str, int] | None:
    proposal = read(text, context=Context.of(list(turns)) if turns else None).proposal
    return None if proposal is None else {i: n for i, n in proposal.items() if n is not None} or None


def test_a_bare_count_is_of_the_item_under_discussion():
    asked = ("That makes sense. What is your need for food?", PARTNER)
    assert offer("I don't need much. How about you take 2 and I have 1?", asked) == {"Food": 1}
    wanted = ("I really need the firewood too. I was hoping for 3 packs too.", PARTNER)
    assert offer("Well we can't both get three. How about I get 2 and you get one?", wanted) == {"Firewood": 2}
    assert offer("Please let me have 2. Thanks a lot.", ("I do need firewood to use for train some students here.", SPEAKER)) == {"Firewood": 2}
    assert offer("So do I. Let me just get one please", ("But we can do with only 1 water. We do really need the food though", PARTNER)) == {"Food": 1}


def test_without_context_a_bare_count_stays_unread():
    assert offer("I don't need much. How about you take 2 and I have 1?") is None
    assert offer("Please let me have 2.") is None


def test_counts_of_totals_and_wishes_borrow_no_item():
    food = ("I feel it's only fair to have all of firewood, one water, and two food.", PARTNER)
    assert offer("you'd be taking 6 items and only leaving me 3. That doesn't seem fair.", food) is None
    assert offer("Okay, that doesn't work for me, because that means you get 7 items and I get 2.", food) is None
    assert offer("Well I didn't bring any with me so I really need two.", ("I'm going hiking, and I really need food.", PARTNER)) is None


def test_an_item_the_message_names_is_read_before_the_context():
    said = ("Hi.. hello, I need 3 pckage of firewoods wil this okay for you?", PARTNER)
    assert offer("I am in need of water, and would like 3 of that if possible. I would also like 2 foods", said) == {"Water": 3, "Food": 2}


def test_a_bare_swap_goes_the_way_the_speakers_lean():
    plenty = ("My brothers are bringing a chainsaw so if you need firewood we have plenty of it.", SPEAKER)
    buys = ("oh nice. i would love to buy some from you.", PARTNER)
    swap = "Maybe we can trade. I really need some food since I was not planning on them coming. 3 packs of firewood for 3 food?"
    assert offer(swap, plenty, buys) == {"Firewood": 0, "Food": 3}
    partner_wants = ("I would prefer to acquire more firewood, as the nights are very cold.", PARTNER)
    assert offer("how about 3 waters and 2 foods for 2 firewoods?", partner_wants) == {"Water": 3, "Food": 2, "Firewood": 1}
    assert offer("how about 3 waters and 2 foods for 2 firewoods?") is None  # alone it says not who gives which


def test_an_answer_to_how_many_is_the_speakers_own_ask():
    assert offer("In a perfect world, all the water", ("how many water you need?", PARTNER)) == {"Water": 3}


def test_a_list_goes_on_in_fragments():
    assert offer("No. We will take 1 firewood. All the food. 2 waters.") == {"Firewood": 1, "Food": 3, "Water": 2}
    assert offer("You will receive all three foods. 2 waters.") == {"Food": 0, "Water": 1}


def test_hints_only_what_the_message_can_use():
    context = Context.of([("I need food the most.", PARTNER), ("Water matters most to me.", SPEAKER)])
    hints = hints_of(context, read)
    assert hints is not None and hints.topic == "Water" and not hints.asked_amount
    assert hints.lean("Water") > 0 > hints.lean("Food")  # the speaker's needs count for, the partner's against
    assert hints == Hints(topic="Water", leaning=hints.leaning)
    assert hints_of(context, read, topic=False, leaning=False) is None
    assert hints_of(Context(), read) is None
    assert read("hello there!", context=context) == read("hello there!")


def test_the_rule_agent_reads_a_message_with_the_dialogue_before_it(monkeypatch):
    from tests.tasks.casino.test_agents import PERSON, play_with_person

    seen: list[tuple[str, Context | None]] = []

    def spy(text, *, context=None):
        seen.append((text, context))
        return read(text, context=context)

    monkeypatch.setattr(casino_agents, "read", spy)
    dialogue = play_with_person(["Hi! What do you need most?", "I really need water. How about I get 2 and you take 1?"], seed=0)
    text, context = next((t, c) for t, c in seen if t.startswith("I really need water"))
    messages = [e for e in dialogue.events if isinstance(e, Message)]
    before = messages[: [m.text for m in messages].index(text)]
    assert context is not None and [t.text for t in context.turns] == [m.text for m in before][-len(context.turns) :]
    assert [t.own for t in context.turns] == [m.party == PERSON for m in before][-len(context.turns) :]
    assert context.turns and any(not t.own for t in context.turns)


def test_a_counted_package_with_extra_is_of_the_item_named_before():
    said = "What are your thoughts on the packages of food? I brought excess food, but would like 1 additional package in reserve in case more guests show up."
    assert offer(said) == {"Food": 1}

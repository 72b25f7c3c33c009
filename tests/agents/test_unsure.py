"""The shared cues for words that cannot be taken at face value: every example a cue exists for
matches it, and the messages of the failures people met are marked unsure while plain ones are not."""

from __future__ import annotations

import pytest

from duologue.agents.unsure import ALL_CUES, confirm_question, doubt


@pytest.mark.parametrize("cue", ALL_CUES, ids=lambda cue: cue.name)
def test_every_cue_matches_the_examples_it_exists_for(cue):
    assert cue.examples
    for example in cue.examples:
        assert cue.pattern.search(example), (cue.name, example)


@pytest.mark.parametrize(
    "text",
    [
        "oh sure, 490 bucks, totally fair lol. thats less than half",
        "oh great, thanks, super helpful :/",
        "yeah right, like I'd give you all of it",
        "20 dollars?",
        "really? 500?",
    ],
)
def test_the_messages_people_meant_otherwise_are_unsure(text):
    assert doubt(text).unsure


@pytest.mark.parametrize(
    "text",
    ["Oh sure, that works for me!", "I could do 490 lol", "Does the $50 include delivery?", "would you take 20 dollars?", "deal!", "i need the hat"],
)
def test_plain_messages_are_taken_at_their_word(text):
    assert not doubt(text).unsure


def test_a_hedge_is_noted_but_does_not_stop_a_move():
    reading = doubt("i guess that could work")
    assert reading.hedged and not reading.unsure


def test_the_bot_asks_in_its_own_words():
    assert confirm_question("you'd take $490") == "Just to be sure: you'd take $490?"

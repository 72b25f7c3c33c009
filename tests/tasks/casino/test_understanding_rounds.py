"""CaSiNo offer families found in the fresh rounds 22-25 of the labelled set (`understanding_eval`)."""

from __future__ import annotations

import pytest

from duologue.tasks.casino.understanding import read

F, W, D = "Food", "Water", "Firewood"



@pytest.mark.parametrize(
    ("text", "share"),
    [
        ("I believe we can work with 1 food and 2 waters.", {F: 1, W: 2, D: None}),  # an acceptance that names the speaker's share
        ("Well this is perfect for me. I agree with 3 food and 1 water.", {F: 3, W: 1, D: None}),
        ("I drink a lot of water so would be willing to do 1 firewood, 2 water and 1 food.", {F: 1, W: 2, D: 1}),  # subject left out
        ("I think it's for the best that you get two packages of water, food and firewood.", {F: 1, W: 1, D: 1}),  # a count for each listed
        ("Yes. ME = 0 firewood, 3 water, and 2 food. YOU= 3 firewood, 0 water, and 1 food.", {F: 2, W: 3, D: 0}),
        ("Ill take one firewood and two of both water and food", {F: 2, W: 2, D: 1}),  # a count for both items named
        ("I could really use 3 packages of firewood--I just can't risk a cold night.", {F: None, W: None, D: 3}),  # a dash ends the clause
    ],
)
def test_reads_offer_families_of_rounds_22_to_25(text, share):
    assert read(text).proposal == share


@pytest.mark.parametrize("text", ["I agree with you.", "I can work with that.", "Are you willing to do 1 food and 2 water?"])
def test_acceptance_phrases_without_a_share_of_the_speaker_are_no_offer(text):
    assert read(text).proposal is None


@pytest.mark.parametrize(
    ("text", "share"),
    [
        ("I could have 3 Firewood, 3 Food, and you can have all of the water? I have a water supply nearby.", {F: 3, W: 0, D: 3}),  # an item word naming something else
        ("Offer, 3 water, 2 food, 1 firewood", {F: 2, W: 3, D: 1}),  # a list opened by "offer" is the speaker's ask
        ("I'll take 2 water bottles and 1 food", {F: 1, W: 2, D: None}),
    ],
)
def test_reads_offer_families_of_rounds_26_to_28(text, share):
    assert read(text).proposal == share

"""The message reader on human-like lines: typos, shorthand, negation, several cues at once."""

import pytest

from duologue.tasks.craigslist.reading import normalize, read_message


@pytest.mark.parametrize(
    "text",
    ["ok deal", "okey dokey, sounds goood", "sure thing!", "Alright, you got a deal", "yep that works for me", "deal!", "Perfect, I'll take it", "fine by me", "dael"],
)
def test_agreement(text):
    reading = read_message(text)
    assert reading.agree and not reading.disagree


@pytest.mark.parametrize(
    "text",
    ["no deal", "nah thats too much", "that's not ok", "sorry, that doesn't work for me", "way too high", "I can't do that", "not really", "im not sure about that"],
)
def test_disagreement(text):
    reading = read_message(text)
    assert reading.disagree and not reading.agree


@pytest.mark.parametrize("text", ["no problem, happy to help", "no worries!"])
def test_phrases_with_no_that_are_not_refusals(text):
    assert not read_message(text).disagree


def test_questions_and_price_questions():
    assert read_message("is it still available").question
    assert read_message("does it come w the charger?").question
    assert not read_message("It comes with the charger.").question
    for text in ["whats the lowest u would go", "is the price negotiable?", "how much do you want for it", "what's your best price?", "r u flexible on price"]:
        assert read_message(text).asks_price, text
    assert not read_message("how old is it?").asks_price


def test_greeting_and_leaving():
    assert read_message("Hey there! interested in the bike").greeting
    assert read_message("no thanks, I'll look elsewhere. bye").leaving
    assert not read_message("hey is it available").leaving


def test_one_message_with_several_cues():
    reading = read_message("hi! is it still available? would you take 150?", listing_price=200)
    assert reading.greeting and reading.question and reading.price == 150


def test_refused_price_and_counter():
    reading = read_message("cant do 120, 135 is my max", listing_price=140)
    assert reading.price == 135
    assert reading.refused == [120]
    assert reading.disagree


def test_relative_amount():
    reading = read_message("could u knock 20 bucks off", listing_price=140)
    assert reading.price is None and reading.relative == 20


def test_normalize_fixes_shorthand_and_typos():
    assert normalize("thx, u r great") == "thanks, you are great"
    assert normalize("sooooo goood") == "soo good"
    assert "negotiable" in normalize("is it negotible?")


@pytest.mark.parametrize(
    "text",
    [
        "What would you suggest?", "what do you have in mind?", "what's your best price?", "make me an offer",
        "what can you do?", "What are you thinking?", "What would work for you?", "What could you pay?",
        "how much would you pay for it?", "Name your price",
    ],
)
def test_asks_for_a_price(text):
    assert read_message(text, listing_price=100).asks_price


@pytest.mark.parametrize("text", ["What are you thinking about the color?", "what can you do about the scratch?", "What do you think?", "how much is the deposit"])
def test_questions_that_do_not_ask_for_a_price(text):
    assert not read_message(text, listing_price=100).asks_price


@pytest.mark.parametrize("text", ["Okay.", "Sounds good", "deal", "that works", "OK!", "That works for me.", "Okay, but I will pick it up tomorrow"])
def test_short_assents_agree(text):
    reading = read_message(text, listing_price=100)
    assert reading.agree and not reading.disagree


@pytest.mark.parametrize("text", ["okay but that's too much", "sounds good but I need it cheaper", "ok but not at that price", "Okay, but can you go lower?", "Hmm, let me think about it.", "I see."])
def test_an_assent_taken_back_or_no_assent_is_not_agreement(text):
    assert not read_message(text, listing_price=100).agree


def test_being_out_front_is_not_leaving():
    assert not read_message("I'm out front, hold on", listing_price=50).leaving
    assert read_message("forget it, I'm out", listing_price=50).leaving

"""The price finder on prices written the ways people write them, and on numbers that are not prices."""

import pytest

from duologue.tasks.craigslist.prices import find_price, find_prices, listing_numbers

IPHONE = ["iPhone 7 32GB unlocked, rose gold", "iPhone 7, 32GB, unlocked for any carrier.", "Battery health 86%."]
CIVIC = ["2012 Honda Civic LX, clean title", "2012 Civic LX sedan, automatic, 98k miles.", "New tires and brakes last year."]
CONDO = ["2 bed 2 bath condo with garage", "Price: $2,440 (14 Month Lease)", "1389 Jefferson Street", "Paid $900 deposit last year"]

# (text, listing price, listing text, the price the speaker proposes)
CASES = [
    ("I can do $1,200 for it", 1500, [], 1200),
    ("how about 1.2k?", 1500, [], 1200),
    ("1.5K and it's yours", 1500, [], 1500),
    ("I'd give you 1200 bucks", 1500, [], 1200),
    ("1200$ cash", 1500, [], 1200),
    ("would you take twelve hundred?", 1500, [], 1200),
    ("how about one fifty", 200, [], 150),
    ("three hundred and fifty dollars is my limit", 400, [], 350),
    ("fifty bucks and its yours", 60, [], 50),
    ("I can go for forty", 60, [], 40),
    ("2 grand?", 2450, [], 2000),
    ("ok, 5 hundred then", 650, [], 500),
    ("a grand even?", 1400, [], 1000),
    ("120.50 is my final", 140, [], 120.5),
    ("it's a 2015 model, asking 12000", 14900, [], 12000),
    ("I can pay 2000 a month", 2150, [], 2000),
    ("since 2015 I had it. would u do 1900", 2150, [], 1900),
    ("the iPhone 7 is nice, I'd pay 100", 140, IPHONE, 100),
    ("is the iphone 7 unlocked?", 140, IPHONE, None),
    ("32GB is enough for me", 140, IPHONE, None),
    ("battery at 86% is fine", 140, IPHONE, None),
    ("I have 2 kids and need 3 chairs, can you do 150?", 275, [], 150),
    ("it has 98k miles, I can do 6500", 7800, CIVIC, 6500),
    ("my 2012 civic was great too", 7800, CIVIC, None),
    ("can't do 100, but 120 works", 140, [], 120),
    ("no way, 90 is too low. 120 and we have a deal", 140, [], 120),
    ("I can't go lower than 150", 200, [], 150),
    ("I cannot pay more than $175", 200, [], 175),
    ("knock $50 off?", 400, [], None),
    ("call me at 510-555-1234 tomorrow at 5pm", 400, [], None),
    ("I'll pay 150 in cash", 200, [], 150),
    ("I'll give you 200000", 2000, [], None),
    ("its an 18 month lease; 2,100?", 2450, [], 2100),
    ("$1850/mo works", 2000, [], 1850),
    ("1850/mo works", 2000, [], 1850),
    ("i can do 2440", 2440, CONDO, 2440),
    ("you paid $900 deposit?", 2440, CONDO, None),
    ("I live at 1389 Jefferson too", 2440, CONDO, None),
    ("Meet me at $2,300?", 2440, CONDO, 2300),
    ("can you do 7.5?", 10, [], 7.5),
    ("sounds good!", 300, [], None),
    ("ok 260 it is", 300, [], 260),
    ("is 3pm ok? it's 1/2 block away", 300, [], None),
    # ranges are read as the price they start at
    ("between 1500 and 2500", 3000, [], 1500),
    ("I was thinking 45-50", 75, [], 45),
    ("$45 - $50?", 75, [], 45),
    ("anywhere from 200 to 250", 300, [], 200),
    # a refusal belongs to the price it refuses, a limit is still a price
    ("I do not have the full amount of $3992 I can afford $2794", 3992, [], 2794),
    ("No way I can go south of 400", 499, [], 400),
    ("I don't think I could do better than $5500", 7900, [], 5500),
    ("$10995 is a bit much", 10995, [], None),
    ("2800 is out of my budget", 2800, [], None),
    # prices of other things, valuations and the other side's quoted ask
    ("I bought an S6 last week for $30", 60, [], None),
    ("I bought an S6 last week for $30, so I can give you 40 for this", 60, [], 40),
    ("saw one on amazon for 115", 150, [], None),
    ("It's worth $70, so $65 is a deal already", 65, [], 65),
    ("the deposit is $500", 2000, [], None),
    ("$500 deposit and first month", 2000, [], None),
    ("I could do 2200, and the fee is 300", 2400, [], 2200),
    ("I see you are asking for $1825, do you have any move in specials?", 1825, [], None),
    ("are you firm at 60$?", 60, [], None),
    ("I am firm at $60", 60, [], 60),
    ("I really wanted $30 but I'll accept your offer", 30, [], None),
    # amounts off: asked for, or conceded off one's own price
    ("can you do 20 less", 200, [], None),
    ("I am asking $600. I can take $50 off if you pick it up tonight", 600, [], 550),
    ("can you take $50 off?", 600, [], None),
    ("I'm firm on the $30,600. Ill knock off the $600 if you take it this week", 30600, [], 30000),
    # year-shaped prices, measures and counts
    ("Does 2000 sound good?", 2200, [], 2000),
    ("18 hundred?", 2000, [], 1800),
    ("how about two fifty", 300, [], 250),
    ("each shelf holds up to 250 pounds", 499, [], None),
    ('It\'s 47" long and 26.5" high', 120, [], None),
    ("I can throw in 4 ink cartridges", 10, [], None),
    ("$45 and 31 cents", 50, [], 45),
    ("$1,850 a month", 2000, [], 1850),
    ("I was hoping to only pay a $1000 month.", 1810, [], 1000),
    ("That could work. I will pay the 2000.", 2495, [], 2000),
    # a negation ends where the speaker starts a new `I ...`; `I don't think I ...` still refuses
    ("it has no damage I would like to get $340 for it", 349, [], 340),
    ("since it is not technically new I'd be willing to accept 2750", 3000, [], 2750),
    ("I don't think I could do 100", 150, [], None),
    ("$90 seems a little low", 150, [], None),
    ("12 dollars is ignorantly low", 20, [], None),
    ("I'm willing to pay your asking price of $13500 if you deliver it", 13500, [], 13500),
    ('Could we meet at the "new" middle of $250?', 400, [], 250),
    ("new ones sell for $300", 400, [], None),
    ("I can make the deal if you lower it $500", 2000, [], None),
    ("I was hoping to save at least 100-200 on the rent", 1795, [], None),
]


@pytest.mark.parametrize(("text", "listing_price", "listing_text", "expected"), CASES)
def test_finds_the_proposed_price(text, listing_price, listing_text, expected):
    assert find_price(text, listing_price=listing_price, listing_text=listing_text) == expected


def test_refused_relative_and_marked_prices_are_flagged():
    refused, proposed = find_prices("I can't do $100, but 120 bucks works", listing_price=140)
    assert (refused.value, refused.negated, refused.marked, refused.text) == (100, True, True, "$100")
    assert (proposed.value, proposed.negated, proposed.marked, proposed.text) == (120, False, True, "120 bucks")
    [off] = find_prices("could you knock $20 off", listing_price=140)
    assert off.relative and off.value == 20
    [limit] = find_prices("150 or less", listing_price=200)
    assert not limit.relative


def test_spans_point_at_the_text():
    text = "hi! twelve hundred, or 1.3k at most"
    mentions = find_prices(text, listing_price=1500)
    assert [text[m.start:m.end] for m in mentions] == ["twelve hundred", "1.3k"]
    assert [m.value for m in mentions] == [1200, 1300]


def test_without_a_listing_numbers_are_still_told_apart():
    assert find_price("would you take $80?") == 80
    assert find_price("I bought it in 2015") is None
    assert find_price("i'd pay 2015 for it") == 2015  # a year-shaped number with a price word before it


def test_numbers_far_above_the_listing_are_not_prices():
    assert find_price("I'd pay $900", listing_price=300) is None
    assert find_price("I'd pay $600", listing_price=300) == 600


def test_listing_numbers_reads_plain_money_and_k():
    numbers, money = listing_numbers(["98k miles, paid $900", "2 owners"])
    assert {98, 98000, 900, 2} <= numbers
    assert money == {900}

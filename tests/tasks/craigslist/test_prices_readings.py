"""The price finder on phrasings that fresh batches of real Craigslist messages showed it misread."""

import pytest

from duologue.tasks.craigslist.prices import find_price

# (text, listing price, the price the speaker puts forward or None)
CASES = [
    # the other side's ask quoted back is not put forward
    ("I see you are selling it for $5100, I was hoping for about $4000.", 5100, 4000),
    ("I see you're offering 3500 for this car, will you negotiate?", 3500, None),
    ("How firm are you on the $190 you are asking?", 190, None),
    ("What about the 250 you listed?", 250, None),
    ("Is that $290 a month?", 6400, None),
    # `let you have it for` is the speaker's own price, not a quote of the listing
    ("I'll let you have it for $18 if you come today", 20, 18),
    # refusals said with a modal or a typo
    ("i think 2250 might be a bit of an upsell", 2250, None),
    ("$400 would be a stretch for me", 450, None),
    ("$2050 sounds a little to high for me", 2050, None),
    ("I feel that 5000 is a little on the low side", 10995, None),
    ("$5000 doesn't cover it", 6400, None),
    ("$300 isn't enough for this bike", 400, None),
    ("I think 2250 is a lot for such a small space", 2250, None),
    # idioms that refuse nothing, and a limit after a refusal
    ("if you do not mind, may you accept my offer of $1500", 2100, 1500),
    ("no problem, I can do 90", 100, 90),
    ("i really can't go that high my limit would be $3031", 3295, 3031),
    ("I'm sorry, I'm not moving from $20. It's already cheap", 20, 20),
    ("I won't budge on 500", 600, 500),
    # a count of items, not a price
    ("are you interested in just 1 or all of them?", 2, None),
    # a comparison is not a price put forward, but a bounded one is a limit
    ("would you be willing to go a bit lower than 250?", 250, None),
    ("It has less than 3000 miles", 3500, None),
    ("I can't go lower than 150", 200, 150),
    ("I will take nothing less than 45", 50, 45),
    # prices somewhere else are valuations
    ("in a bike shop one like this could go for $900 easily", 650, None),
    ("I'll let it go for $600", 650, 600),
    # a bare `no` answers, then counters; `not $2000?` asks for it
    ("no 152", 200, 152),
    ("nope 140", 200, 140),
    ("not $2000?", 2495, 2000),
    ("not 2000", 2495, None),
    # a budget after `a` is a price, not an attribute
    ("Can you go lower? I have a $1400 budget", 1950, 1400),
    # thousands of miles, money spent on the item, other bills
    ("It still has about 16k miles on it", 10500, None),
    ("It only has 15K for the mileage", 30600, None),
    ("I just poured 2k into this car", 8400, None),
    ("the phone bill shouldn't be more than 10$", 80, None),
    ("the highest i can go is 1800 + deposit", 2250, 1800),
    ("I can pay 1800 plus utilities", 2250, 1800),
    ("Since utilities are included I could do 2150", 2450, 2150),
    # an amount off in the next sentence leaves the price before it alone
    ("They are $220. $80 off retail!", 220, 220),
    # amounts to move by or to put towards something
    ("we could put 500 towards that difference", 1585, None),
    ("I can go up a thousand", 3295, None),
    ("Could you come down 50?", 300, None),
    ("I could go up to 250", 300, 250),
    # parts of a price named first
    ("So $137, of which $112 in cash and $25 as a gift card?", 160, 137),
    # what it cost becomes the limit when the speaker says so
    ("I paid $60 for this, so I'm not going any lower than that", 65, 60),
    ("I paid $60 for this and it works great", 65, None),
]


@pytest.mark.parametrize(("text", "listed", "price"), CASES)
def test_reads_the_price_put_forward(text, listed, price):
    got = find_price(text, listing_price=listed)
    assert got == (pytest.approx(price) if price is not None else None), (text, got)

"""Find the prices in what people write while bargaining over a Craigslist listing.

People write prices in many ways: `$1,200`, `1200$`, `1.2k`, `2 grand`, `1200 bucks`,
`120.50`, `twelve hundred`, `one fifty`, `three hundred and fifty dollars`. They also write
numbers that are not prices: years (`a 2012 Civic`), model numbers (`iPhone 7`, `PS4`),
quantities and measures (`2 chairs`, `32GB`, `18 month lease`, `5pm`, `86%`), phone numbers,
and numbers copied from the listing (`98k miles`). This module tells them apart with rules that
only need the text and, when known, the listing (its price and its text):

* a number glued to letters (`s8`, `ps4`, `32gb`) or followed by a unit (`inch`, `miles`,
  `months`, `pm`) is not a price; `k` / `grand` multiply by 1000;
* a year-shaped number (1950-2035) without a currency mark is a year unless a price word comes
  before it (`pay`, `for`, `do`, `about` ...) and it is a plausible price for the listing;
* a number right after a product word (`iphone`, `galaxy`, `model`, `gen`) is a model number;
* with a listing price, an unmarked number below 10% of it is a quantity, and any number more
  than `max_ratio` (2x) above it is not a price;
* a number that appears in the listing's own text is not a price, unless it is the listing price
  (people repeat the asking price) or the person marks it as money and the listing did not;
* the words around each number (`price_context.py`) tell whether it is refused (`I can't do 100`,
  `90 is too low`: `negated`), an amount off or on top (`$50 off`, `knock 20`: `relative`), or a
  valuation, another cost or the other side's price (`I paid 300`, `you are asking 600`: `reference`).

`find_prices` returns every mention with these flags; `find_price` picks the one a speaker most
likely proposes (the last price that is neither refused, relative nor a valuation). This is the
reading the rule agent bargains with.

How each kind of writing is found (digits, words, shares of the listing, slang) lives in `price_mentions.py`;
this module decides which of the mentions found are prices and which one is put forward.

The corpus's own labels (`metadata.price`) come from CoCoA's parser, which reads prices more
literally; `price_tracker.py` reproduces that reading (`parser_tokens`, `tracked_prices`), and
this module re-exports it.
"""

from __future__ import annotations

import re
from typing import Iterable, Sequence

from duologue.tasks.craigslist.price_context import clause_before
from duologue.tasks.craigslist.price_mentions import NUMBER, YEAR_CUES, PriceMention, digit_mentions, share_mentions, to_float, word_mentions
from duologue.tasks.craigslist.price_tracker import (
    NOT_PRICE_RIGHT_CONTEXT,
    PARSER_MAX_RATIO,
    PRICE_LEFT_CONTEXT,
    TrackedPrice,
    listing_token_numbers,
    parser_tokens,
    token_number,
    tracked_prices,
)

__all__ = [
    "MAX_RATIO", "NOT_PRICE_RIGHT_CONTEXT", "PARSER_MAX_RATIO", "PRICE_LEFT_CONTEXT", "PriceMention", "TrackedPrice",
    "find_price", "find_prices", "listing_numbers", "listing_token_numbers", "parser_tokens", "proposed", "token_number",
    "tracked_prices",
]

MAX_RATIO = 2.0
"""Numbers more than this many times the listing price are not prices."""
MIN_UNMARKED_RATIO = 0.1
"""Unmarked numbers below this fraction of the listing price are quantities, not prices."""
SMALL_MARGIN = 20.0
"""For cheap listings, a price written as money may exceed `max_ratio` times the listing by this much."""


def listing_numbers(lines: Iterable[str]) -> tuple[set[float], set[float]]:
    """(numbers, money): every number written in the listing's text, and those written as money."""
    numbers: set[float] = set()
    money: set[float] = set()
    for line in lines:
        for match in NUMBER.finditer(line):
            value = to_float(match.group("num"))
            if value is None:
                continue
            numbers.add(value)
            before = line[max(0, match.start() - 2):match.start()]
            if "$" in before:
                money.add(value)
            suffix = line[match.end():match.end() + 2].lower()
            if suffix.startswith("k") and not suffix[1:2].isalpha():
                numbers.add(value * 1000)
    return numbers, money



# ---------------------------------------------------------------------- public


def find_prices(
    text: str,
    *,
    listing_price: float | None = None,
    listing_text: Iterable[str] = (),
    max_ratio: float = MAX_RATIO,
) -> list[PriceMention]:
    """Every price mentioned in `text`, in order, with flags for refused and relative amounts.

    listing_price: the asking price, to drop numbers far above it and unmarked tiny numbers.
    listing_text: the listing's title and description lines; numbers copied from them are not prices.
    """
    numbers, money = listing_numbers(listing_text)
    mentions: list[PriceMention] = []
    for mention, year_shaped, context, previous in digit_mentions(text):
        if mention.value <= 0:
            continue
        if year_shaped:
            plausible = listing_price is None or listing_price <= 0 or 0.25 * listing_price <= mention.value <= 1.5 * listing_price
            if previous in YEAR_CUES or not context or not plausible:
                continue  # `a 2012 civic`, `since 2015`; but `I can pay 2000` for a 2,150 rent is a price
        mentions.append(mention)
    mentions.extend(word_mentions(text))
    shares = share_mentions(text, listing_price)
    mentions = [m for m in mentions if not any(s.start <= m.start < s.end for s in shares)] + shares
    kept = []
    for mention in sorted(mentions, key=lambda m: m.start):
        value = mention.value
        if listing_price is not None and listing_price > 0:
            if value > max_ratio * listing_price and not (mention.marked and value <= listing_price + SMALL_MARGIN):
                continue  # but `the lowest I can go is $8` for a $2 listing is a price
            if not mention.marked and not mention.relative and value < MIN_UNMARKED_RATIO * listing_price:
                continue
            if value != listing_price and ((value in numbers and not mention.marked) or value in money):
                continue
        elif value in numbers and not mention.marked:
            continue
        kept.append(mention)
    return _concessions_applied(text, _ranges_opened(text, kept))


CONCEDING = frozenset({"take", "knock", "drop", "give", "cut", "shave", "lower", "discount", "come", "go", "do"})
SELF = frozenset({"i", "ill", "id", "im", "i'll", "i'd", "i'm", "we", "we'll", "we'd", "we're"})
OTHERS = frozenset({"you", "you'll", "you'd", "you're", "u", "he", "she", "they"})


def _concessions_applied(text: str, mentions: list[PriceMention]) -> list[PriceMention]:
    """`I am asking $600. I can take $50 off`: the speaker's own amount off their own price names a new price (550).

    Only when the speaker concedes (`I can knock 20 off`); `can you knock 20 off` asks for one and stays relative.
    """
    result = list(mentions)
    for position, mention in enumerate(mentions):
        off_after = re.match(r"\s*(?:dollars?|bucks?)?\s*(?:off|less|cheaper|lower|discount|down)\b", text[mention.end:].lower())
        if not mention.relative or not (off_after or re.search(r"\boff\s+(?:the\s+)?\$?\s*$", text[:mention.start].lower())):
            continue
        base = proposed(mentions[:position])
        clause = clause_before(text, mention.start)
        verbs = [i for i, word in enumerate(clause) if word in CONCEDING]
        if base is None or base.value <= mention.value or not verbs:
            continue
        speaker = [word for word in clause[:verbs[-1]] if word in SELF or word in OTHERS]
        if speaker and speaker[-1] in SELF:
            result.append(PriceMention(value=base.value - mention.value, text=mention.text, start=mention.start, end=mention.end, marked=base.marked))
    return sorted(result, key=lambda m: (m.start, m.relative))


_RANGE_GAP = re.compile(r"\s*(?:-|–|to)\s*$")


def _ranges_opened(text: str, mentions: list[PriceMention]) -> list[PriceMention]:
    """`between 1500 and 2500`, `45-50`, `300 to 350`: a range is read as the price it starts at (its top is dropped)."""
    kept: list[PriceMention] = []
    for mention in mentions:
        if kept and not mention.relative and kept[-1].value < mention.value:
            low = kept[-1]
            gap = text[low.end:mention.start].lower()
            between = re.search(r"\bbetween\s*$", text[:low.start].lower()) and re.fullmatch(r"\s*and\s*", gap)
            if between or _RANGE_GAP.fullmatch(gap):
                continue
        kept.append(mention)
    return kept


def find_price(
    text: str,
    *,
    listing_price: float | None = None,
    listing_text: Iterable[str] = (),
    max_ratio: float = MAX_RATIO,
) -> float | None:
    """The price a speaker most likely proposes in `text`: the last one neither refused nor relative."""
    mentions = find_prices(text, listing_price=listing_price, listing_text=listing_text, max_ratio=max_ratio)
    proposal = proposed(mentions)
    return proposal.value if proposal is not None else None


def proposed(mentions: Sequence[PriceMention]) -> PriceMention | None:
    """The mention a speaker puts forward: the last one neither refused, relative nor a valuation."""
    proposals = [m for m in mentions if not m.relative and not m.negated and not m.reference]
    return proposals[-1] if proposals else None

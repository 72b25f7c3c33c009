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

The corpus's own labels (`metadata.price`) come from CoCoA's parser, which reads prices more
literally; `price_tracker.py` reproduces that reading (`parser_tokens`, `tracked_prices`), and
this module re-exports it.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Iterable, Sequence

from duologue.tasks.craigslist.price_context import CURRENCY_AFTER, RELATIVE_AFTER, clause_before, is_relative, judge, words_after, words_before
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
from duologue.tasks.craigslist.price_words import SCALE_WORDS, TENS_WORDS, UNIT_WORDS, number_value, word_tokens

__all__ = [
    "MAX_RATIO", "NOT_PRICE_RIGHT_CONTEXT", "PARSER_MAX_RATIO", "PRICE_LEFT_CONTEXT", "PriceMention", "TrackedPrice",
    "find_price", "find_prices", "listing_numbers", "listing_token_numbers", "parser_tokens", "proposed", "token_number",
    "tracked_prices",
]

MAX_RATIO = 2.0
"""Numbers more than this many times the listing price are not prices."""
MIN_UNMARKED_RATIO = 0.1
"""Unmarked numbers below this fraction of the listing price are quantities, not prices."""
YEARS = (1950, 2035)
SMALL_MARGIN = 20.0
"""For cheap listings, a price written as money may exceed `max_ratio` times the listing by this much."""
MILEAGE = frozenset({"miles", "mileage", "millage", "milage", "odometer", "clock"})
COUNTED = frozenset({"the", "them", "these", "those", "my", "your", "our", "its", "it", "each"})

UNITS = frozenset(
    """
    gb tb mb kb ghz mhz mp megapixel megapixels inch inches ft feet foot sq sqft square mile miles mi km mph
    lb lbs kg mm cm hp cc speed speeds gear gears bed beds bedroom bedrooms br bd bath baths bathroom bathrooms ba
    year years yr yrs yo month months mo mos week weeks wk wks day days hour hours hr hrs min mins minute minutes
    second seconds sec secs pm am percent x times people person persons kid kids owner owners seater seat seats
    drawer drawers piece pieces pcs pc chair chairs shelf shelves game games controller controllers lens lenses
    battery batteries watt watts w v volt volts core cores bar bars unit units block blocks star stars wheel wheels
    cylinder cylinders door doors room rooms floor floors story stories th st nd rd gen generation
    ways way tab tabs item items thing things cycle cycles spot spots stop stops
    pound pounds oz ounce ounces gallon gallons liter liters litre litres acre acres ton tons cent cents
    """.split()
)
"""Words that, right after a number, make it a count or a measure rather than a price."""

THOUSAND_AFTER = frozenset({"k", "grand", "thousand"})
PRODUCT_WORDS = frozenset(
    """
    iphone iphones galaxy note pixel model series version ver gen generation ipad macbook xbox playstation ps windows
    ios android size apt unit suite route highway hwy moto rebel civic mazda kindle watch level grade class type
    """.split()
)
"""Words after which a number names a model, a version or a size, not a price."""

PRICE_CONTEXT = frozenset(
    """
    pay paying paid offer offering offered take taking do doing give giving sell selling sold price priced for at
    about around how what meet go going budget max maximum only asking ask accept settle deal cash would could can
    is be was it's its to than under below over above least most just like say said says try make let lowest
    highest best bid spend spending afford firm stay come down up drop
    """.split()
)
"""Words that, within the three words before a number, suggest that the number is a price."""

PAYING = frozenset({"pay", "take", "do", "offer", "accept", "give", "meet"})
YEAR_CUES = frozenset({"in", "since", "from", "year", "model", "a", "an", "the", "my", "built", "made", "circa", "until", "till", "before", "after", "of", "bought", "got"})
PRICE_AFTER = frozenset({"sound", "sounds", "work", "works", "ok", "okay", "cash", "firm", "obo", "total", "max", "tops", "flat"})
"""Words right after a year-shaped number that make it a price (`does 2000 sound good?`)."""
SLANG_PRICES = {"tenner": 10.0, "fiver": 5.0, "c-note": 100.0, "c note": 100.0, "hundo": 100.0, "grand": 1000.0}
"""Money words with a value of their own (`a tenner`)."""
FRACTIONS = {"half": 0.5, "a half": 0.5, "a third": 1 / 3, "one third": 1 / 3, "a quarter": 0.25, "one quarter": 0.25,
             "two thirds": 2 / 3, "three quarters": 0.75, "three fourths": 0.75}
"""Shares of the listing price people name (`half the asking price`)."""
KEEP_AFTER_ARTICLE = frozenset({"and", "or", "for", "cash", "total", "firm", "even", "flat", "obo", "is", "deal", "sound", "sounds", "max", "tops", "only", "then", "please", "now", "today", "price", "offer", "bill",
                                "month", "monthly", "mo", "per", "a", "each", "rent",
                                "budget", "limit", "maximum", "cap", "ceiling"})
"""After `a $20 ...`, words that keep the number a price; any other word makes it an attribute (`a $20 case`)."""


_PHONE = re.compile(r"\(?\b\d{3}\)?[-.\s]\d{3}[-.\s]\d{4}\b")
_NUMBER = re.compile(r"(?<![\w.])(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)")


@dataclass(frozen=True)
class PriceMention:
    """One price found in a text, where it was, and how it was said."""

    value: float
    text: str
    """The span as written (`$1,200`, `twelve hundred`)."""
    start: int
    end: int
    marked: bool = False
    """Written as money: a currency sign or word, `k` or `grand`."""
    relative: bool = False
    """An amount off or on top of a price (`$50 off`), not a price."""
    negated: bool = False
    """Refused in its clause (`I can't do 100`)."""
    reference: bool = False
    """What the item is worth or cost elsewhere (`I paid 300`, `the kbb is 5k`), not a price put forward."""


def listing_numbers(lines: Iterable[str]) -> tuple[set[float], set[float]]:
    """(numbers, money): every number written in the listing's text, and those written as money."""
    numbers: set[float] = set()
    money: set[float] = set()
    for line in lines:
        for match in _NUMBER.finditer(line):
            value = _to_float(match.group("num"))
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


def _to_float(digits: str) -> float | None:
    """The number the digits write, or None; a number too long for a float (inf) is no price."""
    try:
        value = float(digits.replace(",", ""))
    except ValueError:
        return None
    return value if math.isfinite(value) else None


# ---------------------------------------------------------------------- digits


def _digit_mentions(text: str) -> list[tuple[PriceMention, bool, bool, str | None]]:
    """(mention, year_shaped, in_price_context, word before) for each number in digits that could be a price."""
    found = []
    masked = _PHONE.sub(lambda m: " " * len(m.group()), text)
    lowered = masked.lower()
    for match in _NUMBER.finditer(masked):
        start, end = match.span()
        digits = match.group("num")
        value = _to_float(digits)
        if value is None or (start > 0 and masked[start - 1] in ":/#"):
            continue
        if re.match(r"(:\d|/\d|%|°)", masked[end:]) or (re.match(r"[\"”″]", masked[end:]) and (start == 0 or masked[start - 1] not in "\"“")):
            continue  # times, dates, fractions, percentages, inches (`47" long`)
        marked = False
        thousands = False
        glued = re.match(r"[a-z]+", lowered[end:])
        if glued:
            word = glued.group()
            if word not in ("k", "grand") and word not in CURRENCY_AFTER:
                continue  # `32gb`, `5pm`, `2nd`, `2.5i`
            if word in ("k", "grand"):
                value *= 1000
                thousands = True
            marked = True
            end += glued.end()
        else:
            spaced = re.match(r"\s+(k|grand|thousand|hundred)\b", lowered[end:])
            if spaced:
                value *= 100 if spaced.group(1) == "hundred" else 1000
                marked = True
                end += spaced.end()
        dollar = re.search(r"(\$|usd)\s?$", lowered[:start])
        if dollar:
            marked = True
            start = dollar.start()
        trailing = re.match(r"\s?(\$|dollars?\b|bucks?\b|usd\b|dlls\b|bux\b)", lowered[end:])
        if trailing:
            marked = True
            end += trailing.end()
        monthly = re.match(r"\s*(/|per\b|a\b)\s*(mo|mos|month|mth|mon)\b", lowered[end:])
        after = [w for w in words_after(masked, end, 4) if w != "$"]
        if after and after[0] in UNITS and not marked and not monthly:
            continue  # `2 chairs`, `18 month lease`, `5 pm`; but `$1,850 month to month` and `1850/mo` are rents
        if thousands and not dollar and not trailing and after[:1] and (after[0] in UNITS or (after[0] in ("for", "on", "of") and MILEAGE & set(after[1:3]))):
            continue  # `16k miles`, `15K for the millage`: the `k` counts miles, not dollars
        preceding = re.search(r"([a-z]+)\s*$", lowered[:start])
        if preceding and preceding.group(1) in PRODUCT_WORDS and not marked:
            continue  # `iphone 7`, `model 3`, `gen 2`
        before = words_before(masked, start, 4)
        if not marked and after[:1] == ["of"] and after[1:2] and after[1] in COUNTED:
            continue  # `3 of the selfie clickers`, `2 of them`
        if not marked and after[:2] in (["or", "all"], ["or", "both"]):
            continue  # `just 1 or all of them?`
        if not marked and (before[-2:] in (["throw", "in"], ["threw", "in"], ["throwing", "in"], ["toss", "in"]) or before[-1:] in (["include"], ["including"])):
            continue  # `I can throw in 4 ink cartridges`: a count of extras
        if before[-1:] in (["a"], ["an"]) and after and after[0].isalpha() and after[0] not in KEEP_AFTER_ARTICLE | CURRENCY_AFTER | RELATIVE_AFTER:
            continue  # `a $20 case`, `a 30 minute drive`: an attribute of something else
        year_shaped = "." not in digits and "," not in digits and YEARS[0] <= value <= YEARS[1] and not marked
        context = any(word in PRICE_CONTEXT for word in before[-3:]) or after[:1] in ([w] for w in PRICE_AFTER) or bool(monthly)
        judged = judge(masked, start, end)
        mention = PriceMention(
            value=value, text=text[start:end], start=start, end=end, marked=marked,
            relative=is_relative(before, after), negated=judged[0], reference=judged[1],
        )
        previous = before[-1] if before else None
        if previous == "the" and before[-2:-1] and before[-2] in PAYING:
            previous = None  # `I will pay the 2000`: the price said before, not a model year
        found.append((mention, year_shaped, context, previous))
    return found


# ---------------------------------------------------------------------- words


def _word_mentions(text: str) -> list[PriceMention]:
    """Prices written in words: `twelve hundred`, `fifty bucks`, `a grand`, `for forty`."""
    tokens = word_tokens(text)
    number_words = set(UNIT_WORDS) | set(TENS_WORDS) | set(SCALE_WORDS)
    found: list[PriceMention] = []
    index = 0
    while index < len(tokens):
        word, start, _ = tokens[index]
        if word not in number_words and not (word == "a" and index + 1 < len(tokens) and tokens[index + 1][0] in SCALE_WORDS):
            index += 1
            continue
        run = [] if word == "a" else [word]
        end_index = index + 1
        while end_index < len(tokens):
            next_word = tokens[end_index][0]
            gap = text[tokens[end_index - 1][2]:tokens[end_index][1]]
            if next_word in number_words or (next_word == "and" and end_index + 1 < len(tokens) and tokens[end_index + 1][0] in number_words):
                if gap.strip(" -") == "":
                    run.append(next_word)
                    end_index += 1
                    continue
            break
        end = tokens[end_index - 1][2]
        index = end_index
        if not run or (run[0] in SCALE_WORDS and word != "a"):
            continue
        parsed = number_value(run)
        if parsed is None:
            continue
        value, strong = parsed
        after = words_after(text, end, 4)
        before = words_before(text, start, 4)
        marked = bool(after) and (after[0] in CURRENCY_AFTER or after[0] == "$")
        if run[-1] == "grand":
            marked = True
        if after and after[0] in UNITS and not marked:
            continue
        context = any(w in PRICE_CONTEXT for w in before[-3:])
        if not (strong or marked or context) or value < 2:
            continue
        span_end = end
        if marked and after and after[0] in CURRENCY_AFTER:
            currency = re.match(r"\s*\w+", text[end:])  # the currency word checked just above
            span_end = end + (currency.end() if currency else 0)
        judged = judge(text, start, span_end)
        found.append(
            PriceMention(
                value=value, text=text[start:span_end], start=start, end=span_end, marked=marked,
                relative=is_relative(before, after), negated=judged[0], reference=judged[1],
            )
        )
    return found


_SHARE = re.compile(
    r"\b(?P<share>a half|half|a third|one third|a quarter|one quarter|two thirds|three quarters|three fourths|"
    r"(?P<percent>\d{1,3}(?:\.\d+)?)\s?(?:%|percent\b))\s+(?P<off>off\s+)?(?:of\s+)?"
    r"(?:the\s+|your\s+|my\s+|its\s+|it's\s+|what\s+)?"
    r"(?P<what>asking(?:\s+price)?|list(?:ed|ing)?(?:\s+price)?|price|ask|original price|sticker price|"
    r"you(?:'re| are)\s+asking|you\s+want|you\s+listed)\b"
    r"|\b(?P<percent_off>\d{1,3})\s?(?:%|percent\b)\s+(?:off|discount|less)\b"
)
_SLANG = re.compile(r"\b(?:a\s+)?(?P<slang>tenner|fiver|c-note|c note|hundo)s?\b|\ba\s+couple(?:\s+of)?\s+hundred\b")


def _share_mentions(text: str, listing_price: float | None) -> list[PriceMention]:
    """Prices as shares of the listing (`half the asking price`, `75% of the list price`) and money slang (`a tenner`)."""
    lowered = text.lower().replace("’", "'")
    found: list[PriceMention] = []
    for match in _SLANG.finditer(lowered):
        value = SLANG_PRICES.get(match.group("slang") or "", 200.0)
        before = words_before(lowered, match.start(), 4)
        after = words_after(lowered, match.end(), 4)
        judged = judge(lowered, match.start(), match.end())
        found.append(PriceMention(
            value=value, text=text[match.start():match.end()], start=match.start(), end=match.end(), marked=True,
            relative=is_relative(before, after), negated=judged[0], reference=judged[1],
        ))
    if listing_price is None or listing_price <= 0:
        return found
    for match in _SHARE.finditer(lowered):
        before = words_before(lowered, match.start(), 4)
        if before[-1:] == ["than"]:
            continue  # `less than half price` compares, it does not offer
        after = words_after(lowered, match.end(), 4)
        if match.group("percent_off"):
            share, relative = float(match.group("percent_off")) / 100, True
        elif match.group("percent"):
            share, relative = float(match.group("percent")) / 100, bool(match.group("off"))
        else:
            share, relative = FRACTIONS[match.group("share")], bool(match.group("off"))
        if not 0 < share <= 1:
            continue
        judged = judge(lowered, match.start(), match.end())
        found.append(PriceMention(
            value=round(share * listing_price, 2), text=text[match.start():match.end()], start=match.start(), end=match.end(),
            marked=True, relative=relative, negated=judged[0], reference=judged[1],
        ))
    return found


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
    for mention, year_shaped, context, previous in _digit_mentions(text):
        if mention.value <= 0:
            continue
        if year_shaped:
            plausible = listing_price is None or listing_price <= 0 or 0.25 * listing_price <= mention.value <= 1.5 * listing_price
            if previous in YEAR_CUES or not context or not plausible:
                continue  # `a 2012 civic`, `since 2015`; but `I can pay 2000` for a 2,150 rent is a price
        mentions.append(mention)
    mentions.extend(_word_mentions(text))
    shares = _share_mentions(text, listing_price)
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

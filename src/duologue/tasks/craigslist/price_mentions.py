"""How each way of writing a price is found in a message: digits, number words, shares of the listing and slang.

`prices.py` documents the rules as a whole and decides which mentions are prices; this module finds the candidate
mentions and flags each one from the words around it (`price_context.judge`, `price_context.is_relative`).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from duologue.tasks.craigslist.price_context import CURRENCY_AFTER, RELATIVE_AFTER, is_relative, judge, words_after, words_before
from duologue.tasks.craigslist.price_words import SCALE_WORDS, TENS_WORDS, UNIT_WORDS, number_value, word_tokens

YEARS = (1950, 2035)
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
NUMBER = re.compile(r"(?<![\w.])(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)")


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



def to_float(digits: str) -> float | None:
    """The number the digits write, or None; a number too long for a float (inf) is no price."""
    try:
        value = float(digits.replace(",", ""))
    except ValueError:
        return None
    return value if math.isfinite(value) else None



# ---------------------------------------------------------------------- digits


def digit_mentions(text: str) -> list[tuple[PriceMention, bool, bool, str | None]]:
    """(mention, year_shaped, in_price_context, word before) for each number in digits that could be a price."""
    found = []
    masked = _PHONE.sub(lambda m: " " * len(m.group()), text)
    lowered = masked.lower()
    for match in NUMBER.finditer(masked):
        start, end = match.span()
        digits = match.group("num")
        value = to_float(digits)
        if value is None or (start > 0 and masked[start - 1] in ":/#"):
            continue
        if re.match(r"(:\d|/\d|%|°)", masked[end:]) or (re.match(r"[\"”″]", masked[end:]) and (start == 0 or masked[start - 1] not in "\"“")):
            continue  # times, dates, fractions, percentages, inches (`47" long`)
        marked = False
        thousands = False
        glued = re.match(r"[a-z]+", lowered[end:])
        if glued and glued.group() == "ish":
            end, glued = end + 3, None  # `60ish`: about 60
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


def word_mentions(text: str) -> list[PriceMention]:
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
        context = any(w in PRICE_CONTEXT for w in before[-3:]) or after[:1] in ([w] for w in PRICE_AFTER)
        alone = not re.sub(r"[\W_]+", "", text[:start] + text[end:])  # `Sixty?` as the whole message
        if not (strong or marked or context or alone) or value < 2:
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
_WHOLE = re.compile(
    r"\b(?:pay|paying|take|taking|do|give|giving|offer|offering|accept|accepting|buy\s+it|get\s+it)\s+(?:you\s+)?(?:it\s+)?(?:(?:for|at)\s+)?"
    r"(?P<what>(?:the\s+|your\s+)?full\s+(?:asking\s+)?(?:price|amount|ask|asking)|(?:the\s+|your\s+)(?:original\s+)?(?:asking|list(?:ed|ing)?)(?:\s+price)?|"
    r"what\s+you(?:'re|\s+are)\s+asking(?:\s+for)?)\b"
)
"""The whole listing price, named rather than written (`I'll pay full price`, `I'll take it at your asking price`)."""
_SLANG = re.compile(r"\b(?:a\s+)?(?P<slang>tenner|fiver|c-note|c note|hundo)s?\b|\ba\s+couple(?:\s+of)?\s+hundred\b")


def share_mentions(text: str, listing_price: float | None) -> list[PriceMention]:
    """Prices as shares of the listing (`half the asking price`, `75% of the list price`), the whole of it (`full price`) and money
    slang (`a tenner`)."""
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
    for match in _WHOLE.finditer(lowered):
        start, end = match.span("what")
        judged = judge(lowered, start, end)
        found.append(PriceMention(value=listing_price, text=text[start:end], start=start, end=end, marked=True, negated=judged[0], reference=judged[1]))
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

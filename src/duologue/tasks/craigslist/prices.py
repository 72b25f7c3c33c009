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
* `$50 off`, `knock 20`, `100 less` are amounts off a price (`relative`), not prices;
* `I can't do 100` and `90 is too low` are refused prices (`negated`); `I can't go lower than 150` is not refused:
  it names the speaker's limit.

`find_prices` returns every mention with these flags; `find_price` picks the one a speaker most
likely proposes (the last price that is neither refused nor relative). This is the reading the
rule agent bargains with.

The corpus's own labels (`metadata.price`) come from CoCoA's parser, which reads prices more
literally (any `$` number is a price, `2 car garage` is one too, `twelve hundred` is not).
`parser_tokens` / `tracked_prices` (at the end of this module) reproduce that reading for the
act parser (`acts.py`), which measures it against the validation labels. They tokenise with
NLTK's Treebank rules (the `text` extra); without NLTK, duologue's regex fallback tokeniser is
used and the labels are reproduced less closely.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable, Sequence

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

CURRENCY_AFTER = frozenset({"dollars", "dollar", "bucks", "buck", "usd", "dlls", "dolla", "dollas", "bux"})
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
RELATIVE_AFTER = frozenset({"off", "less", "more", "cheaper", "lower", "higher", "extra", "discount", "over", "under", "below", "above", "down", "towards", "toward"})
RELATIVE_BEFORE = frozenset({"knock", "knocked", "knocking", "by", "extra", "another", "additional", "plus"})
NEGATIONS = frozenset({"not", "no", "never", "cannot", "can't", "cant", "won't", "wont", "don't", "dont", "couldn't", "wouldn't", "isn't", "nope", "nah"})
BOUND_WORDS = frozenset({"lower", "less", "below", "under", "higher", "more", "above", "over", "beyond", "further", "farther", "down", "up", "cheaper",
                         "better", "south", "north", "past", "exceed"})
"""After a negation, these words make the number the speaker's limit (`can't go lower than 150`)."""
REFERENCE_BEFORE = frozenset(
    """
    worth paid retail retails msrp kbb value values valued originally online elsewhere refurbished
    wanted saw seen amazon ebay walmart store stores
    """.split()
)
"""Words that, within the four words before a price, make it a valuation (`worth a grand`, `paid $300`, `saw one on amazon for 115`)."""
ELSEWHERE = frozenset({"shop", "shops", "store", "stores", "amazon", "ebay", "walmart", "target", "bestbuy", "dealership", "dealer", "dealers"})
"""Places whose prices are valuations (`at the store they go for 300`)."""
NEW_ONES = frozenset({"one", "ones", "they", "it", "these", "those", "cost", "costs", "sell", "sells", "go", "goes", "retail", "retails", "are", "is", "was", "were", "for"})
"""After `new`, words that make the price what a new one costs (`new ones sell for 300`, `I got it new for 300`)."""
PAST_PRICE = frozenset({"bought", "purchased", "spent", "retail", "retails", "msrp", "originally"})
"""Words that anywhere in the clause before a price make it what something cost (`I bought an S6 last week for $30`)."""
OTHER_COSTS = frozenset({"deposit", "deposits", "fee", "fees", "tax", "taxes", "shipping", "utilities", "insurance", "mover", "movers", "bill", "bills"})
"""Words just before or right after a price that make it the price of something else (`the deposit is $500`, `$50 fee`,
`the bill shouldn't be more than 10$`)."""
QUOTED = re.compile(
    r"(?:you(?:'re| are| r)\s+(?:still\s+|currently\s+|now\s+)?asking(?:\s+for)?|(?:are|r)\s+you\s+firm\s+(?:at|on)(?:\s+the)?|"
    r"you(?:'re| are| r)\s+(?:still\s+|now\s+)?(?:selling|offering)(?:\s+(?:it|this|them))?(?:\s+for|\s+at)?|"
    r"(?<!let )you\s+(?:have|had|list|listed)\s+(?:it|this|them)(?:\s+listed)?\s+(?:for|at)|\bis\s+up\s+for|"
    r"\b(?:is|was)\s+that|\b(?:did\s+)?you\s+(?:mean|said)|\bhow\s+firm\s+(?:are\s+you\s+)?(?:on|at)(?:\s+the)?)\s*(?:\$|usd)?\s*$"
)
"""Before a price, words that quote the other side's ask (`I see you are asking $1825`, `are you firm at 60?`, `is that $290 a month?`)."""
QUOTED_AFTER = re.compile(r"^\s*(?:dollars?|bucks?)?\s*(?:that\s+)?you(?:'re| are| r|'ve| have)?\s+(?:still\s+)?(?:asking|listed|selling|want|wanted|quoted)\b")
"""After a price, words that make it the other side's ask (`how firm are you on the $190 you are asking?`)."""
TOO_MUCH = re.compile(
    r"^\s*(?:dollars?|bucks?)?\s*(?:is|seems|sounds|was|looks|feels|'s|(?:might|may|would|could|will|must)\s+be)?\s*(?:still\s+)?"
    r"(?:a\s+(?:bit|little|tad)\s+|kind\s+of\s+|kinda\s+|way\s+|pretty\s+|rather\s+|quite\s+|really\s+|very\s+|far\s+|just\s+|much\s+|[a-z]+ly\s+)*"
    r"(?:too\b|to\s+(?=(?:high|low|much|steep|expensive|pricey)\b)|much\b(?!\s+(?:better|more|less|lower|higher|cheaper))|(?:low|high)\b(?!\s+(?:quality|end))|steep\b|pricey\b|expensive\b|overpriced\b|(?:of\s+)?an?\s+(?:upsell|stretch|reach)\b|a\s+lot\b(?!\s+(?:better|more|less|lower|higher|cheaper))|"
    r"on\s+the\s+(?:low|high|steep|pricey|expensive)\s+side\b|(?:doesn'?t|does\s+not|won'?t|will\s+not)\s+(?:cover|cut)\b|"
    r"(?:isn'?t|is\s+not|not)\s+(?:quite\s+|nearly\s+|really\s+)?enough\b|out\s+of\s+(?:my|the|our)\s+(?:budget|price\s+range|range))"
)
"""After a price, words that refuse it (`90 is too low`, `$10995 is a bit much`, `2250 might be a bit of an upsell`,
`5000 is a little on the low side`, `$5000 doesn't cover it`)."""
PRICE_AFTER = frozenset({"sound", "sounds", "work", "works", "ok", "okay", "cash", "firm", "obo", "total", "max", "tops", "flat"})
"""Words right after a year-shaped number that make it a price (`does 2000 sound good?`)."""
REFERENCE_AFTER = re.compile(r"^\s*(?:dollars?|bucks?)?\s*(?:when i (?:bought|got|paid)|into\b|new\b|retail\b|brand new|originally|online|at the store|in stores?)")
SLANG_PRICES = {"tenner": 10.0, "fiver": 5.0, "c-note": 100.0, "c note": 100.0, "hundo": 100.0, "grand": 1000.0}
"""Money words with a value of their own (`a tenner`)."""
FRACTIONS = {"half": 0.5, "a half": 0.5, "a third": 1 / 3, "one third": 1 / 3, "a quarter": 0.25, "one quarter": 0.25,
             "two thirds": 2 / 3, "three quarters": 0.75, "three fourths": 0.75}
"""Shares of the listing price people name (`half the asking price`)."""
KEEP_AFTER_ARTICLE = frozenset({"and", "or", "for", "cash", "total", "firm", "even", "flat", "obo", "is", "deal", "sound", "sounds", "max", "tops", "only", "then", "please", "now", "today", "price", "offer", "bill",
                                "month", "monthly", "mo", "per", "a", "each", "rent",
                                "budget", "limit", "maximum", "cap", "ceiling"})
"""After `a $20 ...`, words that keep the number a price; any other word makes it an attribute (`a $20 case`)."""
DEGREE_WORDS = frozenset({"low", "high", "much", "little", "far", "cheap", "expensive"})
CLAUSE_BREAKS = frozenset({"but", "and", "though", "however", "so", "or", "instead"})

UNIT_WORDS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
    "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
    "seventeen": 17, "eighteen": 18, "nineteen": 19,
}
TENS_WORDS = {"twenty": 20, "thirty": 30, "forty": 40, "fourty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90}
SCALE_WORDS = {"hundred": 100, "thousand": 1000, "grand": 1000}

_PHONE = re.compile(r"\(?\b\d{3}\)?[-.\s]\d{3}[-.\s]\d{4}\b")
_NUMBER = re.compile(r"(?<![\w.])(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)")
_WORD = re.compile(r"[a-z]+(?:'[a-z]+)?|\$|%")
_SENTENCE_END = re.compile(r"[.!?;](?=\s|$)|\n")
_STANDALONE_NUMBER = re.compile(r"(?<![a-z0-9])\d[\d,.]*(?![a-z0-9])")


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


# ---------------------------------------------------------------------- helpers


def _words_before(text: str, index: int, count: int = 4) -> list[str]:
    """The last `count` words before `index`, lowercased; a clause break (`. , ; !`) cuts the window."""
    window = text[max(0, index - 60):index].lower()
    cut = max(window.rfind(mark) for mark in ".;!?\n")
    if cut >= 0:
        window = window[cut + 1:]
    return _WORD.findall(window)[-count:]


def _words_after(text: str, index: int, count: int = 4) -> list[str]:
    """The first `count` words after `index`, lowercased; the end of the sentence cuts the window (`They are $220. $80 off`)."""
    window = _SENTENCE_END.split(text[index:index + 40].lower(), maxsplit=1)[0]
    return _WORD.findall(window)[:count]


def _clause_before(text: str, index: int) -> list[str]:
    """Words of the clause before `index` (since the last comma, full stop or `but`)."""
    window = text[max(0, index - 80):index].lower()
    cut = max(window.rfind(mark) for mark in ".;!?,\n")
    if cut >= 0:
        window = window[cut + 1:]
    numbers = list(_STANDALONE_NUMBER.finditer(window))
    if numbers:
        window = window[numbers[-1].end():]  # `I do not have $3992 I can afford $2794`: the refusal was of the first
    words = _WORD.findall(window)
    for position in range(len(words) - 1, -1, -1):
        if words[position] == "so" and words[position + 1:position + 2] and words[position + 1] in DEGREE_WORDS:
            continue  # `I couldn't go so low as 100`: `so` is a degree there, not a new clause
        if words[position] in CLAUSE_BREAKS:
            return words[position + 1:]
    return words


SPEAKERS = frozenset({"i", "i'd", "i'll", "i'm", "im", "id", "we", "we'd", "we'll", "we're"})
LIMIT_NOUNS = frozenset({"limit", "max", "maximum", "budget", "offer", "best", "final", "lowest", "highest", "bottom", "price", "counter"})
"""After a negation, `my limit`, `our best` start a new clause (`I can't go that high my limit would be $3031`)."""
THINKING = frozenset({"think", "believe", "suppose", "guess", "know", "expect", "imagine", "feel", "see", "sure", "want", "say"})
"""`I don't think I can do 100` still refuses 100: the negation reaches through these to the next `I`."""


def _is_negated(clause: list[str]) -> bool:
    """A refusal (`not 100`, `can't do 100`) unless a bound word turns it into a limit (`can't go below 100`)."""
    negation_at = [i for i, word in enumerate(clause) if (word in NEGATIONS or word.endswith("n't")) and clause[i + 1:i + 2] not in (["mind"], ["problem"], ["worries"], ["bad"])]
    if not negation_at:
        return False  # `if you do not mind, accept my offer of $1500` refuses nothing
    after = clause[negation_at[-1] + 1:]
    speaker = next((i for i, word in enumerate(after) if word in SPEAKERS or (word in ("my", "our") and after[i + 1:i + 2] and after[i + 1] in LIMIT_NOUNS)), None)
    if speaker is not None and not any(word in THINKING for word in after[:speaker]):
        return False  # `it has no damage I would like to get $340`: the negation ended before a new `I ...`
    return not any(word in BOUND_WORDS for word in after)


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
        after = [w for w in _words_after(masked, end, 4) if w != "$"]
        if after and after[0] in UNITS and not marked and not monthly:
            continue  # `2 chairs`, `18 month lease`, `5 pm`; but `$1,850 month to month` and `1850/mo` are rents
        if thousands and not dollar and not trailing and after[:1] and (after[0] in UNITS or (after[0] in ("for", "on", "of") and MILEAGE & set(after[1:3]))):
            continue  # `16k miles`, `15K for the millage`: the `k` counts miles, not dollars
        preceding = re.search(r"([a-z]+)\s*$", lowered[:start])
        if preceding and preceding.group(1) in PRODUCT_WORDS and not marked:
            continue  # `iphone 7`, `model 3`, `gen 2`
        before = _words_before(masked, start, 4)
        if not marked and after[:1] == ["of"] and after[1:2] and after[1] in COUNTED:
            continue  # `3 of the selfie clickers`, `2 of them`
        if not marked and (before[-2:] in (["throw", "in"], ["threw", "in"], ["throwing", "in"], ["toss", "in"]) or before[-1:] in (["include"], ["including"])):
            continue  # `I can throw in 4 ink cartridges`: a count of extras
        if before[-1:] in (["a"], ["an"]) and after and after[0].isalpha() and after[0] not in KEEP_AFTER_ARTICLE | CURRENCY_AFTER | RELATIVE_AFTER:
            continue  # `a $20 case`, `a 30 minute drive`: an attribute of something else
        year_shaped = "." not in digits and "," not in digits and YEARS[0] <= value <= YEARS[1] and not marked
        context = any(word in PRICE_CONTEXT for word in before[-3:]) or after[:1] in ([w] for w in PRICE_AFTER) or bool(monthly)
        judged = _judge(masked, start, end)
        mention = PriceMention(
            value=value, text=text[start:end], start=start, end=end, marked=marked,
            relative=_is_relative(before, after), negated=judged[0], reference=judged[1],
        )
        previous = before[-1] if before else None
        if previous == "the" and before[-2:-1] and before[-2] in PAYING:
            previous = None  # `I will pay the 2000`: the price said before, not a model year
        found.append((mention, year_shaped, context, previous))
    return found


def _judge(text: str, start: int, end: int) -> tuple[bool, bool]:
    """(negated, reference) for the price at `text[start:end]`, from the words of its clause and after it."""
    lowered = text.lower()
    clause = _clause_before(text, start)
    rest = lowered[end:]
    answer = clause in (["no"], ["nope"], ["nah"]) or (clause == ["not"] and rest.lstrip().startswith("?"))
    negated = (_is_negated(clause) and not answer) or bool(TOO_MUCH.match(rest))  # `no 152`, `not $2000?`: a bare no answers, then counters
    reference = _is_reference(clause, lowered[:start], rest) or _is_compared(clause)
    if reference and _LIMIT_AFTER.search(re.split(r"[.!?\n]", rest)[0]):
        reference = False  # `I paid $60 for this, so I'm not going any lower than that`: what it cost becomes the limit
    return negated, reference


BOUNDED = frozenset({"nothing", "anything", "least", "most", "max", "maximum", "minimum", "limit", "budget"})


def _is_compared(clause: list[str]) -> bool:
    """`would you go a bit lower than 250?`, `it has less than 3000`: a comparison, unless a negation or a bound makes it a limit
    (`I can't go lower than 150`, `nothing less than 45`, `my limit is no more than 2000`)."""
    if clause[-1:] != ["than"] or clause[-2:-1] == [] or clause[-2] not in ("lower", "less", "below", "under", "cheaper"):
        return False
    return not any(word in NEGATIONS or word.endswith("n't") or word in BOUNDED for word in clause)


_LIMIT_AFTER = re.compile(r"(?:\bnot\b|\bnever\b|n't\b|\bcannot\b|\bno\b)[^.!?]*\b(?:lower|less|below|under|cheaper)(?:\s+than)?\s+(?:that|this)\b")


def _is_reference(clause: list[str], head: str, rest: str) -> bool:
    """`worth a grand`, `I paid $300`, `300 dollars when I bought it`, `the deposit is $500`, `you're asking $600`:
    what it is worth, cost, or someone else's price, not an offer."""
    if any(word in REFERENCE_BEFORE or word in OTHER_COSTS for word in clause[-4:]) or any(word in PAST_PRICE for word in clause):
        return True
    if any(word in OTHER_COSTS and COPULAS & set(clause[i + 1:]) and not SPEAKERS & set(clause[i + 1:]) for i, word in enumerate(clause)):
        return True  # `the bill shouldn't be more than 10$`; but `since utilities are included I could do 2150` offers
    if any(word == "new" and clause[i + 1:i + 2] and clause[i + 1] in NEW_ONES for i, word in enumerate(clause[-5:-1], start=max(0, len(clause) - 5))):
        return True  # `new ones go for $300`; but `the new price is 250` and `meet at the "new" middle of $250` are offers
    following = _WORD.findall(rest[:30])
    if following[:1] and following[0] in OTHER_COSTS and not re.match(r"\s*(?:\+|&|plus\b|and\b)", rest):
        return True  # `$500 deposit`; but `1800 + deposit` is a price with a cost on top
    if any(word in ("in", "at", "on") and set(clause[i + 1:i + 4]) & ELSEWHERE for i, word in enumerate(clause)):
        return True  # `in a bike shop one in this condition could go for $900`
    sentence = re.split(r"[.!?\n]", head)[-1]
    if re.search(r"\bof which\b", sentence):
        return True  # `$137, of which $112 in cash and $25 as a gift card`: parts of the price named first
    return bool(REFERENCE_AFTER.match(rest)) or bool(QUOTED.search(head)) or bool(QUOTED_AFTER.match(rest))


MOVING = frozenset({"go", "going", "goes", "went", "come", "coming", "came", "move", "bump", "step"})
COPULAS = frozenset({"is", "be", "was", "are", "were", "will", "would", "should", "shouldn't", "won't", "wouldn't", "cost", "costs", "runs", "comes"})
LOWERING = frozenset({"lower", "drop", "reduce", "cut", "knock", "discount", "shave", "raise", "up", "bump"})


def _is_relative(before: list[str], after: list[str]) -> bool:
    following = [w for w in after if w not in CURRENCY_AFTER and w != "$"]
    if following and following[0] in RELATIVE_AFTER:
        return not (before and before[-1] == "or")  # `150 or less` names a price
    if before[-2:-1] and before[-2] in LOWERING and before[-1] in ("it", "that", "this", "them", "by"):
        return True  # `if you lower it $500`
    if before[-1:] in (["up"], ["down"]) and before[-2:-1] and before[-2] in MOVING:
        return True  # `I can go up a thousand`, `come down 50`; `go up to 500` names the price
    if any(word in ("save", "saving") for word in before[-3:]):
        return True  # `I was hoping to save at least 100-200`
    return bool(before) and (before[-1] in RELATIVE_BEFORE or before[-1] == "off" or before[-2:] == ["off", "the"])  # `knock off the $600`


# ---------------------------------------------------------------------- words


def _word_tokens(text: str) -> list[tuple[str, int, int]]:
    return [(m.group().lower(), m.start(), m.end()) for m in re.finditer(r"[A-Za-z]+", text)]


def _number_groups(words: Sequence[str]) -> tuple[list[int], bool] | None:
    """Parse a run of number words into small groups (`one` `fifty`) and whether a scale word occurs."""
    groups: list[int] = []
    has_scale = False
    total = 0
    current: int | None = None
    for word in words:
        if word in UNIT_WORDS or word in TENS_WORDS:
            value = UNIT_WORDS.get(word, TENS_WORDS.get(word, 0))
            if current is not None and word in UNIT_WORDS and current % 10 == 0 and current >= 20 and value < 10:
                current += value  # twenty five
            else:
                if current is not None:
                    groups.append(current)
                current = value
        elif word in SCALE_WORDS:
            has_scale = True
            scale = SCALE_WORDS[word]
            base = current if current is not None else (groups.pop() if groups else 1)
            if scale == 100:
                current = base * 100
            else:
                total += base * scale
                current = None
        elif word == "and":
            continue
        else:
            return None
    if current is not None:
        groups.append(current)
    if has_scale:
        return [total + sum(groups)], True
    return groups, False


def _word_value(words: Sequence[str]) -> tuple[float, bool] | None:
    """The value of a run of number words and whether it is a colloquial price (`one fifty` = 150)."""
    parsed = _number_groups(words)
    if parsed is None:
        return None
    groups, has_scale = parsed
    if has_scale:
        return float(groups[0]), True
    if len(groups) == 1:
        return float(groups[0]), False
    if len(groups) == 2 and 1 <= groups[0] <= 99 and 10 <= groups[1] <= 99:
        return float(groups[0] * 100 + groups[1]), True
    return None


def _word_mentions(text: str) -> list[PriceMention]:
    """Prices written in words: `twelve hundred`, `fifty bucks`, `a grand`, `for forty`."""
    tokens = _word_tokens(text)
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
        parsed = _word_value(run)
        if parsed is None:
            continue
        value, strong = parsed
        after = _words_after(text, end, 4)
        before = _words_before(text, start, 4)
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
        judged = _judge(text, start, span_end)
        found.append(
            PriceMention(
                value=value, text=text[start:span_end], start=start, end=span_end, marked=marked,
                relative=_is_relative(before, after), negated=judged[0], reference=judged[1],
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
        before = _words_before(lowered, match.start(), 4)
        after = _words_after(lowered, match.end(), 4)
        judged = _judge(lowered, match.start(), match.end())
        found.append(PriceMention(
            value=value, text=text[match.start():match.end()], start=match.start(), end=match.end(), marked=True,
            relative=_is_relative(before, after), negated=judged[0], reference=judged[1],
        ))
    if listing_price is None or listing_price <= 0:
        return found
    for match in _SHARE.finditer(lowered):
        before = _words_before(lowered, match.start(), 4)
        if before[-1:] == ["than"]:
            continue  # `less than half price` compares, it does not offer
        after = _words_after(lowered, match.end(), 4)
        if match.group("percent_off"):
            share, relative = float(match.group("percent_off")) / 100, True
        elif match.group("percent"):
            share, relative = float(match.group("percent")) / 100, bool(match.group("off"))
        else:
            share, relative = FRACTIONS[match.group("share")], bool(match.group("off"))
        if not 0 < share <= 1:
            continue
        judged = _judge(lowered, match.start(), match.end())
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
        clause = _clause_before(text, mention.start)
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


# ---------------------------------------------------------------------- the corpus parser's price tracker
#
# The labels of the corpus (`metadata.price`, and the price-based acts) come from CoCoA's rule-based
# parser, which reads prices token by token rather than as people mean them. Its conventions, as
# documented for the corpus, re-expressed here so the labels can be reproduced and measured:
#
# * text is lowercased and split into Treebank tokens (NLTK `word_tokenize`); `..`+ becomes `...`;
#   `\`, `>` and `/` become spaces (so `$120/mo` is `$120 mo`); a lone `$` sticks to the token
#   after it when that token starts with a digit, `.` or `,` (so `45$.` leaves `45` unmarked and
#   makes a `$.` token), else to a number before it (`45$`);
# * a token is a number when, without `$` and `,`, it parses as a float; a trailing `k` multiplies
#   by 1000 (`1.2k`, `10k`); `twelve hundred`, `2 grand` or `5pm` are not numbers;
# * a number with `$` is always a price; one without must sit in a price-like context (the tokens
#   right before and after it were seen around `$` prices), be at most 1.5x the listing price, and
#   not be a number of the listing's title or description (the listing price itself excepted).
#
# The price-like contexts were learned by CoCoA from the training split's `$` prices; that model
# is not public, so duologue approximates it: a list of words that come before prices, and a
# list of units and measure words that never come after one.

PARSER_MAX_RATIO = 1.5
"""Unmarked numbers above this many times the listing price are not prices (the parser's rule)."""

PRICE_LEFT_CONTEXT = frozenset(
    """
    <s> . , ! ? ; : ( - -- ... `` '' "
    a an the this that these those it its it's 's is was be been being are were am 'm 're 've 'll 'd
    i you he she we they me him her us them my your our their ur u
    do does did doing done pay paying paid pays take taking took takes offer offering offered offers counter
    give giving gave accept accepting accepted asking ask asked sell selling sold spend spending spent afford
    get getting got make making go going come coming meet settle settling consider considering swing
    want wanted need needed would could can will should might may must
    only just even least most max maximum minimum budget price priced cost costs costing listed list
    like say saying said says think thinking thought hoping hope guess well actually full
    over under below above beyond within between from with without plus extra another additional
    up down off knock drop low high lower higher as approximately approx roughly maybe around about
    firm final deal ok okay yes yeah sure how what by in on into towards toward upto at to of for than then
    and or but so if because since also already still quoted charge charging rent value valued worth retail
    originally bought have has had lowest highest best not no more less much together
    """.split()
)
"""Tokens after which a number can be a price (the token before a number; `<s>`: the message starts)."""

NOT_PRICE_RIGHT_CONTEXT = frozenset(
    """
    year years yr yrs yo months mo mos week weeks wk wks day days hour hours hr hrs min mins minute minutes
    second seconds sec secs pm am p.m. a.m. o'clock
    mile miles mi km mph foot feet ft inch inches cm mm meter meters sq sqft square acre acres
    lb lbs pound pounds kg oz ounce ounces ton tons liter liters gallon gallons
    gb tb mb kb ghz mhz mp megapixel megapixels watt watts w v volt volts hp cc
    bed beds bedroom bedrooms br bd bath baths bathroom bathrooms ba room rooms floor floors story stories
    people person persons kid kids owner owners seater seat seats adults children
    drawer drawers piece pieces pcs pc chair chairs shelf shelves game games controller controllers lens lenses
    battery batteries core cores bar bars unit units block blocks star stars wheel wheels cylinder cylinders
    door doors speed speeds gear gears times x cents cent percent th st nd rd gen generation cars trucks
    ' $. $,
    """.split()
)
"""Tokens after which a number is a measure, a count or a time, not a price (`2 years`, `5 pm`, `98k miles`).

`month` is absent on purpose: `$1,850 / month` is tokenised `$1,850 month`, and the parser reads
`18 month lease` as a price too."""

_TOKEN_NUMBER = re.compile(r"[.,0-9]")
_SLASHES = re.compile(r"[\>/]")
_DOTS = re.compile(r"\.{2,}")


@dataclass(frozen=True)
class TrackedPrice:
    """A price the corpus parser's tracker sees: its value, the token, where, and whether `$` marked it."""

    value: float
    token: str
    index: int
    """Position in the token list."""
    marked: bool


def parser_tokens(text: str) -> list[str]:
    """The tokens the corpus parser reads: lowercased Treebank tokens with `$` stuck to its number."""
    return list(_parser_tokens(text))


@lru_cache(maxsize=8192)
def _parser_tokens(text: str) -> tuple[str, ...]:
    """Cached: both sides of a self-play episode read every message, and bots repeat their phrasings."""
    from duologue.data.text import tokenizer_for

    cleaned = _SLASHES.sub(" ", _DOTS.sub("...", text.lower()))
    tokens = tokenizer_for("en")(cleaned)
    stuck: list[str] = []
    position = 0
    while position < len(tokens):
        token = tokens[position]
        if token == "$":
            following = tokens[position + 1] if position + 1 < len(tokens) else ""
            if following and _TOKEN_NUMBER.match(following):
                stuck.append("$" + following)
                position += 2
                continue
            if stuck and _TOKEN_NUMBER.match(stuck[-1]):
                stuck[-1] += "$"
                position += 1
                continue
        stuck.append(token)
        position += 1
    return tuple(stuck)


def token_number(token: str) -> float | None:
    """The value of a number token (`$1,200` -> 1200, `1.2k` -> 1200, `45$` -> 45), or None."""
    digits = token.replace("$", "").replace(",", "")
    if digits.endswith("k"):
        digits = digits[:-1]
        scale = 1000.0
    else:
        scale = 1.0
    if not digits or not (digits[0].isdigit() or digits[0] == "."):
        return None  # `nan`, `inf`, `-5`, words
    try:
        value = float(digits) * scale
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def listing_token_numbers(lines: Iterable[str]) -> set[float]:
    """Every number token of a listing's title and description lines (the parser's `spec numbers`)."""
    numbers: set[float] = set()
    for line in lines:
        numbers.update(_line_numbers(line))
    return numbers


@lru_cache(maxsize=4096)
def _line_numbers(line: str) -> frozenset[float]:
    if not any(character.isdigit() for character in line):
        return frozenset()
    values = (token_number(token) for token in _parser_tokens(re.sub(r"[^\w.,]", " ", line)))
    return frozenset(value for value in values if value is not None)


def tracked_prices(tokens: Sequence[str], *, listing_price: float | None = None, listing_numbers: Iterable[float] = ()) -> list[TrackedPrice]:
    """The prices the corpus parser finds in `tokens` (see the conventions above), in order."""
    padded = ["<s>", *tokens, "</s>"]
    spec = set(listing_numbers)
    found = []
    for index, token in enumerate(tokens):
        value = token_number(token)
        if value is None:
            continue
        marked = token.startswith("$") or token.endswith("$")
        if not marked:
            if padded[index] not in PRICE_LEFT_CONTEXT or padded[index + 2] in NOT_PRICE_RIGHT_CONTEXT:
                continue
            if listing_price is not None and listing_price > 0:
                if value > PARSER_MAX_RATIO * listing_price:
                    continue
                if value != listing_price and value in spec:
                    continue
        found.append(TrackedPrice(value=value, token=token, index=index, marked=marked))
    return found

"""The corpus parser's reading of prices, reproduced to measure duologue's act parser against the corpus labels.

The corpus's own labels (`metadata.price`) come from CoCoA's parser, which reads prices more
literally than `prices.find_prices` (any `$` number is a price, `2 car garage` is one too, `twelve
hundred` is not). `parser_tokens` / `tracked_prices` reproduce that reading for the act parser
(`acts.py`), which measures it against the validation labels. They tokenise with NLTK's Treebank
rules (the `text` extra); without NLTK, duologue's regex fallback tokeniser is used and the labels
are reproduced less closely.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable, Sequence

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

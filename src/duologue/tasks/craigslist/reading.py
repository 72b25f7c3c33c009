"""What a bargaining partner's message says: its price (`prices.py`) and its coarse intent.

The rule agent reads people, not only itself, so this reader expects typos (`okey`, `dael`,
`sounds goood`), shorthand (`u`, `thx`, `cant`), negation (`not ok`, `no deal`, `that
doesn't work`) and prices written in any form. It returns cues, not one label: a message can
greet, ask and propose a price at once (`hi! is it still available? would you take 150?`).

`parser_cues` (at the end) gives the narrower cues of the corpus's rule-based parser (question,
greeting, negative, vague-price, agree), from which `acts.py` decides the coarse acts the corpus
labels carry; `Reading.act` holds such an act when the reader follows the whole dialogue (the
rule agent does, with `acts.ActTracker`).
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from typing import Iterable

from duologue.tasks.craigslist.prices import PriceMention, find_prices

SHORTHAND = {
    "u": "you", "ur": "your", "r": "are", "thx": "thanks", "thnx": "thanks", "ty": "thanks", "pls": "please",
    "plz": "please", "cant": "can't", "wont": "won't", "dont": "don't", "doesnt": "doesn't", "isnt": "isn't",
    "im": "i'm", "ill": "i'll", "id": "i'd", "okey": "okay", "okie": "okay", "oky": "okay", "ok": "okay", "k": "okay",
    "kk": "okay", "alrite": "alright", "alright": "alright", "aight": "alright", "ya": "yes", "yea": "yes",
    "yeah": "yes", "yep": "yes", "yup": "yes", "ye": "yes", "nah": "no", "nope": "no", "hii": "hi", "hiya": "hi",
    "hey": "hi", "hello": "hi", "howdy": "hi", "wat": "what", "wht": "what", "hw": "how", "abt": "about",
    "prolly": "probably", "gonna": "going to", "wanna": "want to", "gotta": "got to", "lemme": "let me",
    "cuz": "because", "coz": "because", "tho": "though", "w": "with", "b4": "before", "2day": "today",
}
"""Shorthand and common misspellings, mapped to the words the cue lists use."""

VOCABULARY = [
    "okay", "deal", "sure", "fine", "good", "great", "perfect", "agreed", "works", "accept", "alright", "sounds",
    "expensive", "lowball", "ridiculous", "insulting", "interested", "available", "condition", "negotiable",
    "flexible", "lowest", "price", "thanks", "please", "bye", "goodbye", "sorry", "afford", "budget", "cheaper",
    "firm", "higher", "lower", "offer", "still", "hello",
]
"""Words a typo is corrected to (by closeness) when it is at least five letters long."""

AGREE_PHRASES = (
    "deal", "okay", "sure", "fine", "sounds good", "sounds great", "sounds fair", "sounds perfect", "works for me",
    "that works", "it works", "agreed", "i agree", "yes", "alright", "perfect", "great", "i'll take it",
    "i will take it", "let's do it", "lets do it", "you got a deal", "you've got a deal", "i accept",
    "i can do that", "i can live with that", "fair enough", "happy with that", "good with that", "absolutely",
    "of course", "no problem", "we have a deal", "it's a deal", "its a deal", "done",
)
DISAGREE_PHRASES = (
    "no", "too high", "too much", "too low", "too expensive", "too steep", "expensive", "pricey", "steep",
    "lowball", "ridiculous", "insulting", "way off", "can't", "cannot", "won't", "not interested", "sorry",
    "not enough", "no way", "not happening", "i don't think so", "out of my budget", "out of my price range",
    "can't afford", "firm", "that's a lot", "thats a lot", "nope", "pass",
)
NEGATED_AGREEMENT = re.compile(
    r"\b(no deal|not (?:a )?deal|not (?:okay|ok|fine|good|great|sure)|doesn'?t work|does not work|won'?t work|"
    r"not going to work|isn'?t (?:okay|fine|good)|not agreed|can'?t (?:do|accept|agree)|not really)\b"
)
NOT_DISAGREEMENT = re.compile(r"\b(no problem|no worries|no prob|not a problem|not bad|no doubt|why not)\b")
QUESTION_START = re.compile(
    r"^(is|are|does|do|did|can|could|would|will|what|whats|what's|how|when|where|why|which|who|any|has|have|"
    r"was|were|should|may|might)\b"
)
PRICE_QUESTION = re.compile(
    r"\b(lowest|best price|how much|what(?:'s| is) (?:the |your )?(?:price|asking)|go lower|go down|come down|"
    r"negotiable|flexible|wiggle room|firm\?|what would you take|best you can do|what'?s your best|"
    r"what do you want for|what price|what are you asking|asking price|your price|have in mind|your budget|"
    r"what can you (?:pay|offer|do)|make (?:me )?an offer|what(?:'s| is) your offer)\b"
)
GREETING = re.compile(r"^(hi|hey|hello|howdy|hiya|good (?:morning|afternoon|evening)|greetings|yo)\b")
LEAVING = re.compile(
    r"\b(bye|goodbye|good luck|not interested|no thanks|no thank you|forget it|i'?m out|i'?ll pass|"
    r"never ?mind|have a (?:good|nice) (?:day|one)|take care|i'?ll look elsewhere|find something else)\b"
)


@dataclass
class Reading:
    """The cues found in one message."""

    text: str
    prices: list[PriceMention] = field(default_factory=list)
    price: float | None = None
    """The price the speaker proposes (last mention neither refused nor relative), if any."""
    refused: list[float] = field(default_factory=list)
    """Prices the speaker refuses (`I can't do 100`)."""
    relative: float | None = None
    """An amount off (`knock $20 off`), if any."""
    agree: bool = False
    disagree: bool = False
    question: bool = False
    asks_price: bool = False
    greeting: bool = False
    leaving: bool = False
    act: str | None = None
    """The coarse act of the move in its dialogue (`acts.py`), when the reader follows the dialogue."""


def normalize(text: str) -> str:
    """Lowercase, expand shorthand, squeeze repeated letters (`goood` -> `good`), correct close typos."""
    lowered = text.lower().replace("’", "'").replace("‘", "'")
    words = []
    for token in re.findall(r"[a-z0-9']+|[^\sa-z0-9']", lowered):
        if not re.match(r"[a-z']+$", token):
            words.append(token)
            continue
        token = re.sub(r"(.)\1{2,}", r"\1\1", token)
        if token in SHORTHAND:
            token = SHORTHAND[token]
        elif len(token) >= 5 and token not in VOCABULARY:
            close = difflib.get_close_matches(token, VOCABULARY, n=1, cutoff=0.84)
            if close:
                token = close[0]
        elif token in ("dael", "deel", "dela"):
            token = "deal"
        words.append(token)
    return re.sub(r"\s+([?!.,;])", r"\1", " ".join(words))


def _has_phrase(text: str, phrases: Iterable[str]) -> bool:
    return any(re.search(rf"(?<![\w']){re.escape(phrase)}(?![\w'])", text) for phrase in phrases)


def read_message(text: str, *, listing_price: float | None = None, listing_text: Iterable[str] = ()) -> Reading:
    """The price and intent cues of one message from a partner."""
    listing_text = list(listing_text)
    clean = normalize(text)
    reading = Reading(text=text)
    reading.prices = find_prices(text, listing_price=listing_price, listing_text=listing_text)
    proposals = [m for m in reading.prices if not m.relative and not m.negated]
    reading.price = proposals[-1].value if proposals else None
    reading.refused = [m.value for m in reading.prices if m.negated and not m.relative]
    relative = [m for m in reading.prices if m.relative]
    reading.relative = relative[-1].value if relative else None

    negated_agreement = bool(NEGATED_AGREEMENT.search(clean))
    benign = NOT_DISAGREEMENT.sub(" ", clean)
    reading.agree = _has_phrase(benign, AGREE_PHRASES) and not negated_agreement
    reading.disagree = negated_agreement or _has_phrase(benign, DISAGREE_PHRASES) or bool(reading.refused)
    if reading.agree and reading.disagree and not negated_agreement:
        # `no, but okay` / `sorry, fine`: the last cue wins
        last_agree = max((m.end() for p in AGREE_PHRASES for m in re.finditer(rf"(?<![\w']){re.escape(p)}(?![\w'])", benign)), default=-1)
        last_disagree = max((m.end() for p in DISAGREE_PHRASES for m in re.finditer(rf"(?<![\w']){re.escape(p)}(?![\w'])", benign)), default=-1)
        if last_agree > last_disagree:
            reading.disagree = False
        else:
            reading.agree = False
    sentences = [s.strip() for s in re.split(r"(?<=[.!?])\s+|\n", clean) if s.strip()]
    reading.question = "?" in text or any(QUESTION_START.match(s) for s in sentences)
    reading.asks_price = bool(PRICE_QUESTION.search(clean))
    reading.greeting = bool(GREETING.match(clean))
    reading.leaving = bool(LEAVING.search(clean))
    return reading


# ---------------------------------------------------------------------- the corpus parser's cues
#
# The corpus labels come from CoCoA's rule-based parser, whose cues are narrower than the reader's
# above: they decide its coarse acts (`acts.py`), so they follow its documented keywords exactly.

QUESTION_OPENERS = frozenset({"what", "when", "where", "why", "which", "who", "whose", "how", "do", "does", "are", "is", "would", "will", "can", "could"})
"""A message whose first token is one of these is a question (so is one whose last token is `?`)."""
GREETING_TOKENS = frozenset({"hi", "hello", "hey", "hiya", "howdy"})
NEGATION_TOKENS = frozenset({"no", "not", "n't"})
GREETING_CUE = re.compile(r"how are you|interested in", re.IGNORECASE)
VAGUE_PRICE_CUE = re.compile(r"come down|highest|lowest|go lower|go higher|too high|too low")
"""Talk about the price without naming one; matched case-sensitively on the raw text, as the parser did."""
AGREEMENT_CUE = re.compile(
    r"(?:that works[.!]*|great[.!]*|ok[.!]*|okay[.!]*|great, thanks[.!]*|deal[.!]*|[\w ]*have a deal[\w ]*|i can do that\.*)",
    re.IGNORECASE,
)
"""A whole message that only agrees (`ok!`, `deal.`, `great, thanks`, `i think we have a deal`)."""


def parser_cues(text: str, tokens: list[str]) -> list[str]:
    """The corpus parser's cues for one message, in its order: question, greeting, negative, vague-price, agree.

    tokens: the message's `prices.parser_tokens`.
    """
    cues = []
    if tokens and (tokens[-1] == "?" or tokens[0] in QUESTION_OPENERS):
        cues.append("question")
    if any(token in GREETING_TOKENS for token in tokens) or GREETING_CUE.search(text):
        cues.append("greeting")
    if any(token in NEGATION_TOKENS for token in tokens):
        cues.append("negative")
    if VAGUE_PRICE_CUE.search(text):
        cues.append("vague-price")
    if AGREEMENT_CUE.fullmatch(text):
        cues.append("agree")
    return cues

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
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

from duologue.tasks.craigslist.prices import PriceMention, find_prices, proposed

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
    r"what can you (?:pay|offer|do)(?! about)|make (?:me )?an offer|what(?:'s| is) your offer|name (?:your|a) price|"
    r"what (?:would|do|did|could) you (?:suggest|propose|offer|pay|give|do it for|let it go for)|what (?:could|can) you (?:pay|afford)|"
    r"what would work for you|what works for you|how much (?:would|will|could|can) you (?:pay|give|offer|spend|do)|"
    r"what (?:are|were) you (?:thinking|hoping|looking) (?:of )?(?:paying|for|to pay|to spend)|what number)\b"
)
PRICE_ASK_ALONE = re.compile(r"^(?:so,? |well,? |ok(?:ay)?,? |hmm+,? )?what (?:are|were) you thinking(?: of)?\s*[?.!]*$")
"""`What are you thinking?` asks for a price when it is the whole sentence."""
CONTRAST = re.compile(r"[,.;!]?\s*\b(?:but|however|though|although|except)\b")
PUSHBACK = re.compile(r"\b(?:cheaper|lower|less|come down|go down|discount|too|more than|can'?t|cannot|not)\b|\?")
"""After `okay but ...`, cues that the speaker pushes back (`sounds good but I need it cheaper`) rather than agreeing."""
GREETING = re.compile(r"^(hi|hey|hello|howdy|hiya|good (?:morning|afternoon|evening)|greetings|yo)\b")
LEAVING = re.compile(
    r"\b(look(?:ing)? (?:somewhere|elsewhere|around)|somewhere else|elsewhere|find (?:something|another|one) else|"
    r"keep looking|i'?ll pass|no deal|(?:we )?(?:could ?n'?t|could not|can'?t|cannot) (?:agree\w*|make (?:a|this) deal|make it work)|"
    r"not interested|forget it|never ?mind|nvm|i'?m out(?! (?:front|back|side|here|there|of town))|walk away|thanks? (?:you )?(?:anyway|though)|best of luck|"
    r"good luck(?! (?:trying|finding|getting))|thanks for your time|goodbye|bye)\b"
)
"""Words that end a negotiation without a deal (`ok nevermind, I'll look elsewhere`); `good luck trying to find
someone` is a threat, not a goodbye."""
FAREWELL = re.compile(r"\b(have a (?:good|nice|great) (?:day|night|one|evening|weekend)|take care(?! of))\b")
CLOSING = re.compile(r"\b(sorry|can'?t|cannot|too (?:much|high|low|expensive)|afford|for your time|considering)\b")
"""With a farewell, these make it a goodbye without a deal (`thanks for considering it. have a good night`)."""
DEAL_DONE = re.compile(r"\b(doing business|pleasure|enjoy (?:it|the)|see you|pick (?:it )?up)\b")


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
    proposal = proposed(reading.prices)
    reading.price = proposal.value if proposal is not None else None
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
    if reading.agree and _agreement_withdrawn(benign):
        reading.agree = False
        reading.disagree = reading.disagree or "?" not in benign.split("but")[-1]
    sentences = [s.strip() for s in re.split(r"(?<=[.!?])\s+|\n", clean) if s.strip()]
    reading.question = "?" in text or any(QUESTION_START.match(s) for s in sentences)
    reading.asks_price = _asks_price(sentences)
    reading.greeting = bool(GREETING.match(clean))
    reading.leaving = _leaving(clean, reading)
    if reading.leaving:
        reading.agree = False  # `ok nevermind, I'll look elsewhere` agrees to nothing
    return reading


def _agreement_withdrawn(clean: str) -> bool:
    """`okay but that's too much`, `sounds good but I need it cheaper`: an assent taken back by what follows `but`."""
    contrast = list(CONTRAST.finditer(clean))
    if not contrast:
        return False
    tail = clean[contrast[-1].end():]
    return not _has_phrase(tail, AGREE_PHRASES) and bool(PUSHBACK.search(tail))


def _asks_price(sentences: list[str]) -> bool:
    """A question about the price; `how much is the deposit` asks about the deposit, not the price."""
    for sentence in sentences:
        if PRICE_ASK_ALONE.match(sentence):
            return True
        match = PRICE_QUESTION.search(sentence)
        if match is None:
            continue
        if match.group() == "how much" and any(ask.search(sentence) for _, ask, _ in _TOPIC_PATTERNS):
            continue
        return True
    return False


def _leaving(clean: str, reading: Reading) -> bool:
    """Whether the speaker ends the negotiation without a deal; a message naming a price still bargains."""
    if DEAL_DONE.search(clean):
        return False
    sentences = [s for s in re.split(r"(?<=[.!?])\s+|\n|\.{2,}", clean) if s.strip()]
    leave = [i for i, s in enumerate(sentences) if LEAVING.search(s) or (FAREWELL.search(s) and CLOSING.search(clean))]
    if not leave:
        return False
    priced = [i for i, s in enumerate(sentences) if re.search(r"\d", s)]
    return reading.price is None or not priced or leave[-1] > priced[-1]


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


# ---------------------------------------------------------------------- questions about the item
#
# A buyer's question is answered from the listing or honestly deflected: a line is given only when
# it speaks to the question's topic (`how many miles` needs a line with miles in it), never a random
# line. Each topic pairs the words that ask about it with the words a listing line needs to answer it.

TOPICS: tuple[tuple[str, str, str], ...] = (
    # (topic, question cue, listing cue); the first topic a question sentence names is the one asked
    ("schools", r"\bschools?\b", r"\bschools?\b"),
    ("noise", r"\bquiet|noisy|noise\b", r"\bquiet|noise|peaceful\b"),
    ("deposit", r"\bdeposit", r"\bdeposit"),
    ("pets", r"\bpets?\b|\bdogs?\b|\bcats?\b|\banimals?\b", r"\bpets?\b|\bdogs?\b|\bcats?\b|\banimals?\b"),
    ("smoking", r"\bsmok", r"\bsmok"),
    ("utilities", r"\butilit|\bwater\b|\bgas\b|\belectric|\binternet|\bwifi|\bcable tv|\bgarbage|\bbills?\b",
     r"\butilit|\bwater\b|\bgarbage|\bsewer|\binternet|\bcable\b|\belectric|\bgas\b|\bowner pays"),
    ("laundry", r"\blaundry|\bwasher|\bdryer|\bw/d\b|\bdishwasher", r"\blaundry|\bwasher|\bdryer|\bw/d\b|\bdishwasher"),
    ("parking", r"\bparking|\bgarage|\bcarport", r"\bparking|\bgarage|\bcarport"),
    ("lease", r"\blease|\bmonth to month|\bminimum stay|\bmove in", r"\blease|\bmonth to month|\bminimum|\bavailable (?:on|from)|\bmove in"),
    ("mileage", r"\bmiles\b|\bmileage|\bodometer", r"\d[\d,.]*\s*k?\s*(?:miles|mi)\b|\bmileage|\bodometer"),
    ("owner", r"\bowners?\b|\bowned by", r"\bowners?\b"),
    ("title", r"\btitle\b|\baccidents?\b|\bcrash", r"\btitle\b|\baccidents?\b"),
    ("unlocked", r"\bunlocked|\blocked\b|\bcarriers?\b|\bverizon|\bat&t|\bt-?mobile|\bsprint", r"\bunlocked|\blocked\b|\bcarriers?\b|\bgsm\b|\bverizon|\bat&t|\bt-?mobile|\bsprint"),
    ("battery", r"\bbatter(?:y|ies)", r"\bbatter(?:y|ies)"),
    ("tires", r"\btires?\b|\btyres?\b|\bbrakes?\b|\bchain\b", r"\btires?\b|\btyres?\b|\bbrakes?\b|\bchain\b"),
    ("service", r"\bmaintenance|\bservic|\btune|\boil change", r"\bmaintenance|\bservic|\btune|\boil\b"),
    ("interior", r"\binterior|\binsides?\b|\bseats?\b", r"\binterior|\bseats?\b|\bupholster"),
    ("color", r"\bcolou?r|\bis it (?:red|blue|black|white|green|grey|gray|silver|pink|brown)\b", r"\bcolou?r|\b(?:red|blue|black|white|green|grey|gray|silver|pink|brown|maple|cherry|gold)\b"),
    ("material", r"\bfirm or soft|\bsoft\b|\bmaterial|\bmade of|\bwood\b|\bleather", r"\bplush|\bsoft\b|\bfirm\b|\bpillowtop|\bwood|\bleather|\bmaterials?\b|\bvinyl|\bsteel|\baluminum|\bcarbon"),
    ("included", r"\bcome with|\binclud|\bcharger|\bcase\b|\bbox\b|\bbox springs?|\baccessor|\bcables?\b|\brails?\b",
     r"\binclud|\bcomes with|\bcharger|\bcase\b|\boriginal box|\baccessor|\bcables?\b"),
    ("capacity", r"\bhow many people|\bseats? how many|\bcan it fit|\bfit (?:how many|a crowd)", r"\bfits?\b|\bseats\b|\bcrowd|\bpeople\b"),
    ("size", r"\bsize\b|\bhow (?:big|tall|wide|long|large)\b|\bdimensions?|\bmeasure|\bsq(?:uare)? f", r"\d\s*(?:\"|inch|in\b|cm|ft\b|feet|sq)|\bsize\b|\bdimensions?|\bmeasures?|\bwidth|\bdepth|\bheight"),
    ("why", r"\bwhy (?:are you )?(?:selling|sell|getting rid|letting)", r"\bmoving|\bselling (?:to|because)|\bupgrad|\bno longer|\bheading|\bleaving|\bneed(?:s)? (?:the )?space|\bgone"),
    ("usage", r"\bride it|\bused? it (?:a lot|much|often)|\bhow much (?:use|wear)|\bis it used\b|\bever used", r"\bused\b|\bbarely|\brarely|\bnever\b|\bmonths? ago|\bbought|\b\d0s\b"),
    ("age", r"\bhow old|\bhow long (?:have you|ago|did you)|\bwhen did you (?:buy|purchase|get)|\bwhat year|\bage\b|\bowned\b",
     r"\byears? old|\bmonths? (?:old|ago)|\bbought|\bpurchased|\bsince (?:19|20)\d\d|\b(?:19|20)\d\d\b|\b\d0s\b|\bbrand new|\bvintage"),
    ("condition", r"\bcondition|\bshape\b|\bscratch|\bdamage|\bdents?\b|\bstains?\b|\brips?\b|\btears?\b|\bwrong\b|\bproblems?\b|\bissues?\b|\bdefect|\bwear\b|\bfix|\brepair|\bwork(?:s|ed|ing)?\b|\bfair\b",
     r"\bcondition|\bshape\b|\bexcellent|\bmint\b|\blike new|\bscratch|\bstains?\b|\brips?\b|\btears?\b|\bdamage|\bdents?\b|\bwear\b|\bworks\b|\bworking|\buntested|\bbroken|\bneeds (?:new|repair|work|fixing)|\bvery good|\bgood\b|\bgreat\b|\bfair\b|\bperfect|\bruns\b|\bdings?\b|\brust\b|\bcrack"),
)
_TOPIC_PATTERNS = [(name, re.compile(ask, re.I), re.compile(has, re.I)) for name, ask, has in TOPICS]
MILEAGE_NOT_ODOMETER = re.compile(r"\buntil\b|\bup to\b|\bwarrant|\bpackage\b|\bevery\b", re.I)
WONDER = re.compile(r"\b(?:curious|wondering|want to know|like to know|tell me)\b", re.I)
"""A sentence with these words asks, even without a question mark (`Curious as to your pet policy`)."""
AVAILABILITY = re.compile(r"\bstill (?:available|for sale|up|have)|\bis (?:it|this|the \w+) (?:still )?ava\w*ble\b|\bava\w*ble\s*\?|\bdo you (?:still )?have (?:a|an|the|it|this)\b.*\bfor sale|\bstill (?:selling|renting)", re.I)
NEGOTIATION = re.compile(r"\bprice\b|\bmake a deal|\bmeet (?:me|you|at|in)\b|\bwhat if you|\bwould you (?:take|accept|sell|consider|do|go)|\bcan (?:we|you) (?:do|go|meet|lower|come)|\boffer\b|\bdeal\b|\bdiscount|\bnegotiat|\blower\b", re.I)
SOCIAL = re.compile(r"\bhow are you|\bhow(?:'s| is| are)? (?:we|you|it) doing|\bwhat'?s up\b|\binterested in my\b|\binterest you\b|\bare you interested|\bhow(?:'s| is) (?:your|the) day", re.I)
META = re.compile(r"\b(?:can|could|may) i ask\b|\bquestions? (?:about|for you)\b", re.I)
DESCRIBE = re.compile(r"\btell me (?:more|a (?:bit|little)|about|some|anything)|\b(?:more|some) (?:info|information|details)|\binformation about|\bfeatures\b|\bdescribe\b|\banything (?:else )?i should know|\bwhy should i buy", re.I)


@dataclass(frozen=True)
class ListingAnswer:
    """How to answer a question about the item: a listing line, any line (`tell me about it`), or a deflection."""

    kind: str
    """`line` (answer with `line`), `describe` (any line will do), `deflect` (the listing does not say), or `other` (not a question about the item)."""
    line: int | None = None
    """Index into the listing's lines (title first, then the description)."""
    topic: str | None = None
    """What was asked about (`mileage`, `deposit`), when a topic was recognised."""
    text: str | None = None
    """The sentence of that line that speaks to the question."""


def _question_sentences(text: str) -> list[str]:
    sentences = [s.strip() for s in re.split(r"(?<=[.!?])\s+|\n", text) if s.strip()]
    return [s for s in sentences if s.endswith("?") or WONDER.search(s) or (QUESTION_START.match(s.lower()) and not re.match(r"(?i)what an? ", s))]


def answer_question(text: str, lines: list[str]) -> ListingAnswer:
    """Which line of the listing (title first, then description) answers `text`, or how else to reply.

    A line answers only when it speaks to the topic asked about; a topic the listing is silent on is
    deflected, so a question about the deposit never gets a line about bike storage.
    """
    questions = _question_sentences(text)
    if not questions:
        return ListingAnswer("other")
    asked = " ".join(questions)
    unanswered = None
    for sentence in questions:
        topic = next(((name, has) for name, ask, has in _TOPIC_PATTERNS if ask.search(sentence)), None)
        if topic is None:
            continue
        found = _answering_line(topic[0], topic[1], lines, sentence)
        if found is not None:
            return ListingAnswer("line", found, topic[0], _answering_sentence(lines[found], topic[1]))
        unanswered = unanswered or topic[0]
    if unanswered is not None:
        return ListingAnswer("deflect", None, unanswered)
    if DESCRIBE.search(asked):
        return ListingAnswer("describe")
    if AVAILABILITY.search(asked) or SOCIAL.search(asked) or NEGOTIATION.search(asked) or META.search(asked) or PRICE_QUESTION.search(normalize(asked)):
        return ListingAnswer("other")
    overlap = _overlapping_line(asked, lines)
    return ListingAnswer("line", overlap, None, lines[overlap].strip()) if overlap is not None else ListingAnswer("deflect")


def _answering_sentence(line: str, has: re.Pattern[str]) -> str:
    """The sentence of a long listing line that speaks to the topic (the whole line when short)."""
    parts = [part.strip() for part in re.split(r"(?<=[.!?])\s+", line.strip()) if part.strip()]
    return next((part for part in parts if has.search(part)), line.strip())


def _answering_line(topic: str, has: re.Pattern[str], lines: list[str], question: str) -> int | None:
    """The description line (else the title) that speaks to `topic`, preferring one sharing the question's words."""
    words = _content_words(question)
    best: tuple[int, int] | None = None
    for index, line in enumerate(lines):
        if not has.search(line) or (topic == "mileage" and MILEAGE_NOT_ODOMETER.search(line)):
            continue
        score = (0 if index == 0 else 100) + len(words & _content_words(line))
        if best is None or score > best[0]:
            best = (score, index)
    return best[1] if best is not None else None


_STOP = frozenset("the a an is it its it's this that these those are was were be been do does did you your i my me we our they them of to in on for with and or but so if at by from as have has had can could would will should any some there what how when where why which who about just really very".split())


def _content_words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z]+", text.lower()) if len(w) > 3 and w not in _STOP}


def _overlapping_line(question: str, lines: list[str]) -> int | None:
    """A description line sharing two content words with the question, when no topic was recognised."""
    words = _content_words(question)
    scored = [(len(words & _content_words(line)), index) for index, line in enumerate(lines) if index > 0]
    scored = [item for item in scored if item[0] >= 2]
    return max(scored)[1] if scored else None


# ---------------------------------------------------------------------- the labelled sets
#
# `price_labels.jsonl`, `question_labels.jsonl` and `leaving_labels.jsonl` (next to this module) label
# messages of the corpus's validation split by dialogue id and event index; the text stays in the
# corpus. Each item has a `split`: `dev` (tuned on), `test` and, for prices, `test2` (a larger test set labelled
# before the reader saw it) and `heldout` (labelled after the tuning); the test sets are never tuned on. See
# `benchmarks/bench_craigslist_understanding.py`.


@dataclass(frozen=True)
class LabelledMessage:
    """One labelled message with its listing (title first, then the description)."""

    split: str
    text: str
    listing_price: float
    lines: list[str]
    label: dict


def labelled_messages(name: str, corpus: str | Path) -> list[LabelledMessage]:
    """The items of one labelled set (`price`, `question`, `leaving`) joined with the corpus file they point into."""
    from importlib import resources

    dialogues = {d["uuid"]: d for d in json.loads(Path(corpus).read_text(encoding="utf-8"))}
    text = resources.files("duologue.tasks.craigslist").joinpath(f"{name}_labels.jsonl").read_text(encoding="utf-8")
    items = []
    for row in map(json.loads, text.splitlines()):
        dialogue = dialogues[row["dialogue"]]
        item = dialogue["scenario"]["kbs"][0]["item"]
        items.append(LabelledMessage(
            split=row["split"], text=dialogue["events"][row["event"]]["data"], listing_price=float(item["Price"]),
            lines=[item["Title"], *item["Description"]], label=row,
        ))
    return items

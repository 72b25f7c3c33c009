"""How a price mention sits in its sentence: refused, relative, a valuation, or put forward.

`prices.py` finds the numbers people write; this module reads the words around each one:

* `I can't do 100`, `90 is too low`, `5000 is a little on the low side`, `$120? That is way too much`, `$8??` refuse
  it (`negated`); `I can't go lower than 150` is not refused: it names the speaker's limit; a bare `no 152` answers,
  then counters; `no scratches, 150` only describes the item;
* `$50 off`, `knock 20`, `go up a thousand`, `500 towards the difference` are amounts off or on top (`relative`);
* `I paid $300`, `worth a grand`, `the deposit is $500`, `you are asking $600`, `I see you have the desk for 80`,
  `would you go lower than 250`, `in a bike shop it could go for $900`, `similar ones rent for 1500` are valuations,
  other costs, the other side's price, other things' prices or a comparison (`reference`), not a price put forward.

The rules name general shapes (who speaks, what is judged, whose price it is) rather than single phrases; each was
checked on reworded sentences (`tests/tasks/craigslist/test_price_generalisation.py`) as well as on the labelled set.
"""

from __future__ import annotations

import re

CURRENCY_AFTER = frozenset({"dollars", "dollar", "bucks", "buck", "usd", "dlls", "dolla", "dollas", "bux"})

RELATIVE_AFTER = frozenset({"off", "less", "more", "cheaper", "lower", "higher", "extra", "discount", "over", "under", "below", "above", "down", "towards", "toward",
                            "apart", "short", "difference"})
RELATIVE_BEFORE = frozenset({"knock", "knocked", "knocking", "by", "extra", "another", "additional", "plus"})
NEGATIONS = frozenset({"not", "no", "never", "refuse", "cannot", "can't", "cant", "won't", "wont", "don't", "dont", "couldn't", "wouldn't", "isn't", "nope", "nah"})
BOUND_WORDS = frozenset({"lower", "less", "below", "under", "higher", "more", "above", "over", "beyond", "further", "farther", "down", "up", "cheaper",
                         "better", "south", "north", "past", "exceed", "moving", "move", "budge", "budging"})
"""After a negation, these words make the number the speaker's limit (`can't go lower than 150`, `not moving from $20`)."""
REFERENCE_BEFORE = frozenset(
    """
    worth paid retail retails msrp kbb book appraised appraisal edmunds value values valued originally online elsewhere refurbished
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
OTHER_COSTS = frozenset({"deposit", "deposits", "fee", "fees", "tax", "taxes", "shipping", "utilities", "insurance", "mover", "movers", "bill", "bills",
                         "repair", "repairs"})
"""Words just before or right after a price that make it the price of something else (`the deposit is $500`, `$50 fee`,
`the bill shouldn't be more than 10$`)."""
QUOTED = re.compile(
    r"(?:you(?:'re| are| r)\s+(?:still\s+|currently\s+|now\s+)?asking(?:\s+for)?|(?:are|r)\s+you\s+firm\s+(?:at|on)(?:\s+the)?|"
    r"you(?:'re| are| r)\s+(?:still\s+|now\s+)?(?:selling|offering)(?:\s+(?:it|this|them))?(?:\s+for|\s+at)?|"
    r"(?<!let )you(?:'ve\s+(?:got|listed)|\s+(?:have|had|list|listed|got))\s+(?:it|this|them|(?:a|an|the|your|this|that)\s+(?!deal\b|offer\b)[a-z]+(?:\s+[a-z]+)?)"
    r"(?:\s+listed|\s+up)?\s+(?:for|at)|\bis\s+up\s+for|"
    r"\b(?:is|was)\s+that|\b(?:did\s+)?you\s+(?:mean|said)|\byou(?:'ve|\s+have)?\s+offered(?:\s+me)?|"
    r"\b(?:the|your|ur)\s+(?:ad|add|listing|post|posting)\s+(?:says|said|shows|lists|listed|reads)(?:\s+(?:it|it's|its|is))?(?:\s+(?:for|at))?|\bit\s+(?:says|said)|\bhow\s+firm\s+(?:are\s+you\s+)?(?:on|at)(?:\s+the)?)\s*(?:\$|usd)?\s*$"
)
"""Before a price, words that quote the other side's ask or offer (`I see you are asking $1825`, `are you firm at 60?`, `is that $290 a month?`,
`your ad says 250`, `you offered 230 before`; but `I accept your offer of 230` agrees on it,
`I see you have the desk for 80 dollars`; but `you have a deal at 50` offers)."""
SEEING = re.compile(r"\bi(?:'ve|\s+have)?\s+(?:see|saw|seen|notice|noticed)\s+(?:that\s+)?(?P<what>you|your|it|it's|its|they|their|the|this|similar|other|others|some|ones?)\b(?P<rest>[^.!?]*)$")
"""`I see your desk is up for 600`, `I've seen similar ones go for about $800`: what the speaker saw is a price already
set, the other side's or someone else's, unless the speaker then speaks for themself (`I see you have it for 160 but I can do 100`)."""
OWN_TURN = re.compile(r",|\b(?:i|i'm|i'd|i'll|i've|im|id|ill|we|we're|we'd|we'll|me|my|but|and|so|if|hopefully|please|can|could|would|will|might|wondering)\b")
"""After what the speaker saw, words that start their own say (`I see it is scratched, maybe you can do $14?`)."""
QUOTED_AFTER = re.compile(r"^\s*(?:dollars?|bucks?)?\s*(?:that\s+|is\s+what\s+)?you(?:'re| are| r|'ve| have)?\s+(?:still\s+)?(?:asking|listed|selling|want|wanted|quoted)\b")
"""After a price, words that make it the other side's ask (`how firm are you on the $190 you are asking?`, `250 is what you're asking?`)."""
FIRMNESS_ASKED = re.compile(
    r"^\s*(?:dollars?|bucks?)?\s*(?:is\s+)?(?:firm|negotiable|final|set\s+in\s+stone|your\s+(?:lowest|best|final|bottom)|"
    r"the\s+(?:lowest|best|least|most|final)\b[^.!?]*\byou)[^.!]*\?"
)
"""After a price, a question whether it is the other side's last word (`is 250 firm?`, `is $250 the best you can do?`)."""
ASKING_OPENERS: tuple[list[str], ...] = ([], ["is"], ["is", "the"], ["so"], ["so", "is"], ["so", "the"], ["the"], ["and"], ["and", "is"])
TOO_MUCH = re.compile(
    r"^\s*(?:dollars?|bucks?)?\s*(?:(?:it|that|this)(?:'s|\s+is)|is|seems|sounds|was|looks|feels|'s|(?:might|may|would|could|will|must)\s+be)?\s*(?:still\s+)?"
    r"(?:a\s+(?:bit|little|tad)\s+|kind\s+of\s+|kinda\s+|way\s+|pretty\s+|rather\s+|quite\s+|really\s+|very\s+|far\s+|just\s+|much\s+|[a-z]+ly\s+)*"
    r"(?:too\b(?!\s+(?:good|great|nice|kind)\b)|to\s+(?=(?:high|low|much|steep|expensive|pricey)\b)|much\b(?!\s+(?:better|more|less|lower|higher|cheaper))|"
    r"(?:low|high)\b(?!\s+(?:quality|end))|steep\b|pricey\b|pricy\b|expensive\b|overpriced\b|(?:of\s+)?an?\s+(?:upsell|stretch|reach)\b|a\s+lot\b(?!\s+(?:better|more|less|lower|higher|cheaper))|"
    r"on\s+the\s+(?:low|high|steep|pricey|expensive)\s+side\b|(?:doesn'?t|does\s+not|won'?t|will\s+not)\s+(?:cover|cut)\b|"
    r"(?:isn'?t|is\s+not|not)\s+(?:quite\s+|nearly\s+|really\s+)?enough\b|(?:isn'?t|is\s+not|not)\s+(?:in|within)\s+(?:my|our|the)\s+(?:budget|price\s+range|range)|"
    r"asking\s+(?:a\s+lot|too\s+much)|pushing\s+it\b|(?:lower|less|below|under|higher|above)\s+(?:than|what)\s+(?:i|we)\b|(?:out\s+of|over|above|beyond|outside(?:\s+of)?)\s+(?:my|the|our)\s+(?:budget|price\s+range|range)|"
    r"(?:isn'?t|is\s+not|not)\s+(?:quite\s+|really\s+)?(?:reasonable|fair|acceptable|doable|possible|an\s+option)\b|"
    r"(?:won'?t|will\s+not|doesn'?t|does\s+not|wouldn'?t|would\s+not|(?:is\s+not|isn'?t|not)\s+(?:going\s+to|gonna))\s+(?:really\s+)?(?:work|do\b|cut\s+it)|"
    r"more\s+than\s+(?:i|we)\b|unreasonable|absurd|crazy|insane|outrageous|laughable|ridiculous|insulting|(?:a\s+)?joke\b|way\s+off\b|"
    r"out\s+of\s+the\s+question)"
)
"""After a price, words that refuse it (`90 is too low`, `$10995 is a bit much`, `2250 might be a bit of an upsell`,
`5000 is a little on the low side`, `$5000 doesn't cover it`, `$300 won't work`, `$900 is over my budget`, `$40 is insulting`,
`200 isn't in my budget`, `at 250 it's too much`, `200 is lower than I'd like`)."""
THEN_REFUSED = re.compile(
    r"^\s*(?:dollars?|bucks?)?\s*\?+\s*(?:no\s+way|come\s+on|i\s+don'?t\s+think\s+so|not\s+a\s+chance|(?:are\s+)?you\s+(?:must\s+be\s+)?(?:kidding|joking|serious)|"
    r"seriously|no+\b(?!\s+(?:problem|problems|worries|worry|rush|pressure|hurry)\b))"
)
"""A price asked back, then refused in the next words (`200? No way`, `200? Come on`, `200? I don't think so`)."""
THEN_JUDGED = re.compile(r"^\s*(?:dollars?|bucks?)?\s*(?:for\s+(?:it|this|that|them)\s*)?[.?!]+\s+(?:that|this)(?:'s|s)?\b")
"""A price that ends its sentence, then `That is a bit too much` in the next: the judgement is of that price."""

REFERENCE_AFTER = re.compile(r"^\s*(?:dollars?|bucks?)?\s*(?:(?:just\s+)?for\s+(?:the\s+|a\s+|an\s+|my\s+)?(?:gas|u-?haul|delivery|movers?|moving|shipping|storage|parking|repairs?)\b|when i (?:bought|got|paid)|into\b|new\b|retail\b|value\b|worth\s+of\b|brand new|originally|online|at the store|in stores?|(?:now\s+)?for\s+(?:my|our)\s+(?:current|old|other|last|previous)\b)")

DEGREE_WORDS = frozenset({"low", "high", "much", "little", "far", "cheap", "expensive"})
CLAUSE_BREAKS = frozenset({"but", "and", "though", "however", "so", "or", "instead"})

_WORD = re.compile(r"[a-z]+(?:'[a-z]+)?|\$|%")
_SENTENCE_END = re.compile(r"[.!?;](?=\s|$)|\n")
_STANDALONE_NUMBER = re.compile(r"(?<![a-z0-9])\d[\d,.]*(?![a-z0-9])")


def words_before(text: str, index: int, count: int = 4) -> list[str]:
    """The last `count` words before `index`, lowercased; a clause break (`. , ; !`) cuts the window."""
    window = text[max(0, index - 60):index].lower()
    cut = max(window.rfind(mark) for mark in ".;!?\n")
    if cut >= 0:
        window = window[cut + 1:]
    return _WORD.findall(window)[-count:]


def words_after(text: str, index: int, count: int = 4) -> list[str]:
    """The first `count` words after `index`, lowercased; the end of the sentence cuts the window (`They are $220. $80 off`)."""
    window = _SENTENCE_END.split(text[index:index + 40].lower(), maxsplit=1)[0]
    return _WORD.findall(window)[:count]


def clause_before(text: str, index: int) -> list[str]:
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
NOT_REFUSING = frozenset(
    """
    mind problem problems worries worry bad rush hurry pressure doubt idea need
    pets pet smokers smoking smoke kids children damage damages scratches scratch stains stain rips tears dents marks rust
    leaks holes accidents accident issues issue wear repairs used worn been included noticeable technically
    """.split()
)
"""After `no` or `not`, words that describe the item or wave a worry away (`no damage I would like to get $340`, `no rush,
150 works`), so the negation refuses no price."""
THINKING = frozenset({"think", "believe", "suppose", "guess", "know", "expect", "imagine", "feel", "see", "sure", "want", "say"})
"""`I don't think I can do 100` still refuses 100: the negation reaches through these to the next `I`."""


def _is_negated(clause: list[str]) -> bool:
    """A refusal (`not 100`, `can't do 100`) unless a bound word turns it into a limit (`can't go below 100`)."""
    negation_at = [i for i, word in enumerate(clause) if (word in NEGATIONS or word.endswith("n't")) and not (clause[i + 1:i + 2] and clause[i + 1] in NOT_REFUSING)]
    if not negation_at:
        return False  # `if you do not mind, accept my offer of $1500` refuses nothing
    after = clause[negation_at[-1] + 1:]
    speaker = next((i for i, word in enumerate(after) if word in SPEAKERS or (word in ("my", "our") and after[i + 1:i + 2] and after[i + 1] in LIMIT_NOUNS)), None)
    strong = clause[negation_at[-1]:negation_at[-1] + 2] == ["no", "way"]
    if speaker is not None and not strong and not any(word in THINKING for word in after[:speaker]):
        return False  # `it has no damage I would like to get $340`: the negation ended before a new `I ...`; but `no way I'm paying 200`
    if after[-2:-1] and after[-2] in BOUND_WORDS and after[-1] == "to":
        return True  # `I can't go down to 200` refuses 200; `I can't go lower than 200` names a limit
    return not any(word in BOUND_WORDS for word in after)


def judge(text: str, start: int, end: int) -> tuple[bool, bool]:
    """(negated, reference) for the price at `text[start:end]`, from the words of its clause and after it."""
    lowered = text.lower()
    clause = clause_before(text, start)
    rest = lowered[end:]
    answer = clause in (["no"], ["nope"], ["nah"]) or (clause == ["not"] and rest.lstrip().startswith("?"))
    then = THEN_JUDGED.match(rest)
    proposing = bool(PROPOSING & set(clause))
    if re.match(r"\s*(?:dollars?|bucks?)?\s*(?:\?\s*[?!]|!\s*\?)", rest) and not proposing:
        return True, False  # `$8??`, `40?!`: the other side's number echoed in disbelief; but `how about 40??` proposes
    judged = bool(TOO_MUCH.match(rest)) or bool(then and TOO_MUCH.match(rest[then.end():])) or bool(THEN_REFUSED.match(rest) and not proposing)
    if judged and (_owned_up(clause) or (clause in (["is"], ["would"], ["will"]) and re.match(r"[^.!]*\?", rest))):
        judged = False  # `I know 140 is low, but ...`, `sorry if 140 is too low`, `is 140 too low?`: the speaker's own offer
    negated = (_is_negated(clause) and not answer) or judged
    # `no 152`, `not $2000?`: a bare no answers, then counters; `$120? That is way too much` refuses 50
    reference = _is_reference(clause, lowered[:start], rest) or _is_compared(clause)
    if reference and _LIMIT_AFTER.search(re.split(r"[.!?\n]", rest)[0]):
        reference = False  # `I paid $60 for this, so I'm not going any lower than that`: what it cost becomes the limit
    return negated, reference


PROPOSING = frozenset({"about", "take", "do", "offer", "pay", "give", "accept", "would", "could", "can", "will", "i", "i'd", "i'll", "im", "i'm", "we"})
"""Words before a price that make it the speaker's own proposal, however many question marks follow (`how about 12500??`)."""
OWNING_UP = (("i", "know"), ("i", "realize"), ("i", "realise"), ("i", "understand", "that"), ("sorry", "if"), ("i", "hope"), ("i", "admit"))


def _owned_up(clause: list[str]) -> bool:
    """`I know 140 is low`, `sorry if 140 is too low`: the speaker owns that their own number is low or high, and offers it."""
    return any(tuple(clause[i:i + len(words)]) == words for words in OWNING_UP for i in range(len(clause)))


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
    last = [w for w in _WORD.findall(head[-30:]) if w != "$"][-2:]
    if last in COMPARED_WITH or last[-1:] in (["versus"], ["vs"]):
        return True  # `can we do 140 instead of 150?`, `could you come down from 150`: the price compared with
    if any(word in OTHER_COSTS and COPULAS & set(clause[i + 1:]) and not SPEAKERS & set(clause[i + 1:]) for i, word in enumerate(clause)):
        return True  # `the bill shouldn't be more than 10$`; but `since utilities are included I could do 2150` offers
    if any(word == "new" and clause[i + 1:i + 2] and clause[i + 1] in NEW_ONES for i, word in enumerate(clause[-5:-1], start=max(0, len(clause) - 5))):
        return True  # `new ones go for $300`; but `the new price is 250` and `meet at the "new" middle of $250` are offers
    following = _WORD.findall(rest[:30])
    if following[:1] and following[0] in OTHER_COSTS and not re.match(r"\s*(?:\+|&|plus\b|and\b)", rest):
        return True  # `$500 deposit`; but `1800 + deposit` is a price with a cost on top
    if any(word in ("in", "at", "on") and set(clause[i + 1:i + 4]) & ELSEWHERE for i, word in enumerate(clause)):
        return True  # `in a bike shop one in this condition could go for $900`
    if _is_market(clause):
        return True  # `similar places rent for around $2000`, `you won't find one for less than $1800`
    sentence = re.split(r"[.!?\n]", head)[-1]
    seen = SEEING.search(sentence)
    if seen and not OWN_TURN.search(seen.group("rest")):
        return True  # `I see your desk is up for 600`, `I've seen similar ones go for about $800`
    if re.search(r"\bof which\b", sentence):
        return True  # `$137, of which $112 in cash and $25 as a gift card`: parts of the price named first
    if clause in ASKING_OPENERS and FIRMNESS_ASKED.match(rest):
        return True  # `is 250 firm?`, `so 250 is the lowest you'll go?`: the other side's price asked about
    return bool(REFERENCE_AFTER.match(rest)) or bool(QUOTED.search(head)) or bool(QUOTED_AFTER.match(rest))


COMPARED_WITH = (["instead", "of"], ["rather", "than"], ["compared", "to"], ["compared", "with"], ["down", "from"], ["up", "from"])

OTHER_THINGS = frozenset(
    """
    they those these ones others other similar comparable anything something everything houses homes places apartments
    rentals units cars trucks bikes phones couches
    """.split()
)
MARKET_VERBS = frozenset("market go goes going went sell sells selling sold run runs running rent rents renting cost costs listed priced find found".split())
ASKING = re.compile(r"\b(?:would|could|can|will|won't|wouldn't|couldn't)\s+(?:you|u)\b")


def _is_market(clause: list[str]) -> bool:
    """What other things go for (`similar places rent for around $2000`, `you won't find one for less than $1800`): the
    clause names other things, or finding, and how they sell, and neither the speaker nor a request to the other side is in it."""
    words = set(clause)
    if not ((OTHER_THINGS & words or {"find", "found"} & words) and MARKET_VERBS & words) or SPEAKERS & words or {"my", "our", "me"} & words:
        return False
    return not ASKING.search(" ".join(clause))


HEDGES = frozenset({"about", "around", "roughly", "like", "maybe", "another", "just", "only"})
MOVING = frozenset({"go", "going", "goes", "went", "come", "coming", "came", "move", "bump", "step"})
COPULAS = frozenset({"is", "be", "was", "are", "were", "will", "would", "should", "shouldn't", "won't", "wouldn't", "cost", "costs", "runs", "comes"})
LOWERING = frozenset({"lower", "drop", "reduce", "cut", "knock", "discount", "shave", "raise", "up", "bump"})


def is_relative(before: list[str], after: list[str]) -> bool:
    following = [w for w in after if w not in CURRENCY_AFTER and w != "$"]
    if following and following[0] in RELATIVE_AFTER:
        return not (before and before[-1] == "or")  # `150 or less` names a price
    if before[-2:-1] and before[-2] in LOWERING and before[-1] in ("it", "that", "this", "them", "by"):
        return True  # `if you lower it $500`
    moved = before[:-1] if before[-1:] and before[-1] in HEDGES else before
    if moved[-1:] in (["up"], ["down"]) and moved[-2:-1] and moved[-2] in MOVING:
        return True  # `I can go up a thousand`, `come down about 50`; `go up to 500` names the price
    if any(word in ("save", "saving") for word in before[-3:]):
        return True  # `I was hoping to save at least 100-200`
    return bool(before) and (before[-1] in RELATIVE_BEFORE or before[-1] == "off" or before[-2:] == ["off", "the"])  # `knock off the $600`

"""Does a reply fit its place in a CraigslistBargain dialogue? The automatic check of the modular benchmark.

`context_fit` reads a reply with the partner's last message, the listing and what was said before,
and names the first way it does not fit: words tied to another item or dialogue (`common` leaves
out the words people use about a listing that says them: `iphone`, `chair`), an opening that
reacts to nothing, a claim the listing does not back (`I paid`, `it's old`, a warranty), small talk
over a price on the table or a stand on it (`I can't go higher`), a question left unanswered, an
answer to a question nobody asked (`Pretty good thanks!`), a greeting in the middle of the
bargaining, asking again whether the item is available, a deal closed that nobody made. The modular agent uses it to choose among retrieved lines; `benchmarks/bench_modular_fit.py`
measures it and its agreement with replies read by hand.
"""

from __future__ import annotations

import re
from typing import Iterable, Sequence

from duologue.modular.retrieval import _stem, content_words, ungrounded_words
from duologue.tasks.craigslist.reading import Reading, answer_question, read_message

CLAIMS = re.compile(
    r"\b(brand new|like new|new|mint|perfect(?:ly)?|excellent|barely|never used|flawless|pristine|no scratch\w*|no dents?|"
    r"no (?:problems|issues)|works (?:great|perfectly|fine)|warranty|high (?:miles|mileage)|(?:miles|mileage) (?:is|are) (?:too |very |really )?high|(?:it'?s|its|it is) (?:really |very |pretty |so )?old|i paid|"
    r"(?:had|used|owned) (?:it|this|them) for [\w ]*?(?:years?|months?|weeks?))\b",
    re.I,
)
"""Claims about the item's state (or what comes with it) that only its listing can back."""
BACKING = {
    "had": re.compile(r"\b(?:years?|months?|weeks?) old\b|\bbought\b|\bsince\b", re.I),
    "old": re.compile(r"\bold\b|\bantique|\bvintage|\bretro\b|\bclassic\b|\b(?:19|20)\d\d\b|\b\d0s\b|\byears?\b|\bcentury\b", re.I),
}
"""What backs a claim whose words a listing would not repeat: how long it was owned, that it is old."""


def unbacked_claims(text: str, listing: str) -> list[str]:
    """Claims about the item (`this is brand new`) in statements whose key word the listing does not use."""
    found = []
    for sentence in re.split(r"(?<=[.!?])\s+", text):
        if sentence.strip().endswith("?"):
            continue
        for match in CLAIMS.finditer(sentence):
            claim = match.group(1).lower()
            if claim.startswith(("had ", "used ", "owned ")):
                backed = BACKING["had"].search(listing) is not None
            elif claim.endswith(" old"):
                backed = BACKING["old"].search(listing) is not None
            else:
                backed = re.search(rf"\b{re.escape(claim)}\b", listing, re.I) is not None
            if not backed:
                found.append(match.group(1))
    return found


SOCIAL_ONLY = re.compile(
    r"(?:(?:hi|hello|hey|hello there|thanks?|thank you(?: so much)?|great|wonderful|see you(?: then| soon)?|"
    r"i am (?:good|fine|wonderful|great)|how are you(?: today)?|and you|ok|okay|cool|awesome)[\s,.!?]*)+"
)
"""A reply that only greets, thanks or says goodbye."""
LATE_OPENING = re.compile(r"\b(?:interested in (?:your|the|this)|still (?:available|for sale)|tell me (?:a bit |more )?about (?:the|it|your)|is (?:it|this) available)\b", re.I)
"""An opening line: said after prices were named, it starts the dialogue over."""
PRICE_ASKED = re.compile(r"\b(?:what(?:'s| is) (?:the|your) (?:price|asking)|how much (?:is|are|do you want)|what are you asking)\b", re.I)
YES_NO_ANSWER = re.compile(r"^(?:yes,? i (?:am|do)|no,? i (?:am not|do not|don'?t)|i am,|i am\b(?! (?:firm|asking|looking|willing|sorry|only|not)))")
"""How an answer to a yes/no question begins (`no i do not`, `I am, would you ...`)."""
ASKS_FOR_A_PRICE = re.compile(r"\b(?:what (?:did|do) you have in mind|what(?:'s| is) your (?:budget|offer|best)|what would you (?:pay|offer)|how much would you like to spend|what(?:'s| is) the price|how much (?:is|are) (?:it|they|the price))\b", re.I)
GREETING_LINE = re.compile(r"^\s*(?:hi|hello|hey|good (?:morning|afternoon|evening))\b|\bhow(?:'s| is|s)? it going\b|\bhow are you\b|\bwhat'?s up\b", re.I)
UNSURE_SAID = re.compile(r"\b(?:not sure|doesn'?t say|rather not guess|don'?t know|no idea)\b", re.I)
PRAISE_START = re.compile(r"^\W*(?:oh,? )?(?:cool|great|awesome|nice|perfect|excellent|wonderful|sounds (?:good|nice|great)|good to know)\b", re.I)
"""A reply that welcomes news (`Oh cool.`): it does not fit an `I don't know`."""
GREETING_START = re.compile(r"^\W*(?:hi|hello|hey|what'?s up|sup)\b", re.I)
AVAILABLE_SAID = re.compile(r"\b(?:is|it'?s|still) (?:still )?available\b(?!\s*\?)", re.I)
"""A statement that the item is available (asking it again starts over)."""
ASKS_AVAILABLE = re.compile(r"\b(?:available|for sale)\b[^.!?]*\?", re.I)
CLOSING_LINE = re.compile(r"\b(?:nice|pleasure|good) doing business\b|\bdoing business with\b|\bthanks? (?:you )?for being reasonable\b|^\s*thank you!?\s*$|^\s*thanks!?\s*$", re.I)
ANSWER_START = re.compile(r"^\s*(?:yes|yeah|yep|no|nope|sure|it(?:'s| is| has| does| was| comes)|they(?:'re| are)|there(?:'s| is)|i(?:'m| am) not sure|not sure|i (?:don't|do not) know|the listing|i (?:would|will|can|could|'d)|just|for my|i(?:'m| am) making|i just|good question)\b", re.I)


PRICE_TALK = re.compile(r"\b(?:lowest|highest|come down|go (?:lower|higher|up|down)|too (?:high|low|much|steep)|firm|deal|budget|afford|offer|meet (?:me|you|in the middle)|price)\b", re.I)
"""Words that take up a price without naming one (`what's the lowest you would take?`)."""


def _answers(reply: str, question: str, lines: Sequence[str]) -> bool:
    """Whether a reply takes up a question: it answers yes or no, says what it is, or shares the question's words."""
    if ANSWER_START.search(reply):
        return True
    if any(len(content_words(reply) & content_words(line)) >= 2 for line in lines):
        return True  # it says what the listing says (its title included: `Like new, as the listing says`)
    stems = lambda text: {_stem(w) for w in content_words(text)}  # noqa: E731
    return bool(stems(reply) & (stems(question) - {"you", "your", "have", "doe", "are", "any"}))


def _quotes_listing(said: Reading, lines: Sequence[str]) -> bool:
    """Whether the one price read in a message is a number quoted from the listing (`72k miles`), not a price."""
    listing = " ".join(lines)
    return all(mention.text in listing for mention in said.prices if mention.value == said.price)


REACTION_START = re.compile(r"^(?:that|this|those|it'?s|no\b|yes|yeah|ok|okay|sure|sounds|wow|great|i see|thanks|thank you|deal|fine|agreed|too)\b", re.I)
"""How a line that reacts to something begins; no opening line can (`That is very unfair`)."""
SMALL_TALK_ANSWER = re.compile(
    r"^\W*(?:(?:i'?m|i m|im|i am) (?:good|fine|great|well|doing)|doing (?:well|good|great|fine)|(?:pretty |very |really )?(?:good|fine|great|well),? (?:thanks|thank you|how are you|and you))\b", re.I
)
"""How an answer to `how are you` begins."""
HOW_ARE_YOU = re.compile(r"\bhow(?:'s| is| are|s)? (?:you|it going|things|your day|are you doing|you doing)\b|\bhow(?:'re| are) you\b", re.I)
PRICE_STANCE = re.compile(
    r"\b(?:can'?t|cannot|won'?t) (?:go|do|pay|spend) (?:any )?(?:higher|lower|more|less|further)|\ball i can (?:spend|pay|do|afford)|"
    r"\bfinal (?:offer|price)\b|\bfirm\b|\b(?:my|the|your) budget\b|\btoo (?:high|low|much|steep)\b|\b(?:my|the) (?:best|lowest|highest) i can\b|"
    r"\bmost i can\b|\bas (?:low|high|much) as i can\b|\b(?:come|go) (?:down|up|lower|higher)\b",
    re.I,
)
"""A stance on the price without naming one (`I can't go higher than that, sorry`): a reply takes it up."""
AGREEING = re.compile(r"\b(?:i (?:will|can|could) do that|(?:that|it) (?:will |would )?works?(?: out)?(?: for me)?|sounds (?:good|fair|great|fine)|you have a deal|it'?s yours|deal)\b", re.I)
"""Agreement in words the message reader may not count (`If you come today, I will do that`)."""


def context_fit(reply: str, *, partner_said: str, lines: Sequence[str], history: Sequence[str], common: Iterable[str]) -> tuple[bool, str]:
    """Whether a reply fits its context, and why not: the automatic check of the modular benchmark.

    * grounded: every content word is common bargaining talk or was said in the listing or the dialogue
      (no `convertible` about a sedan, no `haunted` out of nowhere);
    * an opening does not react to something nobody said (`That is very unfair` as a first line);
    * a question about the item that the listing can answer gets an answer or an honest "I don't know",
      not a line about something else.
    """
    common = frozenset(common)
    stray = ungrounded_words(reply, [*lines, *history], common)
    if stray:
        return False, f"not grounded: {', '.join(sorted(stray))}"
    if not history and REACTION_START.match(reply.strip()):
        return False, "reacts as an opening"
    claims = unbacked_claims(reply, " ".join(lines))
    if claims:
        return False, f"claims what the listing does not say: {', '.join(claims)}"
    said = read_message(partner_said, listing_text=lines) if partner_said else None  # `QuietComfort 35` names no price
    mine = read_message(reply, listing_text=lines)
    social = SOCIAL_ONLY.fullmatch(reply.strip().lower()) is not None
    if said is not None and social and not (said.greeting or said.agree or said.leaving or re.search(r"\bthank", partner_said, re.I)):
        return False, "ignores what was said"
    if said is not None and social and said.greeting and not GREETING_START.match(reply) and re.search(r"\bthank", reply, re.I) and said.price is None:
        return False, "thanks a greeting instead of greeting back"
    if UNSURE_SAID.search(partner_said) and PRAISE_START.match(reply):
        return False, "welcomes an I-don't-know as news"
    priced_before = any(read_message(text, listing_text=lines).prices for text in history)
    if priced_before and ((LATE_OPENING.search(reply) and not LATE_OPENING.search(partner_said)) or (mine.asks_price and PRICE_ASKED.search(reply))):
        return False, "goes back to the start"
    if said is not None and YES_NO_ANSWER.match(reply.strip().lower()) and "?" not in partner_said and "interest" not in partner_said.lower():
        return False, "answers a question nobody asked"
    if SMALL_TALK_ANSWER.match(reply) and not HOW_ARE_YOU.search(partner_said):
        return False, "answers a question nobody asked"
    if said is not None and said.prices and ASKS_FOR_A_PRICE.search(reply):
        return False, "asks for a price just named"
    own_turns = len(history) // 2
    greeted = len(history) >= 3 or (len(history) == 2 and GREETING_START.match(history[0]) is not None)  # my own hello came first
    if (GREETING_LINE.search(reply) and own_turns >= 2) or (greeted and GREETING_START.match(reply)):
        return False, "greets in the middle of the bargaining"
    if ASKS_AVAILABLE.search(reply) and not ASKS_AVAILABLE.search(partner_said) and any(AVAILABLE_SAID.search(text) for text in history):
        return False, "asks what was already answered"
    if CLOSING_LINE.search(reply) and not (mine.agree or (said is not None and said.agree)) and not mine.prices:
        return False, "closes a deal nobody made"
    if said is not None and said.price is not None and not said.leaving and not _quotes_listing(said, lines):
        if not (mine.prices or mine.agree or mine.disagree or mine.asks_price or PRICE_TALK.search(reply)):
            return False, "ignores the price on the table"
    elif said is not None and priced_before and not said.question and not said.leaving and PRICE_STANCE.search(partner_said):
        if not (mine.prices or mine.agree or mine.disagree or mine.asks_price or PRICE_TALK.search(reply) or AGREEING.search(reply)):
            return False, "ignores the price talk"
    elif said is not None and said.question and not said.leaving:
        if said.asks_price and not mine.prices and not re.search(r"\b(?:offer|budget|you (?:think|want|have in mind))\b", reply, re.I):
            return False, "does not answer the price question"
        if not said.asks_price and not _answers(reply, partner_said, lines):
            return False, "ignores the question"
    if partner_said:
        asked = answer_question(partner_said, list(lines))
        if asked.kind == "line" and asked.text:
            about = content_words(asked.text) | content_words(partner_said)
            answered = bool(content_words(reply) & about) or bool(re.search(r"\b(?:not sure|don'?t know|doesn'?t say|no idea)\b", reply, re.I))
            if not answered and not read_message(reply).prices:
                return False, f"ignores the question about {asked.topic or 'the item'}"
    return True, ""

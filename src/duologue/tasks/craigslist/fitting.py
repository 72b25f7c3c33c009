"""Does a reply fit its place in a CraigslistBargain dialogue? The automatic check of the modular benchmark.

`context_fit` reads a reply with the partner's last message, the listing and what was said before,
and names the first way it does not fit: words tied to another item or dialogue, an opening that
reacts to nothing, a claim the listing does not back, small talk over a price on the table, a
question left unanswered, a greeting in the middle of the bargaining, a deal closed that nobody
made. The modular agent uses it to choose among retrieved lines; `benchmarks/bench_modular_fit.py`
measures it and its agreement with replies read by hand.
"""

from __future__ import annotations

import re
from typing import Iterable, Sequence

from duologue.agents.modular import _stem, content_words, ungrounded_words
from duologue.tasks.craigslist.reading import answer_question, read_message

CLAIMS = re.compile(
    r"\b(brand new|like new|new|mint|perfect(?:ly)?|excellent|barely|never used|flawless|pristine|no scratch\w*|no dents?|"
    r"no (?:problems|issues)|works (?:great|perfectly|fine)|(?:had|used|owned) (?:it|this|them) for [\w ]*?(?:years?|months?|weeks?))\b",
    re.I,
)
"""Claims about the item's state that only its listing can back."""


def unbacked_claims(text: str, listing: str) -> list[str]:
    """Claims about the item (`this is brand new`) in statements whose key word the listing does not use."""
    found = []
    for sentence in re.split(r"(?<=[.!?])\s+", text):
        if sentence.strip().endswith("?"):
            continue
        for match in CLAIMS.finditer(sentence):
            claim = match.group(1).lower()
            if claim.startswith(("had ", "used ", "owned ")):
                backed = re.search(r"\b(?:years?|months?|weeks?) old\b|\bbought\b|\bsince\b", listing, re.I) is not None
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
GREETING_LINE = re.compile(r"^\s*(?:hi|hello|hey|good (?:morning|afternoon|evening))\b|\bhow(?:'s| is|s)? it going\b|\bhow are you\b", re.I)
CLOSING_LINE = re.compile(r"\b(?:nice|pleasure|good) doing business\b|\bthanks? (?:you )?for being reasonable\b|^\s*thank you!?\s*$|^\s*thanks!?\s*$", re.I)
ANSWER_START = re.compile(r"^\s*(?:yes|yeah|yep|no|nope|sure|it(?:'s| is| has| does| was| comes)|they(?:'re| are)|there(?:'s| is)|i(?:'m| am) not sure|not sure|i (?:don't|do not) know|the listing|i (?:would|will|can|could|'d)|just|for my|i(?:'m| am) making|i just|good question)\b", re.I)


PRICE_TALK = re.compile(r"\b(?:lowest|highest|come down|go (?:lower|higher|up|down)|too (?:high|low|much|steep)|firm|deal|budget|afford|offer|meet (?:me|you|in the middle)|price)\b", re.I)
"""Words that take up a price without naming one (`what's the lowest you would take?`)."""


def _answers(reply: str, question: str, lines: Sequence[str]) -> bool:
    """Whether a reply takes up a question: it answers yes or no, says what it is, or shares the question's words."""
    if ANSWER_START.search(reply):
        return True
    if any(len(content_words(reply) & content_words(line)) >= 2 for line in lines[1:]):
        return True  # it says what the listing says
    stems = lambda text: {_stem(w) for w in content_words(text)}  # noqa: E731
    return bool(stems(reply) & (stems(question) - {"you", "your", "have", "doe", "are", "any"}))


REACTION_START = re.compile(r"^(?:that|this|those|it'?s|no\b|yes|yeah|ok|okay|sure|sounds|wow|great|i see|thanks|thank you|deal|fine|agreed|too)\b", re.I)
"""How a line that reacts to something begins; no opening line can (`That is very unfair`)."""


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
    said = read_message(partner_said) if partner_said else None
    mine = read_message(reply)
    social = SOCIAL_ONLY.fullmatch(reply.strip().lower()) is not None
    if said is not None and social and not (said.greeting or said.agree or said.leaving or re.search(r"\bthank", partner_said, re.I)):
        return False, "ignores what was said"
    priced_before = any(read_message(text).prices for text in history)
    if priced_before and (LATE_OPENING.search(reply) or (mine.asks_price and PRICE_ASKED.search(reply))):
        return False, "goes back to the start"
    if said is not None and YES_NO_ANSWER.match(reply.strip().lower()) and "?" not in partner_said and "interest" not in partner_said.lower():
        return False, "answers a question nobody asked"
    if said is not None and said.prices and ASKS_FOR_A_PRICE.search(reply):
        return False, "asks for a price just named"
    own_turns = len(history) // 2
    if GREETING_LINE.search(reply) and own_turns >= 2:
        return False, "greets in the middle of the bargaining"
    if CLOSING_LINE.search(reply) and not (mine.agree or (said is not None and said.agree)) and not mine.prices:
        return False, "closes a deal nobody made"
    if said is not None and said.price is not None and not said.leaving:
        if not (mine.prices or mine.agree or mine.disagree or mine.asks_price or PRICE_TALK.search(reply)):
            return False, "ignores the price on the table"
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

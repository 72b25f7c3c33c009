"""A seller's answer to a question about the item, taken from its own listing: only words that answer it.

The listing reader (`reading.answer_question`) finds the line that speaks to the question's topic.
A condition question is broad there (`great` counts), so `Any scratches or stains?` could get
`Great for a family or first apartment.`; here an answer to a condition question must say something
about the item's state (`one has a small wobble`, `like new`), a line of the title is cut to the
part that answers, and when nothing in the listing answers, the seller says so instead of
reciting another line. Used by the modular agent (`modular.py`).
"""

from __future__ import annotations

import re
from typing import Sequence

from duologue.tasks.craigslist.reading import AVAILABILITY, TOPICS, answer_question

STATE = re.compile(
    r"\bcondition|\bshape\b|\bexcellent|\bmint\b|\blike new|\bbrand new|\bscratch|\bstains?\b|\brips?\b|\btears?\b|\bdamage|\bdents?\b|"
    r"\bwear\b|\bworks?\b|\bworking|\buntested|\bbroken|\bneeds\b|\bperfect|\bruns\b|\bdings?\b|\brust\b|\bcracks?\b|\bchips?\b|"
    r"\bwobbl|\bclean\b|\bissues?\b|\bproblems?\b|\bsturdy\b|\bsolid\b|\bflaw|\bmarks?\b|\bfades?\b|\bfaded\b",
    re.I,
)
"""Words that say what state an item is in (an answer to `what condition is it in?` needs one)."""
CUES = {name: re.compile(has, re.I) for name, _, has in TOPICS}
PARTS = {"tires": re.compile(r"\b(?:tires?|tyres?|brakes?|chain)\b", re.I)}
"""Topics that group several parts: the answer must name the part asked about."""
UNSURE = (
    "I'm not sure about that, sorry; I can check and let you know.",
    "The listing doesn't say anything about that, and I'd rather not guess.",
)
"""What the seller says when the listing does not answer."""


def _sentences(line: str) -> list[str]:
    return [part.strip() for part in re.split(r"(?<=[.!?])\s+", line.strip()) if part.strip()]


def _clauses(title: str) -> list[str]:
    return [part.strip() for part in title.split(",") if part.strip()]


def _sentence(text: str) -> str:
    text = text.strip()
    text = text[0].upper() + text[1:] if text else text
    return text if text.endswith((".", "!", "?")) else text + "."


def without_title(question: str, lines: Sequence[str]) -> str:
    """The question with the item's title put as `it`: naming the item asks nothing (`Is the Leaf SV electric
    still for sale?` is no question about utilities)."""
    if lines and lines[0].strip():
        return re.sub(re.escape(lines[0].strip()), "it", question, flags=re.I)
    return question


def answering_parts(question: str, lines: Sequence[str]) -> list[str] | None:
    """The listing's words that answer `question` (empty: the listing does not say), or None when it
    is no question about a topic of the item, or asks why I sell (the caller answers it otherwise)."""
    question = without_title(question, lines)
    answer = answer_question(question, list(lines))
    if answer.kind == "deflect" and answer.topic != "why":
        return []  # the listing is silent on it (the reader's topic name may be off: `dropped in water` is no utilities question)
    if answer.kind != "line" or answer.line is None:
        return None
    cue = STATE if answer.topic == "condition" else CUES.get(answer.topic or "")
    if answer.topic in PARTS:  # `Do the brakes work?` is not answered by the tires
        asked = PARTS[answer.topic].findall(question)
        cue = re.compile("|".join(rf"\b{re.escape(word[:5])}" for word in asked), re.I) if asked else cue
    if cue is None:  # a line sharing the question's words: it is the answer
        return [_sentence(answer.text or lines[answer.line])]
    order = [answer.line, *[i for i in range(1, len(lines)) if i != answer.line], 0]
    for index in dict.fromkeys(order):
        pieces = _clauses(lines[index]) if index == 0 else _sentences(lines[index])
        found = [_sentence(piece) for piece in pieces if cue.search(piece)]
        if found and index == 0:
            return [_sentence(", ".join(piece for piece in pieces if cue.search(piece)) + ", as the listing says")]  # a bare `Like new.` would answer nothing
        if found:
            return found
    return []


def listing_answer(question: str, lines: Sequence[str], pick: int = 0) -> str | None:
    """The seller's reply to a question about the item, or None when it asks no such question.

    pick: which of the honest `not sure` lines to use when the listing does not say.
    """
    parts = answering_parts(question, lines)
    if parts is None:
        return None
    text = " ".join(parts) if parts else UNSURE[pick % len(UNSURE)]
    if AVAILABILITY.search(question):
        text = f"Yes, it's still available. {text}"
    return text

"""Reading what people write in Deal or No Deal: proposals, acceptances and refusals.

A proposal is read by walking the words: the last pronoun before an item says whose it is
(`i`, `me`, `my` for the speaker; `you`, `your` for the listener, so `i can give you the hats`
gives the hats to the listener), the number before it how many (`the books`, `both`, `all` mean
every one; `a`, `one`, `the book` one), and `the rest` / `everything else` hands the remaining items
to whoever it follows. Items nobody is given go to the listener (the usual `i'll take X` reading),
unless only the listener was given something (`you can have the hats`: the speaker keeps the rest).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Mapping

from duologue.tasks.dealornodeal.rules import ITEMS

WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?|[.!?;]")
"""Words, and the marks that end a sentence (a negation does not reach past them)."""
ENDS = frozenset(".!?;")
SPEAKER_WORDS = frozenset({"i", "i'll", "i'd", "i'm", "im", "ill", "id", "me", "my", "mine", "myself"})
LISTENER_WORDS = frozenset({"you", "you'll", "you'd", "your", "yours", "u", "ya", "yourself"})
ITEM_WORDS = {"book": "book", "books": "book", "hat": "hat", "hats": "hat", "ball": "ball", "balls": "ball", "basketball": "ball", "basketballs": "ball"}
NUMBERS = {"no": 0, "zero": 0, "none": 0, "a": 1, "an": 1, "one": 1, "single": 1, "two": 2, "three": 3, "four": 4}
ALL_WORDS = frozenset({"all", "both", "every", "each"})
REST_WORDS = (("the", "rest"), ("everything", "else"), ("the", "others"), ("everything",), ("rest",), ("all", "else"), ("the", "remaining"))
NEGATIONS = frozenset({"don't", "dont", "do", "not", "no", "never", "can't", "cant", "won't", "wont"})
DISLIKES = frozenset({"need", "want", "care", "value", "use"})
GIVING = frozenset({"give", "let", "spare", "part", "offer", "hand"})
"""`i cant give u the hat or the ball`: a negated giving keeps every item after it in the sentence."""
CLAUSE_BREAKS = ENDS | {"but", "though", "however"}
ACCEPT_WORDS = frozenset({"deal", "ok", "okay", "sure", "yes", "yeah", "yep", "fine", "agreed", "agree", "accept", "perfect", "great", "works", "sounds"})
REJECT_PHRASES = ("no deal", "can't", "cant", "cannot", "won't", "wont", "not ", "nope", "no way", "i need more", "that doesn't", "that does not", "not fair")


@dataclass
class Reading:
    """What one message says: the speaker's share of a proposal (complete), and whether it agrees or refuses."""

    speaker_gets: dict[str, int] | None = None
    accepts: bool = False
    rejects: bool = False
    negated: bool = False
    """An item's owner was read through a negation (`i cant give u the hat`): a reading to confirm before acting on it."""


def read(text: str, pool: Mapping[str, int]) -> Reading:
    """Read one message, said by one side to the other, about a pool."""
    lowered = " ".join(text.lower().replace("’", "'").split())
    words = WORD.findall(lowered)
    rejects = any(phrase in f" {lowered} " for phrase in REJECT_PHRASES) or words[:1] == ["no"]
    accepts = not rejects and any(w in ACCEPT_WORDS for w in words)
    negated = any(word in ITEM_WORDS and _negated(words, k) for k, word in enumerate(words))
    return Reading(speaker_gets=_proposal(words, pool), accepts=accepts, rejects=rejects, negated=negated)


def _proposal(words: list[str], pool: Mapping[str, int]) -> dict[str, int] | None:
    side: str | None = None
    given: dict[str, dict[str, int]] = {"speaker": {}, "listener": {}}
    rest_to: str | None = None
    mentioned = False
    for k, word in enumerate(words):
        if word in SPEAKER_WORDS:
            side = "speaker"
        elif word in LISTENER_WORDS:
            side = "listener"
        if word in ITEM_WORDS:
            item = ITEM_WORDS[word]
            owner = side or "speaker"
            if _negated(words, k):
                owner = "listener" if owner == "speaker" else "speaker"
            given[owner][item] = _count(words, k, word, pool[item])
            mentioned = True
        elif any(tuple(words[k : k + len(phrase)]) == phrase for phrase in REST_WORDS) and (k == 0 or words[k - 1] != "the" or word == "the"):
            rest_to = side or "speaker"
    if not mentioned and rest_to is None:
        return None
    if rest_to is None and given["listener"] and not given["speaker"]:
        rest_to = "speaker"  # `you can have the hats`: the speaker keeps the rest
    speaker = {}
    for item in ITEMS:
        mine, theirs = given["speaker"].get(item), given["listener"].get(item)
        if mine is None and theirs is None:
            mine = pool[item] if rest_to == "speaker" else 0
        elif mine is None:
            mine = pool[item] - min(theirs or 0, pool[item])
        speaker[item] = max(0, min(mine, pool[item]))
    return speaker


def _count(words: list[str], k: int, word: str, available: int) -> int:
    """How many of an item the words before it ask for."""
    plural = word.endswith("s")
    for back in range(1, 4):
        if k - back < 0:
            break
        before = words[k - back]
        if before.isdigit():
            return available if len(before) > 3 else min(int(before), available)  # past any pool, however many digits
        if before in NUMBERS:
            return min(NUMBERS[before], available)
        if before in ALL_WORDS:
            return available
        if before not in ("the", "of", "extra", "other", "more"):
            break
    return available if plural or available == 1 else 1


def _negated(words: list[str], k: int) -> bool:
    """`i don't need the balls`: the item goes to the other side."""
    window = words[max(0, k - 5) : k]
    window = window[max((j + 1 for j, w in enumerate(window) if w in ENDS), default=0) :]  # "no deal. i need the books"
    if any(w in DISLIKES for w in window) and any(w in NEGATIONS or w.endswith("n't") for w in window):
        return True
    start = max((j + 1 for j, w in enumerate(words[:k]) if w in CLAUSE_BREAKS), default=0)
    clause = words[start:k]
    verbs = [j for j, w in enumerate(clause) if w in GIVING]
    return bool(verbs) and any(w in NEGATIONS or w.endswith("n't") for w in clause[max(0, verbs[0] - 2) : verbs[0]])

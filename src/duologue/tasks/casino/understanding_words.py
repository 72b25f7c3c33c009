"""The words of the CaSiNo reader (`understanding`): item names with their typos, counts, fillers,
and the normalising that turns a message into clean tokens."""

from __future__ import annotations

import re
from difflib import SequenceMatcher
from functools import lru_cache

# ---------------------------------------------------------------------------- vocabulary

ISSUE_WORDS: dict[str, str] = {
    # food
    "food": "Food", "foods": "Food", "meal": "Food", "meals": "Food", "snack": "Food", "snacks": "Food",
    "groceries": "Food", "grocery": "Food", "rations": "Food", "ration": "Food", "provisions": "Food",
    "foodstuff": "Food", "foodstuffs": "Food",
    # water
    "water": "Water", "waters": "Water", "h2o": "Water",
    # firewood
    "firewood": "Firewood", "firewoods": "Firewood", "wood": "Firewood", "logs": "Firewood",
    "kindling": "Firewood", "fire": "Firewood", "fires": "Firewood", "campfire": "Firewood",
    "campfires": "Firewood", "bonfire": "Firewood",
}
"""Words that name an issue outright."""

IMPLICIT_WORDS: dict[str, str] = {
    "hungry": "Food", "hunger": "Food", "starving": "Food", "eat": "Food", "eating": "Food", "calories": "Food",
    "thirsty": "Water", "thirst": "Water", "hydrated": "Water", "hydrating": "Water", "hydrate": "Water", "hydration": "Water", "dehydrated": "Water",
    "dehydration": "Water", "drink": "Water", "drinking": "Water",
    "cold": "Firewood", "chilly": "Firewood", "freezing": "Firewood", "warm": "Firewood", "warmth": "Firewood",
}
"""Words that point at an issue without naming it; used only when a clause names no issue."""

FUZZY_TARGETS: tuple[str, ...] = ("food", "water", "firewood", "wood")
NOT_TYPOS: frozenset[str] = frozenset(
    {
        "waste", "waster", "waiter", "wafer", "wafers", "wader", "waters", "wander", "wanted", "watch", "watched",
        "waited", "wait", "wake", "woke", "wool", "wooly", "woods", "word", "words", "worm", "worse", "worst",
        "worth", "would", "woodland", "wooden", "fold", "fool", "fools", "foot", "fond", "feed", "feud", "food's",
        "flood", "forward", "fired", "fireworks", "firework", "fireman", "fireplace", "firefly", "fireside",
        "wonder", "winter", "wetter", "writer", "whatever", "weather", "wider", "ward",
    }
)
"""Real words close to an issue name that must not be read as a typo of it."""

NUMBER_WORDS: dict[str, int] = {
    "0": 0, "zero": 0, "none": 0, "nothing": 0,
    "1": 1, "one": 1, "single": 1, "a": 1, "an": 1,
    "2": 2, "two": 2, "couple": 2, "pair": 2, "both": 2,
    "3": 3, "three": 3, "all": 3, "every": 3, "entire": 3, "whole": 3,
}
"""Counts. `a`/`an`/`both`/`no` only count right before an item (`a water`); `all` is every package."""

FILLER: frozenset[str] = frozenset(
    {"of", "the", "my", "your", "our", "those", "these", "package", "packages", "pack", "packs", "packet", "packets",
     "unit", "units", "bundle", "bundles", "bottle", "bottles", "jug", "jugs", "extra", "more", "additional", "x",
     "items", "item", "piece", "pieces", "lot", "lots", "bag", "bags", "case", "cases", "box", "boxes", "for", "just",
     "only", "remaining", "things", "thing", "containers", "cans", "portions", "servings", "loads"}
)
"""Words that may stand between a count and its item: `2 packages of the water`."""

ITEM_HEADS = frozenset({"supply", "supplies", "source", "sources", "filter", "filters", "purifier", "purifiers", "purification", "poisoning", "intake", "storage"})
"""Nouns an item word may modify, so that it names something else: "I have a water supply nearby", "food poisoning"."""

# ---------------------------------------------------------------------------- normalising


_NOT_FORMS = {"ca": "can", "wo": "will", "do": "do", "does": "does", "is": "is", "are": "are", "would": "would", "could": "could",
              "should": "should", "did": "did", "was": "was", "were": "were", "have": "have", "has": "has"}


@lru_cache(maxsize=8192)
def normalize(text: str) -> str:
    """Lower case, common spellings joined, punctuation spaced out so tokens are clean (memoized:
    a message is read again as the context of the ones after it)."""
    text = text.lower().replace("’", "'").replace("‘", "'")
    text = re.sub(r"-{2,}", " , ", text)  # "3 packages of firewood--I just can't risk it": a dash breaks the clause
    text = re.sub(r"\bfire[\s-]+wood", "firewood", text)
    text = re.sub(r"\b(waters?|foods?|firewoods?)and\b", r"\1 and", text)  # "3 waterand 3 food"
    text = re.sub(r"\b([0-3])(waters?|foods?|firewoods?|woods?)\b", r"\1 \2", text)  # "2water"
    text = re.sub(r"\bpa(?:ck|k|c)a?ge[sd]\b", "packages", text)  # "3 extra packaged of water", "2 pakages"
    text = re.sub(r"\b([a-z]{3,}),?\s+\1\b", r"\1", text)  # "really, really need"
    text = re.sub(r"\bh\s*2\s*o\b", "h2o", text)
    text = re.sub(r"\b(\d)\s*x\b", r"\1", text)  # "2x water"
    text = re.sub(r"#\s*1\b", " number one ", text)
    text = re.sub(r"\b1st\b", " first ", text)
    text = re.sub(r"\b2nd\b", " second ", text)
    text = re.sub(r"\b3rd\b", " third ", text)
    text = re.sub(r"\b(i|you|we|they|it|that|he|she|there|what)'(ll|d|m|re|ve|s)\b", r"\1 \2", text)
    text = re.sub(r"\b(ca|wo|do|does|is|are|would|could|should|did|was|were|have|has)n'?t\b", lambda m: _NOT_FORMS[m.group(1)] + " not", text)
    text = re.sub(r"\bcannot\b", "can not", text)
    text = re.sub(r"\brecieve", "receive", text)
    text = re.sub(r"\bal(?= of the\b)", "all", text)  # "you have al of the firewood"
    text = re.sub(r"\bthe(firewood|water|food)s?\b", r"the \1", text)  # "all thefirewood"
    text = re.sub(r"\bim\b", "i m", text)
    text = re.sub(r"\bill\b(?= (take|get|give|keep|have|need|do|go|let|be|send|settle|offer|trade|accept))", "i ll", text)
    text = re.sub("[\u2600-\u27bf\U0001f300-\U0001faff]+\ufe0f?", " . ", text)  # "sounds good🙂 how about ...": a face ends a sentence
    text = re.sub(r"[^a-z0-9'?!.;,:\n&>=+-]+", " ", text)
    text = re.sub(r"([?!.;,:\n&>=+])", r" \1 ", text)
    return re.sub(r"[ \t]+", " ", text).strip()


@lru_cache(maxsize=65536)
def issue_of_word(word: str) -> str | None:
    """The issue a single word names, allowing for typos (`watter`, `firewod`, `fod`)."""
    word = word.strip("'")
    if word in ISSUE_WORDS:
        return ISSUE_WORDS[word]
    if word.endswith("'s") and word[:-2] in ISSUE_WORDS:
        return ISSUE_WORDS[word[:-2]]
    if len(word) < 3 or word in NOT_TYPOS or not word.isalpha():
        return None
    for target in FUZZY_TARGETS:
        if word[0] == target[0] and abs(len(word) - len(target)) <= 2:
            if SequenceMatcher(None, word, target).ratio() >= (0.85 if len(target) <= 4 else 0.8):
                return ISSUE_WORDS[target]
    return None


def _tokens(text: str) -> list[str]:
    return normalize(text).split(" ") if text.strip() else []


# ---------------------------------------------------------------------------- counts


_PACKAGE_WORDS = {"package", "pack", "packet", "unit", "bundle", "bottle", "jug", "case", "box", "bag", "piece"}


def _count_before(tokens: list[str], i: int, start: int) -> int | None:
    """The count written just before the item at token i (skipping `packages of the`)."""
    j = i - 1
    skipped = 0
    while j >= start and tokens[j] in FILLER and skipped < 4:
        j -= 1
        skipped += 1
    if j < start or _no_count(tokens, i, j, skipped):
        return None
    shaped = _shaped_count(tokens, j, start, skipped)
    return shaped if shaped is not None else _plain_count(tokens, j, start)


def _no_count(tokens: list[str], i: int, j: int, skipped: int) -> bool:
    """Whether the word at j, `skipped` fillers before the item at i, only looks like a count."""
    word = tokens[j]
    packed = [w for w in tokens[j + 1 : i] if w not in {"extra", "additional"}]  # "an extra package of food" is one
    if word in {"a", "an"} and skipped > 1 and not (len(packed) == 2 and packed[1] == "of" and packed[0] in _PACKAGE_WORDS):
        return True  # "a lot of water" is no count, "a pack of water" is one
    return bool(skipped and tokens[j + 1] == "more" and word in {"1", "one", "a", "an"})  # "1 more firewood" asks for a change, not a share


def _shaped_count(tokens: list[str], j: int, start: int, skipped: int) -> int | None:
    """A count the word at j makes with the words before it ("no", "a couple", "1 each", "two of
    both", "2 of the 3"), or None when it makes none of these."""
    word = tokens[j]
    if word == "no" and skipped == 0:
        return 0
    if word == "couple" and j - 1 >= start and tokens[j - 1] == "a":
        return 2
    if word == "each" and j - 1 >= start and tokens[j - 1] in {"1", "2", "3", "one", "two", "three"}:
        return NUMBER_WORDS[tokens[j - 1]]  # "1 each of the food and water"
    if word == "both" and j - 2 >= start and tokens[j - 1] == "of" and tokens[j - 2] in {"1", "2", "one", "two"}:
        return NUMBER_WORDS[tokens[j - 2]]  # "two of both water and food"
    if word in {"1", "2", "3"} and j - 3 >= start and tokens[j - 1] == "the" and tokens[j - 2] == "of" and tokens[j - 3] in {"1", "2", "one", "two"}:
        return NUMBER_WORDS[tokens[j - 3]]  # "2 of the 3 waters"
    return None


def _plain_count(tokens: list[str], j: int, start: int) -> int | None:
    """The count a number word (or "most") at j gives on its own."""
    word = tokens[j]
    if word in NUMBER_WORDS:
        if word == "both" or (j - 2 >= start and tokens[j - 1] in {"or", "to", "-"} and tokens[j - 2] in NUMBER_WORDS):
            return None  # "2 or 3 pieces of firewood" is no definite count
        # "the whole food" / "all the water" / "all 3 water"
        if word in {"3", "three"} and j - 1 >= start and tokens[j - 1] in {"all"}:
            return 3  # "all 2 food" is the two of them
        return NUMBER_WORDS[word]
    if word == "most":
        return None if j - 1 >= start and tokens[j - 1] == "the" else 2  # "most of the water", but not "I need the most food"
    return None


def _count_after(tokens: list[str], i: int) -> int | None:
    """A count written after the item: `water: 2`, `firewood = 3`, `water x2`."""
    j = i + 1
    if j < len(tokens) and tokens[j] in {":", "=", "-", "x"}:
        j += 1
    if j < len(tokens) and tokens[j] in {"0", "1", "2", "3"}:
        if j + 1 < len(tokens) and issue_of_word(tokens[j + 1]):
            return None  # "water 2 food" is ambiguous: the 2 belongs to food
        return int(tokens[j])
    return None

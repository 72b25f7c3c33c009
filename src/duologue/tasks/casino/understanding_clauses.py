"""Clauses of a CaSiNo message as the split reader (`understanding_offers`) sees them: when a
recipient stops governing the items after it, sentences that are the speaker's own ask though they
name no recipient ("how about 2 food ...", bare lists), words for what is left ("the rest") and
splits that say not who gets what. Moved out of `understanding_offers` to keep it readable."""

from __future__ import annotations

import re

from duologue.tasks.casino.understanding_markers import STALE_AFTER, _AUX, _GAP_BREAKERS, _GIVE_VERBS, _LIST_WORDS, _REST, _SUBJECT_YOU, _TAKE_VERBS, _TRADE_VERBS
from duologue.tasks.casino.understanding_shapes import RELATIVE
from duologue.tasks.casino.understanding_words import FILLER, NUMBER_WORDS, _count_before, issue_of_word

_OPENERS = {"how about", "what about", "maybe", "maybe i", "perhaps", "so", "ok so", "okay so", "then", "ok how", "okay how", "how bout", "offer", "my offer", "counteroffer", "counter offer", "new offer"}
"""Sentence openings of a proposal that names no recipient: the items are the speaker's own ask."""
_VAGUE = re.compile(r"\b(one of us|either of us|whoever|one person|the other person|the other one|one gets|of one of them|either of them)\b")


def _stale(tokens: list[str], anchor: int, i: int) -> bool:
    """Whether so many other words stand between a recipient (or its last item) and the item at i
    that the recipient no longer governs it ("I have a fast metabolism and get shaky if I skip a meal")."""
    gap = tokens[anchor:i]
    if ":" in gap:
        gap = gap[len(gap) - gap[::-1].index(":") :]  # "I can offer you this: 3 food, 0 firewood and 1 water"
    if any(w in _GIVE_VERBS or w in _TRADE_VERBS or w in _GAP_BREAKERS for w in gap):
        return True  # "I'll keep all the firewood and send 2 food", "we need water and, there is no firewood"
    words = [w for w in gap if w not in FILLER and w not in NUMBER_WORDS and w not in _LIST_WORDS and w not in _AUX and w not in _TAKE_VERBS and not issue_of_word(w)]
    j = i - 1
    while j > anchor and tokens[j] in FILLER:
        j -= 1
    continues = j > anchor and tokens[j] in NUMBER_WORDS and tokens[j - 1] in {"and", ","}  # "..., and two firewoods"
    return len(words) > STALE_AFTER + continues or i - anchor > 6 * STALE_AFTER


_INTERJECTIONS = {"no", "ok", "okay", "well", "hmm", "yes", "yeah", "sure", "alright", ",", "oh", "ah", "sorry"}
_VERDICT = {"would", "will", "work", "works", "best", "be", "good", "great", "fine", "ideal", "perfect", "please", "okay", "ok", "then", "better",
            "fair", "fairer", "a", "little", "bit", "more", "is", "alright", "thats", "that", "s", "all"}
"""Words that may close a bare list ("2 firewood, 1 water, 1 food would work best")."""
_ELLIPSIS_AUX = {"would", "will", "could", "can", "then", "also", "really", "still", "be", "d", "ll", "only", "just", "rather", "probably"}


def _elided_take(tokens: list[str], i: int) -> int:
    """How many tokens from i make a taking verb whose subject is left out ("..., but would then
    prefer 2 food", "and will be needing 2 water"), or 0."""
    j = i
    while j < len(tokens) and tokens[j] in _ELLIPSIS_AUX and j - i < 3:
        j += 1
    if j < len(tokens) and tokens[j] in {"prefer", "need", "needing", "want", "wanting", "take", "taking", "keep", "keeping", "get", "getting", "use"}:
        return j - i + 1
    return 0


def _opens_ask(tokens: list[str], start: int) -> bool:
    """Whether a sentence opens like a proposal that names no recipient ("how about 2 food ...",
    "no, how about 2 food ...")."""
    while start < len(tokens) - 1 and tokens[start] in _INTERJECTIONS:
        start += 1
    return tokens[start] in _OPENERS or " ".join(tokens[start : start + 2]) in _OPENERS


def _own_ask(tokens: list[str], start: int, first_item: int, end: int) -> bool:
    """Whether the items of a sentence that names no recipient are the speaker's own ask: it opens
    like a proposal ("how about 2 food ...", "maybe 2 firewood, 2 water and a food?") or is a bare
    list, the partner is not its subject ("so you need 3 water?") and it trades nothing for
    nothing ("so 2 firewood for 3 water?" does not say who gives which)."""
    if any(w in _SUBJECT_YOU or w in {"i", "we", "your"} for w in tokens[start:first_item]):
        return False  # "so I'll send over 3 waters", "so you need 3 water?"
    if any(w in {"for", "instead"} and any(issue_of_word(x) or x in NUMBER_WORDS for x in tokens[k + 1 : k + 3]) for k, w in enumerate(tokens[start:end], start)):
        return False
    return _opens_ask(tokens, start) or _bare_list(tokens, start, end)


def _bare_list(tokens: list[str], start: int, end: int) -> bool:
    """Whether the sentence is nothing but counted items ("No food, just 2 water, 3 firewood")."""
    words = tokens[start:end]
    while words and words[-1] in _VERDICT:
        words = words[:-1]
    counted = sum(1 for k, w in enumerate(words) if issue_of_word(w) and k > 0 and (words[k - 1] == "no" or _count_before(words, k, 0) is not None))
    return counted >= 2 and all(w in FILLER or w in NUMBER_WORDS or w in _LIST_WORDS or issue_of_word(w) for w in words)


def _rest_word(tokens: list[str], i: int) -> bool:
    """Whether token i closes a word for what is left: "the rest", "everything else", "what's left"."""
    t = tokens[i]
    if t == "left":
        return tokens[i - 2 : i] in (["what", "s"], ["what", "is"]) or tokens[i - 1] == "whatever"
    if t == "remaining" and tokens[i - 1] == "the" and tokens[i + 1 : i + 2] in (["items"], ["packages"], ["ones"], ["supplies"], ["stuff"], ["things"], ["."], [","]):
        return True  # "then i'll get the remaining items"
    if t not in _REST or not (t == "everything" or tokens[i - 1] in {"the", "all"}):
        return False
    if t == "others" and tokens[i - 2 : i] != ["all", "the"]:
        return False
    return not (i >= 3 and tokens[i - 2] == "of" and tokens[i - 3] in NUMBER_WORDS)


def _vague_sentence(tokens: list[str], start: int) -> bool:
    """Whether the sentence from `start` splits without saying who gets what ("one of us gets 2 food")
    or only offers another choice ("Or I could do 3 firewood and 2 food")."""
    if start < len(tokens) and tokens[start] in {"or", "unless"}:
        return True
    end = start
    while end < len(tokens) and tokens[end] not in {".", "!", "?", ";", "\n"}:
        end += 1
    sentence = " ".join(tokens[start:end])
    return bool(_VAGUE.search(sentence) or RELATIVE.search(sentence))


def elided(tokens: list[str]) -> bool:
    """Whether a message names no item, so that a count in it may stand for the item under discussion
    ("How about you take 2 and I have 1?"), and counts no totals ("you get 7 items and I get 2")."""
    return not any(issue_of_word(w) or w in {"items", "points", "total"} or _above_three(w) for w in tokens)


def _above_three(word: str) -> bool:
    """Whether a word is a number written in digits past any share; "٣" is a digit too, "²" is not,
    and a number thousands of digits long needs no conversion to be large."""
    return word.isdecimal() and (len(word.lstrip("0")) > 1 or int(word) > 3)


_FRAGMENT_WORDS = {"all", "of", "the", "no", "none", "any", "every", "each"}
SWAP_MARGIN = 0.5
"""How much more the speaker must lean to one side of a bare swap than to the other to read who takes which."""


def fragment(tokens: list[str], start: int, end: int) -> bool:
    """Whether the sentence is only counted items, with no verb or person of its own ("All the food.",
    "2 waters."): it goes on the list of the sentence before."""
    words = tokens[start:end]
    return any(issue_of_word(w) for w in words) and all(
        w in FILLER or w in NUMBER_WORDS or w in _LIST_WORDS or w in _FRAGMENT_WORDS or issue_of_word(w) for w in words
    )


_PERSONS = {"i", "we", "you", "u", "me", "us", "my", "your", "our"}


def impersonal(tokens: list[str], start: int, end: int) -> bool:
    """Whether the sentence names no person ("In a perfect world, all the water"): answering how much
    the speaker needs, its items are the speaker's own ask."""
    return not any(w in _PERSONS for w in tokens[start:end])


Item = tuple[str, int | None]


def _swap_shape(tokens: list[str], start: int, end: int) -> tuple[set[str], set[str]] | None:
    """The items named before and after a swap's "for" in a sentence that names no person, or None
    when the sentence has no such shape."""
    cut = next((k for k in range(start, end) if tokens[k] == "for" and k > start and any(issue_of_word(w) for w in tokens[start:k])), None)
    if cut is None:
        return None
    before = {issue for w in tokens[start:cut] if (issue := issue_of_word(w))}
    after = {issue for w in tokens[cut + 1 : end] if (issue := issue_of_word(w))}
    if not after or before & after or not impersonal(tokens, start, end):
        return None
    return before, after


def swap_sides(
    tokens: list[str], start: int, end: int, pending: list[Item], lean: dict[str, float], *, shape_only: bool = False
) -> tuple[list[Item], list[Item]] | None:
    """(the speaker's side, the partner's side) of a swap that names no recipient ("3 packs of firewood
    for 3 food?", "how about 3 waters and 2 foods for 2 firewoods?"): the speaker takes the side they
    lean to (`lean`: per issue, how much more they have said they need it than the partner). None when
    the sentence is no such swap or the leaning does not settle it. `shape_only`: whether the sentence
    has the shape of such a swap at all (`([], [])` if so), whatever is pending and whoever leans."""
    sides = _swap_shape(tokens, start, end)
    if sides is None:
        return None
    if shape_only:
        return [], []
    before, after = sides
    first = [c for c in pending if c[0] in before]
    second = [c for c in pending if c[0] in after]
    if not first or not second or len(first) + len(second) != len(pending):
        return None
    margin = sum(lean.get(issue, 0.0) for issue in after) - sum(lean.get(issue, 0.0) for issue in before)
    if margin >= SWAP_MARGIN:
        return second, first
    if margin <= -SWAP_MARGIN:
        return first, second
    return None

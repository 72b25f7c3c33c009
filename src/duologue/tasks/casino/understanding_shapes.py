"""Shapes of CaSiNo offers that the split reader (`understanding_offers`) recognises beside its
recipient markers: a bare count standing for the item named before ("I need water. Can I have two
and you take one?"), a single item asked for by what it would do ("so 1 extra water would help"),
relative changes that settle no share ("I get one less food"), a count bound to what the partner
needs rather than to a number ("all the food you need"), "you do X and I get Y", lists continued with
their reasons ("2 foods because ..."), premises about the partner's taking ("If you get all the
water, you would be ...") and items the speaker needs none of."""

from __future__ import annotations

import re

from duologue.tasks.casino.understanding_markers import _ENDS, _SUBJECT_YOU
from duologue.tasks.casino.understanding_words import FILLER, NUMBER_WORDS, issue_of_word

_DIGITS = {"0", "1", "2", "3", "one", "two", "three"}
_AFTER_BARE = _ENDS | {",", "and", "so", "while", "then", "if", "but", "at", "you", "u", "i", "we", "please"}  # "I would like 2 at least", "I take 2 you take 1"
_EXTRA_ALL = (["of", "the", "extra"], ["the", "extra"], ["of", "the", "extras"], ["the", "extras"])


def implied_count(tokens: list[str], i: int) -> tuple[int, int] | None:
    """(count, tokens used) when the words at i, right after a recipient marker, are a count with no
    item of its own ("can i have two and you take one", "so you get all 3.", "I'd give you all of
    the extra."): it stands for the item named before. None otherwise."""
    t = tokens[i]
    j = i + 1
    if tokens[i : i + 2] in (["it", "all"], ["them", "all"]):
        j = i + 2  # "you could have it all"
        if tokens[j : j + 1] in (["3"], ["three"]):
            j += 1
        count = 3
    elif t == "all":
        for tail in _EXTRA_ALL:
            if tokens[j : j + len(tail)] == tail:
                j += len(tail)
                break
        else:
            if tokens[j : j + 1] not in (["3"], ["three"]):
                return None
            j += 1
        count = 3
    elif t in _DIGITS:
        count = NUMBER_WORDS[t]
    else:
        return None
    nxt = tokens[j] if j < len(tokens) else "."
    if nxt not in _AFTER_BARE:
        return None
    after = tokens[j + 1] if j + 1 < len(tokens) else ""
    if nxt in {",", "and"} and (after in NUMBER_WORDS or issue_of_word(after) or after in FILLER):
        return None  # "I get 2, 1 food and ...": a list whose items come later
    return count, j - i


_HELPS = (("would", "help"), ("would", "really", "help"), ("will", "help"), ("would", "be", "helpful"), ("would", "be", "great"),
          ("would", "be", "nice"), ("would", "be", "appreciated"), ("would", "be", "enough"), ("is", "all", "i", "need"),
          ("will", "work"), ("would", "work"), ("works",), ("is", "fine"), ("will", "do"))
_LEADS = {"so", "but", "and", ",", "then", "just", "only"}


def helps_ask(tokens: list[str], start: int, first_item: int, end: int) -> bool:
    """Whether a sentence's counted items, named with no recipient, are asked for by what they would
    do for the speaker: "I am easily dehydrated so 1 extra water would help"."""
    if any(w in _SUBJECT_YOU for w in tokens[start:end]):
        return False
    last = max((k for k in range(first_item, end) if issue_of_word(tokens[k])), default=None)
    if last is None:
        return False  # the item is the one under discussion, borrowed from the dialogue: "I cannot do 2 package"
    if tuple(tokens[last + 1 : end]) not in _HELPS:
        return False
    c = first_item - 1
    while c > start and tokens[c] in FILLER:
        c -= 1
    if c < start or tokens[c] not in NUMBER_WORDS:
        return False
    return c == start or tokens[c - 1] in _LEADS


RELATIVE = re.compile(r"\b(one|1|two|2|a) (less|fewer)\b(?! than)|\banother (\w+ ){0,2}(foods?|waters?|firewoods?|wood)\b")
"""A change against an earlier split ("I get one less food and an additional water", "could I
trade one firewood for another food?") settles no share."""


def for_your_need(tokens: list[str], i: int) -> bool:
    """Whether the item at i is bounded by the partner's need, not a count: "all the food you need"."""
    if "all" not in tokens[max(0, i - 4) : i]:
        return False  # "if I gave you 3 food you might spare the firewood" counts
    nxt = tokens[i + 1 : i + 4]
    if nxt[:1] == ["that"]:
        nxt = nxt[1:]
    return len(nxt) >= 2 and nxt[0] in _SUBJECT_YOU and nxt[1] in {"need", "want", "require"}


def you_do(tokens: list[str], start: int, first_item: int) -> bool:
    """Whether the items from `first_item` follow "you do" ("would you do 3 waters and 1 firewood and
    I get 3 food"): the partner's share, when the speaker's own comes after."""
    for k in range(start, first_item - 1):
        if tokens[k] in _SUBJECT_YOU and (tokens[k + 1] == "do" or (tokens[k + 1] in {"would", "could", "can"} and tokens[k + 2 : k + 3] == ["do"])):
            return True
    return False


_REASONS = {"because", "since", "so", "as", "cause", "cuz", "bc"}


def reasoned_list(tokens: list[str], start: int, end: int) -> int | None:
    """Where the reason starts when a sentence is a bare list of counted items followed by why ("2 foods
    because I have a couple of friends", "Also 1 firewood so that I can cook"), else None."""
    while start < end and tokens[start] in {"also", "and", "plus", "then", ","}:
        start += 1
    reason = next((k for k in range(start, end) if tokens[k] in _REASONS), None)
    if reason is None or reason == start:
        return None
    words = tokens[start:reason]
    listed = all(w in FILLER or w in NUMBER_WORDS or w in {",", "and", "&"} or issue_of_word(w) for w in words)
    return reason if listed and words[0] in NUMBER_WORDS and any(issue_of_word(w) for w in words) else None


def premise_end(tokens: list[str], i: int) -> int:
    """Where the "if you ..." clause opening at i ends when it is a premise about the partner's
    taking ("If you get two foods I need more items"): at a comma, "then", a sentence's end or the
    next person named; -1 when the clause is no such premise."""
    end = len(tokens)
    for k in range(i + 2, len(tokens)):
        if tokens[k] in _ENDS or tokens[k] in {",", "then"} or tokens[k] in {"i", "we", "you", "u"}:
            end = k
            break
    clause = tokens[i + 2 : end]
    if not any(w in {"get", "take", "have", "receive", "keep", "getting", "taking", "having"} for w in clause) or any(w in {"need", "want"} for w in clause):
        return -1  # "if you need 2 firewood" grants; only a taking is a premise
    return end


_NEEDS_NONE = re.compile(r"\b(?:i|we) (?:(?:do|will|would|really|actually|also|m|am|are|re) )*(?:not|never) (?:need|want|require) (?:any|the) (?:(?:more|extra|of|the|additional) )*(\w+)")


def needs_none(tokens: list[str]) -> list[str]:
    """Items the speaker says they need none of ("I don't need any firewood"): a share of 0 when the
    message proposes a split, no proposal on its own."""
    return [issue for m in _NEEDS_NONE.finditer(" ".join(tokens)) if (issue := issue_of_word(m.group(1)))]


def of_list(tokens: list[str], i: int) -> bool:
    """Whether the item at i closes a list of bare items opened by "N of" ("1 of food, water and
    firewood"), so that the count goes to each of them."""
    k = i - 1
    while k > 1 and (tokens[k] in {",", "and", "&"} or issue_of_word(tokens[k])):
        k -= 1
    if tokens[k] == "the":
        k -= 1
    first = k + 2 if tokens[k + 1 : k + 2] == ["the"] else k + 1  # "one of the firewood and water"
    counted = tokens[k - 1] in _DIGITS or (k >= 2 and tokens[k - 1] in {"packages", "packs", "units", "bundles"} and tokens[k - 2] in _DIGITS)  # "two packages of water, food and firewood"
    return tokens[k] == "of" and counted and first < i and issue_of_word(tokens[first]) is not None

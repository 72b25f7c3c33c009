"""Stated needs and ultimatums: "I'd rather walk away than get no food", "at least 2 firewood or I walk".

A person who says they cannot do without an item, or names a least amount and a threat, has told the
bot the smallest share they will take. `minimums` reads that from a message for any task whose
items are named by words (the task passes its own word table); the bot then makes its next proposal
meet it, or refuses it in words with a reason. The patterns are data, each with the sentences it is
written for (checked by the tests); `{item}` stands for any item word and `{n}` for a count.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

COUNTS = {"one": 1, "a": 1, "an": 1, "single": 1, "two": 2, "couple": 2, "three": 3, "four": 4, "some": 1, "any": 1}


@dataclass(frozen=True)
class Condition:
    """A way of stating the least one will take: a pattern, the count it implies when it names none, examples."""

    name: str
    pattern: str
    count: int
    examples: tuple[str, ...]


CONDITIONS: tuple[Condition, ...] = (
    Condition(
        "rather walk than none",
        r"\b(?:rather|sooner) (?:just )?(?:walk away|walk|leave|not make a deal|have no deal)\b[^.!?]{0,20}?\bthan (?:get|have|take|go with|end up with) (?:no|zero|none of the|nothing of the) {item}",
        1,
        ("I'd rather walk away than get no food", "i would rather leave than have no water"),
    ),
    Condition(
        "at least n",
        r"\b(?:at least|no less than|minimum of|a minimum of) {n} (?:packages? of |of the |extra )?{item}",
        1,
        ("either i get at least 2 firewood or I walk", "I need at least 2 packages of water"),
    ),
    Condition(
        "cannot do without",
        r"\b(?:can't|cant|cannot|can not|couldn't) (?:do|go|make it|survive|manage|live|camp) without (?:any |some |the |my )?{item}",
        1,
        ("I can't do without water", "we cannot survive without food"),
    ),
    Condition(
        "no deal without",
        r"\bno deal (?:without|unless i get|unless we get) (?:any |some |the )?(?:{n} )?{item}",
        1,
        ("no deal without food", "no deal unless i get 2 water"),
    ),
    Condition(
        "n or I walk",
        r"\b(?:i|we) (?:need|must have|have to have|want) {n} (?:packages? of |extra )?{item},? (?:or|otherwise|else) (?:i|we)(?:'ll| will)? (?:walk|leave)",
        1,
        ("i need 2 firewood or i walk", "we need two food, otherwise we leave"),
    ),
)


def _compiled(condition: Condition) -> re.Pattern[str]:
    pattern = condition.pattern.replace("{n}", r"(?P<n>\d+|" + "|".join(COUNTS) + r")").replace("{item}", r"(?P<item>[a-z0-9']+)")
    return re.compile(pattern, re.IGNORECASE)


PATTERNS = tuple((condition, _compiled(condition)) for condition in CONDITIONS)


def minimums(text: str, item_of: Callable[[str], str | None]) -> dict[str, int]:
    """The least of each item the speaker says they will take (`item_of` maps a word to the task's item)."""
    lowered = text.lower().replace("’", "'")
    out: dict[str, int] = {}
    for condition, pattern in PATTERNS:
        for match in pattern.finditer(lowered):
            item = item_of(match.group("item"))
            if item is None:
                continue
            said = match.groupdict().get("n")
            count = int(said) if said and said.isdigit() else COUNTS.get(said or "", condition.count)
            out[item] = max(out.get(item, 0), count)
    return out

"""Numbers written in words, as people write prices: `twelve hundred`, `one fifty`, `three hundred and fifty`.

`number_value` reads a run of number words; `prices.py` decides whether the number is a price.
"""

from __future__ import annotations

import re
from typing import Sequence

UNIT_WORDS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
    "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
    "seventeen": 17, "eighteen": 18, "nineteen": 19,
}
TENS_WORDS = {"twenty": 20, "thirty": 30, "forty": 40, "fourty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90}
SCALE_WORDS = {"hundred": 100, "thousand": 1000, "grand": 1000}


def word_tokens(text: str) -> list[tuple[str, int, int]]:
    return [(m.group().lower(), m.start(), m.end()) for m in re.finditer(r"[A-Za-z]+", text)]


def _number_groups(words: Sequence[str]) -> tuple[list[int], bool] | None:
    """Parse a run of number words into small groups (`one` `fifty`) and whether a scale word occurs."""
    groups: list[int] = []
    has_scale = False
    total = 0
    current: int | None = None
    for word in words:
        if word in UNIT_WORDS or word in TENS_WORDS:
            value = UNIT_WORDS.get(word, TENS_WORDS.get(word, 0))
            if current is not None and word in UNIT_WORDS and current % 10 == 0 and current >= 20 and value < 10:
                current += value  # twenty five
            else:
                if current is not None:
                    groups.append(current)
                current = value
        elif word in SCALE_WORDS:
            has_scale = True
            scale = SCALE_WORDS[word]
            base = current if current is not None else (groups.pop() if groups else 1)
            if scale == 100:
                current = base * 100
            else:
                total += base * scale
                current = None
        elif word == "and":
            continue
        else:
            return None
    if current is not None:
        groups.append(current)
    if has_scale:
        return [total + sum(groups)], True
    return groups, False


def number_value(words: Sequence[str]) -> tuple[float, bool] | None:
    """The value of a run of number words and whether it is a colloquial price (`one fifty` = 150)."""
    parsed = _number_groups(words)
    if parsed is None:
        return None
    groups, has_scale = parsed
    if has_scale:
        return float(groups[0]), True
    if len(groups) == 1:
        return float(groups[0]), False
    if len(groups) == 2 and 1 <= groups[0] <= 99 and 10 <= groups[1] <= 99:
        return float(groups[0] * 100 + groups[1]), True
    return None

"""What a client may send: JSON text whose strings are valid Unicode.

JSON allows `"\\ud800"`, a lone surrogate that Python reads into a `str` but no UTF-8 database
or socket can write back: taken in, it would fail at the first store or send. Such input is
refused up front with a reason, like any other malformed input.
"""

from __future__ import annotations

from typing import Any

from duologue.core.text import without_bidi_controls

MAX_ITEMS = 100_000
"""Inputs are small; a walk over more values than this gives up (and refuses the input)."""


def invalid_text(value: Any) -> str | None:
    """Why `value` (parsed JSON) cannot be stored or sent back, or None when it can."""
    stack, seen = [value], 0
    while stack:
        item = stack.pop()
        seen += 1
        if seen > MAX_ITEMS:
            return "the input has far too many values"
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return "text must be valid Unicode (it holds a lone surrogate such as \\ud800)"
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return None


def cleaned(value: Any) -> Any:
    """A person's input (parsed JSON) with every string value's bidi embeddings, overrides and
    isolates taken out, so nothing stored from them reorders the text after it where it is shown."""
    if isinstance(value, str):
        return without_bidi_controls(value)
    if isinstance(value, dict):
        return {key: cleaned(item) for key, item in value.items()}
    if isinstance(value, list):
        return [cleaned(item) for item in value]
    return value

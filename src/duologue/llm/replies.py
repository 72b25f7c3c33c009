"""Reading a model's reply as JSON: small models wrap it in a code fence or in words around it."""

from __future__ import annotations

import json
import re
from typing import Any

_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$", re.IGNORECASE)


class NotJSON(ValueError):
    """A reply with no JSON value in it; the message says where parsing stopped."""


def _no_constant(name: str) -> Any:
    raise NotJSON(f"the reply has {name}, which is no JSON number")  # NaN passes every bound a schema sets


def json_in_reply(text: str, *, words_around: int | None = None) -> Any:
    """The JSON value of a reply, tolerating a code fence or words around one object (at most
    `words_around` characters of them, when given: "I refuse; the format is {...}" is no answer)."""
    text = _FENCE.sub("", text.strip())
    try:
        return json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as error:
        start, end = text.find("{"), text.rfind("}")
        if 0 <= start < end and (words_around is None or start + len(text) - end - 1 <= words_around):
            try:
                return json.loads(text[start : end + 1], parse_constant=_no_constant)
            except json.JSONDecodeError:
                pass
        raise NotJSON(f"the reply is not JSON ({error.msg} at character {error.pos})") from None

"""Reading a model's reply as JSON: small models wrap it in a code fence or in words around it."""

from __future__ import annotations

import json
import re
from typing import Any

_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$", re.IGNORECASE)


class NotJSON(ValueError):
    """A reply with no JSON value in it; the message says where parsing stopped."""


def json_in_reply(text: str) -> Any:
    """The JSON value of a reply, tolerating a code fence or words around one object."""
    text = _FENCE.sub("", text.strip())
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        start, end = text.find("{"), text.rfind("}")
        if 0 <= start < end:
            try:
                return json.loads(text[start : end + 1])
            except json.JSONDecodeError:
                pass
        raise NotJSON(f"the reply is not JSON ({error.msg} at character {error.pos})") from None

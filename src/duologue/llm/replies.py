"""Reading a model's reply: text made safe to store and send, and JSON that small models wrap in a
code fence or in words around it.

A model's text reaches storage, sockets and pages as a person's does, but nobody typed it: a
stream that splits an emoji across two chunks yields half a surrogate pair (`"\\ud800"` in JSON),
which no UTF-8 database or socket can write, and a model may emit control characters or
bidirectional overrides that recolour a terminal or reorder a page. People's text with these is
refused with a reason; a model's is cleaned where it enters duologue (`clean_text`): surrogate
pairs are joined into their character, a lone surrogate becomes U+FFFD, and controls (other than
tab and line feed) and bidi embeddings, overrides and isolates are dropped, with a warning.
"""

from __future__ import annotations

import json
import logging
import re
from typing import Any, Callable

log = logging.getLogger(__name__)

UNSENDABLE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
"""Characters dropped from a model's text: C0 controls but tab and line feed, DEL, C1 controls,
and the bidi embeddings, overrides and isolates."""
_HIGH_SURROGATE = ("\ud800", "\udbff")


def clean_text(text: str) -> tuple[str, list[str]]:
    """`text` safe to store and send, and what was changed (empty: nothing)."""
    changed: list[str] = []
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # pairs joined into their character; a lone half becomes U+FFFD
        before = text.count("\ufffd")
        text = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
        if (lone := text.count("\ufffd") - before) > 0:
            changed.append(f"{lone} lone surrogate(s) replaced by U+FFFD")
    dropped = len(UNSENDABLE.findall(text))
    if dropped:
        text = UNSENDABLE.sub("", text)
        changed.append(f"{dropped} control or bidi character(s) dropped")
    return text, changed


def clean_value(value: Any, changed: list[str] | None = None) -> Any:
    """Parsed JSON with every string in it (keys too) cleaned by `clean_text`; what was changed is
    added to `changed` when given."""
    if isinstance(value, str):
        text, found = clean_text(value)
        if changed is not None:
            changed.extend(found)
        return text
    if isinstance(value, list):
        return [clean_value(item, changed) for item in value]
    if isinstance(value, dict):
        return {clean_value(key, changed): clean_value(item, changed) for key, item in value.items()}
    return value


class CleanChunks:
    """Streamed text passed on clean, chunk by chunk: a chunk that ends in the first half of a
    surrogate pair keeps it back until the next chunk brings the second (`flush` at the end)."""

    def __init__(self, deliver: Callable[[str], None]) -> None:
        self.deliver = deliver
        self.pending = ""

    def __call__(self, chunk: str) -> None:
        chunk = self.pending + chunk
        self.pending = ""
        if chunk and _HIGH_SURROGATE[0] <= chunk[-1] <= _HIGH_SURROGATE[1]:
            chunk, self.pending = chunk[:-1], chunk[-1]
        text, _ = clean_text(chunk)  # the whole reply is cleaned (and warned about) once, at the end
        if text:
            self.deliver(text)

    def flush(self) -> None:
        if self.pending:
            pending, self.pending = self.pending, ""
            self.deliver(clean_text(pending)[0])


_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$", re.IGNORECASE)


class NotJSON(ValueError):
    """A reply with no JSON value in it; the message says where parsing stopped."""


def _no_constant(name: str) -> Any:
    raise NotJSON(f"the reply has {name}, which is no JSON number")  # NaN passes every bound a schema sets


def json_in_reply(text: str, *, words_around: int | None = None) -> Any:
    """The JSON value of a reply, tolerating a code fence or words around one object (at most
    `words_around` characters of them, when given: "I refuse; the format is {...}" is no answer).
    Its strings are cleaned (`clean_value`): JSON's escapes can spell a lone surrogate or a control."""
    text = _FENCE.sub("", text.strip())
    try:
        return _cleaned(json.loads(text, parse_constant=_no_constant))
    except json.JSONDecodeError as error:
        start, end = text.find("{"), text.rfind("}")
        if 0 <= start < end and (words_around is None or start + len(text) - end - 1 <= words_around):
            try:
                return _cleaned(json.loads(text[start : end + 1], parse_constant=_no_constant))
            except json.JSONDecodeError:
                pass
        raise NotJSON(f"the reply is not JSON ({error.msg} at character {error.pos})") from None


def _cleaned(value: Any) -> Any:
    changed: list[str] = []
    value = clean_value(value, changed)
    if changed:
        log.warning("a model's JSON reply was cleaned: %s", "; ".join(dict.fromkeys(changed)))
    return value

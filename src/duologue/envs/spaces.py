"""Generic observation and action spaces of a task, read from its views and its action schema.

Why this shape: a task's legal moves change turn by turn (a split of this pool, a row of this
party's list, an answer to a pending offer) and its views have task-specific structure, while an
RL library wants fixed spaces. So a party's observation is a fixed `Dict` (its numbers as a
vector, its own view and the transcript as text, the turn), and its action is an index into a
fixed-size menu of the legal moves now, enumerated from `Task.action_schema`, with a mask saying
which indices are legal. An index outside the legal range is read modulo the number of legal
moves, so every action an agent can send is a legal move.
"""

from __future__ import annotations

import random
import string
import unicodedata
import warnings
from typing import Any

import numpy as np
from gymnasium import spaces

from duologue.core import actions, moves
from duologue.core.schema import Event
from duologue.core.task import Observation

CHARSET = frozenset(string.printable)
MAX_ENUM = moves.MENU_VALUES
"""A field with at most this many allowed values (a row of a list, an integer range) gives one menu entry per value."""


def ascii_text(text: str, limit: int, *, keep: str = "tail") -> str:
    """Text in the spaces' printable-ASCII charset, cut to `limit` characters (the most recent part by default)."""
    flat = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    flat = "".join(c if c in CHARSET else "?" for c in flat)
    return flat[-limit:] if keep == "tail" and len(flat) > limit else flat[:limit]


def describe_event(event: Event, names: dict[str, str] | None = None) -> str:
    """One transcript line: `who: words` for a message, `who [kind] fields` for any other move."""
    who = (names or {}).get(str(event.party), str(event.party)) if event.party is not None else "system"
    text = getattr(event, "text", None)
    if isinstance(text, str) and event.kind == "message":
        return f"{who}: {text}"
    fields = event.model_dump(exclude={"kind", "party", "time", "extra"}, exclude_none=True)
    details = " ".join(f"{k}={v}" for k, v in fields.items())
    return f"{who} [{event.kind}] {details}".rstrip()


def transcript_text(observation: Observation, names: dict[str, str] | None = None) -> str:
    return "\n".join(describe_event(e, names) for e in observation.transcript)


def numbers(value: Any, out: list[float], limit: int) -> None:
    """The numeric leaves of a view (booleans as 0/1), depth first in the view's own order."""
    if len(out) >= limit:
        return
    if isinstance(value, bool):
        out.append(float(value))
    elif isinstance(value, (int, float)):
        out.append(float(np.clip(value, -1e6, 1e6)))
    elif isinstance(value, dict):
        for item in value.values():
            numbers(item, out, limit)
    elif isinstance(value, (list, tuple)):
        for item in value:
            numbers(item, out, limit)


class ViewEncoder:
    """A party's `Observation` as a point of a fixed `Dict` space."""

    def __init__(self, *, max_turns: int, features: int = 64, text_chars: int = 4000, text_as: str = "str") -> None:
        """text_as: `str` (Gymnasium `Text` spaces) or `bytes` (the text's ASCII codes as a 0-padded
        uint8 vector: PettingZoo's checks want every leaf to be an array; `decode` reads it back)."""
        if text_as not in ("str", "bytes"):
            raise ValueError(f"text_as must be 'str' or 'bytes', not {text_as!r}")
        self.features = features
        self.max_turns = max_turns
        self.text_chars = text_chars
        self.text_as = text_as
        text_space = (
            spaces.Text(text_chars, min_length=0, charset="".join(sorted(CHARSET)))
            if text_as == "str"
            else spaces.Box(0, 127, shape=(text_chars,), dtype=np.uint8)
        )
        self.space = spaces.Dict(
            {
                "features": spaces.Box(-1e6, 1e6, shape=(features,), dtype=np.float32),
                "turn": spaces.Discrete(max_turns + 1),
                "view": text_space,
                "transcript": text_space,
            }
        )

    def _text(self, text: str) -> Any:
        if self.text_as == "str":
            return text
        codes = np.zeros(self.text_chars, dtype=np.uint8)
        raw = np.frombuffer(text.encode("ascii"), dtype=np.uint8)
        codes[: len(raw)] = raw
        return codes

    def encode(self, observation: Observation, names: dict[str, str] | None = None) -> dict[str, Any]:
        found: list[float] = []
        numbers({"public": observation.public, "private": observation.private}, found, self.features)
        vector = np.zeros(self.features, dtype=np.float32)
        vector[: len(found)] = found
        view = {"role": observation.role, "public": observation.public, "private": observation.private}
        return {
            "features": vector,
            "turn": np.int64(min(observation.turn, self.max_turns)),
            "view": self._text(ascii_text(_json(view), self.text_chars, keep="head")),
            "transcript": self._text(ascii_text(transcript_text(observation, names), self.text_chars)),
        }


def decode(text: Any) -> str:
    """Observation text back as a string, whichever way it was encoded."""
    if isinstance(text, str):
        return text
    return bytes(np.asarray(text, dtype=np.uint8)).rstrip(b"\0").decode("ascii")


def _json(value: Any) -> str:
    import orjson

    return orjson.dumps(value, default=str).decode()


class MenuCutWarning(UserWarning):
    """The move menu could not hold every legal move of a turn (each kind still keeps some)."""


class MoveMenu:
    """The legal moves now as a numbered list (at most `size`), enumerated from an action schema.

    Each move of the schema (a split flattened into one entry per allowed combination, a field
    with a short `enum` or a small integer range into one entry per value) becomes one entry
    (`moves.menu`); other free fields (a message's text, a price) are drawn once per turn from the
    environment's seeded RNG. When the entries do not fit, every legal kind keeps a share and the
    cut is never silent: `cut` says, for the latest turn, how many entries of each kind were left
    out (the environments put it in `info["menu_cut"]`), and a warning says it once per kind.
    """

    def __init__(self, size: int = 128) -> None:
        self.size = size
        self.space = spaces.Discrete(size)
        self.cut: dict[str, int] = {}
        self._warned: set[str] = set()

    def moves(self, schema: moves.Schema, rng: random.Random) -> list[dict[str, Any]]:
        out, self.cut = moves.menu(schema, rng, self.size)
        new = sorted(set(self.cut) - self._warned)
        if new:
            self._warned.update(new)
            left_out = ", ".join(f"{self.cut[kind]} {kind}" for kind in new)
            warnings.warn(f"the move menu holds {self.size} entries: {left_out} move(s) left out this turn (every kind keeps some; raise max_actions to keep all)", MenuCutWarning, stacklevel=2)
        return out

    def mask(self, legal: list[dict[str, Any]]) -> np.ndarray:
        mask = np.zeros(self.size, dtype=np.int8)
        mask[: len(legal)] = 1
        return mask

    @staticmethod
    def pick(legal: list[dict[str, Any]], index: Any) -> actions.Action:
        """The move at `index` (modulo the number of legal moves)."""
        if not legal:
            raise ValueError("no legal move to pick")
        return actions.parse_action(legal[int(index) % len(legal)])

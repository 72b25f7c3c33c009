"""Typed moves an agent (bot or person) makes in a task.

An action is what a party asks to do; the task checks it against its rules and, if legal, records
it as an event (`duologue.core.schema`) with the party and the time. Import the module rather
than the names (`from duologue.core import actions`), since some action names match event names.

Moves are open: a task defines a new kind in its own folder (an `Action` subclass with a
`kind: Literal[...]` field, and the event it becomes) and registers both with `register_move`.
`parse_action` then reads it like any built-in kind, and stored dialogues keep it.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

import orjson
from pydantic import ValidationError, field_validator

from duologue.core import schema
from duologue.core.schema import Model


class Action(Model):
    """Base for all moves. `to_event` turns a legal move into the transcript's event."""

    kind: str
    event: ClassVar[type[schema.EventBase] | None] = None
    """The event class a legal move of this kind becomes (default: the event of the same kind)."""

    def to_event(self, party: str, time: float | None) -> schema.EventBase:
        """The event this move becomes: the event registered for its kind, same fields."""
        fields = self.model_dump(exclude={"kind"})
        return EVENT_OF[self.kind](party=party, time=time, **fields)


class Say(Action):
    kind: Literal["say"] = "say"
    text: str

    @field_validator("text")
    @classmethod
    def _not_blank(cls, text: str) -> str:
        if not text.strip():
            raise ValueError("a message needs some text")
        return text


class Select(Action):
    """Pick one row (an item) of your own list."""

    kind: Literal["select"] = "select"
    item: dict[str, Any]


class Offer(Action):
    """A final price the other side may accept or reject."""

    kind: Literal["offer"] = "offer"
    price: float


class Accept(Action):
    kind: Literal["accept"] = "accept"


class Reject(Action):
    kind: Literal["reject"] = "reject"


class Quit(Action):
    kind: Literal["quit"] = "quit"


class SubmitDeal(Action):
    """Propose a split; `mine` is what the proposer gets, `theirs` what the other gets."""

    kind: Literal["submit-deal"] = "submit-deal"
    mine: dict[str, int]
    theirs: dict[str, int]


class AcceptDeal(Action):
    kind: Literal["accept-deal"] = "accept-deal"


class RejectDeal(Action):
    kind: Literal["reject-deal"] = "reject-deal"


class WalkAway(Action):
    kind: Literal["walk-away"] = "walk-away"


ALL = (Say, Select, Offer, Accept, Reject, Quit, SubmitDeal, AcceptDeal, RejectDeal, WalkAway)
EVENT_OF: dict[str, type[schema.EventBase]] = {
    "say": schema.Message,
    "select": schema.Select,
    "offer": schema.Offer,
    "accept": schema.Accept,
    "reject": schema.Reject,
    "quit": schema.Quit,
    "submit-deal": schema.SubmitDeal,
    "accept-deal": schema.AcceptDeal,
    "reject-deal": schema.RejectDeal,
    "walk-away": schema.WalkAway,
}
"""Action kind -> the event class a legal move of that kind is recorded as."""
BY_KIND: dict[str, type[Action]] = {cls.model_fields["kind"].default: cls for cls in ALL}
"""Action kind -> its class: the built-in kinds and every kind a task registered."""
KIND_OF_EVENT: dict[str, str] = {event.model_fields["kind"].default: kind for kind, event in EVENT_OF.items()}
"""Event kind -> the action kind that makes it (`message` -> `say`)."""


def _kind_of(cls: type[Model]) -> str:
    field = cls.model_fields.get("kind")
    kind = field.default if field is not None else None
    if not isinstance(kind, str) or not kind:
        raise TypeError(f"{cls.__name__} needs a `kind: Literal[...]` field with a default")
    return kind


def register_move(action: type[Action], event: type[schema.EventBase]) -> type[Action]:
    """Add a task's own kind of move, and the event it becomes, to every reader of moves and events.

    Call it in the task's own module (at import). The same pair registered twice is harmless; a kind
    already taken by another class is an error, so two tasks cannot silently share a name.
    """
    kind = _kind_of(action)
    known = BY_KIND.get(kind)
    if known is not None and (known.__module__, known.__qualname__) != (action.__module__, action.__qualname__):  # the same class read twice is fine
        raise ValueError(f"move kind {kind!r} is already {known.__module__}.{known.__qualname__}")
    schema.register_event(event)
    BY_KIND[kind] = action
    EVENT_OF[kind] = event
    KIND_OF_EVENT[_kind_of(event)] = kind
    return action


class MoveError(ValueError):
    """A move that cannot be read: not an object, no or unknown `kind`, or fields that do not fit.

    The message names the kind and the field, in words meant for whoever sent the move.
    """


def _problems(error: ValidationError) -> str:
    parts = []
    for item in error.errors():
        where = ".".join(str(p) for p in item["loc"]) or "move"
        parts.append(f"{where}: {item['msg']}")
    return "; ".join(parts)


def parse_action(data: dict[str, Any] | str | bytes) -> Action:
    """An action from JSON (an LLM's structured output, a websocket message, a terminal command).

    Raises `MoveError` (a `ValueError`) saying what was wrong and where.
    """
    if isinstance(data, (str, bytes)):
        try:
            data = orjson.loads(data)
        except orjson.JSONDecodeError as error:
            raise MoveError(f"a move must be JSON: {error}") from None
    if not isinstance(data, dict):
        raise MoveError(f"a move must be a JSON object with a `kind`, not {type(data).__name__}")
    kind = data.get("kind")
    cls = BY_KIND.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise MoveError(f"unknown move kind {kind!r} (known: {', '.join(BY_KIND)})")
    try:
        return cls.model_validate(data)
    except ValidationError as error:
        raise MoveError(f"{kind}: {_problems(error)}") from None


def action_of_event(event: schema.EventBase) -> Action | None:
    """The move that made this event (None for system notes and kinds no move makes)."""
    kind = KIND_OF_EVENT.get(event.kind)
    if kind is None:
        return None
    cls = BY_KIND[kind]
    fields = event.model_dump(exclude={"kind", "party", "time", "extra"})
    return cls.model_validate({k: v for k, v in fields.items() if k in cls.model_fields} | {"kind": kind})

"""Typed moves an agent (bot or person) makes in a task.

An action is what a party asks to do; the task checks it against its rules and, if legal, records
it as an event (`duologue.core.schema`) with the party and the time. Import the module rather
than the names (`from duologue.core import actions`), since some action names match event names.

Moves are open: a task defines a new kind in its own folder (an `Action` subclass with a
`kind: Literal[...]` field, and the event it becomes) and registers both with `register_move`.
`parse_action` then reads it like any built-in kind, and stored dialogues keep it.
"""

from __future__ import annotations

import copy
import sys
from typing import Any, ClassVar, Literal

import orjson
from pydantic import ValidationError, create_model, field_validator

from duologue.core import schema
from duologue.core.schema import Model
from duologue.core.text import visible


class Action(Model):
    """Base for all moves. `to_event` turns a legal move into the transcript's event."""

    kind: str
    event: ClassVar[type[schema.EventBase] | None] = None
    """The event class a legal move of this kind becomes (default: the event of the same kind)."""

    def to_event(self, party: str, time: float | None) -> schema.EventBase:
        """The event this move becomes: the event registered for its kind, same fields."""
        fields = self.model_dump(exclude={"kind"})
        return EVENT_OF[self.kind](party=party, time=time, **fields)

    @classmethod
    def from_event(cls, event: schema.EventBase) -> "Action":
        """The move that made `event` (the inverse of `to_event`), so a stored dialogue replays.

        By default the event's fields that this move declares; the rest (a corpus's own extras,
        such as CraigslistBargain's `sides` on an offer) belong to the record, not the move. A task
        whose `to_event` renames or derives fields overrides this with its own mapping.
        """
        fields = event.model_dump(exclude={"kind", "party", "time", "extra"})
        return cls.model_validate({name: value for name, value in fields.items() if name in cls.model_fields} | {"kind": cls.model_fields["kind"].default})


class Say(Action):
    kind: Literal["say"] = "say"
    text: str

    @field_validator("text")
    @classmethod
    def _not_blank(cls, text: str) -> str:
        if not visible(text):  # spaces alone, or zero-width and bidi characters that draw nothing
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


def event_class(action: type[Action]) -> type[schema.EventBase]:
    """The event class a move becomes, field for field: the move's fields (with their types and
    defaults) beside `party` and `time`, its kind, and the name `<Move>Event` in the move's module.

    What `register_move(Move)` uses when a task gives no event class of its own; write one only
    when the stored event differs from the move (a private choice stored with hidden fields)."""
    kind = _kind_of(action)
    fields: dict[str, Any] = {"kind": (Literal[kind], kind)}
    for name, info in action.model_fields.items():
        if name != "kind":
            fields[name] = (info.annotation, copy.copy(info))
    name = f"{action.__name__}Event"
    made: type[schema.EventBase] = create_model(name, __base__=schema.EventBase, __module__=action.__module__, __doc__=action.__doc__, **fields)
    made.__qualname__ = action.__qualname__.rsplit(".", 1)[0] + "." + name if "." in action.__qualname__ else name
    module = sys.modules.get(action.__module__)
    if module is not None and "." not in made.__qualname__ and not hasattr(module, name):
        setattr(module, name, made)  # found by name, so it pickles like a class written by hand
    return made


def register_move(action: type[Action], event: type[schema.EventBase] | None = None) -> type[Action]:
    """Add a task's own kind of move, and the event it becomes, to every reader of moves and events.

    Call it in the task's own module (at import). Without `event`, the event class is made from the
    move, field for field (`event_class`). The same pair registered twice is harmless; a kind
    already taken by another class is an error, so two tasks cannot silently share a name.
    Usable as a class decorator (`@register_move`).
    """
    kind = _kind_of(action)
    known = BY_KIND.get(kind)
    if known is not None and (known.__module__, known.__qualname__) != (action.__module__, action.__qualname__):  # the same class read twice is fine
        raise ValueError(f"move kind {kind!r} is already {known.__module__}.{known.__qualname__}")
    if event is None:
        registered = schema.EVENT_CLASSES.get(kind)
        same_move = known is not None and registered is not None and registered.__module__ == action.__module__
        event = registered if same_move and registered is not None else event_class(action)
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
    return BY_KIND[kind].from_event(event)

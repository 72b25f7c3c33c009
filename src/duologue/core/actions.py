"""Typed moves an agent (bot or person) makes in a task.

An action is what a party asks to do; the task checks it against its rules and, if legal, records
it as an event (`duologue.core.schema`) with the party and the time. Import the module rather
than the names (`from duologue.core import actions`), since some action names match event names.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Union

from pydantic import Field, TypeAdapter, field_validator

from duologue.core import schema
from duologue.core.schema import Model


class Action(Model):
    """Base for all moves. `to_event` turns a legal move into the transcript's event."""

    def to_event(self, party: str, time: float | None) -> schema.Event:
        """The event this move becomes: the event of the same kind (`say` is a `message`), same fields."""
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
    """MutualFriends: pick one friend of your own list."""

    kind: Literal["select"] = "select"
    item: dict[str, Any]


class Offer(Action):
    """CraigslistBargain: a final price the other side may accept or reject."""

    kind: Literal["offer"] = "offer"
    price: float


class Accept(Action):
    kind: Literal["accept"] = "accept"


class Reject(Action):
    kind: Literal["reject"] = "reject"


class Quit(Action):
    kind: Literal["quit"] = "quit"


class SubmitDeal(Action):
    """CaSiNo: propose a split; `mine` is what the proposer gets, `theirs` what the other gets."""

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

AnyAction = Annotated[Union[ALL], Field(discriminator="kind")]  # type: ignore[valid-type]
_ADAPTER: TypeAdapter = TypeAdapter(AnyAction)


def parse_action(data: dict[str, Any] | str | bytes) -> Action:
    """An action from JSON (an LLM's structured output, a websocket message)."""
    if isinstance(data, (str, bytes)):
        return _ADAPTER.validate_json(data)
    return _ADAPTER.validate_python(data)

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

    def to_event(self, party: str, time: float | None) -> schema.Event:  # pragma: no cover - overridden
        raise NotImplementedError


class Say(Action):
    kind: Literal["say"] = "say"
    text: str

    @field_validator("text")
    @classmethod
    def _not_blank(cls, text: str) -> str:
        if not text.strip():
            raise ValueError("a message needs some text")
        return text

    def to_event(self, party: str, time: float | None) -> schema.Event:
        return schema.Message(party=party, time=time, text=self.text)


class Select(Action):
    """MutualFriends: pick one friend of your own list."""

    kind: Literal["select"] = "select"
    item: dict[str, Any]

    def to_event(self, party: str, time: float | None) -> schema.Event:
        return schema.Select(party=party, time=time, item=self.item)


class Offer(Action):
    """CraigslistBargain: a final price the other side may accept or reject."""

    kind: Literal["offer"] = "offer"
    price: float

    def to_event(self, party: str, time: float | None) -> schema.Event:
        return schema.Offer(party=party, time=time, price=self.price)


class Accept(Action):
    kind: Literal["accept"] = "accept"

    def to_event(self, party: str, time: float | None) -> schema.Event:
        return schema.Accept(party=party, time=time)


class Reject(Action):
    kind: Literal["reject"] = "reject"

    def to_event(self, party: str, time: float | None) -> schema.Event:
        return schema.Reject(party=party, time=time)


class Quit(Action):
    kind: Literal["quit"] = "quit"

    def to_event(self, party: str, time: float | None) -> schema.Event:
        return schema.Quit(party=party, time=time)


class SubmitDeal(Action):
    """CaSiNo: propose a split; `mine` is what the proposer gets, `theirs` what the other gets."""

    kind: Literal["submit-deal"] = "submit-deal"
    mine: dict[str, int]
    theirs: dict[str, int]

    def to_event(self, party: str, time: float | None) -> schema.Event:
        return schema.SubmitDeal(party=party, time=time, mine=self.mine, theirs=self.theirs)


class AcceptDeal(Action):
    kind: Literal["accept-deal"] = "accept-deal"

    def to_event(self, party: str, time: float | None) -> schema.Event:
        return schema.AcceptDeal(party=party, time=time)


class RejectDeal(Action):
    kind: Literal["reject-deal"] = "reject-deal"

    def to_event(self, party: str, time: float | None) -> schema.Event:
        return schema.RejectDeal(party=party, time=time)


class WalkAway(Action):
    kind: Literal["walk-away"] = "walk-away"

    def to_event(self, party: str, time: float | None) -> schema.Event:
        return schema.WalkAway(party=party, time=time)


ALL = (Say, Select, Offer, Accept, Reject, Quit, SubmitDeal, AcceptDeal, RejectDeal, WalkAway)
BY_KIND: dict[str, type[Action]] = {cls.model_fields["kind"].default: cls for cls in ALL}

AnyAction = Annotated[Union[ALL], Field(discriminator="kind")]  # type: ignore[valid-type]
_ADAPTER: TypeAdapter = TypeAdapter(AnyAction)


def parse_action(data: dict[str, Any] | str | bytes) -> Action:
    """An action from JSON (an LLM's structured output, a websocket message)."""
    if isinstance(data, (str, bytes)):
        return _ADAPTER.validate_json(data)
    return _ADAPTER.validate_python(data)

"""Words against moves: does a bot submit, offer, accept or choose what its own messages just said?

DESIGN.md section 7: a split or price in a bot's words is the one it submits or accepts next. The
checker reads every message of one party with the task's own reader (the task package's `stated`
module: `stated(text, public)` gives what the speaker says it gets, `formal(earlier, event, party)`
what a formal move gives it) and compares each statement with the party's next formal move, as long
as the partner has said nothing in between (a partner's words may change the plan):

* `proposes-other` - it proposes, offers or chooses something else than it just said;
* `accepts-other` - it accepts something else than it just said;
* `rejects-own` - it rejects exactly what it just said ("Can I have all the food?", then no to that);
* `rejects-agreed` - it said yes in words ("That sounds really fair!", `agrees(text)` of the reader,
  when the module has one) and then rejects the offer on the table.

Tasks without a `stated` module are not checked (`reader_for` gives None).
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import import_module
from types import ModuleType
from typing import Any

from duologue.core.schema import Dialogue, Message
from duologue.core.task import Task


AGREED = object()
"""What a message that says yes without a split or price of its own states: the offer on the table."""


@dataclass(frozen=True)
class Contradiction:
    """One statement and the move that went against it."""

    kind: str
    text: str
    said: Any
    did: Any
    index: int
    """Position of the move in the dialogue's events."""


def reader_for(task: Task) -> ModuleType | None:
    """The task's statement reader (`<task package>.stated`), or None when it has none."""
    try:
        return import_module(f"{task.spec.resources}.stated")
    except ModuleNotFoundError:
        return None


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) or isinstance(b, float):
        return a is not None and b is not None and abs(float(a) - float(b)) < 0.5
    return bool(a == b)


def contradictions(dialogue: Dialogue, party: str, reader: ModuleType) -> list[Contradiction]:
    """Every statement of `party` its next formal move went against (see the module docstring)."""
    found: list[Contradiction] = []
    said: tuple[Any, str] | None = None
    public = dialogue.scenario.public
    events = list(dialogue.events)
    for index, event in enumerate(events):
        if isinstance(event, Message):
            if event.party != party:
                said = None
                continue
            value = reader.stated(event.text, public)
            if value is None and getattr(reader, "agrees", None) is not None and reader.agrees(event.text):
                value = AGREED
            said = (value, event.text) if value is not None else said
            continue
        if event.party != party:
            continue
        move = reader.formal(events[:index], event, party)
        if move is None or said is None:
            continue
        kind, value = move
        stated_value, text = said
        said = None
        if stated_value is AGREED:
            if kind == "reject":
                found.append(Contradiction("rejects-agreed", text, "yes", value, index))
        elif kind == "reject" and _same(value, stated_value):
            found.append(Contradiction("rejects-own", text, stated_value, value, index))
        elif kind in ("propose", "accept") and not _same(value, stated_value):
            found.append(Contradiction("proposes-other" if kind == "propose" else "accepts-other", text, stated_value, value, index))
    return found


def statements(dialogue: Dialogue, party: str, reader: ModuleType) -> int:
    """How many of `party`'s messages state a split or price (the checker's denominator)."""
    public = dialogue.scenario.public
    return sum(1 for e in dialogue.events if isinstance(e, Message) and e.party == party and reader.stated(e.text, public) is not None)

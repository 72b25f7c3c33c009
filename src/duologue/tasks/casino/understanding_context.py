"""The dialogue a CaSiNo message answers, as the split reader (`understanding_offers`) can use it.

A message read alone often leaves out what both negotiators already know: "Please let me have 2."
(of the item just discussed), "How about you take 2 and I have 1?" (answering "What is your need
for food?"), "3 packs of firewood for 3 food?" (who gives which follows from what each has said
they need). `understanding.read(text, context=Context(...))` takes the earlier turns of the
dialogue; this module reduces them to the few `Hints` the rules use:

* `topic`: the item under discussion, the last one named in the latest earlier turn that names
  one. A count standing alone ("let me have 2", "I'll take 1") is of that item when the message
  itself names none before it.
* `leaning`: per issue, how much more the speaker has said they need it than the partner has
  (needs read from the last few turns of each, plus what their proposals asked for). It settles
  a bare swap ("3 packs of firewood for 3 food?"): the speaker takes the side they lean to.
* `asked_amount`: the partner's last message asked how much of something the speaker needs, so a
  bare answer ("In a perfect world, all the water") is the speaker's own ask.

Earlier turns are read without context, and only as far as the message being read could use them:
the items they name for a message that names none, their needs for a message holding a swap.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Callable

from duologue.tasks.casino.rules import ISSUES
from duologue.tasks.casino.understanding_words import _tokens, issue_of_word

if TYPE_CHECKING:
    from duologue.tasks.casino.understanding import Reading

LOOK_BACK = 4
"""How many earlier turns the hints are drawn from (two of each side in a plain exchange)."""
_HOW_MUCH = re.compile(r"\bhow (many|much)\b[^?]*\b(you|u)\b[^?]*\b(need|want|like|take|get|have)\b|\bhow (many|much)\b[^?]*\b(do|would|will) (you|u) (need|want|like)\b")


@dataclass(frozen=True)
class Turn:
    """One earlier message of the dialogue."""

    text: str
    own: bool
    """Said by the speaker of the message being read (else by their partner)."""


@dataclass(frozen=True)
class Context:
    """The dialogue before the message being read, oldest turn first (deal moves left out)."""

    turns: tuple[Turn, ...] = ()

    @classmethod
    def of(cls, turns: list[tuple[str, bool]] | tuple[tuple[str, bool], ...]) -> "Context":
        """From (text, said by the speaker) pairs."""
        return cls(tuple(Turn(text, own) for text, own in turns))


@dataclass(frozen=True)
class Hints:
    """What the split reader takes from the context (see the module docstring)."""

    topic: str | None = None
    leaning: tuple[tuple[str, float], ...] = ()
    asked_amount: bool = False

    def lean(self, issue: str) -> float:
        return dict(self.leaning).get(issue, 0.0)


@lru_cache(maxsize=4096)
def _named(text: str) -> tuple[str, ...]:
    """The items a message names, in order (as `Reading.mentions`, without reading the rest of it)."""
    return tuple(issue for t in _tokens(text) if (issue := issue_of_word(t)))


def hints_of(context: Context | None, read: Callable[[str], "Reading"], *, topic: bool = True, leaning: bool = True) -> Hints | None:
    """The hints an earlier dialogue gives, or None when it gives none. `topic` and `leaning` say
    whether the message being read could use them (it names no item; it has a swap's "for"): the
    earlier turns are read only when it could, so most messages keep their context-free reading."""
    if context is None or not context.turns:
        return None
    recent = context.turns[-LOOK_BACK:]
    last_partner = recent[-1] if not recent[-1].own else None
    asked = last_partner is not None and bool(_HOW_MUCH.search(last_partner.text.lower()))
    found: str | None = None
    lean = dict.fromkeys(ISSUES, 0.0)
    if topic:
        found = next((named[-1] for turn in reversed(recent) if (named := _named(turn.text))), None)
    for turn in recent if leaning else ():
        for issue, value in read(turn.text).needs.items():  # stated needs, and shares asked for
            lean[issue] += value if turn.own else -value
    leans = tuple((issue, round(value, 3)) for issue, value in lean.items() if value)
    if found is None and not leans and not asked:
        return None
    return Hints(topic=found, leaning=leans, asked_amount=asked)


def with_own_needs(hints: Hints | None, needs: dict[str, float]) -> Hints | None:
    """The hints with the needs the message itself states added to the speaker's leaning ("I really
    need some food. 3 packs of firewood for 3 food?")."""
    if not needs:
        return hints
    lean = dict(hints.leaning) if hints is not None else {}
    for issue, value in needs.items():
        lean[issue] = lean.get(issue, 0.0) + value
    leaning = tuple((issue, round(lean[issue], 3)) for issue in ISSUES if lean.get(issue))
    return Hints(topic=hints.topic if hints else None, leaning=leaning, asked_amount=hints.asked_amount if hints else False)

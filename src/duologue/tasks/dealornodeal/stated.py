"""What a Deal or No Deal message or choice gives its speaker, for the words-against-moves checker
(`duologue.evaluation.contradictions`)."""

from __future__ import annotations

from typing import Any

from duologue.tasks.dealornodeal.rules import ITEMS
from duologue.tasks.dealornodeal.task import ChooseEvent
from duologue.tasks.dealornodeal.understanding import read


def stated(text: str, public: dict[str, Any]) -> dict[str, int] | None:
    """The speaker's share of the split its words state, else None."""
    pool = {item: int(public["pool"][item]) for item in ITEMS}
    return read(text, pool).speaker_gets


def formal(earlier: list[Any], event: Any, party: str) -> tuple[str, dict[str, int]] | None:
    """("propose", the share `party` chose) for its private choice, else None."""
    if isinstance(event, ChooseEvent) and event.mine is not None:
        return "propose", {item: int(event.mine[item]) for item in ITEMS}
    return None


def agrees(text: str) -> bool:
    """Whether the speaker says yes ("deal!") without a split of its own."""
    return read(text, {item: 1 for item in ITEMS}).accepts

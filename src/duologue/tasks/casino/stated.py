"""What a CaSiNo message or move gives its speaker, for the words-against-moves checker
(`duologue.evaluation.contradictions`): whole splits only, as the speaker's own share."""

from __future__ import annotations

from typing import Any

from duologue.core.schema import AcceptDeal, RejectDeal, SubmitDeal
from duologue.tasks.casino.rules import ISSUES, PACKAGES_PER_ISSUE
from duologue.tasks.casino.understanding import read


def stated(text: str, public: dict[str, Any]) -> dict[str, int] | None:
    """The speaker's share of a whole split its words state, else None."""
    proposal = read(text).proposal
    if proposal is None or any(proposal.get(i) is None for i in ISSUES):
        return None
    return {i: int(proposal[i]) for i in ISSUES}  # type: ignore[arg-type]


def formal(earlier: list[Any], event: Any, party: str) -> tuple[str, dict[str, int]] | None:
    """("propose" | "accept" | "reject", what `party` gets) for a deal move of `party`, else None."""
    if isinstance(event, SubmitDeal):
        return "propose", {i: int(event.mine[i]) for i in ISSUES}
    if isinstance(event, (AcceptDeal, RejectDeal)):
        deal = next((e for e in reversed(earlier) if isinstance(e, SubmitDeal) and e.party != party), None)
        if deal is None:
            return None
        share = {i: PACKAGES_PER_ISSUE - int(deal.mine[i]) for i in ISSUES}
        return ("accept" if isinstance(event, AcceptDeal) else "reject"), share
    return None


def agrees(text: str) -> bool:
    """Whether the speaker says yes ("That sounds really fair!"), not sarcastically."""
    reading = read(text)
    return reading.agrees and not reading.disagrees and not reading.sarcastic


def pending(earlier: list[Any], party: str) -> dict[str, int] | None:
    """What the deal on the table gives `party` (the partner's last submitted deal), or None."""
    deal = next((e for e in reversed(earlier) if isinstance(e, SubmitDeal) and e.party != party), None)
    return None if deal is None else {i: PACKAGES_PER_ISSUE - int(deal.mine[i]) for i in ISSUES}

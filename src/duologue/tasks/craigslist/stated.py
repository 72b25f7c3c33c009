"""What a CraigslistBargain message or move names as the price, for the words-against-moves checker
(`duologue.evaluation.contradictions`)."""

from __future__ import annotations

from typing import Any

from duologue.core.schema import Accept, Offer, Reject
from duologue.tasks.craigslist.reading import read_message


def stated(text: str, public: dict[str, Any]) -> float | None:
    """The price the speaker proposes in its words, else None."""
    listed = public.get("listing_price")
    reading = read_message(text, listing_price=float(listed) if listed else None)
    return None if reading.price is None else float(reading.price)


def formal(earlier: list[Any], event: Any, party: str) -> tuple[str, float] | None:
    """("propose" | "accept" | "reject", the price) for a price move of `party`, else None."""
    if isinstance(event, Offer) and event.price is not None:
        return "propose", float(event.price)
    if isinstance(event, (Accept, Reject)):
        offer = next((e for e in reversed(earlier) if isinstance(e, Offer) and e.party != party), None)
        if offer is None or offer.price is None:
            return None
        return ("accept" if isinstance(event, Accept) else "reject"), float(offer.price)
    return None


def agrees(text: str) -> bool:
    """Whether the speaker says yes ("deal!", "sounds good")."""
    reading = read_message(text)
    return reading.agree and not reading.disagree and not reading.question


def pending(earlier: list[Any], party: str) -> float | None:
    """The price of the partner's last final offer, or None."""
    offer = next((e for e in reversed(earlier) if isinstance(e, Offer) and e.party != party), None)
    return None if offer is None or offer.price is None else float(offer.price)

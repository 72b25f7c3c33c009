"""The project's own Craigslist-style listings, from which the task draws scenarios.

`listings.json` (next to this module, shipped as package data) holds 48 listings the project
wrote itself, eight in each of the corpus's six categories (housing, furniture, car, bike, phone,
electronics), each with an id, title, description lines, a listing price (whole dollars, as in
the corpus) and images (none: the project has no photos). `ratios` are the buyer's target as a
share of the listing price (DESIGN 2.2: 0.5, 0.7 or 0.9), one scenario per listing and ratio.
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources

from pydantic import Field

from duologue.core.schema import Model

CATEGORIES: tuple[str, ...] = ("housing", "furniture", "car", "bike", "phone", "electronics")


class Listing(Model):
    """One item for sale (or rent), as a seller posted it."""

    id: str
    category: str
    title: str
    price: int = Field(gt=0)
    description: list[str]
    images: list[str] = Field(default_factory=list)


class ListingSet(Model):
    ratios: list[float]
    listings: list[Listing]


@lru_cache(maxsize=1)
def listing_set() -> ListingSet:
    """The listings and target ratios shipped with duologue (read once)."""
    text = resources.files("duologue.tasks.craigslist").joinpath("listings.json").read_text(encoding="utf-8")
    return ListingSet.model_validate(json.loads(text))


def listings(categories: tuple[str, ...] | None = None) -> list[Listing]:
    """All listings, or those of the given categories."""
    every = listing_set().listings
    if categories is None:
        return list(every)
    unknown = set(categories) - set(CATEGORIES)
    if unknown:
        raise ValueError(f"unknown categories {sorted(unknown)}; expected some of {', '.join(CATEGORIES)}")
    return [listing for listing in every if listing.category in categories]


def target_ratios() -> list[float]:
    return list(listing_set().ratios)

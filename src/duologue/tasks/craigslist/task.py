"""CraigslistBargain (`craigslist-v0`): a buyer and a seller bargain over one listed item.

**Scenario.** A listing (title, category, description lines, listing price, images). The seller's
target is the listing price; the buyer's target is 0.5, 0.7 or 0.9 of it, in whole dollars (one
scenario per listing and ratio, as in He et al. 2018). Scenarios are drawn from the project's own
listings (`listings.json`, 48 listings over the six categories), or from corpus dialogues
(`CraigslistTask(scenarios="validation.json")` or a list of `Dialogue`s / `Scenario`s); a
corpus `Dialogue` given to `reset(scenario=...)` replays its scenario. Bottomlines are empty, as
in the corpus, unless `bottomlines=True` draws one per side (the seller's between 0.6 and 0.8 of
the listing price; the buyer's between 30% and 60% of the way from its target to the listing
price). A bottomline is private, like the target.

**Parties and views.** Party ids are the corpus's agent indices: `"0"` is the buyer and `"1"`
the seller (every corpus record has agent 0 as the buyer). Each private view has the corpus
reader's keys: `{role, target, bottomline, item {category, title, description, price, images}}`;
the public part is `{category, post_id, title, listing_price}`. Who moves first is drawn from the
episode's RNG.

**Moves.** `say` (a message), `offer(price)` (a final price, a positive finite number),
`accept`, `reject`, `quit`. After an offer the other side must answer it with `accept` or
`reject` and nothing else (it cannot quit or talk over an open offer; a person who wants to leave
rejects, then quits). `accept` makes the deal and ends the dialogue. `reject` closes the offer
and the dialogue goes on; the rejecting side moves again right away, so it can say why or
counter (on CoCoA's platform a rejected offer usually ended the chat; here bargaining may go
on). `quit` ends the dialogue without a deal. While its own offer is open, a party may only talk
(which matters only with free turn-taking). A turn limit (30 moves by default; the corpus's
longest dialogue has 20 events) or a time limit truncates the dialogue without a deal.

**Outcome and scores.** A deal is an offer the other side accepted (`corpus._settle`, the
corpus reader's own rule). Scores are CoCoA's utilities (`scoring.py`): with the midpoint of the
two targets, the seller's utility is `(price - midpoint) / |midpoint - seller target|` and the
buyer's is its negative (+1 at one's own target, 0 at the midpoint). No deal: no scores.

**Episode metrics.** `agreement`, `utility_buyer` and `utility_seller` (deals only), `fairness`
(`2 - |utility|`, deals only), `price_ratio` (deal price / listing price, deals only), `length`
(events / 10, CoCoA's length reward) and `turns`. The declared values (`values.py`: a price grid between
the targets, CoCoA's utility, its -0.5 for no deal) add `pareto_efficient`, `frontier_distance`,
`surplus` and the other outcome figures of `duologue.core.values`.
"""

from __future__ import annotations

import math
import random
from functools import lru_cache
from pathlib import Path
from typing import Any, Sequence

from duologue.core import actions, moves
from duologue.core.schema import Dialogue, Outcome, Scenario, SystemNote
from duologue.core.spec import Metric, TaskSpec
from duologue.core.values import Values
from duologue.core.task import Task
from duologue.tasks.craigslist.corpus import _build_outcome, _public, _view
from duologue.tasks.craigslist.listings import Listing, listings, target_ratios
from duologue.tasks.craigslist.scoring import ScoringError, fairness, length_reward, targets_by_role

BUYER, SELLER = "0", "1"
"""Party ids: the corpus's agent indices (agent 0 is the buyer in every corpus record)."""

RANDOM_MESSAGES = (
    "Hi there!", "Is it still available?", "What condition is it in?", "That's too much.", "Can you go lower?",
    "I'm interested.", "Sounds good.", "No way.", "Hmm, let me think about it.", "Any scratches?", "Okay.",
    "I can pick it up today.", "It's in great shape.", "Sorry, that's too low.", "Deal?",
)
"""What the random agent says: no numbers, so a random move never carries a secret by chance."""
RANDOM_PRICE_MESSAGES = ("How about ${price}?", "Would you take {price}?", "I can do ${price}.", "{price} dollars?")


def scenario_from_listing(
    listing: Listing,
    ratio: float,
    *,
    scenario_id: str,
    bottomlines: tuple[float | None, float | None] = (None, None),
) -> Scenario:
    """The scenario of one listing and one buyer target ratio (bottomlines: buyer's, seller's)."""
    buyer_target = max(1, int(round(ratio * listing.price)))
    item = (listing.category, list(listing.images), listing.price, list(listing.description), listing.title)
    private = {
        BUYER: _view("buyer", buyer_target, bottomlines[0], *item),
        SELLER: _view("seller", listing.price, bottomlines[1], *item),
    }
    public = {"category": listing.category, "post_id": listing.id}
    public.update({k: v for k, v in _public(private).items() if k not in public})
    return Scenario(id=scenario_id, public=public, private=private)


MAX_PRICE_FACTOR = 10.0
"""Offers above this multiple of the listing price are refused (and outside the move schema)."""
DEFAULT_LISTING_PRICE = 100_000.0
"""The bound's base when a scenario has no listing price."""

def listing_price(scenario: Scenario) -> float | None:
    """The listing price: public, else the seller's item price or target."""
    price: Any = scenario.public.get("listing_price")
    if _is_number(price) and price > 0:
        return float(price)
    for view in scenario.private.values():
        if view.get("role") == "seller":
            item = view.get("item") or {}
            candidate: Any
            for candidate in (item.get("price"), view.get("target")):
                if _is_number(candidate) and candidate > 0:
                    return float(candidate)
    return None


def target_ratio(scenario: Scenario) -> float | None:
    """The buyer's target as a share of the listing price (0.5, 0.7 or 0.9 for generated scenarios)."""
    price = listing_price(scenario)
    buyer = next((v for v in scenario.private.values() if v.get("role") == "buyer"), None)
    if price is None or buyer is None or not _is_number(buyer.get("target")):
        return None
    return float(buyer["target"]) / price


def ratio_bucket(ratio: float | None) -> str:
    """The nearest of the paper's three ratios: below 0.6 -> `0.5`, below 0.8 -> `0.7`, else `0.9`."""
    if ratio is None:
        return "unknown"
    if ratio < 0.6:
        return "0.5"
    if ratio < 0.8:
        return "0.7"
    return "0.9"


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


@lru_cache(maxsize=8)
def _corpus_scenarios(path: str) -> tuple[Scenario, ...]:
    """Scenarios of every valid record of a corpus file (read once per process: self-play makes a task per episode)."""
    from duologue.data.io import read_corpus
    from duologue.tasks import corpus_format

    result = read_corpus(corpus_format("craigslist"), path, skip_invalid=True)
    return tuple(d.scenario for d in result.dialogues)


def _playable(scenario: Scenario) -> bool:
    """One buyer and one seller with numeric targets, under the party ids `"0"` / `"1"`, and a listing price."""
    if set(scenario.private) != {BUYER, SELLER}:
        return False
    try:
        targets = targets_by_role(scenario.private)
    except ScoringError:
        return False
    return targets["buyer"] != targets["seller"] and listing_price(scenario) is not None


def load_scenarios(source: str | Path | Sequence[Dialogue | Scenario]) -> list[Scenario]:
    """Playable scenarios from a corpus file or folder, or from dialogues / scenarios already in memory."""
    if isinstance(source, (str, Path)):
        found = list(_corpus_scenarios(str(Path(source).resolve())))
    else:
        found = [item.scenario if isinstance(item, Dialogue) else item for item in source]
    playable = [s for s in found if _playable(s)]
    if not playable:
        raise ValueError("no playable CraigslistBargain scenario (need parties '0' and '1', one buyer and one seller with different numeric targets)")
    return playable


class CraigslistTask(Task):
    """CraigslistBargain: free-text bargaining, final offers, CoCoA's utility."""

    spec = TaskSpec(
        id="craigslist-v0",
        family="craigslist",
        title="CraigslistBargain: haggle over a listing",
        description=(
            "A buyer and a seller bargain over an item from a classified ad (title, description, listing price). "
            "Each has a private target price. They chat, then one makes a final offer that the other accepts or "
            "rejects; either may quit. Utility is +1 at your own target and 0 at the midpoint of the two targets."
        ),
        parties=(BUYER, SELLER),
        roles=("buyer", "seller"),
        kind="competitive",
        metrics=[
            Metric(name="agreement", label="agreement"),
            Metric(name="utility_buyer", label="utility buyer"),
            Metric(name="utility_seller", label="utility seller"),
            Metric(name="fairness", label="fairness"),
            Metric(name="length", label="length"),
        ],
        score="utility (+1 at your target, 0 at the midpoint)",
        judge_context="A buyer and a seller bargain over the price of an item listed for sale.",
        corpus="craigslist",
        resources="duologue.tasks.craigslist",
        widget="offer.js",
        questionnaires={"party": "party.yaml", "rater": "rater.yaml"},
    )
    default_max_turns = 30
    agents = {"rule": "duologue.tasks.craigslist.agents:CraigslistRuleAgent", "modular": "duologue.tasks.craigslist.modular:CraigslistModularAgent"}

    def __init__(
        self,
        *,
        scenarios: str | Path | Sequence[Dialogue | Scenario] | None = None,
        categories: Sequence[str] | None = None,
        bottomlines: bool = False,
        **options: Any,
    ) -> None:
        """
        scenarios: draw scenarios from a corpus file (e.g. the validation split) or from these
        dialogues / scenarios instead of the project's listings. categories: only listings of
        these categories. bottomlines: give each side a private bottomline. Other options go to `Task`.
        """
        super().__init__(**options)
        self._scenarios = load_scenarios(scenarios) if scenarios is not None else None
        self._listings = listings(tuple(categories) if categories is not None else None)
        if not self._listings:
            raise ValueError("no listings to draw scenarios from")
        self.bottomlines = bottomlines

    # ------------------------------------------------------------------ scenarios

    def generate_scenario(self, rng: random.Random) -> Scenario:
        if self._scenarios is not None:
            return rng.choice(self._scenarios).model_copy(deep=True)
        listing = rng.choice(self._listings)
        ratio = rng.choice(target_ratios())
        scenario_id = f"S_{listing.id}_{rng.randrange(16**8):08x}"
        bottomlines: tuple[float | None, float | None] = (None, None)
        if self.bottomlines:
            buyer_target = ratio * listing.price
            seller_bottomline = int(round(rng.uniform(0.6, 0.8) * listing.price))
            buyer_bottomline = int(round(buyer_target + rng.uniform(0.3, 0.6) * (listing.price - buyer_target)))
            bottomlines = (buyer_bottomline, seller_bottomline)
        return scenario_from_listing(listing, ratio, scenario_id=scenario_id, bottomlines=bottomlines)

    # ------------------------------------------------------------------ rules

    def _on_reset(self) -> None:
        self.open_offer: tuple[str, float] | None = None
        """(who offered, price) while an offer waits for its answer."""

    def _legal_kinds(self, party: str) -> list[str]:
        if self.open_offer is None:
            return ["say", "offer", "quit"]
        if self.open_offer[0] == party:
            return ["say"]
        return ["accept", "reject"]

    def max_price(self) -> float:
        """The highest price an offer may name: `MAX_PRICE_FACTOR` times the listing price."""
        return round(MAX_PRICE_FACTOR * (listing_price(self.scenario) or DEFAULT_LISTING_PRICE), 2)

    def move_schema(self, party: str, kind: str) -> moves.Schema:
        if kind == "offer":
            price = {"type": "number", "exclusiveMinimum": 0, "maximum": self.max_price()}
            return moves.move(kind, {"price": price}, description="Make a final offer at this price; the other side accepts or rejects it.")
        return super().move_schema(party, kind)

    def _check(self, party: str, action: actions.Action) -> str | None:
        if isinstance(action, actions.Offer):
            price = action.price
            if not math.isfinite(price) or price <= 0:
                return f"an offer's price must be a positive number, got {price!r}"
            if price > self.max_price():
                return f"an offer's price may be at most {self.max_price():g} ({MAX_PRICE_FACTOR:g}x the listing price)"
        return None

    def _apply(self, party: str, action: actions.Action) -> None:
        if isinstance(action, actions.Offer):
            self.open_offer = (party, action.price)
        elif isinstance(action, actions.Reject):
            self.open_offer = None
        elif isinstance(action, actions.Accept):
            self._terminate("agreement")
        elif isinstance(action, actions.Quit):
            self._terminate("quit")

    def next_party(self, party: str, action: actions.Action) -> str:
        """Alternate, except that a party who rejects an offer moves again (to say why or counter)."""
        if isinstance(action, actions.Reject):
            return party
        return self.other(party)

    # ------------------------------------------------------------------ scoring

    def judge(self, dialogue: Dialogue) -> Outcome:
        """Agreement when an offer was accepted, scored with CoCoA's utility; else how it ended."""
        outcome = _build_outcome(dialogue.events, dialogue.scenario.private)
        if outcome.agreed:
            return outcome
        notes = [e for e in dialogue.events if isinstance(e, SystemNote)]
        if notes and outcome.reason != "quit":
            return Outcome(reason=notes[-1].name, agreed=False)
        return outcome

    def episode_metrics(self, dialogue: Dialogue) -> dict[str, float | None]:
        outcome = dialogue.outcome or self.judge(dialogue)
        figures = super().episode_metrics(dialogue)
        roles = {view.get("role"): party for party, view in dialogue.scenario.private.items()}
        buyer_score = outcome.scores.get(roles.get("buyer", BUYER)) if outcome.agreed else None
        seller_score = outcome.scores.get(roles.get("seller", SELLER)) if outcome.agreed else None
        figures["utility_buyer"] = buyer_score
        figures["utility_seller"] = seller_score
        figures["fairness"] = fairness(seller_score) if seller_score is not None else None
        price: Any = (outcome.deal or {}).get("price") if outcome.agreed else None
        listed = listing_price(dialogue.scenario)
        figures["price_ratio"] = float(price) / listed if _is_number(price) and listed else None
        events = sum(1 for e in dialogue.events if e.kind != "system")
        figures["length"] = length_reward(events)
        return figures

    def values(self, scenario: Scenario) -> Values | None:
        from duologue.tasks.craigslist.values import CraigslistValues

        try:
            return CraigslistValues(self.party_ids, scenario, listing_price(scenario))
        except ScoringError:
            return None  # a corpus scenario without usable targets has no utility to analyse

    # ------------------------------------------------------------------ random play

    def sample_action(self, party: str, rng: random.Random) -> actions.Action:
        """A random legal move; quitting is rare (5%) so random dialogues have some length."""
        kinds = self._legal_kinds(party)
        if kinds == ["accept", "reject"]:
            return actions.Accept() if rng.random() < 0.5 else actions.Reject()
        weights = {"say": 0.65, "offer": 0.30, "quit": 0.05}
        kind = rng.choices(kinds, weights=[weights[k] for k in kinds])[0]
        if kind == "quit":
            return actions.Quit()
        price = self._random_price(party, rng)
        if kind == "offer":
            return actions.Offer(price=price)
        if rng.random() < 0.3:
            return actions.Say(text=rng.choice(RANDOM_PRICE_MESSAGES).format(price=int(price)))
        return actions.Say(text=rng.choice(RANDOM_MESSAGES))

    def _random_price(self, party: str, rng: random.Random) -> float:
        """A whole-dollar price between 0.3 and 1.3 of the listing price.

        Prices whose digits contain one of the other side's private numbers (its target, its
        bottomline) are drawn again: a random move that happens to spell the other side's secret
        is not a leak, but it would be indistinguishable from one in the transcript.
        """
        listed = listing_price(self.scenario) or 100.0
        other = self.scenario.private.get(self.other(party), {})
        secrets = {str(v) for v in (other.get("target"), other.get("bottomline")) if _is_number(v)}
        secrets = {s for s in secrets | {str(float(s)) for s in secrets} if len(s) >= 3}
        price = 1.0
        for _ in range(50):
            price = float(max(1, int(round(rng.uniform(0.3, 1.3) * listed))))
            spelled = (str(int(price)), str(price))
            if not any(secret in text for secret in secrets for text in spelled):
                break
        return price

"""A rule-based buyer or seller for CraigslistBargain that reads and writes plain English.

In the spirit of CoCoA's rule bot (He et al. 2018), rebuilt from the description, not the code:

* it greets, and talks about the item: the seller describes it and answers questions from its
  description lines; the buyer asks questions that fit the category;
* it opens near its target (the seller at the listing price, the buyer a little under its target)
  and concedes gradually: each counter moves a share of the way toward the partner's last price,
  never past its *comfort* price: the seller's is `comfort_fraction` (0.7) of the listing price, the
  buyer's the midpoint between its target and the listing price;
* its *limit*, the price it walks away beyond, is wider: its bottomline when the scenario sets one,
  else `floor_fraction` (0.55) of the listing price for a seller, and the listing price for a buyer.
  It goes past its comfort price only when the partner holds firm: after the partner turned down an
  offer of its own, insisted on a price, or made a final offer after some bargaining (people's final
  offers are meant to be taken or left);
* it understands the partner's prices from free text (`reading.py`, `prices.py`) and from offers,
  and their agreement, refusal and questions; it also follows the coarse act of every move the way
  the corpus parser labels them (`acts.py`: init-price, counter-price, insist, agree, ...), kept on
  each reading as `act`;
* when the two prices are close, or the partner's price is at least as good as its own, it makes
  a final offer; it accepts a final offer within its limit that is close to what it asked, or that
  comes after bargaining, or when the turns run out, and rejects the others, then counters;
* when the partner turns down one of its offers, its next offer is better for the partner: halfway
  to the partner's price, then the partner's price itself when that is within its limit; it never
  makes the same rejected offer again;
* it quits only as a last resort: when time is nearly up and the partner stays beyond its limit.

Every move has several phrasings chosen with the agent's own RNG, and prices are written in
varied forms (`$1,200`, `1200 bucks`, `1.2k`), which also exercises the partner's price finder.
The agent never accepts, or offers, a price beyond its limit.
"""

from __future__ import annotations

import math
import random
import re
from typing import Any

from duologue.core import actions
from duologue.core.agent import Agent
from duologue.core.schema import Accept, Message, Offer, Quit, Reject
from duologue.core.task import Observation, Task
from duologue.tasks.craigslist.acts import ActTracker
from duologue.tasks.craigslist.prices import find_price
from duologue.tasks.craigslist.reading import Reading, answer_question, read_message

QUESTIONS: dict[str, list[str]] = {
    "housing": [
        "Are pets allowed?", "Is parking included?", "When would it be available?", "Are utilities included in the rent?",
        "Is there laundry in the building?", "How long is the lease?", "Is it a quiet neighborhood?",
    ],
    "furniture": [
        "Any scratches or stains?", "How old is it?", "Is it from a smoke free home?", "Could you help load it?",
        "Is it sturdy?", "Does it come apart for moving?", "Why are you getting rid of it?",
    ],
    "car": [
        "How many miles are on it?", "Any accidents?", "Is the title clean?", "When was the last service?",
        "Has it had any major repairs?", "Does it have any mechanical issues?", "Could I take it for a test drive?",
    ],
    "bike": [
        "What size is the frame?", "When was it last tuned up?", "Any rust on the chain?", "Are the tires in good shape?",
        "Has it been in any crashes?", "Do the brakes work well?",
    ],
    "phone": [
        "Is it unlocked?", "How is the battery?", "Any cracks on the screen?", "Does it come with a charger?",
        "Has it ever been dropped in water?", "Is it paid off?",
    ],
    "electronics": [
        "Does everything work?", "Does it come with all the cables?", "How old is it?", "Any issues I should know about?",
        "Is the original box included?", "Why are you selling it?",
    ],
}
AVAILABLE = re.compile(r"\bavail\w*|\bstill (?:for sale|have|selling)", re.I)
GENERIC_QUESTIONS = ["What condition is it in?", "Any problems with it?", "Why are you letting it go?"]
NOUNS = {"housing": "place", "furniture": "piece", "car": "car", "bike": "bike", "phone": "phone", "electronics": "item"}
STOP_WORDS = {"in", "with", "for", "and", "the", "a", "an", "of", "to", "at", "on", "near", "w", "or", "by"}
SELLER_REASONS = {
    "housing": ["I've had a lot of interest in the place.", "The rent is already fair for the area."],
    "other": ["I've had a lot of interest.", "That's already a good deal."],
}
BUYER_REASONS = {
    "housing": ["I could sign the lease this week.", "I'm a quiet, reliable tenant.", "I have to stay on budget.", "I'd be there for a long time."],
    "other": ["I can pick it up today.", "I'd pay cash.", "I have to stay on budget."],
}
LISTING_REASONS: tuple[tuple[str, str, str], ...] = (
    # (who, what the listing must say, the reason it then supports): no reason the listing does not back;
    # `item:` reasons are about an object, never said about a place to rent
    ("item:seller", r"\b(?:excellent|great|good|perfect|mint) (?:condition|shape)|\bwell (?:maintained|kept|taken care)|\blike new", "It's in really good condition."),
    ("item:seller", r"\bbarely used|\bnever used|\bunused|\blike new|\bbrand new|\brarely used|\bstill in (?:the )?(?:box|package)", "It's barely been used."),
    ("item:seller", r"\bvintage|\bantique|\bclassic|\brare\b|\b19[0-8]\d(?:s|\b)|\b[1-8]0s\b", "Pieces like this are hard to find now."),
    ("seller", r"\brenovated|\bremodel|\bupdated", "It was just renovated."),
    ("item:seller", r"\btuned|\bserviced|\bnew tires|\bnew battery|\bnew brakes", "It was recently serviced."),
    ("item:buyer", r"\bscratch|\bwear\b|\bworn|\bfair condition|\brust|\bneeds\b|\bnot working|\bas is\b|\bdent", "I'd need to fix a few things."),
)
DEFLECTIONS = {
    "deposit": "the deposit", "pets": "pets", "smoking": "smoking", "utilities": "the utilities", "laundry": "laundry",
    "parking": "parking", "lease": "the lease terms", "mileage": "the mileage", "owner": "previous owners",
    "title": "the title history", "unlocked": "the carrier lock", "battery": "the battery", "tires": "that part",
    "service": "servicing", "interior": "the interior", "color": "the color", "material": "the materials",
    "included": "what's included", "capacity": "how many it fits", "size": "the exact size", "why": "that",
    "usage": "how much it was used", "age": "its exact age", "condition": "that", "schools": "the schools", "noise": "noise",
}
"""How a seller names a topic its listing is silent on, to say so honestly instead of reciting another line."""


class CraigslistRuleAgent(Agent):
    """A buyer or a seller (from its private view) that bargains by concession rules."""

    name = "rule"

    def __init__(
        self,
        *,
        floor_fraction: float = 0.55,
        comfort_fraction: float = 0.7,
        concession: tuple[float, float] = (0.2, 0.4),
        close_fraction: float = 0.03,
        chat_turns: int = 2,
    ) -> None:
        """
        floor_fraction: the seller's limit (walk-away price) as a share of the listing price when no
            bottomline is set.
        comfort_fraction: the seller's comfort price (where its concessions stop until the partner
            holds firm) as a share of the listing price.
        concession: the share of the gap to the partner's price given up in one counter (drawn per counter).
        close_fraction: prices closer than this share of the listing price count as agreed.
        chat_turns: messages about the item before the buyer names a price.
        """
        self.floor_fraction = floor_fraction
        self.comfort_fraction = comfort_fraction
        self.concession = concession
        self.close_fraction = close_fraction
        self.chat_turns = chat_turns

    # ------------------------------------------------------------------ episode state

    def reset(self, task: Task, party: str, rng: random.Random) -> None:
        super().reset(task, party, rng)
        self._ready = False
        self._seen = 0
        self.my_price: float | None = None
        self.their_price: float | None = None
        self.new_price = False
        self.partner_agreed = False
        self.partner_insists = False
        self.last_reading: Reading | None = None
        self.spoken = 0
        self.rounds = 0
        self.insisted = 0
        self.my_offer: float | None = None
        self.offers_rejected = 0
        self.rejected_prices: list[float] = []
        self.just_rejected = False
        self.held_firm = False
        self.nudges = 0
        """The partner turned down an offer of mine or insisted on a price: I may go past my comfort price."""
        self.asked: list[str] = []
        self.told: list[str] = []
        self.stated: list[float | None] = []
        """The price each of my messages named (None: none), to avoid saying one price three times running."""

    def _setup(self, observation: Observation) -> None:
        """Read role, target, limit and the listing from the private view (as the corpus reader writes it)."""
        private, public = observation.private, observation.public
        item: dict[str, Any] = private.get("item") or {}
        self.role = private.get("role") or observation.role or "buyer"
        self.seller = self.role == "seller"
        listing = public.get("listing_price") or item.get("price") or private.get("target") or 1
        self.listing = float(listing)
        target = private.get("target")
        self.target = float(target) if target is not None else self.listing
        self.title = str(public.get("title") or item.get("title") or "item")
        self.category = str(public.get("category") or item.get("category") or "")
        self.description = [line for line in (item.get("description") or []) if isinstance(line, str) and line.strip()]
        self.listing_text = [self.title, *self.description]
        listing_words = " ".join(self.listing_text)
        bank = SELLER_REASONS if self.seller else BUYER_REASONS
        self.reasons = list(bank["housing" if self.category == "housing" else "other"]) + [
            reason for who, cue, reason in LISTING_REASONS
            if who.split(":")[-1] == self.role and not (who.startswith("item:") and self.category == "housing") and re.search(cue, listing_words, re.I)
        ]
        self.farewell = False
        bottomline = private.get("bottomline")
        self.bottomline = float(bottomline) if isinstance(bottomline, (int, float)) and not isinstance(bottomline, bool) else None
        if self.seller:
            self.limit = self.bottomline if self.bottomline is not None else self.floor_fraction * self.listing
            self.comfort = max(self.limit, self.comfort_fraction * self.listing)
            self.opening = max(self.target, self.comfort)
        else:
            natural = max(self.target, (self.target + self.listing) / 2)
            self.limit = self.bottomline if self.bottomline is not None else max(self.target, self.listing)
            self.comfort = min(natural, self.limit)
            below = self.target - 0.1 * max(self.listing - self.target, 0.0)
            self.opening = min(max(below, 0.05 * self.listing), self.comfort)
        self.step = self._unit()
        item_view = {"price": self.listing, "title": self.title, "description": self.description}
        partner = next((p for p in self.task.party_ids if p != self.party), "partner")
        partner_role = "buyer" if self.seller else "seller"
        self.acts = ActTracker.for_parties({self.party: {"role": self.role, "item": item_view}, str(partner): {"role": partner_role, "item": item_view}})
        self._ready = True

    # ------------------------------------------------------------------ price arithmetic

    def _unit(self) -> float:
        """A round step for prices of this size (people say $1,850, not $1,847.23)."""
        for bound, unit in ((5, 0.25), (20, 0.5), (100, 1), (500, 5), (2000, 10), (10000, 25), (50000, 50)):
            if self.listing < bound:
                return unit
        return 100

    def _round(self, price: float) -> float:
        """Round to a nice number, in my favour (seller up, buyer down), then keep within my bound.

        A seller never rounds past the listing price it asked for itself."""
        step = self.step
        value = (math.ceil(price / step - 1e-9) if self.seller else math.floor(price / step + 1e-9)) * step
        if self.seller and value > self.listing >= price - 1e-9:
            value = self.listing
        value = self._clamp(value)
        return float(round(value, 2))

    @property
    def bound(self) -> float:
        """How far I concede now: my comfort price, or my limit once the partner has held firm."""
        return self.limit if self.held_firm else self.comfort

    def _clamp(self, price: float) -> float:
        bound = self.bound
        if self.seller:
            floor = math.ceil(bound / self.step - 1e-9) * self.step
            return max(price, floor)
        ceiling = math.floor(bound / self.step + 1e-9) * self.step
        return min(price, ceiling) if ceiling > 0 else min(price, bound)

    def within_limit(self, price: float) -> bool:
        """Never accept or offer beyond my limit (the bottomline when set)."""
        return price >= self.limit - 1e-9 if self.seller else price <= self.limit + 1e-9

    def _better(self, a: float, b: float) -> bool:
        """Whether price `a` is at least as good for me as `b`."""
        return a >= b - 1e-9 if self.seller else a <= b + 1e-9

    def _tolerance(self, turns_left: int | None) -> float:
        tolerance = self.close_fraction * self.listing * (1 + 0.15 * self.rounds)
        if turns_left is not None and turns_left <= 8:
            tolerance *= 2
        return tolerance

    def _good_enough(self, price: float, turns_left: int | None) -> bool:
        """A price I agree to now: within my limit, and close to (or better than) what I ask."""
        if not self.within_limit(price):
            return False
        if self._better(price, self.target):
            return True
        if turns_left is not None and turns_left <= 4:
            return True
        reference = self.my_price if self.my_price is not None else self.opening
        gap = reference - price if self.seller else price - reference
        return gap <= self._tolerance(turns_left)

    def _concede(self) -> float:
        """My next price: a share of the way toward the partner's price (or my limit), never past my limit."""
        current = self.my_price if self.my_price is not None else self.opening
        share = self.rng.uniform(*self.concession)
        if self.their_price is not None and not self._better(self.their_price, current):
            toward = self.their_price
        else:
            toward = self.bound
            share /= 2
        proposal = current + share * (toward - current)
        minimum = 0.02 * self.listing
        if abs(proposal - current) < minimum:
            proposal = current - minimum if self.seller else current + minimum
        proposal = self._round(proposal)
        if abs(proposal - current) < 1e-9:  # rounding ate the step: move one unit, unless at my limit
            proposal = self._clamp(current - self.step if self.seller else current + self.step)
        if self.their_price is not None and not self._better(proposal, self.their_price):
            proposal = self._round(self.their_price)
        return proposal

    # ------------------------------------------------------------------ reading

    def _read(self, observation: Observation) -> None:
        for event in observation.transcript[self._seen:]:
            act = self._track(event)
            if event.party == self.party:
                if isinstance(event, Offer) and event.price is not None:
                    self.my_offer = event.price
                continue
            if isinstance(event, Message):
                reading = read_message(event.text, listing_price=self.listing, listing_text=self.listing_text)
                reading.act = act
                self.last_reading = reading
                price = reading.price
                if price is None and reading.relative is not None and self.my_price is not None:
                    price = self.my_price - reading.relative if self.seller else self.my_price + reading.relative
                if price is not None and price > 0:
                    if self.my_price is not None and abs(price - self.my_price) < 1e-9 and not reading.disagree:
                        self.partner_agreed = True
                    else:
                        self._their(price)
                elif (reading.agree or reading.act == "agree") and not reading.disagree and not reading.question and self.my_price is not None:
                    self.partner_agreed = True
            elif isinstance(event, Offer) and event.price is not None:
                self._their(float(event.price))
            elif isinstance(event, Reject):
                self.offers_rejected += 1
                if self.my_offer is not None:
                    self.rejected_prices.append(self.my_offer)
                    self.just_rejected = True
                self.held_firm = True
                self.my_offer = None
        self._seen = len(observation.transcript)

    def _track(self, event: Any) -> str | None:
        """The coarse act of a move (anyone's), as the corpus parser would label it; None for other events."""
        act = self.acts.read(event)
        return act.intent if act is not None else None

    def _their(self, price: float) -> None:
        """The partner named a price: a new one, or the same again (insisting); either calls for an answer."""
        self.new_price = True
        self.partner_insists = self.their_price is not None and abs(price - self.their_price) < 1e-9
        self.held_firm = self.held_firm or self.partner_insists
        self.their_price = price
        self.partner_agreed = False

    # ------------------------------------------------------------------ acting

    def act(self, observation: Observation) -> actions.Action:
        if not self._ready:
            self._setup(observation)
        self._read(observation)
        legal = observation.legal
        pending = self._pending_offer(observation)
        if "accept" in legal and pending is not None:
            if self._takes_final(pending, observation.turns_left):
                return actions.Accept()
            self.new_price = True
            return actions.Reject()
        action = self._decide(observation)
        if action.kind not in legal:
            return actions.Say(text=self._pick(["Hmm, let me think.", "One moment.", "Okay."])) if "say" in legal else self.task.sample_action(self.party, self.rng)
        return action

    def _takes_final(self, price: float, turns_left: int | None) -> bool:
        """Whether I accept the partner's final offer: close to my price, or within my limit after bargaining.

        A final offer is take-it-or-leave-it; once we have bargained (I have countered), one at or
        inside my comfort price is taken, and one up to my limit once the partner has held firm or we
        have gone back and forth a few times."""
        if self._good_enough(price, turns_left):
            return True
        if not self.within_limit(price):
            return False
        comfortable = self._better(price, self.comfort)
        return (comfortable and self.rounds >= 1) or self.held_firm or self.rounds >= 3

    def _pending_offer(self, observation: Observation) -> float | None:
        for event in reversed(observation.transcript):
            if isinstance(event, Offer):
                return event.price if event.party != self.party else None
            if isinstance(event, (Accept, Reject, Quit)):
                return None
        return None

    def _decide(self, observation: Observation) -> actions.Action:
        turns_left = observation.turns_left
        reading = self.last_reading if self._partner_spoke_last(observation) else None

        if self.spoken == 0:
            return self._say(self._opening_message())

        if turns_left is not None and turns_left <= 3:
            return self._endgame(turns_left)

        if reading is not None and reading.leaving:
            # they are leaving: say goodbye, not a last-minute offer; if they leave again, so do I
            if self.farewell and "quit" in observation.legal:
                return actions.Quit()
            self.farewell = True
            return self._say(self._pick(["Sorry to hear that. Have a good one!", "No worries, take care.", "Okay, good luck with your search!"]))

        if self.just_rejected:
            self.just_rejected = False
            return self._after_rejection()

        if self.partner_agreed and self.my_price is not None and self.within_limit(self.my_price):
            self.partner_agreed = False
            if self._was_rejected(self.my_price):
                return self._after_rejection()
            return self._offer(self.my_price)

        if self.their_price is not None and self.new_price:
            self.new_price = False
            if self._good_enough(self.their_price, turns_left):
                return self._close(self.their_price)
            return self._counter(turns_left)

        if reading is not None and reading.question and not reading.asks_price:
            return self._say(self._answer(reading))

        if reading is not None and reading.asks_price:
            return self._state_price(flexible=True)

        if self.my_price is None:
            if self.seller or self.spoken >= self.chat_turns:
                return self._state_price(flexible=False)
            return self._say(self._question())

        if reading is not None and reading.disagree:
            return self._counter(turns_left, partner_silent=True)

        if not self.seller and self.spoken < self.chat_turns + 1 and self.rng.random() < 0.3:
            return self._say(self._question())
        if self.nudges >= 1 and self.my_offer is None and self.within_limit(self.my_price) and not self._was_rejected(self.my_price):
            return self._offer(self.my_price)  # my price stands unanswered: put it on the table
        self.nudges += 1
        return self._say(self._nudge())

    def _was_rejected(self, price: float) -> bool:
        return any(abs(price - old) < 1e-9 for old in self.rejected_prices)

    def _after_rejection(self) -> actions.Action:
        """The partner turned down my offer: a better one for them (halfway to their price, then theirs),
        my limit when their price is beyond it, or a question when I do not know their price."""
        last = self.rejected_prices[-1] if self.rejected_prices else self.my_price
        theirs = self.their_price
        if theirs is None or last is None:
            return self._say(self._pick(["What price did you have in mind?", "What would work for you?", "What price would you take?" if not self.seller else "What could you pay?"]))
        if self.within_limit(theirs):
            halfway = self._round((last + theirs) / 2)
            take_theirs = self.offers_rejected >= 2 or abs(last - theirs) <= 2 * self.step or not self._better(last, halfway) or self._was_rejected(halfway)
            return self._offer(theirs if take_theirs else halfway)
        limit = self._round(self.limit)
        if not self._was_rejected(limit):
            return self._offer(limit)
        self.my_price = limit
        return self._say(self._insist(limit))

    def _partner_spoke_last(self, observation: Observation) -> bool:
        for event in reversed(observation.transcript):
            if event.kind == "system":
                continue
            return event.party != self.party and isinstance(event, Message)
        return False

    def _endgame(self, turns_left: int) -> actions.Action:
        """The last few turns: close on the partner's price if I can, else a final offer at my limit, else quit."""
        if turns_left >= 2:
            if self.their_price is not None and self.within_limit(self.their_price):
                return self._offer(self.their_price)
            if self.my_offer is None and self.offers_rejected < 4:
                limit = self._round(self.limit if self.their_price is not None else (self.my_price or self.opening))
                if self.within_limit(limit) and not self._was_rejected(limit):
                    return self._offer(limit)
        if self.their_price is not None and not self.within_limit(self.their_price):
            return actions.Quit()
        return self._say(self._pick(["We're running out of time.", "I don't think we can make this work.", "Let me know."]))

    # ------------------------------------------------------------------ moves

    def _say(self, text: str) -> actions.Action:
        """Say `text`, unless it names the price my last two messages already named: then give a reason instead."""
        price = find_price(text, listing_price=self.listing, listing_text=self.listing_text)
        named = [stated for stated in self.stated if stated is not None]
        if price is not None and named[-2:] == [price, price]:
            text = self._firm_without_number()
            price = None
        self.stated.append(price)
        self.spoken += 1
        return actions.Say(text=text)

    def _firm_without_number(self) -> str:
        """Holding a price already said twice: a reason, not the number a third time."""
        reason = self._pick(self.reasons)
        if self.seller:
            return self._pick([f"That really is as low as I can go. {reason}", f"I can't move on that, sorry. {reason}"])
        return self._pick([f"That really is all I can spend. {reason}", f"I can't go higher than that, sorry. {reason}"])

    def _offer(self, price: float) -> actions.Action:
        price = float(price)
        if not self.within_limit(price):  # a last guard: no offer beyond my own limit
            price = self._round(self.limit)
        self.my_price = price
        self.my_offer = price
        return actions.Offer(price=price)

    def _close(self, theirs: float) -> actions.Action:
        """A final offer when we are close: halfway between us, or their price when it is as good as mine,
        a step away, repeated (they insist) or after an offer of mine was turned down."""
        mine = self.my_price
        firm = self.partner_insists or self.offers_rejected > 0
        if mine is None or firm or self._better(theirs, mine) or abs(mine - theirs) <= self.step + 1e-9:
            return self._offer(theirs)
        halfway = self._round((mine + theirs) / 2)
        if not self._better(halfway, theirs) or abs(halfway - mine) < 1e-9:
            return self._offer(theirs)
        return self._offer(halfway)

    def _counter(self, turns_left: int | None, partner_silent: bool = False) -> actions.Action:
        """Concede a step toward the partner (or hold at my limit) and say the new price."""
        self.rounds += 1
        previous = self.my_price
        proposal = self._concede() if previous is not None or not self.seller else self._round(self.opening)
        if previous is None and not self.seller:
            proposal = self._round(self.opening)
        if self.their_price is not None and abs(proposal - self.their_price) <= self._tolerance(turns_left) and self.within_limit(self.their_price):
            return self._close(self.their_price)
        at_limit = previous is not None and abs(proposal - previous) < 1e-9
        self.my_price = proposal
        if at_limit:
            self.insisted += 1
            if self.insisted >= 3 and self.their_price is not None and not self.within_limit(self.their_price):
                if self.my_offer is None and self.offers_rejected < 4 and not self._was_rejected(proposal):
                    return self._offer(proposal)
                return actions.Quit()
            return self._say(self._insist(proposal))
        return self._say(self._counter_text(proposal, partner_silent))

    def _state_price(self, *, flexible: bool) -> actions.Action:
        """Say my price; asked again for it after saying it, put it on the table as a final offer."""
        if self.my_price is None:
            self.my_price = self._round(self.opening)
            return self._say(self._price_text(self.my_price))
        asked_again = flexible and (self.nudges >= 1 or self.rounds >= 1)
        if flexible and self.rounds == 0:
            self.rounds += 1
            self.my_price = self._concede()
        if asked_again and self.my_offer is None and self.within_limit(self.my_price) and not self._was_rejected(self.my_price):
            return self._offer(self.my_price)
        return self._say(self._price_text(self.my_price))

    # ------------------------------------------------------------------ wording

    def _pick(self, options: list[str]) -> str:
        return self.rng.choice(options)

    def money(self, price: float) -> str:
        """A price in one of the forms people write."""
        whole = abs(price - round(price)) < 1e-9
        value = int(round(price)) if whole else price
        forms = [f"${value:,}" if whole else f"${value:,.2f}", f"${value}" if whole else f"${value:.2f}"]
        if whole:
            forms += [f"{value} dollars", f"{value} bucks" if value < 5000 else f"${value:,}"]
            if value >= 1000 and value % 100 == 0:
                forms.append(f"{value / 1000:g}k")
        return self._pick(forms)

    def _short_title(self) -> str:
        """How the item is called in conversation: the head of the title, or a plain noun for long titles."""
        head = re.split(r"\s[-|/(]|--|[!,:;(|*]|\bw/", self.title)[0].strip()
        words = re.sub(r"[^\w\s'-]", " ", head).split()
        while words and words[-1].lower() in STOP_WORDS:
            words.pop()
        if 1 <= len(words) <= 5 and not any(w.isdigit() and len(w) < 3 for w in words[:1]):
            text = " ".join(words)
            return text.title() if text.isupper() else text
        return NOUNS.get(self.category, "item")

    def _opening_message(self) -> str:
        title = self._short_title()
        if self.seller:
            greeting = self._pick(["Hi there!", "Hello!", "Hey, thanks for reaching out.", "Hi, thanks for your interest."])
            line = self._description_line()
            about = self._pick([f"The {title} is still available.", f"Yes, the {title} is available.", f"Glad you're interested in the {title}."])
            return " ".join(part for part in (greeting, about, line) if part)
        greeting = self._pick(["Hi!", "Hello there.", "Hey,", "Hi, how are you?"])
        interest = self._pick([f"I'm interested in your {title}.", f"I saw your listing for the {title}.", f"Is the {title} still for sale?"])
        return f"{greeting} {interest} {self._question()}".strip()

    def _description_line(self) -> str:
        unused = [line for line in self.description if line not in self.told and len(line) < 160]
        if not unused:
            return ""
        line = self.rng.choice(unused)
        self.told.append(line)
        return line if line.endswith((".", "!", "?")) else line + "."

    def _question(self) -> str:
        bank = [q for q in QUESTIONS.get(self.category, []) + GENERIC_QUESTIONS if q not in self.asked]
        if not bank:
            return self._pick(["Tell me a bit more about it?", "Anything else I should know?"])
        question = self.rng.choice(bank)
        self.asked.append(question)
        return question

    def _answer(self, reading: Reading) -> str:
        """Answer from the listing line that speaks to the question, or say honestly that the listing does not say."""
        if self.seller:
            answer = answer_question(reading.text, self.listing_text)
            if answer.kind == "line" and answer.text:
                line = answer.text if answer.text.endswith((".", "!", "?")) else answer.text + "."
                lead = self._pick(["", "Good question.", "Sure.", "Let me see."])
                return f"{lead} {line}".strip()
            if answer.kind == "deflect" and answer.topic == "why":  # my own reason, which no listing needs to state
                return self._pick(["It just opened up." if self.category == "housing" else "I just don't need it anymore.", "I'm making some room, that's all."])
            if answer.kind == "deflect":
                about = DEFLECTIONS.get(answer.topic or "", "that")
                return self._pick([
                    f"The listing doesn't say anything about {about}, and I'd rather not guess.",
                    f"I'm not sure about {about}, sorry; I can check and let you know.",
                ])
            if answer.kind == "describe":
                line = self._description_line()
                if line:
                    return line
            if AVAILABLE.search(reading.text):
                return self._pick([f"Yes, the {self._short_title()} is still available.", "Yes, it's still available."])
            return self._pick(["Sure, what would you like to know?", "Happy to answer any questions."])
        return self._pick([
            "I could pick it up this week.", "I'd pay cash.", "I can come by whenever works for you.",
            "It's for my own use.", "I've been looking for one for a while.",
        ])

    def _price_text(self, price: float) -> str:
        money = self.money(price)
        if self.seller:
            return self._pick([
                f"I'm asking {money} for it.", f"I could let it go for {money}.", f"The price is {money}, it's a great deal.",
                f"I'd like to get {money} for it.", f"How does {money} sound?",
            ])
        return self._pick([
            f"Would you take {money}?", f"I can offer {money}.", f"How about {money}?", f"My budget is around {money}.",
            f"Could you do {money}?", f"I'd pay {money} for it.",
        ])

    def _counter_text(self, price: float, partner_silent: bool) -> str:
        money = self.money(price)
        theirs = self.their_price
        refuse = ""
        if theirs is not None and not partner_silent and self.rng.random() < 0.4:
            refuse = self._pick([f"I can't do {self.money(theirs)}.", f"{self.money(theirs)} is too low for me." if self.seller else f"{self.money(theirs)} is too much for me."])
        elif self.rng.random() < 0.5:
            refuse = self._pick(
                ["Hmm, that's a bit low.", "That's lower than I hoped.", "I think it's worth more than that."] if self.seller
                else ["That's a little steep for me.", "Hmm, that's more than I wanted to spend.", "That's a bit over my budget."]
            )
        reason = ""
        if self.rng.random() < 0.35:
            reason = self._pick(self.reasons)
        ask = self._pick(
            [f"How about {money}?", f"I could do {money}.", f"Would {money} work?", f"Meet me at {money}?", f"Best I can do is {money}."] if self.seller
            else [f"How about {money}?", f"Could you do {money}?", f"I could go up to {money}.", f"Would you take {money}?", f"Can we say {money}?"]
        )
        return " ".join(part for part in (refuse, reason, ask) if part)

    def _insist(self, price: float) -> str:
        money = self.money(price)
        return self._pick([
            f"Sorry, {money} is really the lowest I can go." if self.seller else f"Sorry, {money} is really the most I can pay.",
            f"I can't go any further than {money}.",
            f"{money} is my final price." if self.seller else f"{money} is my final offer.",
            f"I'm firm at {money}, sorry.",
        ])

    def _nudge(self) -> str:
        money = self.money(self.my_price) if self.my_price is not None else "a fair price"
        return self._pick([
            f"So what do you think about {money}?", f"Does {money} work for you?", f"Let me know if {money} works.",
            "What price did you have in mind?", f"I think {money} is fair.",
        ])

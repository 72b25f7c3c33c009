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
  It goes past its comfort price only when the partner holds firm (after the partner turned down an
  offer of its own, or insisted on a price), and takes a final offer past its comfort price only on
  its own clock (`_reservation`: the limit comes into reach as the turns run out, however often the
  partner said no);
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
The agent never accepts, or offers, a price beyond its limit, nor one its own words ruled out ("I
can't do $850"; a price it calls its last word): it says such things only of prices it could never
take. It takes no binding step on a price read from words not meant literally (sarcasm, its own price
echoed back as a question, `duologue.agents.unsure`): it asks ("Just to be sure: you'd take $490?")
and acts on the answer.
"""

from __future__ import annotations

import math
import random
import re
from typing import Any

from duologue.agents.unsure import confirm_question, doubt
from duologue.core import actions
from duologue.core.agent import Agent
from duologue.core.schema import Accept, Message, Offer, Quit, Reject
from duologue.core.task import Observation, Task
from duologue.tasks.craigslist.acts import ActTracker
from duologue.tasks.craigslist.prices import find_price
from duologue.tasks.craigslist.reading import Reading, read_message
from duologue.tasks.craigslist.wording import (  # the modular agent reads these tables from here too
    BUYER_REASONS as BUYER_REASONS,
    DEFLECTIONS as DEFLECTIONS,
    GENERIC_QUESTIONS as GENERIC_QUESTIONS,
    LISTING_REASONS as LISTING_REASONS,
    QUESTIONS as QUESTIONS,
    SELLER_REASONS as SELLER_REASONS,
    RuleWording,
)



class CraigslistRuleAgent(RuleWording, Agent):
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
        self.standing: float | None = None
        """The price my words named since the partner last spoke: I take no final offer worse than it."""
        self.words_refused: list[float] = []
        """Prices my own messages turned down ("I can't do $850"): never accepted or offered afterwards."""
        self.words_limit: float | None = None
        """The price my own messages called my last word ("$675 is really the most I can pay")."""
        self.unsure_price: float | None = None
        """A price read from words not to be taken literally (sarcasm, an echo): to ask about, not to act on."""
        self.confirming: float | None = None
        """The price I asked the partner to confirm."""
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
        """Keep a price within how far I concede now, and within what my own words allow."""
        bound = self.bound
        words = self._words_edge()
        if self.seller:
            floor = math.ceil(bound / self.step - 1e-9) * self.step
            return max(price, floor, words if words is not None else floor)
        ceiling = math.floor(bound / self.step + 1e-9) * self.step
        clamped = min(price, ceiling) if ceiling > 0 else min(price, bound)
        return min(clamped, words) if words is not None else clamped

    def _words_edge(self) -> float | None:
        """The best price for the partner my words still allow (None: they set no edge)."""
        edges = [no + (self.step if self.seller else -self.step) for no in getattr(self, "words_refused", [])]
        firm = getattr(self, "words_limit", None)
        if firm is not None:
            edges.append(firm)
        if not edges:
            return None
        return max(edges) if self.seller else min(edges)

    def within_limit(self, price: float) -> bool:
        """Never accept or offer beyond my limit (the bottomline when set), nor a price my own words
        ruled out ("I can't do $850", "$675 is really the most I can pay"): a limit I state holds."""
        inside = price >= self.limit - 1e-9 if self.seller else price <= self.limit + 1e-9
        return inside and self._words_allow(price)

    def _final_word(self, price: float) -> bool:
        """Whether `price` is at or beyond everything I could ever take (my limit, or a limit I stated)."""
        return not self.within_limit(price) or abs(price - self._stated_bound()) <= self.step + 1e-9

    def _words_allow(self, price: float) -> bool:
        said_no = getattr(self, "words_refused", [])
        firm = getattr(self, "words_limit", None)
        if self.seller:
            return all(price > no + 1e-9 for no in said_no) and (firm is None or price >= firm - 1e-9)
        return all(price < no - 1e-9 for no in said_no) and (firm is None or price <= firm + 1e-9)

    def _stated_bound(self) -> float:
        """The best price for the partner that my limit and my words still allow."""
        bound = self._round(self.limit) if self.within_limit(self._round(self.limit)) else self.limit
        candidates = [bound, *(no + (self.step if self.seller else -self.step) for no in getattr(self, "words_refused", []))]
        firm = getattr(self, "words_limit", None)
        if firm is not None:
            candidates.append(firm)
        return max(candidates) if self.seller else min(candidates)

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
                self.standing = None
                reading = read_message(event.text, listing_price=self.listing, listing_text=self.listing_text)
                reading.act = act
                self.last_reading = reading
                price = reading.price
                if price is None and reading.relative is not None and self.my_price is not None:
                    price = self.my_price - reading.relative if self.seller else self.my_price + reading.relative
                if self._hear_doubt(event.text, reading, price):
                    continue
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

    def _hear_doubt(self, text: str, reading: Reading, price: float | None) -> bool:
        """Whether a message is an answer to my question or words not to take literally; either way it is
        dealt with here. Sarcasm or an echoed number ("oh sure, 490 bucks, totally fair lol", "20
        dollars?") names no price of theirs: I ask before anything binding rests on it. A plain yes to my
        question makes the price theirs; a no leaves things as they were."""
        asked, self.confirming = self.confirming, None
        words = doubt(text)
        echoed = words.echo and price is not None and self.my_price is not None and abs(price - self.my_price) < 1e-9
        if words.sarcastic or echoed:  # "$321?" alone is an offer; my own price asked back is disbelief
            self.unsure_price = price if price is not None and price > 0 else None
            return True
        if asked is not None and price is None and (reading.agree or reading.disagree):
            if reading.agree and not reading.disagree:
                self._their(asked)
            return True
        return False

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
        if self.standing is not None and not self._better(price, self.standing):
            return False  # the price my words named since the partner last spoke is the one I take
        if self._good_enough(price, turns_left):
            return True
        if not self.within_limit(price):
            return False
        comfortable = self._better(price, self.comfort)
        return (comfortable and self.rounds >= 1) or self._better(price, self._reservation(turns_left))

    def _reservation(self, turns_left: int | None) -> float:
        """The worst final offer I take now, on my own clock: my comfort price early, my limit only as the
        turns run out (Boulware: time used squared), whatever the partner did so far; so a lowball and
        a final offer just past my last refusal earn no more than waiting would."""
        if turns_left is None:
            return self.comfort
        used = min(max(1 - turns_left / max(self.task.max_turns, 1), 0.0), 1.0)
        return self.comfort + (self.limit - self.comfort) * used**2

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

        if self.unsure_price is not None and reading is not None:
            price, self.unsure_price = self.unsure_price, None
            if self.within_limit(price):
                self.confirming = price
                what = f"you'd take {self.money(price)}" if not self.seller else f"you'd pay {self.money(price)}"
                return self._say(confirm_question(what, self.rng.randrange(3)))
            return self._say(self._pick(["I can't tell if you're joking.", "Sorry, I'm not sure what you mean."]) + " " + self._price_text(self.my_price or self.opening))

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
        """The partner turned down my offer: a better one for them, halfway to their price (or to my limit
        when theirs is beyond it), then all the way; a question when I do not know their price."""
        last = self.rejected_prices[-1] if self.rejected_prices else self.my_price
        theirs = self.their_price
        if theirs is None or last is None or self._was_rejected(theirs):
            return self._say(self._pick(["What price did you have in mind?", "What would work for you?", "What could you pay?" if self.seller else "What price would you take?"]))
        goal = theirs if self.within_limit(theirs) else self._round(self.limit)
        halfway = self._round((last + goal) / 2)
        all_the_way = self.offers_rejected >= 2 or abs(last - goal) <= 2 * self.step or not self._better(last, halfway) or self._was_rejected(halfway)
        proposal = goal if all_the_way else halfway
        if self._was_rejected(proposal):
            self.my_price = proposal
            return self._firm(proposal)
        return self._offer(proposal)

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
            if self.my_price is not None and self._final_word(self.my_price):
                self.words_limit = self.my_price
            text = self._firm_without_number()
            price = None
        own = read_message(text, listing_price=self.listing, listing_text=self.listing_text)
        self.words_refused.extend(own.refused)
        if own.price is not None:
            self.standing = float(own.price)
        self.stated.append(price)
        self.spoken += 1
        return actions.Say(text=text)

    def _firm(self, price: float) -> actions.Action:
        """Hold `price`: in words that call it my last word only when it is (and from then on it is)."""
        if self._final_word(price):
            self.words_limit = price
        return self._say(self._insist(price))

    def _offer(self, price: float) -> actions.Action:
        price = float(price)
        if not self.within_limit(price):  # a last guard: no offer beyond my own limit, or my own words
            price = self._stated_bound()
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
            return self._firm(proposal)
        return self._say(self._counter_text(proposal, partner_silent))

    def _state_price(self, *, flexible: bool) -> actions.Action:
        """Say my price; asked again for it after saying it, put it on the table as a final offer."""
        if self.my_price is None:
            self.my_price = self._round(self.opening)
            return self._say(self._price_text(self.my_price))
        if flexible and self.rounds == 0:
            self.rounds += 1
            self.my_price = self._concede()
        if flexible and self.my_offer is None and self.within_limit(self.my_price) and not self._was_rejected(self.my_price):
            return self._offer(self.my_price)
        return self._say(self._price_text(self.my_price))

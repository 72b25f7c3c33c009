"""The modular CraigslistBargain agent (He et al. 2018): parse -> coarse act -> retrieve and fill.

The generic machinery is `duologue.modular.agent`; this module holds what is about bargaining:

* **Parser.** Every event is read with the corpus parser's act tracker (`acts.ActTracker`: intro,
  init-price, inquiry, inform, counter-price, vague-price, insist, agree, disagree, unknown, and
  the meta acts offer / accept / reject / quit), and the partner's prices with the rule agent's
  readers (`reading.py`, `prices.py`).
* **Policy.** P(next act | role, partner's last act, price gap, own last act), counted from the act
  sequences of the corpus (the parser's own `intent` labels of the validation split, and the
  re-implemented parser where a turn has none). The price gap is the distance between the two
  sides' last prices as a share of the listing price (`none`, `same`, `close`, `mid`, `far`).
  Without a corpus, a small act-transition prior written below (`PRIOR`, rounded per-mille
  frequencies of the validation split at the (role, partner's last act) level) stands in.
* **Rules.** The acts offered to the policy are those that make sense now (an `init-price` only
  before anyone named a price, `inform` only after a question, `agree` and `offer` only when the
  partner's price is good enough or the two prices are close, `quit` only as a last resort). The
  price comes from the rule agent's concession schedule (`CraigslistRuleAgent`, used here as the
  price manager): it opens at its target, concedes a share of the gap each round, and never
  offers or accepts beyond its limit (its bottomline when the scenario sets one). Answering an
  offer (accept or reject) is the rule agent's decision, not the policy's; in the last three turns
  the agent closes on the partner's price, makes a final offer at its limit, or quits.
* **Generator.** Corpus messages indexed by their act, the speaker's role and the listing's
  category; prices in them replaced by `{price}` (the speaker's proposed price) and
  `{partner_price}` (the partner's last price). Messages with any other number, a relative price
  (`$50 off`) or a word specific to their own listing (a brand, a model: a word of the listing's
  text that few listings of the category use) are left out, so what is said fits any listing of
  the category. A filled candidate is used only if the act parser, in the current dialogue, reads
  it as the intended act with the intended price. Otherwise the agent's own templates (`TEMPLATES`).
  Every line must fit its context (`fitting.context_fit`): its item words are in this listing or
  dialogue, it is no line only the other side says, no fragment of someone else's sentence, no
  reaction to an `I don't know` nobody said, and no misstated listing price. A seller's answer about
  the item comes from its own listing (`listing_answers.py`), or is an honest `not sure`.

What it learns from the corpus lives in `modular_corpus.py`, its own wording and the patterns of its
line checks in `modular_wording.py`, and the price variants a learned strategy may choose (`rl:`) in
`modular_options.py`.
"""

from __future__ import annotations

import copy
import random
import re
from pathlib import Path
from typing import Any

from duologue.modular.agent import START, ActPolicy, Candidate, Generated, Knowledge, ModularAgent, UtteranceIndex, similarity, ungrounded_words
from duologue.tasks import corpus_dialogues
from duologue.core import actions
from duologue.core.schema import Message, Reject
from duologue.core.task import Observation, Task
from duologue.tasks.craigslist.agents import CraigslistRuleAgent
from duologue.tasks.craigslist.fitting import AGREEING, PRICE_STANCE, context_fit, unbacked_claims
from duologue.tasks.craigslist.listing_answers import UNSURE, listing_answer, without_title
from duologue.tasks.craigslist.modular_corpus import PRIOR, act_sequence, after_class, build_index, common_words, gap_bucket, message_template, own_words, policy_context
from duologue.tasks.craigslist.modular_options import OPTIONS, PriceOptions
from duologue.tasks.craigslist.modular_wording import (
    ACKNOWLEDGE_UNSURE, ASKS_WHAT_TO_KNOW, CONCEDES, CONTINUES, CONTRASTS, FAREWELLS, INVITES_QUESTIONS, LISTED, NEVER, NOT_MINE, OPEN_ANSWERS,
    PARTNER_UNSURE, SETTLES, STARTS_AGREEING, TEMPLATES, other_questions, slots,
)
from duologue.tasks.craigslist.reading import read_message

__all__ = ["CHAT_ACTS", "OPTIONS", "POLICY_ACTS", "PRICE_ACTS", "PRIOR", "TEMPLATES", "CraigslistModularAgent", "act_sequence", "describe_knowledge",
           "gap_bucket", "message_template", "own_words", "policy_context"]

CHAT_ACTS = ("inquiry", "inform", "unknown", "disagree", "vague-price")
PRICE_ACTS = ("init-price", "counter-price", "insist")
POLICY_ACTS = ("intro", *CHAT_ACTS, *PRICE_ACTS, "agree", "offer", "quit")

# ---------------------------------------------------------------------------- the agent


class CraigslistModularAgent(PriceOptions, ModularAgent):
    """A buyer or seller that decides coarse acts with a corpus-learned policy and says retrieved corpus lines."""

    name = "modular"
    corpus_relative = "craigslist/validation.json"

    @classmethod
    def build_knowledge(cls, path: Path) -> Knowledge:
        dialogues = corpus_dialogues("craigslist", path)
        if not dialogues:
            raise ValueError("no valid CraigslistBargain dialogue")
        policy = ActPolicy.counted(pair for dialogue in dialogues for pair in act_sequence(dialogue))
        index, counts = build_index(dialogues)
        return Knowledge(
            policy=policy, index=index, source=str(path), stats={"dialogues": len(dialogues), "acts": int(policy.size), **counts},
            extra={"common": common_words(dialogues)},
        )

    @classmethod
    def fallback_knowledge(cls) -> Knowledge:
        return Knowledge(policy=ActPolicy.from_table(PRIOR), index=UtteranceIndex(), source="built-in", extra={"common": own_words()})

    # ------------------------------------------------------------------ episode state

    def reset(self, task: Task, party: str, rng: random.Random) -> None:
        super().reset(task, party, rng)
        self.planner = CraigslistRuleAgent()
        """The rule agent as price manager: its limit, concession schedule, price reading and act tracker."""
        self.planner.reset(task, party, rng)
        self.chat_run = 0
        self.my_acts: list[str] = []
        self.their_first = None

    # ------------------------------------------------------------------ parsing

    def _last_acts(self, observation: Observation) -> tuple[str, str]:
        """(partner's last act, my last act), as the act tracker read them."""
        intents = [act.intent if act is not None else None for act in self.planner.acts.history]
        return self.last_acts(observation.transcript, intents)

    def context(self, observation: Observation) -> tuple[str, str, str, str]:
        partner_act, my_act = self._last_acts(observation)
        planner = self.planner
        gap = gap_bucket(planner.my_price, planner.their_price, planner.listing)
        return policy_context(planner.role, partner_act, gap, my_act)

    # ------------------------------------------------------------------ deciding

    def act(self, observation: Observation) -> actions.Action:
        planner = self.planner
        self.observation = observation
        if not planner._ready:
            planner._setup(observation)
        planner._read(observation)
        if self.their_first is None:
            self.their_first = planner.their_price
        legal = observation.legal
        unstuck = self.unstick(observation)
        if unstuck is not None:
            return unstuck
        turns_left = observation.turns_left
        if "accept" in legal:
            pending = planner._pending_offer(observation)
            takes = pending is not None and (planner._takes_final(pending, turns_left) or (planner.within_limit(pending) and turns_left is not None and turns_left <= 4))
            answers: tuple[str, ...] = ("accept", "reject") if takes else ("reject", "accept")
            if pending is None or not planner.within_limit(pending):
                answers = answers[:1]  # never a deal beyond my limit
            if self._option("answer", observation, answers) == "accept":
                return actions.Accept()
            planner.new_price = True
            return actions.Reject()
        if "say" not in legal:
            return self.task.sample_action(self.party, self.rng)
        if "offer" not in legal:  # my offer is open (free turn-taking): only talk, and my offer stands
            return self._perform("insist" if planner.my_offer is not None and planner.my_price is not None else "unknown", observation)
        if turns_left is not None and turns_left <= 3:
            return self._endgame(observation, turns_left)
        if planner.just_rejected and "offer" in legal:
            # my offer was turned down: the planner's next offer is better for the partner, never the same again
            planner.just_rejected = False
            answer = planner._after_rejection()
            if isinstance(answer, actions.Offer):
                return answer
        act = self.choose_act(self.context(observation), self.allowed_acts(observation))
        return self._perform(act, observation)

    def allowed_acts(self, observation: Observation) -> list[str]:
        """The acts the rules let the policy choose from now."""
        planner = self.planner
        tracker = planner.acts
        partner_act, _ = self._last_acts(observation)
        mine, theirs = planner.my_price, planner.their_price
        turns_left = observation.turns_left
        allowed = ["inquiry", "unknown"]
        if tracker.events_read == 0:
            allowed.append("intro")
        if partner_act == "inquiry":
            allowed.append("inform")
        if theirs is not None and not planner._good_enough(theirs, turns_left):
            allowed += ["disagree", "vague-price"]
        if tracker.current_price is None:
            allowed.append("init-price")
        else:
            allowed.append("counter-price")
            if mine is not None:
                allowed.append("insist")
        good = theirs is not None and planner._good_enough(theirs, turns_left)
        if good:
            allowed += ["agree", "offer"]
        elif mine is not None and planner.within_limit(mine):
            close = theirs is not None and abs(mine - theirs) <= 2 * planner._tolerance(turns_left)
            if planner.partner_agreed or close:
                allowed.append("offer")
        asked_again = planner.last_reading is not None and planner.last_reading.asks_price and planner.rounds >= 1
        asked_or_told_yes = asked_again or planner.partner_agreed
        if mine is not None and planner.within_limit(mine) and asked_or_told_yes and "offer" not in allowed:
            allowed.append("offer")
        if planner.my_offer is not None and planner.offers_rejected == 0 and "offer" in allowed and not good:
            allowed.remove("offer")  # an offer of mine is still the last word
        if turns_left is not None and turns_left <= 8 and theirs is not None and not planner.within_limit(theirs) and mine is not None:
            at_limit = abs(planner._round(planner.limit) - mine) <= planner.step + 1e-9
            if at_limit:
                allowed.append("quit")
        price_acts = [a for a in allowed if a not in CHAT_ACTS and a != "intro"]
        if self.chat_run >= 3 and price_acts:
            allowed = price_acts  # enough small talk: get to the price
        said = [e for e in observation.transcript if isinstance(e, Message)]
        if not said:
            return [a for a in allowed if a in ("intro", "inquiry", "init-price")]  # an opening never reacts
        last = observation.transcript[-1]
        if isinstance(last, Reject) and last.party == self.party:
            # I just turned an offer down: say why or what I would take (`Alright, thank you` would read as a yes)
            price_talk = [a for a in allowed if a in (*PRICE_ACTS, "disagree", "vague-price")]
            if price_talk:
                return price_talk
        reading = planner.last_reading if said[-1].party != self.party else None
        if "offer" in allowed and reading is not None and mine is not None and planner.my_offer is None and not planner._was_rejected(mine):
            if asked_or_told_yes:
                return ["offer"]  # asked again what I suggest, or a yes to my price: put it on the table
        if reading is not None and reading.question and not reading.leaving and reading.price is None:
            # a question is answered before anything else: the price when it asks the price, else an answer
            wanted = [a for a in allowed if a in PRICE_ACTS] if reading.asks_price else [a for a in allowed if a == "inform"]
            if not reading.asks_price and "inform" not in allowed:
                wanted = ["inform"]
            if not planner.seller and ASKS_WHAT_TO_KNOW.search(reading.text):
                wanted = ["inquiry"]
            if wanted:
                return wanted
        stance = reading is not None and not reading.question and tracker.current_price is not None and PRICE_STANCE.search(reading.text) is not None
        if reading is not None and (reading.price is not None or stance):
            # a price on the table (or a stand on it: `I can't go higher`) is answered: a counter, agreement, refusal or an offer, not small talk
            answered = [a for a in allowed if a not in ("inquiry", "unknown", "inform", "intro")]
            if answered:
                return answered
        return allowed

    def _endgame(self, observation: Observation, turns_left: int) -> actions.Action:
        """The last turns: offer the partner's price if I can, else my limit once, else quit."""
        planner = self.planner
        if turns_left >= 2:
            if planner.their_price is not None and planner.within_limit(planner.their_price):
                return self._offer(planner.their_price)
            if planner.my_offer is None and planner.offers_rejected < 2:
                return self._offer(planner._round(planner.limit if planner.their_price is not None else (planner.my_price or planner.opening)))
        if planner.their_price is not None and not planner.within_limit(planner.their_price):
            return actions.Quit()
        return self._perform("unknown", observation)

    # ------------------------------------------------------------------ acting out an act

    def _perform(self, act: str, observation: Observation) -> actions.Action:
        planner = self.planner
        if act == "offer":
            theirs = planner.their_price
            good = theirs is not None and planner._good_enough(theirs, observation.turns_left)
            usual = theirs if good else planner.my_price
            if usual is not None:
                usual = self._priced("offer", observation, usual, hold=planner.my_price, meet=self._meet(), fair=self._fair())
            return self._offer(usual)  # type: ignore[arg-type]
        if act == "quit":
            return actions.Quit()
        price: float | None = None
        if act == "init-price":
            price = self._priced("init-price", observation, planner._round(planner.opening), bold=self._bold())
        elif act == "counter-price":
            if planner.my_price is None:
                price = self._priced("init-price", observation, planner._round(planner.opening), bold=self._bold())
            else:
                usual = planner._concede()
                small = self._nice(planner.my_price + (usual - planner.my_price) / 2)
                price = self._priced("counter-price", observation, usual, hold=planner.my_price, small=small, meet=self._meet(), fair=self._fair())
            if planner.my_price is not None and abs(price - planner.my_price) < 1e-9:
                act = "insist"
            elif planner.their_price is not None and abs(price - planner.their_price) < 1e-9:
                act = "agree"
        elif act == "insist":
            price = planner.my_price
        elif act == "agree":
            price = planner.their_price
        if act in PRICE_ACTS and price is not None:
            planner.rounds += 1
        partner_said = self._partner_last(observation)
        if act == "inform" and planner.seller and partner_said:
            # what the item is like comes from its own listing, never from another listing's line
            text = self._listing_reply(partner_said, observation)
            parsed = copy.deepcopy(planner.acts).read(Message(party=self.party, text=text))
            # an answer read off the listing is not a realisation of the act vocabulary: left out of the act-fit share
            self.generated.append(Generated(act=act, text=text, source="listing", fits=parsed is not None and parsed.intent == act, checked=False))
            self.used.add(text.lower())
        else:
            text = self._words(act, price)
        if price is not None:
            planner.my_price = price
        self.chat_run = self.chat_run + 1 if act in CHAT_ACTS or act == "intro" else 0
        self.my_acts.append(act)
        planner.spoken += 1
        return actions.Say(text=text)

    def _listing_reply(self, partner_said: str, observation: Observation) -> str:
        """A seller's answer to the partner's question from the listing: the words that answer it, else an honest `not sure`."""
        planner = self.planner
        pick = self.rng.randrange(len(UNSURE))
        text = listing_answer(partner_said, planner.listing_text, pick)
        if text is None:
            text = planner._answer(read_message(without_title(partner_said, planner.listing_text), listing_price=planner.listing))
            if text in OPEN_ANSWERS and not INVITES_QUESTIONS.search(partner_said):
                text = UNSURE[pick]  # `Happy to answer any questions` to a question it does not answer
            elif "still available" in text and other_questions(partner_said):
                text = f"{text} {UNSURE[pick]}"  # `Is it for sale? Does it come apart?` gets both answers
        history = [e.text for e in observation.transcript if isinstance(e, Message)]
        common = self.knowledge.extra.get("common", frozenset())
        if not context_fit(text, partner_said=partner_said, lines=planner.listing_text, history=history, common=common)[0]:
            text = UNSURE[pick]
        return text

    def _offer(self, price: float) -> actions.Action:
        self.chat_run = 0
        self.my_acts.append("offer")
        return self.planner._offer(price)

    def _words(self, act: str, price: float | None) -> str:
        """Retrieve, fill and check words for `act` (with `price` where the act names one)."""
        planner = self.planner
        values: dict[str, str] = {}
        if price is not None and act in PRICE_ACTS:
            values["price"] = self._money(price)
            if planner.their_price is not None and abs(planner.their_price - price) > 1e-9:
                values["partner_price"] = self._money(planner.their_price)
        elif price is not None and act == "agree":
            values["price"] = self._money(price)

        agreeable = planner.their_price is not None and planner._good_enough(planner.their_price, None)
        observation = getattr(self, "observation", None)
        partner_said = self._partner_last(observation) if observation is not None else ""
        common = self.knowledge.extra.get("common", frozenset())

        def fits(text: str) -> bool:
            history = [e.text for e in (observation.transcript if observation is not None else ()) if isinstance(e, Message)]
            if not context_fit(text, partner_said=partner_said, lines=planner.listing_text, history=history, common=common)[0]:
                return False
            reading = read_message(text, listing_price=planner.listing, listing_text=planner.listing_text)
            if reading.leaving:
                return False  # a goodbye would contradict staying in the bargaining
            if act not in PRICE_ACTS and act != "agree" and (reading.prices or (reading.agree and not agreeable)):
                return False  # a chat line must not name a price, nor agree to a price I do not accept
            if act not in PRICE_ACTS and act != "agree" and (AGREEING.search(text) or (act == "disagree" and STARTS_AGREEING.match(text))):
                return False  # `That will work for me` said while refusing reads as a yes
            probe = copy.deepcopy(planner.acts)
            parsed = probe.read(Message(party=self.party, text=text))
            if parsed is None or parsed.intent != act:
                return False
            if act in PRICE_ACTS:
                return parsed.price is not None and price is not None and abs(parsed.price - price) < 0.5 and self._concession_true(text, price)
            if act == "agree":
                return parsed.price is None or (price is not None and abs(parsed.price - price) < 0.5)
            return parsed.price is None

        templates = TEMPLATES[planner.role if planner.role in TEMPLATES else "buyer"].get(act, ("Okay.",))
        leaving = act in CHAT_ACTS and bool(partner_said) and read_message(partner_said, listing_text=planner.listing_text).leaving
        unsure = leaving or (act == "unknown" and PARTNER_UNSURE.search(partner_said) is not None)
        if leaving:
            templates = FAREWELLS
        elif unsure:
            templates = ACKNOWLEDGE_UNSURE  # the partner does not know: acknowledge it, do not praise what was not said
        fallback = [t for t in templates if set(slots(t)) <= set(values)] or ["Okay."]
        grounds = self._grounds(observation)
        opening = not any(isinstance(e, Message) for e in (observation.transcript if observation is not None else ()))

        listing_words = " ".join(planner.listing_text)

        def accept(candidate: Candidate) -> bool:
            if unsure or NOT_MINE.get(planner.role, NEVER).search(candidate.template) or CONTINUES.match(candidate.template):
                return False
            if act not in PRICE_ACTS and CONTRASTS.match(candidate.template):
                return False  # `But what year did you buy them?` answers an objection nobody made
            if PARTNER_UNSURE.search(candidate.context) and not PARTNER_UNSURE.search(partner_said):
                return False  # said to someone who did not know (`I'd hope you'd know!`): it fits only that
            if "{price}" in candidate.template and LISTED.search(candidate.template):
                return False  # `It's listed at {price}` would misstate the listing price
            if act == "counter-price" and SETTLES.search(candidate.template):
                return False  # `Ok that sounds fair, {price} it is` agrees to nothing the partner said
            bare = re.sub(r"\{\w+\}", " ", candidate.template)
            return not ungrounded_words(bare, grounds, common) and not unbacked_claims(bare, listing_words)

        partner_act = self._last_acts(observation)[0] if observation is not None else START
        return self.realize(
            act,
            values=values,
            fits=fits,
            fallback=fallback,
            require={"role": planner.role, "category": planner.category, "turn": "first" if opening else "reply", "after": after_class(partner_act)},
            accept=accept,
            rank=lambda candidate: similarity(candidate.context, partner_said),
        )

    def _concession_true(self, text: str, price: float | None) -> bool:
        """`I can come down, how about {price}` only when {price} is below my last price (above it for a buyer)."""
        if price is None or not any(not re.search(r"\b(?:can)?not\b|n't\b|\bnever\b", m.group(), re.I) for m in CONCEDES.finditer(text)):
            return True
        planner = self.planner
        before = planner.my_price if planner.my_price is not None else (planner.listing if planner.seller else None)
        if before is None:
            return False
        return price < before - 1e-9 if planner.seller else price > before + 1e-9

    def _partner_last(self, observation: Observation | None) -> str:
        """The partner's last message (empty before they said anything)."""
        for event in reversed(observation.transcript if observation is not None else ()):
            if isinstance(event, Message) and event.party != self.party:
                return event.text
        return ""

    def _grounds(self, observation: Observation | None) -> list[str]:
        """What a line may talk about: the listing and everything said so far."""
        said = [e.text for e in (observation.transcript if observation is not None else ()) if isinstance(e, Message)]
        return [*self.planner.listing_text, *said]

    def _money(self, price: float) -> str:
        """A price as people write it; whole dollars for listings over $20 (people do not write cents there)."""
        if self.planner.listing >= 20:
            price = float(round(price))
        return self.planner.money(price)


def describe_knowledge(knowledge: Knowledge) -> dict[str, Any]:
    """Sizes of what the agent learned (for the benchmark's table)."""
    return {"source": knowledge.source, "acts counted": int(knowledge.policy.size), "templates": len(knowledge.index), **knowledge.stats}

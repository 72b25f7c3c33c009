"""The modular CraigslistBargain agent (He et al. 2018): parse -> coarse act -> retrieve and fill.

The generic machinery is `duologue.agents.modular`; this module holds what is about bargaining:

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
"""

from __future__ import annotations

import copy
import math
import random
import re
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any, Iterable, Sequence

from duologue.agents.modular import (
    START,
    _stem,
    Generated,
    ActPolicy,
    Candidate,
    Knowledge,
    ModularAgent,
    UtteranceIndex,
    content_words,
    corpus_dialogues,
    document_frequency,
    escape_braces,
    similarity,
    ungrounded_words,
)
from duologue.core import actions
from duologue.core.schema import Dialogue, Message, Reject
from duologue.core.task import Observation, Task
from duologue.tasks.craigslist.acts import GOLD_SOURCE, dialogue_acts
from duologue.tasks.craigslist.agents import CraigslistRuleAgent
from duologue.tasks.craigslist.prices import find_prices
from duologue.tasks.craigslist.fitting import AGREEING, PRICE_STANCE, context_fit, unbacked_claims
from duologue.tasks.craigslist.listing_answers import UNSURE, listing_answer, without_title
from duologue.tasks.craigslist.reading import AVAILABILITY, SOCIAL, read_message

CHAT_ACTS = ("inquiry", "inform", "unknown", "disagree", "vague-price")
PRICE_ACTS = ("init-price", "counter-price", "insist")
POLICY_ACTS = ("intro", *CHAT_ACTS, *PRICE_ACTS, "agree", "offer", "quit")
OPTIONS: dict[str, tuple[str, ...]] = {
    "init-price": ("step", "bold"),
    "counter-price": ("step", "hold", "small", "meet"),
    "offer": ("step", "hold", "meet"),
    "answer": ("accept", "reject"),
}
"""The argument variants of the number-carrying acts, and the answer to an offer (see `choose_option`).

`step` is what the price manager does (its opening, its usual concession, its offer), `bold` an
opening further from the partner, `hold` my last price again, `small` half the usual concession,
`meet` halfway between my last price and the partner's (never past my limit)."""

# ---------------------------------------------------------------------------- the built-in prior

PRIOR: dict[str, dict[str, int]] = {
    # role|partner's last act -> per-mille frequency of the next act (validation split, rows seen 20+ times)
    "buyer|counter-price": {"counter-price": 339, "offer": 214, "unknown": 189, "agree": 122, "inquiry": 63, "insist": 34, "disagree": 27},
    "buyer|unknown": {"inquiry": 311, "unknown": 230, "init-price": 211, "offer": 130, "counter-price": 41, "disagree": 23, "agree": 15, "insist": 11, "accept": 11},
    "buyer|<start>": {"intro": 857, "init-price": 97, "offer": 43},
    "buyer|offer": {"accept": 732, "unknown": 138, "reject": 46, "agree": 27, "counter-price": 27, "offer": 11, "inquiry": 11},
    "buyer|inform": {"init-price": 366, "inquiry": 336, "counter-price": 113, "unknown": 84, "offer": 38, "disagree": 17, "vague-price": 17, "quit": 13},
    "buyer|intro": {"unknown": 632, "inquiry": 171, "init-price": 145, "offer": 18, "disagree": 18, "quit": 13},
    "buyer|init-price": {"counter-price": 527, "inquiry": 184, "unknown": 130, "offer": 63, "vague-price": 39, "agree": 24, "quit": 19},
    "buyer|disagree": {"init-price": 291, "inquiry": 286, "unknown": 137, "counter-price": 104, "offer": 60, "disagree": 49, "vague-price": 27, "agree": 11, "insist": 11, "quit": 11},
    "buyer|inquiry": {"inquiry": 350, "init-price": 228, "inform": 211, "counter-price": 81, "offer": 49, "unknown": 24, "disagree": 24, "insist": 16, "agree": 16},
    "buyer|agree": {"offer": 394, "unknown": 364, "counter-price": 81, "agree": 71, "inquiry": 40, "disagree": 20, "quit": 20, "accept": 10},
    "buyer|vague-price": {"counter-price": 375, "init-price": 250, "inquiry": 167, "unknown": 125, "disagree": 42, "quit": 42},
    "buyer|insist": {"counter-price": 333, "offer": 208, "unknown": 125, "agree": 83, "inquiry": 83, "insist": 83, "disagree": 42, "quit": 42},
    "seller|counter-price": {"counter-price": 417, "unknown": 179, "offer": 172, "agree": 121, "inquiry": 29, "insist": 29, "disagree": 27, "quit": 16},
    "seller|inquiry": {"inform": 538, "disagree": 204, "init-price": 126, "counter-price": 50, "inquiry": 34, "offer": 16, "unknown": 14},
    "seller|unknown": {"unknown": 383, "offer": 154, "init-price": 137, "inquiry": 94, "disagree": 92, "counter-price": 62, "agree": 30, "accept": 16, "quit": 13},
    "seller|init-price": {"counter-price": 585, "unknown": 142, "offer": 84, "agree": 72, "inquiry": 39, "vague-price": 33, "disagree": 25, "init-price": 17},
    "seller|offer": {"accept": 707, "unknown": 145, "reject": 65, "agree": 30, "counter-price": 18, "offer": 12},
    "seller|intro": {"unknown": 612, "init-price": 179, "inquiry": 104, "disagree": 72, "quit": 23},
    "seller|<start>": {"intro": 884, "init-price": 80, "offer": 28},
    "seller|agree": {"unknown": 348, "offer": 333, "agree": 167, "accept": 45, "counter-price": 45, "inquiry": 30, "disagree": 15, "quit": 15},
    "seller|disagree": {"unknown": 255, "offer": 157, "counter-price": 137, "disagree": 118, "init-price": 98, "inquiry": 78, "agree": 59, "insist": 39, "reject": 20, "vague-price": 20, "quit": 20},
    "seller|insist": {"unknown": 233, "counter-price": 233, "offer": 133, "insist": 133, "disagree": 100, "agree": 100, "accept": 33, "vague-price": 33},
    "seller|inform": {"unknown": 214, "offer": 179, "init-price": 179, "inquiry": 143, "disagree": 71, "accept": 71, "counter-price": 71, "agree": 71},
    "seller|vague-price": {"counter-price": 250, "init-price": 208, "inquiry": 167, "unknown": 167, "offer": 42, "quit": 42, "disagree": 42, "vague-price": 42, "insist": 42},
}
"""The fallback act-transition prior (no corpus at hand). Keys are `role|partner's last act`."""

# ---------------------------------------------------------------------------- the fallback wording

TEMPLATES: dict[str, dict[str, tuple[str, ...]]] = {
    "buyer": {
        "intro": ("Hi there!", "Hello, how are you?", "Hey, I saw your listing.", "Hi! I'm interested in your listing.", "Hello! Is this still for sale?"),
        "inquiry": ("What condition is it in?", "How long have you had it?", "Is it still for sale?", "Why are you selling it?",
                    "Are there any problems with it?", "Can I come see it?", "Is anything wrong with it?"),
        "inform": ("I would use it every day.", "It's for my own use.", "I've been looking for one for a while.", "I would pick it up myself.",
                   "Just for me, I'd take good care of it."),
        "unknown": ("I see.", "That's good to know.", "Thanks for the info.", "Sounds nice.", "Alright, thank you.", "I was hoping for something like this."),
        "disagree": ("No, that's too much for me.", "I'm not sure I can do that.", "No, sorry.", "That's not going to work for me.", "I don't think I can go that high."),
        "vague-price": ("Could you come down a bit?", "That seems a little too high.", "Is that your lowest?", "Can you go lower?", "What's the lowest you would take?"),
        "init-price": ("Would you take {price}?", "I can offer {price}.", "How about {price}?", "I was thinking {price}.", "Could you do {price}?"),
        "counter-price": ("How about {price}?", "Could you do {price}?", "I could go up to {price}.", "Would you take {price}?",
                          "I can't do {partner_price}, but {price} works for me.", "{partner_price} is too much, how about {price}?"),
        "insist": ("I'm sticking with {price}.", "{price} is really all I can pay.", "Sorry, {price} is my final price.", "I can only do {price}."),
        "agree": ("Okay, deal.", "Deal!", "That works for me.", "Great, I can do that.", "Ok."),
    },
    "seller": {
        "intro": ("Hi there!", "Hello!", "Hey, thanks for your interest.", "Hi, how are you?", "Hello, it's still available."),
        "inquiry": ("Are you interested?", "Do you have any questions?", "When could you pick it up?", "Would you be paying cash?",
                    "Is this for you?", "What are you looking for?"),
        "inform": ("Happy to tell you more, what would you like to know?", "It's as described in the listing.", "Everything in the listing is accurate."),
        "unknown": ("I see.", "Sounds good to me.", "Thanks for letting me know.", "It's a great deal.", "You won't regret it.", "Alright."),
        "disagree": ("No, that's too low.", "No, I can't do that.", "Sorry, that doesn't work for me.", "I don't think so.", "No, it's worth more than that."),
        "vague-price": ("That's too low.", "Could you go higher?", "What's the highest you can go?", "That seems too low for me."),
        "init-price": ("I'm asking {price}.", "The price is {price}.", "I'd like to get {price} for it.", "I could let it go for {price}."),
        "counter-price": ("How about {price}?", "I could do {price}.", "Would {price} work?", "Meet me at {price}?", "Best I can do is {price}.",
                          "I can't do {partner_price}, but I could do {price}.", "{partner_price} is too low, how about {price}?"),
        "insist": ("I'm firm at {price}.", "{price} is my lowest.", "Sorry, {price} is my final price.", "I really need {price} for it."),
        "agree": ("Okay, deal.", "Deal!", "That works for me.", "Great, I can do that.", "Ok."),
    },
}
"""The agent's own wording per role and act, used when no retrieved candidate fits."""
ACKNOWLEDGE_UNSURE = ("No worries.", "Okay, no problem.", "Alright, thanks anyway.", "Okay, fair enough.")
"""Small talk after the partner said they do not know (`Sounds nice.` would not fit there)."""
PARTNER_UNSURE = re.compile(r"\b(?:not sure|doesn'?t say|rather not guess|don'?t know|no idea)\b", re.I)
OPEN_ANSWERS = ("Sure, what would you like to know?", "Happy to answer any questions.")
"""The rule agent's replies to a question it cannot place: they fit only an invitation to ask."""
INVITES_QUESTIONS = re.compile(r"\b(?:can|could|may) i ask\b|\bquestions?\b|\btell me (?:more|about)\b|\bmore (?:info|information|details)\b", re.I)
ASKS_WHAT_TO_KNOW = re.compile(r"\bwhat (?:would|do) you (?:like|want) to know\b|\b(?:any|have) (?:other |more )?questions\b", re.I)
"""The partner invites a question: a buyer asks one (an `inform` would answer nothing)."""
FAREWELLS = ("Okay, take care.", "No problem, good luck!", "Alright, thanks anyway.")
"""What is said to a partner who is leaving."""
NOT_MINE = {
    "buyer": re.compile(r"\bare you (?:still )?interested\b|\binterested in (?:my|buying)\b|\bmy (?:item|listing|asking)\b", re.I),
    "seller": re.compile(r"\bi(?:'m| am)(?: very)? interested in (?:your|the|this)\b|\bi(?:'d| would)? (?:like|want) to (?:buy|purchase)\b|\byour (?:item|listing|ad)\b", re.I),
}
"""Words only the other side says (a buyer does not ask `are you interested in the bike?`)."""
NEVER = re.compile(r"(?!)")
CONTINUES = re.compile(r"^\W*by\b", re.I)
"""A fragment that continues someone else's sentence (`By at least {price}`)."""
CONCEDES = re.compile(r"\bi(?:'ll|'d|'m| will| can| could| would| am)? (?:\w+ )?(?:come (?:down|up)|go (?:lower|down|higher|up)|drop|lower (?:it|the price|my price)|raise|budge|move (?:down|up))\b", re.I)
"""Words that say my price is a concession (`I can come down`): true only when it moves from my last price."""
CONTRASTS = re.compile(r"^\W*but\b", re.I)
LISTED = re.compile(r"\blist(?:ed|ing)\b|\basking price\b", re.I)
SETTLES = re.compile(r"\bsounds (?:good|fair|great|fine)\b|\bthat works\b|\bit is\W*$", re.I)
STARTS_AGREEING = re.compile(r"^\W*(?:ok(?:ay)?|alright|sure|yes|yeah|yep|fine|deal|agreed|great)\b", re.I)


# ---------------------------------------------------------------------------- context features


def gap_bucket(mine: float | None, theirs: float | None, listing: float | None) -> str:
    """How far apart the two sides' last prices are, as a share of the listing price."""
    if mine is None or theirs is None or not listing:
        return "none"
    gap = abs(mine - theirs) / listing
    if gap <= 0.01:
        return "same"
    if gap <= 0.08:
        return "close"
    if gap <= 0.25:
        return "mid"
    return "far"


def policy_context(role: str, partner_act: str, gap: str, my_act: str) -> tuple[str, str, str, str]:
    """The policy's context, most important feature first (the backoff drops from the end)."""
    return (role, partner_act, gap, my_act)


def labelled_acts(dialogue: Dialogue) -> list[tuple[str | None, float | None]]:
    """(act, price) of each event: the corpus parser's labels where present, else the re-implemented parser's."""
    gold_intent = {a.event: a.labels[0] for a in dialogue.annotations if a.layer == "intent" and a.source == GOLD_SOURCE and a.labels and a.event is not None}
    gold_price = {a.event: a.value for a in dialogue.annotations if a.layer == "price" and a.source == GOLD_SOURCE and a.event is not None}
    parsed = dialogue_acts(dialogue)
    out: list[tuple[str | None, float | None]] = []
    for index, act in enumerate(parsed):
        intent = gold_intent.get(index, act.intent if act is not None else None)
        price = gold_price[index] if index in gold_price else (act.price if act is not None else None)
        if isinstance(price, bool) or not isinstance(price, (int, float)):
            price = None
        out.append((intent, float(price) if price is not None else None))
    return out


def act_sequence(dialogue: Dialogue) -> list[tuple[tuple[str, str, str, str], str]]:
    """(context, act) for every labelled move of a corpus dialogue, as the policy counts them."""
    roles = {p.id: p.role or dialogue.scenario.private.get(p.id, {}).get("role") for p in dialogue.parties}
    listing = dialogue.scenario.public.get("listing_price")
    listing = float(listing) if isinstance(listing, (int, float)) and not isinstance(listing, bool) else None
    last_act: dict[str, str] = {}
    last_price: dict[str, float] = {}
    pairs = []
    for event, (act, price) in zip(dialogue.events, labelled_acts(dialogue), strict=True):  # one label per event
        speaker = event.party
        if speaker not in roles or act is None or roles[speaker] not in ("buyer", "seller"):
            continue
        partner = next((p for p in roles if p != speaker), None)
        context = policy_context(
            str(roles[speaker]),
            last_act.get(partner, START) if partner else START,
            gap_bucket(last_price.get(speaker), last_price.get(partner) if partner else None, listing),
            last_act.get(speaker, START),
        )
        pairs.append((context, act))
        last_act[speaker] = act
        if price is not None:
            last_price[speaker] = price
    return pairs


# ---------------------------------------------------------------------------- building the index

_STOP = frozenset(
    """the and for with this that you your are was have has but not can will would could just very its it's i'm
    what how when where who why does did get got all any some one out too also than then them they there here
    from about been into only more most much really like well good great nice new used item price offer sell""".split()
)


def item_specific_words(dialogues: Sequence[Dialogue], share: float = 0.05, title_share: float = 0.25) -> dict[str, set[str]]:
    """Per listing (post id or dialogue id): the words of its own text that tie an utterance to it.

    These are the words of its description that fewer than `share` of the category's listings
    use (brand names, model numbers, colours, street names), and the words of its title that fewer
    than `title_share` of the category's titles use (`dresser`, `queen`: a line about them does not
    fit a desk, while `bike` fits every bike).
    """
    listing_words: dict[str, tuple[str, set[str], set[str]]] = {}
    for dialogue in dialogues:
        key = _listing_key(dialogue)
        if key in listing_words:
            continue
        item = _seller_item(dialogue)
        title = content_words(str(item.get("title") or "")) - _STOP
        text = " ".join(line for line in item.get("description") or [] if isinstance(line, str))
        listing_words[key] = (str(dialogue.scenario.public.get("category") or ""), title, (content_words(text) - _STOP) | title)
    in_text: dict[str, Counter[str]] = defaultdict(Counter)
    in_title: dict[str, Counter[str]] = defaultdict(Counter)
    listings_in: Counter[str] = Counter()
    for category, title, words in listing_words.values():
        listings_in[category] += 1
        in_text[category].update(words)
        in_title[category].update(title)
    out: dict[str, set[str]] = {}
    for key, (category, title, words) in listing_words.items():
        rare = {w for w in words if in_text[category][w] < max(2.0, share * listings_in[category])}
        named = {w for w in title if in_title[category][w] < max(2.0, title_share * listings_in[category])}
        out[key] = rare | named
    return out


def _listing_key(dialogue: Dialogue) -> str:
    return str(dialogue.scenario.public.get("post_id") or dialogue.id)


def _seller_item(dialogue: Dialogue) -> dict[str, Any]:
    seller = next((v for v in dialogue.scenario.private.values() if v.get("role") == "seller"), None)
    return dict((seller or {}).get("item") or {})


MAX_WORDS = 40
INTERFACE_WORDS = frozenset({"click", "clicked", "clicking", "button", "turk", "mturk", "worker", "workers", "hit", "hits", "bot"})
"""Talk about the crowdsourcing interface (`you forgot to click accept`), not about the item."""


def message_template(text: str, *, price: float | None, partner_price: float | None, listing_price: float | None, banned: set[str]) -> str | None:
    """A corpus message as a reusable template, or None when it is tied to its own listing.

    The proposed price becomes `{price}`, the partner's last price `{partner_price}`. Any other
    number, a relative amount (`$50 off`), a word specific to its listing, or a very long message
    makes it unusable elsewhere.
    """
    text = " ".join(text.split())
    if not text or len(text.split()) > MAX_WORDS or "{" in text or "}" in text:
        return None
    words = content_words(text)
    if banned & words or INTERFACE_WORDS & words:
        return None
    mentions = find_prices(text, listing_price=listing_price)
    pieces: list[str] = []
    cursor = 0
    for mention in mentions:
        if mention.relative:
            return None
        if price is not None and abs(mention.value - price) < 1e-6:
            slot = "{price}"
        elif partner_price is not None and abs(mention.value - partner_price) < 1e-6:
            slot = "{partner_price}"
        else:
            return None
        pieces.append(escape_braces(text[cursor : mention.start]))
        pieces.append(slot)
        cursor = mention.end
    pieces.append(escape_braces(text[cursor:]))
    template = "".join(pieces)
    if re.search(r"\d", template.replace("{price}", "").replace("{partner_price}", "")):
        return None  # a number left over: a count, a year, a measure of that listing
    return template


def build_index(dialogues: Sequence[Dialogue]) -> tuple[UtteranceIndex, dict[str, int]]:
    """Index every usable corpus message by (act, role, category); returns the index and what was kept or left out."""
    index = UtteranceIndex()
    banned = item_specific_words(dialogues)
    counts: Counter[str] = Counter()
    for dialogue in dialogues:
        roles = {p.id: p.role or dialogue.scenario.private.get(p.id, {}).get("role") for p in dialogue.parties}
        category = str(dialogue.scenario.public.get("category") or "")
        listing = dialogue.scenario.public.get("listing_price")
        listing = float(listing) if isinstance(listing, (int, float)) and not isinstance(listing, bool) else None
        words = banned.get(_listing_key(dialogue), set())
        last_price: dict[str, float] = {}
        last_text: dict[str, str] = {}
        last_act: dict[str, str] = {}
        for event, (act, price) in zip(dialogue.events, labelled_acts(dialogue), strict=True):  # one label per event
            speaker = event.party
            partner = next((p for p in roles if p != speaker), None)
            if isinstance(event, Message) and act is not None and speaker is not None and roles.get(speaker) in ("buyer", "seller"):
                counts["messages"] += 1
                template = message_template(
                    event.text, price=price, partner_price=last_price.get(partner) if partner else None, listing_price=listing, banned=words
                )
                if template is None:
                    counts["left out"] += 1
                else:
                    said_before = bool(last_text)
                    tags = {
                        "role": str(roles[speaker]), "category": category, "turn": "reply" if said_before else "first",
                        "after": after_class(last_act.get(partner, START) if partner else START),
                    }
                    if index.add(act, template, tags, context=last_text.get(partner, "") if partner else ""):
                        counts["indexed"] += 1
            if price is not None and speaker is not None:
                last_price[speaker] = price
            if isinstance(event, Message) and speaker is not None:
                last_text[speaker] = event.text
            if act is not None and speaker is not None:
                last_act[speaker] = act
    return index, dict(counts)


# ---------------------------------------------------------------------------- the agent


class CraigslistModularAgent(ModularAgent):
    """A buyer or seller that decides coarse acts with a corpus-learned policy and says retrieved corpus lines."""

    name = "modular"
    corpus_relative = "craigslist/validation.json"

    @classmethod
    def build_knowledge(cls, path: Path) -> Knowledge:
        dialogues = corpus_dialogues("craigslist", path)
        if not dialogues:
            raise ValueError("no valid CraigslistBargain dialogue")
        policy = ActPolicy()
        for dialogue in dialogues:
            for context, act in act_sequence(dialogue):
                policy.add(context, act)
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

    # ------------------------------------------------------------------ parsing

    def _last_acts(self, observation: Observation) -> tuple[str, str]:
        """(partner's last act, my last act), as the act tracker read them."""
        partner_act = my_act = START
        # The tracker's history is a prefix of the transcript (it may not have read the newest events yet).
        for event, act in zip(observation.transcript, self.planner.acts.history, strict=False):
            if act is None:
                continue
            if event.party == self.party:
                my_act = act.intent
            else:
                partner_act = act.intent
        return partner_act, my_act

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
        legal = observation.legal
        if self.refused >= 2 and legal:
            self.refused = 0
            return self.task.sample_action(self.party, self.rng)
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
                usual = self._priced("offer", observation, usual, hold=planner.my_price, meet=self._meet())
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
                price = self._priced("counter-price", observation, usual, hold=planner.my_price, small=small, meet=self._meet())
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

    # ------------------------------------------------------------------ argument variants (for a learned strategy)

    def option_names(self) -> list[str]:
        """Every `point:option` a learned policy may choose (its vocabulary beside the acts)."""
        return [f"{point}:{option}" for point, options in OPTIONS.items() for option in options]

    def choose_option(self, point: str, context: Sequence[str], options: Sequence[str]) -> str:
        """Which variant to play at `point` (an act or `answer`): the price manager's own, always the first.
        A learned strategy (`rl:`) replaces this; the modular agent itself plays exactly as its planner says."""
        return options[0]

    def _option(self, point: str, observation: Observation, options: Sequence[str]) -> str:
        return options[0] if len(options) < 2 else self.choose_option(point, self.option_context(observation), options)

    def option_context(self, observation: Observation) -> tuple[str, ...]:
        """The act context plus how late it is and where the partner's price stands between my target and limit."""
        planner = self.planner
        turns_left = observation.turns_left
        stage = "early" if turns_left is None or turns_left > 15 else "mid" if turns_left > 8 else "late"
        theirs, span = planner.their_price, planner.target - planner.limit
        if theirs is None or abs(span) < 1e-9:
            standing = "none"
        else:
            share = (planner.target - theirs) / span  # 0 at my target, 1 at my limit
            standing = "target" if share <= 0 else "near" if share < 0.34 else "mid" if share < 0.67 else "far" if share <= 1 else "beyond"
        return (*self.context(observation), stage, standing)

    def _priced(self, point: str, observation: Observation, usual: float, **others: float | None) -> float:
        """The price of `point`: the planner's `usual` (option `step`) or a variant a learned strategy picks.
        Variants beyond my limit or equal to an earlier one are not offered."""
        prices = {"step": usual}
        for name in OPTIONS[point][1:]:
            price = others.get(name)
            if price is not None and self.planner.within_limit(price) and all(abs(price - p) > 1e-9 for p in prices.values()):
                prices[name] = price
        return prices[self._option(point, observation, list(prices))]

    def _nice(self, price: float) -> float:
        """A price rounded to the planner's unit in my favour, kept within my limit (not my comfort price)."""
        planner = self.planner
        units = price / planner.step
        value = (math.ceil(units - 1e-9) if planner.seller else math.floor(units + 1e-9)) * planner.step
        if not planner.within_limit(value):
            value = planner.limit
        return float(round(value, 2))

    def _meet(self) -> float | None:
        """Halfway between my last price and the partner's (None until both named one)."""
        mine, theirs = self.planner.my_price, self.planner.their_price
        if mine is None or theirs is None or self.planner._better(theirs, mine):
            return None
        return self._nice((mine + theirs) / 2)

    def _bold(self) -> float | None:
        """An opening further from the partner than the planner's by a sixth of the listing price (a buyer's only:
        a seller already opens at the listing price)."""
        planner = self.planner
        if planner.seller:
            return None
        return self._nice(max(planner.opening - planner.listing / 6, 0.05 * planner.listing))

    def _listing_reply(self, partner_said: str, observation: Observation) -> str:
        """A seller's answer to the partner's question from the listing: the words that answer it, else an honest `not sure`."""
        planner = self.planner
        pick = self.rng.randrange(len(UNSURE))
        text = listing_answer(partner_said, planner.listing_text, pick)
        if text is None:
            text = planner._answer(read_message(without_title(partner_said, planner.listing_text), listing_price=planner.listing))
            if text in OPEN_ANSWERS and not INVITES_QUESTIONS.search(partner_said):
                text = UNSURE[pick]  # `Happy to answer any questions` to a question it does not answer
            elif "still available" in text and _other_questions(partner_said):
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
        fallback = [t for t in templates if set(_slots(t)) <= set(values)] or ["Okay."]
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


AFTER_CLASSES = {
    START: "start", "intro": "chat", "unknown": "chat", "inquiry": "question", "inform": "inform", "agree": "agree",
    "disagree": "disagree", "init-price": "price", "counter-price": "price", "insist": "price", "vague-price": "price",
    "offer": "price", "reject": "disagree", "accept": "agree", "quit": "chat",
}
"""The partner's last act, coarsened: a line is said only after the kind of move it answered in its own dialogue."""


def _other_questions(text: str) -> bool:
    """Whether a message asks something besides whether the item is available and how I am."""
    sentences = [s for s in re.split(r"(?<=[.!?])\s+", text) if s.strip().endswith("?")]
    return any(not AVAILABILITY.search(s) and not SOCIAL.search(s) for s in sentences)


def after_class(act: str) -> str:
    return AFTER_CLASSES.get(act, "chat")


COMMON_SHARE = 0.02
"""A word used in at least this share of the corpus's dialogues is common talk, fit for any listing."""


def common_words(dialogues: Sequence[Dialogue], share: float = COMMON_SHARE) -> frozenset[str]:
    """Words of ordinary bargaining talk: used in at least `share` of the dialogues' messages, less the
    words people use about a listing that says them (`iphone`, `chair`, `bedroom`: see `listing_words`)."""
    frequency = document_frequency(" ".join(e.text for e in d.events if isinstance(e, Message)) for d in dialogues)
    floor = max(2.0, share * len(dialogues))
    return (frozenset(word for word, count in frequency.items() if count >= floor) | own_words()) - listing_words(dialogues)


def listing_words(dialogues: Sequence[Dialogue], tied: float = 0.5, concentrated: float = 0.6) -> frozenset[str]:
    """Words that name or describe an item: when said, its listing says them too (in at least `tied` of
    the dialogues that use them) and most of those dialogues (`concentrated`) are of one category.

    Frequent as they are, they fit only a listing or a dialogue that has them: `Can you tell me more
    about this iPhone?` does not fit a flip phone, `a matching chair` does not come with a coffee table.
    """
    used: Counter[str] = Counter()
    with_listing: Counter[str] = Counter()
    by_category: dict[str, Counter[str]] = defaultdict(Counter)
    for dialogue in dialogues:
        item = _seller_item(dialogue)
        listing = content_words(" ".join([str(item.get("title") or ""), *(line for line in item.get("description") or [] if isinstance(line, str))]))
        listing |= {_stem(word) for word in listing}
        category = str(dialogue.scenario.public.get("category") or "")
        for word in content_words(" ".join(e.text for e in dialogue.events if isinstance(e, Message))):
            used[word] += 1
            by_category[word][category] += 1
            if word in listing or _stem(word) in listing:
                with_listing[word] += 1
    return frozenset(
        word for word, count in used.items()
        if count >= 5 and with_listing[word] >= tied * count and max(by_category[word].values()) >= concentrated * count
    )


def own_words() -> frozenset[str]:
    """Frequent English chat words and the words of duologue's own bargaining phrases (generic by design)."""
    from duologue.tasks.craigslist import agents as rule_wording
    from duologue.tasks.mutualfriends.linking import common_words as chat_words

    phrases = [t for role in TEMPLATES.values() for texts in role.values() for t in texts]
    for name in ("QUESTIONS", "SELLER_REASONS", "BUYER_REASONS", "DEFLECTIONS"):
        value = getattr(rule_wording, name)
        phrases += [t for group in value.values() for t in ([group] if isinstance(group, str) else group)]
    phrases += [reason for _, _, reason in rule_wording.LISTING_REASONS] + list(rule_wording.GENERIC_QUESTIONS)
    phrases += ["Sorry to hear that. Have a good one! No worries, take care. Okay, good luck with your search!",
                "The listing doesn't say anything about that, and I'd rather not guess. I'm not sure about that, sorry; I can check and let you know.",
                "Good question. Sure. Let me see. Happy to answer any questions. I just don't need it anymore. I'm making some room, that's all. It just opened up."]
    words: set[str] = set(chat_words()) | {"dollars", "dollar", "bucks", "buck", "cash", "price", "deal", "offer"}
    for phrase in phrases:
        words |= content_words(phrase)
    return frozenset(words)


def _slots(template: str) -> Iterable[str]:
    return re.findall(r"\{(\w+)\}", template)


def describe_knowledge(knowledge: Knowledge) -> dict[str, Any]:
    """Sizes of what the agent learned (for the benchmark's table)."""
    return {"source": knowledge.source, "acts counted": int(knowledge.policy.size), "templates": len(knowledge.index), **knowledge.stats}

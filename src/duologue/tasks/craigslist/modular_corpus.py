"""What the CraigslistBargain modular agent learns from the corpus: its act policy's counts and its utterance index.

* `act_sequence`: (context, act) for every labelled move of a corpus dialogue (the corpus parser's
  `intent` labels, the re-implemented parser where a turn has none), with the context
  `(role, partner's last act, price gap, own last act)`; `PRIOR` stands in without a corpus.
* `build_index`: every usable corpus message by (act, role, category, what it answered), prices as
  `{price}` / `{partner_price}`, lines tied to their own listing left out (`message_template`).
* `common_words`: the words of ordinary bargaining talk, fit for any listing.

See `modular.py` for the agent.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from typing import Any, Sequence

from duologue.modular.policy import START
from duologue.modular.retrieval import UtteranceIndex, _stem, content_words, document_frequency, escape_braces
from duologue.core.schema import Dialogue, Message
from duologue.tasks.craigslist.acts import GOLD_SOURCE, dialogue_acts
from duologue.tasks.craigslist.modular_wording import TEMPLATES
from duologue.tasks.craigslist.prices import find_prices

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


AFTER_CLASSES = {
    START: "start", "intro": "chat", "unknown": "chat", "inquiry": "question", "inform": "inform", "agree": "agree",
    "disagree": "disagree", "init-price": "price", "counter-price": "price", "insist": "price", "vague-price": "price",
    "offer": "price", "reject": "disagree", "accept": "agree", "quit": "chat",
}
"""The partner's last act, coarsened: a line is said only after the kind of move it answered in its own dialogue."""



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

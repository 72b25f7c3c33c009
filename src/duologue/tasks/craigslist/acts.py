"""Coarse dialogue acts and proposed prices of CraigslistBargain turns, as the corpus parser labels them.

The corpus (He et al. 2018) labels every turn with a coarse act and the price the speaker
proposes (`metadata: {intent, price}`; the corpus reader turns them into `intent` / `price`
annotations from `corpus-parser`). They come from CoCoA's rule-based parser; this module
re-implements its documented rules so any dialogue (a corpus record, a self-play episode, a
platform chat) can be labelled the same way, and measures itself against the labels the
validation split carries.

Acts of messages, decided in this order (the first that holds wins):

* `intro`: the dialogue's first event, without a price;
* `init-price`: a message with a price when no price was named before (messages or offers);
* `vague-price`: no price, but price talk (`come down`, `lowest`, `go lower`, `too high`);
* `counter-price`: a new price, or the listing price;
* `insist`: the speaker repeats their own last price;
* `inquiry`: a question (first word `what`, `is`, `can` ... or a final `?`) and no other cue;
* `agree`: a whole message that agrees (`ok`, `deal!`, `that works`), or the partner's own price;
* `inform`: no cue at all, right after the partner asked (their last act was `inquiry`);
* `disagree`: only a negation (`no`, `not`, `n't`);
* `unknown`: anything else (a greeting later on, a question with a negation, ...).

The meta acts `offer`, `accept`, `reject`, `quit` come from the events, not the text. The
price of a message is the one the speaker most likely proposes: among the prices found
(`price_tracker.tracked_prices`, re-exported by `prices`), those no worse for the partner than the speaker's last price (a seller
does not go up, a buyer does not go down), and, for a buyer, not the listing price; of these the
best for the speaker (a seller's highest, a buyer's lowest). Offers carry their own price. A
price, once named, becomes the speaker's price and the dialogue's current price.

Prices are read from the listing of the party who reads the message (its listing price and
description lines), as the parser did. The parser's price contexts were learned from data that
is not public; `price_tracker.py` approximates them with word lists, so the labels are reproduced
closely, not exactly (see `benchmarks/bench_craigslist_acts.py` for the figures).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

from duologue.core.annotator import Annotator, Evaluation, LabelScore, confusion_matrix, label_scores
from duologue.core.schema import Accept, Annotation, Dialogue, Event, Message, Offer, Quit, Reject
from duologue.tasks.craigslist.prices import listing_token_numbers, parser_tokens, token_number, tracked_prices
from duologue.tasks.craigslist.reading import parser_cues

MESSAGE_ACTS = ("intro", "init-price", "inquiry", "inform", "counter-price", "vague-price", "insist", "agree", "disagree", "unknown")
META_ACTS = ("offer", "accept", "reject", "quit")
ACTS = MESSAGE_ACTS + META_ACTS
GOLD_SOURCE = "corpus-parser"
"""`Annotation.source` of the corpus's own parser labels (see `corpus.py`)."""
_META_EVENTS = {Offer: "offer", Accept: "accept", Reject: "reject", Quit: "quit"}


@dataclass(frozen=True)
class Act:
    """One event's coarse act and proposed price.

    `priced` says whether the event has a price slot at all: messages and offers do (their price
    may be None), accept / reject / quit do not.
    """

    intent: str
    price: float | None = None
    priced: bool = True


@dataclass
class _Side:
    """What the parser remembers of one party: its listing view, last price and last act."""

    role: str
    listing_price: float | None
    listing_lines: list[str]
    price: float | None = None
    act: str = "<start>"
    _numbers: set[float] | None = None

    def listing_numbers(self) -> set[float]:
        """The numbers of the listing's text, found on first need (most messages have no unmarked number)."""
        if self._numbers is None:
            self._numbers = listing_token_numbers(self.listing_lines)
        return self._numbers


@dataclass
class ActTracker:
    """Labels the events of one dialogue in order, keeping the state the acts depend on.

    Feed it every event (both parties', messages and offers alike) with `read`; it returns the
    act of that event. The rule agent keeps one to follow its partner's moves.
    """

    sides: dict[str, _Side]
    current_price: float | None = None
    events_read: int = 0
    history: list[Act | None] = field(default_factory=list)

    @classmethod
    def for_parties(cls, views: dict[str, dict[str, Any]]) -> "ActTracker":
        """A tracker from each party's view: `{party: {role, item: {price, title, description}}}` (a scenario's `private`)."""
        sides = {}
        for party, view in views.items():
            item = view.get("item") or {}
            price = item.get("price")
            lines = [item.get("title") or "", *(line for line in item.get("description") or [] if isinstance(line, str))]
            sides[party] = _Side(
                role=str(view.get("role") or ""),
                listing_price=float(price) if isinstance(price, (int, float)) and not isinstance(price, bool) else None,
                listing_lines=[line for line in lines if line],
            )
        return cls(sides=sides)

    @classmethod
    def for_dialogue(cls, dialogue: Dialogue) -> "ActTracker":
        views: dict[str, dict[str, Any]] = {}
        public = dialogue.scenario.public
        for party in dialogue.parties:
            view = dict(dialogue.scenario.private.get(party.id) or {})
            view.setdefault("role", party.role)
            item = dict(view.get("item") or {})
            item.setdefault("price", public.get("listing_price"))
            item.setdefault("title", public.get("title"))
            view["item"] = item
            views[party.id] = view
        return cls.for_parties(views)

    def _partner_of(self, party: str) -> str | None:
        return next((other for other in self.sides if other != party), None)

    def read(self, event: Event) -> Act | None:
        """The act of the next event (None for events that are not moves of the bargaining)."""
        speaker = event.party
        if speaker is None or speaker not in self.sides:
            act = None
        elif isinstance(event, Message):
            act = self._read_message(speaker, event.text)
        elif isinstance(event, Offer):
            act = Act("offer", float(event.price) if event.price is not None else None)
        elif type(event) in _META_EVENTS:
            act = Act(_META_EVENTS[type(event)], priced=False)
        else:
            act = None
        if act is not None and speaker is not None:  # only a known speaker's move has an act
            if act.price is not None:
                self.sides[speaker].price = act.price
                self.current_price = act.price
            self.sides[speaker].act = act.intent
        self.events_read += 1
        self.history.append(act)
        return act

    def _read_message(self, speaker: str, text: str) -> Act:
        reader_id = self._partner_of(speaker)
        speaker_side = self.sides[speaker]
        reader = self.sides[reader_id] if reader_id is not None else speaker_side
        tokens = parser_tokens(text)
        unmarked = any("$" not in token and token_number(token) is not None for token in tokens)
        found = tracked_prices(tokens, listing_price=reader.listing_price, listing_numbers=reader.listing_numbers() if unmarked else ())
        kinds: list[tuple[float, str]] = []
        for mention in found:
            if mention.value == reader.listing_price:
                kind = "listing_price"
            elif mention.value == reader.price:
                kind = "my_price"  # the reader's own price, named back to them
            elif mention.value == speaker_side.price:
                kind = "partner_price"  # the speaker's own last price again
            else:
                kind = "price"
            kinds.append((mention.value, kind))
        cues = parser_cues(text, tokens)
        price_kinds = {kind for _, kind in kinds}
        intent = self._intent(cues, price_kinds, reader.act)
        return Act(intent, self._proposed(kinds, speaker_side))

    def _intent(self, cues: list[str], price_kinds: set[str], reader_act: str) -> str:
        has_price = bool(price_kinds)
        if self.events_read == 0 and not has_price:
            return "intro"
        if has_price and self.current_price is None:
            return "init-price"
        if not has_price and "vague-price" in cues:
            return "vague-price"
        if price_kinds & {"price", "listing_price"}:
            return "counter-price"
        if "partner_price" in price_kinds:
            return "insist"
        if cues == ["question"] and not has_price:
            return "inquiry"
        if "agree" in cues or "my_price" in price_kinds:
            return "agree"
        if not cues and not has_price and reader_act == "inquiry":
            return "inform"
        if cues == ["negative"] and not has_price:
            return "disagree"
        return "unknown"

    @staticmethod
    def _proposed(kinds: list[tuple[float, str]], speaker: _Side) -> float | None:
        seller = speaker.role == "seller"
        direction = 1.0 if seller else -1.0  # higher is better for a seller
        candidates = [
            value
            for value, kind in kinds
            if (speaker.price is None or direction * (value - speaker.price) <= 0) and (seller or kind != "listing_price")
        ]
        return max(candidates, key=lambda value: direction * value) if candidates else None


def dialogue_acts(dialogue: Dialogue) -> list[Act | None]:
    """The act of every event of a dialogue (None for events that are not bargaining moves)."""
    tracker = ActTracker.for_dialogue(dialogue)
    return [tracker.read(event) for event in dialogue.events]


class ActAnnotator(Annotator):
    """CraigslistBargain coarse dialogue acts (`intent`) and proposed prices (`price`), the corpus parser's way."""

    name = "acts"
    task = "craigslist"
    layer = "intent"
    source = "duologue.acts-v1"

    def annotate(self, dialogue: Dialogue) -> list[Annotation]:
        annotations = []
        for index, act in enumerate(dialogue_acts(dialogue)):
            if act is None:
                continue
            annotations.append(Annotation(event=index, layer="intent", labels=[act.intent], source=self.source))
            if act.priced:
                annotations.append(Annotation(event=index, layer="price", value=act.price, source=self.source))
        return annotations

    def evaluate(self, dialogues: Sequence[Dialogue]) -> Evaluation | None:
        """Intent accuracy, per-act F1, price exact-match P/R/F1 and a confusion matrix, on events the corpus parser labelled."""
        pairs: list[tuple[str, str]] = []
        message_pairs: list[tuple[str, str]] = []
        price_pairs: list[tuple[Any, Any]] = []
        message_price_pairs: list[tuple[Any, Any]] = []
        for dialogue in dialogues:
            gold_intents = {a.event: a.labels[0] for a in dialogue.annotations if a.layer == "intent" and a.source == GOLD_SOURCE and a.labels and a.event is not None}
            gold_prices = {a.event: a.value for a in dialogue.annotations if a.layer == "price" and a.source == GOLD_SOURCE and a.event is not None}
            if not gold_intents and not gold_prices:
                continue
            acts = dialogue_acts(dialogue)
            for index, gold in gold_intents.items():
                act = acts[index] if index < len(acts) else None
                predicted = act.intent if act is not None else "none"
                pairs.append((gold, predicted))
                if isinstance(dialogue.events[index], Message):
                    message_pairs.append((gold, predicted))
            for index, gold in gold_prices.items():
                act = acts[index] if index < len(acts) else None
                predicted_price = act.price if act is not None else None
                price_pairs.append((gold, predicted_price))
                if isinstance(dialogue.events[index], Message):
                    message_price_pairs.append((gold, predicted_price))
        if not pairs and not price_pairs:
            return None
        per_label, summary = label_scores((frozenset([g]), frozenset([p])) for g, p in pairs)
        metrics = {
            "intent_accuracy": _accuracy(pairs),
            "message_intent_accuracy": _accuracy(message_pairs),
            "macro_f1": summary["macro_f1"],
        }
        for prefix, chosen in (("price", price_pairs), ("message_price", message_price_pairs)):
            score = price_scores(chosen)
            metrics.update({f"{prefix}_precision": score.precision, f"{prefix}_recall": score.recall, f"{prefix}_f1": score.f1})
        return Evaluation(
            annotator=self.name,
            items=len(pairs),
            metrics=metrics,
            per_label=per_label,
            confusion=confusion_matrix(pairs),
            notes=[
                f"{len(pairs)} labelled events ({len(message_pairs)} messages); prices compared on {len(price_pairs)} events with a price slot "
                f"({sum(1 for g, _ in price_pairs if g is not None)} with a gold price)",
                "message_* figures leave out offer/accept/reject/quit, whose acts and prices come from the events themselves",
            ],
        )


def _accuracy(pairs: Sequence[tuple[str, str]]) -> float:
    return sum(1 for gold, predicted in pairs if gold == predicted) / len(pairs) if pairs else 0.0


def price_scores(pairs: Iterable[tuple[Any, Any]]) -> LabelScore:
    """Exact-match precision / recall / F1 of predicted prices against gold prices (None = no price)."""
    hits = predicted_count = gold_count = 0
    for gold, predicted in pairs:
        gold_price = _number(gold)
        predicted_price = _number(predicted)
        gold_count += gold_price is not None
        predicted_count += predicted_price is not None
        hits += gold_price is not None and predicted_price is not None and abs(gold_price - predicted_price) < 1e-6
    precision = hits / predicted_count if predicted_count else 0.0
    recall = hits / gold_count if gold_count else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return LabelScore(precision=precision, recall=recall, f1=f1, support=gold_count)


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)

"""The CraigslistBargains corpus (He, Chen, Balakrishnan, Liang, EMNLP 2018), in its two native shapes.

**CoCoA event shape** (`Source.shape == "cocoa"`): the files the authors released
(`train.json`, `dev.json`, `test.json`, and the rule-parsed `parsed.json`), a JSON array of::

    {"uuid": "C_...",
     "scenario": {"category": "electronics", "attributes": [...8 schema entries...],
                  "post_id": "6122134540", "uuid": "S_...",
                  "kbs": [{"personal": {"Bottomline": null, "Role": "buyer", "Target": 243},
                           "item": {"Category": ..., "Images": [...], "Price": 265,
                                    "Description": [line, ...], "Title": ...}},
                          {... the seller's kb ...}]},
     "agents_info": null,            # absent in some releases
     "scenario_uuid": "S_...",       # usually scenario.uuid; a few releases differ
     "agents": {"0": "human", "1": "human"},   # or a bot type name
     "outcome": {"reward": 1, "offer": {"price": 243.0, "sides": ""}},   # offer may be null or absent
     "events": [{"start_time": "1496341530.27", "agent": 0, "time": "1496341531.17",
                 "action": "message", "data": "hi there",
                 "metadata": {"intent": "intro", "price": null}}, ...]}

`kbs[i]` is agent `i`'s private view: the buyer's item description can be shorter than the
seller's. Actions are `message` (data: the text), `offer` (data: `{price, sides}`), `accept`,
`reject`, `quit` (data: null). Times are strings of seconds since the epoch; `start_time` (when
the sender began typing) is null except on messages. `metadata` holds the corpus's rule-based
parser output (`intent`, and `price` where the parser looks for one); it is null where the parser
gave nothing, and absent in unparsed releases. `outcome.reward` is 1 when an offer was accepted;
`outcome.offer` is then that offer, and after a reject it is the rejected offer.

**Hugging Face shape** (`Source.shape == "hf"`): one row of the `craigslist_bargains` loader::

    {"agent_info": {"Bottomline": ["None", "None"], "Role": ["buyer", "seller"], "Target": [7.0, 10.0]},
     "agent_turn": [0, 1, ...],
     "dialogue_acts": {"intent": ["init-price", "unknown", ...], "price": [5.0, -1.0, ...]},
     "utterance": ["Hi, ...", "It will work ...", ...],
     "items": {"Category": [.., ..], "Images": [.., ..], "Price": [.., ..],
               "Description": [.., ..], "Title": [.., ..]}}

Lists under `agent_info` and `items` run over the agents (index = `agent_turn` value); the others
run over the events. The loader turns every event into a turn: non-message events get the
utterance `""`, and only their dialogue act (`offer`, `accept`, `reject`, `quit`) says what they
were; an offer's price survives only as the act's price. Missing values become defaults: price
`-1.0`, intent `""`, agent `-1`, Bottomline the text `"None"`, item fields `""` / `-1.0`;
list-valued item fields (Images, Description) are joined with `","`. Rows have no id.

Errors and warnings: a record is refused (an error) when it is not one of the two shapes, misses a
field, has a value of the wrong type or an integer beyond the float range, a non-positive offer
price, an unknown action or agent, or roles other than one buyer and one seller. Rule anomalies are
warnings (the record loads whole, the anomaly goes to `Dialogue.anomalies`): `accept-without-offer`
(an accept with no offer on the table, as in the official test split; the dialogue has no deal) and
`negative-price` (a negative listing price or target; in the HF shape -1 marks a missing value and
is not flagged).

Both shapes map onto one `Dialogue`: parties `"0"` and `"1"` (agent indices), each party's
private view `{role, target, bottomline, item {category, title, description, price, images}}`,
typed events, parser labels as `intent` / `price` annotations (`source="corpus-parser"`), and an
outcome scored with CoCoA's utility (`scoring.py`). Whatever the schema does not model (native
key order, time strings, unknown fields, an outcome that disagrees with the events) is kept in
`extra` so each record is written back in its own shape exactly. Each leftover is kept only when
the writer would not reproduce the native value on its own:

* `Source.extra` (CoCoA): `key_order` (per object: `record`, `scenario`, `kbs[i]`, and `events`
  for the order most events share), `fields` (values of keys CoCoA's writer does not know, e.g.
  `scenario.intersection`), `agents`, `attributes`, `agents_info`, `scenario_uuid`,
  `personal` / `item` (party id -> native object).
* `Event.extra` (CoCoA): `start_time`, `time` (the native value), `data`, `metadata`, `key_order`,
  `fields`. `Outcome.extra["native"]`: the native outcome.
* `Source.extra` (HF): `hf_columns` (native columns the writer would spell differently, such as
  integers where the loader writes floats), `hf_key_order`, `hf_fields` (extra columns).
"""

from __future__ import annotations

import copy
import hashlib
import json
import math
from collections import Counter
from typing import Any, Iterable, Mapping, Sequence, TypeGuard

import orjson

from duologue.core.schema import (
    Accept,
    Annotation,
    Dialogue,
    Event,
    Message,
    Offer,
    Outcome,
    Party,
    Quit,
    Reject,
    Scenario,
    Source,
    SystemNote,
)
from duologue.data.formats import Checker, CorpusFormat, Problem, json_type, model_builder
from duologue.tasks.craigslist.scoring import ScoringError, utilities_by_party

SHAPES = ("cocoa", "hf")
ACTIONS = ("message", "offer", "accept", "reject", "quit")
META_ACTIONS = ("offer", "accept", "reject", "quit")
"""Actions that are not messages; in the HF shape only their dialogue act names them."""
ROLES = ("buyer", "seller")
PARSER_SOURCE = "corpus-parser"
"""`Annotation.source` of the labels CoCoA's rule-based parser put in `metadata`."""

RECORD_KEYS = ("uuid", "scenario", "agents_info", "scenario_uuid", "agents", "outcome", "events")
SCENARIO_KEYS = ("category", "attributes", "post_id", "uuid", "kbs")
KB_KEYS = ("personal", "item")
PERSONAL_KEYS = ("Bottomline", "Role", "Target")
ITEM_KEYS = ("Category", "Images", "Price", "Description", "Title")
EVENT_KEYS = ("start_time", "agent", "time", "action", "data", "metadata")
HF_KEYS = ("agent_info", "agent_turn", "dialogue_acts", "utterance", "items")
HF_AGENT_INFO_KEYS = ("Bottomline", "Role", "Target")
HF_ACT_KEYS = ("intent", "price")
HF_MISSING_PRICE = -1.0
HF_JOIN = ","


def _attribute(name: str, value_type: str) -> dict[str, Any]:
    return {"entity": False, "unique": False, "value_type": value_type, "name": name, "multivalued": False}


DEFAULT_ATTRIBUTES: list[dict[str, Any]] = [
    _attribute("Role", "role"),
    _attribute("Bottomline", "price"),
    _attribute("Target", "price"),
    _attribute("Title", "text"),
    _attribute("Category", "text"),
    _attribute("Price", "price"),
    _attribute("Images", "text"),
    _attribute("Description", "text"),
]
"""The KB schema every CoCoA scenario repeats (as the released files write it)."""


class CraigslistFormat(CorpusFormat):
    """CraigslistBargains: CoCoA event files and Hugging Face `craigslist_bargains` rows."""

    name = "craigslist"
    task = "craigslist"
    description = "CraigslistBargains (He et al. 2018): buyer-seller price negotiation; CoCoA event files or Hugging Face rows"
    layout = "list"

    # ------------------------------------------------------------------ identity

    def record_id(self, record: Any) -> str | None:
        if (isinstance(record, dict) or isinstance(record, Mapping)) and isinstance(record.get("uuid"), str):
            return record["uuid"]
        return None

    @staticmethod
    def shape_of(record: Any) -> str | None:
        """`cocoa` or `hf`, from the keys a record has; None when it looks like neither."""
        if not isinstance(record, dict) and not isinstance(record, Mapping):
            return None
        if "events" in record or "scenario" in record or "uuid" in record:
            return "cocoa"
        if any(key in record for key in HF_KEYS):
            return "hf"
        return None

    # ------------------------------------------------------------------ checking

    def quick_check(self, record: dict[str, Any]) -> bool:
        return self.shape_of(record) == "cocoa" and _quick_cocoa(record)

    def check_in_detail(self, record: Any) -> list[Problem]:
        shape = self.shape_of(record)
        checker = Checker()
        if shape == "cocoa":
            _check_cocoa(record, checker)
        elif shape == "hf":
            _check_hf(record, checker)
        elif isinstance(record, Mapping):
            checker.fail("$", "not a CraigslistBargains record: expected the CoCoA keys (uuid, scenario, agents, outcome, events) or the Hugging Face keys (" + ", ".join(HF_KEYS) + ")")
        else:
            checker.fail("$", f"expected an object, got {json_type(record)}")
        return checker.problems

    # ------------------------------------------------------------------ reading

    def to_dialogue(self, record: Any, *, file: str | None = None, index: int | None = None, split: str | None = None) -> Dialogue:
        if self.shape_of(record) == "hf":
            return _hf_to_dialogue(record, file=file, index=index, split=split)
        return _cocoa_to_dialogue(record, file=file, index=index, split=split)

    # ------------------------------------------------------------------ writing

    def from_dialogue(self, dialogue: Dialogue, *, shape: str | None = None) -> dict[str, Any]:
        """The dialogue as a native record, in `shape` (default: the shape it was read in, else `cocoa`)."""
        if shape is None:
            read_as = dialogue.source.shape if dialogue.source.corpus == self.name else None
            shape = read_as if read_as in SHAPES else "cocoa"
        if shape == "cocoa":
            return to_cocoa_record(dialogue)
        if shape == "hf":
            return to_hf_record(dialogue)
        raise ValueError(f"unknown CraigslistBargains shape {shape!r}; expected one of {', '.join(SHAPES)}")


# ====================================================================== shared helpers


def _same(a: Any, b: Any) -> bool:
    """Equal as JSON text: key order and JSON types count (1 differs from 1.0, true from 1).

    Decided with orjson, which is much faster than `json.dumps`: two values with different orjson
    texts also differ as `json.dumps` texts. orjson writes NaN and infinities as `null`, so equal
    orjson texts are trusted only for values that are also `==` (NaN never is, unless it is the very
    same object on both sides, which `json.dumps` writes alike too). Anything orjson will not write
    (non-string keys, huge integers, lone surrogates, dates) is left to `json.dumps`.
    """
    try:
        if orjson.dumps(a, option=_ORJSON_STRICT) != orjson.dumps(b, option=_ORJSON_STRICT):
            return False
    except TypeError:  # orjson.JSONEncodeError is a TypeError
        return _same_text(a, b)
    return a == b or _same_text(a, b)


_ORJSON_STRICT = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_SUBCLASS
"""Types `json.dumps` writes differently (or not at all) are passed through, so orjson refuses them."""


def _same_text(a: Any, b: Any) -> bool:
    return json.dumps(a, ensure_ascii=False) == json.dumps(b, ensure_ascii=False)


def _copy_json(value: Any) -> Any:
    """A deep copy of a parsed JSON value (what `copy.deepcopy` gives, at a fraction of its cost).

    The dialogue must not share lists or objects with the caller's record.
    """
    kind = type(value)
    if kind is dict:
        return {key: _copy_json(item) for key, item in value.items()}
    if kind is list:
        return [_copy_json(item) for item in value]
    if kind in (str, int, float, bool) or value is None:
        return value
    return copy.deepcopy(value)


def _is_number(value: Any) -> TypeGuard[int | float]:
    """A finite number a float can hold (an integer beyond the float range is not one: 10**400)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:  # an int too large for a float
        return False


def _arrange(values: Mapping[str, Any], known: Sequence[str], order: Sequence[str] | None, fields: Mapping[str, Any]) -> dict[str, Any]:
    """A native object from the values the writer computed plus kept unknown fields, in native order.

    `order` is the native key order when it differed from `known`; keys it leaves out are left out
    (a release that lacks `metadata` or `agents_info` gets none).
    """
    merged = {**values, **fields}
    keys = list(order) if order is not None else [*known, *fields]
    return {key: merged[key] for key in keys if key in merged}


def _layout(native: Mapping[str, Any], known: Sequence[str]) -> tuple[list[str] | None, dict[str, Any]]:
    """The native key order (None when it is the writer's) and the values of keys the writer does not know."""
    keys = list(native)
    return (None if keys == list(known) else keys), {k: v for k, v in native.items() if k not in known}


def _time_value(native: Any) -> float | None:
    """Seconds since the epoch from CoCoA's time string (or number)."""
    if native is None:
        return None
    return float(native)


def _time_text(time: float | None) -> str | None:
    """How the writer spells a time: the shortest string that reads back as the same float."""
    return None if time is None else repr(float(time))


def _agent_order(dialogue: Dialogue) -> list[Party]:
    """The two parties by agent index: ids `"0"`/`"1"` by number, otherwise in list order."""
    parties = list(dialogue.parties)
    if len(parties) != 2:
        raise ValueError(f"CraigslistBargains has two parties, dialogue {dialogue.id} has {len(parties)}")
    if {p.id for p in parties} == {"0", "1"}:
        parties.sort(key=lambda p: int(p.id))
    return parties


def _agent_index(party: str | None, order: Sequence[Party], where: str) -> int:
    for index, candidate in enumerate(order):
        if candidate.id == party:
            return index
    raise ValueError(f"{where}: an event without a party cannot be written as a CraigslistBargains event")


def _writable_events(dialogue: Dialogue) -> Iterable[tuple[int, Event]]:
    """(dialogue index, event) for every event the native shapes can hold.

    System notes (timeouts, disconnects) have no native action and are left out; events of other
    tasks (selections, deal splits) are an error rather than a silent loss.
    """
    for index, event in enumerate(dialogue.events):
        if isinstance(event, SystemNote):
            continue
        if event.kind not in ACTIONS:
            raise ValueError(f"dialogue {dialogue.id} events[{index}]: a {event.kind!r} event has no CraigslistBargains action")
        yield index, event


def _labels_by_event(dialogue: Dialogue) -> dict[int, dict[str, Annotation]]:
    """Event index -> layer -> the annotation a writer uses (the corpus parser's first, else the first)."""
    chosen: dict[int, dict[str, Annotation]] = {}
    for annotation in dialogue.annotations:
        if annotation.event is None or annotation.layer not in ("intent", "price"):
            continue
        layers = chosen.setdefault(annotation.event, {})
        current = layers.get(annotation.layer)
        if current is None or (current.source != PARSER_SOURCE and annotation.source == PARSER_SOURCE):
            layers[annotation.layer] = annotation
    return chosen


def _settle(events: Sequence[Event]) -> tuple[Offer | None, Offer | None]:
    """The accepted offer (the deal) and the last rejected offer, following offer/accept/reject.

    An accept takes the latest open offer of the other party (or the latest open offer when both
    parties offered the same price at once, as happens in the corpus); a reject closes every open offer.
    """
    open_offers: list[Offer] = []
    accepted: Offer | None = None
    rejected: Offer | None = None
    for event in events:
        if isinstance(event, Offer):
            open_offers.append(event)
        elif isinstance(event, Reject) and open_offers:
            rejected = open_offers[-1]
            open_offers = []
        elif isinstance(event, Accept) and open_offers and accepted is None:
            theirs = [o for o in open_offers if o.party != event.party]
            accepted = (theirs or open_offers)[-1]
    return accepted, rejected


def _build_outcome(events: Sequence[Event], private: Mapping[str, Mapping[str, Any]]) -> Outcome:
    """Outcome from the events: agreed when an offer was accepted, scored with CoCoA's utility."""
    accepted, _ = _settle(events)
    if accepted is None:
        reason = "quit" if any(isinstance(e, Quit) for e in events) else "no_agreement"
        return _NO_DEAL(reason=reason, agreed=False)
    deal: dict[str, Any] = {"price": accepted.price}
    if accepted.sides not in (None, ""):
        deal["sides"] = accepted.sides
    scores: dict[str, float] = {}
    if accepted.price is not None:
        try:
            scores = utilities_by_party(accepted.price, private)
        except ScoringError:
            scores = {}
    return _DEAL(reason="agreement", agreed=True, deal=deal, scores=scores)  # utilities are floats


def _view(role: Any, target: Any, bottomline: Any, category: Any, images: Any, price: Any, description: Any, title: Any) -> dict[str, Any]:
    return {
        "role": role,
        "target": target,
        "bottomline": bottomline,
        "item": {"category": category, "title": title, "description": description, "price": price, "images": images},
    }


def _public(private: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """What both sides see: the listing's category, title and price (taken from the seller's view)."""
    seller = next((v for v in private.values() if v.get("role") == "seller"), None)
    item = (seller or {}).get("item") or {}
    return {"category": item.get("category"), "title": item.get("title"), "listing_price": item.get("price")}


# ====================================================================== CoCoA shape: checks


def _check_time(value: Any, path: str, checker: Checker) -> None:
    if value is None:
        return
    if isinstance(value, str):
        try:
            number = float(value)
        except ValueError:
            number = None
        if number is None or not math.isfinite(number):
            checker.fail(path, f"expected seconds since the epoch as a numeric string, got {value!r}")
        return
    if not _is_number(value):
        checker.fail(path, f"expected seconds since the epoch (a numeric string or a number), got {json_type(value)}")


def _check_offer_price(value: Any, path: str, checker: Checker) -> None:
    """An offer names a positive price; null is tolerated (the corpus holds one such offer)."""
    if value is None:
        return
    if not _is_number(value):
        checker.fail(path, f"an offer's price must be a positive number, got {json_type(value)} {value!r}")
    elif value <= 0:
        checker.fail(path, f"an offer's price must be a positive number, got {value!r}")


def _check_roles(roles: list[str], path: str, checker: Checker) -> None:
    if len(roles) == 2 and sorted(roles) != list(ROLES):
        checker.fail(path, f"expected one buyer and one seller, got roles {roles}")


def _check_cocoa(record: Mapping[str, Any], checker: Checker) -> None:
    checker.require(record, "uuid", str, "$")
    checker.optional(record, "scenario_uuid", str, "$")
    agents = checker.require(record, "agents", dict, "$")
    if agents is not None:
        keys = [str(k) for k in agents]
        if sorted(keys) != ["0", "1"]:
            checker.fail("$.agents", f"expected the keys '0' and '1' (one per agent index), got {keys}")
        for key, kind in agents.items():
            if not isinstance(kind, str):
                checker.fail(f"$.agents.{key}", f"expected a string ('human' or the bot's type), got {json_type(kind)}")
    scenario = checker.require(record, "scenario", dict, "$")
    if scenario is not None:
        _check_scenario(scenario, checker)
    if "outcome" not in record:
        checker.fail("$.outcome", "missing field")
    else:
        _check_outcome(record["outcome"], checker)
    events = checker.require(record, "events", list, "$")
    if events is not None:
        _check_events(events, checker)


def _check_scenario(scenario: Mapping[str, Any], checker: Checker) -> None:
    here = "$.scenario"
    checker.require(scenario, "uuid", str, here)
    checker.optional(scenario, "category", str, here)
    checker.optional(scenario, "post_id", (str, int), here)
    checker.optional(scenario, "attributes", list, here)
    kbs = checker.require(scenario, "kbs", list, here)
    if kbs is None:
        return
    if len(kbs) != 2:
        checker.fail(f"{here}.kbs", f"expected 2 knowledge bases (one per agent), got {len(kbs)}")
    roles: list[str] = []
    for index, kb in enumerate(kbs):
        path = f"{here}.kbs[{index}]"
        if not isinstance(kb, Mapping):
            checker.fail(path, f"expected an object, got {json_type(kb)}")
            continue
        personal = checker.require(kb, "personal", dict, path)
        if personal is not None:
            role = checker.require(personal, "Role", str, f"{path}.personal")
            if role is not None:
                if role in ROLES:
                    roles.append(role)
                else:
                    checker.fail(f"{path}.personal.Role", f"expected 'buyer' or 'seller', got {role!r}")
            target = checker.require(personal, "Target", float, f"{path}.personal")
            if target is not None and not _is_number(target):
                checker.fail(f"{path}.personal.Target", f"expected a finite number, got {target!r}")
            elif target is not None and target < 0:
                checker.warn(f"{path}.personal.Target", f"a negative target price {target!r}", "negative-price")
            checker.optional(personal, "Bottomline", float, f"{path}.personal")
        item = checker.require(kb, "item", dict, path)
        if item is not None:
            _check_item(item, f"{path}.item", checker)
    _check_roles(roles, f"{here}.kbs", checker)


def _check_item(item: Mapping[str, Any], path: str, checker: Checker) -> None:
    checker.require(item, "Category", str, path)
    checker.require(item, "Title", str, path)
    price = checker.require(item, "Price", float, path, nullable=True)
    if _is_number(price) and price < 0:
        checker.warn(f"{path}.Price", f"a negative listing price {price!r}", "negative-price")
    for key in ("Description", "Images"):
        lines = checker.require(item, key, list, path)
        for index, line in enumerate(lines or []):
            if not isinstance(line, str):
                checker.fail(f"{path}.{key}[{index}]", f"expected a string, got {json_type(line)}")


def _check_outcome(outcome: Any, checker: Checker) -> None:
    if outcome is None:
        return
    if not isinstance(outcome, Mapping):
        checker.fail("$.outcome", f"expected an object or null, got {json_type(outcome)}")
        return
    checker.optional(outcome, "reward", float, "$.outcome")
    offer = checker.optional(outcome, "offer", dict, "$.outcome")
    if offer is not None:
        price = checker.require(offer, "price", float, "$.outcome.offer", nullable=True)
        if price is not None:
            _check_offer_price(price, "$.outcome.offer.price", checker)


def _check_events(events: list[Any], checker: Checker) -> None:
    offer_open = False
    for index, event in enumerate(events):
        path = f"$.events[{index}]"
        if not isinstance(event, Mapping):
            checker.fail(path, f"expected an object, got {json_type(event)}")
            continue
        action = checker.require(event, "action", str, path)
        if action is not None and action not in ACTIONS:
            checker.fail(f"{path}.action", f"unknown action {action!r}; expected one of {', '.join(ACTIONS)}")
            action = None
        agent = checker.require(event, "agent", int, path)
        if agent is not None and agent not in (0, 1):
            checker.fail(f"{path}.agent", f"expected 0 or 1 (the index of an agent), got {agent!r}")
        if "time" not in event:
            checker.fail(f"{path}.time", "missing field")
        else:
            _check_time(event["time"], f"{path}.time", checker)
        if "start_time" in event:
            _check_time(event["start_time"], f"{path}.start_time", checker)
        if "data" not in event:
            checker.fail(f"{path}.data", "missing field")
        elif action == "message" and not isinstance(event["data"], str):
            checker.fail(f"{path}.data", f"a message's data must be its text (a string), got {json_type(event['data'])}")
        elif action == "offer":
            data = event["data"]
            if not isinstance(data, Mapping):
                checker.fail(f"{path}.data", f"an offer's data must be an object {{price, sides}}, got {json_type(data)}")
            elif "price" not in data:
                checker.fail(f"{path}.data.price", "missing field")
            else:
                _check_offer_price(data["price"], f"{path}.data.price", checker)
        if "metadata" in event:
            _check_metadata(event["metadata"], f"{path}.metadata", checker)
        if action == "offer":
            offer_open = True
        elif action == "reject":
            offer_open = False
        elif action == "accept" and not offer_open:
            checker.warn(f"{path}.action", "accept with no offer on the table (no offer since the start or since the last reject)", "accept-without-offer")


def _check_metadata(metadata: Any, path: str, checker: Checker) -> None:
    if metadata is None:
        return
    if not isinstance(metadata, Mapping):
        checker.fail(path, f"expected an object {{intent, price}} or null, got {json_type(metadata)}")
        return
    checker.optional(metadata, "intent", str, path)
    checker.optional(metadata, "price", float, path)


# ====================================================================== CoCoA shape: the quick check



def _finite(value: Any) -> TypeGuard[int | float]:
    """An int or a finite float (not a boolean); an int too large for a float is not, as in `check`."""
    kind = type(value)
    if kind is float:
        return math.isfinite(value)
    return kind is int and -_FLOAT_LIMIT < value < _FLOAT_LIMIT


_FLOAT_LIMIT = 2**1024
"""Integers from here on overflow a float (`float(2**1024)` raises)."""


def _number_or_none(value: Any) -> bool:
    """What `Checker.require(..., float, nullable=True)` accepts, NaN included (exact types only)."""
    return value is None or type(value) is int or type(value) is float


def _quick_time(value: Any) -> bool:
    if value is None:
        return True
    if type(value) is str:
        return math.isfinite(float(value))  # a ValueError (not a number) ends the quick pass
    return _finite(value)


def _quick_offer_price(value: Any) -> bool:
    return value is None or (_finite(value) and value > 0)


def _quick_cocoa(record: dict) -> bool:
    if type(record.get("uuid")) is not str:
        return False
    if record.get("scenario_uuid") is not None and type(record["scenario_uuid"]) is not str:
        return False
    agents = record.get("agents")
    if type(agents) is not dict or len(agents) != 2 or "0" not in agents or "1" not in agents:
        return False
    for kind in agents.values():
        if type(kind) is not str:
            return False
    scenario = record.get("scenario")
    if type(scenario) is not dict or not _quick_scenario(scenario) or "outcome" not in record:
        return False
    outcome = record["outcome"]
    if outcome is not None:
        if type(outcome) is not dict or not _number_or_none(outcome.get("reward")):
            return False
        offer = outcome.get("offer")
        if offer is not None and (type(offer) is not dict or "price" not in offer or not _quick_offer_price(offer["price"])):
            return False
    events = record.get("events")
    if type(events) is not list:
        return False
    offer_open = False
    for event in events:
        if type(event) is not dict:
            return False
        action = event.get("action")
        agent = event.get("agent")
        if type(action) is not str or action not in ACTIONS or type(agent) is not int or agent not in (0, 1):
            return False
        if "time" not in event or not _quick_time(event["time"]) or not _quick_time(event.get("start_time")) or "data" not in event:
            return False
        data = event["data"]
        if action == "message":
            if type(data) is not str:
                return False
        elif action == "offer":
            if type(data) is not dict or "price" not in data or not _quick_offer_price(data["price"]):
                return False
            offer_open = True
        elif action == "reject":
            offer_open = False
        elif action == "accept" and not offer_open:
            return False
        metadata = event.get("metadata")
        if metadata is not None:
            if type(metadata) is not dict:
                return False
            intent = metadata.get("intent")
            if (intent is not None and type(intent) is not str) or not _number_or_none(metadata.get("price")):
                return False
    return True


def _quick_scenario(scenario: dict) -> bool:
    if type(scenario.get("uuid")) is not str:
        return False
    category, post_id, attributes = scenario.get("category"), scenario.get("post_id"), scenario.get("attributes")
    if (category is not None and type(category) is not str) or (attributes is not None and type(attributes) is not list):
        return False
    if post_id is not None and type(post_id) is not str and type(post_id) is not int:
        return False
    kbs = scenario.get("kbs")
    if type(kbs) is not list or len(kbs) != 2:
        return False
    roles = []
    for kb in kbs:
        if type(kb) is not dict:
            return False
        personal, item = kb.get("personal"), kb.get("item")
        if type(personal) is not dict or type(item) is not dict:
            return False
        role = personal.get("Role")
        target = personal.get("Target")
        if type(role) is not str or role not in ROLES or not _finite(target) or target < 0 or not _number_or_none(personal.get("Bottomline")):
            return False
        roles.append(role)
        price = item.get("Price")
        if type(item.get("Category")) is not str or type(item.get("Title")) is not str or "Price" not in item or not _number_or_none(price) or (price is not None and price < 0):
            return False
        for key in ("Description", "Images"):
            lines = item.get(key)
            if type(lines) is not list:
                return False
            for line in lines:
                if type(line) is not str:
                    return False
    return roles[0] != roles[1]


# ====================================================================== CoCoA shape: reading


def _cocoa_to_dialogue(record: Mapping[str, Any], *, file: str | None, index: int | None, split: str | None) -> Dialogue:
    # `check` passed, so every value already has its schema type: the models are built without
    # validating them again (`model_builder`). Whatever the dialogue keeps of the record is copied
    # (`_copy_json`): the dialogue must not share lists or objects with the caller's record.
    extra: dict[str, Any] = {}
    key_order: dict[str, list[str]] = {}
    fields: dict[str, dict[str, Any]] = {}

    def remember(native: Mapping[str, Any], known: Sequence[str], where: str) -> None:
        order, unknown = _layout(native, known)
        if order is not None:
            key_order[where] = order
        if unknown:
            fields[where] = _copy_json(unknown)

    remember(record, RECORD_KEYS, "record")
    scenario = record["scenario"]
    remember(scenario, SCENARIO_KEYS, "scenario")

    agents = record["agents"]
    parties: list[Party] = []
    private: dict[str, dict[str, Any]] = {}
    for agent_index, kb in enumerate(scenario["kbs"]):
        party_id = str(agent_index)
        remember(kb, KB_KEYS, f"kbs[{agent_index}]")
        personal, item = kb["personal"], kb["item"]
        view = _view(
            personal["Role"], personal["Target"], personal.get("Bottomline"),
            item["Category"], list(item["Images"]), item["Price"], list(item["Description"]), item["Title"],
        )  # `check` made the Images and Description lines strings, so copying the lists copies them whole
        private[party_id] = view
        if not _same(personal, _personal_of(view)):
            extra.setdefault("personal", {})[party_id] = _copy_json(personal)
        if not _same(item, _item_of(view, {})):
            extra.setdefault("item", {})[party_id] = _copy_json(item)
        kind = agents.get(party_id)
        human = kind == "human"
        parties.append(_PARTY(id=party_id, kind="human" if human else "bot", agent=None if human else kind, role=personal["Role"]))
    if not _same(agents, _agents_of(parties)):
        extra["agents"] = _copy_json(agents)
    if "attributes" in scenario and not _same(scenario["attributes"], DEFAULT_ATTRIBUTES):
        extra["attributes"] = _copy_json(scenario["attributes"])
    if record.get("agents_info") is not None:
        extra["agents_info"] = _copy_json(record["agents_info"])
    if "scenario_uuid" in record and record["scenario_uuid"] != scenario["uuid"]:
        extra["scenario_uuid"] = record["scenario_uuid"]

    public = {k: scenario[k] for k in ("category", "post_id") if k in scenario}
    public.update({k: v for k, v in _public(private).items() if k not in public})

    events, annotations, event_order = _cocoa_events(record["events"])
    if event_order is not None:
        key_order["events"] = event_order
    if key_order:
        extra["key_order"] = key_order
    if fields:
        extra["fields"] = fields

    outcome = _build_outcome(events, private)
    dialogue = _DIALOGUE(
        id=record["uuid"],
        task="craigslist",
        split=split,
        scenario=_SCENARIO(id=scenario["uuid"], public=public, private=private),
        parties=parties,
        events=events,
        outcome=outcome,
        annotations=annotations,
        source=_SOURCE(corpus="craigslist", shape="cocoa", file=file, index=index, extra=extra),
    )
    native_outcome = record["outcome"]
    if not _same(native_outcome, _cocoa_outcome(dialogue)):
        outcome.extra["native"] = _copy_json(native_outcome)
    return dialogue


_EVENT_KEY_SET = frozenset(EVENT_KEYS)

# Builders of models from checked values (no second validation): see `model_builder`.
_DIALOGUE = model_builder(Dialogue, "id", "task", "split", "scenario", "parties", "events", "outcome", "annotations", "source")
_SCENARIO = model_builder(Scenario, "id", "public", "private")
_SOURCE = model_builder(Source, "corpus", "shape", "file", "index", "extra")
_PARTY = model_builder(Party, "id", "kind", "agent", "role")
_NO_DEAL = model_builder(Outcome, "reason", "agreed")
_DEAL = model_builder(Outcome, "reason", "agreed", "deal", "scores")
_MESSAGE = model_builder(Message, "party", "time", "extra", "text")
_OFFER = model_builder(Offer, "party", "time", "extra", "price", "sides")
_ANSWER_EVENTS = {action: model_builder(kind, "party", "time", "extra") for action, kind in (("accept", Accept), ("reject", Reject), ("quit", Quit))}
_INTENT = model_builder(Annotation, "event", "layer", "labels", "source")
_PRICE = model_builder(Annotation, "event", "layer", "value", "source")


def _cocoa_events(natives: list[Mapping[str, Any]]) -> tuple[list[Event], list[Annotation], list[str] | None]:
    """Typed events, parser annotations, and the key order most events share (None if it is the writer's)."""
    orders = Counter(tuple(native) for native in natives)
    common = list(orders.most_common(1)[0][0]) if orders else list(EVENT_KEYS)
    events: list[Event] = []
    annotations: list[Annotation] = []
    for index, native in enumerate(natives):
        extra: dict[str, Any] = {}
        native_time = native.get("time")
        time = _time_value(native_time)
        if not (native_time == repr(time) if type(native_time) is str else _same(native_time, _time_text(time))):
            extra["time"] = native_time  # the writer spells a time `repr(float)`: keep any other spelling
        if native.get("start_time") is not None:
            extra["start_time"] = native["start_time"]
        keys = list(native)
        if keys != common:
            extra["key_order"] = keys
        if not _EVENT_KEY_SET.issuperset(keys):
            extra["fields"] = _copy_json({k: v for k, v in native.items() if k not in EVENT_KEYS})
        party = str(native["agent"])
        action, data = native["action"], native["data"]
        if action == "offer":
            price, sides = data["price"], _copy_json(data.get("sides"))
            if type(price) is int:
                price = float(price)  # what validating `price: float | None` gives
            if not _same(data, {"price": price, "sides": "" if sides is None else sides}):  # what `_offer_data` writes
                extra["data"] = _copy_json(data)
        elif action != "message" and data is not None:
            extra["data"] = _copy_json(data)
        if "metadata" in native:
            metadata = native["metadata"]
            if type(metadata) is dict:  # the parsed releases: {intent, price} on every event
                intent, priced = metadata.get("intent"), "price" in metadata
                labelled = isinstance(intent, str)
                if labelled:
                    annotations.append(_INTENT(index, "intent", [intent], PARSER_SOURCE))
                if priced:
                    annotations.append(_PRICE(index, "price", metadata["price"], PARSER_SOURCE))
                # the same keys in the same order as `_metadata_of` writes hold the very values read: equal
                written_back = list(metadata) == _WRITTEN_METADATA_KEYS[labelled, priced] or _same(metadata, _metadata_of(_layers(annotations, labelled, priced)))
            else:
                labels = _parser_annotations(index, metadata)
                annotations.extend(labels)
                written_back = metadata is None and not labels or _same(metadata, _metadata_of({a.layer: a for a in labels}))
            if not written_back:
                extra["metadata"] = _copy_json(metadata)
        if action == "message":
            events.append(_MESSAGE(party, time, extra, data))
        elif action == "offer":
            events.append(_OFFER(party, time, extra, price, sides))
        else:
            events.append(_ANSWER_EVENTS[action](party, time, extra))
    return events, annotations, (None if common == list(EVENT_KEYS) else common)


_WRITTEN_METADATA_KEYS: dict[tuple[bool, bool], list[str] | None] = {
    (True, True): ["intent", "price"],
    (True, False): ["intent"],
    (False, True): ["price"],
    (False, False): None,  # no labels: the writer writes null
}
"""(has an intent label, has a price label) -> the keys `_metadata_of` writes, in its order."""


def _layers(annotations: list[Annotation], labelled: bool, priced: bool) -> dict[str, Annotation]:
    """Layer -> annotation of the event just read (its labels are the last ones appended)."""
    mine = annotations[len(annotations) - labelled - priced :] if labelled or priced else []
    return {a.layer: a for a in mine}


def _parser_annotations(index: int, metadata: Any) -> list[Annotation]:
    if not isinstance(metadata, dict) and not isinstance(metadata, Mapping):
        return []
    found = []
    if isinstance(metadata.get("intent"), str):
        found.append(_INTENT(index, "intent", [metadata["intent"]], PARSER_SOURCE))
    if "price" in metadata:
        found.append(_PRICE(index, "price", metadata["price"], PARSER_SOURCE))
    return found


# ====================================================================== CoCoA shape: writing


def _personal_of(view: Mapping[str, Any]) -> dict[str, Any]:
    return {"Bottomline": view.get("bottomline"), "Role": view.get("role"), "Target": view.get("target")}


def _item_of(view: Mapping[str, Any], public: Mapping[str, Any]) -> dict[str, Any]:
    """A native item from a party's view, falling back on the public listing for what the view lacks."""
    item = view.get("item") or {}
    return {
        "Category": item.get("category", public.get("category")),
        "Images": item.get("images", []),
        "Price": item.get("price", public.get("listing_price")),
        "Description": item.get("description", []),
        "Title": item.get("title", public.get("title")),
    }


def _agents_of(parties: Sequence[Party]) -> dict[str, str]:
    return {str(i): "human" if p.kind == "human" else (p.agent or "bot") for i, p in enumerate(parties)}


def _offer_data(offer: Offer) -> dict[str, Any]:
    """An offer event's native data: as read, or `{price, sides}` with CoCoA's empty sides."""
    if "data" in offer.extra:
        return offer.extra["data"]
    return {"price": offer.price, "sides": "" if offer.sides is None else offer.sides}


def _metadata_of(layers: Mapping[str, Annotation]) -> dict[str, Any] | None:
    """CoCoA's `metadata` from an event's intent / price annotations (null when it has none)."""
    if not layers:
        return None
    metadata: dict[str, Any] = {}
    if "intent" in layers:
        labels = layers["intent"].labels
        metadata["intent"] = labels[0] if labels else None
    if "price" in layers:
        metadata["price"] = layers["price"].value
    return metadata


def _cocoa_outcome(dialogue: Dialogue) -> dict[str, Any] | None:
    """CoCoA's outcome: reward 1 and the accepted offer on a deal; else reward 0 and the rejected offer."""
    if dialogue.outcome is not None and "native" in dialogue.outcome.extra:
        return dialogue.outcome.extra["native"]
    accepted, rejected = _settle(dialogue.events)
    agreed = dialogue.outcome.agreed if dialogue.outcome is not None and dialogue.outcome.agreed is not None else accepted is not None
    offer: dict[str, Any] | None = None
    if agreed and accepted is not None:
        offer = _offer_data(accepted)
    elif agreed and dialogue.outcome is not None and dialogue.outcome.deal and "price" in dialogue.outcome.deal:
        offer = {"price": dialogue.outcome.deal["price"], "sides": dialogue.outcome.deal.get("sides", "")}
    elif not agreed and rejected is not None:
        offer = _offer_data(rejected)
    return {"reward": 1 if agreed else 0, "offer": offer}


def to_cocoa_record(dialogue: Dialogue) -> dict[str, Any]:
    """The dialogue as a CoCoA event record: exactly the native record when it was read from one."""
    extra = dialogue.source.extra
    key_order: Mapping[str, list[str]] = extra.get("key_order", {})
    fields: Mapping[str, dict[str, Any]] = extra.get("fields", {})
    order = _agent_order(dialogue)
    public = dialogue.scenario.public

    kbs = []
    for agent_index, party in enumerate(order):
        view = dict(dialogue.scenario.private.get(party.id, {}))
        view.setdefault("role", party.role)
        personal = extra.get("personal", {}).get(party.id, _personal_of(view))
        item = extra.get("item", {}).get(party.id, _item_of(view, public))
        where = f"kbs[{agent_index}]"
        kbs.append(_arrange({"personal": personal, "item": item}, KB_KEYS, key_order.get(where), fields.get(where, {})))

    scenario_uuid = dialogue.scenario.id if dialogue.scenario.id is not None else dialogue.id
    scenario = _arrange(
        {
            "category": public.get("category"),
            "attributes": extra.get("attributes", DEFAULT_ATTRIBUTES),
            "post_id": public.get("post_id"),
            "uuid": scenario_uuid,
            "kbs": kbs,
        },
        SCENARIO_KEYS, key_order.get("scenario"), fields.get("scenario", {}),
    )
    return _arrange(
        {
            "uuid": dialogue.id,
            "scenario": scenario,
            "agents_info": extra.get("agents_info"),
            "scenario_uuid": extra.get("scenario_uuid", scenario_uuid),
            "agents": extra.get("agents", _agents_of(order)),
            "outcome": _cocoa_outcome(dialogue),
            "events": _cocoa_native_events(dialogue, order, key_order.get("events")),
        },
        RECORD_KEYS, key_order.get("record"), fields.get("record", {}),
    )


def _cocoa_native_events(dialogue: Dialogue, order: Sequence[Party], common: list[str] | None) -> list[dict[str, Any]]:
    labels = _labels_by_event(dialogue)
    natives = []
    for index, event in _writable_events(dialogue):
        extra = event.extra
        if isinstance(event, Message):
            data: Any = event.text
        elif isinstance(event, Offer):
            data = _offer_data(event)
        else:
            data = extra.get("data")
        values = {
            "start_time": extra.get("start_time"),
            "agent": _agent_index(event.party, order, f"dialogue {dialogue.id} events[{index}]"),
            "time": extra["time"] if "time" in extra else _time_text(event.time),
            "action": event.kind,
            "data": data,
            "metadata": extra["metadata"] if "metadata" in extra else _metadata_of(labels.get(index, {})),
        }
        natives.append(_arrange(values, EVENT_KEYS, extra.get("key_order", common), extra.get("fields", {})))
    return natives


# ====================================================================== HF shape: checks


def _check_hf(record: Mapping[str, Any], checker: Checker) -> None:
    info = checker.require(record, "agent_info", dict, "$")
    roles: list[str] = []
    if info is not None:
        for key, kind in (("Bottomline", str), ("Role", str), ("Target", float)):
            values = _check_hf_column(info, key, kind, "$.agent_info", checker, length=2, what="agents")
            if key == "Target":
                _warn_negative_prices(values, "$.agent_info.Target", "target price", checker)
            if key == "Role":
                for index, role in enumerate(values):
                    if role in ROLES:
                        roles.append(role)
                    elif isinstance(role, str):
                        checker.fail(f"$.agent_info.Role[{index}]", f"expected 'buyer' or 'seller', got {role!r}")
        _check_roles(roles, "$.agent_info.Role", checker)
    items = checker.require(record, "items", dict, "$")
    if items is not None:
        for key in ITEM_KEYS:
            values = _check_hf_column(items, key, float if key == "Price" else str, "$.items", checker, length=2, what="agents")
            if key == "Price":
                _warn_negative_prices(values, "$.items.Price", "listing price", checker)
    turns = checker.require(record, "agent_turn", list, "$")
    for index, agent in enumerate(turns or []):
        if isinstance(agent, bool) or not isinstance(agent, int):
            checker.fail(f"$.agent_turn[{index}]", f"expected an agent index (integer), got {json_type(agent)}")
        elif agent not in (0, 1, -1):
            checker.fail(f"$.agent_turn[{index}]", f"expected 0 or 1 (the index of an agent; -1 when unknown), got {agent}")
    count = len(turns) if turns is not None else None
    utterances = _check_hf_column(record, "utterance", str, "$", checker, length=count, what="turns")
    acts = checker.require(record, "dialogue_acts", dict, "$")
    intents: list[Any] = []
    prices: list[Any] = []
    if acts is not None:
        intents = _check_hf_column(acts, "intent", str, "$.dialogue_acts", checker, length=count, what="turns")
        prices = _check_hf_column(acts, "price", float, "$.dialogue_acts", checker, length=count, what="turns")
    offer_open = False
    for index, (text, intent) in enumerate(zip(utterances, intents, strict=False)):  # lengths may differ here
        if text != "" or intent not in META_ACTIONS:
            continue
        if intent == "offer":
            offer_open = True
            price = prices[index] if index < len(prices) else None
            if _is_number(price) and price != HF_MISSING_PRICE and price <= 0:
                checker.fail(f"$.dialogue_acts.price[{index}]", f"an offer's price must be a positive number (or -1 when missing), got {price!r}")
        elif intent == "reject":
            offer_open = False
        elif intent == "accept" and not offer_open:
            checker.warn(f"$.dialogue_acts.intent[{index}]", "accept with no offer on the table (no offer since the start or since the last reject)", "accept-without-offer")


def _warn_negative_prices(values: list[Any], path: str, what: str, checker: Checker) -> None:
    """Flag negative prices in an HF column; -1 is the loader's mark for a missing value, not a price."""
    for index, value in enumerate(values):
        if _is_number(value) and value < 0 and value != HF_MISSING_PRICE:
            checker.warn(f"{path}[{index}]", f"a negative {what} {value!r}", "negative-price")


def _check_hf_column(parent: Mapping[str, Any], key: str, kind: type, path: str, checker: Checker, *, length: int | None, what: str) -> list[Any]:
    """Check one list column and its elements; return it (empty when unusable)."""
    values = checker.require(parent, key, list, path)
    if values is None:
        return []
    here = f"{path}.{key}"
    if length is not None and len(values) != length:
        checker.fail(here, f"expected {length} entries (one per {what[:-1]}), got {len(values)}")
    for index, value in enumerate(values):
        if kind is float and not _is_number(value):
            checker.fail(f"{here}[{index}]", f"expected a number, got {json_type(value)}")
        elif kind is str and not isinstance(value, str):
            checker.fail(f"{here}[{index}]", f"expected a string, got {json_type(value)}")
    return values


# ====================================================================== HF shape: reading


def _hf_text_value(text: str) -> Any:
    """A Bottomline the loader turned into text: `"None"` -> None, numbers back to numbers, else the text."""
    if text == "None":
        return None
    for parse in (int, float):
        try:
            value = parse(text)
        except ValueError:
            continue
        if str(value) == text:
            return value
    return text


def _hf_split(text: str) -> list[str]:
    return text.split(HF_JOIN) if text else []


def _hf_to_dialogue(record: Mapping[str, Any], *, file: str | None, index: int | None, split: str | None) -> Dialogue:
    record = copy.deepcopy(record)
    info, items = record["agent_info"], record["items"]
    private: dict[str, dict[str, Any]] = {}
    parties: list[Party] = []
    for agent_index in range(2):
        party_id = str(agent_index)
        price = items["Price"][agent_index]
        description = items["Description"][agent_index]
        private[party_id] = _view(
            info["Role"][agent_index], info["Target"][agent_index], _hf_text_value(info["Bottomline"][agent_index]),
            items["Category"][agent_index], _hf_split(items["Images"][agent_index]),
            None if price == HF_MISSING_PRICE else price,
            [description] if description else [],  # the loader joined the lines with ","; the split points are lost
            items["Title"][agent_index],
        )
        parties.append(Party(id=party_id, kind="human", role=info["Role"][agent_index]))

    events: list[Event] = []
    annotations: list[Annotation] = []
    acts = record["dialogue_acts"]
    for turn, (agent, text, intent, price) in enumerate(zip(record["agent_turn"], record["utterance"], acts["intent"], acts["price"], strict=True)):
        party = None if agent == -1 else str(agent)
        value = None if price == HF_MISSING_PRICE else price
        if text == "" and intent == "offer":
            events.append(Offer(party=party, price=value))
        elif text == "" and intent in ("accept", "reject", "quit"):
            events.append({"accept": Accept, "reject": Reject, "quit": Quit}[intent](party=party))
        else:
            events.append(Message(party=party, text=text))
        if intent != "":
            annotations.append(Annotation(event=turn, layer="intent", labels=[intent], source=PARSER_SOURCE))
        if value is not None:
            annotations.append(Annotation(event=turn, layer="price", value=value, source=PARSER_SOURCE))

    labelled = any(intent != "" for intent in acts["intent"])
    outcome = _build_outcome(events, private) if labelled else Outcome(reason="unknown", agreed=None)
    digest = hashlib.sha1(json.dumps(record, sort_keys=True, ensure_ascii=False).encode("utf-8")).hexdigest()[:16]
    dialogue = Dialogue(
        id=f"hf-{digest}",
        task="craigslist",
        split=split,
        scenario=Scenario(public=_public(private), private=private),
        parties=parties,
        events=events,
        outcome=outcome,
        annotations=annotations,
        source=Source(corpus="craigslist", shape="hf", file=file, index=index),
    )
    extra: dict[str, Any] = {}
    order, unknown = _layout(record, HF_KEYS)
    if order is not None:
        extra["hf_key_order"] = order
    if unknown:
        extra["hf_fields"] = unknown
    written = _hf_columns(dialogue)
    differing = {key: record[key] for key in HF_KEYS if not _same(record[key], written[key])}
    if differing:
        extra["hf_columns"] = differing  # e.g. integers where the loader writes floats
    dialogue.source.extra = extra
    return dialogue


# ====================================================================== HF shape: writing


def _hf_price(value: Any) -> float:
    """The loader's price: a float, with -1.0 for a missing (or zero) price."""
    return float(value) if _is_number(value) and value != 0 else HF_MISSING_PRICE


def _hf_text(value: Any) -> str:
    if value is None:
        return "None"
    return value if isinstance(value, str) else str(value)


def _hf_columns(dialogue: Dialogue) -> dict[str, Any]:
    """The five loader columns computed from the dialogue alone (no kept native values)."""
    order = _agent_order(dialogue)
    public = dialogue.scenario.public
    views = [dialogue.scenario.private.get(p.id, {}) for p in order]
    items = [_item_of(view, public) for view in views]
    labels = _labels_by_event(dialogue)
    turns: list[int] = []
    utterances: list[str] = []
    intents: list[str] = []
    prices: list[float] = []
    for index, event in _writable_events(dialogue):
        layers = labels.get(index, {})
        turns.append(-1 if event.party is None else _agent_index(event.party, order, f"dialogue {dialogue.id} events[{index}]"))
        utterances.append(event.text if isinstance(event, Message) else "")
        if isinstance(event, Message):
            intent_labels = layers["intent"].labels if "intent" in layers else []
            intents.append(intent_labels[0] if intent_labels and intent_labels[0] else "")
        else:
            intents.append(event.kind)
        price = layers["price"].value if "price" in layers else None
        if price is None and isinstance(event, Offer):
            price = event.price
        prices.append(_hf_price(price))
    target = [v.get("target") for v in views]
    return {
        "agent_info": {
            "Bottomline": [_hf_text(v.get("bottomline")) for v in views],
            "Role": [v.get("role", p.role) for v, p in zip(views, order, strict=True)],
            "Target": [float(t) if _is_number(t) else t for t in target],
        },
        "agent_turn": turns,
        "dialogue_acts": {"intent": intents, "price": prices},
        "utterance": utterances,
        "items": {
            "Category": [item["Category"] or "" for item in items],
            "Images": [HF_JOIN.join(item["Images"] or []) for item in items],
            "Price": [_hf_price(item["Price"]) for item in items],
            "Description": [HF_JOIN.join(item["Description"] or []) for item in items],
            "Title": [item["Title"] or "" for item in items],
        },
    }


def to_hf_record(dialogue: Dialogue) -> dict[str, Any]:
    """The dialogue as a Hugging Face `craigslist_bargains` row: exactly the row when it was read from one."""
    extra = dialogue.source.extra
    columns = {**_hf_columns(dialogue), **extra.get("hf_columns", {})}
    return _arrange(columns, HF_KEYS, extra.get("hf_key_order"), extra.get("hf_fields", {}))

"""The MutualFriends corpus (He et al., ACL 2017) in its two native shapes, read and written losslessly.

**CoCoA shape** (`Source.shape == "cocoa"`): the original release, a JSON array of records in
Stanford CoCoA's event format, the same envelope as CraigslistBargains::

    {"uuid": "C_...",
     "scenario": {"uuid": "S_...", "alphas": [0.3, 1.0, 3.0],
                  "attributes": [{"name": "School", "value_type": "school", "unique": false,
                                  "multivalued": false, "entity": true}, ...],
                  "kbs": [[{"School": "...", "Company": "...", ...}, ...],    # party 0's friends
                          [{...}, ...]]},                                    # party 1's friends
     "agents_info": null, "scenario_uuid": "S_...",                          # optional
     "agents": {"0": "human", "1": "human"},
     "outcome": {"reward": 1},
     "events": [{"start_time": null, "agent": 0, "time": "1480737280.96",
                 "action": "message", "data": "do you know anyone at molycorp?"},
                {"start_time": null, "agent": 1, "time": "1480737301.2",
                 "action": "select", "data": {"School": "...", ...}}, ...]}

`alphas` (one Dirichlet concentration per attribute) may be absent in older files; `time` is a
string of seconds since the epoch (a number is accepted too).

**Hugging Face shape** (`Source.shape == "hf"`): the rows of the `mutual_friends` dataset
(`stanfordnlp/mutual_friends`; loader `datasets/mutual_friends/mutual_friends.py` in
huggingface/datasets), as its card's example shows them and as its parquet files hold them.
Lists of records are stored column-wise::

    {"uuid": str, "scenario_uuid": str, "scenario_alphas": [float32],
     "scenario_attributes": {"unique": [bool], "value_type": [str], "name": [str]},
     "scenario_kbs": [[[ [attribute names], [values] ], ...],   # party 0: one pair per friend
                      [[ [attribute names], [values] ], ...]],  # party 1
     "agents": {"1": str, "0": str},
     "outcome_reward": int32,
     "events": {"actions": [str], "start_times": [float32], "data_messages": [str],
                "data_selects": {"attributes": [[str]], "values": [[str]]},
                "agents": [int32], "times": [float32]}}

A message event has an empty selection (`[]`, `[]`) and a select event an empty message `""`;
`start_times` are -1 (the original has none). The loader drops the attributes' `multivalued` and
`entity` flags and keeps times as float32, so only a HF-shape record can be given back exactly
in the HF shape.

In duologue's schema the parties are `"0"` and `"1"`, `scenario.public` holds `attributes` (as a
list of attribute objects) and `alphas`, and `scenario.private[party]["friends"]` that party's
list. The outcome is judged by the task's rules: success when both parties' latest selections are
the mutual friend; the corpus's own `reward` is kept in `Outcome.extra["reward"]`.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any, Iterable, Literal, Mapping

from duologue.core.schema import Dialogue, Message, Outcome, Party, Scenario, Select, Source, SystemNote
from duologue.data.formats import Checker, CorpusFormat, Problem, json_type, model_builder
from duologue.tasks.mutualfriends import rules

Shape = Literal["cocoa", "hf"]
SHAPES: tuple[str, ...] = ("cocoa", "hf")
ACTIONS: tuple[str, ...] = ("message", "select")
PARTY_IDS: tuple[str, ...] = ("0", "1")

COCOA_RECORD_ORDER: tuple[str, ...] = ("uuid", "scenario", "agents_info", "scenario_uuid", "agents", "outcome", "events")
COCOA_SCENARIO_KEYS: tuple[str, ...] = ("uuid", "alphas", "attributes", "kbs")
COCOA_EVENT_KEYS: tuple[str, ...] = ("start_time", "agent", "time", "action", "data")
HF_RECORD_KEYS: tuple[str, ...] = ("uuid", "scenario_uuid", "scenario_alphas", "scenario_attributes", "scenario_kbs", "agents", "outcome_reward", "events")
HF_ATTRIBUTE_COLUMNS: tuple[str, ...] = ("unique", "value_type", "name")
HF_EVENT_COLUMNS: tuple[str, ...] = ("actions", "start_times", "data_messages", "data_selects", "agents", "times")
HF_NO_START_TIME = -1.0
"""What the HF loader writes for a missing start time."""

_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _is_object(value: Any) -> bool:
    """`isinstance(value, Mapping)`, answered at once for the dicts JSON gives (the ABC check is slow)."""
    return isinstance(value, dict) or isinstance(value, Mapping)


def _all_strings(values: Iterable[Any]) -> bool:
    return all(type(value) is str for value in values)


def key_path(path: str, key: str) -> str:
    """JSON path of `key` under `path`: `$.a.b`, or `$.a['Time Preference']` for names with spaces."""
    return f"{path}.{key}" if _IDENTIFIER.match(key) else f"{path}[{key!r}]"


def shape_of(record: Any) -> Shape:
    """Which native shape a record has: HF rows keep events column-wise, CoCoA records as a list."""
    if _is_object(record) and ("scenario_kbs" in record or _is_object(record.get("events"))):
        return "hf"
    return "cocoa"


# --------------------------------------------------------------------------- times


def seconds(raw: Any) -> float | None:
    """A native time (number or numeric string) as seconds, or None when it is not one."""
    if raw is None or isinstance(raw, bool):
        return None
    if isinstance(raw, (int, float)):
        value = float(raw)
    elif isinstance(raw, str):
        try:
            value = float(raw)
        except ValueError:
            return None
    else:
        return None
    return value if math.isfinite(value) else None


def cocoa_time_text(value: float | None) -> str | None:
    """A time written the way CoCoA (Python 2's `str(float)`) wrote it: 12 significant digits."""
    if value is None:
        return None
    text = format(value, ".12g")
    if not any(ch in text for ch in ".en"):
        text += ".0"
    return text


def _identical(a: Any, b: Any) -> bool:
    """JSON identity: same type and value (1 and 1.0 differ)."""
    return type(a) is type(b) and a == b


# Builders of models from checked values (no second validation): see `model_builder`.
_DIALOGUE = model_builder(Dialogue, "id", "task", "split", "scenario", "parties", "events", "outcome", "source")
_SCENARIO = model_builder(Scenario, "id", "public", "private")
_SOURCE = model_builder(Source, "corpus", "shape", "file", "index", "extra")
_HUMAN = model_builder(Party, "id", "kind")
_BOT = model_builder(Party, "id", "kind", "agent")
_OUTCOME = model_builder(Outcome, "reason", "agreed", "deal", "scores", "extra")
_MESSAGE = model_builder(Message, "party", "time", "text", "extra")
_SELECT = model_builder(Select, "party", "time", "item", "extra")


# --------------------------------------------------------------------------- the quick check
# Each helper returns what the rules need when its part is sound, else None (unsure).


def _finite_number(value: Any) -> bool:
    return type(value) in (int, float) and math.isfinite(value)


def _quick_time(raw: Any, *, numeric_only: bool) -> bool:
    if raw is None:
        return True
    if type(raw) is str:
        return not numeric_only and seconds(raw) is not None
    return _finite_number(raw)


def _quick_agents(agents: Any) -> bool:
    return type(agents) is dict and agents.keys() == {"0", "1"} and type(agents["0"]) is str and type(agents["1"]) is str


def _quick_cocoa_scenario(record: dict[str, Any]) -> tuple[list[str], list[Any] | None, list[list[dict[str, Any]]]] | None:
    scenario, outcome = record.get("scenario"), record.get("outcome")
    if type(record.get("uuid")) is not str or ("scenario_uuid" in record and type(record["scenario_uuid"]) is not str):
        return None
    if type(scenario) is not dict or type(scenario.get("uuid")) is not str or type(outcome) is not dict or not _finite_number(outcome.get("reward")):
        return None
    alphas = scenario.get("alphas")
    attributes, kbs = scenario.get("attributes"), scenario.get("kbs")
    if ("alphas" in scenario and type(alphas) is not list) or type(attributes) is not list or type(kbs) is not list or len(kbs) != 2:
        return None
    names = []
    for attribute in attributes:
        if type(attribute) is not dict or type(attribute.get("name")) is not str or type(attribute.get("value_type")) is not str:
            return None
        if any(flag in attribute and type(attribute[flag]) is not bool for flag in ("unique", "multivalued", "entity")):
            return None
        names.append(attribute["name"])
    if len(set(names)) != len(names):
        return None
    for kb in kbs:
        if type(kb) is not list or not all(type(friend) is dict and _all_strings(friend.values()) for friend in kb):
            return None
    return names, alphas, kbs


def _quick_cocoa_events(events: Any) -> list[tuple[int, dict[str, Any]]] | None:
    if type(events) is not list:
        return None
    selections = []
    for event in events:
        if type(event) is not dict or "data" not in event or "time" not in event:
            return None
        agent, action, data = event.get("agent"), event.get("action"), event["data"]
        if type(agent) is not int or agent not in (0, 1) or not _quick_time(event["time"], numeric_only=False):
            return None
        if "start_time" in event and not _quick_time(event["start_time"], numeric_only=False):
            return None
        if action == "message":
            if type(data) is not str:
                return None
        elif action == "select" and type(data) is dict and _all_strings(data.values()):
            selections.append((agent, data))
        else:
            return None
    return selections


def _quick_pair(names: Any, values: Any) -> dict[str, Any] | None:
    if type(names) is not list or type(values) is not list or len(names) != len(values) or not _all_strings(names) or not _all_strings(values):
        return None
    friend = dict(zip(names, values, strict=True))  # lengths checked above
    return friend if len(friend) == len(names) else None


def _quick_hf_scenario(record: dict[str, Any]) -> tuple[list[str], list[Any] | None, list[list[dict[str, Any]]]] | None:
    if type(record.get("uuid")) is not str or type(record.get("scenario_uuid")) is not str or not _finite_number(record.get("outcome_reward")):
        return None
    alphas, columns, kbs = record.get("scenario_alphas"), record.get("scenario_attributes"), record.get("scenario_kbs")
    if type(alphas) is not list or type(columns) is not dict or type(kbs) is not list or len(kbs) != 2:
        return None
    if not all(type(values) is list for values in columns.values()) or len({len(values) for values in columns.values()}) > 1:
        return None
    names, unique, value_types = columns.get("name"), columns.get("unique"), columns.get("value_type")
    if names is None or unique is None or value_types is None:
        return None
    if not _all_strings(names) or not _all_strings(value_types) or not all(type(u) is bool for u in unique) or len(set(names)) != len(names):
        return None
    friends_by_party = []
    for kb in kbs:
        if type(kb) is not list:
            return None
        friends = []
        for pair in kb:
            friend = _quick_pair(pair[0], pair[1]) if type(pair) is list and len(pair) == 2 else None
            if friend is None:
                return None
            friends.append(friend)
        friends_by_party.append(friends)
    return names, alphas, friends_by_party


def _quick_hf_events(events: Any) -> list[tuple[int, dict[str, Any]]] | None:
    if type(events) is not dict:
        return None
    columns = [events.get(column) for column in ("actions", "start_times", "data_messages", "agents", "times")]
    selects = events.get("data_selects")
    if type(selects) is not dict:
        return None
    columns += [selects.get("attributes"), selects.get("values")]
    lists = [column for column in columns if type(column) is list]
    if len(lists) != len(columns) or len({len(column) for column in lists}) != 1:
        return None
    selections = []
    for action, start, message, agent, time, names, values in zip(*lists, strict=True):  # lengths checked above
        if type(agent) is not int or agent not in (0, 1) or type(message) is not str:
            return None
        if not _quick_time(time, numeric_only=True) or not _quick_time(start, numeric_only=True):
            return None
        selection = _quick_pair(names, values)
        if selection is None:
            return None
        if action == "message":
            if selection:
                return None
        elif action == "select" and message == "":
            selections.append((agent, selection))
        else:
            return None
    return selections


# --------------------------------------------------------------------------- the checked view


@dataclass
class _View:
    """What the rule checks need, gathered from either shape, with each part's JSON path."""

    attribute_names: list[str] | None = None
    alphas: list[Any] | None = None
    alphas_path: str = "$"
    kbs_path: str = "$"
    kbs: list[list[tuple[str, dict[str, Any] | None]] | None] = field(default_factory=list)
    """Per party index: (path, record) of each friend, record None when unreadable; None for a broken list."""
    selections: list[tuple[int, dict[str, Any], str]] = field(default_factory=list)
    """(agent index, selected record, path) of each well-formed select event."""


@dataclass
class _Read:
    """What either shape's reader extracts from a checked record."""

    scenario_id: str
    attributes: list[dict[str, Any]]
    alphas: list[Any] | None
    kbs: list[list[dict[str, Any]]]
    events: list[Message | Select]
    reward: Any
    source_extra: dict[str, Any]
    outcome_fields: dict[str, Any] = field(default_factory=dict)


class MutualFriendsFormat(CorpusFormat):
    """MutualFriends dialogues in CoCoA's event format or as Hugging Face `mutual_friends` rows."""

    name = "mutualfriends"
    task = "mutualfriends"
    description = "MutualFriends (He et al. 2017): CoCoA event-format JSON, or Hugging Face mutual_friends rows"
    layout = "list"

    # ------------------------------------------------------------------ ids and checks

    def record_id(self, record: Any) -> str | None:
        if _is_object(record) and isinstance(record.get("uuid"), str):
            return record["uuid"]
        return None

    def quick_check(self, record: dict[str, Any]) -> bool:
        # Answers the common case, a sound record, in one tight pass; every rule of the detailed
        # walk below is here too, and anything unusual returns False so that walk words it.
        if shape_of(record) == "hf":
            scenario = _quick_hf_scenario(record)
            selections = _quick_hf_events(record.get("events")) if scenario is not None else None
        else:
            scenario = _quick_cocoa_scenario(record)
            selections = _quick_cocoa_events(record.get("events")) if scenario is not None else None
        if scenario is None or selections is None or not _quick_agents(record.get("agents")):
            return False
        names, alphas, kbs = scenario
        expected = set(names)
        for kb in kbs:
            if not rules.MIN_FRIENDS <= len(kb) <= rules.MAX_FRIENDS or any(friend.keys() != expected for friend in kb):
                return False
        if alphas is not None:
            if any(type(a) not in (int, float) or not math.isfinite(a) or a <= 0 for a in alphas):
                return False
            if alphas and len(alphas) != len(names):
                return False
        if len(rules.shared_friends(kbs[0], kbs[1])) != 1:
            return False
        return all(item in kbs[agent] for agent, item in selections)

    def check_in_detail(self, record: Any) -> list[Problem]:
        c = Checker()
        if not _is_object(record):
            c.fail("$", f"expected a dialogue object, got {json_type(record)}")
            return c.problems
        view = self._check_hf(record, c) if shape_of(record) == "hf" else self._check_cocoa(record, c)
        self._check_rules(view, c)
        return c.problems

    # CoCoA shape ----------------------------------------------------------------------

    def _check_cocoa(self, record: Mapping[str, Any], c: Checker) -> _View:
        view = _View()
        c.require(record, "uuid", str, "$")
        c.optional(record, "scenario_uuid", str, "$", nullable=False)
        scenario = c.require(record, "scenario", dict, "$")
        if scenario is not None:
            c.require(scenario, "uuid", str, "$.scenario")
            alphas = c.optional(scenario, "alphas", list, "$.scenario", nullable=False)
            if alphas is not None:
                view.alphas, view.alphas_path = alphas, "$.scenario.alphas"
            attributes = c.require(scenario, "attributes", list, "$.scenario")
            if attributes is not None:
                view.attribute_names = self._check_attribute_objects(attributes, c)
            kbs = c.require(scenario, "kbs", list, "$.scenario")
            if kbs is not None:
                view.kbs_path = "$.scenario.kbs"
                view.kbs = self._check_cocoa_kbs(kbs, c)
        self._check_agents(record, c)
        outcome = c.require(record, "outcome", dict, "$")
        if outcome is not None:
            self._check_reward(outcome, "reward", "$.outcome", c)
        events = c.require(record, "events", list, "$")
        for i, event in enumerate(events or []):
            self._check_cocoa_event(event, f"$.events[{i}]", view, c)
        return view

    def _check_attribute_objects(self, attributes: list[Any], c: Checker) -> list[str] | None:
        names: list[str] = []
        complete = True
        for i, attribute in enumerate(attributes):
            path = f"$.scenario.attributes[{i}]"
            if not _is_object(attribute):
                c.fail(path, f"expected an attribute object, got {json_type(attribute)}")
                complete = False
                continue
            name = c.require(attribute, "name", str, path)
            c.require(attribute, "value_type", str, path)
            for flag in ("unique", "multivalued", "entity"):
                c.optional(attribute, flag, bool, path, nullable=False)
            if name is None:
                complete = False
            elif name in names:
                c.fail(f"{path}.name", f"attribute {name!r} is listed twice")
            else:
                names.append(name)
        return names if complete else None

    def _check_cocoa_kbs(self, kbs: list[Any], c: Checker) -> list[list[tuple[str, dict[str, Any] | None]] | None]:
        if len(kbs) != 2:
            c.fail("$.scenario.kbs", f"expected 2 friend lists (one per party), got {len(kbs)}")
        checked: list[list[tuple[str, dict[str, Any] | None]] | None] = []
        for k, kb in enumerate(kbs[:2]):
            path = f"$.scenario.kbs[{k}]"
            if not isinstance(kb, list):
                c.fail(path, f"expected a list of friends, got {json_type(kb)}")
                checked.append(None)
                continue
            friends: list[tuple[str, dict[str, Any] | None]] = []
            for i, friend in enumerate(kb):
                friend_path = f"{path}[{i}]"
                self._check_friend_values(friend, friend_path, c)
                friends.append((friend_path, dict(friend) if _is_object(friend) else None))
            checked.append(friends)
        return checked

    def _check_friend_values(self, friend: Any, path: str, c: Checker) -> bool:
        if not _is_object(friend):
            c.fail(path, f"expected a friend record (attribute -> value), got {json_type(friend)}")
            return False
        if _all_strings(friend.values()):
            return True
        sound = True
        for key, value in friend.items():
            if not isinstance(value, str):
                c.fail(key_path(path, str(key)), f"expected a string value, got {json_type(value)}")
                sound = False
        return sound

    def _check_cocoa_event(self, event: Any, path: str, view: _View, c: Checker) -> None:
        if not _is_object(event):
            c.fail(path, f"expected an event object, got {json_type(event)}")
            return
        action = c.require(event, "action", str, path)
        agent = None
        if "agent" not in event:
            c.fail(f"{path}.agent", "missing field")
        else:
            agent = self._check_agent_index(event["agent"], f"{path}.agent", c)
        if "time" not in event:
            c.fail(f"{path}.time", "missing field")
        else:
            self._check_time(event["time"], f"{path}.time", c)
        if "start_time" in event:
            self._check_time(event["start_time"], f"{path}.start_time", c)
        if "data" not in event:
            c.fail(f"{path}.data", "missing field")
            return
        data = event["data"]
        if action == "message":
            if not isinstance(data, str):
                c.fail(f"{path}.data", f"a message's data is its text: expected a string, got {json_type(data)}")
        elif action == "select":
            if self._check_friend_values(data, f"{path}.data", c) and agent is not None:
                view.selections.append((agent, dict(data), f"{path}.data"))
        elif action is not None:
            c.fail(f"{path}.action", f"unknown action {action!r}; MutualFriends events are {' or '.join(ACTIONS)}")

    # HF shape -------------------------------------------------------------------------

    def _check_hf(self, record: Mapping[str, Any], c: Checker) -> _View:
        view = _View()
        c.require(record, "uuid", str, "$")
        c.require(record, "scenario_uuid", str, "$")
        alphas = c.require(record, "scenario_alphas", list, "$")
        if alphas is not None:
            view.alphas, view.alphas_path = alphas, "$.scenario_alphas"
        columns = c.require(record, "scenario_attributes", dict, "$")
        if columns is not None:
            view.attribute_names = self._check_hf_attributes(columns, c)
        kbs = c.require(record, "scenario_kbs", list, "$")
        if kbs is not None:
            view.kbs_path = "$.scenario_kbs"
            view.kbs = self._check_hf_kbs(kbs, c)
        self._check_agents(record, c)
        self._check_reward(record, "outcome_reward", "$", c)
        events = c.require(record, "events", dict, "$")
        if events is not None:
            self._check_hf_events(events, view, c)
        return view

    def _check_hf_attributes(self, columns: Mapping[str, Any], c: Checker) -> list[str] | None:
        kinds = {"unique": bool, "value_type": str, "name": str}
        for column in kinds:
            if column not in columns:
                c.fail(f"$.scenario_attributes.{column}", "missing field")
        lengths = {}
        for column, values in columns.items():
            path = key_path("$.scenario_attributes", str(column))
            if not isinstance(values, list):
                c.fail(path, f"expected an array (one value per attribute), got {json_type(values)}")
                continue
            lengths[column] = len(values)
            kind = kinds.get(column)
            for i, value in enumerate(values):
                if kind is not None and not isinstance(value, kind):
                    c.fail(f"{path}[{i}]", f"expected {'a boolean' if kind is bool else 'a string'}, got {json_type(value)}")
        if len(set(lengths.values())) > 1:
            c.fail("$.scenario_attributes", f"the attribute columns differ in length: {lengths}")
            return None
        names = columns.get("name")
        if len(lengths) != len(columns) or not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            return None
        for i, name in enumerate(names):
            if name in names[:i]:
                c.fail(f"$.scenario_attributes.name[{i}]", f"attribute {name!r} is listed twice")
        return list(dict.fromkeys(names))

    def _check_hf_kbs(self, kbs: list[Any], c: Checker) -> list[list[tuple[str, dict[str, Any] | None]] | None]:
        if len(kbs) != 2:
            c.fail("$.scenario_kbs", f"expected 2 friend lists (one per party), got {len(kbs)}")
        checked: list[list[tuple[str, dict[str, Any] | None]] | None] = []
        for k, kb in enumerate(kbs[:2]):
            path = f"$.scenario_kbs[{k}]"
            if not isinstance(kb, list):
                c.fail(path, f"expected a list of friends, got {json_type(kb)}")
                checked.append(None)
                continue
            friends: list[tuple[str, dict[str, Any] | None]] = []
            for i, pair in enumerate(kb):
                friend_path = f"{path}[{i}]"
                if not (isinstance(pair, list) and len(pair) == 2):
                    size = f" of {len(pair)} items" if isinstance(pair, list) else ""
                    c.fail(friend_path, f"a friend is a pair [attribute names, values], got {json_type(pair)}{size}")
                    friends.append((friend_path, None))
                    continue
                friend = self._check_hf_pair(pair[0], pair[1], f"{friend_path}[0]", f"{friend_path}[1]", c)
                friends.append((friend_path, friend))
            checked.append(friends)
        return checked

    def _check_hf_pair(self, names: Any, values: Any, names_path: str, values_path: str, c: Checker) -> dict[str, Any] | None:
        """A friend stored column-wise: a list of attribute names and a list of their values."""
        friend = _quick_pair(names, values)
        if friend is not None:  # the common case, answered without the detailed walk
            return friend
        sound = True
        for part, part_path in ((names, names_path), (values, values_path)):
            if not isinstance(part, list):
                c.fail(part_path, f"expected a list of strings, got {json_type(part)}")
                sound = False
                continue
            for j, item in enumerate(part):
                if not isinstance(item, str):
                    c.fail(f"{part_path}[{j}]", f"expected a string, got {json_type(item)}")
                    sound = False
        if not sound:
            return None
        if len(names) != len(values):
            c.fail(values_path, f"{len(values)} values for {len(names)} attribute names")
            return None
        for j, name in enumerate(names):
            if name in names[:j]:
                c.fail(f"{names_path}[{j}]", f"attribute {name!r} appears twice in one friend")
                return None
        return dict(zip(names, values, strict=True))

    def _check_hf_events(self, events: Mapping[str, Any], view: _View, c: Checker) -> None:
        columns: dict[str, list[Any]] = {}
        for column in HF_EVENT_COLUMNS:
            kind = dict if column == "data_selects" else list
            value = c.require(events, column, kind, "$.events")
            if value is not None:
                columns[column] = value
        selects = columns.pop("data_selects", None)
        if selects is not None:
            for part in ("attributes", "values"):
                value = c.require(selects, part, list, "$.events.data_selects")
                if value is not None:
                    columns[f"data_selects.{part}"] = value
        lengths = {name: len(values) for name, values in columns.items()}
        if len(set(lengths.values())) > 1:
            c.fail("$.events", f"the event columns differ in length: {lengths}")
            return
        count = next(iter(lengths.values()), 0)
        for i in range(count):
            action = columns.get("actions", [None] * count)[i]
            agent = None
            if "agents" in columns:
                agent = self._check_agent_index(columns["agents"][i], f"$.events.agents[{i}]", c)
            if "times" in columns:
                self._check_time(columns["times"][i], f"$.events.times[{i}]", c, numeric_only=True)
            if "start_times" in columns:
                self._check_time(columns["start_times"][i], f"$.events.start_times[{i}]", c, numeric_only=True)
            message = columns.get("data_messages", [""] * count)[i]
            if "data_messages" in columns and not isinstance(message, str):
                c.fail(f"$.events.data_messages[{i}]", f"expected a string, got {json_type(message)}")
            selection = None
            if "data_selects.attributes" in columns and "data_selects.values" in columns:
                selection = self._check_hf_pair(
                    columns["data_selects.attributes"][i],
                    columns["data_selects.values"][i],
                    f"$.events.data_selects.attributes[{i}]",
                    f"$.events.data_selects.values[{i}]",
                    c,
                )
            if "actions" not in columns:
                continue
            if not isinstance(action, str):
                c.fail(f"$.events.actions[{i}]", f"expected a string, got {json_type(action)}")
            elif action == "message":
                if selection:
                    c.fail(f"$.events.data_selects.values[{i}]", "a message event must have an empty selection")
            elif action == "select":
                if message != "":
                    c.fail(f"$.events.data_messages[{i}]", "a select event must have an empty message")
                if selection is not None and agent is not None:
                    view.selections.append((agent, selection, f"$.events.data_selects.values[{i}]"))
            else:
                c.fail(f"$.events.actions[{i}]", f"unknown action {action!r}; MutualFriends events are {' or '.join(ACTIONS)}")

    # shared ---------------------------------------------------------------------------

    def _check_agents(self, record: Mapping[str, Any], c: Checker) -> None:
        agents = c.require(record, "agents", dict, "$")
        if agents is None:
            return
        for party in PARTY_IDS:
            c.require(agents, party, str, "$.agents")
        for key in agents:
            if key not in PARTY_IDS:
                c.fail(f"$.agents.{key}", f"unknown agent {key!r}; MutualFriends has agents '0' and '1'")

    def _check_agent_index(self, agent: Any, path: str, c: Checker) -> int | None:
        if isinstance(agent, bool) or not isinstance(agent, int):
            c.fail(path, f"expected the agent index 0 or 1, got {json_type(agent)} {agent!r}")
            return None
        if agent not in (0, 1):
            c.fail(path, f"agent {agent} is not 0 or 1")
            return None
        return agent

    def _check_reward(self, obj: Mapping[str, Any], key: str, path: str, c: Checker) -> None:
        reward = c.require(obj, key, float, path)
        if reward is not None and not math.isfinite(reward):
            c.fail(f"{path}.{key}", f"reward must be a finite number, got {reward!r}")

    def _check_time(self, raw: Any, path: str, c: Checker, *, numeric_only: bool = False) -> None:
        if raw is None:
            return
        if numeric_only and isinstance(raw, str):
            c.fail(path, f"expected a number of seconds, got string {raw!r}")
        elif seconds(raw) is None:
            c.fail(path, f"expected seconds since the epoch (a number or numeric string), got {json_type(raw)} {raw!r}")

    def _check_rules(self, view: _View, c: Checker) -> None:
        """The task's guarantees: list sizes, attributes, one mutual friend, legal selections, alphas."""
        if view.alphas is not None:
            for i, alpha in enumerate(view.alphas):
                if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not math.isfinite(alpha) or alpha <= 0:
                    c.fail(f"{view.alphas_path}[{i}]", f"an alpha is a positive number, got {json_type(alpha)} {alpha!r}")
            if view.attribute_names is not None and view.alphas and len(view.alphas) != len(view.attribute_names):
                c.fail(view.alphas_path, f"{len(view.alphas)} alphas for {len(view.attribute_names)} attributes (one per attribute)")
        for k, friends in enumerate(view.kbs):
            if friends is None:
                continue
            path = f"{view.kbs_path}[{k}]"
            if not rules.MIN_FRIENDS <= len(friends) <= rules.MAX_FRIENDS:
                c.fail(path, f"party {k} has {len(friends)} friends; each list holds {rules.MIN_FRIENDS} to {rules.MAX_FRIENDS}")
            if view.attribute_names is None:
                continue
            expected = set(view.attribute_names)
            for friend_path, friend in friends:
                if friend is None or friend.keys() == expected:
                    continue
                missing = [a for a in view.attribute_names if a not in friend]
                extra = [a for a in friend if a not in expected]
                if missing:
                    c.fail(friend_path, f"friend lacks the scenario attribute(s) {missing}")
                if extra:
                    c.fail(friend_path, f"friend has attribute(s) {extra} that the scenario does not list {view.attribute_names}")
        if len(view.kbs) != 2:
            return  # comparing half-read lists would report problems that are not there
        lists: list[list[dict[str, Any]]] = []
        for kb in view.kbs:
            friends_read = [f for _, f in kb if f is not None] if kb is not None else []
            if kb is None or len(friends_read) != len(kb):
                return  # as above: a list with an unreadable friend is not compared
            lists.append(friends_read)
        shared = rules.shared_friends(lists[0], lists[1])
        if len(shared) != 1:
            listed = f": {shared}" if shared else ""
            c.fail(view.kbs_path, f"the two lists share {len(shared)} friends{listed}; a scenario has exactly one mutual friend")
        for agent, item, path in view.selections:
            if not rules.holds_friend(lists[agent], item):
                c.fail(path, f"agent {agent} selected a friend that is not in its own list: {item}")

    # ------------------------------------------------------------------ reading

    def to_dialogue(self, record: Any, *, file: str | None = None, index: int | None = None, split: str | None = None) -> Dialogue:
        shape = shape_of(record)
        read = self._read_hf(record) if shape == "hf" else self._read_cocoa(record)
        public: dict[str, Any] = {"attributes": read.attributes}
        if read.alphas is not None:
            public["alphas"] = read.alphas
        mutual = rules.mutual_friend(read.kbs[0], read.kbs[1])
        success = rules.is_success(rules.latest_selections(read.events), mutual, PARTY_IDS)
        outcome_extra: dict[str, Any] = {"reward": read.reward}
        if read.outcome_fields:
            outcome_extra["fields"] = read.outcome_fields
        # `check` passed, so every value already has its schema type: the models are built without
        # validating them again (`model_builder`), each from fresh dicts and lists.
        return _DIALOGUE(
            id=record["uuid"],
            task="mutualfriends",
            split=split,
            scenario=_SCENARIO(id=read.scenario_id, public=public, private={party: {"friends": read.kbs[i]} for i, party in enumerate(PARTY_IDS)}),
            parties=[self._party(party, record["agents"][party]) for party in PARTY_IDS],
            events=read.events,
            outcome=_OUTCOME(
                reason="success" if success else "failure",
                agreed=success,
                deal={"friend": mutual} if success else None,
                scores={party: 1.0 if success else 0.0 for party in PARTY_IDS},
                extra=outcome_extra,
            ),
            source=_SOURCE(corpus=self.name, shape=shape, file=file, index=index, extra=read.source_extra),
        )

    def _party(self, party_id: str, agent: str) -> Party:
        if agent == "human":
            return _HUMAN(id=party_id, kind="human")
        return _BOT(id=party_id, kind="bot", agent=agent)

    def _read_cocoa(self, record: Mapping[str, Any]) -> _Read:
        scenario = record["scenario"]
        kbs = [[dict(friend) for friend in kb] for kb in scenario["kbs"]]
        events = [self._read_cocoa_event(event) for event in record["events"]]
        source_extra: dict[str, Any] = {"fields": {k: v for k, v in record.items() if k not in ("uuid", "scenario", "agents", "outcome", "events")}}
        scenario_fields = {k: v for k, v in scenario.items() if k not in COCOA_SCENARIO_KEYS}
        if scenario_fields:
            source_extra["scenario_fields"] = scenario_fields
        written = [k for k in COCOA_SCENARIO_KEYS if k in scenario] + list(scenario_fields)
        if list(scenario) != written:  # the writer's order is not the file's (`alphas` first in some releases)
            source_extra["scenario_order"] = list(scenario)
        outcome = record["outcome"]
        outcome_fields = {k: v for k, v in outcome.items() if k != "reward"}
        return _Read(scenario["uuid"], list(scenario["attributes"]), scenario.get("alphas"), kbs, events, outcome["reward"], source_extra, outcome_fields)

    def _read_cocoa_event(self, event: Mapping[str, Any]) -> Message | Select:
        party = str(event["agent"])
        time = seconds(event["time"])
        extra: dict[str, Any] = {}
        if not _identical(cocoa_time_text(time), event["time"]):
            extra["time"] = event["time"]
        if "start_time" not in event:
            extra["no_start_time"] = True
        elif event["start_time"] is not None:
            extra["start_time"] = event["start_time"]
        fields = {k: v for k, v in event.items() if k not in COCOA_EVENT_KEYS}
        if fields:
            extra["fields"] = fields
        if event["action"] == "select":
            return _SELECT(party=party, time=time, item=dict(event["data"]), extra=extra)
        return _MESSAGE(party=party, time=time, text=event["data"], extra=extra)

    def _read_hf(self, record: Mapping[str, Any]) -> _Read:
        columns = record["scenario_attributes"]
        column_names = list(columns)
        count = len(columns["name"])
        attributes = [{column: columns[column][i] for column in column_names} for i in range(count)]
        kbs = [[dict(zip(names, values, strict=True)) for names, values in kb] for kb in record["scenario_kbs"]]
        ev = record["events"]
        events: list[Message | Select] = []
        for i, action in enumerate(ev["actions"]):
            party = str(ev["agents"][i])
            raw_time = ev["times"][i]
            time = seconds(raw_time)
            extra: dict[str, Any] = {}
            if not _identical(time, raw_time):
                extra["time"] = raw_time
            if not _identical(ev["start_times"][i], HF_NO_START_TIME):
                extra["start_time"] = ev["start_times"][i]
            if action == "select":
                item = dict(zip(ev["data_selects"]["attributes"][i], ev["data_selects"]["values"][i], strict=True))
                events.append(_SELECT(party=party, time=time, item=item, extra=extra))
            else:
                events.append(_MESSAGE(party=party, time=time, text=ev["data_messages"][i], extra=extra))
        source_extra: dict[str, Any] = {}
        fields = {k: v for k, v in record.items() if k not in HF_RECORD_KEYS}
        if fields:
            source_extra["fields"] = fields
        if tuple(column_names) != HF_ATTRIBUTE_COLUMNS:
            source_extra["attribute_columns"] = column_names
        event_fields = {k: v for k, v in ev.items() if k not in HF_EVENT_COLUMNS}
        if event_fields:
            source_extra["event_fields"] = event_fields
        return _Read(record["scenario_uuid"], attributes, record["scenario_alphas"], kbs, events, record["outcome_reward"], source_extra)

    # ------------------------------------------------------------------ writing

    def from_dialogue(self, dialogue: Dialogue, *, shape: Shape | None = None) -> dict[str, Any]:
        """The dialogue as a native record, in `shape` (default: the shape it was read in, else CoCoA).

        Native leftovers kept in `extra` are written back only into the shape they came from;
        written in the other shape, a dialogue keeps its transcript, lists, selections and reward.
        """
        target = shape or (dialogue.source.shape if dialogue.source.shape in SHAPES else "cocoa")
        if target not in SHAPES:
            raise ValueError(f"unknown MutualFriends shape {target!r}; choose {' or '.join(SHAPES)}")
        native = dialogue.source.corpus == self.name and dialogue.source.shape == target
        return self._write_hf(dialogue, native) if target == "hf" else self._write_cocoa(dialogue, native)

    def _agent_indexes(self, dialogue: Dialogue) -> dict[str, int]:
        if len(dialogue.parties) != 2:
            raise ValueError(f"MutualFriends has two parties; dialogue {dialogue.id} has {len(dialogue.parties)}")
        ids = [p.id for p in dialogue.parties]
        if set(ids) == set(PARTY_IDS):
            return {p: int(p) for p in ids}
        return {p: i for i, p in enumerate(ids)}

    def _agents(self, dialogue: Dialogue, indexes: dict[str, int]) -> dict[str, str]:
        agents = {}
        for party in sorted(dialogue.parties, key=lambda p: indexes[p.id]):
            agents[str(indexes[party.id])] = "human" if party.kind == "human" else (party.agent if party.agent is not None else "bot")
        return agents

    def _kbs(self, dialogue: Dialogue, indexes: dict[str, int]) -> list[list[dict[str, Any]]]:
        kbs: list[list[dict[str, Any]]] = [[], []]
        for party, i in indexes.items():
            kbs[i] = [dict(f) for f in dialogue.scenario.private.get(party, {}).get("friends", [])]
        return kbs

    def _attributes(self, dialogue: Dialogue, kbs: list[list[dict[str, Any]]]) -> list[dict[str, Any]]:
        """The scenario's attribute objects; for a dialogue played without them, derived from the friends."""
        if "attributes" in dialogue.scenario.public:
            return [dict(a) for a in dialogue.scenario.public["attributes"]]
        names = list(dict.fromkeys(name for kb in kbs for friend in kb for name in friend))
        return [
            {"name": n, "value_type": rules.VALUE_TYPES.get(n, n.lower().replace(" ", "_")), "unique": False, "multivalued": False, "entity": True}
            for n in names
        ]

    def _reward(self, dialogue: Dialogue, kbs: list[list[dict[str, Any]]]) -> Any:
        outcome = dialogue.outcome
        if outcome is not None and "reward" in outcome.extra:
            return outcome.extra["reward"]
        if outcome is not None and outcome.agreed is not None:
            return 1 if outcome.agreed else 0
        try:
            indexes = self._agent_indexes(dialogue)
            return 1 if rules.judge_success({p: kbs[i] for p, i in indexes.items()}, dialogue.events) else 0
        except ValueError:
            return 0

    def _transcript(self, dialogue: Dialogue) -> list[Message | Select]:
        """The events MutualFriends records; platform notes have no place in the corpus format."""
        kept: list[Message | Select] = []
        for i, event in enumerate(dialogue.events):
            if isinstance(event, (Message, Select)):
                kept.append(event)
            elif not isinstance(event, SystemNote):
                raise ValueError(f"events[{i}] is a {event.kind!r} event; MutualFriends records only messages and selections")
        return kept

    def _write_cocoa(self, dialogue: Dialogue, native: bool) -> dict[str, Any]:
        indexes = self._agent_indexes(dialogue)
        kbs = self._kbs(dialogue, indexes)
        extra = dialogue.source.extra if native else {}
        scenario: dict[str, Any] = {"uuid": dialogue.scenario.id if dialogue.scenario.id is not None else ""}
        if "alphas" in dialogue.scenario.public:
            scenario["alphas"] = dialogue.scenario.public["alphas"]
        scenario["attributes"] = self._attributes(dialogue, kbs)
        scenario["kbs"] = kbs
        scenario.update(extra.get("scenario_fields", {}))
        if "scenario_order" in extra:
            scenario = {k: scenario[k] for k in extra["scenario_order"] if k in scenario} | scenario
        outcome: dict[str, Any] = {"reward": self._reward(dialogue, kbs)}
        if native and dialogue.outcome is not None:
            outcome.update(dialogue.outcome.extra.get("fields", {}))
        fields = extra["fields"] if "fields" in extra else {"agents_info": None, "scenario_uuid": dialogue.scenario.id}
        record: dict[str, Any] = {
            "uuid": dialogue.id,
            "scenario": scenario,
            **fields,
            "agents": self._agents(dialogue, indexes),
            "outcome": outcome,
            "events": [self._write_cocoa_event(e, indexes, native) for e in self._transcript(dialogue)],
        }
        ordered = {k: record[k] for k in COCOA_RECORD_ORDER if k in record}
        ordered.update((k, v) for k, v in record.items() if k not in ordered)
        return ordered

    def _write_cocoa_event(self, event: Message | Select, indexes: dict[str, int], native: bool) -> dict[str, Any]:
        extra = event.extra if native else {}
        if "start_time" in extra:
            start_time = extra["start_time"]
        elif "start_time" in event.extra:  # from the HF shape: -1 there means none
            start_time = cocoa_time_text(seconds(event.extra["start_time"]))
        else:
            start_time = None
        out: dict[str, Any] = {}
        if not extra.get("no_start_time"):
            out["start_time"] = start_time
        out["agent"] = indexes[event.party] if event.party is not None else None
        out["time"] = extra["time"] if "time" in extra else cocoa_time_text(event.time)
        out["action"] = "select" if isinstance(event, Select) else "message"
        out["data"] = dict(event.item) if isinstance(event, Select) else event.text
        out.update(extra.get("fields", {}))
        return out

    def _write_hf(self, dialogue: Dialogue, native: bool) -> dict[str, Any]:
        indexes = self._agent_indexes(dialogue)
        kbs = self._kbs(dialogue, indexes)
        extra = dialogue.source.extra if native else {}
        attributes = self._attributes(dialogue, kbs)
        columns = extra.get("attribute_columns", list(HF_ATTRIBUTE_COLUMNS))
        transcript = self._transcript(dialogue)
        selected = [event.item if isinstance(event, Select) else {} for event in transcript]
        events: dict[str, Any] = {
            "actions": [event.kind for event in transcript],
            "start_times": [self._hf_start_time(event, native) for event in transcript],
            "data_messages": [event.text if isinstance(event, Message) else "" for event in transcript],
            "data_selects": {"attributes": [list(item) for item in selected], "values": [list(item.values()) for item in selected]},
            "agents": [indexes[event.party] if event.party is not None else None for event in transcript],
            "times": [event.extra["time"] if native and "time" in event.extra else event.time for event in transcript],
        }
        events.update(extra.get("event_fields", {}))
        record: dict[str, Any] = {
            "uuid": dialogue.id,
            "scenario_uuid": dialogue.scenario.id if dialogue.scenario.id is not None else "",
            "scenario_alphas": dialogue.scenario.public.get("alphas", []),
            "scenario_attributes": {column: [a.get(column) for a in attributes] for column in columns},
            "scenario_kbs": [[[list(friend), list(friend.values())] for friend in kb] for kb in kbs],
            "agents": {k: v for k, v in reversed(self._agents(dialogue, indexes).items())},  # the card's order: "1", "0"
            "outcome_reward": self._reward(dialogue, kbs),
            "events": events,
        }
        record.update(extra.get("fields", {}))
        return record

    def _hf_start_time(self, event: Message | Select, native: bool) -> Any:
        raw = event.extra.get("start_time")
        if native:
            return raw if "start_time" in event.extra else HF_NO_START_TIME
        value = seconds(raw)
        return value if value is not None else HF_NO_START_TIME

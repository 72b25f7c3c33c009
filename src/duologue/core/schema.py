"""The one schema for every dialogue duologue reads, plays or collects.

A corpus record, a self-play episode and a dialogue collected on the platform all become a
`Dialogue`. Corpus readers keep whatever a native record carries that the schema does not model
in `Source.extra`, so a writer can give the native record back field for field.

Our own models forbid unknown fields: a typo in a field name is an error, not silently dropped data.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Callable, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PlainValidator,
    SerializeAsAny,
    StrictFloat,
    StrictInt,
    StrictStr,
    WithJsonSchema,
    field_validator,
    model_validator,
)

SCHEMA_VERSION = 1

JSONValue = Any
"""A value that JSON can carry. Kept loose on purpose: native corpus leftovers live here."""


class Model(BaseModel):
    """Base for duologue's own models: unknown fields are rejected, values are checked on assignment."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)


# --------------------------------------------------------------------------- parties


class Party(Model):
    """One side of a dialogue.

    `id` is the name events use for this party; readers keep the corpus's own name
    (`"0"`/`"1"` for CoCoA files, `"mturk_agent_1"` for CaSiNo, `"user"`/`"bot"` for open chat).
    """

    id: str
    kind: Literal["human", "bot"]
    role: str | None = None
    """Task role where the task has roles: `buyer`/`seller`, `user`/`system`."""
    agent: str | None = None
    """For a bot: the agent spec or model name (`rule`, `llm:local`, `gpt-4o`)."""
    participant_id: str | None = None
    """For a human: the crowd-platform or corpus worker id."""
    info: dict[str, JSONValue] = Field(default_factory=dict)
    """Demographics, personality and other facts about the participant."""


# --------------------------------------------------------------------------- scenario


class Scenario(Model):
    """What the dialogue is about: a public part both parties see, and a private view per party."""

    id: str | None = None
    public: dict[str, JSONValue] = Field(default_factory=dict)
    private: dict[str, dict[str, JSONValue]] = Field(default_factory=dict)
    """Party id -> what only that party knows (its friends list, target price, priorities)."""


# --------------------------------------------------------------------------- events


class EventBase(Model):
    """Fields every event has. `extra` keeps native fields the schema does not model."""

    party: str | None
    """Id of the party who acted; None for events of the system itself."""
    time: float | None = None
    """Seconds since the epoch when the event happened, if known."""
    extra: dict[str, JSONValue] = Field(default_factory=dict)
    if TYPE_CHECKING:  # every event class sets its own `kind` (a Literal); declared here for the type
        kind: str  # checker only, so the fields keep their order in every written file


class Message(EventBase):
    kind: Literal["message"] = "message"
    text: str


class Select(EventBase):
    """MutualFriends: the party picks one item (friend) of its own list."""

    kind: Literal["select"] = "select"
    item: dict[str, JSONValue]


class Offer(EventBase):
    """CraigslistBargain: a final price offer the other side may accept or reject."""

    kind: Literal["offer"] = "offer"
    price: float | None
    sides: JSONValue = None
    """CoCoA's `sides` field (extra terms); kept as the corpus wrote it."""


class Accept(EventBase):
    kind: Literal["accept"] = "accept"


class Reject(EventBase):
    kind: Literal["reject"] = "reject"


class Quit(EventBase):
    kind: Literal["quit"] = "quit"


class SubmitDeal(EventBase):
    """CaSiNo: a proposed split; `mine` goes to the proposer, `theirs` to the other party."""

    kind: Literal["submit-deal"] = "submit-deal"
    mine: dict[str, int]
    theirs: dict[str, int]


class AcceptDeal(EventBase):
    kind: Literal["accept-deal"] = "accept-deal"


class RejectDeal(EventBase):
    kind: Literal["reject-deal"] = "reject-deal"


class WalkAway(EventBase):
    kind: Literal["walk-away"] = "walk-away"


class SystemNote(EventBase):
    """Something the platform or engine records in the transcript: a timeout, a disconnect."""

    kind: Literal["system"] = "system"
    name: str
    data: dict[str, JSONValue] = Field(default_factory=dict)


CONTINUING_NOTES = frozenset({"handover"})
"""System notes that record something without ending the dialogue: `handover`, a seat a person
left that a bot plays from then on (`data`: the seat's `party` and the bot's `agent`). Replay keeps
them in the transcript and goes on; every other system note ends the dialogue."""


class GenericEvent(EventBase):
    """An event of a kind no installed task registered (a dialogue stored by a plug-in task that is
    not installed here). Its fields are kept as they are, so the dialogue stays readable and writes
    back unchanged."""

    model_config = ConfigDict(extra="allow", validate_assignment=True)
    kind: str


EVENT_CLASSES: dict[str, type[EventBase]] = {
    cls.model_fields["kind"].default: cls
    for cls in (Message, Select, Offer, Accept, Reject, Quit, SubmitDeal, AcceptDeal, RejectDeal, WalkAway, SystemNote)
}
"""Event kind -> its class. Built-in kinds are here; a task adds its own with `register_event`."""


def register_event(cls: type[EventBase]) -> type[EventBase]:
    """Make a task's own event kind readable everywhere a `Dialogue` is (usable as a class decorator).

    The class needs a `kind: Literal["..."]` field with a default. Registering the same class twice
    is harmless; a different class under a kind already taken is an error.
    """
    field = cls.model_fields.get("kind")
    kind = field.default if field is not None else None
    if not isinstance(kind, str) or not kind:
        raise TypeError(f"{cls.__name__} needs a `kind` field with a string default to be an event")
    known = EVENT_CLASSES.get(kind)
    if known is not None and known is not cls and (known.__module__, known.__qualname__) != (cls.__module__, cls.__qualname__):
        raise ValueError(f"event kind {kind!r} is already {known.__module__}.{known.__qualname__}")
    EVENT_CLASSES[kind] = cls
    return cls


ON_UNKNOWN_KIND: list[Callable[[], None]] = []
"""Run once each when an event of an unregistered kind is read: the task registry puts here a
function that imports every registered task, so a task's own events read back as its classes even
when nothing had imported the task yet (a stored dialogue read in a fresh process)."""


def _event_kind(value: Any) -> str | None:
    if isinstance(value, dict):
        return value.get("kind")
    return getattr(value, "kind", None)


def _validate_event(value: Any) -> EventBase:
    """Read one event by its `kind` through the registry (unknown kinds become a `GenericEvent`)."""
    kind = _event_kind(value)
    if isinstance(kind, str):
        while kind not in EVENT_CLASSES and ON_UNKNOWN_KIND:
            ON_UNKNOWN_KIND.pop()()
    cls = EVENT_CLASSES.get(kind) if isinstance(kind, str) else None
    if isinstance(value, EventBase) and (cls is None or isinstance(value, cls)):
        return value
    if cls is None:
        if not isinstance(kind, str) or not kind:
            raise ValueError("an event needs a `kind` (a non-empty string)")
        cls = GenericEvent
    if isinstance(value, EventBase):
        value = value.model_dump()
    return cls.model_validate(value)


def _event_json_schema(_core: Any, _handler: Any) -> dict[str, Any]:
    return {"oneOf": [cls.model_json_schema() for cls in EVENT_CLASSES.values()], "title": "Event"}


Event = Annotated[
    SerializeAsAny[EventBase],
    PlainValidator(_validate_event),
    WithJsonSchema({"type": "object", "required": ["kind"], "properties": {"kind": {"type": "string"}}, "title": "Event"}),
]
"""Any event: a built-in kind, a kind a task registered, or (for unknown kinds) a `GenericEvent`."""


def event_kinds() -> tuple[str, ...]:
    """Every registered event kind."""
    return tuple(EVENT_CLASSES)


EVENT_KINDS: tuple[str, ...] = tuple(EVENT_CLASSES)
"""The built-in event kinds (see `event_kinds()` for those tasks added)."""

# --------------------------------------------------------------------------- outcome


class Outcome(Model):
    """How the dialogue ended and what each party scored.

    `reason` says why it ended (`agreement`, `success`, `no_agreement`, `walk_away`, `quit`,
    `timeout`, `turn_limit`, `disconnect`, `completed`, `unknown`); `agreed` says whether the
    parties reached the task's goal; `deal` holds what was agreed (a price, a split, a friend).
    """

    reason: str = "unknown"
    agreed: bool | None = None
    deal: dict[str, JSONValue] | None = None
    scores: dict[str, float] = Field(default_factory=dict)
    """Party id -> the task's score for that party (points, utility)."""
    extra: dict[str, JSONValue] = Field(default_factory=dict)


# --------------------------------------------------------------------------- ratings


class Scale(Model):
    """The answer scale of a rating item.

    Numeric scales give `low`/`high`; labelled scales (CaSiNo's "Extremely dissatisfied" ...
    "Extremely satisfied") give `labels` from lowest to highest, and values are those labels.
    """

    kind: Literal["interval", "ordinal", "nominal", "ratio"] = "interval"
    low: float | None = None
    high: float | None = None
    labels: list[str] | None = None

    def contains(self, value: float | int | str) -> bool:
        """Whether `value` is a valid answer on this scale."""
        if self.labels is not None:
            return value in self.labels
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return False
        if self.low is not None and value < self.low:
            return False
        if self.high is not None and value > self.high:
            return False
        return True

    def numeric(self, value: float | int | str) -> float:
        """The value as a number: labels map to 1..n in scale order."""
        if self.labels is not None:
            return float(self.labels.index(str(value)) + 1)
        return float(value)


LIKERT_5 = Scale(kind="ordinal", low=1, high=5)


class Rating(Model):
    """One answer of one rater to one questionnaire item about one dialogue."""

    rater_kind: Literal["party", "third_party", "model"]
    """`party`: a participant rating its own dialogue; `third_party`: an annotator reading the
    transcript; `model`: an automatic judge."""
    rater_id: str | None = None
    """For `party`, the party id; for others, the annotator or judge id (or index)."""
    target: str | None = None
    """What is rated: a party id (the partner or the bot), or None for the dialogue as a whole."""
    criterion: str
    value: StrictInt | StrictFloat | StrictStr
    """A number, or a label of a labelled scale. Strict, so `true` or `"3"` is never read as 3."""
    scale: Scale = LIKERT_5

    @model_validator(mode="after")
    def _value_on_scale(self) -> "Rating":
        if not self.scale.contains(self.value):
            raise ValueError(f"{self.criterion}: value {self.value!r} is outside its scale {self.scale.model_dump(exclude_none=True)}")
        return self


# --------------------------------------------------------------------------- annotations


class Annotation(Model):
    """Labels on one event (or the whole dialogue when `event` is None), in one layer.

    Layers: `intent` (dialogue acts), `price`, `strategy`, `entity`, ... `source` names who
    labelled it (`corpus`, `corpus-parser`, `duologue.acts`, an annotator id).
    """

    event: int | None
    layer: str
    labels: list[str] = Field(default_factory=list)
    value: JSONValue = None
    source: str = "corpus"


# --------------------------------------------------------------------------- source


class Source(Model):
    """Where a dialogue came from, and what its native record held that the schema does not model."""

    corpus: str | None = None
    """Corpus format name (as registered, see `duologue data formats`), or None if played here."""
    shape: str | None = None
    """Which native shape the record had, where a corpus has several (`cocoa`, `hf`)."""
    file: str | None = None
    index: int | None = None
    """Position of the record in its file."""
    extra: dict[str, JSONValue] = Field(default_factory=dict)


# --------------------------------------------------------------------------- dialogue

class Anomaly(Model):
    """Something a record does that its task's rules forbid but people did (an accept with no offer
    on the table, an empty strategy label). The record still loads, byte for byte; the anomaly is
    kept on the dialogue so statistics and analyses can count or leave out such records."""

    path: str
    """Where in the native record (`events[12].action`, `annotations[3]`)."""
    message: str
    code: str | None = None
    """A short stable name for the kind of anomaly (`accept-without-offer`), for counting."""


class Dialogue(Model):
    """A whole dialogue: who took part, about what, what they did, how it ended, and how it was judged."""

    schema_version: int = SCHEMA_VERSION
    id: str
    task: str
    """The task *family* (a task spec's `family`, the id without its version), not the registered id with its
    version: read it as `family`; the id of a played episode is `task_id` (in `meta`). The field
    keeps its name because every stored file and corpus writer uses it."""
    split: str | None = None
    language: str = "en"
    scenario: Scenario = Field(default_factory=Scenario)
    parties: list[Party]
    events: list[Event] = Field(default_factory=list)
    outcome: Outcome | None = None
    ratings: list[Rating] = Field(default_factory=list)
    annotations: list[Annotation] = Field(default_factory=list)
    source: Source = Field(default_factory=Source)
    meta: dict[str, JSONValue] = Field(default_factory=dict)
    """Free-form facts about collection or play: study id, seeds, agent settings."""
    anomalies: list[Anomaly] = Field(default_factory=list)
    """Rule anomalies of the native record (warnings, never refusals); empty for played dialogues."""

    @property
    def family(self) -> str:
        """The task family (what the `task` field holds)."""
        return self.task

    @property
    def task_id(self) -> str | None:
        """The registered task id with its version (`casino-v0`) where play recorded it, else None
        (a corpus record says only its family)."""
        found = self.meta.get("task_id")
        return found if isinstance(found, str) else None

    @field_validator("task")
    @classmethod
    def _task_named(cls, task: str) -> str:
        if not task.strip():
            raise ValueError("a dialogue needs its task family (a non-empty string)")
        return task

    @model_validator(mode="after")
    def _references_resolve(self) -> "Dialogue":
        ids = [p.id for p in self.parties]
        if len(set(ids)) != len(ids):
            raise ValueError(f"party ids must be unique, got {ids}")
        known = set(ids)
        for i, event in enumerate(self.events):
            if event.party is not None and event.party not in known:
                raise ValueError(f"events[{i}].party {event.party!r} is not one of the parties {ids}")
        for i, annotation in enumerate(self.annotations):
            if annotation.event is not None and not 0 <= annotation.event < len(self.events):
                raise ValueError(f"annotations[{i}].event {annotation.event} is not an event index (0..{len(self.events) - 1})")
        for key in self.scenario.private:
            if key not in known:
                raise ValueError(f"scenario.private has a view for {key!r}, which is not a party {ids}")
        return self

    def party(self, party_id: str) -> Party:
        """The party with this id."""
        for p in self.parties:
            if p.id == party_id:
                return p
        raise KeyError(party_id)

    def messages(self) -> list[Message]:
        """The natural-language turns, in order."""
        return [e for e in self.events if isinstance(e, Message)]

    def annotations_of(self, layer: str) -> list[Annotation]:
        return [a for a in self.annotations if a.layer == layer]


def dialogue_json_schema() -> dict[str, Any]:
    """The JSON Schema of `Dialogue`, for people and tools outside Python: events are one of every
    registered kind (built in or added by a task)."""
    schema = Dialogue.model_json_schema()
    defs = schema.setdefault("$defs", {})
    refs = []
    for cls in EVENT_CLASSES.values():
        one = cls.model_json_schema(ref_template="#/$defs/{model}")
        defs.update(one.pop("$defs", {}))
        defs[cls.__name__] = one
        refs.append({"$ref": f"#/$defs/{cls.__name__}"})
    schema["properties"]["events"]["items"] = {"oneOf": refs}
    return schema

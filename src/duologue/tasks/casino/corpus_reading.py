"""Reading a checked CaSiNo record into a `Dialogue`.

`CasinoReading` is the part of `CasinoFormat` that converts (mixed into it): parties with their
private priorities and reasons, the chat as messages and deal moves, the outcome and scores, the
party ratings and the strategy annotations, plus the 2021 annotations-only records. Whatever the
schema has no place for is kept in `extra` fields so the writer can give the record back as published.
"""

from __future__ import annotations

from typing import Any, ClassVar, Mapping

from duologue.core.schema import (
    AcceptDeal,
    Annotation,
    Dialogue,
    Message,
    Outcome,
    Party,
    Rating,
    RejectDeal,
    Scenario,
    Source,
    SubmitDeal,
    WalkAway,
)
from duologue.data.compare import same_json
from duologue.data.formats import model_builder
from duologue.tasks.casino.corpus_shapes import (
    ACCEPT,
    ANNOTATED_KEYS,
    ANNOTATED_SHAPE,
    ENTRY_KEYS,
    HF_SHAPE,
    LIKENESS,
    MOVE_DATA,
    OUTCOME_KEYS,
    PARTICIPANT_KEYS,
    RATING_SCALES,
    RECORD_KEYS,
    REJECT,
    STRATEGY_LAYER,
    SUBMIT,
    WALK_AWAY,
    _ENTRY_KEY_SET,
    _RECORD_KEY_SET,
    _align,
    _annotations_only,
    _default_submission,
    _hf_row,
    _labels,
    _native_id,
    _native_labels,
)
from duologue.tasks.casino.rules import (
    ISSUES,
    PACKAGES_PER_ISSUE,
    POINTS_PER_PRIORITY,
    PRIORITY_LEVELS,
    WALK_AWAY_POINTS,
    priorities_from_value2issue,
)


class CasinoReading:
    """Native record -> `Dialogue` for `CasinoFormat` (the record has passed `check`)."""

    name: ClassVar[str]

    def to_dialogue(self, record: Any, *, file: str | None = None, index: int | None = None, split: str | None = None) -> Dialogue:
        # `check` passed, so every value already has its schema type: the models are built without
        # validating them again (`model_builder`), each from fresh dicts and lists.
        if _annotations_only(record):
            return self._annotations_only_dialogue(record, file=file, index=index, split=split)
        info: Mapping[str, Any] = record["participant_info"]
        ids = list(info)
        parties = [_PARTY(id=pid, kind="human", info=_party_info(info[pid])) for pid in ids]
        private = {pid: _private_view(info[pid]) for pid in ids}
        public = {
            "issues": list(ISSUES),
            "packages": {issue: PACKAGES_PER_ISSUE for issue in ISSUES},
            "points": dict(POINTS_PER_PRIORITY),
            "walk_away_points": WALK_AWAY_POINTS,
        }
        events = [_event(entry) for entry in record["chat_logs"]]
        source_extra: dict[str, Any] = {}
        hf = _hf_row(record)
        raw_id = record["dialogue_id"] if not hf else f"row-{index or 0}"  # Hugging Face rows have no id
        if not hf and _native_id(str(raw_id)) != raw_id:
            source_extra["dialogue_id"] = raw_id
        reason_order = {pid: list(info[pid]["value2reason"]) for pid in ids if list(info[pid]["value2reason"]) != list(PRIORITY_LEVELS)}
        if reason_order:  # Hugging Face rows list Low, Medium, High
            source_extra["value2reason_order"] = reason_order
        if record.keys() != _RECORD_KEY_SET:  # not only a count: a key may be missing and another added
            fields = {k: v for k, v in record.items() if k not in RECORD_KEYS}
            if fields:
                source_extra["fields"] = fields
            if "annotations" not in record:  # the 2021 complete file has no annotations field
                source_extra["absent"] = ["annotations"]
        return _DIALOGUE(
            id=str(raw_id),
            task="casino",
            split=split,
            scenario=_SCENARIO(public=public, private=private),
            parties=parties,
            events=events,
            outcome=_outcome(events, info, ids),
            ratings=_ratings(info, ids),
            annotations=_annotations(record.get("annotations", ()), events),
            source=_SOURCE_SHAPED(corpus=self.name, shape=HF_SHAPE if hf else None, file=file, index=index, extra=source_extra),
        )

    def _annotations_only_dialogue(self, record: Mapping[str, Any], *, file: str | None, index: int | None, split: str | None) -> Dialogue:
        """A `casino_annotated` record: its annotated utterances become messages whose speaker the
        file does not say (party None), each carrying its strategy labels."""
        items = record["annotations"]
        events = [_MESSAGE(party=None, text=item[0], extra={}) for item in items]
        annotations = [_ANNOTATION_WITH_VALUE(event=i, layer=STRATEGY_LAYER, labels=_labels(item[1]), value=_native_labels(item[1])) for i, item in enumerate(items)]
        raw_id = record["dialogue_id"]
        source_extra: dict[str, Any] = {}
        if _native_id(str(raw_id)) != raw_id:
            source_extra["dialogue_id"] = raw_id
        if list(record) != list(ANNOTATED_KEYS):
            source_extra["key_order"] = list(record)
            fields = {k: v for k, v in record.items() if k not in ANNOTATED_KEYS}
            if fields:
                source_extra["fields"] = fields
        return _DIALOGUE(
            id=str(raw_id),
            task="casino",
            split=split,
            scenario=_SCENARIO(public={}, private={}),
            parties=[],
            events=events,
            outcome=None,
            ratings=[],
            annotations=annotations,
            source=_SOURCE_SHAPED(corpus=self.name, shape=ANNOTATED_SHAPE, file=file, index=index, extra=source_extra),
        )


def _party_info(participant: Mapping[str, Any]) -> dict[str, Any]:
    info = {key: participant[key] for key in ("demographics", "personality") if key in participant}
    info.update({k: v for k, v in participant.items() if k not in PARTICIPANT_KEYS})
    return info


def _private_view(participant: Mapping[str, Any]) -> dict[str, Any]:
    """What only this participant knows: its priorities and the reasons it gave for them."""
    value2issue = participant["value2issue"]
    value2reason = participant["value2reason"]
    priorities = priorities_from_value2issue(value2issue)  # issue -> level, in ISSUES order
    return {
        "priorities": priorities,
        "value2issue": dict(value2issue),
        "reasons": {issue: value2reason[level] for issue, level in priorities.items()},  # `check` made levels and issues one-to-one
    }


def _event(entry: Mapping[str, Any]):
    text, task_data, party = entry["text"], entry["task_data"], entry["id"]
    extra: dict[str, Any] = {}
    if entry.keys() != _ENTRY_KEY_SET:
        fields = {k: v for k, v in entry.items() if k not in ENTRY_KEYS}
        if fields:
            extra["fields"] = fields
    if text == SUBMIT:
        mine = {issue: int(n) for issue, n in task_data["issue2youget"].items()}
        theirs = {issue: int(n) for issue, n in task_data["issue2theyget"].items()}
        if not same_json(task_data, _default_submission(mine, theirs)):
            extra["task_data"] = task_data
        return _SUBMIT_DEAL(party=party, mine=mine, theirs=theirs, extra=extra)
    kind = _ANSWER_EVENTS.get(text)
    if kind is None:
        if (type(task_data) is not dict or task_data) and not same_json(task_data, {}):  # a chat message's task data is {}
            extra["task_data"] = task_data
        return _MESSAGE(party=party, text=text, extra=extra)
    if not same_json(task_data, MOVE_DATA[text]):
        extra["task_data"] = task_data
    return kind(party=party, extra=extra)


# Builders of models from checked values (no second validation): see `model_builder`.
_DIALOGUE = model_builder(Dialogue, "id", "task", "split", "scenario", "parties", "events", "outcome", "ratings", "annotations", "source")
_SCENARIO = model_builder(Scenario, "public", "private")
_PARTY = model_builder(Party, "id", "kind", "info")
_MESSAGE = model_builder(Message, "party", "text", "extra")
_SUBMIT_DEAL = model_builder(SubmitDeal, "party", "mine", "theirs", "extra")
_ANSWER_EVENTS = {move: model_builder(kind, "party", "extra") for move, kind in ((ACCEPT, AcceptDeal), (REJECT, RejectDeal), (WALK_AWAY, WalkAway))}
_OUTCOME = model_builder(Outcome, "reason", "agreed", "deal", "scores", "extra")
_RATING = model_builder(Rating, "rater_kind", "rater_id", "target", "criterion", "value", "scale")
_ANNOTATION = model_builder(Annotation, "event", "layer", "labels")
_ANNOTATION_WITH_VALUE = model_builder(Annotation, "event", "layer", "labels", "value")
_SOURCE_SHAPED = model_builder(Source, "corpus", "shape", "file", "index", "extra")


def _outcome(events: list, info: Mapping[str, Any], ids: list[str]) -> Outcome:
    pending: SubmitDeal | None = None
    reason, deal = "no_agreement", None
    for event in events:
        kind = type(event)
        if kind is Message:
            continue
        if kind is SubmitDeal:
            pending = event  # type: ignore[assignment]
        elif kind is RejectDeal:
            pending = None
        elif kind is AcceptDeal and pending is not None:
            reason = "agreement"
            deal = {pid: dict(pending.mine if pid == pending.party else pending.theirs) for pid in ids}
            break
        elif kind is WalkAway:
            reason = "walk_away"
            break
    scores = {pid: float(info[pid]["outcomes"]["points_scored"]) for pid in ids if info[pid]["outcomes"]["points_scored"] is not None}
    extra: dict[str, Any] = {}
    leftovers = {pid: _outcome_leftovers(info[pid]["outcomes"]) for pid in ids}
    if any(leftovers.values()):
        extra["outcomes"] = {pid: rest for pid, rest in leftovers.items() if rest}
    return _OUTCOME(reason=reason, agreed=reason == "agreement", deal=deal, scores=scores, extra=extra)


def _outcome_leftovers(outcomes: Mapping[str, Any]) -> dict[str, Any]:
    """Outcome answers the schema does not hold: unknown keys, and answers off their scale (kept as written)."""
    rest = {k: v for k, v in outcomes.items() if k not in OUTCOME_KEYS}
    for criterion, scale in RATING_SCALES.items():
        value = outcomes[criterion]
        if value is not None and not scale.contains(value):
            rest[criterion] = value
    return rest


def _ratings(info: Mapping[str, Any], ids: list[str]) -> list[Rating]:
    ratings = []
    for pid in ids:
        other = next((q for q in ids if q != pid), None)
        for criterion, scale in RATING_SCALES.items():
            value = info[pid]["outcomes"][criterion]
            if value is not None and scale.contains(value):
                target = other if criterion == LIKENESS else None
                ratings.append(_RATING(rater_kind="party", rater_id=pid, target=target, criterion=criterion, value=value, scale=scale))
    return ratings


def _annotations(items: list, events: list) -> list[Annotation]:
    message_positions = [i for i, e in enumerate(events) if type(e) is Message]
    texts = [events[i].text for i in message_positions]
    utterances = [item[0] for item in items]
    out = []
    for j, matched in _align(utterances, texts):
        utterance, text = items[j]
        native = _native_labels(text)
        if matched is None:  # kept whole so the writer can give it back
            out.append(_ANNOTATION_WITH_VALUE(event=None, layer=STRATEGY_LAYER, labels=_labels(text), value={"utterance": utterance, **(native or {})}))
        elif native is not None:
            out.append(_ANNOTATION_WITH_VALUE(event=message_positions[matched], layer=STRATEGY_LAYER, labels=_labels(text), value=native))
        else:
            out.append(_ANNOTATION(event=message_positions[matched], layer=STRATEGY_LAYER, labels=_labels(text)))
    return out

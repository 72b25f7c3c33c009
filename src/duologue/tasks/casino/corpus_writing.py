"""Writing a `Dialogue` as a CaSiNo record.

`CasinoWriting` is the part of `CasinoFormat` that writes (mixed into it): a dialogue read from
CaSiNo comes back in its published shape and key order, with the leftovers the reader kept; one from
elsewhere (self-play, the platform) gets the split files' shape, its platform notes left out.
"""

from __future__ import annotations

from typing import Any, ClassVar, Mapping

from duologue.core.schema import (
    AcceptDeal,
    Dialogue,
    Message,
    Party,
    Rating,
    RejectDeal,
    Scale,
    SubmitDeal,
    SystemNote,
    WalkAway,
)
from duologue.tasks.casino.corpus_shapes import (
    ACCEPT,
    ANNOTATED_SHAPE,
    HF_SHAPE,
    MOVE_DATA,
    MOVES,
    RATING_SCALES,
    REJECT,
    STRATEGY_LAYER,
    SUBMIT,
    WALK_AWAY,
    _default_submission,
    _labels,
    _native_id,
)
from duologue.tasks.casino.rules import (
    PRIORITY_LEVELS,
    priorities_from_value2issue,
)


class CasinoWriting:
    """`Dialogue` -> native record for `CasinoFormat`."""

    name: ClassVar[str]

    def from_dialogue(self, dialogue: Dialogue) -> dict[str, Any]:
        ours = dialogue.source.corpus == self.name
        source_extra = dialogue.source.extra if ours else {}
        dialogue_id = source_extra.get("dialogue_id", _native_id(dialogue.id))
        if ours and dialogue.source.shape == ANNOTATED_SHAPE:
            values = {"dialogue_id": dialogue_id, "annotations": _native_annotations(dialogue), **source_extra.get("fields", {})}
            order = source_extra.get("key_order") or list(values)
            return {key: values[key] for key in order if key in values}
        record: dict[str, Any] = {
            "dialogue_id": dialogue_id,
            "chat_logs": [entry for event in dialogue.events if (entry := _entry(event, ours)) is not None],
            "participant_info": {p.id: _participant(dialogue, p, ours, source_extra.get("value2reason_order", {}).get(p.id)) for p in dialogue.parties},
            "annotations": _native_annotations(dialogue),
        }
        if not record["annotations"] and "annotations" in (source_extra.get("absent") or ()):
            del record["annotations"]
        if ours and dialogue.source.shape == HF_SHAPE:
            del record["dialogue_id"]
        record.update(source_extra.get("fields", {}))
        return record


def _default_task_data(event) -> dict[str, Any]:
    if isinstance(event, SubmitDeal):
        return _default_submission(event.mine, event.theirs)
    for move, kind in ((ACCEPT, AcceptDeal), (REJECT, RejectDeal), (WALK_AWAY, WalkAway)):
        if isinstance(event, kind):
            return dict(MOVE_DATA[move])
    return {}


def _entry(event, ours: bool) -> dict[str, Any] | None:
    """A chat_logs entry; platform notes (timeouts, disconnects) have no native place and are left out.

    `ours`: the event was read from CaSiNo, so its `extra` holds native leftovers to give back.
    """
    if isinstance(event, SystemNote):
        return None
    if isinstance(event, Message):
        text = event.text
    elif isinstance(event, SubmitDeal):
        text = SUBMIT
    elif isinstance(event, AcceptDeal):
        text = ACCEPT
    elif isinstance(event, RejectDeal):
        text = REJECT
    elif isinstance(event, WalkAway):
        text = WALK_AWAY
    else:
        raise ValueError(f"a {event.kind!r} event has no place in a CaSiNo record (its moves are messages and {', '.join(MOVES)})")
    if event.party is None:
        raise ValueError(f"a CaSiNo chat entry needs a participant id, but this {event.kind!r} event has none")
    leftovers = event.extra if ours else {}
    entry = {"text": text, "task_data": leftovers.get("task_data", _default_task_data(event)), "id": event.party}
    entry.update(leftovers.get("fields", {}))
    return entry


def _participant(dialogue: Dialogue, party: Party, ours: bool, reason_order: list[str] | None = None) -> dict[str, Any]:
    view = dialogue.scenario.private.get(party.id, {})
    native = view.get("value2issue")
    stored: Mapping[str, str] = native if isinstance(native, Mapping) else {}
    priorities = view.get("priorities") or priorities_from_value2issue(stored)
    issue_of = {level: issue for issue, level in priorities.items()}
    order = list(stored) if sorted(stored) == sorted(PRIORITY_LEVELS) else list(PRIORITY_LEVELS)
    reasons = view.get("reasons") or {}
    participant: dict[str, Any] = {
        "value2issue": {level: issue_of[level] for level in order if level in issue_of},
        "value2reason": {level: reasons.get(issue_of.get(level), "") for level in reason_order or PRIORITY_LEVELS} if issue_of else {},
        "outcomes": _native_outcomes(dialogue, party.id),
        "demographics": party.info.get("demographics", {}),
        "personality": party.info.get("personality", {}),
    }
    if ours:  # the 2021 release has neither: leave out what the record left out
        for key in ("demographics", "personality"):
            if key not in party.info:
                del participant[key]
    participant.update({k: v for k, v in party.info.items() if k not in participant})
    return participant


def _native_outcomes(dialogue: Dialogue, party_id: str) -> dict[str, Any]:
    score = dialogue.outcome.scores.get(party_id) if dialogue.outcome else None
    if isinstance(score, float) and score.is_integer():
        score = int(score)
    outcomes: dict[str, Any] = {"points_scored": score}
    for criterion, scale in RATING_SCALES.items():
        rating = next((r for r in dialogue.ratings if r.rater_kind == "party" and r.rater_id == party_id and r.criterion == criterion), None)
        outcomes[criterion] = None if rating is None else _label(rating, scale)
    if dialogue.outcome and dialogue.source.corpus == "casino":
        outcomes.update(dialogue.outcome.extra.get("outcomes", {}).get(party_id, {}))
    return outcomes


def _label(rating: Rating, scale: Scale) -> str | int | float:
    """The corpus's label for a rating; a 1..5 number from a platform questionnaire maps to the n-th label."""
    labels = scale.labels or []
    value = rating.value
    if isinstance(value, (int, float)) and float(value).is_integer() and 1 <= value <= len(labels):
        return labels[int(value) - 1]
    return value


def _native_annotations(dialogue: Dialogue) -> list[list[str]]:
    rows = []
    for annotation in dialogue.annotations_of(STRATEGY_LAYER):
        if isinstance(annotation.value, Mapping) and isinstance(annotation.value.get("utterance"), str):
            utterance = annotation.value["utterance"]
        elif annotation.event is not None and isinstance(event := dialogue.events[annotation.event], Message):
            utterance = event.text
        else:
            continue
        native = annotation.value.get("labels") if isinstance(annotation.value, Mapping) else None
        written = native if isinstance(native, str) and _labels(native) == annotation.labels else ",".join(annotation.labels)
        rows.append([utterance, written])
    return rows

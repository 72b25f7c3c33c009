"""The CaSiNo record shapes: the native keys, moves, scales and labels, and the small tests of a
record's shape that checking, reading and writing share.

The moves and their `task_data`, the record, entry, participant and outcome keys, the rating scales,
the `Source.shape` names of the 2021 annotations file and the Hugging Face rows; which shape a
record has, its native id, its strategy labels in the corpus's spelling, how annotated utterances
line up with the chat, what a misspelt move looks like and the task data of a submitted deal.
"""

from __future__ import annotations

import re
from typing import Any, Iterator, Mapping

from duologue.core.schema import Scale
from duologue.tasks.casino.rules import (
    LIKENESS_SCALE,
    PACKAGES_PER_ISSUE,
    SATISFACTION_SCALE,
    STRATEGY_LABELS,
)

SUBMIT, ACCEPT, REJECT, WALK_AWAY = "Submit-Deal", "Accept-Deal", "Reject-Deal", "Walk-Away"
MOVES: tuple[str, ...] = (SUBMIT, ACCEPT, REJECT, WALK_AWAY)
MOVE_DATA: dict[str, dict[str, str]] = {
    ACCEPT: {"data": "accept_deal"},
    REJECT: {"data": "reject_deal"},
    WALK_AWAY: {"data": "walk_away"},
}
"""The `task_data` the corpus writes for each answer move."""

RECORD_KEYS = ("dialogue_id", "chat_logs", "participant_info", "annotations")
ENTRY_KEYS = ("text", "task_data", "id")
_RECORD_KEY_SET = frozenset(RECORD_KEYS)
_ENTRY_KEY_SET = frozenset(ENTRY_KEYS)
PARTICIPANT_KEYS = ("value2issue", "value2reason", "outcomes", "demographics", "personality")
OUTCOME_KEYS = ("points_scored", "satisfaction", "opponent_likeness")
DEMOGRAPHIC_TYPES: dict[str, type] = {"age": int, "gender": str, "ethnicity": str, "education": str}

SATISFACTION, LIKENESS = "satisfaction", "opponent_likeness"
RATING_SCALES: dict[str, Scale] = {SATISFACTION: SATISFACTION_SCALE, LIKENESS: LIKENESS_SCALE}
STRATEGY_LAYER = "strategy"
ANNOTATED_SHAPE = "annotations"
"""`Source.shape` of records from the 2021 `casino_annotated` file (no chat, no participants)."""
ANNOTATED_KEYS = ("dialogue_id", "annotations")
HF_SHAPE = "hf"
"""`Source.shape` of rows of the Hugging Face `casino` dataset: the record shape without `dialogue_id`,
every `task_data` holding all three keys (null where unused)."""
HF_EMPTY_TASK_DATA: dict[str, None] = {"data": None, "issue2youget": None, "issue2theyget": None}
"""A chat message's `task_data` in the Hugging Face rows (the split files write `{}`)."""
COUNT_STRINGS = tuple(str(n) for n in range(PACKAGES_PER_ISSUE + 1))


# ---------------------------------------------------------------------- record shapes and labels


_INTEGER = re.compile(r"-?(0|[1-9][0-9]*)")


def _native_id(dialogue_id: str) -> int | str:
    """Corpus ids are integers; other ids (uuids from the platform) stay strings."""
    return int(dialogue_id) if _INTEGER.fullmatch(dialogue_id) else dialogue_id


def _hf_row(record: Mapping) -> bool:
    """Whether a record is a Hugging Face `casino` row (the chat, without a `dialogue_id`)."""
    return "dialogue_id" not in record and "chat_logs" in record


def _annotations_only(record: Mapping) -> bool:
    """Whether a record has the 2021 `casino_annotated` shape (annotations without the chat)."""
    return "annotations" in record and "chat_logs" not in record and "participant_info" not in record


_STRATEGY_SET = frozenset(STRATEGY_LABELS)


def _labels(text: str) -> list[str]:
    """The strategy labels of a native label list, in the corpus's lower-case spelling.

    The 2021 release capitalises them (`Self-Need`, `UV-Part`); empty labels (`a,,b`) are skipped;
    an unknown label is kept as written. `_native_labels` keeps the text when it is spelt otherwise.
    """
    labels = []
    for label in text.split(","):
        if label:
            folded = label.lower()
            labels.append(folded if folded in _STRATEGY_SET else label)
    return labels


def _native_labels(text: str) -> dict[str, str] | None:
    """`{"labels": text}` when the writer would not spell the labels back this way, else None."""
    return None if ",".join(_labels(text)) == text else {"labels": text}


def _align(utterances: list[str], messages: list[str]) -> Iterator[tuple[int, int | None]]:
    """Match annotated utterances to messages in order: (annotation position, message position or None).

    An utterance with no later match is reported as unmatched and does not move the cursor, so one
    stray annotation does not unmatch all those after it.
    """
    cursor = 0
    for j, utterance in enumerate(utterances):
        k = cursor
        while k < len(messages) and messages[k] != utterance:
            k += 1
        if k < len(messages):
            yield j, k
            cursor = k + 1
        else:
            yield j, None


# ---------------------------------------------------------------------- moves


_MOVE_SEPARATORS = re.compile(r"[\s_-]+")
_FOLDED_MOVES = frozenset(m.lower() for m in MOVES)
_MOVE_FIRST_WORDS = tuple(sorted({m.lower().split("-")[0] for m in MOVES}))  # submit, accept, reject, walk


def _looks_like_move(text: str) -> bool:
    """A text meant as a deal move but misspelt (`walk-away`, `Submit Deal`) rather than a chat line."""
    # A move's first word is at most 6 letters, each lowered to one letter: this looks at no more
    # than that, and it stops nearly every chat line before the costlier folding below.
    if not text.lstrip()[:6].lower().startswith(_MOVE_FIRST_WORDS):
        return False
    return _MOVE_SEPARATORS.sub("-", text.strip().lower()) in _FOLDED_MOVES


def _default_submission(mine: Mapping[str, int], theirs: Mapping[str, int]) -> dict[str, Any]:
    """The `task_data` the corpus writes for a Submit-Deal: the two shares with counts as strings."""
    return {
        "issue2youget": {issue: str(n) for issue, n in mine.items()},
        "issue2theyget": {issue: str(n) for issue, n in theirs.items()},
    }

"""The quick check of a CaSiNo record: one pass of exact type and value tests that a sound record passes.

`CasinoChecks.quick_check` runs it first; only a record it does not pass is walked in detail to
name its problems. It accepts nothing the detailed check would flag, warnings included.
"""

from __future__ import annotations

from typing import Any

from duologue.tasks.casino.corpus_shapes import (
    ACCEPT,
    COUNT_STRINGS,
    DEMOGRAPHIC_TYPES,
    RATING_SCALES,
    REJECT,
    SUBMIT,
    WALK_AWAY,
    _STRATEGY_SET,
    _annotations_only,
    _looks_like_move,
)
from duologue.tasks.casino.rules import (
    ISSUES,
    MAX_POINTS,
    PACKAGES_PER_ISSUE,
    POINTS_PER_PRIORITY,
    PRIORITY_LEVELS,
    WALK_AWAY_POINTS,
)

_LEVEL_SET = frozenset(PRIORITY_LEVELS)
_ISSUE_SET = frozenset(ISSUES)
_ANSWERS = {key: frozenset(scale.labels or ()) for key, scale in RATING_SCALES.items()}
_COUNTS = {text: int(text) for text in COUNT_STRINGS}
_ABSENT: dict = {}
"""Stands for an optional object the record leaves out (never changed)."""


def _quick_record(record: dict) -> bool:
    if type(record.get("dialogue_id")) not in (int, str) or _annotations_only(record):
        return False
    info = record.get("participant_info")
    if type(info) is not dict or len(info) != 2:
        return False
    level_of: dict[str, dict[str, str]] = {}  # participant -> issue -> priority level
    for pid, participant in info.items():
        if type(participant) is not dict:
            return False
        issues = _quick_priorities(participant)
        if issues is None or not _quick_answers(participant):
            return False
        level_of[pid] = issues
    logs = record.get("chat_logs")
    annotations = record.get("annotations", ())
    if type(logs) is not list or (type(annotations) is not list and annotations != ()):
        return False
    messages: list[str] = []
    pending: tuple[str, dict, dict] | None = None  # proposer, what it gets, what the other gets
    agreed: tuple[str, dict, dict] | None = None
    ended: str | None = None
    for entry in logs:
        if type(entry) is not dict:
            return False
        text, task_data, speaker = entry.get("text"), entry.get("task_data"), entry.get("id")
        if type(text) is not str or type(task_data) is not dict or type(speaker) is not str or speaker not in info or ended is not None:
            return False
        if text == SUBMIT:
            mine = _quick_share(task_data.get("issue2youget"))
            theirs = _quick_share(task_data.get("issue2theyget"))
            if mine is None or theirs is None or any(mine[issue] + theirs[issue] != PACKAGES_PER_ISSUE for issue in ISSUES):
                return False
            pending = (speaker, mine, theirs)
        elif text == ACCEPT or text == REJECT:
            if pending is None or speaker == pending[0]:
                return False
            if text == ACCEPT:
                agreed, ended = pending, text
            pending = None
        elif text == WALK_AWAY:
            ended = text
        elif task_data or _looks_like_move(text):
            return False
        else:
            messages.append(text)
    if ended is not None:
        for pid, issues in level_of.items():
            scored = info[pid]["outcomes"]["points_scored"]
            if scored is None:
                continue
            if ended == WALK_AWAY or agreed is None:
                expected = WALK_AWAY_POINTS
            else:
                share = agreed[1] if pid == agreed[0] else agreed[2]
                expected = sum(POINTS_PER_PRIORITY[issues[issue]] * share[issue] for issue in ISSUES)
            if scored != expected:
                return False
    cursor = 0
    for item in annotations:
        if type(item) is not list or len(item) != 2:
            return False
        utterance, labels = item
        if type(utterance) is not str or type(labels) is not str or not _STRATEGY_SET.issuperset(labels.lower().split(",")):
            return False
        try:  # annotations follow the chat in order
            cursor = messages.index(utterance, cursor) + 1
        except ValueError:
            return False
    return True


def _quick_priorities(participant: dict) -> dict[str, str] | None:
    """Issue -> level when value2issue and value2reason are sound, else None."""
    value2issue = participant.get("value2issue")
    value2reason = participant.get("value2reason")
    if type(value2issue) is not dict or type(value2reason) is not dict or len(value2issue) != 3 or len(value2reason) != 3:
        return None
    if not _LEVEL_SET.issuperset(value2issue) or not _LEVEL_SET.issuperset(value2reason):
        return None
    issues = {}
    for level, issue in value2issue.items():
        if type(issue) is not str or issue not in _ISSUE_SET or issue in issues:
            return None
        issues[issue] = level
    for reason in value2reason.values():
        if type(reason) is not str:
            return None
    return issues


def _quick_answers(participant: dict) -> bool:
    """Outcomes, demographics and personality have the types and values `check` requires."""
    outcomes = participant.get("outcomes")
    demographics = participant.get("demographics", _ABSENT)  # both absent in the 2021 release
    personality = participant.get("personality", _ABSENT)
    if type(outcomes) is not dict or type(demographics) is not dict or type(personality) is not dict:
        return False
    if "points_scored" not in outcomes:
        return False
    scored = outcomes["points_scored"]
    if scored is not None and (type(scored) is not int or not 0 <= scored <= MAX_POINTS):
        return False
    for key, answers in _ANSWERS.items():
        if key not in outcomes:
            return False
        answer = outcomes[key]
        if answer is not None and (type(answer) is not str or answer not in answers):
            return False
    for key, kind in DEMOGRAPHIC_TYPES.items():  # exact types: a boolean is no age
        value = demographics.get(key)
        if value is not None and type(value) is not kind:
            return False
    svo = personality.get("svo")
    if svo is not None and type(svo) is not str:
        return False
    big_five = personality.get("big-five")
    if big_five is not None:
        if type(big_five) is not dict:
            return False
        for score in big_five.values():
            if type(score) is not float and type(score) is not int:
                return False
    return True


def _quick_share(share: Any) -> dict[str, int] | None:
    """A Submit-Deal share as issue -> count when it names exactly the issues with counts "0".."3"."""
    if type(share) is not dict or len(share) != len(ISSUES):
        return None
    counts = {}
    for issue in ISSUES:
        text = share.get(issue)
        if type(text) is not str or text not in _COUNTS:
            return None
        counts[issue] = _COUNTS[text]
    return counts

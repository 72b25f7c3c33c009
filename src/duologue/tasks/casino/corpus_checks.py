"""Checking CaSiNo records: the errors that refuse a record and the rule anomalies kept as warnings.

`CasinoChecks` is the part of `CasinoFormat` that checks (mixed into it): the quick pass
(`corpus_quick.py`), then, for a record that fails it, a walk of the whole record naming each
problem with its path: the participants and their answers, the chat and its deal flow, the points
the rules give, and the strategy annotations.
"""

from __future__ import annotations

from typing import Any, Mapping

from duologue.data.formats import Checker, Problem, json_type
from duologue.tasks.casino.corpus_shapes import (
    ACCEPT,
    COUNT_STRINGS,
    DEMOGRAPHIC_TYPES,
    HF_EMPTY_TASK_DATA,
    MOVES,
    RATING_SCALES,
    REJECT,
    SUBMIT,
    WALK_AWAY,
    _STRATEGY_SET,
    _align,
    _annotations_only,
    _hf_row,
    _looks_like_move,
)
from duologue.tasks.casino.corpus_quick import _quick_record
from duologue.tasks.casino.rules import (
    ISSUES,
    MAX_POINTS,
    PACKAGES_PER_ISSUE,
    PRIORITY_LEVELS,
    STRATEGY_LABELS,
    WALK_AWAY_POINTS,
    points,
    priorities_from_value2issue,
)


class CasinoChecks:
    """The checks of `CasinoFormat` (see the `corpus` module docstring for the errors and warnings)."""

    def quick_check(self, record: dict[str, Any]) -> bool:
        return _quick_record(record)

    def check_in_detail(self, record: Any) -> list[Problem]:
        """Walk the whole record and name every problem with its path (run when the quick pass fails)."""
        c = Checker()
        if not isinstance(record, Mapping):
            c.fail("$", f"expected a dialogue object, got {json_type(record)}")
            return c.problems
        if _annotations_only(record):
            return self._check_annotations_only(record)
        hf = _hf_row(record)
        if not hf:
            c.require(record, "dialogue_id", (int, str), "$")
        participants = self._check_participants(c, record)
        logs = c.require(record, "chat_logs", list, "$")
        messages: list[str] | None = None
        if logs is not None:
            messages = self._check_chat(c, logs, participants, record.get("participant_info"), hf=hf)
        annotations = c.optional(record, "annotations", list, "$", nullable=False)  # absent in the 2021 complete file
        if annotations is not None:
            self._check_annotations(c, annotations, messages)
        return c.problems

    def _check_annotations_only(self, record: Mapping) -> list[Problem]:
        """The 2021 `casino_annotated` shape: `{dialogue_id, annotations}` and nothing else."""
        c = Checker()
        c.require(record, "dialogue_id", (int, str), "$")
        annotations = c.require(record, "annotations", list, "$")
        if annotations is not None:
            self._check_annotations(c, annotations, None)
        return c.problems

    def _check_participants(self, c: Checker, record: Mapping) -> list[str] | None:
        """Check every participant's view and answers; return the participant ids (None if unusable)."""
        info = c.require(record, "participant_info", dict, "$")
        if info is None:
            return None
        if len(info) != 2:
            c.fail("$.participant_info", f"expected exactly two participants, got {len(info)}: {list(info)}")
        for pid, participant in info.items():
            path = f"$.participant_info.{pid}"
            if not isinstance(participant, Mapping):
                c.fail(path, f"expected an object, got {json_type(participant)}")
                continue
            self._check_priorities(c, participant, path)
            outcomes = c.require(participant, "outcomes", dict, path)
            if outcomes is not None:
                here = f"{path}.outcomes"
                scored = c.require(outcomes, "points_scored", int, here, nullable=True)
                if scored is not None and not 0 <= scored <= MAX_POINTS:
                    c.warn(f"{here}.points_scored", f"{scored} points is outside the possible 0..{MAX_POINTS}", "points-out-of-range")
                for key, scale in RATING_SCALES.items():
                    answer = c.require(outcomes, key, str, here, nullable=True)
                    if answer is not None and not scale.contains(answer):
                        c.warn(f"{here}.{key}", f"{answer!r} is not on the {key} scale {scale.labels}", "rating-off-scale")
            demographics = c.optional(participant, "demographics", dict, path, nullable=False)  # absent in the 2021 release
            if demographics is not None:
                for key, kind in DEMOGRAPHIC_TYPES.items():
                    c.optional(demographics, key, kind, f"{path}.demographics")
            personality = c.optional(participant, "personality", dict, path, nullable=False)
            if personality is not None:
                c.optional(personality, "svo", str, f"{path}.personality")
                big_five = c.optional(personality, "big-five", dict, f"{path}.personality")
                for trait in big_five or {}:  # null in Hugging Face rows of participants without scores
                    c.require(big_five, trait, float, f"{path}.personality.big-five", nullable=True)
        return list(info)

    def _check_priorities(self, c: Checker, participant: Mapping, path: str) -> None:
        value2issue = c.require(participant, "value2issue", dict, path)
        if value2issue is not None:
            here = f"{path}.value2issue"
            if sorted(value2issue) != sorted(PRIORITY_LEVELS):
                c.fail(here, f"priority levels must be exactly {list(PRIORITY_LEVELS)}, got {list(value2issue)}")
            issues = [c.require(value2issue, level, str, here) for level in value2issue]
            if all(i is not None for i in issues) and sorted(issues) != sorted(ISSUES):
                c.fail(here, f"priorities must rank each of {list(ISSUES)} once, got {issues}")
        value2reason = c.require(participant, "value2reason", dict, path)
        if value2reason is not None:
            here = f"{path}.value2reason"
            if sorted(value2reason) != sorted(PRIORITY_LEVELS):
                c.fail(here, f"reasons must be given for exactly {list(PRIORITY_LEVELS)}, got {list(value2reason)}")
            for level in value2reason:
                c.require(value2reason, level, str, here)

    def _check_chat(self, c: Checker, logs: list, participants: list[str] | None, info: Any, *, hf: bool = False) -> list[str] | None:
        """Check entries and the deal flow; return the chat messages' texts (None if unusable)."""
        messages: list[str] = []
        usable = True
        pending: tuple[str | None, int, dict | None] | None = None  # proposer, index, shares
        ended: tuple[str, int] | None = None  # move, index
        agreed: tuple[str | None, int, dict | None] | None = None
        for i, entry in enumerate(logs):
            path = f"$.chat_logs[{i}]"
            if not isinstance(entry, Mapping):
                c.fail(path, f"expected a chat entry object, got {json_type(entry)}")
                usable = False
                continue
            text = c.require(entry, "text", str, path)
            task_data = c.require(entry, "task_data", dict, path)
            speaker = c.require(entry, "id", str, path)
            if speaker is not None and participants is not None and speaker not in participants:
                c.fail(f"{path}.id", f"{speaker!r} is not one of the two participants {participants}")
            if text is None:
                usable = False
                continue
            if ended is not None:
                c.warn(path, f"entry after the negotiation ended with {ended[0]} at chat_logs[{ended[1]}]", "entry-after-end")
            if text not in MOVES:
                if _looks_like_move(text):
                    c.warn(f"{path}.text", f"unknown deal move {text!r} (read as a chat message); the moves are {', '.join(MOVES)}", "unknown-move")
                elif task_data and not (hf and task_data == HF_EMPTY_TASK_DATA):
                    c.warn(f"{path}.task_data", f"a chat message carries task data {task_data!r}; only the deal moves {', '.join(MOVES)} do", "task-data-on-message")
                messages.append(text)
                continue
            if text == SUBMIT:
                shares = self._check_submission(c, task_data, f"{path}.task_data") if task_data is not None else None
                pending = (speaker, i, shares)
            elif text in (ACCEPT, REJECT):
                if pending is None:
                    c.warn(path, f"{text} with no pending deal: no Submit-Deal awaits an answer", "answer-without-deal")
                elif speaker is not None and speaker == pending[0]:
                    c.warn(path, f"{text} by {speaker!r}, who submitted the pending deal at chat_logs[{pending[1]}]; only the other participant answers it", "own-deal-answered")
                elif text == ACCEPT:
                    agreed = pending
                    ended = (text, i)
                pending = None
            else:
                ended = (text, i)
        if ended is not None and participants is not None and isinstance(info, Mapping):
            self._check_points(c, info, participants, walked_away=ended[0] == WALK_AWAY, agreed=agreed)
        return messages if usable else None

    def _check_submission(self, c: Checker, task_data: Mapping, path: str) -> dict[str, dict[str, int]] | None:
        """Check a Submit-Deal's two shares; return them as ints when they are well formed."""
        shares: dict[str, dict[str, int]] = {}
        well_formed = True
        for key in ("issue2youget", "issue2theyget"):
            share = c.require(task_data, key, dict, path)
            if share is None:
                well_formed = False
                continue
            here = f"{path}.{key}"
            for issue in share:
                if issue not in ISSUES:
                    c.fail(f"{here}.{issue}", f"unknown issue; the issues are {list(ISSUES)}")
                    well_formed = False
            for issue in ISSUES:
                count = c.require(share, issue, str, here)
                if count is None:
                    well_formed = False
                elif count not in COUNT_STRINGS:
                    c.fail(f"{here}.{issue}", f"expected a package count \"0\"..\"{PACKAGES_PER_ISSUE}\", got {count!r}")
                    well_formed = False
            if well_formed:
                shares[key] = {issue: int(share[issue]) for issue in ISSUES}
        if not well_formed:
            return None
        for issue in ISSUES:
            mine, theirs = shares["issue2youget"][issue], shares["issue2theyget"][issue]
            if mine + theirs != PACKAGES_PER_ISSUE:
                c.warn(path, f"{issue}: {mine} + {theirs} packages do not add up to {PACKAGES_PER_ISSUE}", "deal-does-not-add-up")
                well_formed = False
        return shares if well_formed else None

    def _check_points(self, c: Checker, info: Mapping, participants: list[str], *, walked_away: bool, agreed: tuple | None) -> None:
        """points_scored must be what the rules give: the deal's value by the party's priorities, or 5 for a walk-away."""
        if len(participants) != 2:
            return
        expected: dict[str, int] = {}
        why = ""
        if walked_away:
            expected = {pid: WALK_AWAY_POINTS for pid in participants}
            why = "a walk-away gives each participant"
        elif agreed is not None and agreed[2] is not None and agreed[0] in participants:
            proposer, index, shares = agreed
            why = f"by its priorities the deal accepted at chat_logs[{index}] is worth"
            for pid in participants:
                share = shares["issue2youget"] if pid == proposer else shares["issue2theyget"]
                priorities = _valid_priorities(info.get(pid))
                if priorities is not None:
                    expected[pid] = points(share, priorities)
        for pid, value in expected.items():
            outcomes = info[pid].get("outcomes") if isinstance(info.get(pid), Mapping) else None
            scored = outcomes.get("points_scored") if isinstance(outcomes, Mapping) else None
            if isinstance(scored, int) and not isinstance(scored, bool) and scored != value:
                c.warn(f"$.participant_info.{pid}.outcomes.points_scored", f"{scored} points, but {why} {value}", "points-mismatch")

    def _check_annotations(self, c: Checker, annotations: list, messages: list[str] | None) -> None:
        utterances: list[tuple[int, str]] = []
        for j, item in enumerate(annotations):
            path = f"$.annotations[{j}]"
            if not (isinstance(item, list) and len(item) == 2 and all(isinstance(x, str) for x in item)):
                c.fail(path, f'expected [utterance, "label,label"] (two strings), got {json_type(item)} {item!r:.80}')
                continue
            for label in item[1].split(","):
                if label == "":
                    c.warn(f"{path}[1]", f"empty strategy label in {item[1]!r} (kept as written; the label list skips it)", "empty-label")
                elif label.lower() not in _STRATEGY_SET:  # the 2021 release capitalises labels (`Self-Need`)
                    c.warn(f"{path}[1]", f"unknown strategy label {label!r}; the labels are {', '.join(STRATEGY_LABELS)}", "unknown-label")
            utterances.append((j, item[0]))
        if messages is None:
            return
        for j, matched in _align([u for _, u in utterances], messages):
            if matched is None:
                index = utterances[j][0]
                c.warn(f"$.annotations[{index}][0]", "annotated utterance matches no chat message after the previous annotated one (annotations follow the chat in order)", "unmatched-annotation")


def _valid_priorities(participant: Any) -> dict[str, str] | None:
    value2issue = participant.get("value2issue") if isinstance(participant, Mapping) else None
    if not isinstance(value2issue, Mapping) or sorted(value2issue) != sorted(PRIORITY_LEVELS):
        return None
    if not all(isinstance(v, str) for v in value2issue.values()) or sorted(value2issue.values()) != sorted(ISSUES):
        return None
    return priorities_from_value2issue(value2issue)

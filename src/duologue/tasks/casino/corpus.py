"""The CaSiNo corpus format (Chawla et al., NAACL 2021): reader, writer and checks.

Native files (`casino_train.json`, `casino_valid.json`, ...) hold a JSON array of records:

```
{
  "dialogue_id": 938,                                   # an integer
  "chat_logs": [                                        # the transcript, in order
    {"text": "Hello!", "task_data": {}, "id": "mturk_agent_1"},
    {"text": "Submit-Deal", "id": "mturk_agent_2",
     "task_data": {"issue2youget": {"Water": "3", "Firewood": "1", "Food": "0"},    # the proposer's share
                   "issue2theyget": {"Water": "0", "Firewood": "2", "Food": "3"}}}, # counts are strings
    {"text": "Accept-Deal", "task_data": {"data": "accept_deal"}, "id": "mturk_agent_1"},
    ...                                                  # also Reject-Deal (reject_deal), Walk-Away (walk_away)
  ],
  "participant_info": {                                  # first key = the participant who spoke first
    "mturk_agent_1": {
      "value2issue": {"High": "Firewood", "Medium": "Food", "Low": "Water"},   # private priorities
      "value2reason": {"High": "...", "Medium": "...", "Low": "..."},          # why, per level
      "outcomes": {"points_scored": 22, "satisfaction": "Extremely satisfied",
                   "opponent_likeness": "Extremely like"},
      "demographics": {"age": 36, "gender": "male", "ethnicity": "...", "education": "..."},
      "personality": {"svo": "prosocial", "big-five": {"extraversion": 2.0, ...}}
    },
    "mturk_agent_2": {...}
  },
  "annotations": [["Hello!", "small-talk"], ...]         # [utterance, "label,label"]; [] if unannotated
}
```

Mapping to the schema: parties keep the corpus ids (in `participant_info` order) with demographics
and personality in `Party.info`; `scenario.private[party]` holds `priorities` (issue -> level),
`value2issue` as the corpus has it, and `reasons` (issue -> reason); chat entries become `Message`
events and the four deal moves become `SubmitDeal` (string counts as ints), `AcceptDeal`,
`RejectDeal` and `WalkAway`. The outcome is the accepted split (party -> share), a walk-away or no
agreement, with `points_scored` as scores. Satisfaction and opponent likeness become party ratings on
their five-label scales; strategy annotations are attached to the message they label.

Published shapes, all read and written back in their own key order: the split files
(`casino_train.json` ...) and the full file (`casino.json`); the 2021 release's `casino_complete.json`
(no `demographics`, `personality` or `annotations`: absent fields stay absent) and
`casino_annotated.json` (`{dialogue_id, annotations}` only: the annotated utterances become messages
with no known speaker, `Source.shape == "annotations"`); and Hugging Face `casino` rows (no
`dialogue_id`; every `task_data` has `data`, `issue2youget`, `issue2theyget`, null where unused;
`Source.shape == "hf"`). Strategy labels are read in the corpus's lower-case spelling (`Self-Need`
-> `self-need`); a label list spelt otherwise is kept in the annotation's `value.labels` and written
back as published.

Errors and warnings. Errors (the record is refused): not an object, a missing or mistyped field,
not exactly two participants, priorities that do not rank each issue once, a speaker who is not a
participant, a package count that is not "0".."3", a malformed annotation. Warnings (rule anomalies:
the record loads whole and the anomaly goes to `Dialogue.anomalies`, with these codes):
`empty-label` and `unknown-label` (a strategy label list such as `small-talk,self-need,,vouch-fair`),
`deal-does-not-add-up` (shares that do not sum to 3 per issue), `answer-without-deal` and
`own-deal-answered` (an accept or reject with no pending deal, or by its proposer),
`entry-after-end`, `unknown-move` (a misspelt move, read as a chat message),
`task-data-on-message`, `unmatched-annotation`, `points-mismatch` and `points-out-of-range`, and
`rating-off-scale` (a satisfaction or likeness answer off its five labels: kept as written in the
outcome's leftovers, with no rating made of it).

Annotations and messages: the annotated utterances are the chat messages in order, but two published
dialogues (428 and 596) leave one message unannotated, so annotations are matched to messages in
order rather than by position; unlabelled messages simply carry no annotation.
"""

from __future__ import annotations

import re
from typing import Any, Iterator, Mapping

from duologue.core.schema import (
    AcceptDeal,
    Annotation,
    Dialogue,
    Message,
    Outcome,
    Party,
    Rating,
    RejectDeal,
    Scale,
    Scenario,
    Source,
    SubmitDeal,
    SystemNote,
    WalkAway,
)
from duologue.data.compare import same_json
from duologue.data.formats import Checker, CorpusFormat, Problem, json_type, model_builder
from duologue.tasks.casino.rules import (
    ISSUES,
    LIKENESS_SCALE,
    MAX_POINTS,
    PACKAGES_PER_ISSUE,
    POINTS_PER_PRIORITY,
    PRIORITY_LEVELS,
    SATISFACTION_SCALE,
    STRATEGY_LABELS,
    WALK_AWAY_POINTS,
    points,
    priorities_from_value2issue,
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


class CasinoFormat(CorpusFormat):
    """CaSiNo campsite negotiations: one JSON array of dialogue records per split file."""

    name = "casino"
    task = "casino"
    description = "CaSiNo (Chawla et al. 2021): campsite negotiation over food, water and firewood, with strategy labels"
    layout = "list"

    # ------------------------------------------------------------------ identity

    def record_id(self, record: Any) -> str | None:
        if isinstance(record, Mapping):
            value = record.get("dialogue_id")
            if isinstance(value, (int, str)) and not isinstance(value, bool):
                return str(value)
        return None

    def id_scope(self, record: Any) -> str:
        """The 2021 `casino_annotated` records share their ids with the transcripts they annotate."""
        return ANNOTATED_SHAPE if isinstance(record, Mapping) and _annotations_only(record) else ""

    # ------------------------------------------------------------------ checks

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

    # ------------------------------------------------------------------ native -> Dialogue

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

    # ------------------------------------------------------------------ Dialogue -> native

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


# ---------------------------------------------------------------------- helpers: checks


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


# ---------------------------------------------------------------------- helpers: the quick check

_LEVEL_SET = frozenset(PRIORITY_LEVELS)
_ISSUE_SET = frozenset(ISSUES)
_STRATEGY_SET = frozenset(STRATEGY_LABELS)
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


def _valid_priorities(participant: Any) -> dict[str, str] | None:
    value2issue = participant.get("value2issue") if isinstance(participant, Mapping) else None
    if not isinstance(value2issue, Mapping) or sorted(value2issue) != sorted(PRIORITY_LEVELS):
        return None
    if not all(isinstance(v, str) for v in value2issue.values()) or sorted(value2issue.values()) != sorted(ISSUES):
        return None
    return priorities_from_value2issue(value2issue)


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


# ---------------------------------------------------------------------- helpers: reading


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


# ---------------------------------------------------------------------- helpers: writing


def _default_submission(mine: Mapping[str, int], theirs: Mapping[str, int]) -> dict[str, Any]:
    """The `task_data` the corpus writes for a Submit-Deal: the two shares with counts as strings."""
    return {
        "issue2youget": {issue: str(n) for issue, n in mine.items()},
        "issue2theyget": {issue: str(n) for issue, n in theirs.items()},
    }


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

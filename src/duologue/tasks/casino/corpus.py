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

Where the code is: `corpus_shapes.py` (keys, moves, scales, shared shape tests), `corpus_checks.py`
with `corpus_quick.py` (errors and warnings), `corpus_reading.py` (record -> `Dialogue`) and
`corpus_writing.py` (`Dialogue` -> record). `CasinoFormat` mixes the three parts together, and this
module re-exports every name it had before they moved.
"""

from __future__ import annotations

from typing import Any, Mapping

from duologue.data.formats import CorpusFormat
from duologue.tasks.casino.corpus_checks import CasinoChecks
from duologue.tasks.casino.corpus_reading import CasinoReading
from duologue.tasks.casino.corpus_writing import CasinoWriting
# Every name the module defined before the split, still importable from here:
from duologue.tasks.casino.corpus_shapes import (
    ACCEPT as ACCEPT,
    ANNOTATED_KEYS as ANNOTATED_KEYS,
    ANNOTATED_SHAPE as ANNOTATED_SHAPE,
    COUNT_STRINGS as COUNT_STRINGS,
    DEMOGRAPHIC_TYPES as DEMOGRAPHIC_TYPES,
    ENTRY_KEYS as ENTRY_KEYS,
    HF_EMPTY_TASK_DATA as HF_EMPTY_TASK_DATA,
    HF_SHAPE as HF_SHAPE,
    LIKENESS as LIKENESS,
    MOVES as MOVES,
    MOVE_DATA as MOVE_DATA,
    OUTCOME_KEYS as OUTCOME_KEYS,
    PARTICIPANT_KEYS as PARTICIPANT_KEYS,
    RATING_SCALES as RATING_SCALES,
    RECORD_KEYS as RECORD_KEYS,
    REJECT as REJECT,
    SATISFACTION as SATISFACTION,
    STRATEGY_LAYER as STRATEGY_LAYER,
    SUBMIT as SUBMIT,
    WALK_AWAY as WALK_AWAY,
    _ENTRY_KEY_SET as _ENTRY_KEY_SET,
    _FOLDED_MOVES as _FOLDED_MOVES,
    _INTEGER as _INTEGER,
    _MOVE_FIRST_WORDS as _MOVE_FIRST_WORDS,
    _MOVE_SEPARATORS as _MOVE_SEPARATORS,
    _RECORD_KEY_SET as _RECORD_KEY_SET,
    _STRATEGY_SET as _STRATEGY_SET,
    _align as _align,
    _annotations_only as _annotations_only,
    _default_submission as _default_submission,
    _hf_row as _hf_row,
    _labels as _labels,
    _looks_like_move as _looks_like_move,
    _native_id as _native_id,
    _native_labels as _native_labels,
)
from duologue.tasks.casino.corpus_quick import (
    _ABSENT as _ABSENT,
    _ANSWERS as _ANSWERS,
    _COUNTS as _COUNTS,
    _ISSUE_SET as _ISSUE_SET,
    _LEVEL_SET as _LEVEL_SET,
    _quick_answers as _quick_answers,
    _quick_priorities as _quick_priorities,
    _quick_record as _quick_record,
    _quick_share as _quick_share,
)
from duologue.tasks.casino.corpus_checks import (
    _valid_priorities as _valid_priorities,
)
from duologue.tasks.casino.corpus_reading import (
    _ANNOTATION as _ANNOTATION,
    _ANNOTATION_WITH_VALUE as _ANNOTATION_WITH_VALUE,
    _ANSWER_EVENTS as _ANSWER_EVENTS,
    _DIALOGUE as _DIALOGUE,
    _MESSAGE as _MESSAGE,
    _OUTCOME as _OUTCOME,
    _PARTY as _PARTY,
    _RATING as _RATING,
    _SCENARIO as _SCENARIO,
    _SOURCE_SHAPED as _SOURCE_SHAPED,
    _SUBMIT_DEAL as _SUBMIT_DEAL,
    _annotations as _annotations,
    _event as _event,
    _outcome as _outcome,
    _outcome_leftovers as _outcome_leftovers,
    _party_info as _party_info,
    _private_view as _private_view,
    _ratings as _ratings,
)
from duologue.tasks.casino.corpus_writing import (
    _default_task_data as _default_task_data,
    _entry as _entry,
    _label as _label,
    _native_annotations as _native_annotations,
    _native_outcomes as _native_outcomes,
    _participant as _participant,
)


class CasinoFormat(CasinoChecks, CasinoReading, CasinoWriting, CorpusFormat):
    """CaSiNo campsite negotiations: one JSON array of dialogue records per split file."""

    name = "casino"
    task = "casino"
    description = "CaSiNo (Chawla et al. 2021): campsite negotiation over food, water and firewood, with strategy labels"
    layout = "list"

    def record_id(self, record: Any) -> str | None:
        if isinstance(record, Mapping):
            value = record.get("dialogue_id")
            if isinstance(value, (int, str)) and not isinstance(value, bool):
                return str(value)
        return None

    def id_scope(self, record: Any) -> str:
        """The 2021 `casino_annotated` records share their ids with the transcripts they annotate."""
        return ANNOTATED_SHAPE if isinstance(record, Mapping) and _annotations_only(record) else ""

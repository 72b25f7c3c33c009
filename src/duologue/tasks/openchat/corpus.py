"""DUO: open-domain human-bot chats with the user's own and third parties' evaluations.

DUO (Numaya et al., SIGDIAL 2025; Japanese extension in J. NLP 32(4), 2025) stores one dialogue
per JSON file, laid out as `<setting>/<language>/<NNNN>.json` (`ed/en/0000.json`,
`wow/ja/3000.json`). A record:

```
{
  "dialogue_id": "0000",            # a string in the English files, an integer in the Japanese ones
  "setting": "ed",                  # "ed" (EmpatheticDialogues) or "wow" (Wizard of Wikipedia)
  "model": "gpt-4o",                # the bot's LLM
  "prompt": "neutral",              # style prompt: aligned / neutral / not_aligned (ja: ent / neutral / nonent)
  "emotion": "Excited",             # ed only: the emotion the user picked
  "episode": "I'm moving out ...",  # ed only: the user's short episode
  "topic": "Piano",                 # wow only: the topic of the chat
  "objective_evaluation": {         # only in some files: three third-party raters
    "preference": 3.67,             #   the raters' mean, rounded to 2 decimals
    ...,
    "preference_scores": [3.0, 4.0, 4.0],   # each rater's score, 1-5
    ...
  },
  "subjective_evaluation": {"preference": 1.0, "stylistic_similarity": 1.0, "consistency": 5.0,
                            "empathy": 4.0},  # the user's own ratings, 1-5 (wow: engagingness)
  "dialogue": [
    {"message_id": 0, "user_id": "0000", "speaker": "Human", "message": "..."},
    {"message_id": 1, "system_id": "0000", "speaker": "Bot", "message": "..."}
  ]
}
```

The language is not in the record: it comes from the folder (`.../en/...`, `.../ja/...`), or,
for a file outside that layout, from the script of its text. `user_id` names the crowd worker,
`system_id` the bot configuration (model and prompt).

In duologue's schema: parties `user` (human, `participant_id` = `user_id`) and `bot` (bot,
`agent` = `model`, `info.system_id`); `scenario.public` holds `setting`, `style` (the prompt),
and `emotion` + `episode` or `topic`; each utterance is a `Message`; the user's ratings are
`Rating(rater_kind="party", rater_id="user", target="bot")` and every individual third-party
score is a `Rating(rater_kind="third_party", rater_id="0"|"1"|"2", target="bot")`. The stored
means are recomputed on writing (and kept in `Source.extra` only where a file's mean is not the
rounded mean of its scores), so a record round-trips exactly.

Errors and warnings: every check is an error (the record is refused) except one rule anomaly, a
warning with code `rating-off-scale`: the user's own rating outside 1-5. Such a record loads whole;
the answer is kept as written in `Source.extra` (no `Rating` is made of it) and the anomaly is on
`Dialogue.anomalies`. A third-party rater's score off the scale, or a stored mean that does not
match its scores, stays an error: those blocks are recomputed from the scores on writing.
"""

from __future__ import annotations

import functools
import math
import os
import re
from pathlib import Path, PurePath
from typing import Any, Iterable, Mapping

from duologue.core.schema import LIKERT_5, Dialogue, Message, Party, Rating, Scenario, Source
from duologue.data.formats import Checker, CorpusFormat, Problem, is_json_type, json_type, model_builder

SETTINGS = ("ed", "wow")
SETTING_FIELDS: dict[str, tuple[str, ...]] = {"ed": ("emotion", "episode"), "wow": ("topic",)}
SPEAKERS = {"Human": "user_id", "Bot": "system_id"}
SCORES_SUFFIX = "_scores"
RATING_LOW, RATING_HIGH = 1, 5
MEAN_DECIMALS = 2

USER, BOT = "user", "bot"
_TOP_KEYS = ("dialogue_id", "setting", "model", "prompt", "emotion", "episode", "topic", "objective_evaluation", "subjective_evaluation", "dialogue")
_MESSAGE_KEYS = ("message_id", "user_id", "system_id", "speaker", "message")
_CANONICAL_TURN_KEYS = {key: ["message_id", key, "speaker", "message"] for key in ("user_id", "system_id")}
_JAPANESE_SCRIPT = re.compile(r"[\u3040-\u30ff\u31f0-\u31ff\uff66-\uff9f]")
_LANGUAGE_DIR = re.compile(r"^[a-z]{2,3}$")


class DuoFormat(CorpusFormat):
    """DUO open-chat dialogues (EmpatheticDialogues and Wizard of Wikipedia settings, English and Japanese)."""

    name = "duo"
    task = "openchat"
    description = "DUO open-domain human-bot chats with user and third-party ratings (one JSON file per dialogue)"
    layout = "one-per-file"

    def __init__(self) -> None:
        self._written_languages: dict[int, str] = {}
        self._written_records: list[dict[str, Any]] = []

    # ------------------------------------------------------------------ ids, groups, files

    def record_id(self, record: Any) -> str | None:
        if isinstance(record, dict) or isinstance(record, Mapping):
            rid = record.get("dialogue_id")
            if isinstance(rid, str) or (isinstance(rid, int) and not isinstance(rid, bool)):
                return str(rid)
        return None

    def split_of(self, file: Path) -> str | None:
        """DUO has no splits; its folders are settings and languages."""
        return None

    def group_of(self, dialogue: Dialogue) -> str:
        """`<language>/<setting>` (`en/ed`, `ja/wow`): the columns of the corpus card."""
        return f"{dialogue.language}/{dialogue.scenario.public.get('setting', 'unknown')}"

    def native_file_name(self, record: Mapping[str, Any], index: int) -> str:
        """`<setting>/<language>/<id>.json`, so a written folder mirrors the corpus."""
        language = self._written_languages.get(id(record)) or _language_of_text(record)
        setting = record.get("setting") if isinstance(record.get("setting"), str) else "unknown"
        name = (self.record_id(record) or str(index)).replace("/", "_").replace("\\", "_")
        return f"{setting}/{language}/{name}.json"

    def write_records(self, dialogues: Iterable[Dialogue]) -> list[dict[str, Any]]:
        """Native records; remembers each one's language so `native_file_name` can place it."""
        records: list[dict[str, Any]] = []
        languages: dict[int, str] = {}
        for dialogue in dialogues:
            record = self.from_dialogue(dialogue)
            records.append(record)
            languages[id(record)] = dialogue.language
        # Keep the records alive with their ids: an id is only unique while its object exists.
        self._written_records = records
        self._written_languages = languages
        return records

    # ------------------------------------------------------------------ checking

    def quick_check(self, record: dict[str, Any]) -> bool:
        return _quick_record(record)

    def check_in_detail(self, record: Any) -> list[Problem]:
        """Walk the whole record and name every problem with its path (run when the quick pass fails)."""
        c = Checker()
        if not isinstance(record, Mapping):
            c.fail("$", f"expected a dialogue object, got {json_type(record)}")
            return c.problems
        dialogue_id = c.require(record, "dialogue_id", (str, int), "$")
        if isinstance(dialogue_id, str) and not dialogue_id.strip():
            c.fail("$.dialogue_id", "empty dialogue id")
        setting = c.require(record, "setting", str, "$")
        if setting is not None and setting not in SETTINGS:
            c.fail("$.setting", f"unknown setting {setting!r}; expected one of {', '.join(SETTINGS)}")
        c.require(record, "model", str, "$")
        c.require(record, "prompt", str, "$")
        required = SETTING_FIELDS.get(setting, ()) if isinstance(setting, str) else ()
        for key in ("emotion", "episode", "topic"):
            if key in record:
                c.require(record, key, str, "$")
            elif key in required:
                c.fail(f"$.{key}", f"missing field (required in the {setting!r} setting)")
        subjective = c.require(record, "subjective_evaluation", dict, "$")
        if subjective is not None:
            for criterion, value in subjective.items():
                _check_rating_value(c, value, f"$.subjective_evaluation.{criterion}", off_scale_is_anomaly=True)
        objective = c.optional(record, "objective_evaluation", dict, "$", nullable=False)
        if objective is not None:
            _check_objective(c, objective)
        turns = c.require(record, "dialogue", list, "$")
        if turns is not None:
            if not turns:
                c.fail("$.dialogue", "the dialogue has no messages")
            for index, turn in enumerate(turns):
                _check_message(c, turn, index)
        return c.problems

    # ------------------------------------------------------------------ reading

    def to_dialogue(self, record: Any, *, file: str | None = None, index: int | None = None, split: str | None = None) -> Dialogue:
        # `check` passed, so every value already has its schema type: the models are built without
        # validating them again (`model_builder`), each from fresh dicts and lists.
        setting = record["setting"]
        turns = record["dialogue"]
        user_id = next((t["user_id"] for t in turns if "user_id" in t), None)
        system_id = next((t["system_id"] for t in turns if "system_id" in t), None)
        parties = [
            _USER_PARTY(id=USER, kind="human", role="user", participant_id=user_id),
            _BOT_PARTY(id=BOT, kind="bot", role="system", agent=record["model"], info={} if system_id is None else {"system_id": system_id}),
        ]
        public: dict[str, Any] = {"setting": setting, "style": record["prompt"]}
        for key in ("emotion", "episode", "topic"):
            if key in record:
                public[key] = record[key]
        events = [_message_event(turn, position, user_id, system_id) for position, turn in enumerate(turns)]
        subjective = record["subjective_evaluation"]
        ratings = [_rating("party", USER, criterion, value) for criterion, value in subjective.items() if _on_scale(value)]
        extra: dict[str, Any] = {}
        if len(ratings) != len(subjective):  # off-scale answers (rule anomalies): kept as written, in place
            extra["subjective_off_scale"] = {k: v for k, v in subjective.items() if not _on_scale(v)}
            extra["subjective_key_order"] = list(subjective)
        objective = record.get("objective_evaluation")
        if objective is not None:
            ratings.extend(_objective_ratings(objective))
            extra.update(_objective_leftovers(objective))
        dialogue_id = record["dialogue_id"]
        if not isinstance(dialogue_id, str):
            extra["dialogue_id"] = dialogue_id
        unknown = {k: v for k, v in record.items() if k not in _TOP_KEYS}
        if unknown:
            extra["fields"] = unknown
        if list(record) != _canonical_order(record):
            extra["key_order"] = list(record)
        language = _language_of_path(file, setting) or _language_of_text(record)
        return _DIALOGUE(
            id=str(dialogue_id),
            task="openchat",
            split=split,
            language=language,
            scenario=_SCENARIO(public=public),
            parties=parties,
            events=events,
            ratings=ratings,
            source=_SOURCE(corpus=self.name, file=file, index=index, extra=extra),
        )

    # ------------------------------------------------------------------ writing

    def from_dialogue(self, dialogue: Dialogue) -> dict[str, Any]:
        extra = dialogue.source.extra if dialogue.source.corpus == self.name else {}
        values = _scenario_values(dialogue)
        setting = values.get("setting") or ("wow" if "topic" in values else "ed")
        bot = _first_party(dialogue, "bot")
        record: dict[str, Any] = {
            "dialogue_id": extra.get("dialogue_id", dialogue.id),
            "setting": setting,
            "model": bot.agent if bot is not None and bot.agent else "",
            "prompt": values.get("style", values.get("prompt", "")),
        }
        for key in ("emotion", "episode", "topic"):
            if key in values or key in SETTING_FIELDS.get(setting, ()):
                record[key] = values.get(key, "")
        objective = _objective_record(dialogue, extra)
        if objective is not None:
            record["objective_evaluation"] = objective
        subjective = _subjective_record(dialogue)
        if "subjective_off_scale" in extra:
            subjective.update(extra["subjective_off_scale"])
            order = extra.get("subjective_key_order") or list(subjective)
            subjective = {key: subjective[key] for key in order if key in subjective} | subjective
        record["subjective_evaluation"] = subjective
        record["dialogue"] = _turn_records(dialogue)
        record.update(extra.get("fields", {}))
        order = extra.get("key_order")
        if order and set(order) == set(record):
            record = {key: record[key] for key in order}
        return record


# --------------------------------------------------------------------------- checks



def _quick_rating(value: Any) -> bool:
    kind = type(value)
    if kind is int:
        return RATING_LOW <= value <= RATING_HIGH
    return kind is float and RATING_LOW <= value <= RATING_HIGH  # NaN fails the comparison, infinities the range


def _quick_record(record: dict) -> bool:
    dialogue_id = record.get("dialogue_id")
    if type(dialogue_id) is str:
        if not dialogue_id.strip():
            return False
    elif type(dialogue_id) is not int:
        return False
    setting = record.get("setting")
    if type(setting) is not str or setting not in SETTINGS or type(record.get("model")) is not str or type(record.get("prompt")) is not str:
        return False
    required = SETTING_FIELDS[setting]
    for key in ("emotion", "episode", "topic"):
        if key in record:
            if type(record[key]) is not str:
                return False
        elif key in required:
            return False
    subjective = record.get("subjective_evaluation")
    if type(subjective) is not dict:
        return False
    for value in subjective.values():
        if not _quick_rating(value):
            return False
    if "objective_evaluation" in record and not _quick_objective(record["objective_evaluation"]):
        return False
    turns = record.get("dialogue")
    if type(turns) is not list or not turns:
        return False
    for index, turn in enumerate(turns):
        if type(turn) is not dict or turn.get("message_id") != index or type(turn.get("message_id")) is not int or type(turn.get("message")) is not str:
            return False
        speaker = turn.get("speaker")
        if speaker == "Human":
            if "system_id" in turn or type(turn.get("user_id")) is not str:
                return False
        elif speaker == "Bot":
            if "user_id" in turn or type(turn.get("system_id")) is not str:
                return False
        else:
            return False
    return True


def _quick_objective(objective: Any) -> bool:
    if type(objective) is not dict:
        return False
    for key, value in objective.items():
        if key.endswith(SCORES_SUFFIX):
            criterion = key[: -len(SCORES_SUFFIX)]
            if type(value) is not list or not value or criterion not in objective:
                return False
            for score in value:
                if not _quick_rating(score):
                    return False
            mean = objective[criterion]
            if type(mean) is not int and type(mean) is not float:
                return False
            if abs(mean - sum(value) / len(value)) > 0.5 * 10**-MEAN_DECIMALS + 1e-9:
                return False
        elif not _quick_rating(value) or key + SCORES_SUFFIX not in objective:
            return False
    return True


def _is_number(value: Any) -> bool:
    return is_json_type(value, float) and not isinstance(value, bool)


def _check_rating_value(c: Checker, value: Any, path: str, *, off_scale_is_anomaly: bool = False) -> bool:
    """Whether `value` is a rating on the 1-5 scale. Off the scale, the user's own rating is a rule
    anomaly (a warning: the record loads, the value is kept as written); a rater's score is an error."""
    if not _is_number(value):
        c.fail(path, f"expected a rating number, got {json_type(value)}")
        return False
    if not _finite(value):
        c.fail(path, f"rating {value} is not a finite number")
        return False
    if not RATING_LOW <= value <= RATING_HIGH:
        if off_scale_is_anomaly:
            c.warn(path, f"rating {value} is outside the {RATING_LOW}-{RATING_HIGH} scale (kept as written, no rating made of it)", "rating-off-scale")
        else:
            c.fail(path, f"rating {value} is outside the {RATING_LOW}-{RATING_HIGH} scale")
        return False
    return True


def _finite(value: int | float) -> bool:
    """A finite number a float can hold (an integer beyond the float range is not one)."""
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


def _on_scale(value: Any) -> bool:
    return RATING_LOW <= value <= RATING_HIGH


def _check_objective(c: Checker, objective: Mapping[str, Any]) -> None:
    base = "$.objective_evaluation"
    for key, value in objective.items():
        path = f"{base}.{key}"
        if key.endswith(SCORES_SUFFIX):
            criterion = key[: -len(SCORES_SUFFIX)]
            if not isinstance(value, list):
                c.fail(path, f"expected a list of rater scores, got {json_type(value)}")
                continue
            if not value:
                c.fail(path, "no rater scores")
                continue
            valid = [_check_rating_value(c, score, f"{path}[{i}]") for i, score in enumerate(value)]
            if criterion not in objective:
                c.fail(f"{base}.{criterion}", f"missing the mean of {key}")
                continue
            mean = objective[criterion]
            if all(valid) and _is_number(mean):
                expected = sum(value) / len(value)
                if abs(mean - expected) > 0.5 * 10**-MEAN_DECIMALS + 1e-9:
                    c.fail(f"{base}.{criterion}", f"mean {mean} does not match its raters' scores {value} (their mean is {expected:.{MEAN_DECIMALS + 2}g})")
        else:
            if not _check_rating_value(c, value, path):
                continue
            if key + SCORES_SUFFIX not in objective:
                c.fail(f"{path}{SCORES_SUFFIX}", f"missing the individual rater scores behind the mean {key}")


def _check_message(c: Checker, turn: Any, index: int) -> None:
    path = f"$.dialogue[{index}]"
    if not isinstance(turn, Mapping):
        c.fail(path, f"expected a message object, got {json_type(turn)}")
        return
    message_id = c.require(turn, "message_id", int, path)
    if message_id is not None and message_id != index:
        c.fail(f"{path}.message_id", f"message ids must count 0, 1, 2, ... in order; expected {index}, got {message_id}")
    speaker = c.require(turn, "speaker", str, path)
    if speaker is not None and speaker not in SPEAKERS:
        c.fail(f"{path}.speaker", f"unknown speaker {speaker!r}; expected 'Human' or 'Bot'")
    c.require(turn, "message", str, path)
    has_user, has_system = "user_id" in turn, "system_id" in turn
    if has_user and has_system:
        c.fail(path, "a message has either user_id (Human) or system_id (Bot), not both")
    elif not has_user and not has_system:
        c.fail(f"{path}.{SPEAKERS.get(speaker, 'user_id')}", "missing field (user_id for a Human message, system_id for a Bot message)")
    else:
        key = "user_id" if has_user else "system_id"
        c.require(turn, key, str, path)
        if speaker in SPEAKERS and SPEAKERS[speaker] != key:
            c.fail(f"{path}.{key}", f"a {speaker} message must carry {SPEAKERS[speaker]}, not {key}")


# --------------------------------------------------------------------------- reading helpers


def _message_event(turn: Mapping[str, Any], position: int, user_id: str | None, system_id: str | None) -> Message:
    is_human = turn["speaker"] == "Human"
    extra: dict[str, Any] = {}
    if turn["message_id"] != position:
        extra["message_id"] = turn["message_id"]
    id_key = "user_id" if is_human else "system_id"
    if turn[id_key] != (user_id if is_human else system_id):
        extra[id_key] = turn[id_key]
    order = list(turn)
    if len(order) > 4:  # a checked turn has four known keys (message_id, user_id or system_id, speaker, message)
        unknown = {k: v for k, v in turn.items() if k not in _MESSAGE_KEYS}
        if unknown:
            extra["fields"] = unknown
        canonical = ["message_id", id_key, "speaker", "message", *unknown]
    else:
        canonical = _CANONICAL_TURN_KEYS[id_key]
    if order != canonical:
        extra["key_order"] = order
    return _MESSAGE(party=USER if is_human else BOT, text=turn["message"], extra=extra)


def _rating(rater_kind: str, rater_id: str, criterion: str, value: int | float) -> Rating:
    """A checked 1-5 rating of the bot (`check` made sure it is a number on the scale)."""
    return _RATING(rater_kind=rater_kind, rater_id=rater_id, target=BOT, criterion=criterion, value=value, scale=LIKERT_5)


# Builders of models from checked values (no second validation): see `model_builder`.
_DIALOGUE = model_builder(Dialogue, "id", "task", "split", "language", "scenario", "parties", "events", "ratings", "source")
_SCENARIO = model_builder(Scenario, "public")
_SOURCE = model_builder(Source, "corpus", "file", "index", "extra")
_USER_PARTY = model_builder(Party, "id", "kind", "role", "participant_id")
_BOT_PARTY = model_builder(Party, "id", "kind", "role", "agent", "info")
_MESSAGE = model_builder(Message, "party", "text", "extra")
_RATING = model_builder(Rating, "rater_kind", "rater_id", "target", "criterion", "value", "scale")


def _objective_ratings(objective: Mapping[str, Any]) -> list[Rating]:
    ratings = []
    for key, scores in objective.items():
        if not key.endswith(SCORES_SUFFIX) or not isinstance(scores, list):
            continue
        criterion = key[: -len(SCORES_SUFFIX)]
        for rater, score in enumerate(scores):
            ratings.append(_rating("third_party", str(rater), criterion, score))
    return ratings


def _rounded_mean(scores: list[float | int]) -> float:
    return round(sum(scores) / len(scores), MEAN_DECIMALS)


def _objective_leftovers(objective: Mapping[str, Any]) -> dict[str, Any]:
    """What `_objective_record` cannot recompute: odd stored means, key order, an empty block."""
    leftovers: dict[str, Any] = {}
    means: dict[str, Any] = {}
    for key, scores in objective.items():
        if key.endswith(SCORES_SUFFIX):
            criterion = key[: -len(SCORES_SUFFIX)]
            stored = objective.get(criterion)
            computed = _rounded_mean(scores)
            if type(stored) is not type(computed) or stored != computed:
                means[criterion] = {"value": stored, "scores": scores}
    if means:
        leftovers["objective_means"] = means
    if not objective:
        leftovers["objective_empty"] = True
    criteria = [k[: -len(SCORES_SUFFIX)] for k in objective if k.endswith(SCORES_SUFFIX)]
    if list(objective) != criteria + [c + SCORES_SUFFIX for c in criteria]:
        leftovers["objective_key_order"] = list(objective)
    return leftovers


def _canonical_order(record: Mapping[str, Any]) -> list[str]:
    known = [key for key in _TOP_KEYS if key in record]
    return known + [key for key in record if key not in _TOP_KEYS]


def _language_of_path(file: str | None, setting: str) -> str | None:
    """`.../en/0000.json` -> `en`: the folder holding the file names its language."""
    if not file:
        return None
    folder = _folder_name(file)
    if _LANGUAGE_DIR.match(folder) and folder not in SETTINGS and folder != setting:
        return folder
    return None


def _folder_name(file: str) -> str:
    """`PurePath(file).parent.name.lower()`, worked out once per folder (one file per dialogue makes it add up)."""
    head, tail = os.path.split(file)
    if tail in ("", ".", ".."):  # not the plain `folder/name` shape: ask pathlib itself
        return PurePath(file).parent.name.lower()
    return _folder_name_of(head)


@functools.lru_cache(maxsize=1024)
def _folder_name_of(folder: str) -> str:
    return PurePath(folder).name.lower()


def _language_of_text(record: Mapping[str, Any]) -> str:
    """`ja` when the record's text is written in Japanese script, else `en`."""
    texts = [record.get(k) for k in ("episode", "topic", "emotion")]
    turns = record.get("dialogue")
    if isinstance(turns, list):
        texts.extend(t.get("message") for t in turns if isinstance(t, Mapping))
    return "ja" if any(isinstance(t, str) and _JAPANESE_SCRIPT.search(t) for t in texts) else "en"


# --------------------------------------------------------------------------- writing helpers


def _scenario_values(dialogue: Dialogue) -> dict[str, Any]:
    """The scenario's values wherever they are: public ones first, then the parties' private views.

    A played episode keeps the user's emotion and episode, and the bot's style, private (see
    `duologue.tasks.openchat.settings`); a DUO file has no views, so it gets them all.
    """
    values: dict[str, Any] = {}
    for view in dialogue.scenario.private.values():
        for key, value in view.items():
            values.setdefault(key, value)
    values.update(dialogue.scenario.public)
    return values


def _is_user_side(party: Party) -> bool:
    """The human role of the chat: role `user` (also when a simulator plays it), else a human party."""
    if party.role in ("user", "system"):
        return party.role == "user"
    return party.kind == "human"


def _first_party(dialogue: Dialogue, kind: str) -> Party | None:
    """The first party on the `human` (user) or `bot` (system) side of the chat."""
    return next((p for p in dialogue.parties if _is_user_side(p) == (kind == "human")), None)


def _subjective_record(dialogue: Dialogue) -> dict[str, Any]:
    """The user's own ratings: `party` ratings given by a human party (duologue's `user`)."""
    humans = {p.id for p in dialogue.parties if _is_user_side(p)}
    subjective: dict[str, Any] = {}
    for rating in dialogue.ratings:
        if rating.rater_kind == "party" and (rating.rater_id in humans or rating.rater_id is None):
            subjective.setdefault(rating.criterion, rating.scale.numeric(rating.value) if isinstance(rating.value, str) else rating.value)
    return subjective


def _objective_record(dialogue: Dialogue, extra: Mapping[str, Any]) -> dict[str, Any] | None:
    scores: dict[str, list[Any]] = {}
    for rating in dialogue.ratings:
        if rating.rater_kind == "third_party":
            value = rating.scale.numeric(rating.value) if isinstance(rating.value, str) else rating.value
            scores.setdefault(rating.criterion, []).append(value)
    if not scores:
        return {} if extra.get("objective_empty") else None
    stored = extra.get("objective_means", {})
    objective: dict[str, Any] = {}
    for criterion, values in scores.items():
        kept = stored.get(criterion)
        objective[criterion] = kept["value"] if kept and kept.get("scores") == values else _rounded_mean(values)
    for criterion, values in scores.items():
        objective[criterion + SCORES_SUFFIX] = values
    order = extra.get("objective_key_order")
    if order and set(order) == set(objective):
        objective = {key: objective[key] for key in order}
    return objective


def _turn_records(dialogue: Dialogue) -> list[dict[str, Any]]:
    kinds = {p.id: p for p in dialogue.parties}
    turns = []
    for position, event in enumerate(dialogue.messages()):
        party = kinds.get(event.party) if event.party is not None else None
        is_human = party is not None and _is_user_side(party)
        id_key = "user_id" if is_human else "system_id"
        extra = event.extra
        if id_key in extra:
            speaker_id = extra[id_key]
        elif party is None:
            speaker_id = ""
        elif is_human:
            speaker_id = party.participant_id or party.id
        else:
            speaker_id = party.info.get("system_id") or party.id
        turn: dict[str, Any] = {
            "message_id": extra.get("message_id", position),
            id_key: speaker_id,
            "speaker": "Human" if is_human else "Bot",
            "message": event.text,
        }
        turn.update(extra.get("fields", {}))
        order = extra.get("key_order")
        if order and set(order) == set(turn):
            turn = {key: turn[key] for key in order}
        turns.append(turn)
    return turns

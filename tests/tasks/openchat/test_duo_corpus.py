"""DUO reader and writer: the schema view of a record, lossless round trips, written layout."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from duologue.core.schema import Dialogue, Message, Party, Rating, Scale, Scenario
from duologue.data.compare import record_differences
from duologue.data.io import read_corpus, write_native
from duologue.tasks import corpus_format
from duologue.tasks.openchat.corpus import DuoFormat

FMT = DuoFormat()


@pytest.fixture
def duo(fixtures: Path) -> Path:
    return fixtures / "duo"


def load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def fixture_files(duo: Path) -> list[Path]:
    return sorted(duo.rglob("*.json"))


def test_registered_under_its_name():
    fmt = corpus_format("duo")
    assert isinstance(fmt, DuoFormat)
    assert (fmt.name, fmt.task, fmt.layout) == ("duo", "openchat", "one-per-file")


def test_fixture_records_are_valid(duo):
    for path in fixture_files(duo):
        assert FMT.check(load(path)) == [], path


def test_english_ed_record_in_the_schema(duo):
    path = duo / "ed" / "en" / "0000.json"
    dialogue = FMT.to_dialogue(load(path), file=str(path), index=0)
    assert dialogue.id == "0000"
    assert dialogue.task == "openchat"
    assert dialogue.language == "en"
    assert dialogue.split is None
    assert dialogue.scenario.public == {
        "setting": "ed",
        "style": "aligned",
        "emotion": "Nostalgic",
        "episode": "I found my old school photos in the attic last weekend.",
    }
    user, bot = dialogue.parties
    assert (user.id, user.kind, user.role, user.participant_id) == ("user", "human", "user", "0007")
    assert (bot.id, bot.kind, bot.role, bot.agent, bot.info) == ("bot", "bot", "system", "gpt-4o", {"system_id": "0002"})
    assert [e.party for e in dialogue.events] == ["user", "bot"] * 3
    assert all(isinstance(e, Message) for e in dialogue.events)
    assert dialogue.events[2].text == "Mostly 3rd grade. Mr. Brown was my teacher, he was great."
    assert all(e.extra == {} for e in dialogue.events)
    assert dialogue.source.corpus == "duo" and dialogue.source.file == str(path)
    assert dialogue.source.extra == {}  # everything in this record is modelled


def test_ratings_subjective_and_each_objective_score(duo):
    dialogue = FMT.to_dialogue(load(duo / "ed" / "en" / "0000.json"))
    subjective = [r for r in dialogue.ratings if r.rater_kind == "party"]
    assert [(r.rater_id, r.target, r.criterion, r.value) for r in subjective] == [
        ("user", "bot", "preference", 4.0),
        ("user", "bot", "stylistic_similarity", 3.0),
        ("user", "bot", "consistency", 5.0),
        ("user", "bot", "empathy", 4.0),
    ]
    objective = [r for r in dialogue.ratings if r.rater_kind == "third_party"]
    assert len(objective) == 12  # 4 criteria x 3 raters, means are derived, not stored
    preference = [(r.rater_id, r.value) for r in objective if r.criterion == "preference"]
    assert preference == [("0", 4.0), ("1", 3.0), ("2", 4.0)]
    assert all(r.target == "bot" and r.scale.low == 1 and r.scale.high == 5 for r in dialogue.ratings)
    assert all(isinstance(r.value, float) for r in dialogue.ratings)


def test_japanese_ids_stay_integers_and_language_comes_from_folder(duo):
    path = duo / "ed" / "ja" / "2000.json"
    record = load(path)
    dialogue = FMT.to_dialogue(record, file=str(path))
    assert dialogue.id == "2000"
    assert dialogue.language == "ja"
    assert dialogue.source.extra == {"dialogue_id": 2000}
    back = FMT.from_dialogue(dialogue)
    assert back["dialogue_id"] == 2000 and isinstance(back["dialogue_id"], int)


def test_language_from_text_when_the_path_does_not_say(duo):
    japanese = FMT.to_dialogue(load(duo / "wow" / "ja" / "3000.json"), file="/tmp/somewhere/x.json")
    english = FMT.to_dialogue(load(duo / "wow" / "en" / "1000.json"), file=None)
    assert (japanese.language, english.language) == ("ja", "en")


def test_group_of_is_language_then_setting(duo):
    groups = [FMT.group_of(FMT.to_dialogue(load(p), file=str(p))) for p in fixture_files(duo)]
    assert groups == ["en/ed", "en/ed", "ja/ed", "en/wow", "ja/wow"]
    assert FMT.split_of(duo / "ed" / "en" / "0000.json") is None


@pytest.mark.parametrize("relative", ["ed/en/0000.json", "ed/en/0001.json", "wow/en/1000.json", "ed/ja/2000.json", "wow/ja/3000.json"])
def test_round_trip_is_lossless_with_key_order(duo, relative):
    path = duo / relative
    record = load(path)
    dialogue = FMT.to_dialogue(record, file=str(path))
    # through JSON, as a dialogue stored in duologue's own files would be
    dialogue = Dialogue.model_validate_json(dialogue.model_dump_json())
    back = FMT.from_dialogue(dialogue)
    assert record_differences(record, back) == []
    assert json.dumps(back, ensure_ascii=False) == json.dumps(record, ensure_ascii=False)


def test_round_trip_keeps_what_the_schema_does_not_model(duo):
    record = load(duo / "ed" / "en" / "0000.json")
    record["objective_evaluation"]["preference"] = 3.666  # not the 2-decimal rounding, but within it
    record["objective_evaluation"]["empathy_scores"] = [4, 4, 5]  # integers, not floats
    record["objective_evaluation"]["empathy"] = 4.33
    record["subjective_evaluation"]["consistency"] = 5  # integer
    record["annotator_notes"] = {"flag": None}  # a field DUO does not define
    record["dialogue"][1]["timestamp"] = "2024-06-01T10:00:00"
    record["dialogue"][2]["user_id"] = "0099"  # a different worker mid-dialogue
    record["dialogue"][3] = {"speaker": "Bot", "message_id": 3, "message": "x", "system_id": "0002"}  # other key order
    record = {"setting": record.pop("setting"), **record}  # other top-level key order
    assert FMT.check(record) == []
    back = FMT.from_dialogue(Dialogue.model_validate_json(FMT.to_dialogue(record).model_dump_json()))
    assert record_differences(record, back) == []
    assert json.dumps(back) == json.dumps(record)


def test_empty_objective_block_round_trips(duo):
    original = load(duo / "wow" / "ja" / "3000.json")
    record = {k: v for k, v in original.items() if k not in ("subjective_evaluation", "dialogue")}
    record.update(objective_evaluation={}, subjective_evaluation=original["subjective_evaluation"], dialogue=original["dialogue"])
    assert record_differences(record, FMT.from_dialogue(FMT.to_dialogue(record))) == []


def test_edited_scores_recompute_the_mean(duo):
    record = load(duo / "ed" / "en" / "0000.json")
    record["objective_evaluation"]["preference"] = 3.666
    dialogue = FMT.to_dialogue(record)
    first = next(r for r in dialogue.ratings if r.rater_kind == "third_party" and r.criterion == "preference")
    first.value = 5.0  # [5, 3, 4]: the kept odd mean no longer belongs to these scores
    assert FMT.from_dialogue(dialogue)["objective_evaluation"]["preference"] == 4.0


def test_read_and_write_a_folder_mirrors_the_corpus(duo, tmp_path):
    result = read_corpus(FMT, duo)
    assert (result.records, result.invalid, len(result.dialogues)) == (5, 0, 5)
    written = write_native(FMT, result.dialogues, tmp_path / "out")
    relative = sorted(str(p.relative_to(tmp_path / "out")) for p in written)
    assert relative == sorted(str(p.relative_to(duo)) for p in fixture_files(duo))
    for path in written:
        original = load(duo / path.relative_to(tmp_path / "out"))
        assert record_differences(original, load(path)) == []
    again = read_corpus(FMT, tmp_path / "out")
    assert [(d.id, d.language) for d in again.dialogues] == [(d.id, d.language) for d in result.dialogues]


def test_native_file_name_without_write_records_uses_the_text_script(duo):
    record = load(duo / "wow" / "ja" / "3000.json")
    assert DuoFormat().native_file_name(record, 0) == "wow/ja/3000.json"
    assert DuoFormat().native_file_name(load(duo / "ed" / "en" / "0001.json"), 0) == "ed/en/0001.json"


def played_dialogue() -> Dialogue:
    """A dialogue collected on the platform: other party ids, no corpus leftovers, a labelled scale."""
    agree = Scale(kind="ordinal", labels=["no", "rather no", "unsure", "rather yes", "yes"])
    return Dialogue(
        id="web-17",
        task="openchat",
        language="en",
        scenario=Scenario(public={"setting": "wow", "style": "aligned", "topic": "Chess"}),
        parties=[
            Party(id="a", kind="bot", agent="llm:local"),
            Party(id="b", kind="human", participant_id="prolific-42"),
        ],
        events=[
            Message(party="a", text="Chess is a board game for two players."),
            Message(party="b", text="I play it every weekend!"),
        ],
        ratings=[
            Rating(rater_kind="party", rater_id="b", target="a", criterion="preference", value=4),
            Rating(rater_kind="party", rater_id="b", target="a", criterion="engagingness", value="rather yes", scale=agree),
            Rating(rater_kind="third_party", rater_id="ann-1", target="a", criterion="preference", value=3),
            Rating(rater_kind="third_party", rater_id="ann-2", target="a", criterion="preference", value=4),
            Rating(rater_kind="model", rater_id="judge", target="a", criterion="preference", value=2),
        ],
    )


def test_writes_a_dialogue_played_elsewhere():
    record = FMT.from_dialogue(played_dialogue())
    assert FMT.check(record) == []
    assert record == {
        "dialogue_id": "web-17",
        "setting": "wow",
        "model": "llm:local",
        "prompt": "aligned",
        "topic": "Chess",
        "objective_evaluation": {"preference": 3.5, "preference_scores": [3, 4]},
        "subjective_evaluation": {"preference": 4, "engagingness": 4.0},
        "dialogue": [
            {"message_id": 0, "system_id": "a", "speaker": "Bot", "message": "Chess is a board game for two players."},
            {"message_id": 1, "user_id": "prolific-42", "speaker": "Human", "message": "I play it every weekend!"},
        ],
    }


def test_writes_required_setting_fields_even_when_unknown():
    dialogue = played_dialogue()
    dialogue.scenario = Scenario(public={"setting": "ed"})
    record = FMT.from_dialogue(dialogue)
    assert record["emotion"] == "" and record["episode"] == ""
    assert "topic" not in record


# --------------------------------------------------------------------------- real corpus


@pytest.mark.corpus
def test_every_real_file_checks_and_round_trips(corpus_path):
    root = corpus_path("duo")
    files = sorted(root.rglob("*.json"))
    assert len(files) == 455
    for path in files:
        record = load(path)
        assert FMT.check(record) == [], path
        dialogue = Dialogue.model_validate_json(FMT.to_dialogue(record, file=str(path)).model_dump_json())
        assert record_differences(record, FMT.from_dialogue(dialogue)) == [], path


@pytest.mark.corpus
def test_real_corpus_groups_and_objective_counts(corpus_path):
    dialogues = read_corpus(FMT, corpus_path("duo")).dialogues
    groups: dict[str, list[Dialogue]] = {}
    for dialogue in dialogues:
        groups.setdefault(FMT.group_of(dialogue), []).append(dialogue)
    assert {g: len(ds) for g, ds in groups.items()} == {"en/ed": 157, "en/wow": 157, "ja/ed": 68, "ja/wow": 73}
    with_objective = {g: sum(any(r.rater_kind == "third_party" for r in d.ratings) for d in ds) for g, ds in groups.items()}
    assert with_objective == {"en/ed": 50, "en/wow": 46, "ja/ed": 45, "ja/wow": 45}
    assert {d.parties[1].agent for d in groups["ja/ed"] + groups["ja/wow"]} == {"gpt-4o"}
    assert {d.scenario.public["style"] for d in groups["en/ed"]} == {"aligned", "neutral", "not_aligned"}

"""Every published shape of every corpus loads whole and is written back field for field.

The fixtures under `published/` are the project's own records laid out as each release lays them
out: CaSiNo's split files and full file, its 2021 release (`casino_complete` without demographics,
personality or annotations; `casino_annotated` with capitalised labels), the Hugging Face rows,
and the CraigslistBargain test split. They carry the anomalies the official files carry (an empty
strategy label, an accept with no offer on the table): those records load, keep the anomaly on the
dialogue, and come back unchanged.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from duologue.cli import app
from duologue.data.io import iter_raw, read_corpus, read_dialogues, write_native
from duologue.tasks import corpus_format

runner = CliRunner()

# corpus, fixture path, records, {record id: [(anomaly path, code)]}
SHAPES = [
    ("casino", "casino/published/split", 5, {"305": [("$.annotations[1][1]", "empty-label")]}),
    ("casino", "casino/published/casino.json", 5, {"305": [("$.annotations[1][1]", "empty-label")]}),
    ("casino", "casino/published/2021/casino_complete.json", 5, {}),
    ("casino", "casino/published/2021/casino_annotated.json", 3, {"305": [("$.annotations[1][1]", "empty-label"), ("$.annotations[3][1]", "empty-label")]}),
    ("casino", "casino/published/hf/casino_train.jsonl", 5, {"row-4": [("$.annotations[1][1]", "empty-label")]}),
    ("craigslist", "craigslist/published/test.json", 5, {"C_test_accept_without_offer": [("$.events[7].action", "accept-without-offer")]}),
    ("craigslist", "craigslist/published/hf_test.jsonl", 4, {"row": [("$.dialogue_acts.intent[5]", "accept-without-offer")]}),
    ("craigslist", "craigslist/cocoa.json", 4, {}),
    ("craigslist", "craigslist/hf.jsonl", 3, {}),
    ("mutualfriends", "mutualfriends/cocoa_train.json", None, {}),
    ("mutualfriends", "mutualfriends/hf_validation.json", None, {}),
    ("duo", "duo", None, {}),
]


def ordered(value) -> str:
    """JSON text with keys in their own order: equal texts mean the same fields, values, types and key order."""
    return json.dumps(value, ensure_ascii=False)


@pytest.mark.parametrize("corpus, relative, count, anomalies", SHAPES, ids=[s[1] for s in SHAPES])
def test_loads_whole_and_flags_only_the_anomalies(corpus: str, relative: str, count: int | None, anomalies: dict, fixtures: Path):
    result = read_corpus(corpus_format(corpus), fixtures / relative)  # raises if any record were refused
    assert result.invalid == 0 and result.problems == []
    if count is not None:
        assert len(result.dialogues) == count
    flagged = {d.id: [(a.path, a.code) for a in d.anomalies] for d in result.dialogues if d.anomalies}
    if corpus == "craigslist" and relative.endswith(".jsonl"):  # Hugging Face rows have no id
        flagged = {"row": list(flagged.values())[-1]} if flagged else {}
    assert flagged == anomalies


@pytest.mark.parametrize("corpus, relative, count, anomalies", SHAPES, ids=[s[1] for s in SHAPES])
def test_reading_then_writing_gives_back_every_record_in_key_order(corpus: str, relative: str, count, anomalies, fixtures: Path):
    fmt = corpus_format(corpus)
    raws = list(iter_raw(fixtures / relative, []))
    dialogues = read_corpus(fmt, fixtures / relative).dialogues
    assert len(raws) == len(dialogues)
    for raw, dialogue in zip(raws, dialogues, strict=True):
        assert ordered(fmt.from_dialogue(dialogue)) == ordered(raw.record), f"{raw.file}#{raw.index}"


@pytest.mark.parametrize("relative", ["casino/published/split/casino_test.json", "casino/published/2021/casino_annotated.json", "casino/published/2021/casino_complete.json"])
def test_the_written_file_holds_the_same_records(relative: str, fixtures: Path, tmp_path: Path):
    fmt = corpus_format("casino")
    source = fixtures / relative
    [out] = write_native(fmt, read_corpus(fmt, source).dialogues, tmp_path / source.name)
    assert ordered(json.loads(out.read_text(encoding="utf-8"))) == ordered(json.loads(source.read_text(encoding="utf-8")))


def test_capitalised_labels_are_read_as_the_corpus_labels_and_written_as_published(fixtures: Path):
    fmt = corpus_format("casino")
    path = fixtures / "casino/published/2021/casino_annotated.json"
    dialogues = {d.id: d for d in read_corpus(fmt, path).dialogues}
    labels = {label for d in dialogues.values() for a in d.annotations for label in a.labels}
    assert {"non-strategic", "self-need", "uv-part", "small-talk"} <= labels
    assert all(label == label.lower() for label in labels)
    written = json.dumps([fmt.from_dialogue(d) for d in dialogues.values()])
    assert '"UV-Part"' in written and "Non-strategic" in written and "Small-talk,Self-Need,,Vouch-Fair" in written
    odd = dialogues["305"]
    assert odd.annotations[3].labels == ["small-talk", "self-need", "vouch-fair"]  # the empty label is skipped, not made up
    assert odd.parties == [] and [e.party for e in odd.events] == [None] * len(odd.events)


def test_the_2021_complete_file_has_no_participant_extras_and_none_are_invented(fixtures: Path):
    fmt = corpus_format("casino")
    dialogues = read_corpus(fmt, fixtures / "casino/published/2021/casino_complete.json").dialogues
    assert all("demographics" not in p.info and "personality" not in p.info for d in dialogues for p in d.parties)
    assert all(d.annotations == [] for d in dialogues)
    record = fmt.from_dialogue(dialogues[0])
    assert list(record) == ["dialogue_id", "chat_logs", "participant_info"]
    assert list(record["participant_info"]["mturk_agent_1"]) == ["value2issue", "value2reason", "outcomes"]


def test_the_test_split_anomaly_is_kept_on_the_dialogue(fixtures: Path):
    dialogues = {d.id: d for d in read_corpus(corpus_format("casino"), fixtures / "casino/published/split").dialogues}
    assert {d.split for d in dialogues.values()} == {"train", "valid", "test"}
    [anomaly] = dialogues["305"].anomalies
    assert anomaly.code == "empty-label" and "small-talk,self-need,,vouch-fair" in anomaly.message
    assert dialogues["305"].annotations[1].labels == ["small-talk", "self-need", "vouch-fair"]


def test_accept_with_no_offer_loads_without_a_deal(fixtures: Path):
    dialogues = {d.id: d for d in read_corpus(corpus_format("craigslist"), fixtures / "craigslist/published/test.json").dialogues}
    odd = dialogues["C_test_accept_without_offer"]
    assert [a.code for a in odd.anomalies] == ["accept-without-offer"]
    assert odd.outcome is not None and not odd.outcome.agreed


def validate(*args: str):
    result = runner.invoke(app, ["data", "validate", *args])
    assert "Traceback" not in result.output
    return result


@pytest.mark.parametrize("corpus, relative", [("casino", "casino/published/split/casino_test.json"), ("craigslist", "craigslist/published/test.json")])
def test_validate_prints_warnings_exits_0_and_strict_exits_1(corpus: str, relative: str, fixtures: Path):
    path = str(fixtures / relative)
    result = validate(corpus, path, "--json")
    assert result.exit_code == 0
    [line] = [json.loads(text) for text in result.stdout.splitlines() if text.startswith("{")]
    assert line["severity"] == "warning" and line["code"] and line["path"].startswith("$.")
    assert "with rule anomalies" in result.stderr
    strict = validate(corpus, path, "--strict")
    assert strict.exit_code == 1 and "--strict" in strict.stderr


def test_the_2021_release_folder_validates_as_a_whole(fixtures: Path):
    """`casino_annotated` repeats the ids of the `casino_complete` transcripts it annotates: not duplicates."""
    result = validate("casino", str(fixtures / "casino/published/2021"), "--json")
    assert result.exit_code == 0
    assert {json.loads(line)["severity"] for line in result.stdout.splitlines()} == {"warning"}
    assert "8 record(s): 8 valid" in result.stderr


def test_a_user_rating_off_its_scale_loads_and_is_written_back_as_it_was(fixtures: Path, tmp_path: Path):
    record = json.loads((fixtures / "duo" / "ed" / "en" / "0000.json").read_text(encoding="utf-8"))
    record["subjective_evaluation"] = {"preference": 7.0, **{k: v for k, v in record["subjective_evaluation"].items() if k != "preference"}, "empathy": 0}
    folder = tmp_path / "ed" / "en"
    folder.mkdir(parents=True)
    (folder / "0000.json").write_text(json.dumps(record), encoding="utf-8")
    fmt = corpus_format("duo")
    [dialogue] = read_corpus(fmt, tmp_path).dialogues
    assert {(a.path, a.code) for a in dialogue.anomalies} == {("$.subjective_evaluation.preference", "rating-off-scale"), ("$.subjective_evaluation.empathy", "rating-off-scale")}
    assert all(r.scale.contains(r.value) for r in dialogue.ratings)  # no rating is made of an off-scale answer
    assert ordered(fmt.from_dialogue(dialogue)) == ordered(record)


@pytest.mark.parametrize("corpus, relative", [("casino", "casino/split"), ("craigslist", "craigslist/validation.json"), ("craigslist", "craigslist/dev.json"), ("duo", "duo")])
def test_every_real_record_comes_back_in_its_own_key_order(corpus: str, relative: str, corpus_path):
    fmt = corpus_format(corpus)
    path = corpus_path(relative)
    raws = list(iter_raw(path, []))
    dialogues = read_corpus(fmt, path).dialogues
    for raw, dialogue in zip(raws, dialogues, strict=True):
        assert ordered(fmt.from_dialogue(dialogue)) == ordered(raw.record), f"{raw.file}#{raw.index}"


@pytest.mark.parametrize("suffix", [".jsonl", ".parquet"])
def test_anomalies_survive_duologues_own_files(suffix: str, fixtures: Path, tmp_path: Path):
    source = fixtures / "casino/published/split/casino_test.json"
    out = tmp_path / f"test{suffix}"
    assert runner.invoke(app, ["data", "convert", "casino", str(source), "-o", str(out)]).exit_code == 0
    dialogues = {d.id: d for d in read_dialogues(out).dialogues}
    assert [a.code for a in dialogues["305"].anomalies] == ["empty-label"]
    back = tmp_path / "back.json"
    assert runner.invoke(app, ["data", "convert", "duologue", str(out), "--to", "casino", "-o", str(back)]).exit_code == 0
    assert ordered(json.loads(back.read_text(encoding="utf-8"))) == ordered(json.loads(source.read_text(encoding="utf-8")))

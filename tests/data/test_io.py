"""Generic corpus IO, exercised with a tiny format defined here so it does not depend on any task."""

import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from duologue.core.schema import Dialogue, Party
from duologue.data.formats import Checker, CorpusFormat, Problem
from duologue.data.io import CorpusReadError, read_corpus, read_dialogues, to_hf_dataset, dialogues_from_hf, write_dialogues, write_native


class ToyFormat(CorpusFormat):
    """Records {"id": str, "turns": [str]}, alternating speakers a and b."""

    name = "toy"
    task = "openchat"

    def record_id(self, record: Any) -> str | None:
        return record.get("id") if isinstance(record, dict) and isinstance(record.get("id"), str) else None

    def check_in_detail(self, record: Any) -> list[Problem]:
        c = Checker()
        c.require(record, "id", str, "$")
        turns = c.require(record, "turns", list, "$")
        for i, t in enumerate(turns or []):
            if not isinstance(t, str):
                c.fail(f"$.turns[{i}]", "expected a string")
        return c.problems

    def to_dialogue(self, record, *, file=None, index=None, split=None) -> Dialogue:
        return Dialogue(
            id=record["id"],
            task="openchat",
            split=split,
            parties=[Party(id="a", kind="human"), Party(id="b", kind="bot")],
            events=[{"kind": "message", "party": "ab"[i % 2], "text": t} for i, t in enumerate(record["turns"])],
        )

    def from_dialogue(self, dialogue: Dialogue) -> dict:
        return {"id": dialogue.id, "turns": [m.text for m in dialogue.messages()]}


RECORDS = [{"id": "r1", "turns": ["hi", "hello"]}, {"id": "r2", "turns": ["yo"]}]


def test_reads_a_json_array_and_guesses_the_split(tmp_path: Path):
    path = tmp_path / "toy_train.json"
    path.write_text(json.dumps(RECORDS))
    result = read_corpus(ToyFormat(), path)
    assert [d.id for d in result.dialogues] == ["r1", "r2"]
    assert {d.split for d in result.dialogues} == {"train"}
    assert result.records == 2 and result.invalid == 0 and result.files == 1


def test_jsonl_problems_name_the_line_and_the_rest_is_counted(tmp_path: Path):
    path = tmp_path / "toy.jsonl"
    path.write_text('{"id": "r1", "turns": ["a"]}\n{"id": "r2", "turns": [\n{"id": "r3", "turns": [1]}\n')
    with pytest.raises(CorpusReadError) as error:
        read_corpus(ToyFormat(), path)
    problems = error.value.problems
    assert problems[0].line == 2 and "malformed JSON" in problems[0].reason
    assert problems[1].record == "r3" and problems[1].path == "$.turns[0]" and problems[1].line == 3
    result = read_corpus(ToyFormat(), path, skip_invalid=True)
    assert [d.id for d in result.dialogues] == ["r1"]
    assert result.invalid == 1 and len(result.problems) == 2


def test_a_folder_mixes_json_and_parquet_and_duplicate_ids_are_caught(tmp_path: Path):
    (tmp_path / "a.json").write_text(json.dumps(RECORDS))
    pq.write_table(pa.Table.from_pylist([{"id": "r3", "turns": ["x"]}, {"id": "r1", "turns": ["dup"]}]), tmp_path / "b.parquet")
    result = read_corpus(ToyFormat(), tmp_path, skip_invalid=True)
    assert [d.id for d in result.dialogues] == ["r1", "r2", "r3"]
    assert len(result.problems) == 1 and "duplicate record id 'r1'" in result.problems[0].reason
    assert result.problems[0].file.endswith("b.parquet")


def test_malformed_json_file_and_missing_path(tmp_path: Path):
    bad = tmp_path / "bad.json"
    bad.write_text('[{"id": "r1",,}]')
    with pytest.raises(CorpusReadError, match="malformed JSON"):
        read_corpus(ToyFormat(), bad)
    with pytest.raises(FileNotFoundError):
        read_corpus(ToyFormat(), tmp_path / "nothing-here")


def test_native_writing_gives_the_records_back(tmp_path: Path):
    fmt = ToyFormat()
    source = tmp_path / "in.json"
    source.write_text(json.dumps(RECORDS))
    dialogues = read_corpus(fmt, source).dialogues
    [out] = write_native(fmt, dialogues, tmp_path / "out.json")
    assert json.loads(out.read_text()) == RECORDS
    [out] = write_native(fmt, dialogues, tmp_path / "out.jsonl")
    assert [json.loads(line) for line in out.read_text().splitlines()] == RECORDS


@pytest.mark.parametrize("suffix", [".jsonl", ".parquet"])
def test_own_schema_round_trips(tmp_path: Path, suffix: str):
    source = tmp_path / "in.json"
    source.write_text(json.dumps(RECORDS))
    dialogues = read_corpus(ToyFormat(), source).dialogues
    out = write_dialogues(dialogues, tmp_path / f"d{suffix}")
    assert read_dialogues(out).dialogues == dialogues


def test_own_schema_errors_name_record_and_field(tmp_path: Path):
    path = tmp_path / "d.jsonl"
    path.write_text(json.dumps({"id": "x", "task": " ", "parties": []}) + "\n")  # any task family may be stored; a blank one may not
    with pytest.raises(CorpusReadError) as error:
        read_dialogues(path)
    assert any(p.record == "x" and p.path == "$.task" for p in error.value.problems)


def test_hugging_face_export_round_trips(tmp_path: Path):
    pytest.importorskip("datasets")
    source = tmp_path / "in.json"
    source.write_text(json.dumps(RECORDS))
    dialogues = read_corpus(ToyFormat(), source).dialogues
    dataset = to_hf_dataset(dialogues)
    assert dataset.column_names[:5] == ["schema_version", "id", "task", "split", "language"]
    assert dataset[0]["utterances"] == ["hi", "hello"]
    assert dialogues_from_hf(dataset) == dialogues


# ----------------------------------------------------------------- checking without building

VALIDATE_CASES = [
    ("casino", "casino/casino_broken.json"),
    ("casino", "casino/casino_sample.json"),
    ("craigslist", "craigslist/broken.json"),
    ("craigslist", "craigslist/hf.jsonl"),
    ("mutualfriends", "mutualfriends/broken.json"),
    ("mutualfriends", "mutualfriends/hf_validation.json"),
    ("duo", "duo"),
]


@pytest.mark.parametrize("corpus, relative", VALIDATE_CASES)
def test_validating_finds_what_reading_finds(corpus: str, relative: str, fixtures: Path):
    """`validate_corpus` skips building dialogues but must report the same problems and counts."""
    from duologue.data.io import validate_corpus
    from duologue.tasks import corpus_format

    fmt = corpus_format(corpus)
    read = read_corpus(fmt, fixtures / relative, skip_invalid=True)
    checked = validate_corpus(fmt, fixtures / relative)
    assert checked.dialogues == []
    assert (checked.records, checked.invalid, checked.files) == (read.records, read.invalid, read.files)
    assert checked.problems == read.problems


@pytest.mark.parametrize("corpus, relative", [("duo", "duo"), ("casino", "casino/split"), ("craigslist", "craigslist/validation.json")])
def test_validating_the_real_corpora_agrees_with_reading_them(corpus: str, relative: str, corpus_path):
    from duologue.data.io import validate_corpus
    from duologue.tasks import corpus_format

    fmt = corpus_format(corpus)
    path = corpus_path(relative)
    read = read_corpus(fmt, path, skip_invalid=True)
    checked = validate_corpus(fmt, path)
    assert (checked.records, checked.invalid, len(checked.problems)) == (read.records, read.invalid, len(read.problems))
    assert read.invalid == 0 and len(read.dialogues) == read.records

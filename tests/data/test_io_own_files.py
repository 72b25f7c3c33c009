"""Generic corpus IO for formats whose native files are not JSON: the `suffixes`, `iter_file` and
`write_file` hooks, exercised with a throwaway text format defined here (no task involved)."""

import json
from pathlib import Path
from typing import Any, Iterable, Iterator

import pytest

from duologue.core.schema import Dialogue
from duologue.data.formats import Problem
from duologue.data.io import CorpusReadError, list_files, read_corpus, validate_corpus, write_native

from tests.data.test_io import RECORDS, ToyFormat


class TabFormat(ToyFormat):
    """One record per line: `id<TAB>turn|turn|...`; a line without a tab is kept as a bare string,
    which `check` refuses. A record of one turn is a rule anomaly (a warning)."""

    name = "toytab"
    suffixes = (".tab",)

    def iter_file(self, file: Path) -> Iterator[tuple[int, Any, int | None]]:
        index = 0
        with open(file, encoding="utf-8", newline="") as handle:
            for number, line in enumerate(handle, start=1):
                line = line.rstrip("\n")
                if not line:
                    continue
                rid, tab, turns = line.partition("\t")
                yield index, ({"id": rid, "turns": turns.split("|")} if tab else line), number
                index += 1

    def write_file(self, dialogues: Iterable[Dialogue], out: Path) -> list[Path]:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text("".join(f"{r['id']}\t{'|'.join(r['turns'])}\n" for r in self.write_records(dialogues)), encoding="utf-8")
        return [out]

    def check_in_detail(self, record: Any) -> list[Problem]:
        problems = super().check_in_detail(record)
        if isinstance(record, dict) and isinstance(record.get("turns"), list) and len(record["turns"]) == 1:
            problems.append(Problem("only one side spoke", "$.turns", severity="warning", code="one-turn"))
        return problems


TEXT = "r1\thi|hello\n\nr2\tyo\n"
"""Two records, at lines 1 and 3 (a blank line between); r2 has the one-turn anomaly."""


def test_own_files_are_read_by_the_format_with_their_lines(tmp_path: Path):
    path = tmp_path / "toy_test.tab"
    path.write_text(TEXT, encoding="utf-8")
    result = read_corpus(TabFormat(), path)
    assert [(d.id, [m.text for m in d.messages()], d.split) for d in result.dialogues] == [("r1", ["hi", "hello"], "test"), ("r2", ["yo"], "test")]
    assert result.records == 2 and result.files == 1 and result.invalid == 0 and not result.problems
    [warning] = result.warnings
    assert (warning.file, warning.line, warning.record, warning.path, warning.code) == (str(path), 3, "r2", "$.turns", "one-turn")
    assert result.flagged == 1 and [a.code for a in result.dialogues[1].anomalies] == ["one-turn"]
    checked = validate_corpus(TabFormat(), path)
    assert (checked.records, checked.invalid, checked.flagged, checked.dialogues) == (2, 0, 1, [])


def test_bad_lines_name_file_line_and_record_like_json_problems(tmp_path: Path):
    path = tmp_path / "bad.tab"
    path.write_text("r1\thi\nno tab here\nr1\tagain|twice\n", encoding="utf-8")
    with pytest.raises(CorpusReadError) as error:
        read_corpus(TabFormat(), path)
    problems = error.value.problems
    refused, duplicate = problems[0], problems[-1]  # the toy checker says "not an object" once per required field
    assert (refused.line, refused.record, refused.path) == (2, "#1", "$") and "expected an object" in refused.reason
    assert (duplicate.line, duplicate.record) == (3, "r1") and "duplicate record id 'r1'" in duplicate.reason
    result = read_corpus(TabFormat(), path, skip_invalid=True)
    assert [d.id for d in result.dialogues] == ["r1"] and result.invalid == 2 and result.problems == problems
    assert validate_corpus(TabFormat(), path).problems == result.problems


def test_a_folder_holds_own_files_next_to_json_and_only_formats_that_claim_them_see_them(tmp_path: Path):
    (tmp_path / "a.tab").write_text(TEXT, encoding="utf-8")
    (tmp_path / "b.json").write_text(json.dumps([{"id": "r3", "turns": ["x", "y"]}]))
    (tmp_path / "notes.txt").write_text("not data")
    assert [p.name for p in list_files(tmp_path, fmt=TabFormat())] == ["a.tab", "b.json"]
    assert [p.name for p in list_files(tmp_path)] == ["b.json"]
    assert [p.name for p in list_files(tmp_path, fmt=ToyFormat())] == ["b.json"]
    result = read_corpus(TabFormat(), tmp_path)
    assert [d.id for d in result.dialogues] == ["r1", "r2", "r3"] and result.files == 2


def test_writing_an_own_file_gives_it_back_exactly_and_json_is_still_json(tmp_path: Path):
    source = tmp_path / "in.tab"
    source.write_text("r1\thi|hello\nr2\tyo\n", encoding="utf-8")
    fmt = TabFormat()
    dialogues = read_corpus(fmt, source).dialogues
    [out] = write_native(fmt, dialogues, tmp_path / "sub" / "OUT.TAB")
    assert out.read_bytes() == source.read_bytes()
    [out] = write_native(fmt, dialogues, tmp_path / "out.json")
    assert json.loads(out.read_text()) == RECORDS[:1] + [{"id": "r2", "turns": ["yo"]}]


def test_text_that_is_not_utf8_is_a_problem_and_earlier_records_are_kept(tmp_path: Path):
    path = tmp_path / "latin.tab"
    good = b"".join(b"r%d\thi|hello\n" % n for n in range(3000))  # longer than one block of decoded text
    path.write_bytes(good + b"bad\tcaf\xe9\n")
    with pytest.raises(CorpusReadError) as error:
        read_corpus(TabFormat(), path)
    [problem] = error.value.problems
    assert problem.file == str(path) and "not UTF-8 text" in problem.reason
    result = read_corpus(TabFormat(), path, skip_invalid=True)
    assert 0 < result.records < 3000 and len(result.dialogues) == result.records
    assert f"reading stopped after the record at line {result.records}" in problem.reason


class ClaimsButCannotRead(ToyFormat):
    """Names a suffix of its own but keeps the default hooks: a format bug, reported, never a crash."""

    name = "toyclaim"
    suffixes = (".claim",)


def test_a_format_without_its_own_reader_or_writer_is_reported_not_raised(tmp_path: Path):
    path = tmp_path / "x.claim"
    path.write_text("anything")
    with pytest.raises(CorpusReadError) as error:
        read_corpus(ClaimsButCannotRead(), path)
    [problem] = error.value.problems
    assert problem.file == str(path) and "NotImplementedError" in problem.reason and "toyclaim" in problem.reason
    with pytest.raises(NotImplementedError, match="writes no files of its own"):
        write_native(ClaimsButCannotRead(), [], tmp_path / "y.claim")
    assert ToyFormat.suffixes == ()

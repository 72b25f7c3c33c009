"""Bad input, tried as a careless or adversarial user would: every case ends in a message that says
what and where, a non-zero exit code, and no traceback.

Unreadable files and folders are made so that they stay unreadable for every user, root included:
a file that opens but cannot be read (`/proc/self/mem` read from its start), and a folder whose
path is longer than the system allows to list.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from duologue.cli import app
from duologue.data.io import list_files, loads, read_corpus, record_start_lines, validate_corpus
from duologue.tasks import corpus_format

runner = CliRunner()
linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="uses /proc and Linux path limits")


def run(*args: str):
    result = runner.invoke(app, list(args))
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    return result


def sample(fixtures: Path) -> Path:
    return fixtures / "casino" / "casino_sample.json"


# ---------------------------------------------------------------------- inputs that are not files


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_is_refused_without_reading_it(tmp_path: Path):
    fifo = tmp_path / "corpus.json"
    os.mkfifo(fifo)
    result = run("data", "validate", "casino", str(fifo))  # reading it would block forever
    assert result.exit_code == 2
    assert "not a regular file or folder" in result.stderr and str(fifo) in result.stderr


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_inside_a_folder_is_reported_and_the_rest_read(tmp_path: Path, fixtures: Path):
    (tmp_path / "casino_train.json").write_bytes(sample(fixtures).read_bytes())
    os.mkfifo(tmp_path / "stray.json")
    result = run("data", "validate", "casino", str(tmp_path), "--json")
    assert result.exit_code == 1
    [problem] = [json.loads(line) for line in result.stdout.splitlines()]
    assert problem["file"].endswith("stray.json") and "not a regular file" in problem["reason"]
    assert "4 record(s): 4 valid" in result.stderr


def test_a_missing_path(tmp_path: Path):
    result = run("data", "stats", "casino", str(tmp_path / "nowhere.json"))
    assert result.exit_code == 2 and "no such file or folder" in result.stderr


# ---------------------------------------------------------------------- unreadable and corrupt files


def corrupt_parquet(folder: Path) -> Path:
    bad = folder / "dialogues.parquet"
    bad.write_bytes(b"PAR1 this is not a parquet file at all")
    return bad


def test_a_corrupt_parquet_file_is_a_problem_not_a_crash(tmp_path: Path):
    bad = corrupt_parquet(tmp_path)
    result = run("data", "validate", "craigslist", str(bad), "--json")
    assert result.exit_code == 1
    [problem] = [json.loads(line) for line in result.stdout.splitlines()]
    assert problem["file"] == str(bad) and "cannot read parquet" in problem["reason"]
    result = run("data", "stats", "duologue", str(bad))
    assert result.exit_code == 1 and "cannot read parquet" in result.stderr


@linux_only
def test_an_unreadable_file_inside_a_folder_is_named(tmp_path: Path, fixtures: Path):
    (tmp_path / "casino_train.json").write_bytes(sample(fixtures).read_bytes())
    (tmp_path / "casino_valid.jsonl").symlink_to("/proc/self/mem")  # opens, but reading from 0 fails
    result = run("data", "validate", "casino", str(tmp_path), "--json")
    assert result.exit_code == 1
    [problem] = [json.loads(line) for line in result.stdout.splitlines()]
    assert problem["file"].endswith("casino_valid.jsonl") and problem["reason"].startswith("cannot read file")


def unlistable_folder(root: Path) -> Path:
    """A folder below `root` whose full path is longer than the system lets anyone list."""
    limit = os.pathconf(str(root), "PC_PATH_MAX")
    top = root / "deep"
    top.mkdir()
    fd = os.open(top, os.O_RDONLY)
    depth = 0
    try:
        while depth * 200 < limit + 400:
            os.mkdir("d" * 199, dir_fd=fd)
            inner = os.open("d" * 199, os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd, depth = inner, depth + 1
        with open(os.open("lost.json", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd), "w") as handle:
            handle.write("[]")
    finally:
        os.close(fd)
    return top


@linux_only
def test_an_unreadable_sub_folder_is_reported_not_skipped_silently(tmp_path: Path, fixtures: Path):
    (tmp_path / "casino_train.json").write_bytes(sample(fixtures).read_bytes())
    unlistable_folder(tmp_path)
    problems: list = []
    assert list_files(tmp_path, problems=problems) == [tmp_path / "casino_train.json"]
    assert problems and all("cannot read folder" in p.reason for p in problems)
    result = run("data", "validate", "casino", str(tmp_path), "--json")
    assert result.exit_code == 1
    assert any("cannot read folder" in json.loads(line)["reason"] for line in result.stdout.splitlines())


# ---------------------------------------------------------------------- outputs that cannot be written


def test_output_onto_a_folder(tmp_path: Path, fixtures: Path):
    (tmp_path / "out.jsonl").mkdir()
    result = run("data", "convert", "casino", str(sample(fixtures)), "-o", str(tmp_path / "out.jsonl"))
    assert result.exit_code == 2 and "cannot write" in result.stderr and "out.jsonl" in result.stderr
    (tmp_path / "native.json").mkdir()
    result = run("data", "convert", "casino", str(sample(fixtures)), "--to", "casino", "-o", str(tmp_path / "native.json"))
    assert result.exit_code == 2 and "cannot write" in result.stderr


def test_output_into_a_folder_that_cannot_be_made(tmp_path: Path, fixtures: Path):
    (tmp_path / "notes.txt").write_text("a file where a folder would go")
    target = tmp_path / "notes.txt" / "sub" / "out.jsonl"
    result = run("data", "convert", "casino", str(sample(fixtures)), "-o", str(target))
    assert result.exit_code == 2 and "is a file, not a folder" in result.stderr


def test_output_into_a_missing_folder_makes_it(tmp_path: Path, fixtures: Path):
    target = tmp_path / "new" / "deeper" / "out.jsonl"
    result = run("data", "convert", "casino", str(sample(fixtures)), "-o", str(target))
    assert result.exit_code == 0 and len(target.read_text().splitlines()) == 4


# ---------------------------------------------------------------------- report on the wrong input


@pytest.mark.parametrize("kind", ["garbage", "native corpus", "corrupt parquet", "empty lines"])
def test_report_exits_non_zero_when_nothing_readable_and_counts_what_it_left_out(kind: str, tmp_path: Path, fixtures: Path):
    if kind == "garbage":
        path = tmp_path / "out.jsonl"
        path.write_text("not json\n{\"a\": 1}\n")
        left_out = "2 record(s) left out"
    elif kind == "native corpus":  # a file of the wrong kind: a corpus in its own format
        path = sample(fixtures)
        left_out = "4 record(s) left out"
    elif kind == "corrupt parquet":
        path = corrupt_parquet(tmp_path)
        left_out = "1 file(s) unreadable"
    else:
        path = tmp_path / "out.jsonl"
        path.write_text("\n\n")
        left_out = "0 record(s) left out"
    result = run("report", str(path))
    assert result.exit_code == 1
    assert "no readable dialogues" in result.stderr and left_out in result.stderr


def test_report_on_a_mix_says_how_many_it_left_out(coins, tmp_path: Path):
    path = tmp_path / "run.jsonl"
    assert run("play", "--task", coins, "--agents", "random", "--agents", "random", "-n", "3", "--out", str(path)).exit_code == 0
    with path.open("a") as handle:
        handle.write("garbage\n" + json.dumps({"id": "x"}) + "\n")
    result = run("report", str(path), "--json")
    assert result.exit_code == 0 and json.loads(result.stdout)[0]["episodes"] == 3
    assert "2 record(s) left out as unreadable; 3 dialogue(s) reported" in result.stderr


# ---------------------------------------------------------------------- numbers and rule anomalies


def test_integers_beyond_64_bits_stay_exact(tmp_path: Path, fixtures: Path):
    big = 10**40
    record = json.loads(sample(fixtures).read_text())[0]
    record["collected_by"] = {"batch": big, "negative": -(2**70), "small": 3}
    source = tmp_path / "casino_train.json"
    source.write_text(json.dumps([record]))
    assert loads(source.read_bytes())[0]["collected_by"]["batch"] == big
    own = tmp_path / "out.jsonl"
    assert run("data", "convert", "casino", str(source), "-o", str(own)).exit_code == 0
    assert str(big) in own.read_text() and "e+40" not in own.read_text()
    native = tmp_path / "back.json"
    assert run("data", "convert", "duologue", str(own), "--to", "casino", "-o", str(native)).exit_code == 0
    assert json.loads(native.read_text()) == [record]


def test_loads_is_as_strict_as_orjson():
    for text in (b"[NaN]", b"[Infinity]", b"[1e400]", b'["\\ud800"]', b"[12345678901234567890123, NaN]"):
        with pytest.raises(orjson.JSONDecodeError):
            loads(text)
    assert loads(b"[12345678901234567890123, 1.5]") == [12345678901234567890123, 1.5]


def test_a_negative_listing_price_or_target_is_flagged(fixtures: Path, tmp_path: Path):
    record = json.loads((fixtures / "craigslist" / "cocoa.json").read_text())[0]
    record["scenario"]["kbs"][1]["item"]["Price"] = -265
    record["scenario"]["kbs"][0]["personal"]["Target"] = -10
    path = tmp_path / "test.json"
    path.write_text(json.dumps([record]))
    result = run("data", "validate", "craigslist", str(path), "--json")
    assert result.exit_code == 0  # a warning: the record is read whole
    flagged = {(p["path"], p["code"]) for p in map(json.loads, result.stdout.splitlines())}
    assert flagged == {("$.scenario.kbs[1].item.Price", "negative-price"), ("$.scenario.kbs[0].personal.Target", "negative-price")}
    assert run("data", "validate", "craigslist", str(path), "--strict").exit_code == 1
    [dialogue] = read_corpus(corpus_format("craigslist"), path).dialogues
    assert {a.path for a in dialogue.anomalies} == {p for p, _ in flagged}


# ---------------------------------------------------------------------- line numbers in big files


def reference_lines(text: bytes) -> list[int]:
    """The plain byte-by-byte walk (slow, obviously right) that `record_start_lines` must agree with;
    a top-level object has no elements (its record is the whole file)."""
    if not text.lstrip().startswith(b"["):
        return []
    lines, line, depth, in_string, escaped, expecting = [], 1, 0, False, False, False
    for byte in text:
        if in_string:
            escaped, in_string = (False, True) if escaped else (byte == 0x5C, byte != 0x22)
            continue
        if byte == 0x0A:
            line += 1
        elif byte not in (0x20, 0x09, 0x0D) and depth == 1 and expecting:
            if byte != 0x5D:
                lines.append(line)
            expecting = False
        if byte == 0x22:
            in_string = True
        elif byte in (0x5B, 0x7B):
            depth += 1
            expecting = depth == 1 and byte == 0x5B
        elif byte in (0x5D, 0x7D):
            depth -= 1
        elif byte == 0x2C and depth == 1:
            expecting = True
    return lines


def test_record_lines_agree_with_a_plain_walk(fixtures: Path):
    tricky = [{"a": 'quote " and \\ backslash \\\\', "b": "[{,}]"}, "\\", ["x\\\"y"], 3, {"n": [1, [2, {"c": "]"}]]}]
    texts = [json.dumps(tricky, indent=indent).encode() for indent in (None, 1, 4)]
    texts += [file.read_bytes() for file in sorted(fixtures.rglob("*.json"))]
    texts += [b"[]", b"[\n]", b"[\n\n1,2,\n3]", b'{"a": [1, 2]}']
    for text in texts:
        assert record_start_lines(text) == reference_lines(text)


def test_finding_the_line_of_a_problem_at_the_end_of_a_big_file_is_proportionate(fixtures: Path, tmp_path: Path):
    records = json.loads(sample(fixtures).read_text())
    copies = []
    for round_ in range(600):
        for record in records:
            copies.append({**record, "dialogue_id": record["dialogue_id"] + 1000 * round_})
    copies[-1] = {**copies[-1], "chat_logs": "broken"}
    path = tmp_path / "casino_train.json"
    path.write_text(json.dumps(copies, indent=1))
    fmt = corpus_format("casino")
    start = time.perf_counter()
    result = validate_corpus(fmt, path)
    with_lines = time.perf_counter() - start
    start = time.perf_counter()
    lines = record_start_lines(path.read_bytes())
    finding = time.perf_counter() - start
    assert result.problems[0].line == lines[-1] > 1
    assert finding < 0.6 * with_lines, (finding, with_lines)  # was 6x the validation itself

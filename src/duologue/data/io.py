"""Reading and writing dialogues: native corpus files and duologue's own jsonl / parquet.

Native files may be JSON (an array of records, or one record per file), JSONL or parquet, alone
or in a folder. Every problem is reported with file, line or record, and JSON path; a user's bad
file never ends in a traceback.
"""

from __future__ import annotations

import gc
import json
import os
import re
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

import numpy as np
import orjson
from pydantic import ValidationError

from duologue.core.schema import Dialogue
from duologue.data.formats import CorpusFormat, Problem, RecordError, anomalies_of

NATIVE_SUFFIXES = (".json", ".jsonl", ".parquet")


class CorpusReadError(Exception):
    """Reading stopped because input was invalid; `problems` says what and where."""

    def __init__(self, problems: list[Problem]):
        self.problems = problems
        shown = "\n".join(f"  {p}" for p in problems[:20])
        more = f"\n  ... and {len(problems) - 20} more" if len(problems) > 20 else ""
        super().__init__(f"{len(problems)} problem(s) in the input:\n{shown}{more}")


@dataclass
class RawRecord:
    """One native record with where it was found."""

    file: Path
    index: int
    record: Any
    line: int | None = None


@dataclass
class ReadResult:
    """What a read gave: the dialogues, every problem found, and how many records were invalid.

    `problems` are errors (records refused, files unreadable); `warnings` are rule anomalies of
    records that were read (each also on its dialogue's `anomalies`), `flagged` counts those records.
    """

    dialogues: list[Dialogue] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    records: int = 0
    invalid: int = 0
    files: int = 0
    warnings: list[Problem] = field(default_factory=list)
    flagged: int = 0


class CorpusPathError(ValueError):
    """The path given cannot be read as a corpus (missing, or not a regular file or folder)."""


def list_files(path: Path, suffixes: tuple[str, ...] = NATIVE_SUFFIXES, problems: list[Problem] | None = None, *, fmt: CorpusFormat | None = None) -> list[Path]:
    """The data files at `path`: the file itself, or every matching file below a folder, sorted.

    With `fmt`, files ending with one of the format's own `suffixes` (its non-JSON files) count too.

    A path that is neither a regular file nor a folder (a FIFO, a device) raises `CorpusPathError`
    (reading one could block forever). Below a folder, sub-folders that cannot be listed and data
    files that are not regular files are reported in `problems` (when given), not skipped silently.
    """
    if fmt is not None:
        suffixes = suffixes + tuple(s.lower() for s in fmt.suffixes)
    if path.is_file():
        return [path]
    if path.is_dir():
        found: list[Path] = []

        def unlistable(error: OSError) -> None:
            if problems is not None:
                problems.append(Problem(f"cannot read folder: {error.strerror or error}; its files were left out", file=error.filename or str(path)))

        for folder, _, names in os.walk(path, onerror=unlistable, followlinks=False):
            for name in names:
                if not name.lower().endswith(suffixes):
                    continue
                file = Path(folder, name)
                if file.is_file():
                    found.append(file)
                elif problems is not None:
                    problems.append(Problem("not a regular file (a FIFO, socket or device?); left out", file=str(file)))
        return sorted(found)
    if path.exists():
        raise CorpusPathError(f"{path}: not a regular file or folder (a FIFO, socket or device?); give a file or a folder of data files")
    raise FileNotFoundError(f"{path}: no such file or folder")


def iter_raw(path: Path, problems: list[Problem], fmt: CorpusFormat | None = None) -> Iterator[RawRecord]:
    """Yield the native records of a file or folder; unreadable files become problems, not exceptions.

    With `fmt`, the format's own files (by `fmt.suffixes`) are read by `fmt.iter_file`.
    """
    for file in list_files(path, problems=problems, fmt=fmt):
        if fmt is not None and is_own_file(fmt, file):
            yield from _iter_format_file(fmt, file, problems)
        else:
            yield from _iter_file(file, problems)


def is_own_file(fmt: CorpusFormat, file: Path) -> bool:
    """Whether `file` is one of the format's own (non-JSON) files, by its name's ending."""
    return bool(fmt.suffixes) and file.name.lower().endswith(tuple(s.lower() for s in fmt.suffixes))


def _iter_format_file(fmt: CorpusFormat, file: Path, problems: list[Problem]) -> Iterator[RawRecord]:
    """The records of one of a format's own files; a file that cannot be read becomes a problem
    saying where reading stopped (the records before it are kept)."""
    name, line = str(file), None
    try:
        for index, record, line in fmt.iter_file(file):
            yield RawRecord(file, index, record, line)
    except OSError as error:
        problems.append(Problem(f"cannot read file: {error.strerror or error}", file=name, line=line))
    except UnicodeDecodeError as error:
        after = f" after the record at line {line}" if line is not None else ""
        problems.append(Problem(f"not UTF-8 text ({error.reason}); reading stopped{after}", file=name))
    except Exception as error:  # noqa: BLE001  a format's reader failing on odd input must be reported, not crash the run
        problems.append(Problem(f"cannot read file as {fmt.name}: {type(error).__name__}: {error}", file=name, line=line))


_DIGITS = bytes(0x30 if 0x30 <= byte <= 0x39 else 0x20 for byte in range(256))
"""Maps every digit to `0` and every other byte to a space: twenty `0`s in a row are then twenty
digits in a row, maybe an integer beyond 64 bits, which orjson reads as a float. (One C-level
translation and search: several times faster than a regular expression over digit-heavy text.)"""
_TWENTY_DIGITS = b"0" * 20


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def loads(data: bytes) -> Any:
    """Parse JSON strictly and fast (orjson), keeping integers beyond 64 bits exact.

    orjson reads `10000000000000000000000000000000000000000` as the float `1e+40`; where the text
    has twenty digits in a row (rare: long ids, big numbers) it is parsed again by the standard
    library, which keeps every integer exact. orjson's pass has already refused what is not JSON.
    """
    value = orjson.loads(data)
    if data.translate(_DIGITS).find(_TWENTY_DIGITS) < 0:
        return value
    return json.loads(data, parse_constant=_reject_constant)


def dumps(value: Any) -> bytes:
    """Compact JSON bytes (orjson), falling back to the standard library for integers beyond 64 bits."""
    try:
        return orjson.dumps(value)
    except TypeError:  # orjson refuses integers outside 64 bits
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode("utf-8")


def _iter_file(file: Path, problems: list[Problem]) -> Iterator[RawRecord]:
    suffix = file.suffix.lower()
    name = str(file)
    if suffix == ".jsonl":
        try:
            handle = file.open("rb")
        except OSError as error:
            problems.append(Problem(f"cannot read file: {error.strerror or error}", file=name))
            return
        with handle:
            index, number = 0, 0
            lines = iter(handle)
            while True:
                try:
                    line = next(lines, None)
                except OSError as error:  # opened, but reading failed (an I/O error, a vanished mount)
                    problems.append(Problem(f"cannot read file: {error.strerror or error}", file=name, line=number + 1))
                    return
                if line is None:
                    return
                number += 1
                if not line.strip():
                    continue
                try:
                    record = loads(line)
                except orjson.JSONDecodeError as error:
                    problems.append(Problem(f"malformed JSON: {_json_reason(error)}", file=name, line=number, record=f"#{index}"))
                else:
                    yield RawRecord(file, index, record, number)
                index += 1
    if suffix == ".parquet":
        try:
            import pyarrow.parquet as pq

            rows = pq.read_table(file).to_pylist()
        except OSError as error:
            problems.append(Problem(f"cannot read file: {error.strerror or error}", file=name))
            return
        except Exception as error:  # noqa: BLE001  pyarrow raises several types for a bad file
            problems.append(Problem(f"cannot read parquet: {type(error).__name__}: {error}", file=name))
            return
        for index, row in enumerate(rows):
            yield RawRecord(file, index, row)
        return
    try:
        with open(file, "rb") as handle:  # plain `open`: pathlib's read_bytes costs more, once per file
            data = loads(handle.read())
    except orjson.JSONDecodeError as error:
        problems.append(Problem(f"malformed JSON: {_json_reason(error)}", file=name, line=_json_line(error)))
        return
    except OSError as error:
        problems.append(Problem(f"cannot read file: {error.strerror or error}", file=name))
        return
    if isinstance(data, list):
        for index, record in enumerate(data):
            yield RawRecord(file, index, record)
    else:
        yield RawRecord(file, 0, data)


_CLASSES = np.zeros(256, dtype=np.uint8)
for _byte, _class in ((b"[", 1), (b"{", 1), (b"]", 2), (b"}", 2), (b",", 3), (b'"', 4), (b"\\", 5), (b"\n", 6)):
    _CLASSES[_byte[0]] = _class
"""The bytes that matter for finding where array elements start: 1 open, 2 close, 3 comma, 4 quote, 5 backslash, 6 line break."""
_SOLID = re.compile(rb"[^ \t\r\n]")


def record_start_lines(text: bytes) -> list[int]:
    """Line number (1-based) where each element of a top-level JSON array starts.

    Used only when a file has problems, so messages can say `file:line` for JSON arrays too. The
    file has parsed, so it is valid JSON (no raw line break inside a string). numpy classifies
    every byte in one pass; the quotes that are not escaped delimit the strings, brackets and
    commas outside them give the nesting depth, and the commas at depth 1 separate the elements.
    Only a few array passes over the text: a small part of parsing it, however large the file.
    """
    first = _SOLID.search(text)
    if first is None or text[first.start()] != 0x5B:  # not an array
        return []
    codes = _CLASSES[np.frombuffer(text, dtype=np.uint8)]
    marks = np.flatnonzero(codes)
    kinds = codes[marks]
    del codes
    quotes = kinds == 4
    after_backslash = np.zeros(len(marks), dtype=bool)  # the byte just before is a backslash
    after_backslash[1:] = (kinds[:-1] == 5) & (marks[:-1] + 1 == marks[1:])
    for at in np.flatnonzero(quotes & after_backslash).tolist():  # few: backslashes are rare
        quotes[at] = not _escaped(text, int(marks[at]))
    in_string = np.cumsum(quotes, dtype=np.int64) % 2 == 1  # an odd number of quotes so far
    newlines = marks[kinds == 6]
    structural = (kinds >= 1) & (kinds <= 3) & ~in_string
    marks, kinds = marks[structural], kinds[structural]
    depth = np.cumsum(np.where(kinds == 1, 1, np.where(kinds == 2, -1, 0)), dtype=np.int64)
    delimiters = marks[((kinds == 3) & (depth == 1)) | (marks == first.start())].tolist()
    starts = []
    for delimiter in delimiters:  # one per element: the first byte that is not blank after it
        solid = _SOLID.search(text, delimiter + 1)
        if solid is None or text[solid.start()] == 0x5D:  # `]`: an empty array
            break
        starts.append(solid.start())
    lines: list[int] = (np.searchsorted(newlines, starts) + 1).tolist()
    return lines


def _escaped(text: bytes, quote: int) -> bool:
    """Whether the quote at `quote` follows an odd run of backslashes (so it is inside a string)."""
    run, at = 0, quote - 1
    while at >= 0 and text[at] == 0x5C:
        run, at = run + 1, at - 1
    return run % 2 == 1


def _json_reason(error: orjson.JSONDecodeError) -> str:
    return f"{error.msg} at line {error.lineno} column {error.colno}"


def _json_line(error: orjson.JSONDecodeError) -> int | None:
    return getattr(error, "lineno", None)


def read_corpus(
    fmt: CorpusFormat,
    path: Path | str,
    *,
    skip_invalid: bool = False,
    progress: Callable[[int], None] | None = None,
) -> ReadResult:
    """Read every record of a native corpus file or folder into dialogues.

    With `skip_invalid`, invalid records are counted and left out; otherwise a `CorpusReadError`
    lists every problem (nothing is returned half-read).
    """
    with _no_cyclic_gc():
        return _read_corpus(fmt, Path(path), skip_invalid=skip_invalid, progress=progress)


def validate_corpus(fmt: CorpusFormat, path: Path | str, *, progress: Callable[[int], None] | None = None) -> ReadResult:
    """Check every record of a native corpus without building dialogues: problems and counts only.

    What `duologue data validate` needs. A record that passes `check` always converts (the
    readers' property tests hold them to that), so skipping the conversion loses no problem; the
    returned result has no dialogues.
    """
    with _no_cyclic_gc():
        return _read_corpus(fmt, Path(path), skip_invalid=True, progress=progress, build=False)


@contextmanager
def _no_cyclic_gc() -> Iterator[None]:
    """Pause Python's cyclic garbage collector while a corpus is read, then restore it.

    Reading builds hundreds of thousands of objects (parsed JSON, then models) and frees none, so
    the collector keeps re-scanning everything built so far and finds nothing to free: a fifth to
    a quarter of the reading time went there, even counting the one collection that runs once it
    is back on. Parsed JSON and dialogues hold no reference cycles; reference counting still frees
    memory as usual, and a cycle made meanwhile is collected when the collector next runs. It is
    turned back on only if it was on.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _read_corpus(fmt: CorpusFormat, path: Path, *, skip_invalid: bool, progress: Callable[[int], None] | None, build: bool = True) -> ReadResult:
    result = ReadResult()
    seen_ids: dict[str, str] = {}
    files: set[Path] = set()
    array_lines: dict[Path, list[int]] = {}
    one_per_file = fmt.layout == "one-per-file"
    current: Path | None = None
    file_name, folder, split = "", "", None
    for raw in iter_raw(path, result.problems, fmt):
        if raw.file is not current:  # what depends only on the file is worked out once per file
            current = raw.file
            files.add(current)
            file_name, folder, split = str(current), str(current.parent), fmt.split_of(current)
        result.records += 1
        if progress:
            progress(1)
        rid = _safe_id(fmt, raw.record)
        problems = _safe_check(fmt, raw.record)
        if rid is not None:
            key = f"{folder}/{rid}" if one_per_file else rid
            scope = fmt.id_scope(raw.record)
            if scope:
                key = f"{scope}:{key}"
            if key in seen_ids:
                problems.append(Problem(f"duplicate record id {rid!r} (first seen in {seen_ids[key]})", path="$"))
            else:
                seen_ids[key] = f"{file_name}#{raw.index}"
        anomalies: list[Problem] = []
        if problems:
            label, line = rid if rid is not None else f"#{raw.index}", raw.line or _array_line(raw, array_lines)
            located = [p.located(file=file_name, record=label, line=line) for p in problems]
            anomalies = [p for p in located if p.is_warning]
            result.warnings.extend(anomalies)
            if len(anomalies) != len(located):  # an error: the record is refused (its warnings are still reported)
                result.invalid += 1
                result.problems.extend(p for p in located if not p.is_warning)
                continue
            result.flagged += 1
        if not build:
            continue
        try:
            dialogue = fmt.to_dialogue(raw.record, file=file_name, index=raw.index, split=split)
        except (RecordError, ValidationError, ValueError, KeyError, TypeError) as error:
            result.invalid += 1
            label = rid if rid is not None else f"#{raw.index}"
            result.problems.extend(p.located(file=file_name, record=label, line=raw.line) for p in _problems_of(error))
            continue
        if anomalies:
            dialogue.anomalies = anomalies_of(anomalies)
        result.dialogues.append(dialogue)
    result.files = len(files)
    if result.problems and not skip_invalid:
        raise CorpusReadError(result.problems)
    return result


def _array_line(raw: RawRecord, cache: dict[Path, list[int]]) -> int | None:
    """The line where a record of a JSON array file starts (computed once per file, on demand)."""
    if raw.file.suffix.lower() != ".json":
        return None
    if raw.file not in cache:
        try:
            cache[raw.file] = record_start_lines(raw.file.read_bytes())
        except OSError:  # gone since it was read: the message goes without a line
            cache[raw.file] = []
    lines = cache[raw.file]
    return lines[raw.index] if raw.index < len(lines) else None


def _safe_id(fmt: CorpusFormat, record: Any) -> str | None:
    try:
        rid = fmt.record_id(record)
    except Exception:  # noqa: BLE001  a malformed record must not stop the read
        return None
    return None if rid is None else str(rid)


def _safe_check(fmt: CorpusFormat, record: Any) -> list[Problem]:
    try:
        problems = fmt.check(record)
        return [] if not problems else list(problems)
    except Exception as error:  # noqa: BLE001  a checker bug must still be reported, not crash the run
        return [Problem(f"record could not be checked ({type(error).__name__}: {error})")]


def _problems_of(error: Exception) -> list[Problem]:
    if isinstance(error, RecordError):
        return error.problems
    if isinstance(error, ValidationError):
        return [Problem(e["msg"], path="$." + ".".join(str(x) for x in e["loc"])) for e in error.errors()]
    return [Problem(f"cannot convert record: {error}")]


# --------------------------------------------------------------------------- native writing


def write_native(fmt: CorpusFormat, dialogues: Iterable[Dialogue], out: Path | str) -> list[Path]:
    """Write dialogues in the corpus's own format: one JSON array file, or one file per record.

    An `out` ending with one of the format's own `suffixes` is written by `fmt.write_file`.
    """
    out = Path(out)
    if is_own_file(fmt, out):
        return fmt.write_file(dialogues, out)
    records = fmt.write_records(dialogues)
    if fmt.layout == "one-per-file" and out.suffix.lower() != ".json":
        out.mkdir(parents=True, exist_ok=True)
        written = []
        for index, record in enumerate(records):
            target = out / fmt.native_file_name(record, index)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(json.dumps(record, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
            written.append(target)
        return written
    out.parent.mkdir(parents=True, exist_ok=True)
    if out.suffix.lower() == ".jsonl":
        with out.open("wb") as handle:
            for record in records:
                handle.write(dumps(record) + b"\n")
    else:
        out.write_text(json.dumps(records, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    return [out]


# --------------------------------------------------------------------------- duologue's own format

_NESTED = ("scenario", "parties", "events", "outcome", "ratings", "annotations", "source", "meta", "anomalies")
"""Nested parts, stored as JSON text in parquet; a file written before a part existed lacks its column."""


def dump_dialogue(dialogue: Dialogue) -> bytes:
    """One dialogue as a compact JSON line."""
    return dumps(dialogue.model_dump(mode="json"))


def write_dialogues(dialogues: Iterable[Dialogue], out: Path | str) -> Path:
    """Write dialogues in duologue's schema: `.jsonl` (one per line) or `.parquet`."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    if out.suffix.lower() == ".parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq

        pq.write_table(pa.Table.from_pylist([_flat_row(d) for d in dialogues]), out)
        return out
    if out.suffix.lower() != ".jsonl":
        raise ValueError(f"{out}: write dialogues to a .jsonl or .parquet file")
    with out.open("wb") as handle:
        for dialogue in dialogues:
            handle.write(dump_dialogue(dialogue) + b"\n")
    return out


def _flat_row(dialogue: Dialogue) -> dict[str, Any]:
    """A parquet row: scalar fields as columns, the transcript as lists, nested parts as JSON text.

    JSON text keeps heterogeneous native leftovers exactly, which a fixed Arrow type could not.
    """
    data = dialogue.model_dump(mode="json")
    row = {k: data[k] for k in ("schema_version", "id", "task", "split", "language")}
    row["speakers"] = [e.party for e in dialogue.messages()]
    row["utterances"] = [e.text for e in dialogue.messages()]
    for key in _NESTED:
        row[key] = dumps(data[key]).decode()
    return row


def _unflat_row(row: dict[str, Any]) -> dict[str, Any]:
    data = {k: row[k] for k in ("schema_version", "id", "task", "split", "language")}
    for key in _NESTED:
        if key in row:
            data[key] = loads(row[key].encode() if isinstance(row[key], str) else row[key])
    return data


def read_dialogues(path: Path | str, *, skip_invalid: bool = False) -> ReadResult:
    """Read files in duologue's own schema (jsonl, parquet, or a JSON array) from a file or folder."""
    path = Path(path)
    result = ReadResult()
    files: set[Path] = set()
    for raw in iter_raw(path, result.problems):
        files.add(raw.file)
        result.records += 1
        record = raw.record
        if raw.file.suffix.lower() == ".parquet" and isinstance(record, dict) and isinstance(record.get("events"), str):
            record = _unflat_row(record)
        try:
            result.dialogues.append(Dialogue.model_validate(record))
        except ValidationError as error:
            result.invalid += 1
            label = record.get("id") if isinstance(record, dict) and isinstance(record.get("id"), str) else f"#{raw.index}"
            result.problems.extend(p.located(file=str(raw.file), record=label, line=raw.line) for p in _problems_of(error))
    result.files = len(files)
    if result.problems and not skip_invalid:
        raise CorpusReadError(result.problems)
    return result


def to_hf_dataset(dialogues: Iterable[Dialogue]) -> Any:  # a datasets.Dataset (an optional dependency)
    """A Hugging Face `datasets.Dataset`, one row per dialogue, in the same layout as parquet output."""
    try:
        from datasets import Dataset
    except ImportError as error:  # the `hf` extra is optional
        raise RuntimeError("exporting to Hugging Face datasets needs the 'hf' extra: pip install 'duologue[hf]'") from error
    return Dataset.from_list([_flat_row(d) for d in dialogues])


def dialogues_from_hf(dataset: Iterable[dict[str, Any]]) -> list[Dialogue]:
    """Dialogues back from a dataset made by `to_hf_dataset`."""
    return [Dialogue.model_validate(_unflat_row(row)) for row in dataset]

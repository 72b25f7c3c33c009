"""Export of collected dialogues: duologue's jsonl plus each corpus's own format, as a folder or a zip.

What an export holds (the same layout in a folder and in a zip)::

    dialogues.jsonl                      every dialogue in duologue's schema, with all its ratings
    native/casino/casino.json            CaSiNo records (one JSON array)
    native/craigslist/craigslist.json    CraigslistBargain records (CoCoA event format)
    native/mutualfriends/mutualfriends.json
    native/duo/<setting>/<lang>/<id>.json  DUO records, one file per dialogue
    participants.csv, participants.parquet  one row per participant (`duologue.web.participants`), when given
    manifest.json                        counts (with each study's end reasons), files, and what the native files leave out

Dialogues set aside as too short to earn a code (`set_aside`: dialogue id -> reason) stay in the
export, flagged: `meta.set_aside` in `dialogues.jsonl` carries the reason, and the manifest lists
them, so an analysis can leave them out (`duologue analyze` does by default).

Native files are written by each corpus's own writer (`CorpusFormat.from_dialogue`, through
`duologue.data.io.write_native`), chosen by the dialogue's task family, so each folder reads back
with `read_corpus` like the published corpus. Questionnaire answers travel the way the corpora
store them: CaSiNo's satisfaction and opponent likeness in `participant_info.<id>.outcomes`; DUO's
user ratings in `subjective_evaluation` and third-party ratings in `objective_evaluation`
(`<item>_scores` and their mean).

Nothing is dropped on the way: what a native format has no place for (CoCoA-style human-likeness
and cooperation ratings in MutualFriends or CraigslistBargain records, third-party ratings of a
CaSiNo dialogue, platform notes such as a disconnect) stays in `dialogues.jsonl`, and
`manifest.json` lists it per corpus (`not_in_native`), found by reading each written record back
and comparing its ratings with the stored ones. A dialogue whose native record would not pass the
format's own `check` (say a DUO chat that ended before anyone spoke) is left out of the native
files, listed under `skipped` with the reasons, and kept in the jsonl.
"""

from __future__ import annotations

import io
import json
import tempfile
import zipfile
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from duologue.core.schema import Dialogue, Rating
from duologue.data.formats import CorpusFormat
from duologue.data.io import write_dialogues, write_native
from duologue.tasks import CORPUS_FORMATS, corpus_format
from duologue.web.participants import ParticipantTable

JSONL_NAME = "dialogues.jsonl"
NATIVE_FOLDER = "native"
MANIFEST_NAME = "manifest.json"
PARTICIPANTS_NAME = "participants"
"""`participants.csv` and `participants.parquet`."""


@dataclass
class NativeExport:
    """What was written for one corpus format."""

    corpus: str
    files: list[str] = field(default_factory=list)
    """Paths relative to the export root."""
    dialogues: int = 0
    skipped: list[dict[str, Any]] = field(default_factory=list)
    """`{"dialogue": id, "problems": [...]}` for dialogues left out of the native files."""
    not_in_native: dict[str, int] = field(default_factory=dict)
    """`<rater_kind>:<criterion>` -> how many ratings only the jsonl carries."""


@dataclass
class ExportReport:
    """What an export wrote; `to_json()` is the manifest."""

    dialogues: int = 0
    per_task: dict[str, int] = field(default_factory=dict)
    ratings: int = 0
    jsonl: str = JSONL_NAME
    native: dict[str, NativeExport] = field(default_factory=dict)
    without_format: list[str] = field(default_factory=list)
    """Dialogue ids of tasks no corpus format writes (kept in the jsonl only)."""
    set_aside: dict[str, str] = field(default_factory=dict)
    """Dialogue id -> why it was set aside (too short to earn a code); flagged in the jsonl too."""
    participants: list[str] = field(default_factory=list)
    """The participant table's files, when one was written."""
    end_reasons: dict[str, dict[str, int]] = field(default_factory=dict)
    """Per study, how many dialogues ended for each reason (`agreement`, `timeout`, `partner_left`, ...)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "dialogues": self.dialogues,
            "per_task": self.per_task,
            "ratings": self.ratings,
            "jsonl": self.jsonl,
            "native": {
                name: {
                    "files": n.files,
                    "dialogues": n.dialogues,
                    "skipped": n.skipped,
                    "not_in_native": n.not_in_native,
                }
                for name, n in self.native.items()
            },
            "without_format": self.without_format,
            "set_aside": self.set_aside,
            "participants": self.participants,
            "end_reasons": self.end_reasons,
            "note": (
                "dialogues.jsonl holds everything; native/<corpus>/ holds what each corpus's own "
                "format can carry. not_in_native counts ratings that only dialogues.jsonl keeps."
            ),
        }


def end_reason_counts(ends: Iterable[tuple[str, str | None]]) -> dict[str, dict[str, int]]:
    """Per study, how many dialogues ended for each reason, from (study, end reason) pairs; a
    dialogue with no reason yet counts as `live`."""
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    for study, reason in ends:
        counts[study][reason or "live"] += 1
    return {study: dict(sorted(c.items())) for study, c in sorted(counts.items())}


def formats_by_task() -> dict[str, CorpusFormat]:
    """Task family -> the corpus format that writes it (`openchat` -> DUO)."""
    found: dict[str, CorpusFormat] = {}
    for name in CORPUS_FORMATS:
        fmt = corpus_format(name)
        found.setdefault(fmt.task, fmt)
    return found


def flag_set_aside(dialogues: Iterable[Dialogue], set_aside: dict[str, str]) -> list[Dialogue]:
    """The dialogues, those set aside carrying the reason in `meta.set_aside` (copies; the stored ones are untouched)."""
    return [d.model_copy(update={"meta": {**d.meta, "set_aside": set_aside[d.id]}}) if d.id in set_aside else d for d in dialogues]


def write_participants(table: ParticipantTable, out: Path) -> list[str]:
    """`participants.csv` and `participants.parquet` in `out`; their names."""
    from duologue.web.participants import rows_csv, write_parquet

    (out / f"{PARTICIPANTS_NAME}.csv").write_text(rows_csv(table.rows, table.columns), encoding="utf-8")
    write_parquet(table.rows, table.columns, out / f"{PARTICIPANTS_NAME}.parquet")
    return [f"{PARTICIPANTS_NAME}.csv", f"{PARTICIPANTS_NAME}.parquet"]


def export_folder(dialogues: Iterable[Dialogue], out: Path | str, *, set_aside: dict[str, str] | None = None, participants: ParticipantTable | None = None) -> ExportReport:
    """Write the whole export into the folder `out` (created if needed) and return what was written."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    items = flag_set_aside(dialogues, set_aside or {})
    report = ExportReport(dialogues=len(items), ratings=sum(len(d.ratings) for d in items))
    report.set_aside = {d.id: str(d.meta["set_aside"]) for d in items if "set_aside" in d.meta}
    if participants is not None:
        report.participants = write_participants(participants, out)
    report.per_task = dict(sorted(Counter(d.meta.get("task_id") or d.task for d in items).items()))
    report.end_reasons = end_reason_counts((str(d.meta.get("study") or ""), d.meta.get("end_reason")) for d in items)
    write_dialogues(items, out / JSONL_NAME)

    by_task: dict[str, list[Dialogue]] = defaultdict(list)
    for dialogue in items:
        by_task[dialogue.task].append(dialogue)
    formats = formats_by_task()
    for task, group in sorted(by_task.items()):
        fmt = formats.get(task)
        if fmt is None:
            report.without_format.extend(d.id for d in group)
            continue
        report.native[fmt.name] = _write_native_group(fmt, group, out)
    (out / MANIFEST_NAME).write_text(json.dumps(report.to_json(), ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    return report


def export_zip(dialogues: Iterable[Dialogue], *, set_aside: dict[str, str] | None = None, participants: ParticipantTable | None = None) -> bytes:
    """The same export as one zip file, in memory (for an HTTP download)."""
    buffer = io.BytesIO()
    with tempfile.TemporaryDirectory(prefix="duologue-export-") as folder:
        root = Path(folder)
        export_folder(dialogues, root, set_aside=set_aside, participants=participants)
        with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
            for path in sorted(p for p in root.rglob("*") if p.is_file()):
                archive.write(path, path.relative_to(root).as_posix())
    return buffer.getvalue()


def _write_native_group(fmt: CorpusFormat, dialogues: list[Dialogue], out: Path) -> NativeExport:
    """Write one corpus's native files, leaving out (and reporting) dialogues its format cannot hold."""
    result = NativeExport(corpus=fmt.name)
    writable: list[Dialogue] = []
    missing: Counter[str] = Counter()
    for dialogue in dialogues:
        try:
            record = fmt.from_dialogue(dialogue)
            problems = [str(p) for p in fmt.check(record)]
        except (ValueError, KeyError, TypeError) as error:  # a writer refusing a dialogue it cannot express
            record, problems = None, [f"cannot write this dialogue in the {fmt.name} format: {error}"]
        if problems or record is None:  # no record comes without a problem saying why
            result.skipped.append({"dialogue": dialogue.id, "problems": problems})
            missing.update(_rating_key(r) for r in dialogue.ratings)
            continue
        writable.append(dialogue)
        missing.update(_ratings_left_out(fmt, dialogue, record))
    result.dialogues = len(writable)
    result.not_in_native = dict(sorted(missing.items()))
    if writable:
        folder = out / NATIVE_FOLDER / fmt.name
        target = folder if fmt.layout == "one-per-file" else folder / f"{fmt.name}.json"
        written = write_native(fmt, writable, target)
        result.files = sorted(p.relative_to(out).as_posix() for p in written)
    return result


def _ratings_left_out(fmt: CorpusFormat, dialogue: Dialogue, record: dict[str, Any]) -> Counter[str]:
    """Ratings of the dialogue that its native record does not give back, by kind and criterion."""
    try:
        read_back = fmt.to_dialogue(record).ratings
    except Exception:  # noqa: BLE001 - a reader failing on its own writer's output means nothing came through
        read_back = []
    stored = Counter(_rating_key(r) for r in dialogue.ratings)
    kept = Counter(_rating_key(r) for r in read_back)
    return stored - kept


def _rating_key(rating: Rating) -> str:
    return f"{rating.rater_kind}:{rating.criterion}"


__all__ = ["ExportReport", "NativeExport", "ParticipantTable", "PARTICIPANTS_NAME", "flag_set_aside", "export_folder", "export_zip", "formats_by_task", "JSONL_NAME", "MANIFEST_NAME", "NATIVE_FOLDER"]

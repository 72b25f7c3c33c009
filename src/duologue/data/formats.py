"""The contract between generic corpus IO and each corpus's own reader and writer.

Every corpus format lives in its task's folder (`duologue/tasks/<task>/corpus.py`) and subclasses
`CorpusFormat`. Generic code (reading files and folders, validation, statistics, the CLI) only
talks to formats through this class.

Problems come in two severities. An *error* (not an object, a missing required field, a value of
the wrong JSON type, an id that repeats) makes a record unreadable: it is refused and counted as
invalid. A *warning* is a rule anomaly, something the task's rules forbid but the people who made
the corpus did (an accept with no offer on the table, an empty strategy label, a deal that does
not add up, a rating outside its scale): the record is read whole and written back byte for byte,
and the anomaly is kept on `Dialogue.anomalies` with its path in the native record. Each format's
docstring says which of its checks are which.
"""

from __future__ import annotations

import functools
import keyword
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, ClassVar, Iterable, Iterator, Literal, Mapping, TypeVar

from pydantic import BaseModel

from duologue.core.schema import Anomaly, Dialogue

ModelT = TypeVar("ModelT", bound=BaseModel)


@dataclass(frozen=True)
class Problem:
    """One thing wrong with one record, said so that a person can find and fix it."""

    reason: str
    path: str = "$"
    """JSON path inside the record (`$.chat_logs[10].task_data.issue2youget.Food`)."""
    file: str | None = None
    record: str | None = None
    """The record's id where it has one, else `#<index>` (its position in the file)."""
    line: int | None = None
    severity: Literal["error", "warning"] = "error"
    """`error`: the record is unreadable (structure, types, repeated ids) and is refused.
    `warning`: a rule anomaly (something the task's rules forbid but people did); the record is
    read whole and the anomaly is kept on `Dialogue.anomalies`."""
    code: str | None = None
    """A short stable name of the kind of anomaly (`accept-without-offer`), for counting."""

    @property
    def is_warning(self) -> bool:
        return self.severity == "warning"

    def located(self, *, file: str | None, record: str | None, line: int | None = None) -> "Problem":
        return Problem(
            self.reason,
            self.path,
            file if self.file is None else self.file,
            record if self.record is None else self.record,
            self.line if self.line is not None else line,
            self.severity,
            self.code,
        )

    def __str__(self) -> str:
        where = self.file or "<input>"
        if self.line is not None:
            where += f":{self.line}"
        if self.record is not None:
            where += f" record {self.record}"
        label = "warning: " if self.is_warning else ""
        return f"{where} {self.path}: {label}{self.reason}"


def errors_of(problems: list[Problem]) -> list[Problem]:
    """The structural problems only (those that make a record unreadable)."""
    return [p for p in problems if p.severity != "warning"]


def anomalies_of(problems: list[Problem]) -> list[Anomaly]:
    """The rule anomalies among `problems`, as kept on a dialogue."""
    return [Anomaly(path=p.path, message=p.reason, code=p.code) for p in problems if p.severity == "warning"]


class RecordError(ValueError):
    """A record cannot be converted; carries every problem found in it."""

    def __init__(self, problems: list[Problem]):
        self.problems = problems
        super().__init__("; ".join(str(p) for p in problems))


@dataclass
class Checker:
    """Collects problems while walking a native record; keeps format code short and paths exact."""

    problems: list[Problem] = field(default_factory=list)

    def fail(self, path: str, reason: str) -> None:
        """A structural problem: the record cannot be read."""
        self.problems.append(Problem(reason=reason, path=path))

    def warn(self, path: str, reason: str, code: str) -> None:
        """A rule anomaly: the record is read whole, and the anomaly is kept on the dialogue."""
        self.problems.append(Problem(reason=reason, path=path, severity="warning", code=code))

    def require(self, obj: Any, key: str, kind: type | tuple[type, ...], path: str, *, nullable: bool = False) -> Any:
        """Check `obj[key]` exists and has the expected JSON type; return it or None."""
        if type(obj) is not dict and not isinstance(obj, Mapping):
            self.fail(path, f"expected an object, got {json_type(obj)}")
            return None
        if key not in obj:
            self.fail(f"{path}.{key}", "missing field")
            return None
        value = obj[key]
        if value is None and nullable:
            return None
        if not is_json_type(value, kind):
            self.fail(f"{path}.{key}", f"expected {type_names(kind)}, got {json_type(value)}")
            return None
        return value

    def optional(self, obj: Any, key: str, kind: type | tuple[type, ...], path: str, *, nullable: bool = True) -> Any:
        """Like `require`, but a missing key is fine."""
        if (type(obj) is not dict and not isinstance(obj, Mapping)) or key not in obj:
            return None
        return self.require(obj, key, kind, path, nullable=nullable)


_PLAIN = {str, dict, list}


def is_json_type(value: Any, kind: type | tuple[type, ...]) -> bool:
    """Whether a parsed JSON value has the expected type; a JSON integer counts as a number."""
    value_type = type(value)
    if value_type is kind and value_type in _PLAIN:  # the common case, checked cheaply
        return True
    kinds = kind if type(kind) is tuple else (kind,)
    if isinstance(value, bool):
        return bool in kinds
    if isinstance(value, int) and float in kinds:
        return True
    return isinstance(value, kinds)


def type_names(kind: type | tuple[type, ...]) -> str:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join(_JSON_NAMES.get(k, k.__name__) for k in kinds)


_JSON_NAMES = {dict: "object", list: "array", str: "string", int: "integer", float: "number", bool: "boolean", type(None): "null"}


def json_type(value: Any) -> str:
    for py, name in ((bool, "boolean"), (dict, "object"), (list, "array"), (str, "string"), (int, "integer"), (float, "number")):
        if isinstance(value, py):
            return name
    return "null" if value is None else type(value).__name__


class CorpusFormat(ABC):
    """A corpus's native record shape, with its reader, writer and checks.

    Subclasses set the class attributes and implement `record_id`, `check`, `to_dialogue` and
    `from_dialogue`. `to_dialogue(r)` followed by `from_dialogue` must give `r` back exactly
    (same keys, same values, same JSON types): that is what "lossless" means here. It holds for
    every record `check` finds no *error* in, rule anomalies (warnings) included.
    """

    name: ClassVar[str]
    """Name used on the command line (`duologue data stats NAME PATH`)."""
    task: ClassVar[str]
    """Which task family its dialogues belong to (a `Dialogue.task` value)."""
    description: ClassVar[str] = ""
    layout: ClassVar[Literal["list", "one-per-file"]] = "list"
    """How native files hold records: a JSON array (or JSONL/parquet rows), or one JSON object per file."""
    suffixes: ClassVar[tuple[str, ...]] = ()
    """File name endings (lower case, with the dot: `.txt`) of the corpus's own non-JSON files.

    Files ending so are read with `iter_file` and written with `write_file`; JSON, JSONL and
    parquet files of the same records are read as usual. Empty for corpora released as JSON.
    """

    @abstractmethod
    def record_id(self, record: Any) -> str | None:
        """The record's own id, if it has a readable one (used in error messages)."""

    def check(self, record: Any) -> list[Problem]:
        """Every structural problem (error) and rule anomaly (warning) of one native record (empty when valid).

        Paths are JSON paths from the record's root (`$`). Never raises on bad input. Valid
        records are answered by `quick_check` when the format has one; anything else gets the
        detailed walk, which alone words the problems.
        """
        if type(record) is dict:
            try:
                if self.quick_check(record):
                    return []
            except Exception:  # noqa: BLE001  odd input: the detailed checker describes it
                pass
        return self.check_in_detail(record)

    def quick_check(self, record: dict[str, Any]) -> bool:
        """True only when `check_in_detail` would find no problem, not even a warning; False whenever unsure.

        Nearly every record is valid, and walking it to name problems that are not there is what
        makes checking slow; a format may answer the common case in one tight pass. Default: unsure.
        """
        return False

    @abstractmethod
    def check_in_detail(self, record: Any) -> list[Problem]:
        """Walk the record and name every problem with its JSON path (`$.events[3].data.price`)."""

    @abstractmethod
    def to_dialogue(self, record: Any, *, file: str | None = None, index: int | None = None, split: str | None = None) -> Dialogue:
        """Convert a valid native record (one that `check` passed) into a `Dialogue`."""

    @abstractmethod
    def from_dialogue(self, dialogue: Dialogue) -> dict[str, Any]:
        """The dialogue as a native record. Dialogues from other sources (self-play, the platform)
        are written with the fields the corpus defines, filled from the schema."""

    def split_of(self, file: Path) -> str | None:
        """The split a file holds, guessed from its name (`casino_train.json` -> `train`)."""
        stem = file.stem.lower()
        for split, words in (("train", ("train",)), ("valid", ("valid", "validation", "dev")), ("test", ("test",))):
            if any(w in stem for w in words):
                return split
        return None

    def group_of(self, dialogue: Dialogue) -> str:
        """Which row of the statistics table a dialogue belongs to."""
        return dialogue.split or "all"

    def id_scope(self, record: Any) -> str:
        """Records repeat an id only within the same scope; a release that ships two kinds of
        record for one dialogue (its transcript, and its annotations alone) names each kind here."""
        return ""

    def native_file_name(self, record: Mapping[str, Any], index: int) -> str:
        """File name for one record, for `one-per-file` layouts."""
        return f"{self.record_id(record) or index}.json"

    def read(self, record: Any, *, file: str | None = None, index: int | None = None, split: str | None = None) -> Dialogue:
        """Check then convert one record; raises `RecordError` naming every structural problem.

        Rule anomalies do not stop it: they end up on the dialogue's `anomalies`.
        """
        problems = self.check(record)
        if errors_of(problems):
            raise RecordError(errors_of(problems))
        dialogue = self.to_dialogue(record, file=file, index=index, split=split)
        if problems:
            dialogue.anomalies = anomalies_of(problems)
        return dialogue

    def write_records(self, dialogues: Iterable[Dialogue]) -> list[dict[str, Any]]:
        return [self.from_dialogue(d) for d in dialogues]

    def iter_file(self, file: Path) -> Iterator[tuple[int, Any, int | None]]:
        """(index, native record, line where it starts) of every record in one of the corpus's own
        files (one whose name ends with one of `suffixes`), in order.

        Only the records' text is parsed here: `check` judges them, so a bad record is reported
        with its file, index and line, not raised. An `OSError` or `ValueError` (a file that is
        not UTF-8 text) stops the file and is reported as such. Formats that set `suffixes` override it.
        """
        raise NotImplementedError(f"the {self.name} format reads no files of its own; give JSON, JSONL or parquet files")

    def write_file(self, dialogues: Iterable[Dialogue], out: Path) -> list[Path]:
        """Write dialogues to `out`, one of the corpus's own files (its name ends with one of
        `suffixes`); returns the files written. Formats that set `suffixes` override it."""
        raise NotImplementedError(f"the {self.name} format writes no files of its own; write a .json or .jsonl file")


# --------------------------------------------------------------------------- building checked models


def model_builder(cls: type[ModelT], *fields: str) -> Callable[..., ModelT]:
    """A constructor of `cls` for values a reader has already checked: it does not validate them again.

    Readers build tens of thousands of events, ratings and annotations per corpus, and validating
    each value a second time (after `check`) cost more than all the rest of reading. The builder
    takes exactly `fields` (positionally or by name); the other fields get their defaults, made the
    way pydantic makes them, and `model_fields_set` is `fields`, as if the model had been created
    with those keyword arguments. It is written out as Python source once, from the model's own
    field list (as `dataclasses` does for `__init__`), so it stays right when the schema changes.

    The values must be exactly what validation would produce: fresh dicts and lists, floats where
    the field is a float, model instances for nested models, and every model validator's rule
    already satisfied. Tests compare what readers build with the validated models.
    """
    if cls.__pydantic_post_init__ is not None or cls.__private_attributes__ or cls.__pydantic_root_model__ or cls.model_config.get("extra") == "allow":
        raise TypeError(f"model_builder cannot build {cls.__name__}: it has post-init hooks, private attributes, a root or extra fields")
    unknown = [name for name in fields if name not in cls.model_fields]
    if unknown or len(set(fields)) != len(fields):
        raise TypeError(f"{cls.__name__}: unknown or repeated field(s) in {fields}")
    namespace: dict[str, Any] = {
        "_new": object.__new__,
        "_cls": cls,
        "_set_dict": object.__setattr__,
        "_set_fields_set": _FIELDS_SET.__set__,
        "_set_extra": _EXTRA.__set__,
        "_set_private": _PRIVATE.__set__,
    }
    items = []
    for position, (name, info) in enumerate(cls.model_fields.items()):
        if not name.isidentifier() or keyword.iskeyword(name) or name.startswith("_"):
            raise TypeError(f"{cls.__name__}.{name}: not a plain field name")
        if name in fields:
            value = name
        elif info.is_required():
            raise TypeError(f"{cls.__name__} needs the field {name!r}")
        elif info.default_factory is not None:
            if info.default_factory_takes_validated_data:
                raise TypeError(f"{cls.__name__}.{name}: default factories that take the validated data are not supported")
            value = f"_make_{position}()"
            namespace[f"_make_{position}"] = info.default_factory
        elif type(info.default) in (type(None), bool, int, float, str):
            value = f"_default_{position}"
            namespace[f"_default_{position}"] = info.default
        else:  # a mutable default: pydantic gives each instance its own deep copy
            value = f"_make_{position}()"
            namespace[f"_make_{position}"] = functools.partial(info.get_default, call_default_factory=True)
        items.append(f"{name!r}: {value}")
    fields_set = "{" + ", ".join(repr(name) for name in fields) + "}" if fields else "set()"
    source = (  # only names starting with "_" besides the fields, which never do
        f"def build_{cls.__name__}({', '.join(fields)}):\n"
        "    _model = _new(_cls)\n"
        f"    _set_dict(_model, '__dict__', {{{', '.join(items)}}})\n"
        f"    _set_fields_set(_model, {fields_set})\n"
        "    _set_extra(_model, None)\n"
        "    _set_private(_model, None)\n"
        "    return _model\n"
    )
    exec(source, namespace)  # noqa: S102 - source built above from the model's field names only
    build: Callable[..., ModelT] = namespace[f"build_{cls.__name__}"]
    build.__doc__ = f"A checked {cls.__name__} from {', '.join(fields) or 'defaults only'} (see `model_builder`)."
    return build


_FIELDS_SET = BaseModel.__dict__["__pydantic_fields_set__"]
_EXTRA = BaseModel.__dict__["__pydantic_extra__"]
_PRIVATE = BaseModel.__dict__["__pydantic_private__"]

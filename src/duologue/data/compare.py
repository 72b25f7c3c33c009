"""Exact comparison of native records, for the lossless round-trip guarantee."""

from __future__ import annotations

from typing import Any


def record_differences(expected: Any, actual: Any, path: str = "$", limit: int = 20) -> list[str]:
    """Where two JSON values differ, as `path: expected ... got ...` lines (empty when identical).

    Stricter than `==`: `1` and `1.0` differ, as do `"1"` and `1`, because a writer that changes a
    JSON type has not given the record back.
    """
    out: list[str] = []
    _walk(expected, actual, path, out, limit)
    return out


def _walk(a: Any, b: Any, path: str, out: list[str], limit: int) -> None:
    if len(out) >= limit:
        return
    if type(a) is not type(b):
        out.append(f"{path}: expected {type(a).__name__} {a!r:.80}, got {type(b).__name__} {b!r:.80}")
        return
    if isinstance(a, dict):
        if list(a) != list(b) and set(a) != set(b):
            missing = [k for k in a if k not in b]
            added = [k for k in b if k not in a]
            if missing:
                out.append(f"{path}: missing keys {missing}")
            if added:
                out.append(f"{path}: unexpected keys {added}")
        for key in a:
            if key in b:
                _walk(a[key], b[key], f"{path}.{key}", out, limit)
    elif isinstance(a, list):
        if len(a) != len(b):
            out.append(f"{path}: expected {len(a)} items, got {len(b)}")
        for i, (x, y) in enumerate(zip(a, b, strict=False)):  # a length mismatch is reported above
            _walk(x, y, f"{path}[{i}]", out, limit)
    elif a != b:
        out.append(f"{path}: expected {a!r:.80}, got {b!r:.80}")


def same_json(expected: Any, actual: Any) -> bool:
    """Whether `record_differences(expected, actual)` would be empty, decided cheaply.

    Readers call this for every native field they might have to keep, so it must be fast on the
    common case (equal values). Python's `==` already finds every difference the strict walk finds
    except JSON type changes (`1 == 1.0 == True`), which `_same_types` then rules out.
    """
    return expected == actual and _same_types(expected, actual)


def _same_types(a: Any, b: Any) -> bool:
    """For values known to be `==`: whether every nested value also has the same type (and is not NaN)."""
    kind = type(a)
    if kind is not type(b):
        return False
    if kind is str or a is None:
        return True
    if isinstance(a, dict):
        for key, value in a.items():
            if not _same_types(value, b[key]):
                return False
        return True
    if isinstance(a, list):
        for x, y in zip(a, b, strict=True):  # equal lists have equal lengths
            if not _same_types(x, y):
                return False
        return True
    return not a != b  # `==` on containers skips identical objects, so an identical NaN gets here

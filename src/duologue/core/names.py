"""Names looked up in registries: the error that suggests the near ones, and loading a `module:Class` entry.

Registries live at several layers (the task registry, the agent kinds, the judge's modes); each raises
the same `UnknownNameError`, so a command turns any of them into one clean message.
"""

from __future__ import annotations

import difflib
from importlib import import_module
from typing import Any


class UnknownNameError(KeyError):
    """A name that is not registered; the message suggests the closest ones."""

    def __str__(self) -> str:
        return str(self.args[0])


def did_you_mean(name: str, known: list[str], what: str) -> UnknownNameError:
    close = difflib.get_close_matches(name, known, n=3, cutoff=0.5)
    hint = f" Did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
    return UnknownNameError(f"unknown {what} {name!r}.{hint} Known: {', '.join(sorted(known))}.")


def load_class(target: Any) -> Any:
    """The class (or function) a registry entry names, as `module:Class` (imported on first use)."""
    if not isinstance(target, str):
        return target
    module, _, name = target.partition(":")
    found: Any = import_module(module)
    for part in name.split("."):
        found = getattr(found, part)
    return found

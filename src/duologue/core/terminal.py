"""The command line's console: as wide as the terminal in a terminal, and wide when printed to a
pipe or a file, so `duologue tasks | grep casino` sees whole cells rather than a table squeezed to
rich's 80-column default (set `COLUMNS` to choose another width)."""

from __future__ import annotations

import os
from typing import Any

from rich.console import Console, ConsoleDimensions

PIPE_WIDTH = 240
"""Columns a table may take when the output is not a terminal (a table is never wider than its cells need)."""


class CliConsole(Console):
    """A rich `Console` whose width off a terminal is `PIPE_WIDTH` (or `COLUMNS`), decided at each print."""

    @property
    def size(self) -> ConsoleDimensions:
        size = Console.size.fget(self)  # type: ignore[attr-defined]
        if self._width is None and not self.is_terminal and not os.environ.get("COLUMNS"):
            return ConsoleDimensions(PIPE_WIDTH, size.height)
        return size  # type: ignore[no-any-return]  # rich's property is untyped

    @size.setter
    def size(self, new_size: Any) -> None:
        Console.size.fset(self, new_size)  # type: ignore[attr-defined]


__all__ = ["CliConsole", "PIPE_WIDTH"]

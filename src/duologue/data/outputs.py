"""Output paths checked before the work that fills them: a game played, models called or a policy
trained must not be lost to a folder in the way or a read-only disk found only at the end.

`output_problem(path)` says what is wrong with writing a file at `path` (None: fine) without
leaving anything behind: a folder where the file should be, a file where a folder should be, a
folder that cannot be made or written (tried with a temporary file, since permission bits do not
tell the whole story: root ignores them, an immutable folder refuses root too).
"""

from __future__ import annotations

import tempfile
from pathlib import Path


def output_problem(path: Path, *, suffixes: tuple[str, ...] = (), folder: bool = False) -> str | None:
    """What stops writing `path` (a file, or with `folder` a folder to write files into), or None."""
    if suffixes and not folder and path.suffix.lower() not in suffixes:
        return f"{path}: write a {' or '.join(suffixes)} file"
    if path.exists() and path.is_dir() != folder:
        return f"{path}: is a {'file' if folder else 'folder'}; give {'a folder' if folder else 'a file name'}"
    existing = path if folder and path.is_dir() else path.parent
    while not existing.exists():
        existing = existing.parent
    if not existing.is_dir():
        return f"{path}: cannot write: {existing} is a file, not a folder"
    try:
        with tempfile.TemporaryFile(dir=existing):
            pass
    except OSError as error:
        return f"{path}: cannot write in {existing}: {error.strerror or error}"
    return None

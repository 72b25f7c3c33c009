"""Output paths checked before the work that fills them: a game played, models called or a policy
trained must not be lost to a folder in the way or a read-only disk found only at the end.

`output_problem(path)` says what is wrong with writing a file at `path` (None: fine) without
leaving anything behind: a folder where the file should be, a file where a folder should be, a
folder that cannot be made or written (tried with a temporary file, since permission bits do not
tell the whole story: root ignores them, an immutable folder refuses root too), and a path that
is no regular file or folder (itself or through a link): a device such as /dev/full, which a
resuming run would read forever, a FIFO, which blocks until someone opens its other end, a socket.
"""

from __future__ import annotations

import stat
import tempfile
from pathlib import Path

SPECIAL_KINDS = (
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISSOCK, "a socket"),
)
"""The kinds of file no output (and no file a run resumes from) may be, with the words that name them."""


def special_file_problem(path: Path) -> str | None:
    """Why `path` (followed through links) is no regular file or folder, or None (also when it does
    not exist: it is made). Only its status is read: opening a FIFO would block."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return None
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return None
    kind = next((words for test, words in SPECIAL_KINDS if test(mode)), "not a regular file")
    linked = " (through a link)" if path.is_symlink() else ""
    return f"{path}: is {kind}{linked}, not a regular file or folder; give a path to write to"


def output_problem(path: Path, *, suffixes: tuple[str, ...] = (), folder: bool = False) -> str | None:
    """What stops writing `path` (a file, or with `folder` a folder to write files into), or None."""
    if suffixes and not folder and path.suffix.lower() not in suffixes:
        return f"{path}: write a {' or '.join(suffixes)} file"
    if (special := special_file_problem(path)) is not None:
        return special
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

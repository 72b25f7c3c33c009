"""Output paths are checked before the work that fills them (`duologue.data.outputs`)."""

from __future__ import annotations

from pathlib import Path

from duologue.data.outputs import output_problem


def test_a_writable_path_passes_and_leaves_nothing_behind(tmp_path: Path):
    assert output_problem(tmp_path / "new" / "deeper" / "out.jsonl", suffixes=(".jsonl",)) is None
    assert output_problem(tmp_path / "runs", folder=True) is None
    assert list(tmp_path.iterdir()) == []


def test_each_kind_of_unwritable_path_is_named(tmp_path: Path):
    blocker = tmp_path / "afile"
    blocker.write_text("")
    (tmp_path / "dir.jsonl").mkdir()
    assert "afile is a file, not a folder" in output_problem(blocker / "x.jsonl")
    assert "afile is a file, not a folder" in output_problem(blocker / "a" / "b" / "x.jsonl")
    assert "is a folder" in output_problem(tmp_path / "dir.jsonl")
    assert "is a file" in output_problem(blocker, folder=True)
    assert "write a .jsonl file" in output_problem(tmp_path / "x.txt", suffixes=(".jsonl",))

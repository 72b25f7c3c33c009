"""Shared fixtures: where the real corpora are, and the project's own small fixture files."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures"


def data_root() -> Path:
    """The real corpora: `DUOLOGUE_DATA`, else `../shared/data` beside the checkout."""
    return Path(os.environ.get("DUOLOGUE_DATA", ROOT.parent / "shared" / "data"))


@pytest.fixture
def corpus_path():
    """`corpus_path("casino/split")`: a path under the real corpora, or skip when they are absent."""

    def find(relative: str) -> Path:
        path = data_root() / relative
        if not path.exists():
            pytest.skip(f"real corpus not available: {path} (set DUOLOGUE_DATA)")
        return path

    return find


@pytest.fixture
def fixtures() -> Path:
    return FIXTURES


@pytest.fixture
def coins(monkeypatch):
    """Register the toy task `coins-v0` (tests/toy_task.py) for one test."""
    from duologue import tasks

    monkeypatch.setitem(tasks.TASKS, "coins-v0", "toy_task:CoinSplit")
    return "coins-v0"

"""Shared fixtures: where the real corpora are, and the project's own small fixture files."""

from __future__ import annotations

import os
from pathlib import Path

# One thread per numeric library (OpenMP, OpenBLAS, MKL), set before any of them loads. On a
# machine whose cores are shared (CI, several test runs), their worker threads spin-wait for each
# other: training the strategy tagger took 3-4x longer with two threads than with one, for the same
# weights. Subprocesses the tests start inherit it. Set a variable yourself to override.
for _variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

import pytest  # noqa: E402  (after the thread settings above)
from hypothesis import HealthCheck, settings  # noqa: E402

# Property and fuzz tests run under one of two profiles, chosen before any test module builds its
# own `settings(...)` (those inherit every field they do not set). "ci" is derandomised: the same
# examples on every run and machine, so a red CI run is red again on a laptop, and the failing
# example is printed with the blob that replays it. A loaded machine must not fail a test for
# slowness, so neither profile has a deadline and "ci" skips the too-slow health check.
# "dev" (the default off CI) draws fresh examples and remembers failures in .hypothesis/.
# Pick one by hand with HYPOTHESIS_PROFILE=ci|dev.
settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", deadline=None, print_blob=True)


def hypothesis_profile() -> str:
    """`HYPOTHESIS_PROFILE`, else "ci" when `CI` is set (as CI services and `.ci/run` do), else "dev"."""
    chosen = os.environ.get("HYPOTHESIS_PROFILE")
    if chosen:
        return chosen
    return "ci" if os.environ.get("CI", "").strip().lower() in ("1", "true", "yes") else "dev"


settings.load_profile(hypothesis_profile())

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
def fresh_modular_cache():
    """The modular agents learn anew in this test: what they built from a corpus is cached per process."""
    from duologue.modular import agent as modular

    modular.clear_cache()
    yield
    modular.clear_cache()


@pytest.fixture
def fixtures() -> Path:
    return FIXTURES


@pytest.fixture
def coins(monkeypatch):
    """Register the toy task `coins-v0` (tests/toy_task.py) for one test."""
    from duologue import tasks

    monkeypatch.setitem(tasks.TASKS, "coins-v0", "toy_task:CoinSplit")
    return "coins-v0"

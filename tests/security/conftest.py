"""The repros of the platform's adversarial review, each kept where an attacker would look for
them: the platform's own test fixtures (a started app on a temporary SQLite file, and the real
PostgreSQL, Redis and `duologue serve` processes of the several-worker tests)."""

from __future__ import annotations

from web.conftest import client, make_client  # noqa: F401 (fixtures)
from web.services import redis_server, shared_postgres  # noqa: F401 (fixtures)

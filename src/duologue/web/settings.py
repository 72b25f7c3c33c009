"""Platform settings: one class, read from `DUOLOGUE_*` environment variables (or a `.env` file).

Everything a research team may need to change without touching code lives here; what differs
between studies (task, partner mix, time limits) lives in the study file instead.
"""

from __future__ import annotations

import secrets
from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    """`DUOLOGUE_DATABASE_URL=postgresql+psycopg://...` switches the database, and so on."""

    model_config = SettingsConfigDict(env_prefix="DUOLOGUE_", env_file=".env", extra="ignore")

    database_url: str = "sqlite:///duologue.db"
    """SQLAlchemy URL. The default is a SQLite file in the working directory."""
    study: Path | None = None
    """A study YAML file; without it, one default study per task with bots ready."""
    admin_token: str = Field(default_factory=lambda: secrets.token_urlsafe(12))
    """Protects the admin pages. Random per start unless set (the `serve` command prints it)."""
    max_message_chars: int = 1000
    """Longer chat messages are refused (a person pasting a novel, or a script)."""
    reconnect_seconds: float = 30.0
    """How long a disconnected person may come back before the dialogue ends as `disconnect`."""
    idle_seconds: float = 300.0
    """A dialogue in which nobody moves for this long ends as `idle` (when the study sets no own value)."""
    bot_typing_seconds: float = 1.0
    """A bot 'types' this long before its move appears, so people can read the previous turn."""
    secret: str = Field(default_factory=lambda: secrets.token_urlsafe(24))
    """Signs completion codes (an HMAC of study and participant). Set it for a real study, so the
    codes stay checkable after a restart."""
    completion_code_prefix: str = ""
    """Put in front of every completion code (e.g. `DUO`)."""
    redis_url: str | None = None
    """`redis://host:port/0` switches on multi-process mode (see `duologue.web.cluster`): several
    workers share the database (PostgreSQL) and route moves, views and the lobby through Redis.
    Without it the platform is one process with everything in memory (the default)."""
    lease_seconds: float = 5.0
    """Multi-process mode: a worker that dies loses the dialogues it ran after this long, and
    another worker takes them over (their bots and clocks)."""

"""Platform settings: one class, read from `DUOLOGUE_*` environment variables (or a `.env` file).

Everything a research team may need to change without touching code lives here; what differs
between studies (task, partner mix, time limits) lives in the study file instead.
"""

from __future__ import annotations

import secrets
from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


MIN_ADMIN_TOKEN_CHARS = 16


class Settings(BaseSettings):
    """`DUOLOGUE_DATABASE_URL=postgresql+psycopg://...` switches the database, and so on."""

    model_config = SettingsConfigDict(env_prefix="DUOLOGUE_", env_file=".env", extra="ignore")

    database_url: str = "sqlite:///duologue.db"
    """SQLAlchemy URL. The default is a SQLite file in the working directory."""
    study: Path | None = None
    """A study YAML file; without it, one default study per task with bots ready."""
    admin_token: str = Field(default_factory=lambda: secrets.token_urlsafe(12), min_length=MIN_ADMIN_TOKEN_CHARS)
    """Protects the admin pages. Random per start unless set (the `serve` command prints it); a
    token someone sets must have at least 16 characters, so it cannot be guessed."""
    max_message_chars: int = 1000
    """Longer chat messages are refused (a person pasting a novel, or a script)."""
    reconnect_seconds: float = 30.0
    """How long a disconnected person may come back before the dialogue ends as `disconnect`."""
    idle_seconds: float = 300.0
    """A dialogue in which nobody moves for this long ends as `idle` (when the study sets no own value)."""
    bot_typing_seconds: float = 1.0
    """A bot 'types' this long before its move appears, so people can read the previous turn."""
    warm_bots: bool = True
    """At start, let each study's local bots play one throwaway turn (in a thread), so the first
    reply after a start comes as fast as any other (`duologue.web.warmup`)."""
    secret: str = Field(default_factory=lambda: secrets.token_urlsafe(24))
    """Signs completion codes (an HMAC of study and participant). Set it for a real study, so the
    codes stay checkable after a restart."""
    completion_code_prefix: str = ""
    """Put in front of every completion code (e.g. `LAB`)."""
    storage_threads: int | None = Field(default=None, ge=0, le=64)
    """Threads that talk to the database, off the event loop (`Storage.run`). Unset: none for
    SQLite, whose calls are short and CPU-bound (a thread would only make the loop wait for
    Python's interpreter lock; `benchmarks/bench_load.py` measured p95 2-4x worse with one), and
    4 for a database server, whose round trips wait on the network and overlap. 0: on the loop."""
    gc_full_seconds: float = Field(default=60.0, ge=0)
    """While the platform runs, Python's full garbage collections come every this many seconds
    instead of whenever the heap grows (`duologue.web.collector`: a full collection of a busy heap
    stops every frame for up to a few hundred ms). 0: Python's own schedule."""
    redis_url: str | None = None
    """`redis://host:port/0` switches on multi-process mode (see `duologue.web.cluster`): several
    workers share the database (PostgreSQL) and route moves, views and the lobby through Redis.
    Without it the platform is one process with everything in memory (the default)."""
    moves_per_second: float = 2.0
    """Each seat may make this many moves per second on average (a person types far slower; a
    script flooding a dialogue gets 429 and `Retry-After`)."""
    move_burst: int = 10
    """... with bursts of up to this many moves."""
    frames_per_second: float = 5.0
    """Each seat's socket may send this many frames other than moves per second on average (a page
    sends `typing` at most every 2 s and `resync` only after a gap); over it, typing is dropped and
    anything else gets an `error` frame with status 429, so a script cannot flood the partner's
    page or make the server rebuild the whole view without end."""
    frame_burst: int = 20
    """... with bursts of up to this many frames."""
    requests_per_second: float = 20.0
    """HTTP requests per client address per second on average (static files exempt)."""
    request_burst: int = 60
    """... with bursts of up to this many requests (a page load fetches several)."""
    header_timeout_seconds: float = Field(default=10.0, gt=0, allow_inf_nan=False)
    """`duologue serve`: a request whose headers are not all in after this long gets 408 and is
    closed (`duologue.web.slow_clients`), so half-sent requests cannot hold the server's sockets."""
    sockets_per_seat: int = Field(default=4, ge=1)
    """A seat's open chat sockets on one worker (a person's tabs): a newer one closes the oldest
    (`duologue.web.presence`), so a script opening hundreds cannot make each move be sent hundreds of times."""
    max_frame_bytes: int = 64_000
    """A websocket frame larger than this closes the socket (code 1009) before it is read."""
    trust_forwarded_for: bool = False
    """Behind a reverse proxy, take the client address from `X-Forwarded-For` (never otherwise:
    anyone can write that header)."""
    lease_seconds: float = 5.0
    """Multi-process mode: a worker that dies loses the dialogues it ran after this long, and
    another worker takes them over (their bots and clocks)."""

"""Rate and size limits for the platform: a script or a stuck page must not flood a dialogue or the server.

Three limits, each a plain class with an injectable clock so tests need no sleeping:

* `RateLimiter`: token buckets per key (a seat token, a client address). A key may spend
  `burst` actions at once, then `rate` per second; a refused action costs nothing. Keys whose
  bucket is full again are forgotten, and at most `max_keys` are kept, so memory stays flat
  however many addresses call.
* moves per participant (`MoveLimit`, keyed by seat token): people type a few messages a minute;
  a bot loop or a pasted script makes dozens a second. Checked by the chat router before a move
  (HTTP: the `limit_moves` dependency answers 429; websocket: an `error` frame with status 429).
* HTTP requests per client address and the size of websocket frames (`LimitsMiddleware`, pure
  ASGI): over the rate an HTTP request gets 429 with `Retry-After`; a websocket frame over
  `max_frame_bytes` closes the socket with code 1009 ("message too big") before the app reads it.

Wiring (settings fields and the lines in `app.py` / the chat router) is in the report of the
hardening work; nothing here imports the app.
"""

from __future__ import annotations

import json
import math
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Awaitable, Callable, Iterable, MutableMapping

from fastapi import HTTPException, Request

Clock = Callable[[], float]
Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

WEBSOCKET_MESSAGE_TOO_BIG = 1009
"""The websocket close code for a frame the server will not take (RFC 6455, 7.4.1)."""
WEBSOCKET_TRY_AGAIN_LATER = 1013
"""Close code for a handshake refused because the address opens sockets too fast."""


_ROUNDING = 1e-9
"""Refill is `elapsed * rate` in floats: a key that waits exactly `1 / rate` must not miss by 1e-16."""


@dataclass
class _Bucket:
    tokens: float
    updated: float


class RateLimiter:
    """Token buckets per key: `burst` at once, then `rate` per second, refused actions are free."""

    def __init__(self, rate: float, burst: int, *, clock: Clock = time.monotonic, max_keys: int = 100_000) -> None:
        if not (math.isfinite(rate) and rate > 0):
            raise ValueError(f"rate must be a positive number of actions per second, got {rate!r}")
        if burst < 1:
            raise ValueError(f"burst must be at least 1, got {burst!r}")
        if max_keys < 1:
            raise ValueError(f"max_keys must be at least 1, got {max_keys!r}")
        self.rate = float(rate)
        self.burst = int(burst)
        self.clock = clock
        self.max_keys = max_keys
        self._buckets: OrderedDict[str, _Bucket] = OrderedDict()

    def _refilled(self, key: str, now: float) -> _Bucket:
        bucket = self._buckets.get(key)
        if bucket is None:
            return _Bucket(float(self.burst), now)
        elapsed = max(0.0, now - bucket.updated)  # a clock that steps back never mints tokens
        return _Bucket(min(float(self.burst), bucket.tokens + elapsed * self.rate), now)

    def allow(self, key: str, cost: float = 1.0) -> bool:
        """Spend `cost` from `key`'s bucket if it holds that much; False (nothing spent) otherwise."""
        now = self.clock()
        bucket = self._refilled(key, now)
        allowed = bucket.tokens >= cost - _ROUNDING
        if allowed:
            bucket.tokens = max(0.0, bucket.tokens - cost)
        self._buckets[key] = bucket
        self._buckets.move_to_end(key)
        self._forget(now)
        return allowed

    def retry_after(self, key: str, cost: float = 1.0) -> float:
        """Seconds until `key` may spend `cost` again (0 when it may now)."""
        bucket = self._refilled(key, self.clock())
        return max(0.0, (cost - _ROUNDING - bucket.tokens) / self.rate)

    def _forget(self, now: float) -> None:
        """Drop the oldest keys beyond `max_keys`, and old keys whose bucket is full again."""
        while len(self._buckets) > self.max_keys:
            self._buckets.popitem(last=False)
        full_after = self.burst / self.rate
        while self._buckets:
            key, bucket = next(iter(self._buckets.items()))
            if now - bucket.updated < full_after:
                break
            del self._buckets[key]

    def __len__(self) -> int:
        return len(self._buckets)


class RateLimited(Exception):
    """An action over its limit; `retry_after` seconds until the next one is allowed."""

    def __init__(self, what: str, retry_after: float) -> None:
        self.retry_after = retry_after
        super().__init__(f"too many {what}: wait {retry_after:.1f} s and try again")


class MoveLimit:
    """Moves per participant (keyed by seat token): a person's pace passes, a script's does not."""

    def __init__(self, moves_per_second: float = 2.0, burst: int = 10, *, clock: Clock = time.monotonic) -> None:
        self.limiter = RateLimiter(moves_per_second, burst, clock=clock)

    def check(self, token: str) -> None:
        """Count one move of this seat; raises `RateLimited` when it moves too fast."""
        if not self.limiter.allow(token):
            raise RateLimited("moves", self.limiter.retry_after(token))


def limit_moves(request: Request) -> None:
    """FastAPI dependency for the HTTP move route: 429 with `Retry-After` when the seat moves too fast.

    Reads the `MoveLimit` from `app.state.move_limit` (no limit when absent) and the seat from
    the route's `token` path parameter.
    """
    limit: MoveLimit | None = getattr(request.app.state, "move_limit", None)
    token = request.path_params.get("token")
    if limit is None or not token:
        return
    try:
        limit.check(str(token))
    except RateLimited as error:
        raise HTTPException(429, str(error), headers={"Retry-After": str(math.ceil(error.retry_after))}) from None


def frame_size(message: Message) -> int:
    """Bytes in one received websocket frame (text is counted as UTF-8)."""
    text = message.get("text")
    if text is not None:
        return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))
    data = message.get("bytes")
    return len(data) if data is not None else 0


def client_address(scope: Scope, trust_forwarded_for: bool = False) -> str:
    """Who is calling: the socket's peer, or (behind a proxy you trust) the first X-Forwarded-For address."""
    if trust_forwarded_for:
        for name, value in scope.get("headers") or ():
            if name == b"x-forwarded-for":
                first: str = value.decode("latin-1").split(",")[0].strip()
                if first:
                    return first
    client = scope.get("client")
    return str(client[0]) if client else "unknown"


class LimitsMiddleware:
    """ASGI middleware: HTTP requests and websocket handshakes per client address, and the size of websocket frames.

    `app.add_middleware(LimitsMiddleware, requests_per_second=20, burst=60, max_frame_bytes=64_000)`.
    Paths starting with one of `exempt` (static files, the health check) are not counted.
    """

    def __init__(
        self,
        app: ASGIApp,
        *,
        requests_per_second: float = 20.0,
        burst: int = 60,
        max_frame_bytes: int = 64_000,
        exempt: Iterable[str] = ("/static/", "/healthz"),
        trust_forwarded_for: bool = False,
        clock: Clock = time.monotonic,
    ) -> None:
        self.app = app
        self.requests = RateLimiter(requests_per_second, burst, clock=clock)
        self.max_frame_bytes = max_frame_bytes
        self.exempt = tuple(exempt)
        self.trust_forwarded_for = trust_forwarded_for

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            await self._http(scope, receive, send)
        elif scope["type"] == "websocket":
            if not self._allowed(scope, client_address(scope, self.trust_forwarded_for)):  # a script opening sockets in a loop
                await receive()  # the websocket.connect message
                await send({"type": "websocket.close", "code": WEBSOCKET_TRY_AGAIN_LATER})
                return
            await self.app(scope, self._sized(receive, send), send)
        else:
            await self.app(scope, receive, send)

    def _allowed(self, scope: Scope, address: str) -> bool:
        """Count one request (or websocket handshake) of this address; False when over its limit."""
        return scope.get("path", "").startswith(self.exempt) or self.requests.allow(address)

    async def _http(self, scope: Scope, receive: Receive, send: Send) -> None:
        address = client_address(scope, self.trust_forwarded_for)
        if self._allowed(scope, address):
            await self.app(scope, receive, send)
            return
        wait = math.ceil(self.requests.retry_after(address))
        body = json.dumps({"detail": f"too many requests: wait {wait} s and try again"}).encode()
        headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()), (b"retry-after", str(wait).encode())]
        await send({"type": "http.response.start", "status": 429, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    def _sized(self, receive: Receive, send: Send) -> Receive:
        """A `receive` that closes the socket (1009) instead of handing the app a frame that is too big."""

        async def sized_receive() -> Message:
            message = await receive()
            if message.get("type") == "websocket.receive" and frame_size(message) > self.max_frame_bytes:
                await send({"type": "websocket.close", "code": WEBSOCKET_MESSAGE_TOO_BIG, "reason": "frame too big"})
                return {"type": "websocket.disconnect", "code": WEBSOCKET_MESSAGE_TOO_BIG}
            return message

        return sized_receive

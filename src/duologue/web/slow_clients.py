"""A bound on how long a client may take to send a request's headers.

uvicorn closes a keep-alive connection idle between requests (`timeout_keep_alive`), but waits
without end for headers that trickle in: a few thousand half-sent requests hold as many sockets
(and file descriptors) for as long as their sender likes. `duologue serve` runs its HTTP with
`HeaderDeadlineProtocol` (uvicorn's own, httptools or h11, plus a deadline): from a connection's
start, or from the first byte of the next request on a kept-alive one, the headers must be complete
within `Settings.header_timeout_seconds`, else the server answers 408 and closes. A websocket, once
upgraded, is no longer this protocol's and keeps its own ping timeouts.
"""

from __future__ import annotations

import asyncio
from typing import Any, ClassVar

try:
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol as _UvicornHTTP
except ImportError:  # no httptools: uvicorn's pure-Python h11 protocol, as its own `auto` picks
    from uvicorn.protocols.http.h11_impl import H11Protocol as _UvicornHTTP  # type: ignore[assignment]

TIMED_OUT = b"HTTP/1.1 408 Request Timeout\r\ncontent-type: text/plain; charset=utf-8\r\nconnection: close\r\ncontent-length: 41\r\n\r\nthe request's headers came in too slowly\n"


def configure(seconds: float) -> None:
    """Set the bound for this process (the app factory does, from its settings)."""
    HeaderDeadlineProtocol.seconds = float(seconds)


class HeaderDeadlineProtocol(_UvicornHTTP):
    """uvicorn's HTTP protocol with a deadline for each request's headers (module docstring)."""

    seconds: ClassVar[float] = 10.0

    def connection_made(self, transport: Any) -> None:
        super().connection_made(transport)
        self._deadline: asyncio.TimerHandle | None = None
        self._waiting_for: Any = self.cycle
        self._arm()

    def data_received(self, data: bytes) -> None:
        if self._deadline is None and (self.cycle is None or self.cycle.response_complete):
            self._arm()  # the first byte of the next request on a kept-alive connection
        super().data_received(data)
        if self._deadline is not None and (self._headers_came() or self._upgraded()):
            self._disarm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        self._waiting_for = self.cycle  # headers complete = a new request cycle made by uvicorn
        self._deadline = asyncio.get_running_loop().call_later(self.seconds, self._expire)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _headers_came(self) -> bool:
        return self.cycle is not self._waiting_for

    def _upgraded(self) -> bool:
        return self.transport.get_protocol() is not self

    def _expire(self) -> None:
        self._deadline = None
        if self.transport.is_closing() or self._headers_came() or self._upgraded():
            return
        self.transport.write(TIMED_OUT)
        self.transport.close()

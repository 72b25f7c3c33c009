"""Python's cyclic garbage collector on a schedule the relay can live with.

With hundreds of live dialogues the heap holds millions of objects, and Python's full collections
(generation 2), which it starts by itself as the heap grows, each walk all of them, and no frame
goes out meanwhile. Here, while the platform runs:

* what exists once the platform has started (modules, schemas, studies, warm bots) is collected
  once and frozen out of later collections (`gc.freeze`);
* the young generations are collected less often (`YOUNG_THRESHOLD`), and full collections only on
  a timer (`Settings.gc_full_seconds`, every 60 s by default), so a burst of new dialogues no longer
  triggers one after another. Cyclic garbage waits at most that long to be freed.

Measured with `benchmarks/bench_load.py` (SQLite, 500 concurrent dialogues, one server, pauses
timed with `gc.callbacks`): collecting took 1.77 s of the run with 8 full collections, the longest
pause 271 ms, relay p99 253 ms; with this schedule 0.78-0.82 s, the longest pause 72-83 ms, p99
61-67 ms (two runs).

Everything is put back as it was when the platform stops (tests start many platforms in one process).
"""

from __future__ import annotations

import asyncio
import gc
import logging
from typing import Any

log = logging.getLogger(__name__)

YOUNG_THRESHOLD = (2_000, 10)
"""Allocations before a generation-0 collection, and generation-0 collections per generation-1 one."""
NEVER = 1_000_000
"""A generation-1 count that is never reached: full collections come from the timer only."""


class Collector:
    """Started after the platform is ready, stopped when it shuts down."""

    def __init__(self, full_seconds: float) -> None:
        self.full_seconds = full_seconds
        self._before: tuple[int, int, int] | None = None
        self._timer: asyncio.Task[Any] | None = None

    def start(self) -> None:
        self._before = gc.get_threshold()
        gc.collect()
        gc.freeze()
        gc.set_threshold(*YOUNG_THRESHOLD, NEVER)
        self._timer = asyncio.get_running_loop().create_task(self._collect_now_and_then(), name="full garbage collections")

    async def _collect_now_and_then(self) -> None:
        while True:
            await asyncio.sleep(self.full_seconds)
            found = gc.collect()
            log.debug("full collection: %d unreachable objects", found)

    async def stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            await asyncio.gather(self._timer, return_exceptions=True)
        if self._before is not None:
            gc.set_threshold(*self._before)
            gc.unfreeze()
            self._before = None

"""The platform's garbage-collection schedule: full collections on a timer, everything put back."""

from __future__ import annotations

import asyncio
import gc

from duologue.web.collector import NEVER, YOUNG_THRESHOLD, Collector


def test_a_running_platform_collects_fully_on_a_timer_and_puts_everything_back():
    before = gc.get_threshold()
    collections: list[int] = []

    def count(phase: str, info: dict) -> None:
        if phase == "stop" and info["generation"] == 2:
            collections.append(1)

    async def scenario() -> tuple[tuple[int, int, int], int, int]:
        collector = Collector(full_seconds=0.05)
        collector.start()
        running = gc.get_threshold()
        frozen = gc.get_freeze_count()
        collections.clear()
        gc.callbacks.append(count)
        try:
            await asyncio.sleep(0.3)
        finally:
            gc.callbacks.remove(count)
        await collector.stop()
        return running, frozen, len(collections)

    running, frozen, full = asyncio.run(scenario())
    assert running == (*YOUNG_THRESHOLD, NEVER)
    assert frozen > 0  # what existed at the start is left out of later collections
    assert full >= 3  # the timer's full collections (Python itself would start none here)
    assert gc.get_threshold() == before and gc.get_freeze_count() == 0


def test_the_platform_starts_its_collector_unless_told_not_to(tmp_path):
    from fastapi.testclient import TestClient

    from duologue.web.app import create_app
    from web.conftest import fast_settings

    before = gc.get_threshold()
    with TestClient(create_app(fast_settings(tmp_path, gc_full_seconds=30))):
        assert gc.get_threshold() == (*YOUNG_THRESHOLD, NEVER)
    assert gc.get_threshold() == before
    with TestClient(create_app(fast_settings(tmp_path, gc_full_seconds=0))):
        assert gc.get_threshold() == before

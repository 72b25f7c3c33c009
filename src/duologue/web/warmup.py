"""Bots warmed before anyone meets them, so the first reply after a start comes as fast as any other.

A bot's first move can be slow for reasons that have nothing to do with the dialogue: the modules
its parser needs are imported, its models and tables loaded, on first use. Each study's
task-specific bots (and the random one) play one turn of a throwaway episode, off the event loop,
answering a first message as they would a person's. Bots that call a remote model are left alone
(warming them would spend a model call). Nothing here is stored; a bot that fails to warm is
logged and warms on its first real turn instead.

The app's start-up waits for the studies it starts with (`BotWarmer.start` then `wait_all`), so the
server reports ready, and takes its first person, only with warm bots; a study added later (the
admin page) is warmed in the background and its lobby waits for it (`BotWarmer.ready`) before
pairing anyone.
"""

from __future__ import annotations

import asyncio
import logging
import random
import sys
import time
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Callable, Iterable

from duologue.agents import make_agent
from duologue.core import actions
from duologue.tasks import make
from duologue.web.study import Study

log = logging.getLogger(__name__)

FIRST_MESSAGE = "Hi! Is this still on? What would you like?"
LOCAL_KINDS = ("random",)
"""Generic agent kinds that run locally; a task's own kinds (`Task.agents`) are local too."""
READY_TIMEOUT = 120.0
"""A lobby waits at most this long for its study's bots; a warm-up that hangs must not keep people out."""


def warm_study(study: Study) -> list[str]:
    """Play one turn of each local bot kind of the study; returns the agent specs warmed."""
    warmed = []
    for partner in study.bots:
        kind = partner.agent.split(":", 1)[0]
        probe = make(study.task, **study.task_options)
        if kind not in probe.agents and kind not in LOCAL_KINDS:
            continue
        bot_party = study.human_party and probe.other(study.human_party) or probe.party_ids[1]
        person = probe.other(bot_party)
        try:
            task = make(study.task, **{**study.task_options, "first": person})
            task.reset(seed=0)
            if "say" in task.legal_actions(person):
                task.step(actions.Say(text=FIRST_MESSAGE), person)
            agent = make_agent(partner.agent, task)
            agent.reset(task, bot_party, random.Random(0))
            if task.legal_actions(bot_party):
                agent.act(task.observe(bot_party))
            warmed.append(partner.agent)
        except Exception as error:  # noqa: BLE001 - warming is a courtesy: the real turn will say what is wrong
            log.warning("could not warm %s for study %s: %s", partner.agent, study.id, error)
    return warmed


def warm(studies: Iterable[Study]) -> float:
    """Warm every study's bots (blocking: run it in a thread); returns the seconds it took."""
    started = time.perf_counter()
    for study in list(studies):
        try:
            warm_study(study)
        except Exception as error:  # noqa: BLE001 - a courtesy at start must never stop the platform
            log.warning("could not warm the bots of study %s: %s", study.id, error)
    return time.perf_counter() - started


def show_progress() -> None:
    """Let the warm-up's progress lines reach the terminal when nothing else set up logging (`serve`)."""
    if not log.hasHandlers():
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(message)s"))
        log.addHandler(handler)
    if log.getEffectiveLevel() > logging.INFO:
        log.setLevel(logging.INFO)


def _report(study_id: str) -> Callable[[Future[float]], None]:
    def report(done: Future[float]) -> None:
        if not done.cancelled() and done.exception() is None:
            log.info("  %s: warm in %.1f s", study_id, done.result())

    return report


class BotWarmer:
    """Each study's warm-up as a future; lobbies wait on their study's.

    Studies warm one after another in one thread of their own: two threads importing the same
    modules at once gain nothing on a busy machine and can trip the import locks."""

    def __init__(self) -> None:
        self.warming: dict[str, Future[float]] = {}
        self.thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="warm-bots")
        self.seconds: float | None = None
        """How long the start's warm-up took (set by `wait_all`)."""

    def start(self, studies: Iterable[Study]) -> None:
        """Warm these studies' bots in the warm-up thread (from any thread; returns at once)."""
        for study in studies:
            if study.bots:
                self.warming[study.id] = future = self.thread.submit(warm, [study])
                future.add_done_callback(_report(study.id))

    async def wait_all(self) -> float:
        """Until every study started so far is warm; returns (and keeps) the seconds it took."""
        started = time.perf_counter()
        count = len(self.warming)
        log.info("duologue: warming the bots of %d studies before opening the lobbies…", count)
        await asyncio.gather(*(asyncio.wrap_future(f) for f in self.warming.values()), return_exceptions=True)
        self.seconds = time.perf_counter() - started
        log.info("duologue: bots warm in %.1f s; the lobbies are open", self.seconds)
        return self.seconds

    async def ready(self, study_id: str) -> None:
        """Until this study's bots are warm (at once if they are, or were never warmed)."""
        future = self.warming.get(study_id)
        if future is None or future.done():
            return
        try:
            await asyncio.wait_for(asyncio.shield(asyncio.wrap_future(future)), READY_TIMEOUT)
        except asyncio.TimeoutError:
            log.warning("the bots of study %s are still warming after %.0f s; pairing anyway", study_id, READY_TIMEOUT)

    def close(self) -> None:
        self.thread.shutdown(wait=False, cancel_futures=True)

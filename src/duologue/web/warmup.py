"""Bots warmed when the platform starts, so the first reply after a start comes as fast as any other.

A bot's first move can be slow for reasons that have nothing to do with the dialogue: the modules
its parser needs are imported, its models and tables loaded, on first use. At start each study's
task-specific bots (and the random one) play one turn of a throwaway episode, off the event loop,
answering a first message as they would a person's. Bots that call a remote model are left alone
(warming them would spend a model call). Nothing here is stored; a bot that fails to warm is
logged and warms on its first real turn instead.
"""

from __future__ import annotations

import logging
import random
import time
from typing import Iterable

from duologue.agents import make_agent
from duologue.core import actions
from duologue.tasks import make
from duologue.web.study import Study

log = logging.getLogger(__name__)

FIRST_MESSAGE = "Hi! Is this still on? What would you like?"
LOCAL_KINDS = ("random",)
"""Generic agent kinds that run locally; a task's own kinds (`Task.agents`) are local too."""


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
        except Exception as error:  # noqa: BLE001 - warming is a courtesy run in the background: the real turn will say what is wrong
            log.warning("could not warm %s for study %s: %s", partner.agent, study.id, error)
    return warmed


def warm(studies: Iterable[Study]) -> float:
    """Warm every study's bots (blocking: run it in a thread); returns the seconds it took."""
    started = time.perf_counter()
    for study in list(studies):
        try:
            warm_study(study)
        except Exception as error:  # noqa: BLE001 - a background courtesy at start must never stop the platform
            log.warning("could not warm the bots of study %s: %s", study.id, error)
    return time.perf_counter() - started

"""The lobby of one process pairing a crowd: several pairs per visit to the storage's thread, quotas
kept exactly, nobody seated twice."""

from __future__ import annotations

import asyncio
from collections import Counter

import pytest

from duologue.web import matchmaker as matchmaking
from duologue.web.hub import LiveHub
from duologue.web.matchmaker import Matchmaker
from duologue.web.settings import Settings
from duologue.web.storage import Storage
from duologue.web.study import Partner, Scenarios, Study


def crowd_study(quota: int) -> Study:
    return Study(id="crowd", task="casino-v0", partners=[Partner(kind="human")], quotas={"human-human": quota}, scenarios=Scenarios(pool=5, seed=0), per_scenario=100, ratings_per_dialogue=0)


async def crowd_joins(storage: Storage, study: Study, people: int, settle_seconds: float = 3.0):
    """`people` join at once; (seats of those seated, ids of those not seated: still waiting or told
    the study is full, visits to `_create_pairs`)."""
    hub = LiveHub(storage, Settings(), {study.id: study})
    lobby = Matchmaker({study.id: study}, storage, hub)
    visits = Counter()
    create_pairs = lobby._create_pairs

    def counted(*args, **kwargs):
        visits["create_pairs"] += 1
        return create_pairs(*args, **kwargs)

    lobby._create_pairs = counted  # type: ignore[method-assign]
    joins = {f"p{i}": asyncio.ensure_future(lobby.join(study, f"p{i}")) for i in range(people)}
    done, pending = await asyncio.wait(joins.values(), timeout=settle_seconds)
    while pending and len(done) < 2 * study.quotas["human-human"]:
        more, pending = await asyncio.wait(pending, timeout=settle_seconds)
        if not more:
            break
        done |= more
    seats = {pid: task.result() for pid, task in joins.items() if task in done and task.exception() is None}
    refused = {type(task.exception()).__name__ for task in done if task.exception() is not None}
    assert refused <= {"LobbyRefused"}, refused
    waiting = sorted(pid for pid, task in joins.items() if task in pending or task.exception() is not None)
    for task in pending:
        task.cancel()
    await asyncio.gather(*pending, return_exceptions=True)
    await lobby.close()
    await hub.close()
    return seats, waiting, visits["create_pairs"]


def test_a_crowd_is_paired_several_pairs_per_storage_visit_and_each_person_once(tmp_path):
    storage = Storage(f"sqlite:///{tmp_path / 'crowd.db'}")
    seats, waiting, visits = asyncio.run(crowd_joins(storage, crowd_study(quota=100), people=40))
    assert waiting == [] and len(seats) == 40
    by_dialogue = Counter(seat.dialogue_id for seat in seats.values())
    assert len(by_dialogue) == 20 and set(by_dialogue.values()) == {2}, "every dialogue holds two of the crowd"
    assert len({seat.token for seat in seats.values()}) == 40
    assert len(storage.dialogues(study_id="crowd")) == 20
    assert visits < 20, f"{visits} visits to the storage's thread for 20 pairs: pairs are not made together"
    assert storage.counter_differences("crowd") == {}
    storage.close()


@pytest.mark.parametrize("quota", [1, 3, matchmaking.PAIRS_AT_ONCE + 1])
def test_a_quota_that_fills_within_a_batch_stops_it_exactly_and_seats_nobody_else(tmp_path, quota):
    storage = Storage(f"sqlite:///{tmp_path / 'crowd.db'}")
    people = 2 * quota + 2 * matchmaking.PAIRS_AT_ONCE + 1
    seats, waiting, _ = asyncio.run(crowd_joins(storage, crowd_study(quota=quota), people=people, settle_seconds=1.5))
    assert len(storage.dialogues(study_id="crowd")) == quota
    assert len(seats) == 2 * quota and len(waiting) == people - 2 * quota
    assert set(Counter(seat.dialogue_id for seat in seats.values()).values()) == {2}
    assert storage.counter_differences("crowd") == {}
    storage.close()

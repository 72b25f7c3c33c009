"""Stored events must replay: a replica, a worker taking over, and an engine rebuilt after a failed
store all rebuild a dialogue from them. A CraigslistBargain offer (its stored event carries the
corpus's `sides`, which the move does not have) once made every such rebuild raise, stalling the
dialogue for good on the other worker."""

from __future__ import annotations

from typing import Literal

import pytest

from duologue.core import actions
from duologue.core.schema import EventBase
from duologue.tasks import make
from duologue.web.replay import ReplayClock, ReplayMismatch, action_of, replay


def fresh(task_id: str, seed: int, clock: ReplayClock | None = None):
    task = make(task_id, clock=clock) if clock is not None else make(task_id)
    task.reset(seed=seed)
    return task


def test_a_craigslist_dialogue_with_an_offer_replays_and_ends_in_the_same_deal():
    task = fresh("craigslist-v0", 7)
    first = task.to_move
    task.step(actions.Say(text="hi, is it still for sale?"), first)
    task.step(actions.Offer(price=100), task.other(first))
    assert task.events[-1].kind == "offer"

    clock = ReplayClock()
    rebuilt = fresh("craigslist-v0", 7, clock)
    replay(rebuilt, clock, task.events)  # raised a ValidationError on `sides` before
    assert [e.model_dump() for e in rebuilt.events] == [e.model_dump() for e in task.events]
    rebuilt.step(actions.Accept(), first)  # the accept the other worker once refused with 409
    task.step(actions.Accept(), first)
    assert rebuilt.last()[2] == task.last()[2] and rebuilt.last()[2].agreed


def test_an_offer_event_with_the_corpus_s_sides_maps_back_to_the_move_alone():
    event = actions.Offer(price=120).to_event("seller", 3.0).model_copy(update={"sides": {"note": "cash only"}})
    assert action_of(event) == actions.Offer(price=120)


class Knock(actions.Action):
    kind: Literal["knock-security"] = "knock-security"
    times: int


class Knocked(EventBase):
    """Records the move under another name than the move's field: the default mapping cannot invert it."""

    kind: Literal["knocked-security"] = "knocked-security"
    count: int


def test_an_event_that_does_not_map_back_to_its_move_is_a_replay_mismatch_not_a_crash():
    actions.register_move(Knock, Knocked)
    with pytest.raises(ReplayMismatch, match="does not map back to its move"):
        action_of(Knocked(party="a", time=1.0, count=2))

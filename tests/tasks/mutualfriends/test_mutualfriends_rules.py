"""The MutualFriends rules: the mutual friend of two lists, and success from the latest selections."""

from __future__ import annotations

import pytest

from duologue.core.schema import Message, Select
from duologue.tasks.mutualfriends import rules

ANNA = {"Name": "Anna", "School": "Rice University", "Hobby": "Hiking"}
BEN = {"Name": "Ben", "School": "Rice University", "Hobby": "Chess"}
CARLA = {"Name": "Carla", "School": "Drexel University", "Hobby": "Hiking"}
DAN = {"Name": "Dan", "School": "Drexel University", "Hobby": "Chess"}
MINE = [ANNA, BEN, CARLA]
THEIRS = [DAN, dict(CARLA), {"Name": "Anna", "School": "Rice University", "Hobby": "Chess"}]


def test_mutual_friend_is_the_record_identical_on_every_attribute():
    assert rules.mutual_friend(MINE, THEIRS) == CARLA


def test_a_record_matching_on_some_attributes_only_is_not_shared():
    # Anna/Rice appears in both lists but with a different hobby: not the same friend.
    assert rules.shared_friends(MINE, THEIRS) == [CARLA]


@pytest.mark.parametrize("theirs, count", [([DAN], 0), ([CARLA, ANNA, DAN], 2)])
def test_mutual_friend_refuses_lists_that_do_not_share_exactly_one(theirs, count):
    with pytest.raises(ValueError, match=f"share {count} records"):
        rules.mutual_friend(MINE, theirs)


def test_holds_friend_only_for_records_of_the_list():
    assert rules.holds_friend(MINE, dict(BEN))
    assert not rules.holds_friend(MINE, DAN)
    assert not rules.holds_friend(MINE, {**BEN, "Major": "Nursing"})


def test_latest_selection_supersedes_a_wrong_one():
    events = [
        Select(party="0", item=ANNA),
        Message(party="0", text="not her"),
        Select(party="0", item=CARLA),
        Select(party="1", item=CARLA),
    ]
    assert rules.latest_selections(events) == {"0": CARLA, "1": CARLA}


def _judge(events):
    return rules.judge_success({"0": MINE, "1": THEIRS}, events)


def test_success_needs_both_latest_selections_on_the_mutual_friend():
    assert _judge([Select(party="0", item=CARLA), Select(party="1", item=CARLA)])


def test_wrong_then_right_selection_succeeds():
    assert _judge([Select(party="0", item=ANNA), Select(party="1", item=CARLA), Select(party="0", item=CARLA)])


def test_right_then_wrong_selection_fails():
    assert not _judge([Select(party="0", item=CARLA), Select(party="1", item=CARLA), Select(party="1", item=DAN)])


def test_one_party_selecting_is_not_success():
    assert not _judge([Select(party="0", item=CARLA), Message(party="1", text="hold on")])


def test_no_selection_is_not_success():
    assert not _judge([Message(party="0", text="hi")])


def test_judge_refuses_a_broken_scenario():
    with pytest.raises(ValueError):
        rules.judge_success({"0": MINE, "1": [DAN]}, [])
    with pytest.raises(ValueError, match="two parties"):
        rules.judge_success({"0": MINE}, [])


def test_attribute_vocabulary():
    assert rules.ATTRIBUTE_NAMES == ("Name", "School", "Major", "Company", "Hobby", "Time Preference", "Location Preference")
    assert set(rules.VALUE_TYPES) == set(rules.ATTRIBUTE_NAMES)
    assert rules.VALUE_TYPES["Location Preference"] == "loc_pref"

"""The rules of MutualFriends (He et al., ACL 2017), shared by the corpus format and task code.

Two parties each hold a private list of 5 to 12 friends. A friend is a record over the scenario's
attributes (a subset of Name, School, Major, Company, Hobby, Time Preference, Location Preference;
the corpus uses 3 or 4 per scenario). Exactly one record appears in both lists, identical on every
attribute: the mutual friend. The parties chat and select friends from their own lists; a wrong
selection does not end the game. The dialogue succeeds when both parties' latest selections are
the mutual friend.

Records are plain `{attribute name: value}` dicts, as the corpus writes them, so that corpus code,
scenario generators and agents share one representation.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping, Sequence

from duologue.core.schema import Select

ATTRIBUTE_NAMES: tuple[str, ...] = (
    "Name",
    "School",
    "Major",
    "Company",
    "Hobby",
    "Time Preference",
    "Location Preference",
)
"""Every attribute a MutualFriends scenario may use, in CoCoA's schema order."""

VALUE_TYPES: dict[str, str] = {
    "Name": "name",
    "School": "school",
    "Major": "major",
    "Company": "company",
    "Hobby": "hobby",
    "Time Preference": "time_pref",
    "Location Preference": "loc_pref",
}
"""Attribute name -> the `value_type` CoCoA's schema gives it (the entity type of its values)."""

TIME_PREFERENCES: tuple[str, ...] = ("morning", "afternoon", "evening")
LOCATION_PREFERENCES: tuple[str, ...] = ("indoor", "outdoor")
ALPHA_CHOICES: tuple[float, ...] = (0.3, 1.0, 3.0)
"""Dirichlet concentrations a scenario draws per attribute: small alphas make friends alike (hard)."""

MIN_FRIENDS = 5
MAX_FRIENDS = 12

Friend = Mapping[str, Any]


def same_friend(a: Friend, b: Friend) -> bool:
    """Whether two records are the same friend: the same attributes with identical values."""
    return dict(a) == dict(b)


def shared_friends(friends_a: Iterable[Friend], friends_b: Iterable[Friend]) -> list[dict[str, Any]]:
    """The distinct records that appear in both lists (a valid scenario has exactly one)."""
    others = [dict(b) for b in friends_b]
    shared: list[dict[str, Any]] = []
    for friend in friends_a:
        record = dict(friend)
        if record in others and record not in shared:
            shared.append(record)
    return shared


def mutual_friend(friends_a: Iterable[Friend], friends_b: Iterable[Friend]) -> dict[str, Any]:
    """The one friend both lists hold; `ValueError` when the lists share none or several."""
    shared = shared_friends(friends_a, friends_b)
    if len(shared) != 1:
        raise ValueError(f"the two friend lists share {len(shared)} records; a MutualFriends scenario shares exactly one")
    return shared[0]


def holds_friend(friends: Iterable[Friend], item: Friend) -> bool:
    """Whether `item` is one of `friends` (a party may only select from its own list)."""
    return any(same_friend(friend, item) for friend in friends)


def latest_selections(events: Iterable[Any]) -> dict[str, dict[str, Any]]:
    """Party id -> the friend that party selected last (earlier, wrong selections are superseded)."""
    latest: dict[str, dict[str, Any]] = {}
    for event in events:
        if isinstance(event, Select) and event.party is not None:
            latest[event.party] = dict(event.item)
    return latest


def is_success(selections: Mapping[str, Friend], mutual: Friend, parties: Sequence[str]) -> bool:
    """Whether every party's latest selection is the mutual friend."""
    return all(party in selections and same_friend(selections[party], mutual) for party in parties)


def judge_success(friends_by_party: Mapping[str, Sequence[Friend]], events: Iterable[Any]) -> bool:
    """Whether a dialogue succeeded: both parties' latest selections are their lists' mutual friend.

    `friends_by_party` maps each of the two party ids to its private list; raises `ValueError` when
    the lists do not share exactly one friend (the scenario itself is broken, not the dialogue).
    """
    parties = list(friends_by_party)
    if len(parties) != 2:
        raise ValueError(f"MutualFriends has two parties, got {len(parties)}: {parties}")
    mutual = mutual_friend(friends_by_party[parties[0]], friends_by_party[parties[1]])
    return is_success(latest_selections(events), mutual, parties)

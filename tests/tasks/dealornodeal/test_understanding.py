"""Reading free text: who gets what, acceptances and refusals."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from duologue.tasks.dealornodeal.agents import describe
from duologue.tasks.dealornodeal.rules import all_shares
from duologue.tasks.dealornodeal.understanding import read

POOL = {"book": 3, "hat": 2, "ball": 1}


@pytest.mark.parametrize(
    ("text", "speaker_gets"),
    [
        ("I'll take the books, you can have the rest", {"book": 3, "hat": 0, "ball": 0}),
        ("you can have the hats", {"book": 3, "hat": 0, "ball": 1}),
        ("give me 2 books and a hat", {"book": 2, "hat": 1, "ball": 0}),
        ("i need the hats you can have everything else", {"book": 0, "hat": 2, "ball": 0}),
        ("you take all balls and i keep everything", {"book": 3, "hat": 2, "ball": 0}),
        ("i can give you the hats", {"book": 3, "hat": 0, "ball": 1}),
        ("i don't need the ball", {"book": 3, "hat": 2, "ball": 0}),
        ("no deal. i need the books", {"book": 3, "hat": 0, "ball": 0}),  # a negation ends with its sentence
        ("would you accept just the ball so i can have 1 book and the hats ?", {"book": 1, "hat": 2, "ball": 0}),
    ],
)
def test_proposals(text, speaker_gets):
    assert read(text, POOL).speaker_gets == speaker_gets


@pytest.mark.parametrize(("text", "accepts", "rejects"), [("ok", True, False), ("deal", True, False), ("Sure, sounds good", True, False), ("no deal", False, True), ("nope, i can't do that", False, True)])
def test_answers(text, accepts, rejects):
    reading = read(text, POOL)
    assert (reading.accepts, reading.rejects, reading.speaker_gets) == (accepts, rejects, None)


def test_what_the_rule_agent_says_reads_back_exactly():
    for pool in ({"book": 3, "hat": 2, "ball": 1}, {"book": 1, "hat": 4, "ball": 2}, {"book": 2, "hat": 2, "ball": 2}):
        for share in all_shares(pool):
            if not any(share.values()):
                continue
            assert read(f"i'll take {describe(share, pool)}, you can have the rest.", pool).speaker_gets == share


# ---------------------------------------------------------------------- properties (hypothesis)

_PIECES = ["i", "i'll", "you", "u", "me", "my", "your", "take", "keep", "have", "give", "need", "want", "don't", "not", "no",
           "book", "books", "hat", "hats", "ball", "balls", "basketball", "the", "a", "one", "two", "three", "four", "all", "both",
           "0", "1", "2", "3", "9", "10", "the rest", "everything else", "everything", "rest", "deal", "ok", "no deal", ",", ".", "?"]
_TALK = st.lists(st.sampled_from(_PIECES) | st.text(max_size=6), max_size=20).map(" ".join)
_POOLS = st.fixed_dictionaries({"book": st.integers(0, 4), "hat": st.integers(0, 4), "ball": st.integers(0, 4)})


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=_TALK | st.text(max_size=120), pool=_POOLS)
@example(text="give me " + "9" * 5000 + " books", pool=POOL)
def test_any_text_reads_as_a_share_of_the_pool_or_nothing(text, pool):
    reading = read(text, pool)
    assert not (reading.accepts and reading.rejects)
    if reading.speaker_gets is not None:
        assert set(reading.speaker_gets) == set(pool)
        assert all(0 <= reading.speaker_gets[item] <= pool[item] for item in pool), (reading.speaker_gets, pool)

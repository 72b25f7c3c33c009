"""Property-based tests of the CaSiNo reader (`understanding.read`), alone and with the dialogue
before it: on any text and any earlier turns it never raises, and what it reads stays in the task's
bounds (shares of 0 to 3 packages of a known item, needs of known items).

The pieces below are campsite bargaining talk: counts in words and digits, the items and their
misspellings, recipients, "the rest", "either", conditionals, negations and what a need "would help"
with, so that the shapes the reader looks for are hit often, in every order. The corpus's training
split held one message ("I cannot do 2 package ... stand my ground on 1 package", read just after an
item was named) that made the reader raise; it is pinned below.
"""

from __future__ import annotations

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from duologue.tasks.casino.rules import ISSUES, PACKAGES_PER_ISSUE
from duologue.tasks.casino.understanding import Context, read

FAST = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

PIECES = [
    "i", "you", "we", "me", "my", "your", "u", "get", "take", "have", "give", "can", "could", "would", "need", "want",
    "food", "water", "firewood", "wood", "foods", "waters", "firewoods", "package", "packages", "pack", "extra", "more",
    "0", "1", "2", "3", "4", "10", "one", "two", "three", "a", "all", "none", "the", "rest", "of", "each", "either", "or",
    "and", "for", "if", "then", "not", "no", "don't", "how about", "what about", "would help", "would be great", "works",
    "is fine", "so", "but", ",", ".", "?", "!", "-", ":", "one of each", "the rest", "everything else", "both", "less",
    "another", "in exchange", "deal", "ok", "sure", "oh sure", "lol", ":/", "🙄", "…", "\n", "", "²", "٣", "１２", "9" * 5000,
]
TALK = st.lists(st.sampled_from(PIECES) | st.text(max_size=6), max_size=24).map(" ".join)
TEXT = TALK | st.text(max_size=120)
TURNS = st.lists(st.tuples(TALK, st.booleans()), max_size=5)


def check(text: str, turns: list[tuple[str, bool]]) -> None:
    reading = read(text, context=Context.of(turns) if turns else None)
    assert set(reading.needs) <= set(ISSUES), reading.needs
    assert reading.top_need() in (None, *ISSUES)
    assert set(reading.mentions) <= set(ISSUES)
    if reading.proposal is not None:
        assert set(reading.proposal) <= set(ISSUES), reading.proposal
        assert all(n is None or 0 <= n <= PACKAGES_PER_ISSUE for n in reading.proposal.values()), reading.proposal
    assert not (reading.sarcastic and reading.agrees), "a sarcastic message is never read as agreement"


@FAST
@given(text=TEXT, turns=TURNS)
@example(
    text="Unfortunately, I cannot do 2 package as I desperately need it for my own survival. I have to stand my ground on 1 package.",
    turns=[("I need food the most, could you give me 2 packages?", False)],
)
def test_the_reader_never_raises_and_reads_within_the_tasks_bounds(text, turns):
    check(text, turns)


@FAST
@given(text=TALK, topic=st.sampled_from(["food", "water", "firewood"]), asked=st.booleans())
def test_a_count_read_against_the_item_under_discussion_stays_in_bounds(text, topic, asked):
    """The context hints the reader borrows (the item just discussed, "how many do you need?") are
    exactly the ones that reach its deepest paths; this always gives it some."""
    partner = f"how many {topic} do you need?" if asked else f"I really need the {topic}, it is cold"
    check(text, [(f"I need {topic}", True), (partner, False)])

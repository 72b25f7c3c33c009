"""What people typed to the CaSiNo rule bot and what went wrong (bots facing people): a stated need
("I'd rather walk away than get no food") and an ultimatum ("at least 2 firewood or I walk") ignored
by the next offers. They now shape the next proposal, or are refused in words with a reason."""

from __future__ import annotations

import pytest

from duologue.agents.conditions import CONDITIONS, PATTERNS, minimums
from duologue.core.schema import Message, SubmitDeal
from duologue.tasks.casino.understanding import read
from duologue.tasks.casino.understanding_words import issue_of_word
from tests.tasks.casino.test_people import BOT, play

NEED = "I'd rather walk away than get no food"


@pytest.mark.parametrize(("condition", "pattern"), PATTERNS, ids=[c.name for c in CONDITIONS])
def test_every_condition_reads_the_sentences_it_exists_for(condition, pattern):
    for example in condition.examples:
        assert pattern.search(example.lower()), (condition.name, example)
        assert minimums(example, issue_of_word), example


@pytest.mark.parametrize(
    ("text", "least"),
    [(NEED, {"Food": 1}), ("either i get at least 2 firewood or I walk", {"Firewood": 2}), ("I can't do without water", {"Water": 1}), ("i need food", {}), ("I could do without firewood", {})],
)
def test_needs_and_ultimatums_are_read(text, least):
    assert minimums(text, issue_of_word) == least


def _bot_proposals(dialogue, after: str) -> list[tuple[dict[str, int] | None, str]]:
    """The bot's splits (what the person would get) after the person said `after`, with the words around them."""
    said = False
    out = []
    for event in dialogue.events:
        if isinstance(event, Message) and event.party != BOT and event.text == after:
            said = True
        elif said and event.party == BOT and isinstance(event, SubmitDeal):
            out.append((dict(event.theirs), ""))
        elif said and event.party == BOT and isinstance(event, Message):
            out.append((None, event.text))
    return out


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize(("line", "issue", "least"), [(NEED, "Food", 1), ("either i get at least 2 firewood or I walk", "Firewood", 2)])
def test_a_stated_need_shapes_every_later_offer_or_is_refused_with_a_reason(seed, line, issue, least):
    """The person and the bot both rank the item first; the bot used to offer 0 of it again and again."""
    dialogue = play(["Hi! what do you need most?", line, "ok what else?", "hmm", "hmm"], bot_ranking=(issue, "Water" if issue != "Water" else "Food", "Firewood" if issue != "Firewood" else "Food"), person_ranking=(issue, "Water" if issue != "Water" else "Food", "Firewood" if issue != "Firewood" else "Food"), seed=seed)
    moves = _bot_proposals(dialogue, line)
    deals = [theirs for theirs, _ in moves if theirs is not None]
    words = [text.lower() for theirs, text in moves if theirs is None]
    refused = any("can't leave you" in text for text in words)
    assert refused or all(theirs[issue] >= least for theirs in deals), deals
    asked = [read(text).proposal for text in words]
    assert refused or all(p is None or p[issue] is None or 3 - p[issue] >= least for p in asked), words
    assert moves

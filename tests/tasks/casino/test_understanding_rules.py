"""The CaSiNo split reader's knowledge is data: every rule row names the messages it is written for,
and each of those messages must still be read by that row, so a row that stops doing its job (or is
shadowed by an earlier one) fails here instead of silently changing what the agents read."""

from __future__ import annotations

import pytest

from duologue.tasks.casino.understanding_markers import MARKER_RULES, MarkerRule, _At, _recipient_marker
from duologue.tasks.casino.understanding_offers import COUNT_RULES, SENTENCE_ENDS, STEPS, CountRule, EndRule, SplitRule, _read_split
from duologue.tasks.casino.understanding_words import _tokens


def _deciding_rule(tokens: list[str], i: int) -> MarkerRule | None:
    return next((rule for rule in MARKER_RULES if rule.match(_At(tokens, i)) is not None), None)


@pytest.mark.parametrize("rule", MARKER_RULES, ids=lambda rule: rule.name)
def test_every_recipient_rule_decides_the_examples_it_exists_for(rule: MarkerRule) -> None:
    assert rule.examples
    for text, who in rule.examples:
        tokens = _tokens(text)
        deciding = [i for i in range(len(tokens)) if _deciding_rule(tokens, i) is rule]
        assert any(_recipient_marker(tokens, i)[0] == who for i in deciding), (rule.name, text, tokens)


def test_recipient_rule_names_are_distinct() -> None:
    assert len({rule.name for rule in MARKER_RULES}) == len(MARKER_RULES)


SPLIT_RULES = [*STEPS, *SENTENCE_ENDS, *COUNT_RULES]


@pytest.mark.parametrize("rule", SPLIT_RULES, ids=lambda rule: rule.name)
def test_every_split_rule_acts_on_the_examples_it_exists_for(rule: SplitRule | EndRule | CountRule) -> None:
    assert rule.examples
    for example in rule.examples:
        text, hints = (example, None) if isinstance(example, str) else example
        assert rule.name in _read_split(_tokens(text), hints).fired, (rule.name, text)


def test_split_rule_names_are_distinct() -> None:
    assert len({rule.name for rule in SPLIT_RULES}) == len(SPLIT_RULES)

"""Property-based tests of the text and move parsers (hypothesis): they meet people's and bots' input.

* CraigslistBargain prices (`prices.find_prices`, `find_price`, the corpus parser's
  `parser_tokens` / `tracked_prices`) and the message reader (`reading.read_message`): never
  raise on any text; a price is always a positive finite number, within `max_ratio` of the listing,
  and each mention's span is the text it was read from.
* `actions.parse_action`: on any JSON value raises nothing but its own `MoveError` (the
  error the chat router turns into a 422); a parsed move always becomes its event, and parses
  back to itself from its own dump.
* MutualFriends `EntityLinker`: never raises on any unicode; a closed linker (the corpus
  annotator's) only names values of its knowledge base, an open one (the rule agent's) only
  values of its own list or the project's lexicon; every mention's characters are the message's.
"""

from __future__ import annotations

import json
import math
from functools import lru_cache
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from duologue.core import actions
from duologue.tasks.craigslist.prices import find_price, find_prices, parser_tokens, token_number, tracked_prices
from duologue.tasks.craigslist.reading import parser_cues, read_message
from duologue.tasks.mutualfriends.linking import EntityLinker, Lexicon, default_lexicon

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
FAST = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# ---------------------------------------------------------------------- text strategies

PRICE_WORDS = [
    "$", "k", "grand", "bucks", "dollars", "usd", "$1,200", "1200$", "1.2k", "2 grand", "twelve hundred", "one fifty",
    "three hundred and fifty", "120.50", ".5", "1e308", "9" * 40, "0", "0.00", "-50", "$-5", "nan", "inf", "$nan",
    "2012", "iphone 7", "32gb", "5pm", "86%", "$50 off", "knock 20", "100 less", "can't do 100", "too low", "lowest",
    "come down", "ok", "deal!", "?", "...", "/", "\\", ",", ".", "hi", "no", "would you take", "zero", "a million",
    "٣٠٠", "１２０", "½", "²", "$$$", "k k k", ",,,", "1,2,3", "1..2", "\u200b", "\n", "🙂",
]
"""Pieces of bargaining talk: money in many spellings, not-prices, cues, and odd unicode digits."""
BARGAINING_TEXT = st.lists(st.sampled_from(PRICE_WORDS) | st.integers(-10, 10**7).map(str) | st.text(max_size=8), max_size=12).map(" ".join)
ANY_TEXT = st.text(max_size=200) | BARGAINING_TEXT
LISTING_PRICES = st.none() | st.sampled_from([0.0, -1.0, 1.0, 35.0, 1200.0, 2.5e6, float("nan"), float("inf")]) | st.floats(0.01, 1e7)


def is_price(value) -> bool:
    return isinstance(value, float) and math.isfinite(value) and value > 0


@FAST
@given(text=ANY_TEXT, listing_price=LISTING_PRICES, listing_text=st.lists(ANY_TEXT, max_size=3))
def test_price_finder_never_raises_and_finds_only_positive_finite_prices(text, listing_price, listing_text):
    mentions = find_prices(text, listing_price=listing_price, listing_text=listing_text)
    for mention in mentions:
        assert is_price(mention.value), mention
        assert text[mention.start : mention.end] == mention.text, mention
        if listing_price is not None and math.isfinite(listing_price) and listing_price > 0:
            assert mention.value <= 2 * listing_price, (mention, listing_price)
    assert [m.start for m in mentions] == sorted(m.start for m in mentions)
    price = find_price(text, listing_price=listing_price, listing_text=listing_text)
    assert price is None or (is_price(price) and price in [m.value for m in mentions if not m.negated and not m.relative])


@pytest.mark.parametrize("text", ["$" + "9" * 400, "would you take $1" + "0" * 320 + "?", "9" * 400 + " dollars"])
def test_a_number_too_big_for_a_float_is_not_a_price(text):
    assert all(is_price(m.value) for m in find_prices(text))
    assert find_price(text) is None or is_price(find_price(text))
    assert read_message(text).price is None or is_price(read_message(text).price)


@FAST
@given(text=ANY_TEXT, listing_price=LISTING_PRICES)
def test_message_reader_never_raises_and_its_price_is_one_it_found(text, listing_price):
    reading = read_message(text, listing_price=listing_price)
    assert reading.price is None or is_price(reading.price)
    assert reading.price is None or reading.price in [m.value for m in reading.prices]
    assert all(is_price(p) for p in reading.refused)
    assert reading.relative is None or (math.isfinite(reading.relative) and reading.relative > 0)


@FAST
@given(text=ANY_TEXT, listing_price=LISTING_PRICES, spec=st.lists(st.floats(allow_nan=True), max_size=3))
def test_the_corpus_parsers_tokens_and_prices_never_raise_and_stay_finite(text, listing_price, spec):
    tokens = parser_tokens(text)
    assert all(isinstance(t, str) and t for t in tokens)
    for price in tracked_prices(tokens, listing_price=listing_price, listing_numbers=spec):
        assert math.isfinite(price.value) and price.value >= 0, price
        assert tokens[price.index] == price.token
    assert set(parser_cues(text, tokens)) <= {"question", "greeting", "negative", "vague-price", "agree"}


@FAST
@given(token=st.text(max_size=12) | st.sampled_from(["$", "k", "$k", ".k", "1e999", "1e999k", "nan", "$inf", "1_000", "٣", "1,,0", "."]))
def test_a_token_is_a_finite_number_or_none(token):
    value = token_number(token)
    assert value is None or (isinstance(value, float) and math.isfinite(value) and value >= 0)


# ---------------------------------------------------------------------- moves

KINDS = [cls.model_fields["kind"].default for cls in actions.ALL]
JSON_SCALARS = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=10)
JSON_VALUES = st.recursive(JSON_SCALARS, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3), max_leaves=8)
FIELDS = st.sampled_from(["kind", "text", "item", "price", "mine", "theirs", "party", "time", "extra", "sides"])


@st.composite
def move_like(draw) -> dict:
    """A dict that looks like a move: a real or odd kind, real or odd fields, any values."""
    move = draw(st.dictionaries(FIELDS | st.text(max_size=6), JSON_VALUES, max_size=4))
    if draw(st.booleans()):
        move["kind"] = draw(st.sampled_from(KINDS) | st.text(max_size=6) | JSON_SCALARS)
    return move


@settings(FAST, max_examples=400)
@given(data=JSON_VALUES | move_like() | st.builds(json.dumps, move_like()) | st.binary(max_size=30))
def test_parse_action_raises_only_its_move_error(data):
    try:
        action = actions.parse_action(data)
    except actions.MoveError as error:
        assert str(error), "a refusal says what is wrong"
        return
    assert action.kind in KINDS
    event = action.to_event("0", 1.0)  # a move that parses is always recordable
    assert event.kind == actions.EVENT_OF[action.kind].model_fields["kind"].default
    assert actions.parse_action(action.model_dump()) == action


def test_parse_action_refuses_non_objects_with_its_own_error():
    for data in (None, 3, [], "not json", b"\xff\xfe", "[1]", '{"kind": "say"}', '{"kind": "dance"}'):
        try:
            actions.parse_action(data)
        except actions.MoveError:
            continue
        raise AssertionError(f"{data!r} was accepted")


# ---------------------------------------------------------------------- MutualFriends entity linking


@lru_cache(maxsize=None)
def knowledge_bases() -> list[list[dict]]:
    records = json.loads((FIXTURES / "mutualfriends" / "cocoa_train.json").read_text())
    return [kb for record in records for kb in record["scenario"]["kbs"]]


def kb_values(kb: list[dict]) -> dict[str, list[str]]:
    values: dict[str, list[str]] = {}
    for friend in kb:
        for attribute, value in friend.items():
            values.setdefault(attribute, []).append(value)
    return values


def noisy(value: str, draw) -> str:
    """A value as a person may write it: other case, a letter dropped, a plural, a prefix."""
    edit = draw(st.sampled_from(["same", "lower", "upper", "drop", "plural", "first"]))
    if edit == "lower":
        return value.lower()
    if edit == "upper":
        return value.upper()
    if edit == "drop" and len(value) > 5:
        i = draw(st.integers(1, len(value) - 1))
        return value[:i] + value[i + 1 :]
    if edit == "plural":
        return value + "s"
    if edit == "first":
        return value.split()[0]
    return value


@st.composite
def friend_talk(draw, kb: list[dict]) -> str:
    values = [v for vs in kb_values(kb).values() for v in vs]
    glue = ["no", "none of mine", "all my friends like", "3 of mine", "what school?", "yes", "i have", "but", ",", "?", "neither", "nor", "🙂", "\u0301", "ǅ", "İ"]
    pieces = draw(st.lists(st.sampled_from(values).map(lambda v: noisy(v, draw)) | st.sampled_from(glue) | st.text(max_size=6), max_size=10))
    return " ".join(pieces)


@settings(FAST, max_examples=150)
@given(data=st.data())
def test_a_closed_linker_only_names_values_of_its_knowledge_base(data):
    kb = data.draw(st.sampled_from(knowledge_bases()))
    values = kb_values(kb)
    linker = EntityLinker(values, list(values), base=Lexicon())
    text = data.draw(st.text(max_size=120) | friend_talk(kb))
    parse = linker.link(text)
    allowed = {(a, v) for a, vs in values.items() for v in vs}
    for mention in parse.mentions:
        assert mention.entity in allowed, mention
        assert set(mention.alternatives) <= allowed, mention
        assert text[mention.char_start : mention.char_end] == mention.text, mention


@settings(FAST, max_examples=100)
@given(data=st.data())
def test_the_rule_agents_linker_names_only_known_values(data):
    kb = data.draw(st.sampled_from(knowledge_bases()))
    linker = EntityLinker.for_friends(kb)
    text = data.draw(st.text(max_size=120) | friend_talk(kb))
    allowed = {(a, v) for a, vs in kb_values(kb).items() for v in vs} | default_lexicon().entities
    for mention in linker.link(text).mentions:
        assert mention.entity in allowed, mention
        assert text[mention.char_start : mention.char_end] == mention.text, mention


def test_the_linker_finds_the_values_these_strategies_write():
    """Guards the properties above: the generated talk does name values, so they are not vacuous."""
    kb = knowledge_bases()[0]
    values = kb_values(kb)
    linker = EntityLinker(values, list(values), base=Lexicon())
    some = next(v for vs in values.values() for v in vs if len(v) > 6)
    assert [m.value for m in linker.link(f"one of mine likes {some.lower()}").mentions] == [some]

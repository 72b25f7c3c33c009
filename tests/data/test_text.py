"""Tokenisation for statistics: the English and Japanese recipes that reproduce the DUO card."""

from __future__ import annotations

import builtins

import pytest

from duologue.data import text
from duologue.data.text import tokenization_description, tokenize, tokenizer_for


@pytest.mark.parametrize(
    "sentence, tokens",
    [
        # lowercased; sentence-final periods split off, an abbreviation keeps its period
        ("Mr. Brown was my teacher. He was great.", ["mr.", "brown", "was", "my", "teacher", ".", "he", "was", "great", "."]),
        # Treebank contractions and NLTK's two-part splits
        ("I can't go, it's late", ["i", "ca", "n't", "go", ",", "it", "'s", "late"]),
        ("I gotta go, wanna come?", ["i", "got", "ta", "go", ",", "wan", "na", "come", "?"]),
        # double quotes become Treebank quote tokens; brackets, percent and currency are tokens
        ('She said "hi" (quietly).', ["she", "said", "``", "hi", "''", "(", "quietly", ")", "."]),
        ("Prices rose 5% in the U.S. last year.", ["prices", "rose", "5", "%", "in", "the", "u.s.", "last", "year", "."]),
        ("It costs $3.50, ok?", ["it", "costs", "$", "3.50", ",", "ok", "?"]),
        ("Wait... what", ["wait", "...", "what"]),
    ],
)
def test_english_treebank_lowercase(sentence, tokens):
    assert tokenize(sentence, "en") == tokens


def test_english_keeps_nltk_39_rules():
    # NLTK 3.10 would split "1990–2000" at the dash and "'hello" after the apostrophe;
    # the DUO card's figures were made with the older rules.
    assert tokenize("From 1990–2000 it grew", "en") == ["from", "1990–2000", "it", "grew"]
    assert tokenize("He said 'hello there", "en") == ["he", "said", "'hello", "there"]
    assert tokenize("He said 'a word", "en") == ["he", "said", "'", "a", "word"]


def test_english_lowercases_before_splitting_sentences():
    # "ok." is a known abbreviation: Punkt ends the sentence only when a capital follows, so on the
    # lowercased text it stays one token, as the DUO card counted it; so do list numbers.
    assert tokenize("That is OK. The area is good.", "en") == ["that", "is", "ok.", "the", "area", "is", "good", "."]
    assert tokenize("1. What went well?\n2. What next?", "en") == ["1.", "what", "went", "well", "?", "2.", "what", "next", "?"]


def test_language_codes_are_normalised():
    assert tokenize("Hello World.", "EN-us") == tokenize("Hello World.", "en") == ["hello", "world", "."]


def test_japanese_mecab_unidic_lite_drops_ideographic_spaces():
    assert tokenize("晩ごはんをごちそうしました。\u3000とても喜んでくれました。", "ja") == [
        "晩ごはん", "を", "ご", "ちそう", "し", "まし", "た", "。", "とても", "喜ん", "で", "くれ", "まし", "た", "。",
    ]  # fmt: skip
    assert tokenize("NBAは1946年に設立されました", "ja") == ["NBA", "は", "1946", "年", "に", "設立", "さ", "れ", "まし", "た"]


def test_other_languages_use_the_regex_rule():
    assert tokenize("Grüße, Welt! ¿Qué tal?", "de") == ["grüße", ",", "welt", "!", "¿", "qué", "tal", "?"]
    assert tokenizer_for("de").name == "regex"


def test_empty_text_has_no_tokens():
    for language in ("en", "ja", "de"):
        assert tokenize("", language) == []
        assert tokenize("   \n", language) == []


def test_descriptions_name_the_tokeniser():
    assert "NLTK" in tokenization_description("en") and "lowercased" in tokenization_description("en")
    assert "MeCab" in tokenization_description("ja") and "UniDic-lite" in tokenization_description("ja")
    assert tokenizer_for("en").name == "nltk-treebank-lower"
    assert tokenizer_for("ja").name == "mecab-unidic-lite"


def test_missing_packages_fall_back_and_say_so(monkeypatch):
    real_import = builtins.__import__

    def no_optional(name, *args, **kwargs):
        if name.split(".")[0] in ("punkt", "nltk", "fugashi", "unidic_lite"):
            raise ImportError(f"No module named {name!r}")
        return real_import(name, *args, **kwargs)

    text.tokenizer_for.cache_clear()
    monkeypatch.setattr(builtins, "__import__", no_optional)
    try:
        for language in ("en", "ja"):
            tokenizer = tokenizer_for(language)
            assert tokenizer.name == "regex"
            assert "fallback" in tokenizer.description
        assert tokenize("Don't stop.", "en") == ["don", "'", "t", "stop", "."]
    finally:
        monkeypatch.undo()
        text.tokenizer_for.cache_clear()
    assert tokenizer_for("en").name == "nltk-treebank-lower"

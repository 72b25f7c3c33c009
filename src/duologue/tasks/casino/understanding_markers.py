"""Who a CaSiNo message gives items to: the words and phrases that mark the speaker ("I'll take",
"for me", "could I have") or the partner ("you can have", "I'll give you", "is all yours") as the
receiver of the items named after (or before) them. Used by `understanding_offers`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from duologue.tasks.casino.understanding_words import NUMBER_WORDS

_ME, _YOU = "me", "you"
_OTHERS = {"they", "them", "he", "she", "him", "her", "kids", "children", "family", "someone", "anyone", "everyone"}
_SUBJECT_ME = {"i", "we", "me", "us", "myself", "ourselves"}
_SUBJECT_YOU = {"you", "u", "yourself", "ya"}
_AUX = {"can", "could", "would", "will", "ll", "d", "should", "may", "might", "must", "to", "just", "then", "also", "do", "get", "go", "shall", "m", "am", "are", "re",
        "actually", "really", "definitely", "still", "only", "probably", "certainly", "truly", "totally", "absolutely", "kinda", "gladly",
        "happily", "thus", "therefore", "now", "be", "love", "was", "is", "ideally", "personally", "at", "least", "willing", "able", "going", "gonna", "trying", "were",
        "guys", "folks", "all", "looking", "hoping", "planning", "happy", "glad", "ready", "maybe", "perhaps", "possibly", "please"}
_TAKE_VERBS = {"get", "take", "keep", "have", "grab", "receive", "gets", "takes", "keeps", "having", "getting", "taking",
               "keeping", "walk", "end", "want", "need", "like", "prefer", "wants", "needs", "claim", "had", "kept", "got", "gettin", "takin", "accept", "settle", "took", "receiving", "snag", "wanting", "choose", "pick", "use", "needing", "require", "required", "requires", "obtain", "acquire"}
_GIVE_VERBS = {"give", "gives", "send", "leave", "let", "offer", "hand", "allow", "spare", "giving", "leaving", "offering", "sending", "gave", "leaves", "provide", "providing", "given", "lend"}
_ME_PHRASES: dict[tuple[str, ...], int] = {
    ("insist", "on"): 2, ("hoping", "for"): 2, ("hoping", "to", "get"): 3, ("hoping", "to", "take"): 3, ("hoping", "to", "have"): 3,
    ("happy", "with"): 2, ("fine", "with"): 2, ("ok", "with"): 2, ("okay", "with"): 2, ("good", "with"): 2, ("preference", "is"): 2,
    ("ask", "for"): 2, ("asking", "for"): 2, ("dead", "set", "on"): 3, ("set", "on"): 2, ("gives", "me"): 2, ("that", "leaves", "me"): 3, ("leaves", "me"): 2,
    ("can", "i", "have"): 3, ("can", "i", "get"): 3, ("can", "i", "take"): 3, ("could", "i", "have"): 3, ("could", "i", "get"): 3,
    ("could", "i", "take"): 3, ("may", "i", "have"): 3, ("i", "propose"): 2, ("survive", "with", "less", "than"): 4, ("do", "with", "less", "than"): 4,
    ("with", "less", "than"): 3, ("able", "to", "have"): 3, ("able", "to", "get"): 3, ("able", "to", "take"): 3, ("make", "do", "with"): 3,
    ("i", "do", ":"): 3, ("my", "offer", "is"): 3, ("wish", "for"): 2, ("take", "less", "than"): 3, ("looking", "for"): 2, ("accept", "less", "than"): 3, ("manage", "with"): 2, ("consider",): 1, ("me", "up", "with"): 3, ("my", "deal", "of"): 3, ("stick", "with"): 2, ("make", "it"): 2, ("thinking",): 1, ("for", "me", "to", "have"): 4, ("for", "me", "to", "get"): 4, ("for", "me", "to", "take"): 4, ("for", "me", "to", "receive"): 4, ("my", "offer", ":"): 3, ("my", "proposal", "is"): 3, ("my", "proposal", ":"): 3, ("agree", "on", "getting"): 3, ("agree", "on", "taking"): 3, ("agree", "to", "getting"): 3, ("agree", "to", "taking"): 3, ("could", "go"): 2, ("my", "taking"): 2, ("my", "getting"): 2, ("requesting",): 1, ("request",): 1, ("i", "can", "do", "with"): 4, ("i", "could", "do", "with"): 4, ("in", "exchange", "for"): 3, ("in", "return", "for"): 3, ("get", "away", "with"): 3, ("get", "by", "with"): 3, ("make", "due", "with"): 3, ("possible", "to", "get"): 3, ("possible", "to", "have"): 3, ("possible", "to", "take"): 3,
    ("work", "with"): 2, ("agree", "with"): 2, ("willing", "to", "do"): 3,
}
"""Phrases after which the items named go to the speaker ("I insist on 2 firewood", "hoping for two water")."""
_YOU_PHRASES: dict[tuple[str, ...], int] = {
    ("what", "you", "want", "is"): 4, ("what", "you", "need", "is"): 4, ("so", "you", "want"): 3, ("you", "would", "like"): 3,
    ("for", "you", "to", "get"): 4, ("for", "you", "to", "have"): 4, ("for", "you", "to", "take"): 4, ("welcome", "to"): 2, ("would", "you", "like"): 3,
}
"""Phrases after which the items named go to the partner ("so what you want is 2 more firewood")."""
_GIFT_VERBS = {"give", "send", "offer", "provide", "hand", "spare", "giving", "sending", "offering", "providing", "lend"}
"""Giving verbs whose subject is the speaker and whose object, when no person is named, is the partner."""
_GIVE_UP: dict[tuple[str, ...], int] = {("let", "go", "of"): 3, ("letting", "go", "of"): 3, ("give", "up"): 2, ("giving", "up"): 2, ("part", "with"): 2, ("parting", "with"): 2, ("forgo",): 1, ("forego",): 1, ("forgoing",): 1, ("foregoing",): 1}
"""Phrases after which the items named go to the partner (negated, they are read as a keeping first)."""
_KEEP_VERBS = ("give", "part", "spare", "share", "let", "offer", "trade", "budge")
"""Giving verbs that, negated, keep the item with the speaker ("I won't part with any firewood")."""
_TRADE_VERBS = {"trade", "swap", "exchange", "forfeit", "relinquish", "surrender"}
_POSTFIX = {"for", "to"}
_WISH_VERBS = {"want", "need", "like", "prefer", "wants", "needs", "use", "thinking", "needing", "require", "required", "requires"}
_WORTH = {"important", "valuable", "essential", "necessary", "crucial", "useful", "helpful", "vital", "needed", "priority", "precious"}
"""Words after which "to me" / "for you" says what an item is worth: "the firewood is most important
to me" gives no count (a counted "having two firewood is important for me" still does)."""
_KEEP = "keep"
"""A negated giving: the items named stay with the speaker, all of them when no count is given."""
_IMPERATIVE_OPENERS = {"fine", "ok", "okay", "then", "just", "please", ",", ".", "!", "so", "sure", "alright", "go", "ahead", "and"}
STALE_AFTER = 2
"""Words (besides counts, items, fillers and list joiners) after which a recipient no longer governs an
item: "I get ... <2 words> ... 2 food"."""
_LIST_WORDS = {",", "and", "&", "+", "-", ":", "then", "also", "plus", "with", "just", "only", "no", "maybe", "ok", "okay", "so", "please"}
"""Words that may stand in a bare list of counted items ("No food, just 2 water, 3 firewood")."""
_REST = {"rest", "remainder", "everything", "others", "leftover", "leftovers"}
_ENDS = {".", "!", "?", ";", "\n"}
_GAP_BREAKERS = {"there", "because", "since", "due", "which", "who", "if", "though", "while", "whereas", "when", "i", "we", "you", "u", "split", "splitting", "divide"}
"""Words that end the reach of a recipient: what follows them is another statement (a new subject
that named no recipient, a reason, a condition, an alternative)."""


def _by_first_word(phrases: dict[tuple[str, ...], int]) -> dict[str, list[tuple[tuple[str, ...], int]]]:
    """`phrases` grouped by their first word, each group in the table's order: a token can only
    start the phrases that begin with it, so `_recipient_marker` tries those alone."""
    grouped: dict[str, list[tuple[tuple[str, ...], int]]] = {}
    for phrase, length in phrases.items():
        grouped.setdefault(phrase[0], []).append((phrase, length))
    return grouped


_ME_STARTS, _YOU_STARTS, _GIVE_UP_STARTS = _by_first_word(_ME_PHRASES), _by_first_word(_YOU_PHRASES), _by_first_word(_GIVE_UP)


Marker = tuple[str | None, int, bool]
"""(recipient, tokens consumed, postfix?): who a marker gives to, how many tokens it spans, and
whether it gives the items named before it ("2 water for me") rather than after it."""
_NO_MARKER: Marker = (None, 0, False)
_COUNTS = {"0", "1", "2", "3", "one", "two", "three"}
_TAKING = {"receiving", "getting", "taking", "having"}


class _At:
    """The token a marker rule looks at, with what the rules ask of its surroundings."""

    __slots__ = ("i", "nxt", "t", "tokens")

    def __init__(self, tokens: list[str], i: int) -> None:
        self.tokens, self.i = tokens, i
        self.t = tokens[i]
        self.nxt = tokens[i + 1] if i + 1 < len(tokens) else ""

    def before(self, n: int) -> list[str]:
        """The n tokens before this one (fewer at the start)."""
        return self.tokens[max(0, self.i - n) : self.i]

    @property
    def negated(self) -> bool:
        """A "not" in the five tokens before, within the sentence."""
        window = self.before(5)
        return "not" in window and not any(w in _ENDS for w in window)

    def you_before(self, n: int) -> bool:
        return any(w in _SUBJECT_YOU for w in self.before(n))


@dataclass(frozen=True)
class MarkerRule:
    """One way of naming who receives, and the messages it is written for: in each example this rule
    decides at some token, and marks the recipient given beside it (`me`, `you`, `keep`, or None
    for a token the rule says marks nobody)."""

    name: str
    starts: frozenset[str]
    """The tokens the rule can apply at (the reader tries a token only with the rules it starts)."""
    match: Callable[[_At], Marker | None]
    """The marker at this token, `_NO_MARKER` when the rule says there is none, None when it does not apply."""
    examples: tuple[tuple[str, str | None], ...]


def _side(speaker: bool) -> str:
    return _ME if speaker else _YOU


def _consider(at: _At) -> Marker | None:
    if at.t == "consider" and at.nxt in {"taking", "having", "getting", "receiving"} and at.you_before(3):
        return _YOU, 2, False
    return None


def _me_phrase(at: _At) -> Marker | None:
    tokens, i, t = at.tokens, at.i, at.t
    for phrase, length in _ME_STARTS.get(t, ()):
        if tuple(tokens[i : i + length]) == phrase and (not at.negated or "less" in phrase):  # "I can't do with less than 2 water"
            if phrase[-1] == "with" and i + length < len(tokens) and tokens[i + length] in {"you", "your", "that", "this", "it", "u"}:
                return None  # "okay with your group taking all 3 food" is about the partner's share
            if phrase[0] not in {"i", "can", "could", "may", "in", "me", "consider", "for"} and phrase != ("make", "it") and at.you_before(3):
                if phrase[-1] == "with" and phrase[0] in {"happy", "fine", "ok", "okay", "good"} and tokens[i + length : i + length + 1] in (["1"], ["2"], ["3"], ["one"], ["two"], ["three"]):
                    return _YOU, length, False  # "will you be okay with 1 firewood?" offers the partner that share
                return None  # "are you hoping for 2 water?" asks about the partner's wish
            return _ME, length, False
    return None


def _you_phrase(at: _At) -> Marker | None:
    for phrase, length in _YOU_STARTS.get(at.t, ()):
        if tuple(at.tokens[at.i : at.i + length]) == phrase and not at.negated:  # "it doesn't seem fair for you to get all the firewood"
            return _YOU, length, False
    return None


def _group_taking(at: _At) -> Marker | None:
    tokens, i = at.tokens, at.i
    if at.t in {"your", "my", "our"} and at.nxt in {"group", "family", "side", "camp", "team", "crew", "kids"} and i + 2 < len(tokens) and tokens[i + 2] in _TAKE_VERBS:
        return _side(at.t != "your"), 3, False
    return None


def _with_taking(at: _At) -> Marker | None:
    if at.t in {"receiving", "getting", "taking", "having"} and at.i >= 1 and at.tokens[at.i - 1] in {"with", "about"}:
        return _side(not at.you_before(5)), 1, False
    return None


def _person_taking(at: _At) -> Marker | None:
    if at.t in {"receiving", "getting", "taking", "having"} and at.i >= 1 and at.tokens[at.i - 1] in _SUBJECT_ME | _SUBJECT_YOU:
        return _side(at.tokens[at.i - 1] in _SUBJECT_ME), 1, False
    return None


def _headed_list(at: _At) -> Marker | None:
    tokens, i, t = at.tokens, at.i, at.t
    if t in {"me", "you", "u"} and (i == 0 or tokens[i - 1] in {".", ",", "!", "?", "and", ":"}):
        k = i + 1 if i + 1 < len(tokens) and tokens[i + 1] in {":", "-", ",", "="} else i  # "ME = 0 firewood, 3 water"
        if k + 1 < len(tokens) and tokens[k + 1] in _COUNTS:
            return _side(t == "me"), k - i + 1, False
    return None


def _infinitive(at: _At) -> Marker | None:
    # the infinitive's taker is the nearest person named before it, the speaker when none is
    if at.t == "to" and at.nxt in {"get", "have", "take", "receive", "keep", "grab"}:
        person = next((w for w in reversed(at.before(4)) if w in _SUBJECT_YOU | _SUBJECT_ME | _OTHERS), None)
        if person in _OTHERS or at.negated:
            return _NO_MARKER  # "it doesn't seem fair for you to get all the firewood"
        return _side(person not in _SUBJECT_YOU), 2, False
    return None


def _would_like(at: _At) -> Marker | None:
    tokens, i = at.tokens, at.i
    if at.t in {"like", "love", "prefer"} and i >= 1 and tokens[i - 1] in {"would", "d"} and (i < 2 or tokens[i - 2] not in _SUBJECT_YOU):
        return _ME, 1, False
    return None


def _give_up(at: _At) -> Marker | None:
    for phrase, length in _GIVE_UP_STARTS.get(at.t, ()):
        if tuple(at.tokens[at.i : at.i + length]) == phrase:
            # the giver is the nearest person named before the phrase
            giver = next((w for w in reversed(at.before(5)) if w in _SUBJECT_ME | _SUBJECT_YOU), None)
            return _side(giver in _SUBJECT_YOU), length, False
    return None


def _making(at: _At) -> Marker | None:
    if at.t in {"making", "totaling", "totalling"} and at.nxt in _COUNTS | {"all"}:
        return _ME, 1, False
    return None


def _unable_to_give(at: _At) -> Marker | None:
    tokens, i = at.tokens, at.i
    if at.t == "unable" and at.nxt == "to" and tokens[i + 2 : i + 3] and tokens[i + 2] in _KEEP_VERBS:
        return _KEEP, 3, False
    return None


def _not_give(at: _At) -> Marker | None:
    tokens, i = at.tokens, at.i
    if at.t in {"not", "never"} and at.nxt in _KEEP_VERBS:
        j = i + 2
        while j < len(tokens) and tokens[j] in {"with", "up", "you", "u", "away", "go", "of", "on", "in"} and j - i <= 4:
            j += 1
        return _KEEP, j - i, False
    return None


def _let_me_know(at: _At) -> Marker | None:
    tokens, i = at.tokens, at.i
    if at.t == "let" and at.nxt == "me" and i + 2 < len(tokens) and tokens[i + 2] in {"know", "see", "think", "check", "ask", "explain", "tell"}:
        return _NO_MARKER
    return None


def _trade(at: _At) -> Marker | None:
    if at.t in _TRADE_VERBS and at.nxt not in _SUBJECT_ME and (at.i == 0 or at.tokens[at.i - 1] not in _SUBJECT_YOU):
        return _YOU, 2 if at.nxt in _SUBJECT_YOU else 1, False
    return None


def _and_you_count(at: _At) -> Marker | None:
    if at.t in _SUBJECT_YOU and at.nxt in NUMBER_WORDS and at.nxt not in {"a", "an", "all", "every", "both"} and at.i > 0 and at.tokens[at.i - 1] in {"and", ","}:
        return _YOU, 1, False
    return None


def _give_person(at: _At) -> Marker | None:
    if at.t in _GIVE_VERBS and at.nxt in _SUBJECT_ME | _SUBJECT_YOU:
        return _side(at.nxt in _SUBJECT_ME), 2, False
    return None


def _for_person_heading(at: _At) -> Marker | None:
    tokens, i = at.tokens, at.i
    opens = i == 0 or tokens[i - 1] in _ENDS
    if at.t in _POSTFIX and at.nxt in _SUBJECT_ME | _SUBJECT_YOU and (tokens[i + 2 : i + 3] == [":"] or (opens and tokens[i + 2 : i + 3] == [","])):
        return _side(at.nxt in _SUBJECT_ME), 3, False
    return None


def _for_person(at: _At) -> Marker | None:
    if at.t in _POSTFIX and at.nxt in (_SUBJECT_ME | _SUBJECT_YOU | {"yourself", "myself"}):
        return _side(at.nxt in _SUBJECT_ME), 2, True
    return None


def _from_person(at: _At) -> Marker | None:
    if at.t == "from" and at.nxt in _SUBJECT_ME | _SUBJECT_YOU and at.tokens[at.i + 2 : at.i + 3] != ["to"]:
        return _side(at.nxt not in _SUBJECT_ME), 2, True
    return None


def _mine_yours(at: _At) -> Marker | None:
    if at.t in {"mine", "yours"}:
        return _side(at.t == "mine"), 1, True
    return None


def _share_with(at: _At) -> Marker | None:
    if at.t == "with" and at.nxt in _SUBJECT_ME | _SUBJECT_YOU and any(w in {"share", "sharing"} for w in at.before(8)):
        return _side(at.nxt in _SUBJECT_ME), 2, True
    return None


def _verb_after_subject(tokens: list[str], i: int) -> int:
    """Where the verb after the subject at i stands, past up to five auxiliaries ("I would really like")."""
    j = i + 1
    while j < len(tokens) and tokens[j] in _AUX and j - i <= 5:
        if tokens[j] == "get" and j + 1 < len(tokens) and tokens[j + 1] not in {"to"}:
            break
        j += 1
    return j


def _subject_owns_or_does(tokens: list[str], i: int, j: int) -> Marker | None:
    """What "I" followed by "only have" / "do with" / "do 1 food" / "get you" marks, if any of them."""
    t = tokens[i]
    if t == "i" and j < len(tokens) and tokens[j] == "have" and set(tokens[i + 1 : j]) in ({"only"}, {"already"}, {"only", "already"}) and tokens[i - 1 : i] != ["if"]:
        return _NO_MARKER  # "I only have 1 jug of water" says what the speaker owns
    if t == "i" and j + 1 < len(tokens) and tokens[j - 1] == "do" and tokens[j] == "with" and tokens[j + 1] in NUMBER_WORDS:
        return _ME, j - i + 1, False  # "I could perhaps do with 2 firewood"
    if t == "i" and j < len(tokens) and tokens[j - 1] in {"do", "be"} and tokens[j] in _COUNTS | {"all"}:
        return _ME, j - i, False  # "I can do 1 food, 3 water and 2 firewood", "so I'll be 2 firewood, 1 water, 2 food?"
    if j + 1 < len(tokens) and tokens[j] in {"get", "got"} and tokens[j + 1] in _SUBJECT_YOU:
        return _YOU, j - i + 2, False  # "I can get you one package of water"
    return None


def _subject_takes(tokens: list[str], i: int, j: int) -> Marker:
    """What a subject followed by a taking verb at j marks."""
    t = tokens[i]
    if t in _SUBJECT_YOU and tokens[j] in _WISH_VERBS:
        if i >= 1 and tokens[i - 1] == "if" and j + 1 < len(tokens) and tokens[j + 1] in {"1", "2", "3", "one", "two", "three", "all"}:
            return _YOU, j - i + 1, False  # "if you want 2 waters I'd take all the food": granted on a condition
        return _NO_MARKER  # "are you sure you need 2 food?" asks, it does not give
    if any(tokens[k] in {"not", "never"} for k in range(i + 1, j)):
        return _NO_MARKER  # "I don't need 3 water" proposes nothing
    if tokens[j] in _WISH_VERBS and tokens[j + 1 : j + 2] == ["to"] and j + 2 < len(tokens) and tokens[j + 2] in {"keep", "have", "get", "take", "receive"}:
        j += 2  # "I would like to keep the food": the taking, not the wish, says how much
    if tokens[j + 1 : j + 3] in (["away", "with"], ["by", "with"]):
        j += 2  # "I can get away with 1": what follows is the share
    return _side(t in _SUBJECT_ME), j - i + 1, False


def _subject_gives(tokens: list[str], i: int, j: int) -> Marker:
    """What a subject followed by a giving verb at j marks."""
    nxt_object = tokens[j + 1] if j + 1 < len(tokens) else ""
    if tokens[j] in _GIFT_VERBS and nxt_object not in _SUBJECT_ME | _SUBJECT_YOU | {"up", "it", "them", "that", "this"}:
        # "I will provide 1 wood and 1 food", "I can spare 1 water", "could you spare one food?"
        return _side(tokens[i] not in _SUBJECT_ME), j - i + 1, False
    # "i give you 2 food": the giver's object receives; handled when the give verb is reached
    return _NO_MARKER


def _subject_verb(at: _At) -> Marker | None:
    tokens, i, t = at.tokens, at.i, at.t
    if not (t in _SUBJECT_ME or t in _SUBJECT_YOU) or "not think" in " ".join(at.before(4)):  # "I don't think I can do 1 firewood"
        return None
    j = _verb_after_subject(tokens, i)
    if (done := _subject_owns_or_does(tokens, i, j)) is not None:
        return done
    if j < len(tokens) and tokens[j] in _TAKE_VERBS:
        return _subject_takes(tokens, i, j)
    if j < len(tokens) and tokens[j] in _GIVE_VERBS:
        return _subject_gives(tokens, i, j)
    return None


def _imperative_take(at: _At) -> Marker | None:
    if at.t in {"take", "have", "keep", "grab"} and (at.i == 0 or at.tokens[at.i - 1] in _IMPERATIVE_OPENERS):
        return _YOU, 1, False
    return None


def _my_share(at: _At) -> Marker | None:
    if at.t in {"my", "your"} and at.nxt in {"share", "side", "end", "part"}:
        return _side(at.t == "my"), 2, False
    return None


MARKER_RULES: tuple[MarkerRule, ...] = (
    MarkerRule("would you consider taking", frozenset({"consider"}), _consider, (("would you consider taking one extra firewood, 2 food and one water?", _YOU),)),
    MarkerRule("speaker's phrase", frozenset(_ME_STARTS), _me_phrase, (("I insist on 2 firewood", _ME), ("hoping for two water", _ME), ("will you be okay with 1 firewood?", _YOU))),
    MarkerRule("partner's phrase", frozenset(_YOU_STARTS), _you_phrase, (("so what you want is 2 more firewood", _YOU),)),
    MarkerRule("a group taking", frozenset({"your", "my", "our"}), _group_taking, (("your group taking all 3 food", _YOU), ("my group taking 2 water", _ME))),
    MarkerRule("with taking", frozenset(_TAKING), _with_taking, (("how would you be with receiving two waters", _YOU), ("I'm fine with getting 2 food", _ME))),
    MarkerRule("a person taking", frozenset(_TAKING), _person_taking, (("I could agree to you taking 2 food", _YOU),)),
    MarkerRule("a headed list", frozenset({"me", "you", "u"}), _headed_list, (("Me 2 food 1 water. You, 1 food, 2 water", _ME), ("ME = 0 firewood, 3 water", _ME))),
    MarkerRule("an infinitive's taker", frozenset({"to"}), _infinitive, (("it's only fair to have all of the firewood", _ME), ("i am the one to get the 2 food", _ME), ("it doesn't seem fair for you to get all the firewood", None))),
    MarkerRule("would like", frozenset({"like", "love", "prefer"}), _would_like, (("... and would like to have 3 firewoods", _ME),)),
    MarkerRule("giving up", frozenset(_GIVE_UP_STARTS), _give_up, (("I'm ok with letting go of two of the firewood", _YOU), ("would you be willing to part with 1 water", _ME))),
    MarkerRule("a total", frozenset({"making", "totaling", "totalling"}), _making, (("so let me get the remaining firewood then. making 2 foods, 2 firewood and 1 water", _ME),)),
    MarkerRule("unable to give", frozenset({"unable"}), _unable_to_give, (("i am unable to give fire wood", _KEEP),)),
    MarkerRule("a negated giving", frozenset({"not", "never"}), _not_give, (("I can't give you any of the water", _KEEP), ("I won't part with any firewood", _KEEP))),
    MarkerRule("let me know", frozenset({"let"}), _let_me_know, (("let me know what you think of 2 food", None),)),
    MarkerRule("a trade", frozenset(_TRADE_VERBS), _trade, (("I'd like to trade 3 firewood for 3 waters", _YOU),)),
    MarkerRule("and you N", frozenset(_SUBJECT_YOU), _and_you_count, (("3 firewood for me and ya 2 food", _YOU),)),
    MarkerRule("give a person", frozenset(_GIVE_VERBS), _give_person, (("give me 2 food", _ME), ("I'll give you 3 water", _YOU))),
    MarkerRule("a heading for a person", frozenset(_POSTFIX), _for_person_heading, (("For me: 1 water, 2 firewood. For you: 3 food", _ME), ('"for you, 1 wood, 2 food"', _YOU))),
    MarkerRule("for a person", frozenset(_POSTFIX), _for_person, (("2 water for me", _ME), ("the rest to you", _YOU))),
    MarkerRule("from a person", frozenset({"from"}), _from_person, (("3 waters from me for your 3 food", _YOU),)),
    MarkerRule("mine or yours", frozenset({"mine", "yours"}), _mine_yours, (("the firewood is all yours", _YOU), ("the water is mine", _ME))),
    MarkerRule("shared with", frozenset({"with"}), _share_with, (("can you share 2 packs of food with me?", _ME),)),
    MarkerRule(
        "a subject and its verb",
        frozenset(_SUBJECT_ME | _SUBJECT_YOU),
        _subject_verb,
        (
            ("I could perhaps do with 2 firewood", _ME), ("I can do 1 food, 3 water and 2 firewood", _ME), ("I can get you one package of water", _YOU),
            ("if you want 2 waters I'd take all the food", _YOU), ("I would like to keep the food", _ME), ("I can get away with 1", _ME),
            ("I will provide 1 wood and 1 food", _YOU), ("could you spare one food?", _ME),
            ("I only have 1 jug of water", None), ("are you sure you need 2 food?", None),
        ),
    ),
    MarkerRule("an imperative taking", frozenset({"take", "have", "keep", "grab"}), _imperative_take, (("fine, take all the water", _YOU),)),
    MarkerRule("my share", frozenset({"my", "your"}), _my_share, (("my share is 2 food", _ME), ("your part is 1 water", _YOU))),
)
"""Who receives, rule by rule: the first rule that applies at a token decides; `_NO_MARKER` from a rule
says the token marks nobody ("let me know", "I only have 1 jug of water", "I don't need 3 water")."""


def _rules_by_start(rules: tuple[MarkerRule, ...]) -> dict[str, tuple[MarkerRule, ...]]:
    """The rules each token can start, in the table's order."""
    return {word: tuple(rule for rule in rules if word in rule.starts) for word in set().union(*(rule.starts for rule in rules))}


_RULES_AT = _rules_by_start(MARKER_RULES)


def _recipient_marker(tokens: list[str], i: int) -> Marker:
    """(recipient, tokens consumed, postfix?) if a recipient marker starts at token i."""
    rules = _RULES_AT.get(tokens[i])
    if rules is None:
        return _NO_MARKER
    at = _At(tokens, i)
    for rule in rules:
        if (marker := rule.match(at)) is not None:
            return marker
    return _NO_MARKER

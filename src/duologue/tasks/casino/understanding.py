"""Reading what a CaSiNo negotiator writes: which items they mean, how much they need each, what split they propose.

People write the way people write: "watter", "firewod", "fire wood"; "we don't need much food";
"I really need firewood, it gets cold"; "you can have 2 food and I take all the water"; "how about
I get 3 firewood and you get the rest". `read(text)` turns one message into a `Reading` of what it
says about the *speaker*:

* `needs`: issue -> evidence of how much the speaker values it (positive: they want it, negative:
  they can do without it). The evidence comes from cue phrases ("top priority", "really need",
  "least", "can spare", "have plenty of"), with negation flipping a cue ("not my top priority"),
  from implicit mentions ("it gets cold at night" is about firewood) and from what a proposal asks
  for.
* `prefers`: (more, less) pairs from comparisons and ranked lists ("water more than food",
  "water, then food, then firewood").
* `proposal`: the split the speaker describes, as the speaker's own share per issue (None where the
  text says nothing about an issue).
* speech acts the agent reacts to: `asks_preferences`, `agrees`, `disagrees`, `greets`.

Negation and irony are read for what they mean: "I can't give you any of the water" keeps all the
water with the speaker, and a sarcastic line ("oh sure, you take ALL the food, that's totally fair
:/", `is_sarcastic`) is a refusal with no proposal. Splits that do not say who gets what ("2 of
either the food or the water", "one of us gets 2 foods") are no proposal. `read` is memoized.

Measured on a labelled set of real corpus messages (`understanding_eval`, reported by
`benchmarks/bench_casino_understanding.py`).

The parser is a small set of transparent rules (regular expressions over a normalised token
stream), not a trained model: it is meant to be read and tested on hand-written human-like lines.
`benchmarks/bench_casino_selfplay.py` measures it on the real corpus: from each participant's own
messages it recovers the top issue about two times in three (chance: one in three).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from functools import lru_cache
from difflib import SequenceMatcher

from duologue.tasks.casino.rules import ISSUES, PACKAGES_PER_ISSUE

# ---------------------------------------------------------------------------- vocabulary

ISSUE_WORDS: dict[str, str] = {
    # food
    "food": "Food", "foods": "Food", "meal": "Food", "meals": "Food", "snack": "Food", "snacks": "Food",
    "groceries": "Food", "grocery": "Food", "rations": "Food", "ration": "Food", "provisions": "Food",
    "foodstuff": "Food", "foodstuffs": "Food",
    # water
    "water": "Water", "waters": "Water", "h2o": "Water",
    # firewood
    "firewood": "Firewood", "firewoods": "Firewood", "wood": "Firewood", "logs": "Firewood",
    "kindling": "Firewood", "fire": "Firewood", "fires": "Firewood", "campfire": "Firewood",
    "campfires": "Firewood", "bonfire": "Firewood",
}
"""Words that name an issue outright."""

IMPLICIT_WORDS: dict[str, str] = {
    "hungry": "Food", "hunger": "Food", "starving": "Food", "eat": "Food", "eating": "Food", "calories": "Food",
    "cook": "Food", "cooking": "Food",
    "thirsty": "Water", "thirst": "Water", "hydrated": "Water", "hydration": "Water", "dehydrated": "Water",
    "dehydration": "Water", "drink": "Water", "drinking": "Water",
    "cold": "Firewood", "chilly": "Firewood", "freezing": "Firewood", "warm": "Firewood", "warmth": "Firewood",
}
"""Words that point at an issue without naming it; used only when a clause names no issue."""

FUZZY_TARGETS: tuple[str, ...] = ("food", "water", "firewood", "wood")
NOT_TYPOS: frozenset[str] = frozenset(
    {
        "waste", "waster", "waiter", "wafer", "wafers", "wader", "waters", "wander", "wanted", "watch", "watched",
        "waited", "wait", "wake", "woke", "wool", "wooly", "woods", "word", "words", "worm", "worse", "worst",
        "worth", "would", "woodland", "wooden", "fold", "fool", "fools", "foot", "fond", "feed", "feud", "food's",
        "flood", "forward", "fired", "fireworks", "firework", "fireman", "fireplace", "firefly", "fireside",
        "wonder", "winter", "wetter", "writer", "whatever", "weather", "wider", "ward",
    }
)
"""Real words close to an issue name that must not be read as a typo of it."""

NUMBER_WORDS: dict[str, int] = {
    "0": 0, "zero": 0, "none": 0, "nothing": 0,
    "1": 1, "one": 1, "single": 1, "a": 1, "an": 1,
    "2": 2, "two": 2, "couple": 2, "pair": 2, "both": 2,
    "3": 3, "three": 3, "all": 3, "every": 3, "entire": 3, "whole": 3,
}
"""Counts. `a`/`an`/`both`/`no` only count right before an item (`a water`); `all` is every package."""

FILLER: frozenset[str] = frozenset(
    {"of", "the", "my", "your", "our", "those", "these", "package", "packages", "pack", "packs", "packet", "packets",
     "unit", "units", "bundle", "bundles", "bottle", "bottles", "jug", "jugs", "extra", "more", "additional", "x",
     "items", "item", "piece", "pieces", "lot", "lots", "bag", "bags", "case", "cases", "box", "boxes", "for", "just",
     "only", "remaining", "things", "thing", "containers", "cans", "portions", "servings", "loads"}
)
"""Words that may stand between a count and its item: `2 packages of the water`."""

# ---------------------------------------------------------------------------- normalising


_NOT_FORMS = {"ca": "can", "wo": "will", "do": "do", "does": "does", "is": "is", "are": "are", "would": "would", "could": "could",
              "should": "should", "did": "did", "was": "was", "were": "were", "have": "have", "has": "has"}


def normalize(text: str) -> str:
    """Lower case, common spellings joined, punctuation spaced out so tokens are clean."""
    text = text.lower().replace("’", "'").replace("‘", "'")
    text = re.sub(r"\bfire[\s-]+wood", "firewood", text)
    text = re.sub(r"\bh\s*2\s*o\b", "h2o", text)
    text = re.sub(r"\b(\d)\s*x\b", r"\1", text)  # "2x water"
    text = re.sub(r"#\s*1\b", " number one ", text)
    text = re.sub(r"\b1st\b", " first ", text)
    text = re.sub(r"\b2nd\b", " second ", text)
    text = re.sub(r"\b3rd\b", " third ", text)
    text = re.sub(r"\b(i|you|we|they|it|that|he|she|there|what)'(ll|d|m|re|ve|s)\b", r"\1 \2", text)
    text = re.sub(r"\b(ca|wo|do|does|is|are|would|could|should|did|was|were|have|has)n'?t\b", lambda m: _NOT_FORMS[m.group(1)] + " not", text)
    text = re.sub(r"\bcannot\b", "can not", text)
    text = re.sub(r"\bim\b", "i m", text)
    text = re.sub(r"\bill\b(?= (take|get|give|keep|have|need|do|go|let|be|send))", "i ll", text)
    text = re.sub(r"[^a-z0-9'?!.;,:\n&>=+-]+", " ", text)
    text = re.sub(r"([?!.;,:\n&>=+])", r" \1 ", text)
    return re.sub(r"[ \t]+", " ", text).strip()


@lru_cache(maxsize=65536)
def issue_of_word(word: str) -> str | None:
    """The issue a single word names, allowing for typos (`watter`, `firewod`, `fod`)."""
    word = word.strip("'")
    if word in ISSUE_WORDS:
        return ISSUE_WORDS[word]
    if word.endswith("'s") and word[:-2] in ISSUE_WORDS:
        return ISSUE_WORDS[word[:-2]]
    if len(word) < 3 or word in NOT_TYPOS or not word.isalpha():
        return None
    for target in FUZZY_TARGETS:
        if word[0] == target[0] and abs(len(word) - len(target)) <= 2:
            if SequenceMatcher(None, word, target).ratio() >= (0.85 if len(target) <= 4 else 0.8):
                return ISSUE_WORDS[target]
    return None


def _tokens(text: str) -> list[str]:
    return normalize(text).split(" ") if text.strip() else []


# ---------------------------------------------------------------------------- the reading


@dataclass
class Reading:
    """What one message says about its speaker. See the module docstring."""

    text: str
    needs: dict[str, float] = field(default_factory=dict)
    prefers: list[tuple[str, str]] = field(default_factory=list)
    proposal: dict[str, int | None] | None = None
    asks_preferences: bool = False
    agrees: bool = False
    disagrees: bool = False
    greets: bool = False
    mentions: list[str] = field(default_factory=list)
    sarcastic: bool = False
    """Said with irony ("oh sure, you take ALL the food, that's totally fair :/"): a refusal, never a proposal."""

    @property
    def complete_proposal(self) -> dict[str, int] | None:
        """The proposal when it settles every issue, else None."""
        if self.proposal is None or any(self.proposal.get(i) is None for i in ISSUES):
            return None
        return {i: int(self.proposal[i]) for i in ISSUES}  # type: ignore[arg-type]

    def top_need(self) -> str | None:
        """The issue the speaker most clearly wants, if any clearly positive."""
        if not self.needs:
            return None
        issue, score = max(self.needs.items(), key=lambda kv: kv[1])
        return issue if score > 0 else None


def read(text: str) -> Reading:
    """Read one message (see the module docstring for what is extracted).

    Memoized: agents read the same lines over and over in self-play, so each distinct text is parsed
    once; every call gets its own copy, free to change.
    """
    cached = _read(text)
    return replace(cached, needs=dict(cached.needs), prefers=list(cached.prefers), proposal=None if cached.proposal is None else dict(cached.proposal), mentions=list(cached.mentions))


@lru_cache(maxsize=65536)
def _read(text: str) -> Reading:
    reading = Reading(text=text)
    tokens = _tokens(text)
    if not tokens:
        return reading
    joined = " ".join(tokens)
    reading.mentions = [i for t in tokens if (i := issue_of_word(t))]
    reading.greets = bool(re.search(r"\b(hi|hello|hey|howdy|greetings|good (morning|afternoon|evening))\b", joined))
    reading.asks_preferences = _asks_preferences(joined)
    reading.sarcastic = is_sarcastic(text)
    reading.proposal = None if reading.sarcastic else _proposal(tokens)
    sentences = _sentences(tokens)
    for sentence in sentences:
        _read_sentence_needs(sentence, reading)
    if reading.proposal:
        for issue, count in reading.proposal.items():
            if count is not None:
                # Asking for most of an item is (weaker) evidence of wanting it.
                reading.needs[issue] = reading.needs.get(issue, 0.0) + 0.8 * (count - 1.5)
    reading.agrees, reading.disagrees = _stance(joined)
    if reading.sarcastic:
        reading.agrees, reading.disagrees = False, True
    reading.needs = {i: round(v, 3) for i, v in reading.needs.items() if v != 0}
    return reading


_IRONY_STRONG = re.compile(r"yeah,? right|🙄|😒|(^|\s)/s\b|\bsure you do\b|\bhow convenient\b", re.IGNORECASE)
_IRONY_SIGNS: tuple[re.Pattern[str], ...] = (
    re.compile(r"\b(oh|ah|wow),? (sure|great|yeah|right|wonderful|perfect|thanks)\b", re.IGNORECASE),
    re.compile(r"\b(totally|so|super|very|real|really|perfectly) (fair|generous|reasonable|kind)\b|\bhow (generous|fair|kind|nice)\b|\bthanks a lot\b", re.IGNORECASE),
    re.compile(r":/|:\||:-/|-_-|\.\.\.\s*not\b|\bnot!"),
    re.compile(r"\b(ALL|EVERYTHING|NOTHING|EVERY)\b"),
)


def is_sarcastic(text: str) -> bool:
    """Whether a message says the opposite of its words: one strong sign (an eye-roll, "yeah right"),
    or two of: an ironic opener ("oh sure"), praise of fairness or generosity, a wry face (":/"),
    a shouted ALL."""
    if _IRONY_STRONG.search(text):
        return True
    return sum(bool(sign.search(text)) for sign in _IRONY_SIGNS) >= 2


def _sentences(tokens: list[str]) -> list[list[str]]:
    out: list[list[str]] = [[]]
    for t in tokens:
        if t in {".", "!", "?", ";", "\n"}:
            if out[-1]:
                out[-1].append(t)
                out.append([])
        else:
            out[-1].append(t)
    return [s for s in out if s]


# ---------------------------------------------------------------------------- speech acts

_ELICIT = re.compile(
    r"\b(what|which|how about you|and you|what about you|how about yours|your)\b.*\b(need|needs|want|priority|priorities|important|matters?|most|looking for|hoping|prefer|preference|top)\b"
    r"|\bwhat (do|would|are) you\b|\bhow about you\b|\bwhat about you\b|\band you\s*\?|\byou\?"
)


def _asks_preferences(joined: str) -> bool:
    if "?" not in joined:
        return False
    for question in re.findall(r"[^.!?]*\?", joined):
        if re.search(r"\b(you|your|yours|u)\b", question) and _ELICIT.search(question):
            return True
    return False


_AGREE = re.compile(
    r"\b((?<!big )(?<!a )deal|sounds (good|great|fair|fine|perfect|reasonable)|that works|works for me|that is fine|i agree|agreed|agree|"
    r"i accept|accepted|fine by me|fine with me|let us do (it|that)|let s do (it|that)|lets do (it|that)|perfect|great|"
    r"ok|okay|k|sure|yes|yeah|yep|yup|alright|all right|fair enough|i can do that|i can live with that|go ahead|"
    r"submit|happy with that|good with me|good for me|that is fair|it is a deal|you have a deal|awesome)\b"
)
_DISAGREE = re.compile(
    r"\b(no|nope|nah|not fair|unfair|no way|too much|not enough|does not work|will not work|would not work|"
    r"can not (do that|do this|accept|agree|give you that|go for|go with)|not going to work|i do not think so|i would rather not|"
    r"that is a lot|not really|i need more|i want more|not quite|sorry|hmm|decline|reject|too greedy|greedy|rather not|"
    r"not possible|impossible|not happy|not ok|not okay|not good|no deal|doesn't work)\b"
)


_WEAK_REFUSALS = {"hmm", "sorry", "no"}
_CLEAR_AGREEMENT = re.compile(r"\b(i can do that|that works|works for me|sounds good|sounds great|(?<!no )deal|i agree|agreed|i accept|fine by me|happy with that)\b")


def _stance(joined: str) -> tuple[bool, bool]:
    """(agrees, disagrees). An agreement followed by `but` is a disagreement."""
    agree = _AGREE.search(joined)
    disagree = _DISAGREE.search(joined)
    if agree and disagree and all(m.group(0) in _WEAK_REFUSALS for m in _DISAGREE.finditer(joined)) and _CLEAR_AGREEMENT.search(joined):
        disagree = None  # "Hmm. I think I can do that."
    if agree and re.search(r"\bno deal\b|\bnot (a )?deal\b", joined):
        agree = None
    if agree and re.search(r"\bbut\b", joined[agree.end():]):
        return False, True
    return bool(agree) and not disagree, bool(disagree)


# ---------------------------------------------------------------------------- proposals

_ME, _YOU = "me", "you"
_SUBJECT_ME = {"i", "we", "me", "us", "myself", "ourselves"}
_SUBJECT_YOU = {"you", "u", "yourself", "ya"}
_AUX = {"can", "could", "would", "will", "ll", "d", "should", "may", "might", "to", "just", "then", "also", "do", "get", "go", "shall", "m", "am", "are", "re",
        "actually", "really", "definitely", "still", "only", "probably", "certainly", "truly", "totally", "absolutely", "kinda", "gladly",
        "happily", "be", "love", "was", "is", "ideally", "personally", "at", "least", "willing", "able", "going", "gonna", "trying", "were",
        "guys", "folks", "all"}
_TAKE_VERBS = {"get", "take", "keep", "have", "grab", "receive", "gets", "takes", "keeps", "having", "getting", "taking",
               "keeping", "walk", "end", "want", "need", "like", "prefer", "wants", "needs", "claim", "had", "kept", "got", "gettin", "takin", "accept", "settle", "took", "receiving", "snag"}
_GIVE_VERBS = {"give", "gives", "send", "leave", "let", "offer", "hand", "allow", "spare", "giving", "leaving", "offering", "sending", "gave", "leaves"}
_ME_PHRASES: dict[tuple[str, ...], int] = {
    ("insist", "on"): 2, ("hoping", "for"): 2, ("hoping", "to", "get"): 3, ("hoping", "to", "take"): 3, ("hoping", "to", "have"): 3,
    ("happy", "with"): 2, ("fine", "with"): 2, ("ok", "with"): 2, ("okay", "with"): 2, ("good", "with"): 2, ("preference", "is"): 2,
    ("ask", "for"): 2, ("dead", "set", "on"): 3, ("set", "on"): 2, ("gives", "me"): 2, ("that", "leaves", "me"): 3, ("leaves", "me"): 2,
    ("can", "i", "have"): 3, ("can", "i", "get"): 3, ("can", "i", "take"): 3, ("could", "i", "have"): 3, ("could", "i", "get"): 3,
    ("could", "i", "take"): 3, ("may", "i", "have"): 3, ("i", "propose"): 2, ("survive", "with", "less", "than"): 4, ("do", "with", "less", "than"): 4,
    ("with", "less", "than"): 3, ("able", "to", "have"): 3, ("able", "to", "get"): 3, ("able", "to", "take"): 3, ("make", "do", "with"): 3,
    ("i", "do", ":"): 3, ("could", "go"): 2, ("my", "taking"): 2, ("my", "getting"): 2, ("requesting",): 1, ("request",): 1, ("i", "can", "do", "with"): 4, ("i", "could", "do", "with"): 4, ("in", "exchange", "for"): 3, ("in", "return", "for"): 3,
}
"""Phrases after which the items named go to the speaker ("I insist on 2 firewood", "hoping for two water")."""
_YOU_PHRASES: dict[tuple[str, ...], int] = {
    ("what", "you", "want", "is"): 4, ("what", "you", "need", "is"): 4, ("so", "you", "want"): 3, ("you", "would", "like"): 3,
}
"""Phrases after which the items named go to the partner ("so what you want is 2 more firewood")."""
_KEEP_VERBS = ("give", "part", "spare", "share", "let", "offer", "trade", "budge")
"""Giving verbs that, negated, keep the item with the speaker ("I won't part with any firewood")."""
_TRADE_VERBS = {"trade", "swap", "exchange", "forfeit", "relinquish", "surrender"}
_POSTFIX = {"for", "to"}
_WISH_VERBS = {"want", "need", "like", "prefer", "wants", "needs"}
_KEEP = "keep"
"""A negated giving: the items named stay with the speaker, all of them when no count is given."""
_IMPERATIVE_OPENERS = {"fine", "ok", "okay", "then", "just", "please", ",", ".", "!", "so", "sure", "alright", "go", "ahead", "and"}
STALE_AFTER = 6
"""Tokens after which a recipient no longer governs an item ("I get ... <6 words> ... 2 food")."""
_REST = {"rest", "remainder", "everything", "others", "leftover", "leftovers"}


def _recipient_marker(tokens: list[str], i: int) -> tuple[str | None, int, bool]:
    """(recipient, tokens consumed, postfix?) if a recipient marker starts at token i."""
    t = tokens[i]
    nxt = tokens[i + 1] if i + 1 < len(tokens) else ""
    for phrase, length in _ME_PHRASES.items():
        if tuple(tokens[i : i + length]) == phrase:
            if phrase[-1] == "with" and i + length < len(tokens) and tokens[i + length] in {"you", "your", "that", "this", "it", "u"}:
                break  # "okay with your group taking all 3 food" is about the partner's share
            if phrase[0] not in {"i", "can", "could", "may", "in"} and any(w in _SUBJECT_YOU for w in tokens[max(0, i - 3) : i]):
                break  # "would you be okay with 3 water" asks about the partner's share
            return _ME, length, False
    for phrase, length in _YOU_PHRASES.items():
        if tuple(tokens[i : i + length]) == phrase:
            return _YOU, length, False
    if t == "your" and nxt in {"group", "family", "side", "camp", "team", "crew", "kids"} and i + 2 < len(tokens) and tokens[i + 2] in _TAKE_VERBS:
        return _YOU, 3, False  # "your group taking all 3 food"
    if t in {"like", "love", "prefer"} and i >= 1 and tokens[i - 1] in {"would", "d"} and (i < 2 or tokens[i - 2] not in _SUBJECT_YOU):
        return _ME, 1, False  # "... and would like to have 3 firewoods"
    if t in {"not", "never"} and nxt in _KEEP_VERBS:
        # "I can't give you any of the water", "I won't part with any firewood": the speaker keeps it
        j = i + 2
        while j < len(tokens) and tokens[j] in {"with", "up", "you", "u", "away", "go", "of", "on"} and j - i <= 4:
            j += 1
        return _KEEP, j - i, False
    if t == "let" and nxt == "me" and i + 2 < len(tokens) and tokens[i + 2] in {"know", "see", "think", "check", "ask", "explain", "tell"}:
        return None, 0, False  # "let me know" gives nothing
    if t in _TRADE_VERBS and nxt not in _SUBJECT_ME and (i == 0 or tokens[i - 1] not in _SUBJECT_YOU):
        return _YOU, 2 if nxt in _SUBJECT_YOU else 1, False  # "I'd like to trade 3 firewood for 3 waters": what follows is given
    if t in _SUBJECT_YOU and nxt in NUMBER_WORDS and nxt not in {"a", "an", "all", "every", "both"} and i > 0 and tokens[i - 1] in {"and", ","}:
        return _YOU, 1, False  # "2 water for me and you 1 water"
    # give/send/leave/let + me|you : the object receives
    if t in _GIVE_VERBS:
        if nxt in _SUBJECT_ME:
            return _ME, 2, False
        if nxt in _SUBJECT_YOU:
            return _YOU, 2, False
    # postfix: "2 water for me", "the rest to you"
    if t in _POSTFIX and nxt in (_SUBJECT_ME | _SUBJECT_YOU | {"yourself", "myself"}):
        return (_ME if nxt in _SUBJECT_ME else _YOU), 2, True
    if t in {"mine", "yours"}:
        return (_ME if t == "mine" else _YOU), 1, True
    # subject + (aux)* + take-verb
    if t in _SUBJECT_ME or t in _SUBJECT_YOU:
        j = i + 1
        while j < len(tokens) and tokens[j] in _AUX and j - i <= 3:
            if tokens[j] == "get" and j + 1 < len(tokens) and tokens[j + 1] not in {"to"}:
                break
            j += 1
        if j < len(tokens) and tokens[j] in _TAKE_VERBS:
            if t in _SUBJECT_YOU and tokens[j] in _WISH_VERBS:
                return None, 0, False  # "are you sure you need 2 food?" asks, it does not give
            if any(tokens[k] in {"not", "never"} for k in range(i + 1, j)):
                return None, 0, False  # "I don't need 3 water" proposes nothing
            return (_ME if t in _SUBJECT_ME else _YOU), j - i + 1, False
        if j < len(tokens) and tokens[j] in _GIVE_VERBS:
            # "i give you 2 food": the giver's object receives; handled when the give verb is reached
            return None, 0, False
    if t in {"take", "have", "keep", "grab"} and (i == 0 or tokens[i - 1] in _IMPERATIVE_OPENERS):
        return _YOU, 1, False  # "fine, take all the water"
    if t in {"my", "your"} and nxt in {"share", "side", "end", "part"}:
        return (_ME if t == "my" else _YOU), 2, False
    return None, 0, False


def _count_before(tokens: list[str], i: int, start: int) -> int | None:
    """The count written just before the item at token i (skipping `packages of the`)."""
    j = i - 1
    skipped = 0
    while j >= start and tokens[j] in FILLER and skipped < 4:
        j -= 1
        skipped += 1
    if j < start:
        return None
    word = tokens[j]
    if word in {"a", "an"} and skipped > 1:
        return None
    if word == "no" and skipped == 0:
        return 0
    if word == "couple" and j - 1 >= start and tokens[j - 1] == "a":
        return 2
    if word in NUMBER_WORDS:
        if word == "both":
            return None
        # "the whole food" / "all the water" / "all 3 water"
        if word in {"1", "2", "3", "one", "two", "three"} and j - 1 >= start and tokens[j - 1] in {"all"}:
            return 3
        return NUMBER_WORDS[word]
    if word == "most":
        return 2  # "most of the water"
    return None


def _count_after(tokens: list[str], i: int) -> int | None:
    """A count written after the item: `water: 2`, `firewood = 3`, `water x2`."""
    j = i + 1
    if j < len(tokens) and tokens[j] in {":", "=", "-", "x"}:
        j += 1
    if j < len(tokens) and tokens[j] in {"0", "1", "2", "3"}:
        if j + 1 < len(tokens) and issue_of_word(tokens[j + 1]):
            return None  # "water 2 food" is ambiguous: the 2 belongs to food
        return int(tokens[j])
    return None


_THE = -1
"""A pending item named with `the` and no count: all of it, if a postfix marker (`is all yours`) gives it."""
_OPENERS = {"how about", "what about", "maybe", "maybe i", "perhaps", "so", "ok so", "okay so", "then", "ok how", "okay how", "how bout"}
"""Sentence openings of a proposal that names no recipient: the items are the speaker's own ask."""
_FIRE_WORDS = {"fire", "fires", "campfire", "campfires", "bonfire"}
_VAGUE = re.compile(r"\b(one of us|either of us|whoever|one person|the other person)\b")


def _vague_sentence(tokens: list[str], start: int) -> bool:
    """Whether the sentence from `start` splits without saying who gets what ("one of us gets 2 food")."""
    end = start
    while end < len(tokens) and tokens[end] not in {".", "!", "?", ";", "\n"}:
        end += 1
    return bool(_VAGUE.search(" ".join(tokens[start:end])))


def _proposal(tokens: list[str]) -> dict[str, int | None] | None:
    """The speaker's share per issue from the split the text describes, or None if it describes none."""
    assigned: dict[str, dict[str, int]] = {_ME: {}, _YOU: {}}
    rest_for: str | None = None
    each_for: tuple[str, int] | None = None
    recipient: str | None = None
    pending: list[tuple[str, int | None]] = []  # items seen before any recipient in this clause
    last_issue: str | None = None
    last_count: int | None = None
    sentence_start = 0
    anchor = 0
    i = 0
    found = False

    def assign(who: str, items: list[tuple[str, int | None]], *, postfix: bool = False) -> None:
        nonlocal found
        for issue, count in items:
            if count == _THE:
                count = PACKAGES_PER_ISSUE if postfix else None  # "the firewood is all yours"
            if count is None:
                continue
            assigned[who][issue] = count
            found = True

    marked = False  # a recipient was named in this sentence
    wish = False  # the recipient came with "need"/"want": "I need the water" states a need, not a count
    either = False  # inside "either the food or the water": no definite count
    vague = _vague_sentence(tokens, 0)
    while i < len(tokens):
        t = tokens[i]
        if t in {".", "!", "?", ";", "\n"}:
            if pending and not marked and " ".join(tokens[sentence_start : sentence_start + 2]) in _OPENERS:
                assign(_ME, pending)  # "maybe 2 firewood, 2 water and a food?": the speaker's own ask
            recipient, pending, sentence_start, either, marked = None, [], i + 1, False, False
            vague = _vague_sentence(tokens, i + 1)
            i += 1
            continue
        if vague:
            i += 1
            continue
        if t == "either" or (t == "or" and either):
            either = True
            i += 1
            continue
        if t == "for" and recipient == _YOU and i + 1 < len(tokens) and tokens[i + 1] not in (_SUBJECT_ME | _SUBJECT_YOU):
            ahead = tokens[i + 1 : i + 4]
            if any(issue_of_word(w) or w in NUMBER_WORDS or w == "your" for w in ahead):
                recipient, anchor = _ME, i + 1  # "I'll give you 3 firewood for 2 water": what comes back is the speaker's
                i += 1
                continue
        if t in {"me", "you"} and recipient is None and pending and i >= 1 and issue_of_word(tokens[i - 1]):
            assign(_ME if t == "me" else _YOU, pending)  # "3 wood 2 food me, 1 food 3 water you"
            pending = []
            i += 1
            continue
        who, used, postfix = _recipient_marker(tokens, i)
        if who is not None:
            marked = True
            if postfix:
                # "2 water for me": the marker gives the items just before it, and no later ones
                assign(who, pending, postfix=True)
                pending = []
                recipient = None  # "3 firewood for me, 3 water for you": each list has its own recipient
            else:
                recipient = who
                wish = tokens[i + used - 1] in _WISH_VERBS
                pending = []
            i += used
            anchor = i
            continue
        issue = issue_of_word(t)
        if issue is not None:
            if recipient is not None and i - anchor > STALE_AFTER:
                recipient = None  # "i have a fast metabolism and get shaky if i skip a meal" is no proposal
            count = _count_before(tokens, i, sentence_start)
            if count == 1 and tokens[i - 1] in {"a", "an"} and (recipient is None or i - anchor > 3) and not (i >= 2 and tokens[i - 2] in {"and", ","} and last_count is not None):
                count = None
            if count is None:
                count = _count_after(tokens, i)
            if count is None and i >= 1 and tokens[i - 1] == "the" and recipient is not None and not wish:
                count = PACKAGES_PER_ISSUE  # "you can have the food": all of it
            if count is None and last_count == PACKAGES_PER_ISSUE and i >= 1 and tokens[i - 1] in {"and", ",", "&"}:
                count = PACKAGES_PER_ISSUE  # "all the water and food"
            if t in _FIRE_WORDS and (i == 0 or tokens[i - 1] not in {"0", "1", "2", "3", "one", "two", "three", "all", "the"}):
                count = None  # "have a fire each night" is no count of firewood
            if either:
                count = None
            if recipient == _KEEP:
                between = tokens[anchor:i]
                if not any(w in {"all", "0", "1", "2", "3", "one", "two", "three", "most", "extra", "more", "additional"} for w in between):
                    assign(_ME, [(issue, PACKAGES_PER_ISSUE)])  # "I can't give you any of the water"
                last_issue, last_count = issue, None
                i += 1
                continue
            if count is None:
                last_issue, last_count = issue, None  # "Firewood would be, 2 for you, 1 for me"
            if count is not None:
                last_issue, last_count = issue, count
                if recipient is not None:
                    anchor = i
                    assign(recipient, [(issue, count)])
                else:
                    pending.append((issue, count if count is not None or tokens[i - 1] != "the" else _THE))
            i += 1
            continue
        # a bare count standing for the last item: "2 water for me and 1 for you"
        if t in {"0", "1", "2", "3", "one", "two", "three", "none"} and last_issue is not None and i >= 1 and tokens[i - 1] in {",", "and", "&", "then", ":", "with", "be", "is"}:
            nxt = tokens[i + 1] if i + 1 < len(tokens) else ""
            if not issue_of_word(nxt) and (nxt not in FILLER or nxt in _POSTFIX) and nxt not in {"of"}:
                who2, _, postfix2 = _recipient_marker(tokens, i + 1) if i + 1 < len(tokens) else (None, 0, False)
                if who2 is not None and postfix2:
                    assign(who2, [(last_issue, NUMBER_WORDS[t])])
                    i += 3
                    continue
        if t in _REST and recipient in (_ME, _YOU) and (t == "everything" or tokens[i - 1] in {"the", "all"}) and (t != "others" or tokens[i - 2 : i] == ["all", "the"]) and not (i >= 3 and tokens[i - 2] == "of" and tokens[i - 3] in NUMBER_WORDS):
            rest_for = recipient  # "... and you get the rest / everything else / the others"
            found = True
        if t == "each" and i >= 2 and tokens[i - 1] == "of" and tokens[i - 2] in NUMBER_WORDS and recipient in (_ME, _YOU):
            each_for = (recipient, NUMBER_WORDS[tokens[i - 2]])
            found = True
        i += 1
    if not found:
        return None
    share: dict[str, int | None] = {}
    for issue in ISSUES:
        mine, yours = assigned[_ME].get(issue), assigned[_YOU].get(issue)
        if mine is not None:
            share[issue] = mine
        elif yours is not None:
            share[issue] = PACKAGES_PER_ISSUE - yours
        elif each_for is not None:
            who, n = each_for
            share[issue] = n if who == _ME else PACKAGES_PER_ISSUE - n
        elif rest_for is not None:
            share[issue] = PACKAGES_PER_ISSUE if rest_for == _ME else 0
        else:
            share[issue] = None
    if all(v is None for v in share.values()):
        return None
    return share


# ---------------------------------------------------------------------------- needs

_CUES: list[tuple[str, float]] = [
    (r"(useless|no use|of no use|pointless|worthless|not useful|not much use)", -3),
    (r"(kinda|kind of|really|sort of|totally)? ?(my|our) (thing|jam|bag|game|deal|focus|go to)", 3),
    (r"(need|want|make sure)( \w+){0,3} (have |get )?enough", 2.5),
    (r"(not|never) (bring|brought|have|pack|packed|carry|carrying|get|got|find|found) (enough|any|much)", 3),
    (r"(can not|could not|not) (give up|part with|spare|share|budge on|do without|go without)( any| on)?", 3),
    (r"(much|great|big|real|serious|dire) need (for|of)|dead set on|(can not|could not|not) (be|live|survive|go|do|manage) without", 3),
    (r"(wiggle room|flexible|flexibility|negotiate|bend|compromise)( a little| a bit)?( on| with)?", -2),
    (r"willing to (give up|part with|spare|give away|let go of|trade away)", -3),
    (r"you can (have|take|keep) as (much|many)", -3),
    # low: longest phrases first so "not need much" wins over "need"
    (r"(do|does|did) not (really |actually |even )?(need|want|require|use|care about)( that| as)?( much| many| a lot| any| more)?", -3),
    (r"(do|does) not (really |actually )?(need|want|require)", -3),
    (r"not (really |that |very |as |so |too )?(important|needed|necessary|essential|crucial|a priority|a big deal|a concern|an issue|a problem|a need|much of a need)", -3),
    (r"(is|are) not (really |that |very |a )?(big )?(deal|concern|priority|issue)", -3),
    (r"(?<!at )(least|lowest|last|bottom)( priority| important| concern| on my list)?", -3),
    (r"(low|lower|lowest) (priority|on (my|the) list)", -3),
    (r"(least|less) (important|needed|necessary|of a priority)", -3),
    (r"(can|could|would|will) (easily |happily |definitely |probably |totally )?(spare|give up|part with|do without|go without|live without|skip|share|let go)", -3),
    (r"no need (for|of)", -3),
    (r"(have|got|brought|packed|carry|carrying|own|bought) (plenty|enough|lots|a lot|tons|loads|more than enough|extra|some|our own|my own)", -3),
    (r"(plenty|enough|more than enough|tons|loads) of", -2),
    (r"already (have|got|brought|packed|stocked|bought)", -3),
    (r"(do|does) not (matter|care)|not (worried|concerned|bothered) about|not much|not many|not a lot|barely|hardly", -2),
    (r"(i am|we are|we re|i m|am|are) (good|fine|set|ok|okay|covered) (on|with|for)", -3),
    (r"you can (have|take|keep) (all|the|it|them|most)", -2),
    (r"(less|fewer)", -1.5),
    # high
    (r"(top|highest|main|biggest|first|number one|primary|most important) (priority|need|concern|choice|thing|item)", 3),
    (r"(my|our) (top|highest|main|biggest|first|number one|primary)( priority| need| concern| pick| choice)?", 3),
    (r"as (much|many)( \w+)? as (possible|i can|we can|you can spare)", 3),
    (r"most important|matters most|the most|need most|most of all|above all|more than anything|really really|top of (my|the) list|priority number one|number one|first priority|first choice", 3),
    (r"(really|badly|desperately|definitely|seriously|absolutely|truly|especially|urgently|dearly) (need|needs|want|require|could use|would like|hoping|hope)", 3),
    (r"(need|want|require)s? (it |them |that |some |this )?(badly|desperately|the most|more|a lot|so much)", 3),
    (r"(can not|could not|not) (live|survive|go|do|manage) without", 3),
    (r"(badly|desperately|urgently)", 3),
    (r"(crucial|critical|essential|vital|necessary|important|priority|a must|must have|necessity)", 2),
    (r"(need|use|go through|drink|eat|burn) (a lot|lots|plenty|tons|loads|extra|more)", 3),
    (r"(running|ran|run) (low|out|short)|short on|out of|lost (all|most|our|my)|low on", 3),
    (r"(worried|concerned|nervous|anxious) about|afraid of running", 2),
    (r"(second|middle|medium|moderate|next|somewhat|a little|a bit|kind of|sort of|then)", 1),
    (r"(need|needs|want|wants|require|could use|would like|would love|hoping for|looking for|love|prefer|like)", 1.5),
    (r"(more|extra|additional)", 1),
]
_CUE_PATTERNS = [(re.compile(r"\b" + pattern + r"\b"), weight) for pattern, weight in _CUES]
ORDINALS: dict[str, float] = {"first": 3.0, "top": 3.0, "second": 1.0, "middle": 1.0, "next": 1.0, "third": -3.0, "last": -3.0, "least": -3.0, "bottom": -3.0}
"""Ranks in short clauses ("water first", "food last") read as priority levels."""
_NEGATORS = re.compile(r"\b(not|no(?! (i|we)\b)|never|hardly|without)\b")
_ABOUT_PARTNER = re.compile(r"^(?:.* )?(you|your|u)\b")
_SPLITTERS = {",", "but", "and", "while", "whereas", "though", "although", "however", "so", "because", "since", "&", "plus", "also", ":", "if"}
_JOINERS = {"and", "but", "so", "if", "because", "that", "then", "when", "as", "since", "what", "than", "do", "can", "could", "would",
            "should", "will", "may", "might", "how", "about", "where", "which", "who", "did", "does", "am", "think", "guess", "hope"}
"""Words after which `I` continues a clause; after any other word it starts a new one ("I don't need firewood i prefer food")."""


def _clauses(sentence: list[str]) -> list[list[str]]:
    out: list[list[str]] = [[]]
    for t in sentence:
        if t in {"i", "we"} and len(out[-1]) >= 3 and out[-1][-1] not in _JOINERS:
            out.append([])
        if t in _SPLITTERS:
            if out[-1]:
                out.append([])
            if t in {"also"}:
                out[-1].append(t)
        elif t not in {".", "!", "?", ";"}:
            out[-1].append(t)
    return [c for c in out if c]


def _cue_score(clause_text: str) -> float | None:
    """The strongest cue in a clause (negation flips a positive cue), or None if no cue."""
    taken: list[tuple[int, int]] = []
    best: float | None = None
    for pattern, weight in _CUE_PATTERNS:
        for match in pattern.finditer(clause_text):
            if any(match.start() < end and start < match.end() for start, end in taken):
                continue
            taken.append((match.start(), match.end()))
            value = weight
            if weight > 0:
                before = clause_text[max(0, match.start() - 18): match.start()]
                if _NEGATORS.search(before):
                    value = -min(weight, 2.5)
            if best is None or abs(value) > abs(best) or (abs(value) == abs(best) and value < 0):
                best = value
    return best


_COMPARE = [
    # (pattern, which group is preferred)
    (re.compile(r"\b(\w+) (is |are )?(more|much more|way more|a lot more) (important|needed|necessary|of a priority|valuable)? ?(to me |for me |for us |to us )?than (the )?(\w+)"), (1, 7)),
    (re.compile(r"\b(need|want|value|prefer|like) (the )?(\w+) (much |a lot |way )?more than (the )?(\w+)"), (3, 6)),
    (re.compile(r"\bmore (\w+) than (the )?(\w+)"), (1, 3)),
    (re.compile(r"\b(prefer|rather have|rather take|rather get|choose) (the )?(\w+) (over|to|than|instead of) (the )?(\w+)"), (3, 6)),
    (re.compile(r"\b(\w+) (over|before|instead of|rather than) (the )?(\w+)"), (1, 4)),
    (re.compile(r"\b(\w+) (is |are )?(less|not as) (important|needed|necessary|of a priority)? ?(to me |for me |for us |to us )?(than|as) (the )?(\w+)"), (8, 1)),
    (re.compile(r"\b(need|want) (the )?(\w+) less than (the )?(\w+)"), (5, 3)),
    (re.compile(r"\bless (\w+) than (the )?(\w+)"), (3, 1)),
]
_RANKING_WORDS = re.compile(r"\b(then|followed|priorit\w*|order|rank\w*|first|second|third|last|after|>)\b|>")


_ASK_ME = re.compile(
    r"\b((could|can|may|might) (i|we) (get|have|take|ask for)|ask for|asking for|hoping for|(throw|toss|add|put) in|(throw|toss|add)( \w+){0,3} in)"
    r"(?:(?! either)(?! or) \w+){0,5}? (?P<item>food|water|firewood|wood)\b"
)
_FOR_ME_ITS = re.compile(r"\bfor (me|us),? (it s|its|it is|that s|thats|that is|it would be|it d be)( definitely| probably| really)? (the )?(?P<item>\w+)")
_ASK_FOR = re.compile(r"\b(do|would|could|can|will) you (happen to )?(have|spare|give me|part with|share)( any| some| extra| a little| a bit of| one| 1)? (?P<item>\w+)")
_TRADE = re.compile(r"\b(trade|swap|exchange|give) (you )?(\w+ )?(of )?(the )?(?P<given>\w+) (for|in exchange for|in return for) (\w+ )?(of )?(the |your )?(?P<wanted>\w+)")


def _read_sentence_needs(sentence: list[str], reading: Reading) -> None:
    text = " ".join(sentence)
    for match in _FOR_ME_ITS.finditer(text):
        issue = issue_of_word(match.group("item"))
        if issue:
            reading.needs[issue] = reading.needs.get(issue, 0.0) + 3.0  # "for us its the firewood"
    for match in _ASK_ME.finditer(text):
        issue = issue_of_word(match.group("item"))
        if issue:
            reading.needs[issue] = reading.needs.get(issue, 0.0) + 1.5  # "could I get a little extra food"
    for match in _ASK_FOR.finditer(text):
        issue = issue_of_word(match.group("item"))
        if issue:
            reading.needs[issue] = reading.needs.get(issue, 0.0) + 1.5  # "would you have any firewood?"
    for match in _TRADE.finditer(text):
        given, wanted = (issue_of_word(w) or issue_of_word(w.rstrip("s")) for w in (match.group("given"), match.group("wanted")))
        if given and wanted and given != wanted:
            reading.prefers.append((wanted, given))  # "i can trade you 3 waters for 3 woods"
            reading.needs[wanted] = reading.needs.get(wanted, 0.0) + 1.5
            reading.needs[given] = reading.needs.get(given, 0.0) - 1.5
    if "?" in sentence and _ABOUT_PARTNER.search(text) and not re.search(r"\b(i|we|my|our|me|us)\b", text):
        return  # a question about the partner ("do you need water?") says nothing about the speaker
    pairs = _comparisons(text)
    if pairs:
        reading.prefers.extend(pairs)
        for more, less in pairs:
            reading.needs[more] = reading.needs.get(more, 0.0) + 1.0
            reading.needs[less] = reading.needs.get(less, 0.0) - 1.0
        return
    ranking = _ranking(sentence, text)
    if ranking:
        for k, issue in enumerate(ranking):
            reading.needs[issue] = reading.needs.get(issue, 0.0) + (2.0, 0.5, -2.0)[k]
        reading.prefers.extend((ranking[a], ranking[b]) for a in range(3) for b in range(a + 1, 3))
        return
    carried: list[str] = []
    last_issues: list[str] = []
    for clause in _clauses(sentence):
        clause_text = " ".join(clause)
        if re.match(r"^(you|your|u|do you|would you|can you|could you|are you|will you|if you)\b", clause_text) and not re.search(r"\byou can (have|take|keep)\b", clause_text):
            # about the partner ("you seem to need water", "if you need food ...")
            carried = []
            continue
        issues = [i for t in clause if (i := issue_of_word(t))]
        issues = list(dict.fromkeys(issues))
        score = _cue_score(clause_text)
        if len(clause) <= 5 and len(issues) == 1:
            ordinal = next((ORDINALS[t] for t in clause if t in ORDINALS), None)
            if ordinal is not None and (score is None or abs(score) < 3):
                score = ordinal  # "water first, firewood second and food last"
        if not issues:
            if score is not None and re.search(r"\b(it|that|them|those|this|these)\b", clause_text) and last_issues:
                issues = last_issues
            elif score is not None and carried:
                issues = carried
            else:
                implicit = list(dict.fromkeys(IMPLICIT_WORDS[t] for t in clause if t in IMPLICIT_WORDS))
                if len(implicit) == 1:
                    weight = 1.0 if score is None or score > 0 else -1.0
                    reading.needs[implicit[0]] = reading.needs.get(implicit[0], 0.0) + weight
                continue
        if score is None:
            # "food and water are important": a bare list of items takes the cue that follows
            carried = carried + issues if len(clause) <= 3 and not any(t in NUMBER_WORDS for t in clause) else []
            last_issues = issues
            continue
        for issue in list(dict.fromkeys(carried + issues)):
            reading.needs[issue] = reading.needs.get(issue, 0.0) + score
        carried = []
        last_issues = issues


def _comparisons(text: str) -> list[tuple[str, str]]:
    pairs: list[tuple[str, str]] = []
    for pattern, (more_group, less_group) in _COMPARE:
        for match in pattern.finditer(text):
            more = issue_of_word(match.group(more_group) or "")
            less = issue_of_word(match.group(less_group) or "")
            if more and less and more != less and (more, less) not in pairs:
                pairs.append((more, less))
        if pairs:
            break
    return pairs


def _ranking(sentence: list[str], text: str) -> list[str] | None:
    """A full ranking when a sentence lists all three items in order ("water, then food, then firewood")."""
    order = list(dict.fromkeys(i for t in sentence if (i := issue_of_word(t))))
    if len(order) != 3 or not _RANKING_WORDS.search(text):
        return None
    if re.search(r"\b(least|lowest|last|bottom|not|don|low)\b", text):
        # "firewood is least, water first": let the clause cues decide, unless "last" closes a list
        if not re.search(r"\b(and|then) (lastly|last|finally)\b|\blast(ly)? (is |would be )?(\w+)\s*[.!]?$", text):
            return None
    return order

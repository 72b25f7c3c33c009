"""What a listener understands of one free-text chat message, without any model.

Kept apart from the agent that talks, so other agents can reuse it and its accuracy can be
measured on its own. It reads:

* feelings: the ED emotions a message expresses, from the cue words in `emotions.json`, with
  an intensity (1 mild, 2 plain, 3 strong) raised by boosters (`so`, `really`, `soooo`, `!`,
  CAPITALS) and lowered by softeners (`a bit`, `kinda`), and with negation (`not happy`,
  `wasn't worried`, `no longer angry`; but `couldn't be happier` is strong joy). Common typos of
  cue words (`anxous`, `greatful`, `dissapointed`) are matched by spelling similarity;
* content phrases: what the message is about (`my old school photos`, `the interview`), picked
  by determiners, capitals and stop words, best first;
* whether it is a question, and whether it asks the listener about itself;
* thanks, greetings and goodbyes;
* its style: length in words, exclamation and question marks, emoji, lowercase-only writing,
  final punctuation (what an `aligned` bot mirrors).
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from functools import lru_cache

from duologue.tasks.openchat.settings import emotions

# --------------------------------------------------------------------------- words

_CONTRACTIONS = [
    (re.compile(r"\bcan[’']?t\b"), "can not"),
    (re.compile(r"\bcannot\b"), "can not"),
    (re.compile(r"\bwon[’']?t\b"), "will not"),
    (re.compile(r"\bain[’']?t\b"), "is not"),
    (re.compile(r"\b(\w+)n[’']t\b"), r"\1 not"),
    (re.compile(r"\b(do|does|did|is|are|was|were|have|has|had|could|would|should)nt\b"), r"\1 not"),
    (re.compile(r"\bi[’']?m\b"), "i am"),
]
_TOKEN = re.compile(r"[a-z]+(?:[’'][a-z]+)?|[.!?;,:]|\.\.\.")
_ELONGATED = re.compile(r"([a-z])\1{2,}")
BOUNDARIES = frozenset({".", "!", "?", ";", ",", ":", "...", "but", "though", "although", "however", "and"})
NEGATORS = frozenset({"not", "no", "never", "hardly", "barely", "nothing", "without", "neither", "nor"})
BOOSTERS = frozenset({"so", "really", "very", "extremely", "super", "incredibly", "totally", "truly", "absolutely", "deeply", "terribly", "awfully", "completely", "utterly", "insanely", "seriously", "beyond", "such"})
SOFTENERS = frozenset({"bit", "little", "slightly", "somewhat", "kinda", "sorta", "mildly", "fairly", "rather", "partly", "kind", "sort"})
_NEGATION_REACH = 4
"""How many words before a cue a negator still negates it (`not feeling that happy`)."""
_FUZZY_CUTOFF = 0.84
_FUZZY_MIN_LENGTH = 5


def normalize(text: str) -> str:
    """Lowercase text with contractions spelled out (`can't` -> `can not`, `wasn't` -> `was not`)."""
    lowered = text.lower().replace("’", "'")
    for pattern, replacement in _CONTRACTIONS:
        lowered = pattern.sub(replacement, lowered)
    return lowered


def tokens(text: str) -> list[str]:
    """Lowercase words and punctuation marks of `text`, contractions spelled out."""
    return _TOKEN.findall(normalize(text))


# --------------------------------------------------------------------------- feelings


@dataclass(frozen=True)
class Feeling:
    """One emotion a message expresses."""

    label: str
    """ED label of the cue (`Joyful` for `happy`), also when negated."""
    valence: str
    """The cue's own valence: `positive`, `negative` or `mixed`."""
    intensity: int
    """1 mild, 2 plain, 3 strong, after boosters, softeners and negation."""
    negated: bool
    cue: str
    """The cue as the lexicon spells it (`happy`, `fed up`)."""
    word: str
    """The words as the message spelled them (`hapy`, `soooo happy`)."""

    @property
    def felt_valence(self) -> str:
        """What the person feels: `not happy` is negative, `not worried` positive."""
        if not self.negated or self.valence == "mixed":
            return self.valence
        return "negative" if self.valence == "positive" else "positive"


@dataclass(frozen=True)
class _Cue:
    words: tuple[str, ...]
    label: str
    valence: str
    intensity: int


@lru_cache(maxsize=None)
def _lexicon() -> dict[str, list[_Cue]]:
    """First word of each cue -> the cues starting with it (longest first)."""
    by_first: dict[str, list[_Cue]] = {}
    for emotion in emotions():
        for phrase, intensity in emotion.cues.items():
            words = tuple(w for w in tokens(phrase) if w not in BOUNDARIES or w == "and")
            by_first.setdefault(words[0], []).append(_Cue(words, emotion.label, emotion.valence, intensity))
    for cues in by_first.values():
        cues.sort(key=lambda c: -len(c.words))
    return by_first


@lru_cache(maxsize=None)
def _single_words() -> tuple[str, ...]:
    return tuple(w for w, cues in _lexicon().items() if any(len(c.words) == 1 for c in cues))


@lru_cache(maxsize=4096)
def _cue_word(word: str) -> tuple[str, bool]:
    """The lexicon word a written word stands for, and whether it was elongated (`sooo`).

    Tries the word, its de-elongated forms, comparatives (`happier`), then a near spelling.
    """
    lexicon = _lexicon()
    if word in lexicon:
        return word, False
    collapsed2 = _ELONGATED.sub(r"\1\1", word)
    collapsed1 = _ELONGATED.sub(r"\1", word)
    for candidate in (collapsed2, collapsed1):
        if candidate != word and candidate in lexicon:
            return candidate, True
    for suffix, replacement in (("ier", "y"), ("dder", "d"), ("er", ""), ("est", "")):
        if word.endswith(suffix) and word[: -len(suffix)] + replacement in lexicon:
            return word[: -len(suffix)] + replacement, False
    if len(collapsed1) >= _FUZZY_MIN_LENGTH and collapsed1 not in _COMMON_WORDS:
        close = difflib.get_close_matches(collapsed1, _single_words(), n=1, cutoff=_FUZZY_CUTOFF)
        if close:
            return close[0], collapsed1 != word
    return word, collapsed1 != word


def read_feelings(text: str) -> list[Feeling]:
    """Every emotion cue in `text`, in order, with its intensity and negation."""
    raw_tokens = _TOKEN.findall(normalize(text))
    mapped = [_cue_word(t) for t in raw_tokens]
    words = [m[0] for m in mapped]
    elongated = [m[1] for m in mapped]
    capitals = {w.lower() for w in re.findall(r"\b[A-Z]{3,}\b", text)}
    exclaimed = "!" in text
    lexicon = _lexicon()
    feelings: list[Feeling] = []
    position = 0
    while position < len(words):
        match = next((c for c in lexicon.get(words[position], ()) if tuple(words[position : position + len(c.words)]) == c.words), None)
        if match is None:
            position += 1
            continue
        end = position + len(match.words)
        before = _clause_before(words, position)
        negated, comparative_flip = _negation(before, raw_tokens[position], match)
        intensity = match.intensity
        if any(w in BOOSTERS for w in before[-2:]) or any(elongated[i] for i in range(max(0, position - 2), end)):
            intensity += 1
        if any(w in SOFTENERS for w in before[-2:]):
            intensity -= 1
        if exclaimed or any(w in capitals for w in raw_tokens[position:end]):
            intensity += 1
        if comparative_flip:
            intensity = 3
        elif negated:
            intensity -= 1
        feelings.append(Feeling(match.label, match.valence, max(1, min(3, intensity)), negated, " ".join(match.words), " ".join(raw_tokens[position:end])))
        position = end
    return feelings


def _clause_before(words: list[str], position: int) -> list[str]:
    """The words of the same clause just before `position` (at most `_NEGATION_REACH`)."""
    start = position
    while start > 0 and position - start < _NEGATION_REACH and words[start - 1] not in BOUNDARIES:
        start -= 1
    return words[start:position]


def _negation(before: list[str], written: str, cue: _Cue) -> tuple[bool, bool]:
    """(negated, strong_comparative): `not happy` is negated; `could not be happier` is strong joy."""
    if not any(w in NEGATORS for w in before) and not (len(before) >= 2 and before[-2:] == ["no", "longer"]):
        return False, False
    is_comparative = written != cue.words[0] and (written.endswith("er") or written.endswith("ier"))
    if is_comparative and "be" in before:
        return False, True
    return True, False


def main_feeling(text: str) -> Feeling | None:
    """The strongest feeling of a message (the later one on a tie), or None."""
    feelings = read_feelings(text)
    if not feelings:
        return None
    return max(reversed(feelings), key=lambda f: f.intensity)


# --------------------------------------------------------------------------- content phrases

DETERMINERS = frozenset({"my", "our", "his", "her", "their", "the", "a", "an", "this", "these", "your", "some"})
"""Words that open a noun phrase. Not `that`/`those`: they open clauses too often (`that stays`)."""
POSSESSIVES = frozenset({"my", "our", "his", "her", "their", "your"})
STOP_WORDS = frozenset(
    """
    i me you he she it we they him us them myself yourself itself ourselves themselves mine yours
    is am are was were be been being do does did done have has had having will would shall should
    can could may might must not no yes yeah yep nope ok okay oh well so very really just too also
    still even ever never always sometimes often again already yet then than there here now today
    tonight tomorrow yesterday when where why how what which who whom whose while if because since
    though although but and or nor for of to in on at by with about from into onto over under up down
    out off as like than after before during until upon around through across against between
    all any both each every few more most other some such only own same lot lots bit little kind sort much
    many one two three first last next get got gets getting go went goes going gone make made
    take took come came see saw seen know knew think thought feel felt feeling feelings say said tell told
    want wanted need needed keep kept find found give gave try tried start started look looked use used
    let put seem seemed leave left mean meant hope guess maybe probably actually basically literally
    pretty quite rather enough something anything nothing everything someone anyone everyone thing that
    those
    things stuff way time times day days week year years moment whole again back way ago lately
    wants loves likes hates needs says tells asks helps makes takes gives keeps thinks knows feels seems
    looks lives calls comes goes gets plays shows tries help move ask call show play stay live spend
    spent bring brought buy bought pay paid lose lost win won run ran eat ate sit sat stand stood meet
    met hear heard read write wrote talk talked remember forgot forget happened happen became become
    hi hello hey thanks thank please sorry wow haha lol hmm um uh yes sure right exactly definitely
    totally absolutely honestly seriously i'd i've i'll you're you've it's that's there's what's
    without within behind beyond among toward towards beside besides except unless whether via per along
    near inside outside throughout underneath instead anyway anymore later soon else almost
    love enjoy hate miss prefer adore watch learn visit travel study work worked works
    """.split()
)
PERSON_NOUNS = frozenset(
    """
    mom mother dad father parent parents brother sister sibling siblings son daughter kid kids child children baby
    wife husband partner boyfriend girlfriend fiance fiancee friend friends buddy neighbor neighbour neighbors
    roommate boss coworker colleague teacher doctor lawyer nurse coach grandma grandpa grandmother grandfather
    aunt uncle cousin nephew niece family landlord manager guy girl man woman lady kids students student
    """.split()
)
"""Nouns for people: a listener asks how a person is, not "the story behind" them."""
_GENERIC_NOUNS = frozenset({"thing", "things", "time", "day", "way", "lot", "bit", "something", "stuff", "people", "person", "place", "part", "mind", "head", "end", "point", "fact", "rest"})
"""Nouns too vague to ask about (`on my mind`, `the end`)."""
_CLITIC = re.compile(r"(n't|'re|'ve|'ll|'d|'m)$")
_WORD_SPAN = re.compile(r"[A-Za-z0-9][A-Za-z0-9'’-]*|[^\sA-Za-z0-9]")
_TITLE_DOT = re.compile(r"\b(Mr|Mrs|Ms|Dr|St|Prof)\.")
_SECOND_PERSON = {"my": "your", "our": "your", "mine": "yours", "me": "you", "i": "you", "myself": "yourself", "ourselves": "yourselves", "us": "you", "i'm": "you're", "am": "are"}
_MAX_PHRASE_WORDS = 4


@lru_cache(maxsize=None)
def _emotion_words() -> frozenset[str]:
    """Single-word emotion cues: feelings, not topics to ask about."""
    return frozenset(c.words[0] for cues in _lexicon().values() for c in cues if len(c.words) == 1)


def content_phrases(text: str) -> list[str]:
    """What a message talks about, best first (`my old school photos`, `Japan`, `the interview`).

    A phrase is a determiner or possessive followed by content words, a run of capitalised
    words inside a sentence (names), or a run of two or more content words.
    """
    spans = _WORD_SPAN.findall(_TITLE_DOT.sub(r"\1", text))
    scored: list[tuple[float, int, str]] = []
    i = 0
    sentence_start = True
    while i < len(spans):
        word = spans[i]
        lower = word.lower().replace("’", "'")
        if not word[0].isalnum():
            sentence_start = word in ".!?"
            i += 1
            continue
        if lower in DETERMINERS:
            run = _content_run(spans, i + 1)
            if run:
                phrase_words = [word] + spans[i + 1 : i + 1 + run]
                score = 3.0 if lower in POSSESSIVES else 2.0
                scored.append((score + 0.5 * run + 0.01 * i, i, " ".join(phrase_words)))
                i += 1 + run
                sentence_start = False
                continue
        run = _content_run(spans, i)
        if run:
            run_words = spans[i : i + run]
            capitalised = all(w[0].isupper() for w in run_words) and not (sentence_start and run == 1)
            if run >= 2 or capitalised:
                score = (2.0 if capitalised else 1.0) + 0.5 * run + 0.01 * i
                scored.append((score, i, " ".join(run_words)))
            i += run
        else:
            i += 1
        sentence_start = False
    scored.sort(key=lambda s: (-s[0], s[1]))
    seen: set[str] = set()
    phrases = []
    for _, _, phrase in scored:
        key = phrase.lower()
        if key not in seen:
            seen.add(key)
            phrases.append(phrase)
    return phrases


def _is_content_word(word: str, position_in_run: int) -> bool:
    lower = word.lower().replace("’", "'")
    if not word[0].isalnum() or lower in STOP_WORDS or lower in DETERMINERS or lower in _emotion_words():
        return False
    if _CLITIC.search(lower) or (lower.endswith("ly") and len(lower) > 4):
        return False
    # After the first word, a past-tense form or a gerund usually starts the verb phrase (`my sister
    # showed up`, `online without asking`): the phrase ends before it.
    return not (position_in_run > 0 and (lower.endswith("ed") or (lower.endswith("ing") and len(lower) > 5)))


def _content_run(spans: list[str], start: int) -> int:
    """How many content words start at `start` (at most `_MAX_PHRASE_WORDS`).

    A run that starts with a capital keeps to capitalised words (`New York City`, not
    `Volunteering popular`), and a lowercase run stops at a capitalised word.
    """
    count = 0
    capitalised = start < len(spans) and spans[start][:1].isupper()
    while start + count < len(spans) and count < _MAX_PHRASE_WORDS:
        word = spans[start + count]
        if not _is_content_word(word, count) or (count and word[:1].isupper() != capitalised):
            break
        count += 1
    if count and all(w.lower() in _GENERIC_NOUNS for w in spans[start : start + count]):
        return 0
    return count


def phrase_kind(phrase: str) -> str:
    """`person` when the phrase names someone (`my sister`, `a lawyer`), else `thing`."""
    words = [w.lower().strip(".,!?") for w in phrase.split()]
    return "person" if words and words[-1] in PERSON_NOUNS else "thing"


def second_person(phrase: str) -> str:
    """A phrase as the listener says it back: `my sister` -> `your sister`."""
    out = []
    for word in phrase.split():
        swapped = _SECOND_PERSON.get(word.lower())
        out.append(swapped if swapped is not None else word)
    return " ".join(out)


# --------------------------------------------------------------------------- acts and style

_QUESTION_STARTS = frozenset({"what", "why", "how", "when", "where", "who", "which", "do", "does", "did", "are", "is", "was", "were", "have", "has", "can", "could", "would", "will", "should", "shall", "any", "anything"})
_THANKS = re.compile(r"\b(thanks?|thank you|thx|ty|appreciate (it|that|you))\b")
_GREETING = re.compile(r"^\s*(hi|hello|hey|heya|good (morning|afternoon|evening)|howdy|yo)\b")
_FAREWELL = re.compile(r"\b(bye|goodbye|good night|goodnight|see you|see ya|talk (to you )?later|gotta go|have to go|take care)\b")
_EMOJI = re.compile(r"[\U0001F300-\U0001FAFF\u2600-\u27BF]|(?<!\w)(?::-?\)|:-?\(|:-?D|;-?\)|:-?P|<3|xD|XD|:'\()")


@dataclass(frozen=True)
class Style:
    """How a message is written (what an aligned bot mirrors)."""

    words: int
    sentences: int
    exclamations: int
    questions: int
    emoji: tuple[str, ...]
    lowercase: bool
    """Letters but no capitals at all (`omg that's great`)."""
    final_punctuation: bool
    ellipsis: bool


def read_style(text: str) -> Style:
    stripped = text.strip()
    emoji = tuple(_EMOJI.findall(stripped))
    without_emoji = _EMOJI.sub("", stripped).strip()
    letters = [c for c in stripped if c.isalpha()]
    return Style(
        words=len(re.findall(r"[A-Za-z0-9'’]+", stripped)),
        sentences=max(1, len(re.findall(r"[.!?]+(?:\s|$)", without_emoji))),
        exclamations=stripped.count("!"),
        questions=stripped.count("?"),
        emoji=emoji,
        lowercase=bool(letters) and not any(c.isupper() for c in letters),
        final_punctuation=bool(without_emoji) and without_emoji[-1] in ".!?",
        ellipsis="..." in stripped or "…" in stripped,
    )


def is_question(text: str) -> bool:
    """A question mark, or a sentence opening like one (`do you think so`)."""
    if "?" in text:
        return True
    words = tokens(text)
    return bool(words) and words[0] in _QUESTION_STARTS and len(words) > 2


def asks_listener(text: str) -> bool:
    """A question about the listener (`have you ever felt like that?`, `what do you think`)."""
    words = tokens(text)
    return is_question(text) and ("you" in words or "your" in words)


@dataclass(frozen=True)
class Understanding:
    """Everything the listener reads from one message."""

    text: str
    feelings: tuple[Feeling, ...]
    feeling: Feeling | None
    phrases: tuple[str, ...]
    question: bool
    asks_listener: bool
    thanks: bool
    greeting: bool
    farewell: bool
    style: Style
    words: tuple[str, ...] = ()


@lru_cache(maxsize=4096)
def understand(text: str) -> Understanding:
    """Read one message: feelings, what it is about, what kind of turn it is, and how it is written.

    Cached: a listener reads the whole transcript again at every turn. The result is frozen.
    """
    lowered = normalize(text)
    feelings = read_feelings(text)
    return Understanding(
        text=text,
        feelings=tuple(feelings),
        feeling=max(reversed(feelings), key=lambda f: f.intensity) if feelings else None,
        phrases=tuple(content_phrases(text)),
        question=is_question(text),
        asks_listener=asks_listener(text),
        thanks=bool(_THANKS.search(lowered)),
        greeting=bool(_GREETING.search(lowered)),
        farewell=bool(_FAREWELL.search(lowered)),
        style=read_style(text),
        words=tuple(t for t in tokens(text) if t[0].isalpha()),
    )


_COMMON_WORDS = frozenset(
    """
    about above after again against because before being below between could doing during further
    having other should their there these those through under until where which while would yours
    thing think thought little people really right still today tomorrow never always something
    nothing everything anything maybe about place places house later early water money years
    months weeks coworker friend friends family mother father sister brother parents school
    dinner lunch summer winter spring autumn morning evening night weekend travel trip hoped
    helped played stayed worked walked talked called moved waited exited sounds sound hopes
    """.split()
)
"""Everyday words near a cue word in spelling (`exited`, `hopes`) that are not typos of it."""

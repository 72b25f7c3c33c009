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
stream): it is meant to be read and tested on hand-written human-like lines.
`read(text, context=Context(...))` also takes the dialogue's earlier turns (`understanding_context`):
a count standing alone is then of the item under discussion ("Please let me have 2."), and a bare
swap ("3 packs of firewood for 3 food?") goes the way each side has said it leans.
They live beside this module: `understanding_words` (item names, typos, counts, normalising),
`understanding_markers` (who receives: "I'll take", "for you", "could you spare"),
`understanding_offers` and `understanding_clauses` (the split) and `understanding_needs` (cues, comparisons, rankings).
The split the rules find then gets a second look from a small learned model
(`understanding_learned`): trained on how the rules read real messages before they were tuned on
them, it fills issues the rules left open and replaces a share only when it is very sure; a
message the rules read no split in stays without one.
`benchmarks/bench_casino_selfplay.py` measures it on the real corpus: from each participant's own
messages it recovers the top issue about two times in three (chance: one in three).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from functools import lru_cache

from duologue.tasks.casino.rules import ISSUES
from duologue.tasks.casino.understanding_clauses import elided, swap_sides
from duologue.tasks.casino.understanding_context import Context, Hints, Turn, hints_of, with_own_needs
from duologue.tasks.casino.understanding_learned import revise
from duologue.tasks.casino.understanding_needs import _read_implied_first, _read_sentence_needs
from duologue.tasks.casino.understanding_offers import _proposal
from duologue.tasks.casino.understanding_words import (
    FILLER,
    IMPLICIT_WORDS,
    ISSUE_WORDS,
    NUMBER_WORDS,
    _tokens,
    issue_of_word,
    normalize,
)

__all__ = ["Context", "Turn", "FILLER", "IMPLICIT_WORDS", "ISSUE_WORDS", "NUMBER_WORDS", "Reading", "is_sarcastic", "issue_of_word", "normalize", "read"]

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
        issue, score = max(self.needs.items(), key=lambda kv: kv[1])  # a tie goes to the issue named first
        if score <= 0 or (len(self.needs) == len(ISSUES) and len(set(self.needs.values())) == 1):
            return None  # "I'm looking for food, water and firewood": no issue stands out
        return issue


def read(text: str, *, context: Context | None = None) -> Reading:
    """Read one message (see the module docstring for what is extracted).

    `context`, the dialogue's earlier turns, lets the split reader resolve what the message leaves
    out: a count of the item under discussion ("Please let me have 2."), who gives which in a bare
    swap ("3 packs of firewood for 3 food?"); see `understanding_context`. Without it the message is
    read alone.

    Memoized: agents read the same lines over and over in self-play, so each distinct text (and
    what its context hints) is parsed once; every call gets its own copy, free to change.
    """
    hints = None
    if context is not None and context.turns:
        names_none, swaps = _could_use_context(text)
        hints = hints_of(context, _read, topic=names_none, leaning=swaps)
    cached = _read(text, hints)
    return replace(cached, needs=dict(cached.needs), prefers=list(cached.prefers), proposal=None if cached.proposal is None else dict(cached.proposal), mentions=list(cached.mentions))


@lru_cache(maxsize=4096)
def _could_use_context(text: str) -> tuple[bool, bool]:
    """Whether the split reader could use the item under discussion (the text names none) and the
    speakers' leanings (it has a swap's "for")."""
    tokens = _tokens(text)
    counted = any(t in NUMBER_WORDS or t == "all" for t in tokens)
    swap = any(swap_sides(sentence, 0, len(sentence), [], {}, shape_only=True) for sentence in _sentences(tokens))
    return counted and elided(tokens), swap


@lru_cache(maxsize=4096)  # a self-play worker sees the same bot lines again and again; more would only hold memory
def _read(text: str, hints: Hints | None = None) -> Reading:
    reading = Reading(text=text)
    tokens = _tokens(text)
    if not tokens:
        return reading
    joined = " ".join(tokens)
    reading.mentions = [i for t in tokens if (i := issue_of_word(t))]
    reading.greets = bool(re.search(r"\b(hi|hello|hey|howdy|greetings|good (morning|afternoon|evening))\b", joined))
    reading.asks_preferences = _asks_preferences(joined)
    reading.sarcastic = is_sarcastic(text)
    for sentence in _sentences(tokens):
        _read_sentence_needs(sentence, reading)
    _read_implied_first(joined, reading)
    reading.proposal = None if reading.sarcastic else revise(tokens, _proposal(tokens, with_own_needs(hints, reading.needs)))
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
_HESITATION = re.compile(r"\b(let me (think|see|consider)|i will think|i ll think|i need to think|thinking about it|give me a (second|minute|moment))\b")
_CLEAR_AGREEMENT = re.compile(r"\b(i can do that|that works|works for me|sounds good|sounds great|(?<!no )deal|i agree|agreed|i accept|fine by me|happy with that)\b")


def _stance(joined: str) -> tuple[bool, bool]:
    """(agrees, disagrees). An agreement followed by `but` is a disagreement."""
    agree = _AGREE.search(joined)
    disagree = _DISAGREE.search(joined)
    if agree and disagree and all(m.group(0) in _WEAK_REFUSALS for m in _DISAGREE.finditer(joined)) and _CLEAR_AGREEMENT.search(joined):
        disagree = None  # "Hmm. I think I can do that."
    if disagree and all(m.group(0) == "hmm" for m in _DISAGREE.finditer(joined)) and _HESITATION.search(joined):
        disagree = None  # "Hmm, let me think about it." hesitates; it turns nothing down
    if agree and re.search(r"\bno deal\b|\bnot (a )?deal\b", joined):
        agree = None
    if agree and re.search(r"\bbut\b", joined[agree.end():]):
        return False, True
    return bool(agree) and not disagree, bool(disagree)

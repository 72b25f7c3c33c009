"""When a message cannot be taken at its word: sarcasm, a number echoed back as a question, hedges.

People are sarcastic ("oh sure, 490 bucks, totally fair lol"), echo a number in disbelief ("20
dollars?") and hedge ("i guess maybe"). A reader that takes such a message literally turns it into a
binding move nobody meant. The cues are data: each table row is a pattern with the messages it exists
for, and the tests check every example against its row, so a row that stops matching what it was
written for fails. Any task's agent asks (`confirm_question`) before a binding move rests on a
message `doubt` marks unsure, and acts on the answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Cue:
    """One pattern, and the messages it is written for (each must match it)."""

    name: str
    pattern: re.Pattern[str]
    examples: tuple[str, ...]


def _cue(name: str, pattern: str, *examples: str, flags: int = re.IGNORECASE) -> Cue:
    return Cue(name, re.compile(pattern, flags), examples)


SARCASM_STRONG: tuple[Cue, ...] = (
    _cue("yeah right", r"\byeah,? right\b|\bas if\b|\bnice try\b", "yeah right, like that's happening", "nice try buddy"),
    _cue("not!", r"\.\.\.\s*not\b|\bnot!", "great offer... not"),
    _cue("eye roll", r"\*?eye ?roll\*?|🙄", "sure *eyeroll*"),
)
"""One of these alone says the words mean their opposite."""

SARCASM_SIGNS: tuple[Cue, ...] = (
    _cue("ironic opener", r"\b(oh|ah|wow),? (sure|great|yeah|right|wonderful|perfect|thanks|nice)\b", "oh sure, 490 bucks", "oh great, thanks", "wow, thanks"),
    _cue(
        "praise of fairness or help",
        r"\b(totally|so|super|very|real|really|perfectly) (fair|generous|reasonable|kind|helpful|useful)\b|\bhow (generous|helpful)\b|\bthanks a lot\b",
        "totally fair", "super helpful", "how generous of you",
    ),
    _cue("wry face", r":/|:\||:-/|-_-|\bsmh\b", "super helpful :/", "ok -_-"),
    _cue("laugh", r"\b(lol|lmao|haha+|rofl)\b", "totally fair lol", "haha sure"),
    _cue("shouted all", r"\b(ALL|EVERYTHING|NOTHING|EVERY)\b", "you take ALL the food", flags=0),
    _cue("belittling", r"\b(less than half|a joke|insulting|ridiculous|you're kidding|are you kidding|seriously\?)", "thats less than half", "that's a joke"),
)
"""Two of these together say the words mean their opposite; one alone (a friendly "lol") does not."""

ECHO = _cue(
    "echo question",
    r"^\W*(?:(?:really|seriously|what|wait|only|just)\W+)*(?:\$\s*)?\d[\d,.]*k?\s*(?:\$|dollars?|bucks|usd)?\W*(?:(?:really|seriously|for that|for it)\W*)?\?+\W*$",
    "20 dollars?", "$490??", "really? 500?", "wait, 300?",
)
"""A sentence that is only a number asked back: disbelief, not an offer."""

HEDGES: tuple[Cue, ...] = (
    _cue("hedge", r"\b(i guess|maybe|perhaps|not sure|i suppose|might be|kinda|sort of|i think so)\b", "i guess that could work", "maybe 300"),
)
"""Softeners: recorded for the reader's confidence; alone they do not stop a binding move."""


@dataclass(frozen=True)
class Doubt:
    """Why a message cannot be taken at its word (empty: it can)."""

    sarcastic: bool = False
    echo: bool = False
    hedged: bool = False
    cues: tuple[str, ...] = field(default=())

    @property
    def unsure(self) -> bool:
        """No binding move may rest on this message without asking first."""
        return self.sarcastic or self.echo


def _matches(cues: tuple[Cue, ...], text: str) -> list[str]:
    return [cue.name for cue in cues if cue.pattern.search(text)]


def sentences(text: str) -> list[str]:
    """The sentences of a message, each with the mark that ends it."""
    return [part.strip() for part in re.findall(r"(?:[^.!?]|\.(?=\d))+(?:[.!?]+|$)", text) if part.strip()]


def doubt(text: str) -> Doubt:
    """How far a message can be taken at its word (see the module docstring)."""
    strong, signs = _matches(SARCASM_STRONG, text), _matches(SARCASM_SIGNS, text)
    echoes = [s for s in sentences(text) if ECHO.pattern.search(s)]
    hedges = _matches(HEDGES, text)
    sarcastic = bool(strong) or len(signs) >= 2
    return Doubt(sarcastic=sarcastic, echo=bool(echoes), hedged=bool(hedges), cues=tuple(strong + signs + (["echo question"] if echoes else []) + hedges))


CONFIRM = ("Just to be sure: {what}?", "Sorry, just checking: {what}?", "Do you mean it: {what}?")
"""How a bot asks before acting on an unsure reading; `{what}` is the move in the bot's words."""


def confirm_question(what: str, pick: int = 0) -> str:
    """`Just to be sure: you'd take $490?`"""
    return CONFIRM[pick % len(CONFIRM)].format(what=what)


ALL_CUES: tuple[Cue, ...] = (*SARCASM_STRONG, *SARCASM_SIGNS, ECHO, *HEDGES)

"""The CaSiNo modular agent's coarse acts: reading them in messages and counting them in the corpus.

A message is `propose` when it describes a split of at least two issues, else its negotiation
strategy (the corpus's ten labels, the most telling first), where a non-strategic message that agrees
or disagrees is `agree` / `disagree`; deal moves are `submit`, `accept`, `reject`, `walk-away`. The
parser is the strategy tagger when its model is available, else rules over `understanding.read`.
`act_sequence` gives the (context, act) pairs the act policy counts from the annotated dialogues,
and `PRIOR` stands in for them without a corpus. See `modular.py` for the agent.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, Sequence

from duologue.modular.policy import START
from duologue.core.schema import AcceptDeal, Dialogue, Message, RejectDeal, SubmitDeal, WalkAway
from duologue.tasks.casino.understanding import IMPLICIT_WORDS, Reading, issue_of_word, read

STRATEGY_ORDER = (
    "elicit-pref", "self-need", "no-need", "other-need", "uv-part", "vouch-fair", "showing-empathy",
    "promote-coordination", "small-talk", "non-strategic",
)
"""Strategy labels, most telling first: a message with several labels takes the first of these."""
MESSAGE_ACTS = ("propose", "agree", "disagree", *STRATEGY_ORDER)
DEAL_ACTS = ("submit", "accept", "reject", "walk-away")
CHAT_ACTS = STRATEGY_ORDER
_DEAL_EVENTS = {SubmitDeal: "submit", AcceptDeal: "accept", RejectDeal: "reject", WalkAway: "walk-away"}

# ---------------------------------------------------------------------------- the built-in prior

PRIOR: dict[str, dict[str, int]] = {
    # partner's last act -> per-mille frequency of the next act (annotated dialogues, rows seen 20+ times)
    "propose": {"propose": 308, "agree": 155, "self-need": 114, "vouch-fair": 88, "non-strategic": 88, "submit": 65, "elicit-pref": 38, "small-talk": 35, "promote-coordination": 32, "disagree": 24, "other-need": 17, "no-need": 14, "uv-part": 14},
    "small-talk": {"small-talk": 528, "submit": 128, "self-need": 97, "elicit-pref": 96, "propose": 51, "promote-coordination": 19, "agree": 19, "other-need": 19, "vouch-fair": 12, "non-strategic": 12},
    "self-need": {"propose": 270, "self-need": 265, "non-strategic": 58, "agree": 56, "elicit-pref": 56, "promote-coordination": 42, "no-need": 41, "uv-part": 41, "showing-empathy": 41, "other-need": 34, "vouch-fair": 34, "small-talk": 33, "submit": 22},
    "submit": {"accept": 723, "reject": 135, "submit": 77, "non-strategic": 15, "propose": 12},
    "non-strategic": {"propose": 202, "non-strategic": 184, "submit": 119, "agree": 106, "small-talk": 90, "self-need": 76, "elicit-pref": 76, "promote-coordination": 61, "vouch-fair": 38, "disagree": 16, "other-need": 13},
    "agree": {"submit": 269, "agree": 204, "propose": 160, "non-strategic": 105, "small-talk": 92, "self-need": 50, "elicit-pref": 40, "vouch-fair": 25, "promote-coordination": 20, "no-need": 15},
    "<start>": {"small-talk": 379, "non-strategic": 206, "self-need": 133, "propose": 110, "elicit-pref": 96, "vouch-fair": 28, "promote-coordination": 23, "other-need": 20},
    "elicit-pref": {"self-need": 375, "elicit-pref": 163, "non-strategic": 151, "propose": 117, "no-need": 46, "other-need": 43, "promote-coordination": 31, "agree": 25, "small-talk": 25},
    "vouch-fair": {"propose": 211, "agree": 136, "submit": 117, "non-strategic": 108, "vouch-fair": 94, "promote-coordination": 80, "small-talk": 75, "elicit-pref": 56, "self-need": 52, "showing-empathy": 19, "no-need": 14, "other-need": 14},
    "promote-coordination": {"propose": 295, "non-strategic": 104, "vouch-fair": 104, "promote-coordination": 104, "agree": 98, "small-talk": 81, "elicit-pref": 64, "self-need": 58, "submit": 35, "other-need": 29, "disagree": 12, "no-need": 12},
    "other-need": {"propose": 250, "self-need": 160, "elicit-pref": 110, "other-need": 90, "agree": 80, "promote-coordination": 70, "non-strategic": 50, "vouch-fair": 50, "uv-part": 40, "showing-empathy": 40, "submit": 30, "small-talk": 20, "disagree": 10},
    "no-need": {"propose": 228, "non-strategic": 114, "agree": 114, "self-need": 89, "elicit-pref": 89, "small-talk": 76, "submit": 63, "vouch-fair": 51, "showing-empathy": 51, "promote-coordination": 38, "no-need": 38, "other-need": 25, "uv-part": 13, "walk-away": 13},
    "uv-part": {"propose": 276, "self-need": 276, "submit": 86, "promote-coordination": 52, "non-strategic": 52, "elicit-pref": 52, "vouch-fair": 52, "other-need": 34, "small-talk": 34, "no-need": 34, "agree": 17, "uv-part": 17, "disagree": 17},
    "showing-empathy": {"self-need": 179, "propose": 161, "elicit-pref": 107, "small-talk": 107, "non-strategic": 107, "submit": 89, "vouch-fair": 71, "agree": 71, "promote-coordination": 36, "showing-empathy": 36, "other-need": 18, "no-need": 18},
    "disagree": {"propose": 391, "submit": 152, "self-need": 109, "vouch-fair": 109, "elicit-pref": 65, "non-strategic": 65, "agree": 65, "uv-part": 22, "small-talk": 22},
}
"""The fallback act-transition prior (no corpus at hand). Keys are the partner's last act."""

# ---------------------------------------------------------------------------- the fallback wording

_TOKEN = re.compile(r"[A-Za-z0-9']+")

# ---------------------------------------------------------------------------- reading acts


def issues_in(text: str) -> list[str]:
    """Issues a text talks about: by name (typos allowed) or by a telltale word (`thirsty`, `cold`)."""
    found: list[str] = []
    for token in _TOKEN.findall(text.lower()):
        issue = issue_of_word(token) or IMPLICIT_WORDS.get(token)
        if issue and issue not in found:
            found.append(issue)
    return found


def is_proposal(reading: Reading) -> bool:
    """A message that describes a split of at least two issues."""
    return reading.proposal is not None and sum(v is not None for v in reading.proposal.values()) >= 2


def coarse_act(text: str, labels: Sequence[str], reading: Reading | None = None) -> str:
    """The coarse act of a message with these strategy labels (see the module docstring)."""
    reading = reading if reading is not None else read(text)
    if is_proposal(reading):
        return "propose"
    primary = next((label for label in STRATEGY_ORDER if label in labels and label != "non-strategic"), None)
    if primary is None:
        if reading.agrees and not reading.disagrees:
            return "agree"
        if reading.disagrees and not reading.agrees:
            return "disagree"
        return "non-strategic"
    return primary


def rule_labels(reading: Reading) -> list[str]:
    """Strategy labels from `understanding.read` alone (when the strategy tagger is not available)."""
    labels = []
    if reading.asks_preferences:
        labels.append("elicit-pref")
    if reading.needs:
        if any(v > 0 for v in reading.needs.values()):
            labels.append("self-need")
        if any(v < 0 for v in reading.needs.values()):
            labels.append("no-need")
    if reading.greets:
        labels.append("small-talk")
    return labels or ["non-strategic"]


@lru_cache(maxsize=1)
def strategy_tagger() -> Any | None:
    """The strategy tagger's shipped model, or None when the module or its model file is missing."""
    try:
        from duologue.tasks.casino import strategies

        return strategies.shipped_model()
    except Exception:  # noqa: BLE001  the tagger is optional: without it, rules over `understanding` read the acts
        return None


RULE_READABLE = frozenset({"propose", "agree", "disagree", "elicit-pref", "self-need", "no-need", "small-talk", "non-strategic"})
"""Acts the rules over `understanding.read` can recognise (the rest need the strategy tagger)."""


def checkable(act: str) -> bool:
    """Whether the act parser in use can recognise `act` in a message."""
    return act in RULE_READABLE or strategy_tagger() is not None


def message_acts(text: str, previous: str | None = None) -> set[str]:
    """Every coarse act the parser reads in a message (a message can be a self-need and small talk at once)."""
    reading = read(text)
    if is_proposal(reading):
        return {"propose"}
    tagger = strategy_tagger()
    labels = tagger.predict([text], [previous])[0] if tagger is not None else rule_labels(reading)
    acts = {label for label in labels if label != "non-strategic"}
    acts.add(coarse_act(text, labels, reading))
    if reading.agrees and not reading.disagrees:
        acts.add("agree")
    if reading.disagrees and not reading.agrees:
        acts.add("disagree")
    return acts


def message_act(text: str, previous: str | None = None) -> str:
    """The single coarse act of a message (the policy's context)."""
    reading = read(text)
    if is_proposal(reading):
        return "propose"
    tagger = strategy_tagger()
    labels = tagger.predict([text], [previous])[0] if tagger is not None else rule_labels(reading)
    return coarse_act(text, labels, reading)


def stage(events_so_far: int) -> str:
    return "opening" if events_so_far < 3 else "middle" if events_so_far < 10 else "late"


def policy_context(partner_act: str, my_act: str, events_so_far: int) -> tuple[str, str, str]:
    return (partner_act, my_act, stage(events_so_far))


# ---------------------------------------------------------------------------- learning from the corpus


def gold_acts(dialogue: Dialogue) -> list[str | None] | None:
    """The coarse act of every event of an annotated corpus dialogue (None for an unlabelled message); None if not annotated."""
    labels = {a.event: a.labels for a in dialogue.annotations if a.layer == "strategy" and a.event is not None}
    if not labels:
        return None
    out: list[str | None] = []
    for index, event in enumerate(dialogue.events):
        if isinstance(event, Message):
            out.append(coarse_act(event.text, labels[index]) if index in labels else None)
        else:
            out.append(_DEAL_EVENTS.get(type(event)))
    return out


def act_sequence(dialogue: Dialogue) -> list[tuple[tuple[str, str, str], str]]:
    """(context, act) for every labelled move of an annotated corpus dialogue."""
    acts = gold_acts(dialogue)
    if acts is None:
        return []
    last: dict[str, str] = {}
    pairs = []
    for index, (event, act) in enumerate(zip(dialogue.events, acts, strict=True)):  # one act per event
        speaker = event.party
        if speaker is None:
            continue
        partner = next((p.id for p in dialogue.parties if p.id != speaker), None)
        if act is not None:
            pairs.append((policy_context(last.get(partner or "", START), last.get(speaker, START), index), act))
            last[speaker] = act
    return pairs

"""The Deal or No Deal modular agent's coarse acts: reading them in messages and counting them in the corpus.

A message is one of `MESSAGE_ACTS`, read with the task's own reader (`understanding.read`) plus
a few cue words, given what each side proposed before:

* `agree`: it accepts (`ok`, `deal`) and refuses nothing; if it states a split, it is the one the
  listener last proposed (restating what is agreed);
* `propose`: it states a split (the speaker's share, complete), or `insist` when that split is the
  one the speaker already proposed;
* `disagree`: it refuses (`no deal`, `i can't`) without a split;
* `greet`, `inquire` (a question, or `what do you want`), else `unknown`.

The one deal move is `select` (a `Choose`: what a side enters in private). `act_sequence` gives the
(context, act) pairs the act policy counts from corpus dialogues, and `PRIOR` stands in for them
without a corpus. See `modular.py` for the agent.
"""

from __future__ import annotations

from typing import Mapping

from duologue.modular.policy import START
from duologue.core.schema import Dialogue, Event, Message
from duologue.tasks.dealornodeal.task import ChooseEvent
from duologue.tasks.dealornodeal.understanding import WORD, read

MESSAGE_ACTS = ("greet", "propose", "insist", "agree", "disagree", "inquire", "unknown")
DEAL_ACTS = ("select",)
CHAT_ACTS = ("greet", "inquire", "unknown")
"""Acts that move no split: the agent says only a few of them in a row."""
GREET_WORDS = frozenset({"hi", "hello", "hey", "howdy", "greetings", "hiya"})
INQUIRE_WORDS = frozenset({"what", "which", "how", "do", "does", "would", "could", "can"})

PRIOR: dict[str, dict[str, int]] = {
    # partner's last act -> per-mille frequency of the next act (the validation split's 4,459 moves, 10+ per mille)
    "<start>": {"propose": 913, "unknown": 41, "inquire": 25, "greet": 12},
    "greet": {"propose": 625, "agree": 125, "greet": 125, "disagree": 125},
    "inquire": {"propose": 694, "agree": 111, "unknown": 56, "inquire": 56, "disagree": 56, "insist": 28},
    "propose": {"propose": 567, "agree": 240, "disagree": 60, "insist": 51, "select": 39, "unknown": 35},
    "insist": {"propose": 381, "agree": 267, "disagree": 181, "unknown": 76, "select": 67, "insist": 29},
    "agree": {"select": 656, "agree": 224, "unknown": 54, "propose": 45, "disagree": 18},
    "disagree": {"disagree": 435, "select": 192, "propose": 150, "unknown": 85, "agree": 73, "insist": 46, "inquire": 19},
    "unknown": {"select": 314, "propose": 308, "agree": 126, "disagree": 113, "unknown": 101, "insist": 31},
    "select": {"select": 1000},
}
"""The fallback act-transition prior (no corpus at hand). Keys are the partner's last act."""


def message_act(
    text: str, pool: Mapping[str, int], own_last: Mapping[str, int] | None = None, offered: Mapping[str, int] | None = None
) -> str:
    """The coarse act of a message (see the module docstring).

    own_last: the speaker's share in its own last proposal; offered: the speaker's share in the
    listener's last proposal (both None when there was none).
    """
    reading = read(text, pool)
    split = reading.speaker_gets
    if reading.accepts and not reading.rejects and (split is None or (offered is not None and split == dict(offered))):
        return "agree"
    if split is not None:
        return "insist" if own_last is not None and split == dict(own_last) else "propose"
    if reading.rejects:
        return "disagree"
    words = WORD.findall(text.lower())
    if words[:1] and words[0] in GREET_WORDS:
        return "greet"
    if "?" in text or (words[:1] and words[0] in INQUIRE_WORDS and "want" in words):
        return "inquire"
    return "unknown"


def complement_of(share: Mapping[str, int], pool: Mapping[str, int]) -> dict[str, int]:
    return {item: int(pool[item]) - int(share.get(item, 0)) for item in pool}


class ActReader:
    """Reads the coarse acts of a dialogue's messages in order, keeping each side's last proposal."""

    def __init__(self, pool: Mapping[str, int]) -> None:
        self.pool = {item: int(n) for item, n in pool.items()}
        self.proposed: dict[str, dict[str, int]] = {}
        """Party -> its share in its own last proposal."""

    def offered_to(self, party: str) -> dict[str, int] | None:
        """What `party` gets in its partner's last proposal."""
        for other, share in self.proposed.items():
            if other != party:
                return complement_of(share, self.pool)
        return None

    def message(self, party: str, text: str) -> str:
        act = message_act(text, self.pool, self.proposed.get(party), self.offered_to(party))
        if act in ("propose", "insist", "agree"):
            split = read(text, self.pool).speaker_gets
            if split is not None:
                self.proposed[party] = split
            elif act == "agree" and self.offered_to(party) is not None:
                self.proposed[party] = self.offered_to(party) or {}
        return act


def stage(events_so_far: int) -> str:
    return "opening" if events_so_far < 2 else "middle" if events_so_far < 6 else "late"


def policy_context(partner_act: str, my_act: str, events_so_far: int) -> tuple[str, str, str]:
    return (partner_act, my_act, stage(events_so_far))


def event_act(reader: ActReader, event: Event) -> str | None:
    """The coarse act of one event, read in order by `reader` (None for a system note)."""
    if isinstance(event, Message) and event.party is not None:
        return reader.message(event.party, event.text)
    return "select" if isinstance(event, ChooseEvent) else None


def dialogue_acts(dialogue: Dialogue) -> list[str | None]:
    """The coarse act of every event of a dialogue (None for a system note)."""
    reader = ActReader({item: int(n) for item, n in dialogue.scenario.public["pool"].items()})
    return [event_act(reader, event) for event in dialogue.events]


def act_sequence(dialogue: Dialogue) -> list[tuple[tuple[str, str, str], str]]:
    """(context, act) for every move of a corpus dialogue."""
    last: dict[str, str] = {}
    pairs = []
    for index, (event, act) in enumerate(zip(dialogue.events, dialogue_acts(dialogue), strict=True)):
        speaker = event.party
        if speaker is None or act is None:
            continue
        partner = next((p.id for p in dialogue.parties if p.id != speaker), "")
        pairs.append((policy_context(last.get(partner, START), last.get(speaker, START), index), act))
        last[speaker] = act
    return pairs

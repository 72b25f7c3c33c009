"""Words for the Deal or No Deal modular agent: its own templates, and corpus lines made into templates.

A corpus message that states a split becomes a template with one slot per item mention (`{s0}`:
a count and an item, `the books`, `2 hats`, `one ball`), each marked as the speaker's share or the
listener's (`s0=mine:book`); it is indexed only when, filled again with its own split, the reader
gives that split back. At use time the slots are filled with the agent's split, under a renaming of
the template's items to the agent's (tried in a random order), and the agent keeps the first filling
that reads as exactly its split. Messages without a split are indexed as they are when they are short,
carry no number, mention no item (their words are not tied to their own dialogue's pool) and say nothing
about the collection platform (`INTERFACE_WORDS`).
"""

from __future__ import annotations

import itertools
import random
import re
from collections import Counter
from typing import Mapping, Sequence

from duologue.modular.agent import Candidate, UtteranceIndex, escape_braces
from duologue.core.schema import Dialogue, Message
from duologue.tasks.dealornodeal.agents import ACCEPTS, PROPOSALS
from duologue.tasks.dealornodeal.modular_acts import ActReader
from duologue.tasks.dealornodeal.rules import ITEMS
from duologue.tasks.dealornodeal.understanding import ALL_WORDS, ITEM_WORDS, LISTENER_WORDS, NUMBERS, SPEAKER_WORDS, WORD, _count, _negated, read

TEMPLATES: dict[str, tuple[str, ...]] = {
    "greet": ("hi!", "hello there!", "hey, how are you?", "hi, nice to meet you."),
    "inquire": ("what do you want?", "what would you like?", "which items matter most to you?", "what are you looking for?"),
    "propose": PROPOSALS,
    "insist": ("i really need {mine}. you can have {theirs}.", "i still want {mine}, you get {theirs}.", "like i said, i get {mine} and you get {theirs}."),
    "agree": ACCEPTS,
    "disagree": ("no deal, sorry.", "that doesn't work for me.", "i can't do that.", "no, i need more than that."),
    "unknown": ("hmm, let me think.", "let me think about it.", "hmm."),
}
"""The agent's own wording per act, used when no retrieved candidate fits (`{mine}` / `{theirs}`: a share in words)."""

SPLIT_ACTS = ("propose", "insist", "agree")
"""Acts whose corpus lines may state a split (and are then indexed as templates)."""
INTERFACE_WORDS = frozenset({"button", "select", "selected", "selection", "click", "clicked", "hit", "screen", "showed", "glitch", "bug", "turk", "mturk", "bonus", "hits", "agreed", "submit"})
"""Words about the collection platform rather than the negotiation: lines with them are not indexed."""
CHAT_WORDS = 16
"""Longest line without a split that is indexed (longer ones tell their own dialogue's story)."""
SLOTS = tuple(f"s{k}" for k in range(6))
_SKIP = frozenset({"the", "of"})
_COUNTS = frozenset({"zero", "one", "two", "three", "four", "single", "none", "both"})
"""Count words that, left outside a slot, would still give the old dialogue's numbers."""
_SLOT = re.compile(r"\{s\d\}")


def detokenize(text: str) -> str:
    """Corpus text (`i 'd like the books .`) with the tokeniser's spaces before punctuation taken out."""
    text = " ".join(text.split())
    text = re.sub(r" ([.,!?;:])", r"\1", text)
    return re.sub(r" '(\w)", r"'\1", text)


def phrase(item: str, count: int, pool: Mapping[str, int], rng: random.Random) -> str:
    """`count` of `item` in words the reader gives back (`no hats`, `the ball`, `all the books`, `2 hats`)."""
    if count <= 0:
        return f"no {item}s"
    if count >= pool[item]:
        return f"the {item}" if count == 1 else rng.choice((f"the {item}s", f"all the {item}s"))
    if count == 1:
        return rng.choice((f"one {item}", f"1 {item}", f"a {item}"))
    return rng.choice((f"{count} {item}s", f"{['zero', 'one', 'two', 'three', 'four'][count]} {item}s" if count <= 4 else f"{count} {item}s"))


def split_template(text: str, share: Mapping[str, int], pool: Mapping[str, int]) -> tuple[str, dict[str, str]] | None:
    """A message stating `share` (the speaker's) as a template: each item mention a slot, marked mine or theirs.

    Returns (template, slot -> `mine:item` / `theirs:item`), or None when a mention's count is
    neither side's share or there are more mentions than slots.
    """
    if "{" in text or "}" in text:
        return None
    lowered = text.lower()
    tokens = [(m.group(0), m.start(), m.end()) for m in WORD.finditer(lowered)]
    words = [t[0] for t in tokens]
    pieces: list[str] = []
    roles: dict[str, str] = {}
    cursor = 0
    side: str | None = None
    for k, (word, _start, end) in enumerate(tokens):
        if word in SPEAKER_WORDS:
            side = "mine"
        elif word in LISTENER_WORDS:
            side = "theirs"
        if word not in ITEM_WORDS:
            continue
        item = ITEM_WORDS[word]
        first = k  # the first token of the mention: its count and any `the` / `of` before the item
        while first > 0 and k - first < 3 and (words[first - 1] in _SKIP or words[first - 1] in NUMBERS or words[first - 1] in ALL_WORDS or words[first - 1].isdigit()):
            first -= 1
            if words[first] not in _SKIP:
                break
        begin = tokens[first][1]
        if begin < cursor or set(words[max(0, first - 2) : first]) & (_COUNTS | {"a", "an"}):
            return None  # a count cut off from its item by another word (`a stylish hat`, `three whole balls`)
        count = _count(words, k, word, pool[item])
        fitting = [r for r, n in (("mine", share[item]), ("theirs", pool[item] - share[item])) if n == count]
        if not fitting:
            return None
        owner = side or "mine"  # whose the mention is, as the reader sees it (the last pronoun before it)
        if _negated(words, k):
            owner = "theirs" if owner == "mine" else "mine"
        role = owner if owner in fitting else fitting[0]
        name = f"s{len(roles)}"
        if name not in SLOTS:
            return None
        roles[name] = f"{role}:{item}"
        pieces += [escape_braces(text[cursor:begin]), "{" + name + "}"]
        cursor = end
    pieces.append(escape_braces(text[cursor:]))
    template = "".join(pieces)
    left = _SLOT.sub("", template)
    if not roles or re.search(r"\d", left) or set(WORD.findall(left.lower())) & _COUNTS:
        return None  # a count outside the slots would still be the old dialogue's
    return template, roles


def render(template: str, roles: Mapping[str, str], share: Mapping[str, int], pool: Mapping[str, int], mapping: Mapping[str, str], rng: random.Random) -> str:
    """The template filled with `share` (mine), its items renamed by `mapping` (template item -> my item)."""
    values = {}
    for name, role in roles.items():
        side, _, item = role.partition(":")
        mine = mapping[item]
        values[name] = phrase(mine, share[mine] if side == "mine" else pool[mine] - share[mine], pool, rng)
    return " ".join(template.format_map(values).split())


def render_split(candidate: Candidate, share: Mapping[str, int], pool: Mapping[str, int], rng: random.Random) -> str | None:
    """The candidate filled with `share`, under the first item renaming (in random order) that reads back as `share`."""
    roles = roles_of(candidate)
    if not roles:
        return None
    mappings = [dict(zip(ITEMS, order, strict=True)) for order in itertools.permutations(ITEMS)]
    rng.shuffle(mappings)
    mappings.sort(key=lambda mapping: _zeros(roles, share, pool, mapping))  # stable: random order among equals
    for mapping in mappings:
        text = render(candidate.template, roles, share, pool, mapping, rng)
        if read(text, pool).speaker_gets == dict(share):
            return text
    return None


def zero_slots(candidate: Candidate, share: Mapping[str, int], pool: Mapping[str, int]) -> int:
    """The fewest slots that would say `no <item>` (`you can have no balls`), over every item renaming:
    a line that names only what each side gets reads better."""
    roles = roles_of(candidate)
    return min(_zeros(roles, share, pool, dict(zip(ITEMS, order, strict=True))) for order in itertools.permutations(ITEMS))


def _zeros(roles: Mapping[str, str], share: Mapping[str, int], pool: Mapping[str, int], mapping: Mapping[str, str]) -> int:
    """How many slots say a count of 0 when the template's items are renamed by `mapping`."""
    zeros = 0
    for role in roles.values():
        side, _, item = role.partition(":")
        mine = mapping[item]
        zeros += (share[mine] if side == "mine" else pool[mine] - share[mine]) == 0
    return zeros


def roles_of(candidate: Candidate) -> dict[str, str]:
    tag = candidate.tag("roles") or ""
    return dict(pair.split("=", 1) for pair in tag.split(";") if pair)


def build_index(dialogues: Sequence[Dialogue]) -> tuple[UtteranceIndex, dict[str, int]]:
    """Index every message of the corpus by its coarse act (split-stating ones as templates, see the module docstring)."""
    index = UtteranceIndex()
    counts: Counter[str] = Counter()
    check = random.Random(0)
    for dialogue in dialogues:
        pool = {item: int(dialogue.scenario.public["pool"][item]) for item in ITEMS}
        reader = ActReader(pool)
        for event in dialogue.events:
            if not isinstance(event, Message) or event.party is None:
                continue
            act = reader.message(event.party, event.text)
            text = detokenize(event.text)
            if not text or len(text.split()) > 40:
                continue
            counts["messages"] += 1
            split = read(text, pool).speaker_gets
            if split is not None:
                if act not in SPLIT_ACTS:
                    continue
                made = split_template(text, split, pool)
                if made is None:
                    continue
                template, roles = made
                if read(render(template, roles, split, pool, {i: i for i in ITEMS}, check), pool).speaker_gets != split:
                    continue  # the template does not read back as its own split
                if index.add(act, template, {"roles": ";".join(f"{k}={v}" for k, v in sorted(roles.items()))}):
                    counts["split templates"] += 1
            elif len(text.split()) <= CHAT_WORDS and not re.search(r"\d", text) and not set(WORD.findall(text.lower())) & (set(ITEM_WORDS) | INTERFACE_WORDS):
                if index.add(act, escape_braces(text)):
                    counts["lines"] += 1
    return index, dict(counts)

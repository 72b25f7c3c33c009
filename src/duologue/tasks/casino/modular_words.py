"""The CaSiNo modular agent's words: its own templates, and corpus lines indexed for retrieval.

Corpus messages are indexed by act and by what they say about priorities: each issue a message
mentions is tagged with the level the speaker had for it (`consistent` keeps only lines true to the
agent's own levels). Proposals become templates with one slot per item mention (`{q0}` = a count and
an issue, `{n0}` = an issue), each marked as the speaker's share or the partner's, and are filled
with the agent's own split (`render_proposal`). See `modular.py` for the agent.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from typing import Sequence

from duologue.modular.retrieval import Candidate, UtteranceIndex, escape_braces
from duologue.core.schema import Dialogue, Message
from duologue.tasks.casino.modular_acts import _TOKEN, gold_acts, issues_in
from duologue.tasks.casino.rules import ISSUES, PACKAGES_PER_ISSUE
from duologue.tasks.casino.understanding import FILLER, IMPLICIT_WORDS, NUMBER_WORDS, issue_of_word, read
from duologue.tasks.casino.wording import COUNT_WORDS

TEMPLATES: dict[str, tuple[str, ...]] = {
    "small-talk": ("Hello! How are you doing?", "Hi there, excited for the trip?", "Hey, nice to meet you!", "Hi! Hope your camping trip is going well.",
                   "Hello neighbor!", "Good to meet you, fellow camper."),
    "elicit-pref": ("What do you need most?", "Which item matters most to you?", "What are you hoping to get?", "What is your top priority?",
                    "What would help you the most on this trip?"),
    "self-need": ("I really need {issue}.", "{Issue} is very important to me.", "I could use some extra {issue}.", "{Issue} matters a lot to me."),
    "other-need": ("My family really needs {issue}.", "My kids will need {issue} on this trip.", "We have a big group, so {issue} is important for us."),
    "no-need": ("I don't need much {issue}.", "{Issue} is not that important to me.", "You can have most of the {issue}.", "I could do without {issue}."),
    "uv-part": ("I'm sure you have plenty already.", "You probably don't need that much."),
    "vouch-fair": ("I want this to be fair for both of us.", "That seems fair to me.", "Let's make it even.", "I think that is fair."),
    "showing-empathy": ("I understand.", "That makes sense.", "Oh, I'm sorry to hear that.", "I totally get it.", "I hear you."),
    "promote-coordination": ("Let's work something out.", "I'm sure we can find a deal that works for both of us.", "Let's figure this out together.",
                             "We can help each other out."),
    "non-strategic": ("Okay.", "Alright.", "Let me think about it.", "Hmm."),
    "agree": ("That sounds good to me.", "Okay, that works for me.", "Sure, I can do that.", "Deal!", "Sounds great."),
    "disagree": ("Sorry, that doesn't work for me.", "Hmm, I need a bit more than that.", "I can't do that one.", "That's a little lopsided for me."),
    "propose": ("How about I take {mine} and you get {theirs}?", "What if you get {theirs} and I keep {mine}?", "I could do {mine} for me and {theirs} for you.",
                "Would you be okay with {theirs} for you and {mine} for me?", "Maybe I get {mine}, and you take {theirs}?"),
}
"""The agent's own wording per act, used when no retrieved candidate fits."""

PROPOSAL_SLOTS = tuple(f"{kind}{k}" for k in range(8) for kind in ("q", "n"))
_COUNT_WORDS_HERE = {"0", "1", "2", "3", "zero", "one", "two", "three", "all", "no", "none"}
_SLOT = re.compile(r"\{([qn])(\d+)\}")


def level_tags(issues: Sequence[str], priorities: dict[str, str]) -> dict[str, str]:
    """Tags saying which level each mentioned issue had for the speaker (`Water=High;Food=Low`)."""
    pairs = sorted(f"{issue}={priorities.get(issue, '?')}" for issue in issues)
    return {"levels": ";".join(pairs)}


def consistent(candidate: Candidate, priorities: dict[str, str]) -> bool:
    """Whether every issue the candidate mentions had, for its speaker, the level it has for me."""
    levels = candidate.tag("levels") or ""
    for pair in filter(None, levels.split(";")):
        issue, _, level = pair.partition("=")
        if priorities.get(issue) != level:
            return False
    return True


def proposal_template(text: str, share: dict[str, int]) -> tuple[str, dict[str, str]] | None:
    """A proposal as a template: each item mention a slot (`{q0}` count and issue, `{n0}` issue), marked mine or theirs.

    Returns (template, slot -> `mine:Issue` / `theirs:Issue` / `name:Issue`), or None when a count
    cannot be told mine or theirs or a telltale word (`thirsty`) ties the text to its own issues.
    """
    if re.search(r"[{}]", text) or any(t in IMPLICIT_WORDS for t in _TOKEN.findall(text.lower())):
        return None
    tokens = [(m.group(0).lower(), m.start(), m.end()) for m in _TOKEN.finditer(text)]
    pieces: list[str] = []
    roles: dict[str, str] = {}
    cursor = 0
    slot = 0
    skip_until = -1
    for k, (token, start, end) in enumerate(tokens):
        if k <= skip_until:
            continue
        issue = issue_of_word(token)
        if issue is None:
            continue
        # "fire wood": one mention
        stop = end
        if token == "fire" and k + 1 < len(tokens) and tokens[k + 1][0] in {"wood", "woods"} and re.fullmatch(r"[\s-]+", text[end : tokens[k + 1][1]]):
            stop = tokens[k + 1][2]
            skip_until = k + 1
        # the count before it, skipping filler words
        j = k - 1
        skipped = 0
        while j >= 0 and tokens[j][0] in FILLER and skipped < 3:
            j -= 1
            skipped += 1
        count_word = tokens[j][0] if j >= 0 else None
        if count_word in _COUNT_WORDS_HERE and tokens[j][1] >= cursor:
            count = NUMBER_WORDS.get(count_word, 0 if count_word == "no" else None)
            if count is None:
                return None
            if count == share[issue]:
                role = "mine"
            elif count == PACKAGES_PER_ISSUE - share[issue]:
                role = "theirs"
            else:
                return None
            begin = tokens[j][1]
            name = f"q{slot}"
            roles[name] = f"{role}:{issue}"
        else:
            begin = start
            name = f"n{slot}"
            roles[name] = f"name:{issue}"
        pieces.append(escape_braces(text[cursor:begin]))
        pieces.append("{" + name + "}")
        cursor = stop
        slot += 1
        if slot >= 8:
            return None
    pieces.append(escape_braces(text[cursor:]))
    template = "".join(pieces)
    if not roles or re.search(r"\d", _SLOT.sub("", template)):
        return None
    return template, roles


def quantity(count: int, issue: str, rng: random.Random) -> str:
    """A count of an issue in words people use (`all the water`, `2 food`, `no firewood`)."""
    word = issue.lower()
    if count == 0:
        return rng.choice((f"no {word}", f"0 {word}", f"none of the {word}"))
    return rng.choice(COUNT_WORDS[count]).format(x=word)


def render_proposal(template: str, roles: dict[str, str], share: dict[str, int], mapping: dict[str, str], rng: random.Random) -> str:
    """Fill a proposal template with my split, the template's issues renamed by `mapping` (its issue -> mine)."""
    values = {}
    for name, role in roles.items():
        kind, _, issue = role.partition(":")
        mine = mapping[issue]
        if kind == "name":
            values[name] = mine.lower()
        else:
            count = share[mine] if kind == "mine" else PACKAGES_PER_ISSUE - share[mine]
            values[name] = quantity(count, mine, rng)
    return " ".join(template.format_map(values).split())


def build_index(dialogues: Sequence[Dialogue]) -> tuple[UtteranceIndex, dict[str, int]]:
    """Index proposals from every dialogue, and the other acts from the annotated ones."""
    index = UtteranceIndex()
    counts: Counter[str] = Counter()
    for dialogue in dialogues:
        acts = gold_acts(dialogue)
        for position, event in enumerate(dialogue.events):
            if not isinstance(event, Message) or event.party not in dialogue.scenario.private:
                continue
            text = " ".join(event.text.split())
            if not text or len(text.split()) > 45:
                continue
            counts["messages"] += 1
            priorities = dialogue.scenario.private[event.party].get("priorities") or {}
            reading = read(text)
            complete = reading.complete_proposal
            if complete is not None:
                made = proposal_template(text, complete)
                if made is not None:
                    template, roles = made
                    rendered = render_proposal(template, roles, complete, {i: i for i in ISSUES}, random.Random(0))
                    if read(rendered).complete_proposal == complete:  # the template reads back as its own split
                        if index.add("propose", template, {"roles": _roles_tag(roles)}):
                            counts["proposals indexed"] += 1
                continue
            act = acts[position] if acts is not None else None
            if act is None or act == "propose":
                continue
            if reading.proposal is not None or re.search(r"\d", text):
                continue  # a partial split or other numbers: tied to its own dialogue
            if index.add(act, escape_braces(text), level_tags(issues_in(text), priorities)):
                counts["indexed"] += 1
    return index, dict(counts)


def _roles_tag(roles: dict[str, str]) -> str:
    return ";".join(f"{name}={role}" for name, role in sorted(roles.items()))


def _roles_of(candidate: Candidate) -> dict[str, str]:
    tag = candidate.tag("roles") or ""
    return dict(pair.split("=", 1) for pair in tag.split(";") if pair)

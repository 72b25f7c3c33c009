"""The modular CaSiNo agent (He et al. 2018 applied to CaSiNo): parse -> coarse act -> retrieve and fill.

The generic machinery is `duologue.agents.modular`; this module holds what is about the campsite:

* **Coarse acts.** A message is `propose` when it describes a split of at least two issues
  (`understanding.read`), else its negotiation strategy (the corpus's ten labels, the most telling
  one first: elicit-pref, self-need, no-need, other-need, uv-part, vouch-fair, showing-empathy,
  promote-coordination, small-talk, non-strategic), where a non-strategic message that agrees or
  disagrees is `agree` / `disagree`. Deal moves are `submit`, `accept`, `reject`, `walk-away`.
* **Parser.** The partner's messages are read into those acts by the strategy tagger
  (`strategies.py`) when it and its model file are available, else by rules over
  `understanding.read` (a question about the partner's needs is elicit-pref, a stated need
  self-need, ...). The partner's needs, proposals and deals also feed the rule agent's belief
  about its priorities (`agents.PartnerModel`), which the agent plans with.
* **Policy.** P(next act | partner's last act, own last act, stage of the dialogue) counted from
  the annotated corpus dialogues (gold strategy labels and deal moves). Without a corpus, `PRIOR`
  below (rounded per-mille frequencies at the partner's-last-act level) stands in.
* **Rules.** The split to propose and whether to accept come from the rule agent
  (`CasinoRuleAgent`, used as the planner): splits Pareto optimal under its belief, an aspiration
  that comes down over the turns, never a deal worth less than walking away. Answering a submitted
  deal (accept or reject) is the planner's rule, not the policy's. Every split it
  proposes or submits adds up (3 packages per issue), and deals are made only through legal moves.
* **Generator.** Corpus messages indexed by act and by what they say about priorities: each issue
  a message mentions (by name or by a telltale word such as `thirsty` or `cold`) is tagged with the
  level the speaker had for it, and the agent only says messages whose mentioned issues have the
  same levels for itself (so it never claims to need what it does not). Proposals become templates
  with one slot per item mention (`{q0}` = a count and an issue, `{n0}` = an issue), each marked
  as the speaker's share or the partner's; they are filled with the agent's own split (under the
  issue mapping that reads back correctly) and used only when `understanding.read` reads the filled
  text as exactly that split. Every reply is also checked against the agent's priorities (no stated
  need contradicts them) and against the act parser. Otherwise the agent's own templates.
"""

from __future__ import annotations

import itertools
import random
import re
from collections import Counter
from functools import lru_cache
from pathlib import Path
from typing import Any, Sequence

from duologue.agents.modular import START, ActPolicy, Candidate, Knowledge, ModularAgent, UtteranceIndex, corpus_dialogues, escape_braces
from duologue.core import actions
from duologue.core.schema import AcceptDeal, Dialogue, Message, RejectDeal, SubmitDeal, WalkAway
from duologue.core.task import Observation, Task
from duologue.tasks.casino.agents import COUNT_WORDS, CasinoRuleAgent
from duologue.tasks.casino.rules import ISSUES, PACKAGES_PER_ISSUE, WALK_AWAY_POINTS, complement
from duologue.tasks.casino.task import pending_deal
from duologue.tasks.casino.understanding import FILLER, IMPLICIT_WORDS, NUMBER_WORDS, Reading, issue_of_word, read

STRATEGY_ORDER = (
    "elicit-pref", "self-need", "no-need", "other-need", "uv-part", "vouch-fair", "showing-empathy",
    "promote-coordination", "small-talk", "non-strategic",
)
"""Strategy labels, most telling first: a message with several labels takes the first of these."""
MESSAGE_ACTS = ("propose", "agree", "disagree", *STRATEGY_ORDER)
DEAL_ACTS = ("submit", "accept", "reject", "walk-away")
OPTIONS: dict[str, tuple[str, ...]] = {"propose": ("plan", "greedy", "even"), "answer": ("accept", "reject")}
"""The variants a learned strategy may pick (see `choose_option`): the split of a proposal and the answer to a deal."""
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
_TOKEN = re.compile(r"[A-Za-z0-9']+")
_COUNT_WORDS_HERE = {"0", "1", "2", "3", "zero", "one", "two", "three", "all", "no", "none"}
_SLOT = re.compile(r"\{([qn])(\d+)\}")

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


# ---------------------------------------------------------------------------- the agent


class CasinoModularAgent(ModularAgent):
    """A camper that decides coarse acts with a corpus-learned policy and says retrieved corpus lines."""

    name = "modular"
    corpus_relative = "casino/split"

    @classmethod
    def build_knowledge(cls, path: Path) -> Knowledge:
        dialogues = corpus_dialogues("casino", path)
        if not dialogues:
            raise ValueError("no valid CaSiNo dialogue")
        policy = ActPolicy()
        annotated = 0
        for dialogue in dialogues:
            pairs = act_sequence(dialogue)
            annotated += bool(pairs)
            for context, act in pairs:
                policy.add(context, act)
        if annotated == 0:
            raise ValueError("no dialogue with strategy annotations to learn the policy from")
        index, counts = build_index(dialogues)
        stats = {"dialogues": len(dialogues), "annotated": annotated, "acts": int(policy.size), **counts}
        return Knowledge(policy=policy, index=index, source=str(path), stats=stats)

    @classmethod
    def fallback_knowledge(cls) -> Knowledge:
        return Knowledge(policy=ActPolicy.from_table(PRIOR), index=UtteranceIndex(), source="built-in")

    # ------------------------------------------------------------------ episode state

    def reset(self, task: Task, party: str, rng: random.Random) -> None:
        super().reset(task, party, rng)
        self.planner = CasinoRuleAgent()
        """The rule agent as planner: its belief about the partner, the splits it proposes and accepts."""
        self.planner.reset(task, party, rng)
        self.acts_seen: list[str | None] = []
        self.chat_run = 0
        self.stated: Counter[str] = Counter()
        self.greeted_already = False
        self.proposed: list[dict[str, int]] = []
        """The split behind each proposal the agent put in words, in order (its `propose` replies)."""
        self.needs_said: set[str] = set()
        """Issues the agent said it needs: every split it proposes or submits keeps some of each."""
        self.splits_made: list[tuple[dict[str, int], frozenset[str]]] = []
        """Each split it proposed or submitted, with the needs it had stated by then."""

    # ------------------------------------------------------------------ parsing

    def _parse(self, observation: Observation) -> None:
        previous: str | None = None
        for index, event in enumerate(observation.transcript):
            if isinstance(event, Message):
                if index >= len(self.acts_seen):
                    self.acts_seen.append(message_act(event.text, previous))
                previous = event.text
            elif index >= len(self.acts_seen):
                self.acts_seen.append(_DEAL_EVENTS.get(type(event)))

    def context(self, observation: Observation) -> tuple[str, str, str]:
        partner_act = my_act = START
        # The acts seen are a prefix of the transcript (they cover the events parsed so far).
        for event, act in zip(observation.transcript, self.acts_seen, strict=False):
            if act is None:
                continue
            if event.party == self.party:
                my_act = act
            else:
                partner_act = act
        return policy_context(partner_act, my_act, len(observation.transcript))

    # ------------------------------------------------------------------ deciding

    def act(self, observation: Observation) -> actions.Action:
        planner = self.planner
        planner._catch_up(observation)
        self._parse(observation)
        legal = observation.legal
        if self.refused >= 2 and legal:
            self.refused = 0
            return self.task.sample_action(self.party, self.rng)
        if "accept-deal" in legal:
            return self._answer(planner._answer(observation), observation)  # accept only what is worth it; never below walking away at the end
        if "say" not in legal and "submit-deal" not in legal:
            return actions.WalkAway()
        turns_left = observation.turns_left if observation.turns_left is not None else 99
        if planner.partner_agreed and planner.my_offer is not None:
            planner.partner_agreed = False
            return self._submit(planner.my_offer)
        if turns_left <= 6 or planner.unanswered >= 2:
            planner.unanswered = 0
            return self._submit(planner._next_offer(observation))
        their_offer = planner.their_offer
        acceptable_offer = their_offer is not None and planner._acceptable(their_offer, observation)
        if acceptable_offer and their_offer is not None and self.keep_word(their_offer) != their_offer and turns_left > 8:
            acceptable_offer = False  # a split that takes all of what I said I need: counter it, do not agree to it
        allowed = self.allowed_acts(observation, acceptable_offer)
        act = self.choose_act(self.context(observation), allowed)
        return self._perform(act, observation, their_offer if acceptable_offer else None)

    def allowed_acts(self, observation: Observation, acceptable_offer: bool) -> list[str]:
        """The acts the rules let the policy choose from now."""
        planner = self.planner
        mine = [t for t in (observation.transcript) if t.party == self.party]
        allowed = ["small-talk", "self-need", "no-need", "vouch-fair", "promote-coordination", "non-strategic"]
        if not planner.model.informed():
            allowed.append("elicit-pref")
        if planner.partner_shared:
            allowed.append("showing-empathy")
        if self.stated["self-need"]:
            allowed.append("other-need")
        if mine or planner.model.informed():
            allowed.append("propose")
        if acceptable_offer:
            allowed += ["agree", "submit"]
        elif planner.their_offer is not None or planner.i_rejected:
            allowed.append("disagree")
        if planner.my_offer is not None and planner.my_offer not in planner.declined and not acceptable_offer:
            allowed.append("submit")
        if self.chat_run >= 4 or planner.i_rejected or (planner.their_offer is not None and not acceptable_offer):
            allowed = [a for a in allowed if a in ("propose", "submit", "agree", "disagree", "self-need", "vouch-fair")]
        return allowed

    # ------------------------------------------------------------------ acting out an act

    def _perform(self, act: str, observation: Observation, their_offer: dict[str, int] | None) -> actions.Action:
        planner = self.planner
        if act == "submit":
            planner.their_offer = None
            planner.i_rejected = False
            return self._submit(their_offer if their_offer is not None else planner.my_offer or planner._next_offer(observation))
        if act == "propose":
            planner.their_offer = None
            planner.i_rejected = False
            split = self._split(observation)
            self.splits_made.append((dict(split), frozenset(self.needs_said)))
            planner.my_offer, planner.offer_open = dict(split), True
            planner.partner_agreed = False
            planner.proposals += 1
            self.proposed.append(dict(split))
            text = self._proposal_words(split)
            self.chat_run = 0
        else:
            if act == "agree" and their_offer is not None:
                planner.my_offer = dict(their_offer)  # what I agree to is what I will submit
                planner.offer_open = True
                planner.their_offer = None
            elif act == "disagree":
                planner.their_offer = None
                planner.i_rejected = False
            previous = next((e.text for e in reversed(observation.transcript) if isinstance(e, Message)), None)
            text = self._words(act, previous)
            said = read(text)
            if said.proposal is None:  # a retrieved line may state a need besides the one it was chosen for: keep to it too
                self.needs_said |= {issue for issue, value in said.needs.items() if value > 0}
            self.chat_run = self.chat_run + 1 if act in CHAT_ACTS else 0
        planner.greeted = True
        self.greeted_already = self.greeted_already or read(text).greets or act == "small-talk"
        return actions.Say(text=text)

    # ------------------------------------------------------------------ argument variants (for a learned strategy)

    def option_names(self) -> list[str]:
        """Every `point:option` a learned policy may choose (its vocabulary beside the acts)."""
        return [f"{point}:{option}" for point, options in OPTIONS.items() for option in options]

    def choose_option(self, point: str, context: Sequence[str], options: Sequence[str]) -> str:
        """Which variant to play at `point` (`propose` or `answer`): the planner's own, always the first.
        A learned strategy (`rl:`) replaces this; the modular agent itself plays exactly as its planner says."""
        return options[0]

    def _option(self, point: str, observation: Observation, options: Sequence[str]) -> str:
        if len(options) < 2:
            return options[0]
        turns_left = observation.turns_left if observation.turns_left is not None else 99
        stage = "early" if turns_left > 20 else "mid" if turns_left > 10 else "late"
        informed = "informed" if self.planner.model.informed() else "guessing"
        return self.choose_option(point, (*self.context(observation), stage, informed), options)

    def _split(self, observation: Observation) -> dict[str, int]:
        """The split to propose: the planner's (`plan`), or a variant a learned strategy picks: `greedy`, the
        best split for me the belief expects the partner to value above walking away, or `even`, the one
        whose points for the two sides the belief expects closest."""
        planner = self.planner
        splits = {"plan": self.keep_word(planner._next_offer(observation))}
        rows = [r for r in planner._frontier() if r[0] not in planner.declined and r[1] > WALK_AWAY_POINTS and r[2] > WALK_AWAY_POINTS]
        if rows:
            order = lambda r: tuple(r[0][i] for i in ISSUES)  # noqa: E731 - a deterministic tie-break
            greedy = max(rows, key=lambda r: (r[1], r[2], order(r)))
            even = min(rows, key=lambda r: (abs(r[1] - r[2]), -(r[1] + r[2]), order(r)))
            for name, row in (("greedy", greedy), ("even", even)):
                split = self.keep_word(row[0])
                if split not in splits.values():
                    splits[name] = split
        return splits[self._option("propose", observation, list(splits))]

    def _answer(self, answer: actions.Action, observation: Observation) -> actions.Action:
        """The planner's answer to a submitted deal, or the other one when a learned strategy picks it
        (a deal worth less than walking away is never accepted; a walk-away stays one)."""
        deal = pending_deal(observation.transcript)
        if deal is None or not isinstance(answer, (actions.AcceptDeal, actions.RejectDeal)):
            return answer
        usual = "accept" if isinstance(answer, actions.AcceptDeal) else "reject"
        options = [usual] + ([o for o in ("accept", "reject") if o != usual] if self.planner._mine(dict(deal.theirs)) > WALK_AWAY_POINTS else [])
        if self._option("answer", observation, options) == usual:
            return answer
        return actions.AcceptDeal() if usual == "reject" else actions.RejectDeal()

    def _submit(self, share: dict[str, int]) -> actions.Action:
        self.chat_run = 0
        share = self.keep_word(share)
        self.splits_made.append((dict(share), frozenset(self.needs_said)))
        return self.planner._submit(share)

    def keep_word(self, split: dict[str, int]) -> dict[str, int]:
        """My split, changed as little as possible to follow what I said about my priorities: at least one of
        each issue I said I need, and never less of my top issue than of my least needed one."""
        split = dict(split)
        priorities = self.planner.priorities
        top = next((i for i, level in priorities.items() if level == "High"), None)
        low = next((i for i, level in priorities.items() if level == "Low"), None)
        needed = [i for i in ISSUES if i in self.needs_said] + ([top] if top and self.needs_said else [])
        for issue in dict.fromkeys(needed):
            if split[issue] == 0:
                donor = max((i for i in ISSUES if i != issue and i not in self.needs_said), key=lambda i: (split[i], i == low), default=None)
                if donor is not None and split[donor] > 0:
                    split[donor] -= 1
                    split[issue] += 1
        if top and low and split[top] < split[low]:
            split[top], split[low] = split[low], split[top]
        return split

    # ------------------------------------------------------------------ words

    def _honest(self, reading: Reading) -> bool:
        """Nothing the message says about the speaker's needs contradicts my priorities."""
        for issue, value in reading.needs.items():
            level = self.planner.priorities.get(issue)
            if (value > 0 and level == "Low") or (value < 0 and level == "High"):
                return False
        return all(self.planner.priorities.get(more) != "Low" and self.planner.priorities.get(less) != "High" for more, less in reading.prefers)

    def _fresh(self, text: str, reading: Reading | None = None) -> bool:
        """No second greeting once I have greeted (retrieved lines often open with `Hello`)."""
        if not self.greeted_already:
            return True
        reading = reading if reading is not None else read(text)
        return not reading.greets

    def _words(self, act: str, previous: str | None) -> str:
        """Retrieve and check words for a non-proposal act; `previous` is the message before (the tagger's context)."""
        priorities = self.planner.priorities
        focus_level = {"self-need": "High", "other-need": "High", "no-need": "Low"}.get(act)
        if act == "self-need" and self.stated["self-need"] >= 2:
            focus_level = "Medium"
        focus = next((issue for issue, level in priorities.items() if level == focus_level), None)
        if act in ("self-need", "no-need", "other-need"):
            self.stated[act] += 1
        if act == "self-need" and focus is not None:
            self.needs_said.add(focus)
        values = {"issue": focus.lower(), "Issue": focus} if focus else {}

        def fits(text: str) -> bool:
            reading = read(text)
            if reading.proposal is not None or not self._honest(reading) or not self._fresh(text, reading):
                return False
            if act != "agree" and reading.agrees and not reading.disagrees:
                return False  # agreeing to nothing (or to what I am not taking) misleads the partner
            if reading.disagrees and not reading.agrees and act not in ("disagree", "vouch-fair", "uv-part", "self-need", "no-need", "other-need"):
                return False
            if focus is not None and focus not in issues_in(text):
                return False
            return act in message_acts(text, previous) if checkable(act) else True

        def accept(candidate: Candidate) -> bool:
            return consistent(candidate, priorities)

        fallback = [t for t in TEMPLATES.get(act, TEMPLATES["non-strategic"]) if focus is not None or "{" not in t] or list(TEMPLATES["non-strategic"])
        prefer = {"levels": f"{focus}={focus_level}"} if focus else {"levels": ""}
        return self.realize(act, values=values, fits=fits, fallback=fallback, accept=accept, prefer=prefer, checked=checkable(act))

    def _proposal_words(self, split: dict[str, int]) -> str:
        planner = self.planner
        theirs = complement(split)
        values = {
            "mine": planner._items({i: split[i] for i in sorted(ISSUES, key=lambda i: -split[i])}),
            "theirs": planner._items({i: theirs[i] for i in sorted(ISSUES, key=lambda i: -theirs[i])}),
        }
        def render(candidate: Candidate) -> str | None:
            """The candidate filled with my split, under the first issue mapping (in random order) that reads back right."""
            roles = _roles_of(candidate)
            mappings = [dict(zip(ISSUES, order, strict=True)) for order in itertools.permutations(ISSUES)]
            self.rng.shuffle(mappings)
            for mapping in mappings:
                text = render_proposal(candidate.template, roles, split, mapping, self.rng)
                if read(text).complete_proposal == split:
                    return text
            return None

        def fits(text: str) -> bool:
            # what a split asks for is read as weak evidence of needs; the split is the planner's, so no honesty check here
            return read(text).complete_proposal == split and self._fresh(text)

        return self.realize("propose", values=values, fits=fits, fallback=TEMPLATES["propose"], render=render, slots=PROPOSAL_SLOTS)


def describe_knowledge(knowledge: Knowledge) -> dict[str, Any]:
    """Sizes of what the agent learned (for the benchmark's table)."""
    return {"source": knowledge.source, "acts counted": int(knowledge.policy.size), "templates": len(knowledge.index), **knowledge.stats}

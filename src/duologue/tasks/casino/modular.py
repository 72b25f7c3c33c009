"""The modular CaSiNo agent (He et al. 2018 applied to CaSiNo): parse -> coarse act -> retrieve and fill.

The generic machinery is `duologue.modular.agent`; this module holds what is about the campsite:

* **Coarse acts.** A message is `propose` when it describes a split of at least two issues
  (`understanding.read`), else its negotiation strategy (the corpus's ten labels, the most telling
  one first: elicit-pref, self-need, no-need, other-need, uv-part, vouch-fair, showing-empathy,
  promote-coordination, small-talk, non-strategic), where a non-strategic message that agrees or
  disagrees is `agree` / `disagree`. Deal moves are `submit`, `accept`, `reject`, `walk-away`.
* **Parser.** The partner's messages are read into those acts by the strategy tagger
  (`strategies.py`) when it and its model file are available, else by rules over
  `understanding.read` (a question about the partner's needs is elicit-pref, a stated need
  self-need, ...). The partner's needs, proposals and deals also feed the rule agent's belief
  about its priorities (`planning.PartnerModel`), which the agent plans with.
* **Policy.** P(next act | partner's last act, own last act, stage of the dialogue) counted from
  the annotated corpus dialogues (gold strategy labels and deal moves). Without a corpus, `PRIOR`
  below (rounded per-mille frequencies at the partner's-last-act level) stands in.
* **Rules.** The split to propose and whether to accept come from the rule agent
  (`CasinoRuleAgent`, used as the planner): splits Pareto optimal under its belief, an aspiration
  that comes down over the turns, never a deal worth less than walking away. Answering a submitted
  deal (accept or reject) is the planner's rule, not the policy's. Every split it
  proposes or submits adds up (3 packages per issue), and deals are made only through legal moves.
  When a deal is due the policy is not asked (`_deal_due`): a refusal (my deal turned down, or one
  I turned down after proposing once) is answered at once by the next concession as a deal; so is a
  partner's message with nothing to answer once I have proposed (a person who has run out of things
  to say waits for an offer, and leaves if none comes); and after `STALL_AFTER` chat moves in a row,
  once either side has said what it needs, the policy may only make a split. Concessions keep my
  word (a split kept to my stated needs that was already refused is not offered again) and stop a
  little under the fair split, however often the partner refuses and however late it is; a deal
  under that floor is not taken either (`modular_options.StrategyOptions.floor`). Against people's own scripts (`duologue replay`) these
  rules took the agent from deals in 0.45 of the validation dialogues to over 0.9.
* **Generator.** Corpus messages indexed by act and by what they say about priorities: each issue
  a message mentions (by name or by a telltale word such as `thirsty` or `cold`) is tagged with the
  level the speaker had for it, and the agent only says messages whose mentioned issues have the
  same levels for itself (so it never claims to need what it does not). Proposals become templates
  with one slot per item mention (`{q0}` = a count and an issue, `{n0}` = an issue), each marked
  as the speaker's share or the partner's; they are filled with the agent's own split (under the
  issue mapping that reads back correctly) and used only when `understanding.read` reads the filled
  text as exactly that split. Every reply is also checked against the agent's priorities (no stated
  need contradicts them) and against the act parser. Otherwise the agent's own templates.

The acts and their parser live in `modular_acts.py`, the wording and the index in `modular_words.py`,
and the variants a learned strategy may choose (`rl:`) in `modular_options.py`.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from pathlib import Path
from typing import Any

from duologue.modular.agent import ActPolicy, Candidate, Knowledge, ModularAgent, UtteranceIndex
from duologue.tasks import corpus_dialogues
from duologue.core import actions
from duologue.core.schema import Message
from duologue.core.task import Observation, Task
from duologue.tasks.casino.agents import CasinoRuleAgent
from duologue.tasks.casino.modular_acts import (
    _DEAL_EVENTS,
    CHAT_ACTS,
    DEAL_ACTS,
    MESSAGE_ACTS,
    PRIOR,
    RULE_READABLE,
    STRATEGY_ORDER,
    act_sequence,
    checkable,
    coarse_act,
    gold_acts,
    is_proposal,
    issues_in,
    message_act,
    message_acts,
    policy_context,
    rule_labels,
    stage,
    strategy_tagger,
)
from duologue.tasks.casino.modular_words import (
    PROPOSAL_SLOTS,
    TEMPLATES,
    _roles_of,
    build_index,
    consistent,
    level_tags,
    proposal_template,
    quantity,
    render_proposal,
)
from duologue.tasks.casino.modular_options import OPTIONS, StrategyOptions, balance
from duologue.tasks.casino.rules import ISSUES, complement
from duologue.tasks.casino.understanding import Reading, read

__all__ = [
    "CHAT_ACTS", "DEAL_ACTS", "MESSAGE_ACTS", "OPTIONS", "PRIOR", "PROPOSAL_SLOTS", "RULE_READABLE", "STRATEGY_ORDER", "TEMPLATES",
    "CasinoModularAgent", "act_sequence", "balance", "build_index", "checkable", "coarse_act", "consistent", "describe_knowledge", "gold_acts",
    "is_proposal", "issues_in", "level_tags", "message_act", "message_acts", "policy_context", "proposal_template", "quantity",
    "render_proposal", "rule_labels", "stage", "strategy_tagger",
]


# ---------------------------------------------------------------------------- the agent

STALL_AFTER = 3
"""Chat moves in a row after which, once either side has said what it needs, the agent makes a split:
people leave a partner who only talks."""


class CasinoModularAgent(StrategyOptions, ModularAgent):
    """A camper that decides coarse acts with a corpus-learned policy and says retrieved corpus lines."""

    name = "modular"
    corpus_relative = "casino/split"

    @classmethod
    def build_knowledge(cls, path: Path) -> Knowledge:
        dialogues = corpus_dialogues("casino", path)
        if not dialogues:
            raise ValueError("no valid CaSiNo dialogue")
        sequences = [act_sequence(dialogue) for dialogue in dialogues]
        annotated = sum(1 for pairs in sequences if pairs)
        policy = ActPolicy.counted(pair for pairs in sequences for pair in pairs)
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
        partner_act, my_act = self.last_acts(observation.transcript, self.acts_seen)
        return policy_context(partner_act, my_act, len(observation.transcript))

    # ------------------------------------------------------------------ deciding

    def act(self, observation: Observation) -> actions.Action:
        planner = self.planner
        planner._catch_up(observation)
        self._parse(observation)
        legal = observation.legal
        unstuck = self.unstick(observation)
        if unstuck is not None:
            return unstuck
        if "walk-away" in legal and planner._walks_off(0):  # refused below the fair split, it may leave as people do
            return actions.WalkAway()
        if "accept-deal" in legal:
            return self._answer(planner._answer(observation), observation)  # accept only what is worth it; never below walking away at the end
        if "say" not in legal and "submit-deal" not in legal:
            return actions.WalkAway()
        turns_left = observation.turns_left if observation.turns_left is not None else 99
        due = self._deal_due(observation, turns_left)
        if due is not None:
            return self._submit(due)
        their_offer = planner.their_offer
        acceptable_offer = their_offer is not None and planner._acceptable(their_offer, observation)
        if acceptable_offer and their_offer is not None and self.keep_word(their_offer) != their_offer and turns_left > 8:
            acceptable_offer = False  # a split that takes all of what I said I need: counter it, do not agree to it
        allowed = self.allowed_acts(observation, acceptable_offer)
        act = self.choose_act(self.context(observation), allowed)
        return self._perform(act, observation, their_offer if acceptable_offer else None)

    def _deal_due(self, observation: Observation, turns_left: int) -> dict[str, int] | None:
        """The split to put on the table now when the deal rules say a deal is due, else None (the policy decides).

        A deal is due to settle what was agreed (the partner said yes to my proposal; I turned a deal
        down for a split better for both), to answer a refusal (my deal was turned down, or I turned
        one down after proposing once: the next concession goes on the table at once), when the
        partner's last message adds nothing to answer after I proposed (no needs, no split, no
        refusal: a partner who has run out of things to say is waiting for an offer, and leaves if
        none comes), and when the turns run short. The split is the planner's next concession (or a
        variant a learned strategy picks), never past what the partner itself asked for.
        """
        planner = self.planner
        if planner.improved is not None:
            offer, planner.improved = planner.improved, None
            planner.i_rejected = False
            return offer
        if planner.partner_agreed and planner.my_offer is not None:
            planner.partner_agreed = False
            return planner.my_offer
        their_offer = planner.their_offer
        if their_offer is not None and planner.they_rejected and planner._acceptable(their_offer, observation):
            planner.their_offer = None  # they turned my deal down but said a split I can take: take it
            planner.they_rejected = False
            return their_offer
        refused = planner.they_rejected or (planner.i_rejected and planner.proposals > 0)
        idle = planner.unanswered >= 2 or (planner.proposals > 0 and self._partner_adds_nothing(observation))
        if turns_left > 6 and (refused or idle) and self._option("due", observation, OPTIONS["due"], reason="refused" if refused else "idle") == "talk":
            planner.they_rejected = False  # a learned strategy may answer in words instead (the plain agent never does)
            planner.unanswered = 0
            return None
        if refused or idle or turns_left <= 6:
            planner.they_rejected = planner.i_rejected = False
            planner.unanswered = 0
            planner.their_offer = None
            return self._split(observation)
        return None

    def _partner_adds_nothing(self, observation: Observation) -> bool:
        """Whether the newest move is a message of the partner's with nothing to answer: no split, no need or
        preference, no refusal, and no question about my needs that I have not answered yet."""
        last = observation.transcript[-1] if observation.transcript else None
        if not isinstance(last, Message) or last.party == self.party:
            return False
        reading = read(last.text)
        if reading.proposal is not None or reading.needs or reading.prefers or reading.disagrees:
            return False
        return not reading.asks_preferences or bool(self.needs_said)

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
        if self.chat_run >= STALL_AFTER and "propose" in allowed and (planner.model.informed() or self.needs_said):
            allowed = [a for a in allowed if a in ("propose", "submit", "agree")]  # enough talk: both know enough to make a split
        return allowed

    # ------------------------------------------------------------------ acting out an act

    def _perform(self, act: str, observation: Observation, their_offer: dict[str, int] | None) -> actions.Action:
        planner = self.planner
        if act == "submit":
            planner.their_offer = None
            planner.i_rejected = False
            return self._submit(their_offer if their_offer is not None else planner.my_offer or self._split(observation))
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

    def _submit(self, share: dict[str, int]) -> actions.Action:
        self.chat_run = 0
        share = self.keep_word(share)
        self.splits_made.append((dict(share), frozenset(self.needs_said)))
        return self.planner._submit(share)

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

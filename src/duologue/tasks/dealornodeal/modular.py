"""The modular Deal or No Deal agent (He et al. 2018 applied to Deal or No Deal): parse -> coarse act -> retrieve and fill.

The generic machinery is `duologue.modular.agent`; this module holds what is about books, hats and balls:

* **Coarse acts** (`modular_acts.py`): `greet`, `propose` (with a split), `insist` (the speaker's
  own last split again), `agree`, `disagree`, `inquire`, `unknown`, and the deal move `select`.
* **Parser.** The partner's messages are read with the task's reader (`understanding.read`) into
  those acts; the rule agent (`DealRuleAgent`, kept as the planner) reads them too, for its belief
  about what the partner wants, the partner's proposals and whether a split was agreed.
* **Policy.** P(next act | partner's last act, own last act, stage) counted from the corpus
  dialogues (`dealornodeal/val.txt`), or `PRIOR` without a corpus.
* **Rules.** The split to propose and what to accept are the planner's: its proposal at its current
  aspiration, and a partner's split taken when worth at least a point under that aspiration (or what
  it would propose next). Every split adds up to the pool and is worth something to the agent (a
  deal worth nothing is no better than no deal). Once a split is agreed the agent selects it; when
  chat runs out it makes the planner's final choice. A partner's proposal the planner would take is
  answered at once with `agree`; otherwise the policy chooses among the acts the rules allow now
  (`disagree` only to a split just put to me, no more than two chat moves in a row, `inquire` and
  `greet` early only).
* **Options** for learned strategies (`choose_option`, `OPTIONS`): `propose` (`plan`, the planner's
  split; `greedy`, the best split for me that leaves the partner something; `even`, the one whose
  points the belief expects closest for the two sides) and `answer` (to a partner's split: the
  planner's answer first, the other one only when the split is worth something to me). The plain
  agent always takes the first, so it proposes and accepts as the rule planner does.
* **Generator** (`modular_words.py`): corpus lines indexed by act, split-stating ones as templates
  filled with the agent's split (lines that need no `no <item>` first); every filled candidate is
  kept only when the reader reads it as the intended act and split, a proposal or refusal carries no
  word of assent (`ok, but ...`) and only a first move greets; else the agent's own templates.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any, Sequence

from duologue.modular.agent import ActPolicy, Candidate, Knowledge, ModularAgent, OptionChoices, UtteranceIndex, fill
from duologue.tasks import corpus_dialogues
from duologue.core import actions
from duologue.core.task import Observation, Task
from duologue.tasks.dealornodeal.agents import DealRuleAgent, describe
from duologue.tasks.dealornodeal.modular_acts import CHAT_ACTS, GREET_WORDS, PRIOR, ActReader, act_sequence, event_act, message_act, policy_context
from duologue.tasks.dealornodeal.modular_words import SLOTS, SPLIT_ACTS, TEMPLATES, build_index, render_split, zero_slots
from duologue.tasks.dealornodeal.rules import all_shares, complement, value
from duologue.tasks.dealornodeal.understanding import ACCEPT_WORDS, WORD, read

OPTIONS: dict[str, tuple[str, ...]] = {"propose": ("plan", "greedy", "even"), "answer": ("accept", "reject")}
"""The variants a learned strategy may pick (see the module docstring)."""
AGREEING = ACCEPT_WORDS - {"deal"}
"""Words of assent (`no deal` says `deal` too): a proposal or a refusal the agent says carries none."""
CHAT_RUN = 2
"""Chat moves (no split) in a row after which the agent must move a split."""


class DealModularAgent(OptionChoices, ModularAgent):
    """A Deal or No Deal negotiator that decides coarse acts with a corpus-learned policy and says retrieved lines."""

    name = "modular"
    corpus_relative = "dealornodeal/val.txt"
    option_variants = OPTIONS

    @classmethod
    def build_knowledge(cls, path: Path) -> Knowledge:
        dialogues = corpus_dialogues("dealornodeal", path)
        if not dialogues:
            raise ValueError("no valid Deal or No Deal dialogue")
        policy = ActPolicy.counted(pair for dialogue in dialogues for pair in act_sequence(dialogue))
        index, counts = build_index(dialogues)
        stats = {"dialogues": len(dialogues), "acts": int(policy.size), **counts}
        return Knowledge(policy=policy, index=index, source=str(path), stats=stats)

    @classmethod
    def fallback_knowledge(cls) -> Knowledge:
        return Knowledge(policy=ActPolicy.from_table(PRIOR), index=UtteranceIndex(), source="built-in")

    # ------------------------------------------------------------------ episode state

    def reset(self, task: Task, party: str, rng: random.Random) -> None:
        super().reset(task, party, rng)
        self.planner = DealRuleAgent()
        """The rule agent as planner: its reading of the partner, the splits it proposes and accepts."""
        self.planner.reset(task, party, rng)
        self.reader: ActReader | None = None
        self.acts_seen: list[str | None] = []
        self.chat_run = 0
        self.said: list[str] = []
        """The act of each message the agent said, in order."""

    # ------------------------------------------------------------------ parsing

    def _parse(self, observation: Observation) -> None:
        if self.reader is None:
            self.reader = ActReader(self.planner.pool)
        reader = self.reader
        self.acts_seen.extend(event_act(reader, event) for event in observation.transcript[len(self.acts_seen) :])

    def context(self, observation: Observation) -> tuple[str, str, str]:
        partner_act, my_act = self.last_acts(observation.transcript, self.acts_seen)
        return policy_context(partner_act, my_act, len(observation.transcript))

    # ------------------------------------------------------------------ deciding

    def act(self, observation: Observation) -> actions.Action:
        planner = self.planner
        planner._read(observation)
        self._parse(observation)
        legal = observation.legal
        unstuck = self.unstick(observation)
        if unstuck is not None:
            return unstuck
        if "say" not in legal:
            return planner._choose(self._final_choice())
        if planner.agreed is not None and value(planner.agreed, planner.values) > 0:
            return planner._choose(planner.agreed)
        planner.agreed = None
        aspiration = planner._aspiration(observation)
        offered = planner.pending
        planner.pending = None
        if offered is not None:
            usual = "accept" if self._acceptable(offered, aspiration) else "reject"
            options = [usual] + ([o for o in OPTIONS["answer"] if o != usual] if value(offered, planner.values) > 0 else [])
            if self._option("answer", observation, options, offered) == "accept":
                planner.agreed = dict(offered)
                return self._say("agree", offered)
        allowed = self.allowed_acts(observation, offered)
        act = self.choose_act(self.context(observation), allowed)
        if act in ("propose", "insist"):
            split = planner.my_last if act == "insist" and planner.my_last is not None else self._split(observation, aspiration)
            if self.reader is not None and self.reader.proposed.get(self.party) == split:
                act = "insist"  # the planner's split has not moved: saying it again is insisting on it
            planner.my_last = dict(split)
            planner.proposals += 1
            return self._say(act, split)
        return self._say(act, None)

    def _acceptable(self, offered: dict[str, int], aspiration: float) -> bool:
        """The planner's rule (`DealRuleAgent._acceptable`), and never a split worth nothing (no better than no deal)."""
        return value(offered, self.planner.values) > 0 and self.planner._acceptable(offered, aspiration)

    def _final_choice(self) -> dict[str, int]:
        """The planner's choice when chat is over (what was agreed, else its best guess at what matches)."""
        return self.planner._final_choice()

    def allowed_acts(self, observation: Observation, offered: dict[str, int] | None) -> list[str]:
        """The acts the rules let the policy choose from now."""
        allowed = ["propose"]
        if self.planner.my_last is not None:
            allowed.append("insist")
        if offered is not None:
            allowed.append("disagree")  # refusing answers a split just put to me (two refusals in a row lead nowhere)
        if self.chat_run < CHAT_RUN and offered is None:
            allowed.append("unknown")
            if len(observation.transcript) < 4 and "inquire" not in self.said:
                allowed.append("inquire")
            if not self.said and not observation.transcript:
                allowed.append("greet")
        return allowed

    # ------------------------------------------------------------------ splits

    def _split(self, observation: Observation, aspiration: float) -> dict[str, int]:
        """The split to propose: the planner's (`plan`) or a variant a learned strategy picks (see `OPTIONS`)."""
        splits = self.splits(aspiration)
        return splits[self._option("propose", observation, list(splits), splits["plan"])]

    def splits(self, aspiration: float) -> dict[str, dict[str, int]]:
        """The distinct splits on offer (my share in each): the planner's first, then the greedy and even variants."""
        planner = self.planner
        pool, values = planner.pool, planner.values
        plan = planner._proposal(aspiration)
        shares = [s for s in all_shares(pool) if any(complement(s, pool).values()) and value(s, values) > 0]
        out = {"plan": plan}
        if shares:
            greedy = max(shares, key=lambda s: (value(s, values), planner._partner_value(complement(s, pool))))
            even = min(shares, key=lambda s: (abs(value(s, values) - planner._partner_value(complement(s, pool))),
                                              -(value(s, values) + planner._partner_value(complement(s, pool)))))
            for name, share in (("greedy", greedy), ("even", even)):
                if share not in out.values():
                    out[name] = share
        return out

    def _option(self, point: str, observation: Observation, options: Sequence[str], split: dict[str, int] | None = None) -> str:
        if len(options) < 2:
            return options[0]
        turns_left = observation.turns_left if observation.turns_left is not None else 99
        seen: tuple[str, ...] = (*self.context(observation), "early" if turns_left > 14 else "mid" if turns_left > 6 else "late")
        if split is not None:
            seen = (*seen, f"worth={min(value(split, self.planner.values) // 2, 4)}")
        return self.choose_option(point, seen, options)

    # ------------------------------------------------------------------ words

    def _say(self, act: str, split: dict[str, int] | None) -> actions.Say:
        self.chat_run = self.chat_run + 1 if act in CHAT_ACTS else 0
        text = self.words(act, split)
        self.said.append(act)
        return actions.Say(text=text)

    def words(self, act: str, split: dict[str, int] | None) -> str:
        """Words for `act` (and the split it states: my share): a retrieved line that reads back right, else a template."""
        planner = self.planner
        pool = planner.pool
        reader = self.reader or ActReader(pool)
        own_last = reader.proposed.get(self.party)
        offered = reader.offered_to(self.party)
        if act == "insist":
            own_last = split  # the split said before (the reader has it; the planner may have another view)
        values = {"mine": describe(split, pool), "theirs": describe(complement(split, pool), pool)} if split is not None else {}

        def fits(text: str) -> bool:
            said = message_act(text, pool, own_last, offered if act != "agree" else split)
            if said != act:
                return False
            if act in ("propose", "insist", "disagree") and set(WORD.findall(text.lower())) & AGREEING:
                return False  # `ok, but i need the books` / `ok, i can live with it`: reads as a yes while it is not one
            if self.said and GREET_WORDS & set(WORD.findall(text.lower())[:1]):
                return False  # one greeting, at the start
            got = read(text, pool).speaker_gets
            return got == split if act in ("propose", "insist") else got is None or got == split

        def render(candidate: Candidate) -> str | None:
            if candidate.tag("roles"):
                return render_split(candidate, split, pool, self.rng) if split is not None else None
            if split is not None and act != "agree":
                return None  # a split act needs a line that states the split (a plain `deal` agrees to the partner's)
            return fill(candidate.template, {})

        fallback = TEMPLATES[act] if split is not None or act not in SPLIT_ACTS else ("ok, deal.", "deal.")
        slots: tuple[str, ...] = SLOTS if split is not None else ()
        rank = (lambda c: -float(zero_slots(c, split, pool))) if split is not None else None  # noqa: E731
        return self.realize(act, values=values, fits=fits, fallback=fallback, render=render, slots=slots, rank=rank)


def describe_knowledge(knowledge: Knowledge) -> dict[str, Any]:
    """Sizes of what the agent learned (for the benchmark's table)."""
    return {"source": knowledge.source, "acts counted": int(knowledge.policy.size), "templates": len(knowledge.index), **knowledge.stats}


__all__ = ["CHAT_RUN", "OPTIONS", "DealModularAgent", "describe_knowledge"]

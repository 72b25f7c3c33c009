"""What a learned strategy may choose in the CaSiNo modular agent beside the act, and what it sees when it does.

Where the agent's planner fixes an argument, `StrategyOptions` offers a learned strategy (`rl:`)
variants of it, named `point:option` (`OPTIONS`), always with the planner's own first (the plain
`modular` agent plays that one, so it plays exactly as its planner says):

* `propose` (a split said in words or put on the table as a deal): `plan`, the planner's next
  offer; `greedy`, the best split for me that the belief expects the partner to value above walking
  away; `even`, the one whose points for the two sides the belief expects closest;
* `answer` (a submitted deal): the planner's answer (never below the agent's `floor`) or the other
  one (a deal worth less than walking away is never accepted);
* `due` (the deal rules call for a deal after a refusal or a partner with nothing to add, before
  the last six turns): `deal`, as the rules say, or `talk`, leaving the move to the act policy.

The strategy sees the act context, how late it is, whether the belief is informed, and how
balanced the split in question is under the belief (`balance`: `even` within two points, else who
is ahead, and whether by much), so a fairness-minded strategy can tell an even deal from a
lopsided one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from duologue.modular.policy import OptionChoices
from duologue.core import actions
from duologue.core.task import Observation
from duologue.tasks.casino.rules import ISSUES, WALK_AWAY_POINTS, complement
from duologue.tasks.casino.task import pending_deal

if TYPE_CHECKING:
    from duologue.tasks.casino.agents import CasinoRuleAgent

OPTIONS: dict[str, tuple[str, ...]] = {"propose": ("plan", "greedy", "even"), "answer": ("accept", "reject"), "due": ("deal", "talk")}
"""The variants a learned strategy may pick (see `StrategyOptions.choose_option`)."""
EVEN_WITHIN = 2.0
"""Points between the two sides' (expected) totals that still count as an even split."""
FAR = 8.0
"""A lead of more than this many points is a lopsided split."""
FLOOR_BELOW_FAIR = 4
"""However often the partner refuses, offers keep me at most this many points under the fair split (`floor`)."""


def balance(mine: float, theirs: float) -> str:
    """How a split sits between the two sides: `balance=even`, `ahead`, `far-ahead`, `behind` or `far-behind` (for me)."""
    lead = mine - theirs
    if abs(lead) <= EVEN_WITHIN:
        return "balance=even"
    side = "ahead" if lead > 0 else "behind"
    return f"balance={'far-' if abs(lead) > FAR else ''}{side}"


class StrategyOptions(OptionChoices):
    """The argument variants of the CaSiNo modular agent (a mixin: the agent supplies its planner and context)."""

    option_variants = OPTIONS

    planner: CasinoRuleAgent
    needs_said: set[str]

    def context(self, observation: Observation) -> tuple[str, ...]:  # pragma: no cover - the agent's own
        raise NotImplementedError

    def expected(self, split: dict[str, int]) -> tuple[int, float]:
        """(my points, the partner's points the belief expects) of a split in which I keep `split`."""
        value = self.planner.model.value_per_package()
        return self.planner._mine(split), sum(value[i] * n for i, n in complement(split).items())

    def _option(self, point: str, observation: Observation, options: Sequence[str], split: dict[str, int] | None = None, reason: str | None = None) -> str:
        if len(options) < 2:
            return options[0]
        turns_left = observation.turns_left if observation.turns_left is not None else 99
        stage = "early" if turns_left > 20 else "mid" if turns_left > 10 else "late"
        informed = "informed" if self.planner.model.informed() else "guessing"
        seen = (*self.context(observation), stage, informed)
        if split is not None:
            seen = (*seen, balance(*self.expected(split)))
        if reason is not None:
            seen = (*seen, f"due={reason}")
        return self.choose_option(point, seen, options)

    def _split(self, observation: Observation) -> dict[str, int]:
        """The split to propose or submit: the planner's (`plan`) or a variant a learned strategy picks (see `OPTIONS`)."""
        planner = self.planner
        plan = self.keep_word(planner._next_offer(observation))
        if plan in planner.declined:
            plan = self._next_kept() or plan
        floor = self.floor(observation)
        if planner._mine(plan) < floor:
            plan = self._at_floor(floor)
        splits = {"plan": plan}
        rows = [r for r in planner._frontier() if r[0] not in planner.declined and r[1] > WALK_AWAY_POINTS and r[2] > WALK_AWAY_POINTS]
        if rows:
            order = lambda r: tuple(r[0][i] for i in ISSUES)  # noqa: E731 - a deterministic tie-break
            greedy = max(rows, key=lambda r: (r[1], r[2], order(r)))
            even = min(rows, key=lambda r: (abs(r[1] - r[2]), -(r[1] + r[2]), order(r)))
            for name, row in (("greedy", greedy), ("even", even)):
                split = self.keep_word(row[0])
                if split not in splits.values():
                    splits[name] = split
        return splits[self._option("propose", observation, list(splits), splits["plan"])]

    def floor(self, observation: Observation) -> float:
        """The least I keep in a split I offer or take: a little under the fair split (the planner's aspiration
        floor), however often the partner refuses and however late it is. Conceding everything because the
        clock runs out would pay a partner for stalling; people, too, turn down a split far below fair."""
        low, _ = self.planner._fair_range(self.planner._frontier())
        return max(low - FLOOR_BELOW_FAIR, WALK_AWAY_POINTS + 2)

    def _at_floor(self, floor: float) -> dict[str, int]:
        """The split that gives the partner most while keeping me at `floor` (one not refused yet if there is one)."""
        planner = self.planner
        rows = [r for r in planner._rows()[0] if r[1] >= floor and self.keep_word(r[0]) == r[0]] or [r for r in planner._rows()[0] if r[1] >= floor]
        fresh = [r for r in rows if r[0] not in planner.declined] or rows
        return dict(max(fresh, key=lambda r: (r[2], r[1], tuple(r[0][i] for i in ISSUES)))[0])

    def _next_kept(self) -> dict[str, int] | None:
        """The smallest concession past every split the partner turned down that also keeps my word (`keep_word`
        leaves it as it is): the planner's own next offer may turn, once kept to my stated needs, into a split
        already refused, and offering that again is no concession at all. None when there is no such split."""
        planner = self.planner
        rows = planner._rows()[0]
        value = {tuple(r[0][i] for i in ISSUES): r[2] for r in rows}
        floor = max((value[tuple(o[i] for i in ISSUES)] for o in planner.refused_offers), default=0.0)
        kept = [r for r in rows if r[0] not in planner.declined and r[1] > WALK_AWAY_POINTS and r[2] >= floor - 1e-9 and self.keep_word(r[0]) == r[0]]
        if not kept:
            return None
        return dict(max(kept, key=lambda r: (r[1], r[2], tuple(r[0][i] for i in ISSUES)))[0])

    def _answer(self, answer: actions.Action, observation: Observation) -> actions.Action:
        """The planner's answer to a submitted deal, or the other one when a learned strategy picks it
        (a deal worth less than walking away is never accepted; a walk-away stays one)."""
        deal = pending_deal(observation.transcript)
        if deal is None or not isinstance(answer, (actions.AcceptDeal, actions.RejectDeal)):
            return answer
        mine = dict(deal.theirs)
        if isinstance(answer, actions.AcceptDeal) and mine != self.planner.my_offer and self.planner._mine(mine) < self.floor(observation):
            answer = actions.RejectDeal()  # the planner takes anything above walking away at the very end; not below my floor
        usual = "accept" if isinstance(answer, actions.AcceptDeal) else "reject"
        options = [usual] + ([o for o in ("accept", "reject") if o != usual] if self.planner._mine(mine) > WALK_AWAY_POINTS else [])
        if self._option("answer", observation, options, mine) == usual:
            return answer
        if usual == "reject":
            self.planner.improved = None  # taking the deal after all: no counter is due
            return actions.AcceptDeal()
        return actions.RejectDeal()

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

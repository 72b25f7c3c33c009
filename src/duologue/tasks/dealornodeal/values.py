"""Deal or No Deal's declared values (`duologue.core.values`): every split of the pool, each side's
value of what it takes (`rules.value`), 0 without agreement. An offer is made in words (the rule
bot's phrasing, read back by `understanding.read`); taking one is the matching private choice."""

from __future__ import annotations

from typing import Any, Hashable

from duologue.core import actions
from duologue.core.schema import Event, Message, Scenario
from duologue.core.values import Deal, Values
from duologue.tasks.dealornodeal.rules import ITEMS, all_shares, complement, value
from duologue.tasks.dealornodeal.rules import describe as words_for
from duologue.tasks.dealornodeal.understanding import read


class DealValues(Values):
    """A deal is `{party: share}` for both parties, as `Outcome.deal` writes it."""

    def __init__(self, parties: tuple[str, str], scenario: Scenario) -> None:
        super().__init__(parties)
        pool: Any = scenario.public["pool"]
        self.pool = {item: int(pool[item]) for item in ITEMS}
        self.item_values: dict[str, Any] = {p: view["values"] for p, view in scenario.private.items() if isinstance(view, dict) and "values" in view}

    def key(self) -> Hashable | None:
        return (self.parties, tuple(self.pool.items()), tuple(tuple(sorted(self.item_values.get(p, {}).items())) for p in self.parties))

    def outcomes(self) -> list[Deal]:
        a, b = self.parties
        return [{a: share, b: complement(share, self.pool)} for share in all_shares(self.pool)]

    def value(self, party: str, deal: Deal) -> float:
        return float(value(deal[party], self.item_values[party]))

    def walk_away(self, party: str) -> float:
        return 0.0

    def propose(self, party: str, deal: Deal) -> actions.Action:
        return actions.Say(text=self.describe(party, deal))

    def accept(self, party: str, deal: Deal) -> actions.Action:
        return actions.parse_action({"kind": "choose", "mine": dict(deal[party]), "theirs": dict(deal[self.other(party)])})

    def proposed(self, event: Event, reader: str) -> Deal | None:
        if not isinstance(event, Message) or event.party not in self.parties:
            return None
        gets = read(event.text, self.pool).speaker_gets
        if gets is None:
            return None
        return {event.party: dict(gets), self.other(event.party): complement(gets, self.pool)}

    def describe(self, party: str, deal: Deal) -> str:
        return f"i would like {words_for(deal[party], self.pool)}. you get {words_for(deal[self.other(party)], self.pool)}."

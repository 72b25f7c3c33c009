"""The variants a learned strategy may choose in the CraigslistBargain modular agent: the fair price and where a price stands."""

from types import SimpleNamespace

import pytest

from duologue.agents import make_agent
from duologue.core.episode import play_episode
from duologue.core.schema import Message, Offer
from duologue.tasks.craigslist.modular import CraigslistModularAgent
from duologue.tasks.craigslist.modular_options import OPTIONS
from duologue.tasks.craigslist.task import CraigslistTask

NO_CORPUS = "prior"


pytestmark = pytest.mark.usefixtures("fresh_modular_cache")


class FairMinded(CraigslistModularAgent):
    """Picks the `fair` price whenever it is offered (the planner's own variant otherwise) and keeps what it saw."""

    def reset(self, task, party, rng):
        super().reset(task, party, rng)
        self.picked: list[tuple[str, float | None]] = []

    def choose_option(self, point, context, options):
        if "fair" in options:
            self.picked.append((point, self.fair_price()))
            return "fair"
        return options[0]


def standing(seller: bool, target: float, first: float, price: float | None) -> str:
    agent = CraigslistModularAgent(NO_CORPUS)
    agent.planner = SimpleNamespace(target=target, seller=seller)  # type: ignore[assignment]
    agent.their_first = first
    return agent.fair_standing(price)


def test_the_fair_price_is_halfway_between_my_target_and_the_partners_first_price():
    assert standing(True, 200, 100, 150) == "fair=even"  # a seller at 200 whose buyer opened at 100
    assert standing(True, 200, 100, 158) == "fair=even"
    assert standing(True, 200, 100, 175) == "fair=mine"
    assert standing(True, 200, 100, 120) == "fair=theirs"
    assert standing(False, 100, 200, 175) == "fair=theirs"  # the buyer's side of the same prices
    assert standing(False, 100, 200, 120) == "fair=mine"
    assert standing(False, 100, 200, None) == "fair=none"
    assert "fair" in OPTIONS["counter-price"] and "fair" in OPTIONS["offer"]


def test_a_strategy_that_picks_the_fair_price_names_it_and_ends_fairer_than_the_planner():
    fair_games, planner_games, named = [], [], 0
    for number in range(16):
        for kind, out in ((FairMinded, fair_games), (CraigslistModularAgent, planner_games)):
            task = CraigslistTask()
            seat = task.party_ids[number % 2]
            agent = kind(NO_CORPUS)
            dialogue = play_episode(task, {seat: agent, task.other(seat): make_agent("rule", task)}, seed=500 + number)
            assert sum(dialogue.meta["illegal_actions"].values()) == 0
            out.append(dialogue)
            if kind is FairMinded:
                prices = [e.price for e in dialogue.events if isinstance(e, Offer) and e.party == seat]
                said = " ".join(e.text for e in dialogue.events if isinstance(e, Message) and e.party == seat)
                for _, fair in agent.picked:
                    assert fair is not None
                    named += any(abs(p - agent._nice(fair)) < 1e-6 for p in prices) or f"{round(agent._nice(fair))}" in said.replace(",", "")

    def fairness(games):
        values = [d.outcome and CraigslistTask().episode_metrics(d).get("fairness") for d in games]
        values = [v for v in values if v is not None]
        return sum(values) / len(values)

    assert named >= 8
    # Against the rule bot, which now holds to the prices it states, the planner's deals also end
    # near the midpoint (1.79 over these 16 games, from 1.70 against the earlier bot that gave way
    # when pressed); the strategy that steers to the fair price keeps its deals there whatever the partner.
    assert fairness(fair_games) >= 1.75
    assert fairness(fair_games) >= fairness(planner_games) - 0.05

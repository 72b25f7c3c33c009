"""The sentences people typed that the CaSiNo rule bot misread (issue 14), each now understood,
the agent acting on the better reading, and the labelled set of real messages."""

from __future__ import annotations

import random

import pytest

from duologue.agents import make_agent
from duologue.core import actions
from duologue.core.agent import Agent
from duologue.core.episode import play_episode
from duologue.core.schema import Message, RejectDeal, Scenario, SubmitDeal
from duologue.core.task import Observation
from duologue.tasks import make
from duologue.tasks.casino.agents import CasinoRuleAgent
from duologue.tasks.casino.rules import points
from duologue.tasks.casino.task import pending_deal, private_view, public_view
from duologue.tasks.casino.understanding import _read, is_sarcastic, read
from duologue.tasks.casino.understanding_eval import load_set, score

BOT, PERSON = "mturk_agent_1", "mturk_agent_2"
REASONS = {"Food": "We eat a lot.", "Water": "It is hot.", "Firewood": "It gets cold at night."}


# ---------------------------------------------------------------------------- the reader


def test_a_negated_giving_keeps_the_item_with_the_speaker():
    assert read("I can't give you any of the water").proposal == {"Food": None, "Water": 3, "Firewood": None}
    assert read("No. I won't part with any firewood").proposal["Firewood"] == 3


def test_sarcasm_is_a_refusal_and_no_proposal():
    reading = read("oh sure, you take ALL the food, that's totally fair :/")
    assert reading.sarcastic and reading.disagrees and not reading.agrees
    assert reading.proposal is None
    assert not is_sarcastic("Oh sure, that works for me!")
    assert read("Oh sure, that works for me!").agrees


@pytest.mark.parametrize(
    "text, issue",
    [("for us its the firewood", "Firewood"), ("food is kinda my thing", "Food"), ("could you throw in one water?", "Water")],
)
def test_indirect_needs_are_read(text, issue):
    assert read(text).top_need() == issue


def test_an_item_called_useless_is_not_needed():
    assert read("firewood is useless to me").needs["Firewood"] < 0


@pytest.mark.parametrize(
    "text",
    [
        "Could I get 2 of either the food or the water?",
        "Stay safe out there! If you need anything else, let me know.",
        "could you throw in one water?",
        "I guess what would make sense is for one of us to get 2 foods and 1 firewood",
    ],
)
def test_no_split_is_read_where_none_is_stated(text):
    assert read(text).proposal is None


@pytest.mark.parametrize(
    "text, share",
    [
        ("I would like one of each", {"Food": 1, "Water": 1, "Firewood": 1}),
        ("I get all the water, you get the rest", {"Food": 0, "Water": 3, "Firewood": 0}),
        ("If I can have all the firewood, you can have 2 packages of food", {"Food": 1, "Water": None, "Firewood": 3}),
        ("I'd like to trade 3 firewood for 3 waters", {"Food": None, "Water": 3, "Firewood": 0}),
        ("Ok so I propose 2 water for me, 1 for you. Firewood would be, 2 for you, 1 for me?", {"Food": None, "Water": 2, "Firewood": 1}),
    ],
)
def test_offers_with_all_rest_each_conditions_and_trades(text, share):
    assert read(text).proposal == share


def test_the_reader_is_memoized_and_hands_out_copies():
    text = "I really need 3 firewood because I am always cold, and I can spare the food."
    first = read(text)
    hits = _read.cache_info().hits
    second = read(text)
    assert _read.cache_info().hits == hits + 1
    assert first == second and first is not second
    first.needs["Water"] = 99.0
    assert "Water" not in read(text).needs


# ---------------------------------------------------------------------------- the agent


class Person(Agent):
    """Says its lines in order, rejects every deal, then says `ok`."""

    name = "person"

    def __init__(self, lines):
        self.lines = list(lines)

    def act(self, observation: Observation) -> actions.Action:
        if "reject-deal" in observation.legal:
            return actions.RejectDeal()
        return actions.Say(text=self.lines.pop(0) if self.lines else "hmm, I need more than that")


def scenario(bot_ranking, person_ranking):
    return Scenario(public=public_view(), private={BOT: private_view(bot_ranking, REASONS), PERSON: private_view(person_ranking, REASONS)})


def play(lines, bot_ranking=("Water", "Food", "Firewood"), person_ranking=("Water", "Firewood", "Food"), seed=0):
    task = make("casino-v0", first=PERSON)
    return play_episode(task, {BOT: make_agent("rule", task), PERSON: Person(lines)}, seed=seed, scenario=scenario(bot_ranking, person_ranking))


def deals_after(dialogue, line):
    """The bot's moves right after the person said `line`."""
    events = dialogue.events
    at = next(k for k, e in enumerate(events) if isinstance(e, Message) and e.text == line)
    return events[at + 1]


@pytest.mark.parametrize("seed", range(4))
def test_no_deal_is_built_from_a_negated_sentence(seed):
    line = "I can't give you any of the water"
    dialogue = play(["Hi! Water is my top priority, we hike in the desert.", line], seed=seed)
    for event in dialogue.events:
        if isinstance(event, SubmitDeal) and event.party == BOT:
            assert event.mine["Water"] < 3, event  # never "all the water to the bot" from "I can't give you any"


@pytest.mark.parametrize("seed", range(4))
def test_no_deal_is_built_from_a_sarcastic_sentence(seed):
    line = "oh sure, you take ALL the food, that's totally fair :/"
    dialogue = play(["Hello! I need water the most.", line], bot_ranking=("Food", "Water", "Firewood"), seed=seed)
    reply = deals_after(dialogue, line)
    assert not (isinstance(reply, SubmitDeal) and reply.mine["Food"] == 3)


@pytest.mark.parametrize("text, issue", [("for us its the firewood", "Firewood"), ("food is kinda my thing", "Food"), ("could you throw in one water?", "Water")])
def test_the_agent_learns_indirect_needs_and_does_not_ask_again(text, issue):
    agent = CasinoRuleAgent()
    task = make("casino-v0")
    task.reset(seed=0)
    agent.reset(task, BOT, random.Random(0))
    agent._hear(read(text))
    assert agent.model.top_issue() == issue
    dialogue = play(["Hi there!", text], seed=1)
    assert not any("still not sure" in e.text for e in dialogue.messages() if e.party == BOT)


def test_an_item_called_useless_lowers_the_belief():
    agent = CasinoRuleAgent()
    task = make("casino-v0")
    task.reset(seed=0)
    agent.reset(task, BOT, random.Random(0))
    agent._hear(read("firewood is useless to me"))
    assert agent.model.evidence["Firewood"] < 0 and agent.model.top_issue() != "Firewood"


@pytest.mark.parametrize("seed", range(6))
def test_concessions_never_move_backwards_after_a_rejection(seed):
    person_ranking = ("Water", "Firewood", "Food")
    dialogue = play(["Hi! Water matters most to us, then firewood; we have plenty of food."], person_ranking=person_ranking, seed=seed)
    priorities = dialogue.scenario.private[PERSON]["priorities"]
    offered = [points(e.theirs, priorities) for e in dialogue.events if isinstance(e, SubmitDeal) and e.party == BOT]
    assert any(isinstance(e, RejectDeal) for e in dialogue.events)
    # a bot refused below the fair split may walk away, as people sometimes do (`answering`)
    assert len(offered) >= 2 or (dialogue.outcome is not None and dialogue.outcome.reason == "walk_away")
    assert offered == sorted(offered), offered


class Firm(Agent):
    """Says its lines in order, then `ok`; accepts a deal worth at least `wants` points to it, rejects the rest."""

    name = "firm"

    def __init__(self, lines, wants):
        self.lines, self.wants = list(lines), wants

    def act(self, observation: Observation) -> actions.Action:
        if "accept-deal" in observation.legal:
            deal = pending_deal(observation.transcript)
            worth = points(deal.theirs, observation.private["priorities"])
            return actions.AcceptDeal() if worth >= self.wants else actions.RejectDeal()
        return actions.Say(text=self.lines.pop(0) if self.lines else "ok")


def play_firm(lines, wants, seed=0, bot_ranking=("Water", "Food", "Firewood"), person_ranking=("Water", "Firewood", "Food")):
    task = make("casino-v0", first=PERSON)
    agents = {BOT: make_agent("rule", task), PERSON: Firm(lines, wants)}
    return play_episode(task, agents, seed=seed, scenario=scenario(bot_ranking, person_ranking))


def bot_moves_after(dialogue, line):
    at = next(k for k, e in enumerate(dialogue.events) if isinstance(e, Message) and e.text == line)
    return [e for e in dialogue.events[at + 1 :] if e.party == BOT]


@pytest.mark.parametrize("seed", range(4))
def test_after_one_proposal_in_words_the_next_goes_on_the_table(seed):
    lines = ["Hi! How are you?", "We will be hiking a lot, so water would really help us.", "We are leaving on Friday.", "We have three kids with us."]
    dialogue = play_firm(lines, wants=0, seed=seed)
    moves = [e for e in dialogue.events if e.party == BOT]
    said = next(k for k, e in enumerate(moves) if isinstance(e, Message) and read(e.text).complete_proposal)
    assert isinstance(moves[said + 1], SubmitDeal), moves[said + 1]  # not another proposal in words
    assert dialogue.outcome.agreed


@pytest.mark.parametrize("seed", range(4))
def test_a_refusal_in_words_is_answered_in_words_with_a_concession(seed):
    line = "No, that doesn't work for me at all."
    dialogue = play_firm(["Hi! Water is what we need most, then firewood.", line], wants=0, seed=seed)
    reply = bot_moves_after(dialogue, line)[0]
    assert isinstance(reply, Message) and read(reply.text).complete_proposal is not None
    priorities = dialogue.scenario.private[PERSON]["priorities"]
    offers = [{i: 3 - n for i, n in read(e.text).complete_proposal.items()} for e in dialogue.events if e.party == BOT and isinstance(e, Message) and read(e.text).complete_proposal]
    assert points(offers[-1], priorities) >= points(offers[0], priorities)


@pytest.mark.parametrize("seed", range(4))
def test_a_firm_partner_is_met_before_the_talk_runs_out(seed):
    """Concessions grow after repeated refusals, so a partner holding out for a lot still gets a deal in time."""
    lines = ["Hi! Water matters most to us, then firewood.", "We need a lot this trip.", "Sorry, I need more than that."]
    dialogue = play_firm(lines, wants=24, seed=seed)
    assert dialogue.outcome.agreed and len(dialogue.events) <= 30
    priorities = dialogue.scenario.private[PERSON]["priorities"]
    offered = [points(e.theirs, priorities) for e in dialogue.events if isinstance(e, SubmitDeal) and e.party == BOT]
    assert offered == sorted(offered), offered  # each step a concession, never a step back


@pytest.mark.parametrize("seed", range(4))
def test_it_never_concedes_past_what_the_partner_asked_for(seed):
    ask = "How about I take 1 food, 2 water and 2 firewood, and you get 2 food, 1 water and 1 firewood?"
    dialogue = play_firm(["Hi! Water matters most to us, then firewood.", ask], wants=99, seed=seed, bot_ranking=("Food", "Water", "Firewood"))
    mine = dialogue.scenario.private[BOT]["priorities"]
    asked_for = {"Food": 2, "Water": 1, "Firewood": 1}  # what the person's ask leaves the bot
    deals = [dict(e.mine) for e in dialogue.events if isinstance(e, SubmitDeal) and e.party == BOT]
    assert asked_for in deals, deals
    before = deals[: deals.index(asked_for)]
    assert all(points(d, mine) >= points(asked_for, mine) for d in before), deals  # no worse for the bot until its ask was refused


def test_an_unacceptable_deal_is_countered_with_its_own_offer_not_a_meagre_improvement():
    task = make("casino-v0", first=PERSON)
    task.reset(seed=0, scenario=scenario(("Food", "Firewood", "Water"), ("Water", "Firewood", "Food")))
    bot = make_agent("rule", task)
    bot.reset(task, BOT, random.Random(0))
    greedy = {"Food": 2, "Water": 3, "Firewood": 2}  # 9 points to the bot; "improvable" to 10 for it at no cost to the person
    task.step(actions.SubmitDeal(mine=greedy, theirs={i: 3 - n for i, n in greedy.items()}), PERSON)
    assert isinstance(bot.act(task.observe(BOT)), actions.RejectDeal)
    task.step(actions.RejectDeal(), BOT)
    counter = bot.act(task.observe(BOT))
    share = dict(counter.mine) if isinstance(counter, actions.SubmitDeal) else read(counter.text).complete_proposal
    assert share is not None and points(share, task.scenario.private[BOT]["priorities"]) >= 15, counter


def test_the_frontier_is_cached_per_belief_state():
    agent = CasinoRuleAgent()
    task = make("casino-v0")
    task.reset(seed=0)
    agent.reset(task, BOT, random.Random(0))
    agent.priorities = dict(task.scenario.private[BOT]["priorities"])
    first = agent._rows()
    assert agent._rows() is first
    agent._hear(read("water is my top priority"))
    second = agent._rows()
    assert second is not first and len(agent._rows_cache) == 2


# ---------------------------------------------------------------------------- the labelled set


@pytest.mark.corpus
def test_the_labelled_set_matches_the_corpus_and_scores_per_item(corpus_path):
    items = load_set(corpus_path("casino/split"))
    halves = {i.half for i in items}
    assert halves == {"dev", "test"}
    assert sum("offer" in i.labels for i in items) >= 100 and sum("top" in i.labels for i in items) >= 70
    scores = score(items)
    labelled_offers = sum(1 for i in items if i.labels.get("offer") is not None)
    assert len(scores.offer_recall) == labelled_offers
    assert all(v in (0.0, 1.0) for v in scores.offer_precision + scores.top + scores.stance)

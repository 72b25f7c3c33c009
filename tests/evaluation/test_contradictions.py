"""The words-against-moves checker on the contradictions people met (bots facing people), played
through the tasks' own moves, and on self-play of the rule bots it is run in the benchmarks on."""

from __future__ import annotations

import pytest

from duologue.agents import make_agent
from duologue.core import actions
from duologue.core.agent import Agent
from duologue.core.episode import play_episode
from duologue.evaluation.contradictions import contradictions, reader_for
from duologue.tasks import make


class Moves(Agent):
    """Plays a fixed list of moves, then quits the talk the task's way."""

    name = "moves"

    def __init__(self, moves: list[actions.Action]) -> None:
        self.moves = list(moves)

    def act(self, observation):
        if self.moves:
            return self.moves.pop(0)
        return self.task.sample_action(self.party, self.rng)


def kinds(task_id: str, bot: list[actions.Action], person: list[actions.Action], *, bot_first: bool = True) -> list[str]:
    task = make(task_id)
    task.reset(seed=0)
    first = task.to_move
    second = next(p for p in task.party_ids if p != first)
    bot_party, person_party = (first, second) if bot_first else (second, first)
    dialogue = play_episode(make(task_id), {bot_party: Moves(bot), person_party: Moves(person)}, seed=0)
    return [c.kind for c in contradictions(dialogue, bot_party, reader_for(task))]


SPLIT = {"Food": 1, "Water": 3, "Firewood": 1}
REST = {"Food": 2, "Water": 0, "Firewood": 2}


PROPOSED = "i'll take 2 food and 2 firewood, you get 1 food, all the water and 1 firewood"


def test_agreeing_in_words_then_rejecting_the_deal_is_caught():
    """rl:fairness: "Great! I'm in agreement", then it rejects exactly that deal when it is submitted."""
    person = [actions.Say(text=PROPOSED), actions.SubmitDeal(mine=REST, theirs=SPLIT)]
    bot = [actions.Say(text="Perfect, I think that sounds like a good deal for both of us!"), actions.RejectDeal()]
    assert kinds("casino-v0", bot, person, bot_first=False) == ["rejects-agreed"]


def test_asking_for_a_split_then_rejecting_it_is_caught():
    person = [actions.Say(text="what do you need?"), actions.SubmitDeal(mine=REST, theirs=SPLIT)]
    bot = [actions.Say(text="Can I have 1 food, all the water and 1 firewood?"), actions.RejectDeal()]
    assert kinds("casino-v0", bot, person, bot_first=False) == ["rejects-own"]


def test_stating_one_split_and_choosing_another_is_caught():
    """Deal or No Deal: the bot says one split, the partner chooses, the bot chooses another."""
    task = make("dealornodeal-v0")
    task.reset(seed=0)
    pool = task.pool()
    first = {item: (pool[item] if item == "book" else 0) for item in pool}
    other = {item: pool[item] - first[item] for item in pool}
    from duologue.tasks.dealornodeal.task import Choose

    bot = [actions.Say(text="i get the books and you get the rest"), Choose(mine=other, theirs=first)]
    person = [Choose(mine=other, theirs=first)]
    assert kinds("dealornodeal-v0", bot, person, bot_first=True) == ["proposes-other"]


def test_a_price_named_then_a_different_final_offer_accepted_is_caught():
    """CraigslistBargain: "I can't do $12,150 ... I could go up to $10,050", then it accepts $12,150 at
    once (here on a $380 listing)."""
    bot = [actions.Say(text="Hi, is it still available?"), actions.Say(text="I can't do $350. I could go up to $300."), actions.Accept()]
    person = [actions.Say(text="Yes it is, $380."), actions.Offer(price=350.0)]
    assert kinds("craigslist-v0", bot, person, bot_first=True) == ["accepts-other"]


def test_words_the_partner_answered_are_not_held_against_the_next_move():
    person = [actions.Say(text="no, i need more than that"), actions.SubmitDeal(mine=REST, theirs=SPLIT)]
    bot = [actions.Say(text="I get all the food and all of the firewood, you get all the water"), actions.Say(text="hmm, ok."), actions.AcceptDeal()]
    assert kinds("casino-v0", bot, person, bot_first=True) == []


@pytest.mark.parametrize("task_id", ["casino-v0", "craigslist-v0", "dealornodeal-v0"])
def test_the_rule_bots_do_what_they_say_in_self_play(task_id):
    task = make(task_id)
    reader = reader_for(task)
    assert reader is not None
    found = []
    for seed in range(25):
        game = make(task_id)
        dialogue = play_episode(game, {p: make_agent("rule", game) for p in game.party_ids}, seed=seed)
        found += [c for p in game.party_ids for c in contradictions(dialogue, p, reader)]
    assert found == [], found[:3]


def test_a_task_without_a_statement_reader_is_not_checked():
    assert reader_for(make("openchat-ed-v0")) is None


def test_the_rl_bots_take_the_price_their_words_just_asked_for():
    """`rl:fairness` on CraigslistBargain said "I can only do 320 dollars" and then turned down an offer
    of $320, a quarter of its statements; now the words stand."""
    task = make("craigslist-v0")
    reader = reader_for(task)
    found = []
    for seed in range(12):
        game = make("craigslist-v0")
        dialogue = play_episode(game, {p: make_agent("rl:fairness", game) for p in game.party_ids}, seed=seed)
        found += [c for p in game.party_ids for c in contradictions(dialogue, p, reader) if c.kind == "rejects-own"]
    assert found == [], [(c.text, c.did) for c in found[:3]]

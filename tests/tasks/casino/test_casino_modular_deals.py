"""The modular CaSiNo agent puts deals on the table when talk stops helping: after a refusal, to a partner with
nothing to add, after enough chat; and it negotiates to deals with people's scripts."""

import pytest

from duologue.agents import make_agent
from duologue.core import actions
from duologue.core.agent import Agent
from duologue.core.episode import play_episode
from duologue.core.schema import Message, RejectDeal, SubmitDeal
from duologue.tasks import make
from duologue.tasks.casino.modular import CHAT_ACTS, STALL_AFTER, CasinoModularAgent
from duologue.tasks.casino.modular_options import balance
from duologue.tasks.casino.rules import complement, points

NO_CORPUS = "prior"


pytestmark = pytest.mark.usefixtures("fresh_modular_cache")


class Partner(Agent):
    """Says its lines, then `Okay.`; turns every deal down (or takes those worth `takes` points to it)."""

    name = "partner"

    def __init__(self, lines: list[str], takes: int = 99, filler: str = "Okay.") -> None:
        self.lines = list(lines)
        self.takes = takes
        self.filler = filler

    def act(self, observation):
        if "accept-deal" in observation.legal:
            deal = next(e for e in reversed(observation.transcript) if isinstance(e, SubmitDeal))
            mine = points(dict(deal.theirs), observation.private["priorities"])
            return actions.AcceptDeal() if mine >= self.takes else actions.RejectDeal()
        return actions.Say(text=self.lines.pop(0) if self.lines else self.filler)


class Chatty(CasinoModularAgent):
    """A policy that talks whenever the rules let it (the deal rules alone bring it to a split)."""

    def choose_act(self, context, allowed):
        allowed = list(allowed)
        return next((a for a in allowed if a in CHAT_ACTS), allowed[0])


def game(partner: Partner, seed: int = 0, corpus: str = NO_CORPUS, kind: type[CasinoModularAgent] = CasinoModularAgent):
    task = make("casino-v0")
    me, other = task.party_ids
    agent = kind(corpus)
    dialogue = play_episode(task, {me: agent, other: partner}, seed=seed)
    return dialogue, me, other


def test_after_its_deal_is_turned_down_it_puts_the_next_concession_on_the_table_at_once_down_to_a_floor():
    for seed in range(6):
        dialogue, me, other = game(Partner(["Hi! I need water the most, food is least for me."]), seed)
        events = dialogue.events
        mine, theirs = dialogue.scenario.private[me]["priorities"], dialogue.scenario.private[other]["priorities"]
        for k, event in enumerate(events[:-1]):
            if isinstance(event, RejectDeal) and event.party == other:
                after = next((e for e in events[k + 1 :] if e.party == me), None)
                assert after is None or isinstance(after, SubmitDeal), (seed, after)  # a deal at once, not talk
        offers = [(k, e) for k, e in enumerate(events) if isinstance(e, SubmitDeal) and e.party == me]
        assert len(offers) >= 6, seed
        first = [tuple(sorted(e.mine.items())) for _, e in offers[:4]]
        assert len(set(first)) == 4, (seed, first)  # never the same refused split again while it can concede
        given = [points(complement(dict(e.mine)), theirs) for _, e in offers]
        assert given[3] > given[0], (seed, given)  # it concedes
        kept = [points(dict(e.mine), mine) for _, e in offers]
        assert min(kept) >= 12, (seed, kept)  # however often it is refused, and to the last turn: it gives nothing away


def test_a_partner_with_nothing_to_add_gets_a_deal_not_more_talk():
    for seed in range(4):
        partner = Partner(["Hello! Water matters most to me, food is least."], takes=0, filler="Hmm, let me think about it.")
        dialogue, me, _ = game(partner, seed, kind=Chatty)
        assert dialogue.outcome.agreed, seed
        mine = [e for e in dialogue.events if e.party == me]
        first_split = next(k for k, e in enumerate(mine) if isinstance(e, SubmitDeal) or (isinstance(e, Message) and _is_split(e.text)))
        assert isinstance(mine[first_split + 1], SubmitDeal), (seed, [getattr(e, "text", e.kind) for e in mine])


def test_it_does_not_only_talk_once_both_sides_said_what_they_need():
    chatty = ["Hi there! How is your trip?", "I need water the most, and food is least for me.", "We love hiking.",
              "The weather is great.", "My kids love camping.", "We have a dog too.", "It is sunny here."]
    for seed in range(6):
        dialogue, me, _ = game(Partner(chatty, takes=0), seed, kind=Chatty)
        assert dialogue.outcome.agreed, seed
        mine = [e for e in dialogue.events if e.party == me]
        first_split = next(k for k, e in enumerate(mine) if isinstance(e, SubmitDeal) or (isinstance(e, Message) and _is_split(e.text)))
        assert first_split <= STALL_AFTER + 2, (seed, [getattr(e, "text", e.kind) for e in mine])


def _is_split(text: str) -> bool:
    from duologue.tasks.casino.understanding import read

    return read(text).complete_proposal is not None


class LastMinute(Partner):
    """Turns every deal down, then on its last turns puts a lopsided deal on the table."""

    def act(self, observation):
        if "accept-deal" in observation.legal:
            return actions.RejectDeal()
        if observation.turns_left is not None and observation.turns_left <= 3 and "submit-deal" in observation.legal:
            theirs = {"Food": 1, "Water": 1, "Firewood": 0}
            return actions.SubmitDeal(mine=complement(theirs), theirs=theirs)
        return super().act(observation)


def test_it_does_not_sell_out_on_the_last_turn():
    for seed in range(4):
        dialogue, me, other = game(LastMinute(["Hi! I need water the most."]), seed)
        lopsided = [k for k, e in enumerate(dialogue.events) if isinstance(e, SubmitDeal) and e.party == other]
        assert lopsided, seed
        assert not dialogue.outcome.agreed, seed  # 7 to 9 points for it: under its floor, so no deal rather than that


def test_balance_names_who_is_ahead_and_by_how_much():
    assert balance(20, 19) == "balance=even"
    assert balance(24, 18) == "balance=ahead"
    assert balance(30, 12) == "balance=far-ahead"
    assert balance(15, 21.5) == "balance=behind"
    assert balance(6, 30) == "balance=far-behind"


def test_against_peoples_scripts_it_reaches_deals_without_giving_its_points_away(corpus_path):
    from duologue.arena.replay import run_replay
    from duologue.data.io import read_corpus
    from duologue.tasks import corpus_format

    dialogues = read_corpus(corpus_format("casino"), corpus_path("casino/split/casino_valid.json"), skip_invalid=True).dialogues[:15]
    rows = [row for _, row in run_replay(dialogues, corpus="casino", agent="modular")]
    agreement = sum(r.agreement for r in rows) / len(rows)
    assert agreement >= 0.8, agreement  # it once conceded too slowly for a person and agreed in 0.45
    agreed = [r for r in rows if r.agreement]
    gap = sum(r.agent_score - r.human_score for r in agreed) / len(agreed)
    assert gap >= -1.5, gap  # on a deal it keeps about what the person in its seat kept


def test_the_modular_spec_is_this_agent():
    task = make("casino-v0")
    assert isinstance(make_agent("modular", task), CasinoModularAgent)

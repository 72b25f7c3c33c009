"""The MutualFriends rule agent: understands a person, answers, varies its words, selects well, wins self-play."""

from __future__ import annotations

import random

from duologue.agents import make_agent
from duologue.core import actions
from duologue.core.agent import Agent
from duologue.core.episode import play_episode
from duologue.core.schema import Message, Scenario, Select
from duologue.core.task import Observation
from duologue.tasks import make
from duologue.tasks.mutualfriends import rules
from duologue.tasks.mutualfriends.agents import MutualFriendsRuleAgent
from duologue.tasks.mutualfriends.linking import EntityLinker

ATTRIBUTES = ["School", "Hobby", "Time Preference", "Location Preference"]
MUTUAL = {"School": "Babson College", "Hobby": "Bird watching", "Time Preference": "morning", "Location Preference": "indoor"}
BOT = [
    {"School": "Salisbury University", "Hobby": "Hiking", "Time Preference": "morning", "Location Preference": "outdoor"},
    {"School": "Salisbury University", "Hobby": "Knitting", "Time Preference": "evening", "Location Preference": "indoor"},
    {"School": "University of North Carolina", "Hobby": "Hiking", "Time Preference": "afternoon", "Location Preference": "outdoor"},
    {"School": "Massachusetts Institute of Technology", "Hobby": "Photography", "Time Preference": "evening", "Location Preference": "indoor"},
    MUTUAL,
    {"School": "Salisbury University", "Hobby": "Poker", "Time Preference": "afternoon", "Location Preference": "indoor"},
    {"School": "University of North Carolina", "Hobby": "Bird watching", "Time Preference": "evening", "Location Preference": "outdoor"},
    {"School": "Babson College", "Hobby": "Hiking", "Time Preference": "evening", "Location Preference": "indoor"},
]
PERSON = [
    {"School": "Salisbury University", "Hobby": "Hiking", "Time Preference": "evening", "Location Preference": "outdoor"},
    {"School": "Rice University", "Hobby": "Poker", "Time Preference": "morning", "Location Preference": "indoor"},
    MUTUAL,
    {"School": "Babson College", "Hobby": "Knitting", "Time Preference": "afternoon", "Location Preference": "indoor"},
    {"School": "Drexel University", "Hobby": "Bird watching", "Time Preference": "afternoon", "Location Preference": "outdoor"},
]
SCENARIO = Scenario(
    id="S_person",
    public={"attributes": [{"name": a, "value_type": rules.VALUE_TYPES[a], "unique": False, "multivalued": False, "entity": True} for a in ATTRIBUTES], "alphas": [1.0, 1.0, 3.0, 3.0]},
    private={"0": {"friends": BOT}, "1": {"friends": PERSON}},
)


class ScriptedPerson(Agent):
    """Types hand-written lines like a person (typos, short names, no template); copies a selection it
    holds; once out of lines, selects its own row `fallback`."""

    name = "person"

    def __init__(self, lines: list[str], fallback: int) -> None:
        self.lines = list(lines)
        self.fallback = fallback

    def act(self, observation: Observation) -> actions.Action:
        mine = observation.private["friends"]
        theirs = [e for e in observation.transcript if isinstance(e, Select) and e.party != self.party]
        if theirs and theirs[-1].item in mine:
            mine_selected = [e for e in observation.transcript if isinstance(e, Select) and e.party == self.party]
            if not mine_selected or mine_selected[-1].item != theirs[-1].item:
                return actions.Select(item=theirs[-1].item)
        if self.lines:
            return actions.Say(text=self.lines.pop(0))
        return actions.Select(item=mine[self.fallback])


def play_against_person(lines: list[str], seed: int = 0):
    task = make("mutualfriends-v0", first="1")
    bot = make_agent("rule", task)
    person = ScriptedPerson(lines, fallback=2)
    dialogue = play_episode(task, {"0": bot, "1": person}, seed=seed, scenario=SCENARIO)
    return dialogue, bot


def bot_after(lines: list[str]) -> MutualFriendsRuleAgent:
    """The rule agent (party 0) after reading the person's lines, one per turn, with its own replies between."""
    task = make("mutualfriends-v0", first="1")
    task.reset(seed=3, scenario=SCENARIO)
    bot = MutualFriendsRuleAgent()
    bot.reset(task, "0", random.Random(0))
    for line in lines:
        task.step(actions.Say(text=line), "1")
        reply = bot.act(task.observe("0"))
        if isinstance(reply, actions.Select):
            break
        task.step(reply, "0")
    return bot


def test_rule_agent_finds_the_friend_with_a_person_who_types_loosely():
    lines = [
        "hey! do u have anyone who likes birdwatching?",
        "ok. none of mine went to MIT or unc",
        "nobody on my list likes hikking",
        "my birdwatcher from babson is a mornin person, likes indoors",
    ]
    dialogue, _ = play_against_person(lines)
    assert dialogue.outcome.agreed, [getattr(e, "text", e.kind) for e in dialogue.events]
    bot_selections = [e for e in dialogue.events if isinstance(e, Select) and e.party == "0"]
    first_person_selection = next(i for i, e in enumerate(dialogue.events) if isinstance(e, Select) and e.party == "1")
    first_bot_selection = next(i for i, e in enumerate(dialogue.events) if isinstance(e, Select) and e.party == "0")
    assert first_bot_selection < first_person_selection, "the bot found the friend itself rather than copying"
    assert bot_selections[0].item == MUTUAL and len(bot_selections) == 1


def test_negations_from_a_person_rule_friends_out():
    bot = bot_after(["hi. none of mine went to MIT or unc", "nobody likes hiking, sorry"])
    living = {bot.friends[i]["School"] + "/" + bot.friends[i]["Hobby"] for i in bot.alive()}
    assert living == {"Salisbury University/Knitting", "Babson College/Bird watching", "Salisbury University/Poker"}


def test_a_bare_no_answers_the_bots_own_question():
    task = make("mutualfriends-v0", first="0")
    task.reset(seed=1, scenario=SCENARIO)
    bot = MutualFriendsRuleAgent()
    bot.reset(task, "0", random.Random(2))
    task.step(bot.act(task.observe("0")), "0")
    asked = dict(bot.last_question)
    task.step(actions.Say(text="nope"), "1")
    bot.act(task.observe("0"))
    for i, friend in enumerate(bot.friends):
        if all(friend[a] in v for a, v in asked.items()):
            assert i not in bot.alive(), f"{friend} should be ruled out by 'nope' to {asked}"


def test_all_from_a_person_drops_every_other_value():
    bot = bot_after(["all my friends like being indoors"])
    assert all(bot.friends[i]["Location Preference"] == "indoor" for i in bot.alive())


def test_it_copies_a_selection_it_holds_and_drops_a_wrong_one():
    task = make("mutualfriends-v0", first="1")
    task.reset(seed=1, scenario=SCENARIO)
    bot = MutualFriendsRuleAgent()
    bot.reset(task, "0", random.Random(0))
    task.step(actions.Select(item=MUTUAL), "1")
    assert bot.act(task.observe("0")) == actions.Select(item=MUTUAL)

    task.reset(seed=2, scenario=SCENARIO)
    bot.reset(task, "0", random.Random(0))
    task.step(actions.Say(text="hi"), "1")
    task.step(actions.Select(item=BOT[0]), "0")  # as if the bot had picked it
    task.step(actions.Say(text="hmm"), "1")
    bot.act(task.observe("0"))
    assert 0 in bot.wrong and 0 not in bot.alive()


def test_it_answers_a_question_with_none_of_mine():
    task = make("mutualfriends-v0", first="1")
    task.reset(seed=1, scenario=SCENARIO)
    bot = MutualFriendsRuleAgent()
    bot.reset(task, "0", random.Random(5))
    task.step(actions.Say(text="any of yours into surfing?"), "1")
    reply = bot.act(task.observe("0"))
    assert isinstance(reply, actions.Say)
    mentions = EntityLinker({}, ATTRIBUTES).link(reply.text).mentions
    assert ("Hobby", "Surfing", True) in {(m.attribute, m.value, m.negated) for m in mentions}, reply.text


def test_it_describes_matches_when_it_has_one_or_two():
    task = make("mutualfriends-v0", first="1")
    task.reset(seed=1, scenario=SCENARIO)
    bot = MutualFriendsRuleAgent()
    bot.reset(task, "0", random.Random(5))
    task.step(actions.Say(text="anyone who likes photography?"), "1")
    reply = bot.act(task.observe("0"))
    parse = EntityLinker({}, ATTRIBUTES).link(reply.text)
    described = [{m.attribute: m.value for m in group} for group in parse.groups()]
    assert any(d == BOT[3] for d in described), reply.text


def test_its_words_vary():
    openings = set()
    for seed in range(12):
        task = make("mutualfriends-v0", first="0")
        task.reset(seed=seed, scenario=SCENARIO)
        bot = make_agent("rule", task)
        bot.reset(task, "0", random.Random(seed))
        openings.add(bot.act(task.observe("0")).text)
    assert len(openings) >= 8


def test_every_sentence_it_writes_is_understood_by_the_linker():
    """What the bot says about values must come back as those values (its partner reads it with the same linker)."""
    task = make("mutualfriends-v0")
    for seed in range(30):
        dialogue = play_episode(task, {p: make_agent("rule", task) for p in task.party_ids}, seed=seed)
        for event in dialogue.events:
            if isinstance(event, Message):
                friends = dialogue.scenario.private[event.party]["friends"]
                own = {(a, str(v)) for f in friends for a, v in f.items()}
                linker = EntityLinker.for_friends(friends)
                mentions = linker.link(event.text).mentions
                assert mentions, event.text
                assert all((m.attribute, m.value) in own for m in mentions if not m.negated), event.text


def test_rule_vs_rule_succeeds_often():
    task = make("mutualfriends-v0")
    results = []
    for seed in range(60):
        dialogue = play_episode(task, {p: make_agent("rule", task) for p in task.party_ids}, seed=1000 + seed)
        results.append(task.episode_metrics(dialogue))
    success = sum(r["success"] for r in results) / len(results)
    utterances = sum(r["utterances"] for r in results) / len(results)
    assert success >= 0.85
    assert utterances < 12


def test_rule_beats_random_as_a_partner_of_random():
    task = make("mutualfriends-v0")
    rule = sum(play_episode(task, {"0": make_agent("rule", task), "1": make_agent("random", task)}, seed=s).outcome.agreed for s in range(30))
    rand = sum(play_episode(task, {"0": make_agent("random", task), "1": make_agent("random", task)}, seed=s).outcome.agreed for s in range(30))
    assert rule > rand


def test_rule_agent_plays_a_real_corpus_scenario(fixtures):
    from duologue.data.io import read_corpus
    from duologue.tasks import corpus_format

    dialogues = read_corpus(corpus_format("mutualfriends"), fixtures / "mutualfriends" / "cocoa_train.json").dialogues
    task = make("mutualfriends-v0")
    wins = 0
    for dialogue in dialogues:
        played = play_episode(task, {p: make_agent("rule", task) for p in task.party_ids}, seed=1, scenario=dialogue)
        wins += bool(played.outcome.agreed)
    assert wins >= len(dialogues) - 1

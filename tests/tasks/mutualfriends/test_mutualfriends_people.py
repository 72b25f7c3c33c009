"""The MutualFriends rule agent reads people as issue 14 found them: counts, self-corrections, names as listed."""

from __future__ import annotations

import random
import re

import pytest

from duologue.core import actions
from duologue.core.episode import play_episode
from duologue.core.schema import Scenario
from duologue.tasks import make
from duologue.tasks.mutualfriends import rules, scenarios
from duologue.tasks.mutualfriends.agents import GENERIC_NAME_WORDS, MutualFriendsRuleAgent, Speaker, _short_forms

ATTRIBUTES = ["School", "Hobby", "Time Preference", "Location Preference"]
MINE = [
    {"School": "Rice University", "Hobby": "Hiking", "Time Preference": "morning", "Location Preference": "outdoor"},
    {"School": "Yale University", "Hobby": "Knitting", "Time Preference": "evening", "Location Preference": "indoor"},
    {"School": "Duke University", "Hobby": "Poker", "Time Preference": "afternoon", "Location Preference": "indoor"},
    {"School": "Rice University", "Hobby": "Chess", "Time Preference": "evening", "Location Preference": "outdoor"},
    {"School": "Tufts University", "Hobby": "Cooking", "Time Preference": "morning", "Location Preference": "indoor"},
    {"School": "Yale University", "Hobby": "Surfing", "Time Preference": "afternoon", "Location Preference": "outdoor"},
]
SCENARIO = Scenario(
    id="S_people",
    public={"attributes": [{"name": a, "value_type": rules.VALUE_TYPES[a], "unique": False, "multivalued": False, "entity": True} for a in ATTRIBUTES], "alphas": [1.0, 1.0, 3.0, 3.0]},
    private={"0": {"friends": MINE}, "1": {"friends": [
        MINE[4],
        {"School": "Brown University", "Hobby": "Hiking", "Time Preference": "morning", "Location Preference": "outdoor"},
        {"School": "Duke University", "Hobby": "Chess", "Time Preference": "evening", "Location Preference": "indoor"},
        {"School": "Rice University", "Hobby": "Poker", "Time Preference": "morning", "Location Preference": "indoor"},
        {"School": "Yale University", "Hobby": "Cooking", "Time Preference": "afternoon", "Location Preference": "indoor"},
        {"School": "Tufts University", "Hobby": "Surfing", "Time Preference": "evening", "Location Preference": "indoor"},
    ]}},
)
OUTDOOR = ("Location Preference", "outdoor")


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


def outdoor_belief(bot: MutualFriendsRuleAgent) -> float:
    return sum(p for i, p in bot.belief().items() if bot.friends[i]["Location Preference"] == "outdoor")


def test_only_one_of_mine_is_outdoorsy_is_evidence_against_outdoor():
    bot = bot_after(["only one of mine is outdoorsy"])
    assert bot.weights[OUTDOOR] < 0
    assert outdoor_belief(bot) < 0.5  # half of the bot's friends are outdoor: the prior was 0.5


def test_most_of_mine_are_outdoorsy_is_evidence_for_outdoor():
    assert outdoor_belief(bot_after(["5 of mine are outdoorsy"])) > 0.5


def test_a_self_correction_takes_the_first_value_back():
    bot = bot_after(["my friend went to Rice", "sorry, I meant Yale, not Rice"])
    assert bot.weights.get(("School", "Rice University"), 0.0) == 0.0
    assert bot.weights[("School", "Yale University")] > 0
    rice = [i for i, f in enumerate(bot.friends) if f["School"] == "Rice University"]
    assert set(rice) <= set(bot.alive()), "a value taken back is not a negation: Rice friends stay in play"
    belief = bot.belief()
    assert max(belief, key=belief.get) in [i for i, f in enumerate(bot.friends) if f["School"] == "Yale University"]


def test_a_plain_negation_still_rules_out():
    bot = bot_after(["my friend went to Rice", "none of mine went to Duke"])
    assert 2 not in bot.alive() and bot.weights[("School", "Rice University")] > 0


@pytest.mark.parametrize(("attribute", "value", "wrong"), [("School", "Brigham Young University", "Young University"), ("Company", "Abbott Laboratories", "Laboratories")])
def test_names_are_written_as_the_list_writes_them(attribute, value, wrong):
    forms = {Speaker(random.Random(seed)).value(attribute, value) for seed in range(60)}
    assert value in forms and wrong not in forms
    assert all(value.startswith(form) or form.isupper() for form in forms), forms


def test_no_short_form_is_a_tail_or_a_generic_word():
    for attribute in ("School", "Company"):
        for value in scenarios.value_list(attribute):
            for form in _short_forms(attribute, value):
                assert form.split()[-1].lower() not in GENERIC_NAME_WORDS, (value, form)
                assert value.startswith(form) or form.isupper() or value.lower().count(form.lower()), (value, form)


def test_self_play_messages_never_clip_a_name_to_its_tail():
    task = make("mutualfriends-v0")
    tails = re.compile(r"(?<!Brigham )Young University|(?<!Abbott )Laboratories|works (?:for|at) (?:Laboratories|Systems|Group|Company)\b")
    for seed in range(30):
        dialogue = play_episode(task, {"0": MutualFriendsRuleAgent(), "1": MutualFriendsRuleAgent()}, seed=seed)
        for event in dialogue.events:
            text = getattr(event, "text", None) or ""
            assert not tails.search(text), text

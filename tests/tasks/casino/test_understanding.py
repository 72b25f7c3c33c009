"""Reading CaSiNo free text: items (with typos), needs, comparisons, proposals and speech acts.

Every line below is hand-written in the style people use in campsite negotiations.
"""

from __future__ import annotations

import pytest

from duologue.tasks.casino.task import reason_bank
from duologue.tasks.casino.understanding import issue_of_word, normalize, read
from duologue.tasks.casino.understanding_eval import offer_of


@pytest.mark.parametrize(
    "word, issue",
    [
        ("water", "Water"), ("watter", "Water"), ("wter", "Water"), ("waters", "Water"), ("h2o", "Water"),
        ("food", "Food"), ("foood", "Food"), ("fod", "Food"), ("meals", "Food"), ("snacks", "Food"),
        ("firewood", "Firewood"), ("firewod", "Firewood"), ("firwood", "Firewood"), ("wood", "Firewood"), ("logs", "Firewood"),
    ],
)
def test_issue_words_and_typos(word, issue):
    assert issue_of_word(word) == issue


@pytest.mark.parametrize("word", ["later", "waste", "waiter", "would", "woods", "good", "for", "fire-", "matter", "what", "foot", "weather"])
def test_ordinary_words_are_not_items(word):
    assert issue_of_word(word) is None


def test_normalize_joins_spellings_and_contractions():
    assert "firewood" in normalize("Fire wood please").split()
    assert "do not" in normalize("I dont need it")
    assert "can not" in normalize("I can't")


@pytest.mark.parametrize(
    "text, issue",
    [
        ("water is my top priority", "Water"),
        ("I really need firewood, it gets cold", "Firewood"),
        ("I need watter badly", "Water"),
        ("Hey! I'm really hoping to get as much water as possible, we're hiking in the desert", "Water"),
        ("my kids get hungry all the time so food is a must", "Food"),
        ("the most important thing for us is fire wood", "Firewood"),
        ("I'm running low on food", "Food"),
        ("we cant go without firewod up here", "Firewood"),
        ("I am worried about having enough water", "Water"),
        ("would you happen to have any firewood?", "Firewood"),
    ],
)
def test_reads_a_high_need(text, issue):
    reading = read(text)
    assert reading.needs.get(issue, 0) > 0
    assert reading.top_need() == issue


@pytest.mark.parametrize(
    "text, issue",
    [
        ("we don't need much food", "Food"),
        ("food is not a big deal for me honestly", "Food"),
        ("we brought tons of food so we're fine there", "Food"),
        ("Firewood is my least priority since it's summer", "Firewood"),
        ("I don't really care about the wood", "Firewood"),
        ("i dont need any water, there's a creek by us", "Water"),
        ("water is not my top priority", "Water"),
        ("we're good on firewood", "Firewood"),
        ("I can spare the food", "Food"),
    ],
)
def test_reads_a_low_need(text, issue):
    assert read(text).needs.get(issue, 0) < 0


def test_mixed_needs_in_one_message():
    reading = read("I have plenty of water but I'm short on food")
    assert reading.needs["Water"] < 0 < reading.needs["Food"]
    reading = read("I need some food too, but water is most important")
    assert reading.needs["Water"] > reading.needs["Food"] > 0
    reading = read("Food and water are both really important to me")
    assert reading.needs["Food"] > 0 and reading.needs["Water"] > 0


@pytest.mark.parametrize(
    "text, order",
    [
        ("I'd say water first, firewood second and food last", ["Water", "Firewood", "Food"]),
        ("My priorities are water, then food, then firewood", ["Water", "Food", "Firewood"]),
        ("Water > Food > Firewood for me", ["Water", "Food", "Firewood"]),
    ],
)
def test_reads_a_ranking(text, order):
    needs = read(text).needs
    assert sorted(needs, key=lambda i: -needs[i]) == order


def test_reads_comparisons():
    assert ("Water", "Food") in read("I need water more than food").prefers
    assert ("Firewood", "Food") in read("I would prefer firewood over food").prefers
    assert ("Firewood", "Water") in read("I can trade you 3 waters for 3 wood").prefers


@pytest.mark.parametrize(
    "text, share",
    [
        ("you can have 2 food and I take all the water", {"Food": 1, "Water": 3, "Firewood": None}),
        ("how about I get 3 firewood and you get the rest", {"Food": 0, "Water": 0, "Firewood": 3}),
        ("how about 2 water for me and 1 for you", {"Food": None, "Water": 2, "Firewood": None}),
        ("I'll give you 2 food, 1 water and I keep all the firewood", {"Food": 1, "Water": 2, "Firewood": 3}),
        ("Could I get 2 waters and you take all the firewood and 2 food?", {"Food": 1, "Water": 2, "Firewood": 0}),
        ("How about you get 3 firewood, 1 water and I keep the rest", {"Food": 3, "Water": 2, "Firewood": 0}),
        ("i get 3 food 2 water 1 firewood", {"Food": 3, "Water": 2, "Firewood": 1}),
        ("Give me 2 firewood and 1 food and you can have the rest", {"Food": 1, "Water": 0, "Firewood": 2}),
        ("How about I take 1 of each and you get the rest?", {"Food": 1, "Water": 1, "Firewood": 1}),
        ("I can give you all the firewood if I can have the food", {"Food": 3, "Water": None, "Firewood": 0}),
        ("Fine take all the water. I will take one food and all the firewood.", {"Food": 1, "Water": 0, "Firewood": 3}),
        ("you take two firewood and no water, I'll take the other firewood, all the water and zero food", {"Food": 0, "Water": 3, "Firewood": 1}),
    ],
)
def test_reads_proposals(text, share):
    assert read(text).proposal == share


def test_statements_without_counts_are_not_proposals():
    assert read("water is my top priority").proposal is None
    assert read("What do you need most?").proposal is None
    assert read("I have three kids and a dog").proposal is None


@pytest.mark.parametrize("text", ["What's your top priority?", "which item do you need the most?", "what about you?", "And you?", "What are you hoping to get?"])
def test_asks_preferences(text):
    assert read(text).asks_preferences


def test_statements_do_not_ask():
    assert not read("Water is what I need most.").asks_preferences


@pytest.mark.parametrize("text", ["That works for me!", "Deal!", "ok sounds good, i'll submit", "Sure, let's do it", "yes, that's fair"])
def test_agreement(text):
    reading = read(text)
    assert reading.agrees and not reading.disagrees


@pytest.mark.parametrize("text", ["no, that's not fair to me", "Sorry but I can't do that, I need more water", "ok but I need more water", "No deal."])
def test_disagreement(text):
    reading = read(text)
    assert reading.disagrees and not reading.agrees


def test_questions_about_the_partner_say_nothing_about_the_speaker():
    assert read("Do you need water?").needs == {}
    assert read("You seem to need a lot of firewood.").needs == {}


def test_every_banked_reason_keeps_the_direction_of_its_statement():
    """The rule agent says "X is my top priority. <reason>": the reason must never turn that around."""
    for issue, levels in reason_bank().items():
        for level, reasons in levels.items():
            statement = {"High": f"{issue} is my top priority.", "Low": f"{issue} is my lowest priority.", "Medium": ""}[level]
            for reason in reasons:
                needs = read(f"{statement} {reason}").needs
                others = {i: v for i, v in needs.items() if i != issue}
                if level == "High":
                    assert needs.get(issue, 0) > 0, reason
                elif level == "Low":
                    assert needs.get(issue, 0) < 0, reason
                assert all(abs(v) <= 1.5 for v in others.values()), (reason, needs)


# ---------------------------------------------------------------------------- general patterns of real messages
# Hand-written in the shapes real CaSiNo negotiators use; each shape was found wrong on the dev half
# of the labelled set (`understanding_eval`) and fixed as a pattern, not as a sentence.

D, F, W = "Firewood", "Food", "Water"


@pytest.mark.parametrize(
    "text, share",
    [
        # a list opened by "how about"/"maybe", or standing alone, is the speaker's own ask
        ("How about 2 foods and 2 waters, and then I'll give up all the firewood?", {F: 2, W: 2, D: 0}),
        ("ok how about 2 firewood 0 water and 2 food", {F: 2, W: 0, D: 2}),
        ("I could use some more wood - maybe 2 firewood, 1 water and a food?", {F: 1, W: 1, D: 2}),
        ("No food, just 2 water and 3 firewood", {F: 0, W: 2, D: 3}),
        ("3 fire, 0 water, 2 food. Want to submit it?", {F: 2, W: 0, D: 3}),
        # what is left / the rest completes what was listed
        ("You get all 3 waters and 1 firewood, I'll take what's left.", {F: 3, W: 0, D: 2}),
        ("2 food and 1 water like we said is what I need. You can have the rest.", {F: 2, W: 1, D: 0}),
        ("So that's 2 food and 1 water for me and the rest for you?", {F: 2, W: 1, D: 0}),
        ("Sure, the firewood is all yours!", {F: None, W: None, D: 0}),
        # long phrasings of who takes what
        ("I would be willing to take only 1 firewood as long as I get 2 food and 2 water", {F: 2, W: 2, D: 1}),
        ("Would it be okay if I got 2 firewood and 1 each of the food and water?", {F: 1, W: 1, D: 2}),
        ("I will agree on getting all of the water and food, and no firewood.", {F: 3, W: 3, D: 0}),
        ("How about 3 waters 2 woods 0 foods for me?", {F: 0, W: 3, D: 2}),
        ("If you take all the firewood I must get all the food then.", {F: 3, W: None, D: 0}),
        ("Here's my offer: 3 food, 0 firewood and 1 water.", {F: 3, W: 1, D: 0}),
        # giving without naming the partner
        ("I will provide 1 firewood and 2 food", {F: 1, W: None, D: 2}),
        ("I can only spare 1 water", {F: None, W: 2, D: None}),
        ("I'm ok with letting go of two of the firewood", {F: None, W: None, D: 1}),
        ("I can give you 3 firewood, but only 1 food and no water.", {F: 2, W: 3, D: 0}),
        ("Sorry, I really can't give in on the water or the food.", {F: 3, W: 3, D: None}),
        # a subject left out after "but"/"and" is the one named before
        ("I'm fine with the 2 firewood and 1 water, but would then prefer 2 food too", {F: 2, W: 1, D: 2}),
        ("I could give up two firewood and take three waters and two food", {F: 2, W: 3, D: 1}),
        ("You can keep 2 food and 2 firewood but 1 water", {F: 1, W: 2, D: 1}),
        # more ways of saying "mine" and "yours"
        ("I can do 1 food, 3 water and 2 firewood.", {F: 1, W: 3, D: 2}),
        ("I'll take 3 water for 2 food", {F: 1, W: 3, D: None}),
        ("I'll settle for one firewood", {F: None, W: None, D: 1}),
        ("Any chance you could spare one food and all three waters?", {F: 1, W: 3, D: None}),
        ("I could really use 3 extra packages of firewood.", {F: None, W: None, D: 3}),
        ("So, I am thinking 2 firewood, 2 water and 0 food.", {F: 0, W: 2, D: 2}),
        ("No, how about 2 packages of food, 1 package of firewood and 2 packages of water.", {F: 2, W: 2, D: 1}),
        ("2 firewood, 1 water, 1 food would work best", {F: 1, W: 1, D: 2}),
        ("Would it be alright for me to have 2 of the 3 waters?", {F: None, W: 2, D: None}),
        ("How would you be with receiving two waters, one food and two of the firewood?", {F: 2, W: 1, D: 1}),
        ("So to confirm. Me 2 food, 1 water, 1 firewood. You, 1 food, 2 water and 2 firewood?", {F: 2, W: 1, D: 1}),
        ("You are welcome to all the firewood", {F: None, W: None, D: 0}),
        ("I need only 1 extra package for food", {F: 1, W: None, D: None}),
        ("I can get you one package of water", {F: None, W: 2, D: None}),
        ("I would like to keep the food", {F: 3, W: None, D: None}),
        ("I really, really need 2 water", {F: None, W: 2, D: None}),
        # counted words standing for the item named before
        ("I need firewood the most but I am willing to let you have 2 of them", {F: None, W: None, D: 1}),
        ("Food matters a lot to us. I would like all 3 packages, if that's okay with you?", {F: 3, W: None, D: None}),
        ("Would you consider 3 packages of food?", {F: 3, W: None, D: None}),
        ("I would love it if you stock me up with 3 packages of water and 2 packages of firewood", {F: None, W: 3, D: 2}),
        ("The firewood here is wet, so I'd like to keep at least one package of it.", {F: None, W: None, D: 1}),
        # who takes, said with "-ing"
        ("How would you feel about taking 1 firewood, 2 water and 2 food?", {F: 1, W: 1, D: 2}),
        ("I could agree to you taking 2 food, 2 water, and 0 firewood", {F: 1, W: 1, D: 3}),
        ("Can we make a deal for me having 3 water, 2 food and 2 firewood?", {F: 2, W: 3, D: 2}),
        ("How does this sound? For me: 1 water, 2 firewood, 1 food. For you: 2 water, 1 firewood, 2 food", {F: 1, W: 1, D: 2}),
        ("I won't take less than 2 waters.", {F: None, W: 2, D: None}),
        ("I can manage with two packages of food for sure.", {F: 2, W: None, D: None}),
        ("Would you be willing to lend me 3 foods and 2 waters?", {F: 3, W: 2, D: None}),
        # an ask that starts mid-line, after a smiley, or closes with a verdict
        ("I think we're getting closer to an agreement🙂 How about 1 firewood, 2 food, and one water?", {F: 2, W: 1, D: 1}),
        ("3 food 2 waters would be a little more fair.", {F: 3, W: 2, D: None}),
        ("okay 2 water 1 firewood and 1 food thats all", {F: 1, W: 2, D: 1}),
        ("Would you be willing for me to take one food, two water and two firewood?", {F: 1, W: 2, D: 2}),
        ("If you make it two food, we have a deal.", {F: 2, W: None, D: None}),
        ("I really am looking for 3 firewood and 3 water. What are you looking for?", {F: None, W: 3, D: 3}),
        ("I'd prefer to take all of the firewood, split the food, and you could have all of the water.", {F: None, W: 0, D: 3}),
        # a list closed by "to you", then "then" and a new share
        ("Maybe 2 foods to you, 3 waters, and then all the wood for me?", {F: 1, W: 0, D: 3}),
        ("What about 1 water for you, 2 firewood, and then all the food for me?", {F: 3, W: 2, D: 1}),
        ("the firewood to you and the water to me", {F: None, W: 3, D: 0}),
        # needing none of an item, inside a split, is a share of 0
        ("I'd take 3 water and 1 food, and we don't need any firewood.", {F: 1, W: 3, D: 0}),
        ("I'm hoping to obtain 2 food and 2 water.", {F: 2, W: 2, D: None}),
        ("I'm willing to forgo the water if I get 3 firewood.", {F: None, W: 0, D: 3}),
        ("Would you like to have 2 water if I keep all the food?", {F: 3, W: 1, D: None}),
        ("Could you share 2 packs of firewood with me?", {F: None, W: None, D: 2}),
        ("I'll hand you a bottle of water for 2 food", {F: 2, W: 2, D: None}),
        ("Then I take the extra water and you take 2 food", {F: 1, W: 3, D: None}),
    ],
)
def test_reads_general_offer_shapes(text, share):
    assert read(text).proposal == share


@pytest.mark.parametrize(
    "text, share",
    [
        # a recipient stops governing items once a new subject, reason or purpose comes in
        ("I'll take 2 water, and we can split the food", {F: None, W: 2, D: None}),
        ("I'll keep all the firewood and send 2 food packages", {F: 1, W: None, D: 3}),
        ("Can I take all the firewood so I can boil some of the water?", {F: None, W: None, D: 3}),
        ("I am offering all of the water, but I want all of the firewood in exchange.", {F: None, W: 0, D: 3}),
    ],
)
def test_a_recipient_does_not_reach_into_the_next_statement(text, share):
    assert read(text).proposal == share


@pytest.mark.parametrize(
    "text",
    [
        "You can have the rest",  # the rest of nothing
        "So 2 firewood for 3 water?",  # who gives which is not said
        "I need 2 or 3 bundles of firewood",  # no definite count
        "I will offer one more water or food",  # either, not both
        "I have 2 kids so I feel like the water is the most important for them.",
        "We're going to have to find a way to split the food and other things between us.",
        "So now you need 3 firewood and 1 food? Am I right?",  # the partner's ask, restated
        "I won't have enough food and would be really needing the food more than the water.",  # a need, not a count
        "I need one more water",  # a change to a deal, not a share
        "It doesn't seem fair for you to get all the firewood.",
        "I was thinking about the food.",
        "Or I could do 3 firewood and 2 food.",  # another choice, not the offer
        "I don't think I can do 1 firewood.",
        "Maybe we could trade for some extra firewood to keep the fire going all night?",
        "food and water are my top priorities, i'll need 2 of one of them at least",  # which one is open
        "so how about one gets one firewood and two foods and the other one gets two firewoods and one food?",
        "If you need anything else, let me know!",
        "We don't need any firewood.",  # a need on its own, no split
        "I have a lot of water, and I could take the remaining firewood.",  # the remaining may be part
    ],
)
def test_no_offer_is_invented(text):
    assert offer_of(read(text)) is None


@pytest.mark.parametrize(
    "text, issue",
    [
        ("Firewood for sure! I don't need water really.", D),
        ("Firewood would be great!", D),
        ("I told you I needed some water because of my medication", W),
        ("Well I wanted water most because I bring more food.", W),
        ("Having as much prepared food as I can have would make it easier.", F),
        ("Water is the one thing I can't do without", W),
        ("We're good on water, it's the firewood we really need", D),
        ("If I give up what I need most, food, you'll have to give me more items overall.", F),
        ("Do you think I could get a little extra food if I give you some extra water?", F),
        ("I actually need to have some of the firewood. It gets really cold.", D),
        ("We're planning to start a proper fire every night", D),
        ("I only need a little food, but I need extra water", W),
        ("hi there! i'm mostly interested in wood", D),
        ("Firewood is my second preference and water is my third", F),
        ("We want to cook the fish we catch over a campfire every night", D),
        ("I would greatly appreciate the firewood, I get cold so easily.", D),
        ("I'm pretty water dependent if you couldn't tell.", W),
    ],
)
def test_reads_general_need_shapes(text, issue):
    assert read(text).top_need() == issue


@pytest.mark.parametrize(
    "text",
    [
        "Hello, I'm looking for food, water and firewood",  # all three alike: no top
        "It sounds like you could use some extra firewood",  # about the partner
        "I assume water is a pretty high priority for you then?",
        "I'd rather give you more firewood to be honest",  # giving away is no need
        "No problem about the firewood, I don't get cold easily",
    ],
)
def test_no_top_need_is_invented(text):
    assert read(text).top_need() is None


@pytest.mark.parametrize("text", ["Hmm, let me think about it.", "Hmm, let me think.", "hmm let me see", "Hmm, give me a minute"])
def test_hesitation_is_not_a_refusal(text):
    reading = read(text)
    assert not reading.disagrees and not reading.agrees


def test_hmm_with_a_complaint_still_refuses():
    assert read("Hmm, that is a lot to ask.").disagrees


@pytest.mark.parametrize(
    "text, share",
    [
        # a bare count right after a recipient stands for the item named before
        ("We need water for the dogs. Can I have two and you take one?", {F: None, W: 2, D: None}),
        ("I can do without firewood, so you get all 3. I would then get 2 food.", {F: 2, W: None, D: 0}),
        ("We brought our own food, so I'd give you all of the extra.", {F: 0, W: None, D: None}),
        # giving-up phrases give to the speaker when the partner is the giver
        ("Would you be willing to part with 1 water for 1 food?", {F: 2, W: 1, D: None}),
        ("I'm ok with letting go of two of the firewood", {F: None, W: None, D: 1}),
        # a summary of one's own share
        ("Let me get the last firewood then, making 2 foods, 2 firewood and 1 water.", {F: 2, W: 1, D: 2}),
        # a single item asked for by what it would do
        ("I get thirsty on hikes so 1 extra water would help.", {F: None, W: 1, D: None}),
        # one count for two items joined after "package of"
        ("Could I take the firewood and 1 extra package of food and water?", {F: 1, W: 1, D: 3}),
        # "the X" inside a counted list is all of it, even after a need
        ("If I only get 1 food I need 2 waters and the firewood.", {F: 1, W: 2, D: 3}),
        # words glued to "and"
        ("you can have 2 firewood while i get 1 firewood, 3 waterand 3 food", {F: 3, W: 3, D: 1}),
        # the rest goes where its own marker says, with or without "the"
        ("I get 3 firewood and the rest is yours", {F: 0, W: 0, D: 3}),
        ("no, I get 3 firewood then rest is yours", {F: 0, W: 0, D: 3}),
        # "the X" far from its taker, or a part of it, is not all of it
        ("You get 2 firewood, and I'll take 2 water and 2 food, since I'm taking a haircut on the firewood.", {F: 2, W: 2, D: 1}),
        ("You get two waters and I get one of the food, so you get the majority of both the water and food.", {F: 1, W: 1, D: None}),
        # misspelt packages, and a bare list before the speaker's giving
        ("I was hoping to get 3 extra packaged of water", {F: None, W: 3, D: None}),
        ("No 3 packages of firewood, 1 package of water, and I can give you 3 packages of food.", {F: 0, W: 1, D: 3}),
        # what comes "in exchange for" goes the other way from what was just taken
        ("Would it be possible to get all of the water in exchange for all of the firewood?", {F: None, W: 3, D: 0}),
        # "you do X and I get Y": X is the partner's
        ("Would you do 3 waters and 1 firewood and I get 3 food and 2 firewood?", {F: 3, W: 0, D: 2}),
        # "all 2 food" is two; bundles are firewood even when water was named last
        ("I could get all 2 food, and you can have all of the firewood and 1 food.", {F: 2, W: None, D: 0}),
        ("Now the firewood. We will boil our water from the creek. I think 2 bundles for me, and one for you.", {F: None, W: None, D: 2}),
        # an infinitive's taker is the nearest person before it, the speaker when there is none
        ("Come on, i am the one to get the 2 food and 2 water!", {F: 2, W: 2, D: None}),
        ("I feel it's only fair to have all of firewood, one water, and two food.", {F: 2, W: 1, D: 3}),
        ("I'd like you to have 2 food.", {F: 1, W: None, D: None}),
        # "will you be okay with" a count offers the partner that count
        ("I take all the extra food. Will you be okay with 1 firewood?", {F: 3, W: None, D: 2}),
        # a count glued to its item, and a bare count closed by "at least"
        ("So can I have 2 food 1 firewood and 2water?", {F: 2, W: 2, D: 1}),
        ("But as for water I would like 2 at least.", {F: None, W: 2, D: None}),
        # "if you want N X" grants the partner that share on a condition
        ("if you want 2 waters I'd prefer to take all the food just in case", {F: 3, W: 1, D: None}),
        # "it all" stands for the item named before
        ("I could have 2 of the waters and really don't care about the firewood, you could have it all.", {F: None, W: 2, D: 0}),
        # an ask goes on in a bare list followed by its reason
        ("I would like 2 of the waters because it is hot. 2 foods because I have friends. Also 1 firewood so I can cook.", {F: 2, W: 2, D: 1}),
        # "get away with", "make due with" name the speaker's share
        ("I don't drink much water so I can get away with 1.", {F: None, W: 1, D: None}),
        ("I can make due with one water, and all of the firewood.", {F: None, W: 1, D: 3}),
        # "the remaining items" is the rest; "I don't need the food" is none of it inside a split
        ("here's my offer: you get 2 food and 2 water, then i'll get the remaining items.", {F: 1, W: 1, D: 3}),
        ("Are you willing to take 1 firewood and 2 waters? I also don't need the food.", {F: 0, W: 1, D: 2}),
        # a count after "you" that is no need bound: "3 food you might ..."
        ("if i gave you 2 water and 3 food you might be able to spare the 3 firewood", {F: 0, W: 1, D: 3}),
        ("so I'll be 2 firewood, 1 water, 2 food?", {F: 2, W: 1, D: 2}),
        # "would you consider taking X" gives X to the partner; "take back" settles no share
        ("Would you consider taking one extra firewood, 2 packages of food, and one water?", {F: 1, W: 2, D: 2}),
        ("I will give you one of the foods, but then need 2 firewood and then take back 1 of the waters.", {F: 2, W: None, D: 2}),
        # "ill settle" is "I'll settle"; a counted share "important for me" still counts
        ("Ill settle with 3 water and 2 food and then you can have 1 food and 3 firewood.", {F: 2, W: 3, D: 0}),
        ("Having two firewood is important for me also", {F: None, W: None, D: 2}),
        # an "if you need N" grants, an "if you let me have" asks
        ("I don't mind if you need 2 packages of firewood.", {F: None, W: None, D: 1}),
        ("I think if you let me have 2 waters I might survive this!", {F: None, W: 2, D: None}),
        # a sentence opening with "unless" offers another choice, not the offer
        ("I will have 2 water. Unless you need none, then I will take them all.", {F: None, W: 2, D: None}),
        # a count "of everything" or "of" a list of items goes to each
        ("Can i get at least 1 pack of everything to be fair.", {F: 1, W: 1, D: 1}),
        ("That is not possible. I will give you 1 of food, water and firewood. I take the rest", {F: 2, W: 2, D: 2}),
        # a single counted item accepted by what it does; what comes "from me" goes to the partner
        ("One water will work. I accept your offer.", {F: None, W: 1, D: None}),
        ("let's do 3 waters from me", {F: None, W: 0, D: None}),
        # "unable to give" keeps; "I only have" owns, it proposes nothing (unless it is a condition)
        ("take a 1 pack of food from me. i am unable to give fire wood", {F: 2, W: None, D: 3}),
        ("I'd like at least 1 firewood and 2 waters, because I only have 1 jug of water.", {F: None, W: 2, D: 1}),
        ("If I only have 1 food I need 2 waters and the firewood.", {F: 1, W: 2, D: 3}),
        # quoted shares opened by "for you," / "for me,"; "one of the X and Y"; a misspelt receive
        ('think of my proposal. "for you, 1 wood, 2 food, 2 water". "for me, 2 wood, 1 water, 1 food".', {F: 1, W: 1, D: 2}),
        ("You are welcome to one of the firewood and water", {F: None, W: 2, D: 2}),
        ("How about (for me to recieve): 1 firewood, 3 food, 1 water?", {F: 3, W: 1, D: 1}),
        # "thus need", "I take 2 you take 1", "an extra package of food", "all thefirewood"
        ("I get too cold. I will thus need the 3 firewood.", {F: None, W: None, D: 3}),
        ("then i think we will need to split the water. I take 2 you take 1 for the kids.", {F: None, W: 2, D: None}),
        ("so I'd like to get an extra package of food if possible.", {F: 1, W: None, D: None}),
        ("I need all thefirewood and food, you can have all the water.", {F: 3, W: 0, D: 3}),
        ("Maybe... I could perhaps do with 2 firewood. But, I would like at least one packet of water.", {F: None, W: 1, D: 2}),
        ("I need a minimum of 2 firewood. You can have 2 water. I would now like 2 food.", {F: 2, W: 1, D: 2}),
    ],
)
def test_reads_offer_families_of_the_second_draw(text, share):
    assert read(text).proposal == share


@pytest.mark.parametrize(
    "text",
    [
        "How about I get one less food and an additional water?",  # a change against an earlier split
        "I can give you all the food you need.",  # bounded by a need, not a count
        "Could I trade one firewood for another food?",
        "I have a medical condition, so I would need the most food.",  # a superlative, not "most of"
        "You're good with the extra water and firewood?",  # asks about a deal already made
        "It's hard for them to get water out there.",
        "Are you sure you want 2 food?",  # asks about the partner's wish
        "2 foods because I have friends coming.",  # a reason alone, no ask before it
        "I think I would need another bundle of water in order to give up two bundles of wood.",
        "If you get all the water, you would be at an advantage with all the higher valued items.",  # a premise, no offer
        "If you get two foods then I need more items overall",
        "The firewood is most important to me to be sure.",  # worth, not a share
        "We have two kids and you have one.",  # counts of people, no recipient of items
    ],
)
def test_relative_and_need_bounded_shares_are_no_offer(text):
    assert offer_of(read(text)) is None

"""Entity linking on person-like messages: partial names, acronyms, inflections, typos, case, negation scope."""

from __future__ import annotations

import pytest

from duologue.tasks.mutualfriends.linking import EntityLinker, Lexicon, edit_distance, inflections

OWN = {
    "Name": ["Tyler", "Brandon", "Anthony", "Jessica"],
    "School": ["Salisbury University", "University of North Carolina", "Massachusetts Institute of Technology", "University of Michigan", "Johnson C. Smith University", "Babson College"],
    "Major": ["Marine Biology", "Film Studies", "Chemistry", "Political Science"],
    "Company": ["Molycorp", "Data Resources Inc.", "Google", "Leonard Green & Partners"],
    "Hobby": ["Hiking", "Knitting", "Bird watching", "Rock climbing"],
    "Time Preference": ["morning", "afternoon", "evening"],
    "Location Preference": ["indoor", "outdoor"],
}
LINKER = EntityLinker(OWN, list(OWN))

S = "School"
M = "Major"
C = "Company"
H = "Hobby"
T = "Time Preference"
L = "Location Preference"
N = "Name"

# (message, {(attribute, value, negated)}) -- written the way people wrote in the corpus
CASES = [
    # full names, any case
    ("do you have anyone at salisbury university?", {(S, "Salisbury University", False)}),
    ("ANYONE WHO WORKS AT MOLYCORP", {(C, "Molycorp", False)}),
    # partial names
    ("i have a lot of salisbury", {(S, "Salisbury University", False)}),
    ("3 at data resources", {(C, "Data Resources Inc.", False)}),
    ("one at leonard green", {(C, "Leonard Green & Partners", False)}),
    ("johnson c smith film, evening", {(S, "Johnson C. Smith University", False), (M, "Film Studies", False), (T, "evening", False)}),
    # acronyms and nicknames
    ("anyone from UNC?", {(S, "University of North Carolina", False)}),
    ("any MIT grads", {(S, "Massachusetts Institute of Technology", False)}),
    ("mine is JCSU", {(S, "Johnson C. Smith University", False)}),
    ("poli sci major at google", {(M, "Political Science", False), (C, "Google", False)}),
    ("marine bio at data resouces", {(M, "Marine Biology", False), (C, "Data Resources Inc.", False)}),
    ("any chem majors?", {(M, "Chemistry", False)}),
    # plural and inflected forms
    ("most of mine like indoors", {(L, "indoor", False)}),
    ("they are all outdoorsy", {(L, "outdoor", False)}),
    ("any mornings?", {(T, "morning", False)}),
    ("two evenings and one afternoon", {(T, "evening", False), (T, "afternoon", False)}),
    ("my friends are hikers", {(H, "Hiking", False)}),
    ("one of them likes to knit", {(H, "Knitting", False)}),
    ("anyone into birdwatching", {(H, "Bird watching", False)}),
    ("two anthonys", {(N, "Anthony", False)}),
    ("is your tyler a night owl", {(N, "Tyler", False), (T, "evening", False)}),
    # typos
    ("marine bio at data resouces, afternon", {(M, "Marine Biology", False), (C, "Data Resources Inc.", False), (T, "afternoon", False)}),
    ("i have a brandon at molycrop", {(N, "Brandon", False), (C, "Molycorp", False)}),
    ("anyone from salsbury", {(S, "Salisbury University", False)}),
    ("do u have any hikking people", {(H, "Hiking", False)}),
    ("evning people?", {(T, "evening", False)}),
    # negation and its scope
    ("none of mine work at Molycorp", {(C, "Molycorp", True)}),
    ("nobody likes hiking", {(H, "Hiking", True)}),
    ("no one at google", {(C, "Google", True)}),
    ("I don't have anyone at Google but 3 at Molycorp", {(C, "Google", True), (C, "Molycorp", False)}),
    ("not molycorp, evening", {(C, "Molycorp", True), (T, "evening", False)}),
    ("no, afternoon", {(T, "afternoon", False)}),
    ("no mine is JCSU", {(S, "Johnson C. Smith University", False)}),
    ("none of mine like hiking or knitting", {(H, "Hiking", True), (H, "Knitting", True)}),
    ("zero at salisbury", {(S, "Salisbury University", True)}),
    ("my tyler at molycorp likes evenings though", {(N, "Tyler", False), (C, "Molycorp", False), (T, "evening", False)}),
    ("i dont know, maybe salisbury?", {(S, "Salisbury University", False)}),
    ("not many at google", {(C, "Google", False)}),
    ("neither hiking nor knitting", {(H, "Hiking", True), (H, "Knitting", True)}),
    # words that look like values but are not
    ("my target is to find our friend", set()),
    ("Is it the one you said?", set()),
    ("even i am not sure", set()),
    ("liking this game so far", set()),
]


@pytest.mark.parametrize("text, expected", CASES)
def test_person_like_messages_link_to_the_right_values(text, expected):
    parse = LINKER.link(text)
    assert {(m.attribute, m.value, m.negated) for m in parse.mentions} == expected


def test_counts_and_quantities():
    parse = LINKER.link("yes lots of birdwatchers, 5. i have 2 at google and hiking: 3")
    counts = {m.value: m.count for m in parse.mentions}
    assert counts == {"Bird watching": 5, "Google": 2, "Hiking": 3}
    assert LINKER.link("i only have one anthony").mentions[0].count == 1
    assert LINKER.link("two anthonys").mentions[0].count == 2
    assert LINKER.link("most of my friends like hiking").mentions[0].quantity == "many"
    zero = LINKER.link("0 at molycorp").mentions[0]
    assert zero.count == 0 and zero.negated


def test_replies_questions_and_greetings():
    assert LINKER.link("nope").reply == "no"
    assert LINKER.link("No, I don't").reply == "no"
    assert LINKER.link("none").reply == "no"
    assert LINKER.link("no, afternoon").reply == "no"
    assert LINKER.link("yes, 4 of them").reply == "yes"
    assert LINKER.link("yep!").reply == "yes"
    assert LINKER.link("i do").reply == "yes"
    assert LINKER.link("i have a lot of salisbury").reply is None
    assert LINKER.link("none of mine like hiking").reply is None
    assert LINKER.link("do you know an anthony").question
    assert LINKER.link("anyone at google?").question
    assert not LINKER.link("i have two at google").question
    assert LINKER.link("hey! any hikers?").greeting


def test_attributes_asked_without_a_value():
    assert LINKER.link("what school are most of yours from?").asked_attributes == ["School"]
    assert LINKER.link("what are their hobbies?").asked_attributes == ["Hobby"]
    assert LINKER.link("where do they work?").asked_attributes == ["Company"]
    assert LINKER.link("do any work at google?").asked_attributes == []


def test_all_marks_the_only_values_the_speaker_has():
    assert LINKER.link("all of mine are outdoors").exhaustive == {"Location Preference": ["outdoor"]}
    assert LINKER.link("All my friends went to Salisbury, UNC or Babson.").exhaustive == {
        "School": ["Salisbury University", "University of North Carolina", "Babson College"]
    }
    assert LINKER.link("all my freinds like indoors except one").exhaustive == {}
    assert LINKER.link("all but one like hiking").exhaustive == {}


def test_groups_separate_the_friends_a_message_describes():
    parse = LINKER.link("one went to salisbury and likes indoors, the other is michigan and outdoor")
    groups = [{(m.attribute, m.value) for m in g} for g in parse.groups()]
    assert groups == [{(S, "Salisbury University"), (L, "indoor")}, {(S, "University of Michigan"), (L, "outdoor")}]
    parse = LINKER.link("Brandon and Tyler both like evenings and are at molycorp")
    assert len(parse.groups()) == 1 and len(parse.groups()[0]) == 4


def test_ambiguous_words_prefer_the_readers_own_values():
    theirs = EntityLinker({"School": ["Michigan State University"]}, ["School"])
    assert LINKER.link("anyone from michigan?").mentions[0].value == "University of Michigan"
    assert theirs.link("anyone from michigan?").mentions[0].value == "Michigan State University"
    nobody = EntityLinker({"Hobby": ["Hiking"]}, ["School", "Hobby"])
    mention = nobody.link("anyone from michigan?").mentions[0]
    assert {mention.value, *(v for _, v in mention.alternatives)} == {"University of Michigan", "Michigan State University"}


def test_words_naming_an_attribute_settle_a_value_of_two_attributes():
    linker = EntityLinker({"Hobby": ["Hiking"]}, ["School", "Company", "Hobby"])
    assert linker.link("anyone who works at boston?").mentions[0].attribute == "Company"
    assert linker.link("anyone who went to boston?").mentions[0].attribute == "School"


def test_values_outside_the_projects_lists_are_found_in_the_readers_own_list():
    linker = EntityLinker({"Company": ["Vandelay Industries"], "Name": ["Kramerica"]}, ["Company", "Name"])
    parse = linker.link("one at vandelay, named kramerica")
    assert {(m.attribute, m.value) for m in parse.mentions} == {("Company", "Vandelay Industries"), ("Name", "Kramerica")}
    assert {m.value for m in linker.link("anyone at vandaley industries?").mentions} == {"Vandelay Industries"}


def test_initials_need_capitals_when_short_or_a_common_word():
    lexicon = Lexicon({"Hobby": ["Ice skating"], "School": ["Quincy University"]})
    linker = EntityLinker({}, ["Hobby", "School"], base=lexicon)
    assert linker.link("Is anyone free?").mentions == []
    assert [m.value for m in linker.link("anyone from QU?").mentions] == ["Quincy University"]
    assert [m.value for m in linker.link("anyone from qu?").mentions] == []


def test_helpers():
    assert edit_distance("freinds", "friends") == 1
    assert edit_distance("afternon", "afternoon") == 1
    assert edit_distance("hiking", "biking") == 1
    assert edit_distance("abc", "xyz", limit=1) == 2
    assert {"hike", "hikes", "hikers"} <= inflections("hiking")
    assert "indoors" in inflections("indoor")
    assert "even" not in inflections("evening")


def test_mentions_point_at_the_characters_as_written():
    text = "I don\u2019t have anyone at Leonard Green & Partners, but Coca-Cola? 2 at data resouces"
    linker = EntityLinker({"Company": ["Leonard Green & Partners", "Coca-Cola", "Data Resources Inc."]}, ["Company"])
    spans = [(m.value, text[m.char_start : m.char_end], m.text) for m in linker.link(text).mentions]
    assert spans == [
        ("Leonard Green & Partners", "Leonard Green & Partners", "Leonard Green & Partners"),
        ("Coca-Cola", "Coca-Cola", "Coca-Cola"),
        ("Data Resources Inc.", "data resouces", "data resouces"),
    ]


def test_nicknames_name_the_readers_friend():
    linker = EntityLinker({"Name": ["Christopher", "Alexander", "Kimberly"]}, ["Name"])
    assert [m.value for m in linker.link("do you have a chris? or alex, or kim").mentions] == ["Christopher", "Alexander", "Kimberly"]
    both = EntityLinker({"Name": ["Samantha", "Samuel"]}, ["Name"]).link("any sams?").mentions[0]
    assert {both.value, *(v for _, v in both.alternatives)} == {"Samantha", "Samuel"}


def test_lower_case_names_in_verb_position_are_verbs():
    linker = EntityLinker({"Name": ["Mark", "Chase"], "Company": ["Google"]}, ["Name", "Company"], base=Lexicon())
    assert linker.link("I'll mark that down").mentions == []
    assert linker.link("let's chase this down").mentions == []
    assert [m.value for m in linker.link("is it mark or chase?").mentions] == ["Mark", "Chase"]
    assert [m.value for m in linker.link("I Mark? no").mentions] == ["Mark"]  # capitalised: a name


def test_a_word_prefers_the_value_it_names_most_fully():
    both = EntityLinker({"School": ["Michigan State University", "University of Michigan"]}, ["School"])
    mention = both.link("2 from michigan").mentions[0]
    assert mention.value == "University of Michigan" and mention.alternatives == (("School", "Michigan State University"),)
    assert both.link("2 from michigan state").mentions[0].value == "Michigan State University"


def test_an_abbreviation_may_stand_for_several_words():
    linker = EntityLinker({"Major": ["Human Resources Management", "Comparative Literature", "Computer Science"]}, ["Major"])
    assert [m.value for m in linker.link("HR management?").mentions] == ["Human Resources Management"]
    assert [m.value for m in linker.link("any comp lit or comp sci majors").mentions] == ["Comparative Literature", "Computer Science"]


def test_typo_search_scans_small_vocabularies_and_indexes_large_ones_alike(monkeypatch):
    from duologue.tasks.mutualfriends import linking

    values = {"Company": ["Molycorp", "Data Resources Inc."], "Time Preference": ["afternoon", "evening"], "Hobby": ["Hiking"]}
    words = ("molycrop", "moylcrop", "resouces", "afternon", "aftrenon", "evning", "hikking", "zzzzzz", "hiking")
    scanned = {w: Lexicon(values).typo_candidates(w) for w in words}
    monkeypatch.setattr(linking, "_SCAN_VOCABULARY", 0)
    indexed = {w: Lexicon(values).typo_candidates(w) for w in words}
    assert scanned == indexed
    assert scanned["molycrop"]["molycorp"] == 1 and scanned["moylcrop"]["molycorp"] == 2 and scanned["afternon"]["afternoon"] == 1 and scanned["zzzzzz"] == {}

"""The rule listener and the user simulator: reading people's free text, answering in varied words."""

from __future__ import annotations

import random
import re
from statistics import fmean

import pytest

from duologue.agents import make_agent
from duologue.core import actions
from duologue.core.episode import play_episode
from duologue.tasks import make
from duologue.tasks.openchat import listening
from duologue.tasks.openchat.agents import ListenerAgent, reflection

# --------------------------------------------------------------------------- the parser


@pytest.mark.parametrize(
    "text, label, negated, intensity",
    [
        ("I am not happy about it", "Joyful", True, 1),
        ("im sooo happy!!", "Joyful", False, 3),
        ("I wasn't worried at all tbh", "Anxious", True, 1),
        ("I'm a bit nervous about tomorrow", "Anxious", False, 1),
        ("honestly I could not be happier", "Joyful", False, 3),
        ("honestly kinda dissapointed", "Disappointed", False, 1),
        ("I feel SO ANGRY", "Angry", False, 3),
        ("no longer angry, just tired", "Angry", True, 1),
        ("im greatful for my freinds", "Grateful", False, 2),
        ("i cant wait for the trip", "Anticipating", False, 3),
        ("Im anxous about my exam", "Anxious", False, 2),
        ("I was scared to death", "Terrified", False, 3),
        ("my dog died last week and I'm heartbroken", "Devastated", False, 3),
        ("It's nothing to be embarrassed about, right?", "Embarrassed", True, 1),
        ("I've been so lonely since I moved here", "Lonely", False, 3),
        ("Honestly I'm fed up with my roommate", "Annoyed", False, 3),
        ("I'm really not that excited anymore.", "Excited", True, 1),
    ],
)
def test_feelings_in_free_text(text, label, negated, intensity):
    feeling = listening.main_feeling(text)
    assert feeling is not None, text
    assert (feeling.label, feeling.negated, feeling.intensity) == (label, negated, intensity)


def test_negation_turns_the_felt_valence_around():
    assert listening.main_feeling("I'm not happy").felt_valence == "negative"
    assert listening.main_feeling("I'm not worried anymore").felt_valence == "positive"
    assert listening.main_feeling("I am happy").felt_valence == "positive"


def test_negation_stops_at_the_clause_boundary():
    feelings = listening.read_feelings("I didn't sleep, but I'm excited")
    assert [(f.label, f.negated) for f in feelings] == [("Excited", False)]
    mixed = listening.read_feelings("I'm not feeling that happy, but I'm hopeful")
    assert [(f.label, f.negated) for f in mixed] == [("Joyful", True), ("Hopeful", False)]


@pytest.mark.parametrize("text", ["I went to the store and bought milk.", "We talked about the weather.", "Meet me at 5 pm."])
def test_plain_statements_have_no_feeling(text):
    assert listening.read_feelings(text) == []


@pytest.mark.parametrize(
    "text, expected",
    [
        ("I was cleaning the attic and found a box of my old school photos.", "my old school photos"),
        ("I start my new job at the design studio on Monday.", "my new job"),
        ("Mostly 3rd grade. Mr. Brown was my teacher, he was great.", "my teacher"),
        ("we went to New York City for my birthday", "my birthday"),
        ("My doctor wants me to try a new medicine and I'm not sure about it.", "My doctor"),
        ("honestly the worst part was the waiting room", "the waiting room"),
    ],
)
def test_the_best_content_phrase_is_what_the_message_is_about(text, expected):
    assert listening.content_phrases(text)[0] == expected


def test_content_phrases_find_names_and_skip_verbs_and_clitics():
    phrases = listening.content_phrases("we went to New York City and it didn't help much")
    assert "New York City" in phrases
    assert not any("help" in p or "didn't" in p for p in phrases)
    assert set(listening.content_phrases("My sister showed up at my door")) == {"my door", "My sister"}


def test_second_person_turns_the_phrase_around():
    assert listening.second_person("my old school photos") == "your old school photos"
    assert listening.second_person("our plane") == "your plane"


@pytest.mark.parametrize(
    "text, question, asks",
    [
        ("have you ever felt like that?", True, True),
        ("what do you think", True, True),
        ("Why did it disappear?", True, False),
        ("do they even sell those anymore", True, False),
        ("I wonder what happened.", False, False),
        ("ok", False, False),
    ],
)
def test_questions_and_questions_to_the_listener(text, question, asks):
    assert listening.is_question(text) is question
    assert listening.asks_listener(text) is asks


def test_style_of_a_message():
    style = listening.read_style("omg i got the job!!! 😄")
    assert style.lowercase and style.exclamations == 3 and style.emoji == ("😄",)
    assert style.final_punctuation
    assert not listening.read_style("omg i got the job 😄").final_punctuation
    plain = listening.read_style("I moved to a new city for work. It has been quiet.")
    assert plain.words == 12 and plain.sentences == 2 and plain.final_punctuation and not plain.lowercase


def test_understand_flags_thanks_and_goodbyes():
    reading = listening.understand("thanks so much, gotta go now")
    assert reading.thanks and reading.farewell and not reading.question


# --------------------------------------------------------------------------- the listener


def converse(user_lines: list[str], *, style: str = "neutral", task_id: str = "openchat-ed-v0", seed: int = 0) -> list[str]:
    """Play hand-written user lines against the listener bot; return the bot's replies."""
    task = make(task_id, style=style, utterances=2 * len(user_lines) + 2)
    task.reset(seed=seed)
    bot = ListenerAgent()
    bot.reset(task, "bot", random.Random(seed))
    replies = []
    lines = iter(user_lines)
    while not task.done:
        if task.to_move == "user":
            try:
                task.step(actions.Say(text=next(lines)), "user")
            except StopIteration:
                break
        else:
            action = bot.act(task.observe("bot"))
            replies.append(action.text)
            task.step(action, "bot")
    return replies


PERSON = [
    "so my dog passed away last week. he was 14",
    "yeah... i still cant believe it honestly",
    "we got him when i was in middle school",
    "my mom took it really hard too",
    "not really, i just keep looking at his old toys",
    "do you think it gets easier?",
    "thanks, that helps a bit",
]


def test_a_person_like_transcript_is_understood():
    replies = converse(PERSON, style="neutral", seed=3)
    assert len(replies) == len(PERSON)
    assert len(set(replies)) == len(replies)
    text = " ".join(replies).lower()
    # It follows up on things the person said, in the second person.
    assert any(p in text for p in ("your dog", "your mom", "middle school", "his old toys", "your old toys"))
    # It never calls grief a happy thing.
    assert not re.search(r"\b(happy|wonderful|lovely|great)\b", text)


def test_negated_happiness_is_not_reflected_as_happiness():
    for seed in range(20):
        reply = converse(["I'm not happy about how the party went."], seed=seed)[0].lower()
        assert not re.search(r"you(?:'re| are| sound| must be)(?: so| really| very| incredibly)? happy", reply), reply


def test_reflection_keeps_intensity_and_negation():
    rng = random.Random(0)
    strong = listening.main_feeling("I'm SO excited!!")
    mild = listening.main_feeling("I'm a little nervous")
    negated = listening.main_feeling("I'm not angry")
    assert "excited" in reflection(strong, rng).lower()
    assert any(w in reflection(mild, rng).lower() for w in ("a little", "a bit", "somewhat"))
    assert "not" in reflection(negated, rng).lower() or "isn't" in reflection(negated, rng).lower() or "don't" in reflection(negated, rng).lower()


def test_it_asks_about_what_the_user_said():
    questions = [converse(["I start my new job at the design studio on Monday."], seed=s)[0] for s in range(12)]
    assert sum("your new job" in q or "the design studio" in q for q in questions) >= 4
    assert all("?" in q or len(q.split()) <= 4 for q in questions)


def test_it_answers_when_asked_about_itself():
    replies = [converse(["I failed my driving test again.", "What would you have done?"], seed=s)[1].lower() for s in range(10)]
    answers = ("i'd", "i think", "i don't think", "i've never", "if i were you", "most people")
    assert sum(any(a in r for a in answers) for r in replies) >= 7


def test_wording_varies_with_the_rng():
    firsts = {converse(["My best friend moved across the country and the house feels empty."], seed=s)[0] for s in range(15)}
    assert len(firsts) >= 10


@pytest.mark.parametrize("style", ["aligned", "neutral", "not_aligned"])
def test_never_repeats_itself_even_when_the_user_does(style):
    replies = converse(["ok"] * 10 + ["i dunno"] * 10, style=style, seed=1)
    assert len(replies) == 20
    assert len({r.strip().lower() for r in replies}) == 20


@pytest.mark.parametrize("task_id", ["openchat-ed-v0", "openchat-wow-v0"])
def test_no_repeated_reply_in_full_rule_dialogues(task_id):
    for seed in range(15):
        task = make(task_id)
        dialogue = play_episode(task, {p: make_agent("rule", task) for p in task.party_ids}, seed=seed)
        for party in task.party_ids:
            said = [m.text.strip().lower() for m in dialogue.messages() if m.party == party]
            assert len(set(said)) == len(said), (seed, party)


SHORT_LINES = ["ugh", "yeah", "so sad", "i know", "not really", "maybe", "ok", "true", "hmm", "i guess"]
LONG_LINES = [
    "I keep thinking about the last afternoon we spent together at the lake, when everything still felt normal and easy.",
    "My sister says I should get out of the house more often, but honestly most days I just do not have the energy.",
    "It is strange how the smallest things, like his coffee mug or the sound of the door, bring it all back at once.",
    "I tried going back to my evening class this week, and I made it through, although I left before the very end.",
    "Some of my friends have been amazing, checking in every day, and others have gone completely quiet, which hurts too.",
]


def _mean_words(replies: list[str]) -> float:
    return fmean(len(r.split()) for r in replies)


def test_aligned_mirrors_the_users_length_and_not_aligned_does_the_opposite():
    aligned_short = _mean_words(converse(SHORT_LINES, style="aligned", seed=2))
    aligned_long = _mean_words(converse(LONG_LINES, style="aligned", seed=2))
    contrast_short = _mean_words(converse(SHORT_LINES, style="not_aligned", seed=2))
    contrast_long = _mean_words(converse(LONG_LINES, style="not_aligned", seed=2))
    assert aligned_short < 6 and aligned_long > 12
    assert contrast_short > aligned_short + 8
    assert contrast_long < aligned_long - 6


def test_aligned_mirrors_lowercase_exclamations_and_emoji():
    replies = converse(["omg i got into the art school!!! 😄", "my parents were so proud!! 😄"], style="aligned", seed=4)
    for reply in replies:
        assert reply == reply.lower()
        assert "😄" in reply
    plain = converse(["omg i got into the art school!!! 😄"], style="neutral", seed=4)[0]
    assert "😄" not in plain and "!" not in plain and plain[0].isupper()


def test_wow_listener_shares_the_topic_and_asks_for_views():
    task = make("openchat-wow-v0", style="neutral")
    task.reset(seed=8)
    bot = ListenerAgent()
    bot.reset(task, "bot", random.Random(8))
    opener = bot.act(task.observe("bot")).text
    topic = task.scenario.public["topic"]
    assert topic in opener and "?" in opener


# --------------------------------------------------------------------------- the user simulator


def test_the_simulated_user_tells_its_episode_first_in_varied_words():
    openings = set()
    for seed in range(12):
        task = make("openchat-ed-v0")
        dialogue = play_episode(task, {p: make_agent("rule", task) for p in task.party_ids}, seed=seed)
        first = dialogue.messages()[0]
        episode = dialogue.scenario.private["user"]["episode"]
        assert first.party == "user"
        assert episode.lower()[1:30] in first.text.lower()
        openings.add(first.text.replace(episode, "").replace(episode[:1].lower() + episode[1:], "").strip())
    assert len(openings) >= 5


def test_the_simulated_user_talks_about_its_wow_topic():
    task = make("openchat-wow-v0")
    dialogue = play_episode(task, {p: make_agent("rule", task) for p in task.party_ids}, seed=6)
    topic = dialogue.scenario.public["topic"].lower()
    user_lines = [m.text.lower() for m in dialogue.messages() if m.party == "user"]
    assert sum(topic in line for line in user_lines) >= len(user_lines) // 2


def test_a_rule_user_against_a_random_bot_still_plays():
    task = make("openchat-ed-v0")
    agents = {"user": make_agent("rule", task), "bot": make_agent("random", task)}
    dialogue = play_episode(task, agents, seed=0)
    assert dialogue.outcome.reason == "completed"


# --------------------------------------------------------------------------- no echoed fragments (issue 14)


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("I went online without asking now and my parents got mad", "online without asking"),
        ("I love online shopping way too much", "love online"),
        ("I keep checking my phone without thinking", "phone without thinking"),
    ],
)
def test_no_phrase_is_a_fragment_of_a_verb_phrase(text, fragment):
    assert fragment not in [p.lower() for p in listening.content_phrases(text)]


def test_the_listener_does_not_echo_fragments():
    for seed in range(20):
        reply = converse(["I bought a bunch of stuff online without asking now and I feel awful."], seed=seed)[0]
        assert "online without asking" not in reply and "How do you feel about online" not in reply, reply


def test_people_are_asked_about_as_people():
    assert listening.phrase_kind("a lawyer") == "person" and listening.phrase_kind("the divorce") == "thing"
    for seed in range(20):
        reply = converse(["I talked to a lawyer today."], seed=seed)[0]
        assert "story behind that lawyer" not in reply and "What happened with that lawyer" not in reply, reply

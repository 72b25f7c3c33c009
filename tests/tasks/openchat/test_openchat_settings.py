"""Scenario generation for the two DUO settings: data, reproducibility, privacy layout, styles."""

from __future__ import annotations

import random
import re

import pytest

from duologue.tasks.openchat import settings
from duologue.tasks.openchat.corpus import SETTING_FIELDS

ED_LABELS = {
    "Surprised", "Excited", "Angry", "Proud", "Sad", "Annoyed", "Grateful", "Lonely", "Afraid", "Terrified", "Guilty",
    "Impressed", "Disgusted", "Hopeful", "Confident", "Furious", "Anxious", "Anticipating", "Joyful", "Nostalgic",
    "Disappointed", "Prepared", "Jealous", "Content", "Devastated", "Embarrassed", "Caring", "Sentimental", "Trusting",
    "Ashamed", "Apprehensive", "Faithful",
}


def test_the_32_ed_emotions_with_several_episodes_each():
    assert set(settings.emotion_labels()) == ED_LABELS
    for label in ED_LABELS:
        bank = settings.episodes(label)
        assert len(bank) >= 4, label
        assert len(set(bank)) == len(bank), label
        for episode in bank:
            assert re.search(r"\b(I|I'm|I've|My|my|me|We|we|Our|our)\b", episode), f"not first person: {episode}"
            assert 5 <= len(episode.split()) <= 25, episode


def test_every_emotion_has_a_valence_and_cue_words():
    for emotion in settings.emotions():
        assert emotion.valence in ("positive", "negative", "mixed")
        assert emotion.cues and all(1 <= v <= 3 for v in emotion.cues.values())
    assert settings.emotion("excited").label == "Excited"
    assert settings.emotion("Bored") is None


def test_topic_list_is_large_and_every_topic_has_talking_points():
    topics = settings.topics()
    assert len(topics) >= 100
    assert len(set(t.lower() for t in topics)) == len(topics)
    for topic in topics:
        talk = settings.topic_talk(topic)
        assert talk.kind != settings.GENERAL_KIND
        assert all("{topic}" in s for s in talk.statements + talk.questions)


def test_a_corpus_topic_outside_the_list_gets_general_talking_points():
    talk = settings.topic_talk("History of the Ottoman postal service")
    assert talk.kind == settings.GENERAL_KIND
    assert talk.statements and talk.questions


@pytest.mark.parametrize("name", settings.STYLES)
def test_style_prompts_exist_and_differ(name):
    text = settings.style_prompt(name)
    assert len(text.split()) > 30
    others = [settings.style_prompt(o) for o in settings.STYLES if o != name]
    assert text not in others


def test_japanese_prompt_names_map_to_the_english_ones():
    assert settings.canonical_style("ent") == "aligned"
    assert settings.canonical_style("nonent") == "not_aligned"
    assert settings.canonical_style("Not-Aligned") == "not_aligned"
    assert settings.canonical_style(None) == "neutral"
    assert settings.style_prompt("ent") == settings.style_prompt("aligned")


def test_system_prompt_names_the_setting_and_carries_the_style():
    prompt = settings.system_prompt("wow", "not_aligned", topic="Jazz")
    assert "Jazz" in prompt and settings.style_prompt("not_aligned") in prompt
    assert "empathy" in settings.system_prompt("ed", "aligned")


@pytest.mark.parametrize("make", [settings.ed_scenario, settings.wow_scenario])
def test_generation_is_reproducible_from_the_rng_alone(make):
    first = [make(random.Random(seed)) for seed in range(30)]
    again = [make(random.Random(seed)) for seed in range(30)]
    assert first == again
    assert len({s.model_dump_json() for s in first}) > 20


def test_ed_scenario_keeps_the_users_facts_and_the_bots_style_private():
    scenario = settings.ed_scenario(random.Random(3))
    assert scenario.public == {"setting": "ed"}
    user = scenario.private["user"]
    assert set(user) == set(SETTING_FIELDS["ed"])
    assert user["episode"] in settings.episodes(user["emotion"])
    assert scenario.private["bot"]["style"] in settings.STYLES


def test_wow_scenario_has_a_public_topic():
    scenario = settings.wow_scenario(random.Random(3))
    assert set(scenario.public) == {"setting", *SETTING_FIELDS["wow"]}
    assert scenario.public["topic"] in settings.topics()
    assert "user" not in scenario.private


def test_a_style_can_be_fixed_and_all_styles_are_drawn():
    assert {settings.ed_scenario(random.Random(s), style="ent").private["bot"]["style"] for s in range(10)} == {"aligned"}
    assert {settings.wow_scenario(random.Random(s)).private["bot"]["style"] for s in range(60)} == set(settings.STYLES)


def test_scenario_value_prefers_the_partys_own_view():
    assert settings.scenario_value({"style": "neutral"}, {"style": "aligned"}, "style") == "aligned"
    assert settings.scenario_value({"style": "neutral"}, {}, "style") == "neutral"
    assert settings.scenario_value({}, {}, "topic", "x") == "x"

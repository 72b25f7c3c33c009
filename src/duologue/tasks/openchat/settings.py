"""The two DUO settings as scenarios: what a chat is about and which style the bot is asked for.

ED (EmpatheticDialogues): the user picks one of the 32 ED emotions and writes a short episode
about it; the bot listens. WoW (Wizard of Wikipedia): the user and the bot talk about a topic.
In both, the bot is told a style: `aligned` (mirror the user's style), `neutral`, or
`not_aligned` (keep a different style). The Japanese DUO files name the same prompts `ent`,
`neutral` and `nonent`; `canonical_style` maps them.

Who may see what in a generated scenario (the engine shows each party only its own view):

* `public`: `setting`, and in WoW the `topic` (both parties talk about it).
* `private["user"]` (ED): `emotion` and `episode`. The user chose and wrote them; the listener has
  to learn them from what the user says, as in EmpatheticDialogues.
* `private["bot"]`: `style`, the bot's system-prompt condition. The user must not see it, or the
  study of how style affects the user's ratings would not be blind.

The keys are DuoFormat's (`setting`, `style`, `emotion`, `episode`, `topic`), so the DUO writer
finds them in these views. A DUO file does not record who saw what, so the reader puts them all
in `public`; a corpus scenario replays with that public view unchanged. Agents therefore read a
scenario value with `scenario_value`, which looks in the party's own view, then the public one.

The data files next to this module were written by the duologue project: `emotions.json` (the
32 labels with valence and cue words), `episodes.json` (five first-person episodes per emotion),
`topics.json` (168 topics in 14 kinds with talking points) and `style_<name>.txt` (the style
instructions an LLM bot gets).
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Any, Mapping

from duologue.core.schema import Scenario

SETTINGS = ("ed", "wow")
STYLES = ("aligned", "neutral", "not_aligned")
STYLE_ALIASES = {"ent": "aligned", "nonent": "not_aligned", "entrain": "aligned", "non_aligned": "not_aligned"}
"""Other names of the styles: the Japanese DUO files say `ent` / `nonent` (entrainment)."""
GENERAL_KIND = "general"
"""The kind of a topic that is not in the project's list (a topic read from a corpus)."""

_GENERAL_TALK = {
    "statements": [
        "{topic} is one of those subjects people keep finding new angles on.",
        "There is more to {topic} than most people expect at first.",
        "People who know {topic} well often have surprising stories about it.",
        "{topic} means quite different things to different people.",
        "A lot has been written and said about {topic} over the years.",
    ],
    "questions": [
        "What do you think about {topic}?",
        "How did you first hear about {topic}?",
        "What would you like to know about {topic}?",
        "Does {topic} play any part in your life?",
    ],
}


@dataclass(frozen=True)
class Emotion:
    """One ED emotion label with what the simulated user and the listener need to know about it."""

    label: str
    valence: str
    """`positive`, `negative` or `mixed`."""
    adjective: str
    """How a person says it about themselves: `I feel {adjective}`."""
    cues: Mapping[str, int] = field(default_factory=dict)
    """Words and phrases that express it, with an intensity 1 (mild) to 3 (strong)."""


@dataclass(frozen=True)
class TopicTalk:
    """Talking points for a topic: statements to share and questions to ask (`{topic}` filled in)."""

    kind: str
    statements: tuple[str, ...]
    questions: tuple[str, ...]


def _data(name: str) -> Any:
    return json.loads(resources.files(__package__).joinpath(name).read_text(encoding="utf-8"))


@lru_cache(maxsize=None)
def emotions() -> tuple[Emotion, ...]:
    """The 32 ED emotions in the order of `emotions.json`."""
    return tuple(Emotion(e["label"], e["valence"], e["adjective"], dict(e["cues"])) for e in _data("emotions.json")["emotions"])


def emotion_labels() -> tuple[str, ...]:
    return tuple(e.label for e in emotions())


@lru_cache(maxsize=None)
def _emotions_by_label() -> dict[str, Emotion]:
    return {e.label.lower(): e for e in emotions()}


def emotion(label: str) -> Emotion | None:
    """The emotion of a label, in any letter case (`Excited`, `excited`), or None if unknown."""
    return _emotions_by_label().get(label.strip().lower())


@lru_cache(maxsize=None)
def _episodes() -> dict[str, tuple[str, ...]]:
    return {label: tuple(texts) for label, texts in _data("episodes.json")["episodes"].items()}


def episodes(label: str) -> tuple[str, ...]:
    """The project's episodes for an emotion label (empty for an unknown label)."""
    return _episodes().get(label, ())


@lru_cache(maxsize=None)
def _topic_data() -> dict[str, Any]:
    return _data("topics.json")["categories"]


@lru_cache(maxsize=None)
def topics() -> tuple[str, ...]:
    """Every topic of the project's list, kind by kind."""
    return tuple(topic for kind in _topic_data().values() for topic in kind["topics"])


@lru_cache(maxsize=None)
def _kind_of_topic() -> dict[str, str]:
    return {topic.lower(): kind for kind, data in _topic_data().items() for topic in data["topics"]}


def topic_talk(topic: str) -> TopicTalk:
    """Talking points for `topic`: its kind's followed by the general ones (only those for a topic
    not in the list, such as one read from a corpus)."""
    kind = _kind_of_topic().get(topic.strip().lower(), GENERAL_KIND)
    data = _topic_data().get(kind, {"statements": [], "questions": []})
    return TopicTalk(kind, (*data["statements"], *_GENERAL_TALK["statements"]), (*data["questions"], *_GENERAL_TALK["questions"]))


def canonical_style(name: str | None) -> str:
    """`aligned`, `neutral` or `not_aligned` for any of their names; `neutral` when unknown."""
    key = (name or "").strip().lower().replace("-", "_").replace(" ", "_")
    key = STYLE_ALIASES.get(key, key)
    return key if key in STYLES else "neutral"


@lru_cache(maxsize=None)
def style_prompt(name: str) -> str:
    """The style instructions for a bot (`style_<name>.txt`); aliases such as `ent` are accepted."""
    return resources.files(__package__).joinpath(f"style_{canonical_style(name)}.txt").read_text(encoding="utf-8").strip()


def system_prompt(setting: str, style: str, *, topic: str | None = None) -> str:
    """A full system prompt for an LLM bot in a setting: the setting's role, then the style."""
    if setting == "wow":
        about = f" about {topic}" if topic else ""
        role = f"You are chatting with a person{about}. Share what you know, keep to the topic, and ask for their views."
    else:
        role = "You are chatting with a person who wants to tell you about something that happened to them. Listen with empathy and help them talk."
    return f"{role}\n\n{style_prompt(style)}"


def ed_scenario(rng: random.Random, *, style: str | None = None) -> Scenario:
    """An ED scenario: the user's emotion and episode (private to the user), the bot's style (private to the bot)."""
    chosen = rng.choice(emotions())
    episode = rng.choice(episodes(chosen.label))
    style = canonical_style(style) if style else rng.choice(STYLES)
    return Scenario(
        public={"setting": "ed"},
        private={"user": {"emotion": chosen.label, "episode": episode}, "bot": {"style": style}},
    )


def wow_scenario(rng: random.Random, *, style: str | None = None) -> Scenario:
    """A WoW scenario: a public topic, the bot's style (private to the bot)."""
    topic = rng.choice(topics())
    style = canonical_style(style) if style else rng.choice(STYLES)
    return Scenario(public={"setting": "wow", "topic": topic}, private={"bot": {"style": style}})


def scenario_value(public: Mapping[str, Any], private: Mapping[str, Any], key: str, default: Any = None) -> Any:
    """A scenario value as a party sees it: its own view first, then the public one (corpus scenarios)."""
    if key in private:
        return private[key]
    return public.get(key, default)

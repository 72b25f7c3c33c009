"""Rule agents for open chat, so the platform runs without an LLM.

`ListenerAgent` (spec `rule`) plays whichever party it is given:

* as the bot (party `bot`, role `system`) it is an empathetic listener: it reads the user's
  last message with `listening.understand` and answers in varied words: it reflects the feeling
  it hears (with its intensity and negation: `not happy` is not reflected as happiness), asks an
  open question about something the user said (a phrase of the user's message, turned to the
  second person), acknowledges, answers when asked about itself, and in WoW shares simple
  statements about the topic and asks for the user's view. It follows the style named in the
  scenario crudely: `aligned` mirrors the user's message length, capitals, `!` and emoji;
  `not_aligned` does the opposite; `neutral` writes plain sentences of middling length. It never
  sends the same reply twice in a dialogue.
* as the user (party `user`) it is a simple user simulator: in ED it tells its episode in varied
  words and answers the bot's questions about it; in WoW it reacts to the bot, gives views and
  asks about the topic. Its own writing style (terse or chatty, lowercase, `!`, emoji) is drawn
  per episode, so a style-following bot has something to follow.

Both read the world only through their `Observation`, and draw every choice from `self.rng`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence

from duologue.agents.unsure import doubt
from duologue.core import actions
from duologue.core.agent import Agent
from duologue.core.schema import Message
from duologue.core.task import Observation
from duologue.tasks.openchat import listening
from duologue.tasks.openchat.listening import Feeling, Style, Understanding
from duologue.tasks.openchat.settings import canonical_style, emotion, scenario_value, topic_talk

USER, BOT = "user", "bot"

# --------------------------------------------------------------------------- what the listener says

INTENSITY_WORDS = {1: ("a little", "a bit", "somewhat"), 2: ("",), 3: ("really", "so", "incredibly", "very")}

REFLECT = {
    ("positive", 3): ("Wow, you sound {adv} {adj}!", "That's wonderful, no wonder you're {adv} {adj}.", "I can tell you're {adv} {adj} about this!", "You must be {adv} {adj} right now."),
    ("positive", 2): ("You sound {adj} about it.", "That's lovely, I can tell you're {adj}.", "It sounds like this made you {adj}.", "I can hear that you're {adj}."),
    ("positive", 1): ("Sounds like you're {adv} {adj}.", "I get the sense you're {adv} {adj} about it.", "So it left you {adv} {adj}."),
    ("negative", 3): ("Oh no, I can hear how {adj} you are.", "I'm so sorry, being that {adj} is really hard.", "That sounds awful, of course you're {adv} {adj}.", "You must feel {adv} {adj} right now."),
    ("negative", 2): ("That sounds hard, it makes sense you'd feel {adj}.", "I'm sorry, feeling {adj} like that isn't easy.", "No wonder you feel {adj}.", "It sounds like it left you {adj}."),
    ("negative", 1): ("Sounds like it left you {adv} {adj}.", "I can see why you'd be {adv} {adj}.", "So you're feeling {adv} {adj} about it."),
    ("mixed", 3): ("That must stir up a lot, feeling {adv} {adj} like that.", "I can tell you're {adv} {adj}."),
    ("mixed", 2): ("I can see why you'd feel {adj}.", "That would make anyone feel {adj}.", "It sounds like it made you {adj}."),
    ("mixed", 1): ("Sounds like you're {adv} {adj}.", "So you're {adv} {adj} about it."),
}
REFLECT_NEGATED_POSITIVE = (
    "So it didn't leave you feeling {adj} at all.",
    "It sounds like you're not {adj} about it, and that's fair.",
    "I hear that you're not exactly {adj}.",
    "So {adj} is not how you'd describe it.",
)
REFLECT_NEGATED_NEGATIVE = (
    "I'm glad you're not {adj} about it.",
    "Good to hear it isn't making you {adj}.",
    "So you're not really {adj}, that's good.",
    "It's a relief that you don't feel {adj}.",
)
ACKNOWLEDGE = {
    "positive": ("That's great.", "How lovely.", "That sounds wonderful.", "Oh, nice.", "What a nice thing.", "Good for you."),
    "negative": ("That's tough.", "Oh no.", "That sounds really hard.", "I'm sorry to hear that.", "That's a lot to deal with.", "That must hurt."),
    "mixed": ("I see.", "Got it.", "That makes sense.", "I hear you.", "Right.", "I understand.", "Okay, I follow.", "Mm, I see what you mean."),
}
PHRASE_QUESTIONS = (
    "What happened with {p}?",
    "How did {p} turn out?",
    "What was {p} like?",
    "Can you tell me more about {p}?",
    "How do you feel about {p} now?",
    "What made {p} matter so much to you?",
    "What's the story behind {p}?",
    "How has {p} been since then?",
)
PERSON_QUESTIONS = (
    "How is {p} doing?",
    "What's {p} like?",
    "How do you get along with {p}?",
    "How did {p} take it?",
    "What did {p} say?",
)
"""Questions about someone the user mentioned (`a lawyer` -> `What did that lawyer say?`)."""
OPEN_QUESTIONS = {
    "positive": ("What was the best part?", "How are you going to celebrate?", "Who did you share the news with first?", "What are you looking forward to now?"),
    "negative": ("What has been the hardest part?", "Is there anything that's helping?", "Do you have someone to lean on?", "How are you holding up?"),
    "mixed": ("What happened next?", "How did the people around you react?", "What's on your mind about it now?", "Has anything like this happened before?", "What do you think you'll do now?", "How did you handle it?"),
}
ANSWERS_ED = (
    "I've never been in exactly that spot, but I can imagine how it feels.",
    "Honestly, I think most people would feel the same.",
    "I don't think you're overreacting at all.",
    "I'd probably have done the same thing.",
    "If I were you, I'd give myself a little time.",
    "I think your reaction is completely understandable.",
)
ANSWERS_WOW = (
    "I find {topic} really interesting, honestly.",
    "Good question. I'd say {topic} has more depth than people think.",
    "I like {topic} a lot, it's one of my favorite things to chat about.",
    "I'm no expert, but {topic} has always fascinated me.",
    "I think {topic} is worth learning about.",
)
EXTRA_ED = (
    "I'm here to listen, so take your time.",
    "It's completely okay to feel that way.",
    "Thank you for telling me about it.",
    "It sounds like this really matters to you.",
    "Talking about it can help a little.",
)
SARCASM_REPLIES = (
    "Fair enough, that wasn't much help, was it? What would help right now?",
    "Sorry, I missed the mark there. What did you need to hear?",
    "Ha, point taken, that was pretty useless of me. Tell me what's really going on?",
    "Okay, I deserved that. Let me try again: what's bothering you most?",
)
"""Answers to a sarcastic line ("oh great, thanks, super helpful :/"): taken as the complaint it is,
never as the thanks or praise its words say (`duologue.agents.unsure`)."""
THANKS_REPLIES = ("You're welcome, I'm happy to listen.", "Anytime, thank you for sharing this with me.", "Of course, I'm glad we talked.", "It was my pleasure to listen.")
FAREWELLS = ("Take care of yourself!", "Bye for now, it was good talking with you.", "Look after yourself, okay?", "It was lovely chatting, take care.")
SHORT = {
    "positive": ("Wow!", "Oh nice.", "That's great.", "Love that.", "Yay!", "So cool."),
    "negative": ("Oh no.", "Aw, sorry.", "That's rough.", "Ugh, hard.", "Poor you."),
    "mixed": ("I see.", "Really?", "How come?", "Tell me more.", "Go on.", "Right.", "Why's that?", "Hmm, and then?"),
}
OPENERS_ED = ("Hi! How are you feeling today?", "Hello, is anything on your mind today?", "Hey there, what's been happening with you lately?")
OPENERS_WOW = (
    "Hi! Let's talk about {topic}.",
    "Hello! I'd love to chat about {topic} today.",
    "Hey! Our topic today is {topic}.",
    "Hi there, {topic} is a great thing to talk about.",
)
WOW_OPINION_QUESTIONS = ("What's your view on {p}?", "How do you feel about {p}?", "What do you think of {p}?", "Is {p} something you care about?")
FILLERS = ("Hmm.", "Well,", "You know,", "Honestly,", "I see, and", "Okay.", "Mm.", "So,", "Right,", "Oh,", "Ah,", "Interesting,")
"""Openings that make a reply new when every other choice was already said."""

NEUTRAL_TARGET_WORDS = 16
CONTRAST_LONG_WORDS = 34
CONTRAST_SHORT_WORDS = 4
SHORT_USER_WORDS = 12
CANDIDATES = 24


@dataclass
class _Context:
    """What the listener knows at this turn, all from its observation."""

    setting: str
    style: str
    topic: str | None
    last: Understanding | None
    mood: Feeling | None
    said: set[str]
    asked_phrases: set[str]
    statements_said: set[str]


class ListenerAgent(Agent):
    """Rule agent for open chat: an empathetic listener as the bot, a user simulator as the user."""

    name = "rule"

    def reset(self, task, party, rng) -> None:  # type: ignore[override]
        super().reset(task, party, rng)
        self._persona: UserPersona | None = None

    def act(self, observation: Observation) -> actions.Action:
        if _is_user(observation):
            if self._persona is None:
                self._persona = UserPersona.draw(self.rng)
            return actions.Say(text=user_turn(observation, self.rng, self._persona))
        return actions.Say(text=listener_turn(observation, self.rng))


def _is_user(observation: Observation) -> bool:
    return observation.role == "user" or (observation.role is None and observation.party == USER)


def _messages(observation: Observation) -> list[Message]:
    return [e for e in observation.transcript if isinstance(e, Message)]


_SPACES = re.compile(r"\s+")
_WORD = re.compile(r"[A-Za-z0-9'’]+")


def _key(text: str) -> str:
    return _SPACES.sub(" ", text.strip().lower())


# --------------------------------------------------------------------------- the listener bot


def listener_turn(observation: Observation, rng) -> str:
    """The listener's next message: a reply no earlier listener message repeats."""
    messages = _messages(observation)
    mine = [m.text for m in messages if m.party == observation.party]
    theirs = [m.text for m in messages if m.party != observation.party]
    public, private = observation.public, observation.private
    setting = scenario_value(public, private, "setting") or ("wow" if "topic" in public else "ed")
    readings = [listening.understand(t) for t in theirs]
    mood = next((r.feeling for r in reversed(readings) if r.feeling is not None), None)
    context = _Context(
        setting=setting,
        style=canonical_style(scenario_value(public, private, "style")),
        topic=scenario_value(public, private, "topic"),
        last=readings[-1] if readings else None,
        mood=mood,
        said={_key(t) for t in mine},
        asked_phrases={p.lower() for t in mine for p in _phrases_in(t, readings)},
        statements_said={s for t in mine for s in _statements_in(t, scenario_value(public, private, "topic"))},
    )
    if theirs and doubt(theirs[-1]).sarcastic:
        return _pick(list(SARCASM_REPLIES), None, context.said, rng)
    if context.last is None:
        candidates = [_opener(context, rng) for _ in range(CANDIDATES)]
        target = NEUTRAL_TARGET_WORDS
        styled = candidates
    else:
        candidates = [_compose(context, rng) for _ in range(CANDIDATES)]
        target = _target_words(context.style, context.last.style)
        styled = [_apply_style(c, context.style, context.last.style, rng) for c in candidates]
    return _pick(styled, target, context.said, rng)


def _phrases_in(text: str, readings: Sequence[Understanding]) -> list[str]:
    lowered = text.lower()
    return [p for r in readings for p in r.phrases if _question_phrase(p).lower() in lowered]


def _statements_in(text: str, topic: str | None) -> list[str]:
    if not topic:
        return []
    return [s for s in topic_talk(topic).statements if s.format(topic=topic).lower() in text.lower()]


def _opener(context: _Context, rng) -> str:
    if context.setting == "wow" and context.topic:
        talk = topic_talk(context.topic)
        statements = [s for s in talk.statements if s not in context.statements_said] or list(talk.statements)
        parts = [rng.choice(OPENERS_WOW), rng.choice(statements), rng.choice(talk.questions)]
        return " ".join(p.format(topic=context.topic) for p in parts)
    return rng.choice(OPENERS_ED)


def _adjective(feeling: Feeling) -> str:
    known = emotion(feeling.label)
    return known.adjective if known is not None else feeling.cue


def reflection(feeling: Feeling, rng) -> str:
    """Say back the feeling heard, keeping its intensity and its negation."""
    adj = _adjective(feeling)
    if feeling.negated and feeling.valence == "positive":
        return rng.choice(REFLECT_NEGATED_POSITIVE).format(adj=adj)
    if feeling.negated and feeling.valence == "negative":
        return rng.choice(REFLECT_NEGATED_NEGATIVE).format(adj=adj)
    template = rng.choice(REFLECT[(feeling.valence, feeling.intensity)])
    adverb = rng.choice(INTENSITY_WORDS[feeling.intensity])
    return re.sub(r"\s+", " ", template.format(adv=adverb, adj=adj)).replace(" .", ".").replace(" !", "!")


def _question_phrase(phrase: str) -> str:
    """A user's phrase as the listener asks about it: `my sister` -> `your sister`, `a job` -> `that job`."""
    words = listening.second_person(phrase).split()
    if words and words[0].lower() in ("a", "an", "some"):
        words[0] = "that"
    elif words and words[0] in ("This", "That", "The", "These", "Those"):
        words[0] = words[0].lower()
    return " ".join(words)


def phrase_question(context: _Context, rng) -> str | None:
    """An open question about something in the user's last message not asked about before."""
    if context.last is None:
        return None
    topic = (context.topic or "").lower()
    fresh = [
        p
        for p in context.last.phrases
        if _question_phrase(p).lower() not in context.asked_phrases and p.lower() not in context.asked_phrases and not (topic and topic in p.lower())
    ]
    if not fresh:
        return None
    chosen = fresh[0] if rng.random() < 0.7 else rng.choice(fresh)
    phrase = _question_phrase(chosen)
    templates: tuple[str, ...]
    if listening.phrase_kind(chosen) == "person":
        templates = PERSON_QUESTIONS
    else:
        templates = WOW_OPINION_QUESTIONS + PHRASE_QUESTIONS[:4] if context.setting == "wow" else PHRASE_QUESTIONS
    return rng.choice(templates).format(p=phrase)


def _valence(context: _Context) -> str:
    feeling = context.last.feeling if context.last is not None and context.last.feeling else context.mood
    return feeling.felt_valence if feeling is not None else "mixed"


def _compose(context: _Context, rng) -> str:
    """One candidate reply built from a random choice of moves."""
    last = context.last
    assert last is not None
    valence = _valence(context)
    parts: list[str] = []
    shape = rng.random()
    if shape < 0.15:
        phrase = phrase_question(context, rng)
        if phrase is not None and rng.random() < 0.3 and last.phrases:
            return _question_phrase(last.phrases[0])[:1].upper() + _question_phrase(last.phrases[0])[1:] + "?"
        return rng.choice(SHORT[valence])
    if last.farewell:
        parts.append(rng.choice(FAREWELLS))
    if last.thanks:
        parts.append(rng.choice(THANKS_REPLIES))
    if last.feeling is not None and rng.random() < 0.8:
        parts.append(reflection(last.feeling, rng))
    elif rng.random() < 0.7:
        parts.append(rng.choice(ACKNOWLEDGE[valence]))
    if last.asks_listener:
        if context.setting == "wow" and context.topic:
            parts.append(rng.choice(ANSWERS_WOW).format(topic=context.topic))
        else:
            parts.append(rng.choice(ANSWERS_ED))
    if context.setting == "wow" and context.topic and (rng.random() < 0.7 or last.question):
        talk = topic_talk(context.topic)
        fresh = [s for s in talk.statements if s not in context.statements_said]
        if fresh:
            parts.append(rng.choice(fresh).format(topic=context.topic))
    if shape > 0.75:
        extra = EXTRA_ED if context.setting == "ed" else ACKNOWLEDGE["mixed"]
        parts.insert(min(1, len(parts)), rng.choice(extra))
    if not last.farewell:
        question = phrase_question(context, rng) if rng.random() < 0.75 else None
        if question is None:
            pool: Sequence[str] = OPEN_QUESTIONS[valence] + OPEN_QUESTIONS["mixed"]
            if context.setting == "wow" and context.topic:
                pool = topic_talk(context.topic).questions
            question = rng.choice(pool).format(topic=context.topic)
        parts.append(question)
        if shape > 0.9 and context.setting == "ed":
            parts.append(rng.choice(OPEN_QUESTIONS[valence]))
    return " ".join(_dedupe(parts)) if parts else rng.choice(SHORT[valence])


def _dedupe(parts: list[str]) -> list[str]:
    seen, out = set(), []
    for part in parts:
        if part not in seen:
            seen.add(part)
            out.append(part)
    return out


def _target_words(style: str, user: Style) -> int:
    """How long a reply should be: the user's length (aligned), the opposite (not aligned), or middling."""
    if style == "aligned":
        return max(2, user.words)
    if style == "not_aligned":
        return CONTRAST_LONG_WORDS if user.words <= SHORT_USER_WORDS else CONTRAST_SHORT_WORDS
    return NEUTRAL_TARGET_WORDS


def _apply_style(text: str, style: str, user: Style, rng) -> str:
    """Crude style following: aligned copies the user's capitals, `!` and emoji; not aligned avoids them."""
    if style == "aligned":
        if user.exclamations:
            text = re.sub(r"\.(\s|$)", r"!\1", text, count=max(1, min(user.exclamations, 2)))
        if user.lowercase:
            text = text.lower()
        if not user.final_punctuation and text.endswith("."):
            text = text[:-1]
        if user.ellipsis and not text.endswith("?"):
            text = text.rstrip(".!") + "..."
        if user.emoji:
            text = f"{text} {rng.choice(user.emoji)}"
        return text
    if style == "not_aligned":
        if user.exclamations or user.emoji:
            text = text.replace("!", ".")
        elif not text.endswith("?"):
            text = text.rstrip(".") + "!"
        if user.lowercase:
            text = text[:1].upper() + text[1:]
        elif rng.random() < 0.5:
            text = text.lower().rstrip(".")
        return text
    return text.replace("!", ".")


def _words(text: str) -> int:
    return len(_WORD.findall(text))


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_NOT_LETTERS = re.compile(r"[^a-z' ]")


@lru_cache(maxsize=8192)
def _sentences(text: str) -> frozenset[str]:
    """The sentences of a message, reduced to letters, to spot a sentence said before."""
    return frozenset(_NOT_LETTERS.sub("", _key(s)).strip() for s in _SENTENCE_END.split(text) if s.strip())


def _pick(candidates: list[str], target: int | None, said: set[str], rng) -> str:
    """A fresh candidate: fewest sentences said before, then length closest to `target` (ties by the rng)."""
    fresh = [c for c in dict.fromkeys(candidates) if _key(c) not in said]
    if not fresh:
        fresh = _freshen(candidates, said, rng)
    old_sentences = set().union(*(_sentences(t) for t in said)) if said else set()

    costs = {c: (len(_sentences(c) & old_sentences), 0 if target is None else abs(_words(c) - target)) for c in fresh}
    best = min(costs.values())
    return rng.choice([c for c in fresh if costs[c] == best])


def _freshen(candidates: list[str], said: set[str], rng) -> list[str]:
    """Every candidate was said already: open them with fillers until one is new."""
    for filler in rng.sample(FILLERS, len(FILLERS)):
        fresh = [f"{filler} {c[:1].lower()}{c[1:]}" for c in candidates]
        fresh = [c for c in fresh if _key(c) not in said]
        if fresh:
            return fresh
    count = len(said) + 1
    return [f"{rng.choice(FILLERS)} {candidates[0]} " + " ".join([rng.choice(FILLERS)] * count)]


# --------------------------------------------------------------------------- the user simulator


@dataclass(frozen=True)
class UserPersona:
    """How a simulated user writes, drawn once per episode."""

    length: str
    """`terse`, `medium` or `chatty`."""
    lowercase: bool
    exclaims: bool
    emoji: bool

    @classmethod
    def draw(cls, rng) -> "UserPersona":
        return cls(
            length=rng.choice(("terse", "medium", "medium", "chatty")),
            lowercase=rng.random() < 0.25,
            exclaims=rng.random() < 0.3,
            emoji=rng.random() < 0.25,
        )

    def write(self, text: str, rng, valence: str = "mixed") -> str:
        if self.exclaims:
            text = re.sub(r"\.(\s|$)", r"!\1", text, count=1)
        if self.lowercase:
            text = text.lower()
        if self.emoji and rng.random() < 0.6:
            text = f"{text} {rng.choice(USER_EMOJI[valence])}"
        return text


USER_EMOJI = {"positive": ("🙂", "😊", "😄", ":)"), "negative": ("😢", "😞", "😔", ":("), "mixed": ("😅", "🙂", ":)", "🤔")}


TELL_EPISODE = (
    "{episode}",
    "{episode} I feel {adv}{adj}.",
    "Hey. {episode}",
    "So... {episode_lc}",
    "I need to get something off my chest. {episode}",
    "Something happened recently: {episode_lc}",
    "{episode} Honestly, I'm {adv}{adj}.",
    "Can I tell you something? {episode}",
)
USER_ELABORATE = {
    "positive": (
        "It honestly made my whole week.",
        "I keep smiling whenever I think about it.",
        "I didn't expect it to feel this good.",
        "Everyone around me was really happy too.",
        "I've been waiting for something like this for a long time.",
        "I just want to remember this feeling.",
        "I told my family right away and they were thrilled.",
        "It still feels a bit unreal.",
    ),
    "negative": (
        "It's been on my mind all day.",
        "I just don't know how to move past it.",
        "I tried to talk to someone about it but it didn't help much.",
        "It's hard to explain how heavy it feels.",
        "I keep going over it in my head.",
        "I haven't been sleeping well since.",
        "I guess I'm still processing it.",
        "Some moments are better than others.",
    ),
    "mixed": (
        "It brought up a lot of things for me.",
        "I'm not sure how to feel about it, honestly.",
        "Part of me is happy and part of me isn't.",
        "It made me think about how much has changed.",
        "I keep coming back to it.",
        "It's a strange mix of feelings.",
    ),
}
USER_FEELING_LINES = (
    "I'm still {adv}{adj} about it.",
    "I guess I feel {adv}{adj}.",
    "Mostly I just feel {adj}.",
    "It made me {adv}{adj}, to be honest.",
)
USER_PHRASE_LINES = ("I keep thinking about {p}.", "The thing is, {p} meant a lot to me.", "It was all about {p}, really.", "Mostly it's {p} that stays with me.")
USER_ASKS_ED = ("Have you ever felt like that?", "What would you have done?", "Do you think I'm overreacting?", "Is it strange that I still think about it?", "Does that make sense?")
USER_AGREES = ("Yeah, exactly.", "I guess you're right.", "Yes, that's it.", "True.", "Maybe, yeah.", "That's a good way to put it.", "Hmm, I hadn't thought of it that way.")
USER_CLOSING_ED = ("Thanks for listening, it helped to talk.", "Anyway, thank you for hearing me out.", "Thanks, I feel a little better now.", "I appreciate you listening.")
USER_WOW_ANSWERS = (
    "I've never really tried {topic}, but I'd like to.",
    "Yes, I really like {topic}.",
    "Not really, I only know the basics about {topic}.",
    "Kind of. A friend of mine is really into {topic}.",
    "I think {topic} is great, honestly.",
    "I used to be more into {topic} when I was younger.",
    "A little. I've read a few things about {topic}.",
)
USER_WOW_REACTIONS = ("Oh, I didn't know that.", "Interesting!", "That makes sense.", "Huh, cool.", "I had no idea.", "Oh really?", "That's neat.", "Fair enough.")
USER_WOW_QUESTIONS = (
    "What else do you know about {topic}?",
    "Why do you think people like {topic} so much?",
    "Is {topic} popular these days?",
    "How did {topic} get started?",
    "What's the most surprising thing about {topic}?",
    "Who is {topic} for, would you say?",
    "Do you have a favorite thing about {topic}?",
)
USER_WOW_OPINIONS = (
    "I think {topic} is a bit overrated, to be honest.",
    "{topic} always makes me think of my childhood.",
    "My dad loves {topic}, so I grew up with it.",
    "I'd like to learn more about {topic} someday.",
    "I've always found {topic} kind of fascinating.",
)
USER_CLOSING_WOW = ("This was fun, thanks for the chat!", "Thanks, I learned something today.", "Nice talking with you about {topic}.", "Cool, thanks for sharing all that.")
_LENGTH_PARTS = {"terse": (1, 1), "medium": (1, 2), "chatty": (2, 3)}


def user_turn(observation: Observation, rng, persona: UserPersona) -> str:
    """The simulated user's next message (never one it already sent)."""
    messages = _messages(observation)
    mine = [m.text for m in messages if m.party == observation.party]
    theirs = [m.text for m in messages if m.party != observation.party]
    public, private = observation.public, observation.private
    setting = scenario_value(public, private, "setting") or ("wow" if "topic" in public else "ed")
    closing = observation.turns_left is not None and observation.turns_left <= 2 and bool(mine)
    said = {_key(t) for t in mine}
    valence = _user_valence(public, private, setting)
    candidates = []
    for _ in range(CANDIDATES // 2):
        if setting == "wow":
            text = _wow_user(public, private, theirs, mine, closing, persona, rng)
        else:
            text = _ed_user(public, private, theirs, mine, closing, persona, rng)
        candidates.append(persona.write(text, rng, valence))
    return _pick(candidates, None, said, rng)


def _user_valence(public, private, setting: str) -> str:
    known = emotion(str(scenario_value(public, private, "emotion") or "")) if setting == "ed" else None
    return known.valence if known is not None else "mixed"


def _parts(persona: UserPersona, pools: Sequence[Sequence[str]], rng) -> list[str]:
    low, high = _LENGTH_PARTS[persona.length]
    count = rng.randint(low, high)
    chosen = [rng.choice(pool) for pool in rng.sample(list(pools), min(count, len(pools)))]
    return _dedupe(chosen)


def _ed_user(public, private, theirs, mine, closing, persona, rng) -> str:
    label = str(scenario_value(public, private, "emotion") or "")
    episode = str(scenario_value(public, private, "episode") or "Something happened to me this week.")
    known = emotion(label)
    valence = known.valence if known else "mixed"
    adj = known.adjective if known else (label.lower() or "unsettled")
    adverb = rng.choice(("", "", "really ", "so ", "a bit ", "kind of "))
    if not mine:
        template = rng.choice(TELL_EPISODE[:2] if persona.length == "terse" else TELL_EPISODE)
        return template.format(episode=episode, episode_lc=episode[:1].lower() + episode[1:], adv=adverb, adj=adj)
    if closing:
        return rng.choice(USER_CLOSING_ED)
    bot_last = theirs[-1] if theirs else ""
    pools: list[Sequence[str]] = [USER_ELABORATE[valence], [line.format(adv=adverb, adj=adj) for line in USER_FEELING_LINES]]
    phrases = [_lower_determiner(p) for p in listening.understand(episode).phrases]
    if phrases:
        pools.append([line.format(p=rng.choice(phrases)) for line in USER_PHRASE_LINES])
    parts = _parts(persona, pools, rng)
    if not listening.is_question(bot_last) and rng.random() < 0.4:
        parts.insert(0, rng.choice(USER_AGREES))
    if rng.random() < 0.2:
        parts.append(rng.choice(USER_ASKS_ED))
    return " ".join(_dedupe(parts))


def _lower_determiner(phrase: str) -> str:
    """`My sister` (a sentence start) -> `my sister`, so it reads inside another sentence."""
    first, _, rest = phrase.partition(" ")
    if first.lower() in listening.DETERMINERS:
        first = first.lower()
    return f"{first} {rest}".strip()


def _wow_user(public, private, theirs, mine, closing, persona, rng) -> str:
    topic = str(scenario_value(public, private, "topic") or "this")
    if closing:
        return rng.choice(USER_CLOSING_WOW).format(topic=topic)
    bot_last = theirs[-1] if theirs else ""
    if listening.is_question(bot_last):
        pools: list[Sequence[str]] = [USER_WOW_ANSWERS, USER_WOW_OPINIONS]
    else:
        pools = [USER_WOW_REACTIONS, USER_WOW_OPINIONS]
    parts = [p.format(topic=topic) for p in _parts(persona, pools, rng)]
    if rng.random() < 0.6:
        parts.append(rng.choice(USER_WOW_QUESTIONS).format(topic=topic))
    return " ".join(_dedupe(parts))

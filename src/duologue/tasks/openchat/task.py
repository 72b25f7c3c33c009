"""Open chat as in DUO: a user and a bot talk for a set number of utterances.

Two settings share one engine (`OpenChatTask`):

* `openchat-ed-v0` (`EmpatheticChatTask`): the user has an emotion and a short episode about it
  and speaks first; the bot listens with empathy. 20 utterances, as in DUO's ED files (153 of
  the 157 English ones have exactly 20).
* `openchat-wow-v0` (`WizardChatTask`): the bot opens a chat about a topic and speaks first. 21
  utterances, as in DUO's WoW files (151 of 157 English ones, and all 73 Japanese ones), so the
  bot also has the last word, as there.

Parties are DUO's: `user` (role `user`, the human side) and `bot` (role `system`). Scenario keys
and who sees them are described in `settings` (ED: the user's emotion and episode are private to
the user; the bot's style is private to the bot; setting and topic are public).

The only move is `say`: DUO records nothing but utterances, so anything else could not be
written back as a DUO file. An episode ends `completed` once it has `utterances` messages, or is
truncated (`turn_limit`, `timeout`, a platform's `disconnect`). No one scores: the outcome has no
deal and `agreed=None`; quality comes from ratings, collected after the chat.
"""

from __future__ import annotations

import random
from statistics import fmean
from typing import Any, ClassVar

from duologue.core import actions
from duologue.core.schema import Dialogue, Message, Outcome, Party, Quit, Scenario, SystemNote
from duologue.core.spec import Metric, TaskSpec
from duologue.core.task import Observation, Task
from duologue.data.text import tokenize
from duologue.tasks.openchat.settings import ed_scenario, wow_scenario

USER, BOT = "user", "bot"
ROLES = {USER: "user", BOT: "system"}

RANDOM_LINES = (
    "ok",
    "hmm, tell me more",
    "i see what you mean",
    "why do you say that?",
    "really? how so",
    "that is interesting",
    "go on",
    "what happened then?",
    "i am not sure about that",
    "haha, fair",
    "could you explain?",
    "oh wow",
)
"""What the random agent says: bland lines that carry no scenario value."""


class OpenChatTask(Task):
    """The engine both DUO settings share; subclasses name the setting and who speaks first."""

    family = "openchat"
    corpus = "duo"
    party_ids = (USER, BOT)
    METRICS: ClassVar[list[Metric]] = [
        Metric(name="utterances", label="utterances"),
        Metric(name="mean_utterance_tokens", label="tokens per utterance"),
        Metric(name="completed", label="completed"),
    ]
    setting: ClassVar[str]
    first_party: ClassVar[str]
    default_utterances: ClassVar[int] = 20
    default_max_turns = 40
    """A safety net above the utterance count: reaching it truncates the episode (`turn_limit`)."""
    agents = {"rule": "duologue.tasks.openchat.agents:ListenerAgent"}

    def __init__(self, *, utterances: int | None = None, style: str | None = None, first: str | None = None, **options: Any) -> None:
        """
        utterances: messages after which the chat is over (default: the setting's usual length).
        style: the bot's style in generated scenarios (`aligned`, `neutral`, `not_aligned`);
        drawn per episode when None. Other options are the base `Task`'s.
        """
        super().__init__(first=first or self.first_party, **options)
        self.utterances = utterances if utterances is not None else self.default_utterances
        if self.utterances < 1:
            raise ValueError(f"utterances must be at least 1, got {self.utterances}")
        if options.get("max_turns") is None:
            self.max_turns = max(self.max_turns, self.utterances)
        self.style = style

    # ------------------------------------------------------------------ scenario and views

    def make_parties(self, scenario: Scenario) -> list[Party]:
        return [Party(id=USER, kind="human", role=ROLES[USER]), Party(id=BOT, kind="bot", role=ROLES[BOT])]

    def observe(self, party: str) -> Observation:
        """The base view, with the party's role filled in (`user` / `system`) so an agent knows its side,
        and `turns_left` counting the messages left before the chat is over (not the safety-net turn limit)."""
        observation = super().observe(party)
        if observation.role is None:
            observation.role = ROLES[party]
        said = sum(1 for e in self.events if e.kind == "message")
        observation.turns_left = max(min(self.utterances - said, self.max_turns - self.turn), 0)
        return observation

    # ------------------------------------------------------------------ rules

    def _legal_kinds(self, party: str) -> list[str]:
        return ["say"]

    def _apply(self, party: str, action: actions.Action) -> None:
        said = sum(1 for e in self.events if isinstance(e, Message))
        if said >= self.utterances:
            self._terminate("completed")

    def judge(self, dialogue: Dialogue) -> Outcome:
        """`completed` unless a limit or the platform cut the chat short (its system note names why)."""
        notes = [e for e in dialogue.events if isinstance(e, SystemNote)]
        if notes:
            return Outcome(reason=notes[-1].name, agreed=None)
        if any(isinstance(e, Quit) for e in dialogue.events):
            return Outcome(reason="quit", agreed=None)
        return Outcome(reason="completed", agreed=None)

    def sample_action(self, party: str, rng: random.Random) -> actions.Action:
        return actions.Say(text=rng.choice(RANDOM_LINES))

    # ------------------------------------------------------------------ reports

    def episode_metrics(self, dialogue: Dialogue) -> dict[str, float | None]:
        """Utterances, mean utterance length in tokens (overall, user, bot), and whether it completed."""
        outcome = dialogue.outcome or self.judge(dialogue)
        users = {p.id for p in dialogue.parties if p.role == "user" or p.id == USER}
        lengths: dict[str, list[int]] = {"all": [], "user": [], "bot": []}
        for message in dialogue.messages():
            count = len(tokenize(message.text, dialogue.language))
            lengths["all"].append(count)
            lengths["user" if message.party in users else "bot"].append(count)
        return {
            "utterances": float(len(lengths["all"])),
            "mean_utterance_tokens": fmean(lengths["all"]) if lengths["all"] else None,
            "mean_user_tokens": fmean(lengths["user"]) if lengths["user"] else None,
            "mean_bot_tokens": fmean(lengths["bot"]) if lengths["bot"] else None,
            "completed": 1.0 if outcome.reason == "completed" else 0.0,
        }


def setting_spec(task_id: str, *, title: str, description: str, judge_context: str) -> TaskSpec:
    """The spec of one DUO setting: everything but its words is shared by both settings."""
    return TaskSpec(
        id=task_id,
        family="openchat",
        title=title,
        description=description,
        parties=(USER, BOT),
        roles=("user", "system"),
        person=USER,
        kind="rated",
        metrics=OpenChatTask.METRICS,
        judge_context=judge_context,
        corpus="duo",
        resources="duologue.tasks.openchat",
        questionnaires={"party": "user.yaml", "rater": "rater.yaml"},
        analysis="duologue.tasks.openchat.analysis:analyze",
    )


class EmpatheticChatTask(OpenChatTask):
    """DUO's ED setting: the user tells an emotional episode first; the bot listens."""

    spec = setting_spec(
        "openchat-ed-v0",
        title="Open chat: talk about a feeling",
        description=(
            "A user picks an emotion and tells the bot about something that happened to them; the bot listens with "
            "empathy for about 20 utterances. Then the user rates the bot, and third parties rate the transcript."
        ),
        judge_context="In this conversation a user tells a chatbot (the bot) about something that happened to them, and the bot listens.",
    )
    setting = "ed"
    first_party = USER
    default_utterances = 20

    def generate_scenario(self, rng: random.Random) -> Scenario:
        return ed_scenario(rng, style=self.style)


class WizardChatTask(OpenChatTask):
    """DUO's WoW setting: the bot opens a chat about a topic and has the last word."""

    spec = setting_spec(
        "openchat-wow-v0",
        title="Open chat: talk about a topic",
        description=(
            "The bot opens a chat about a topic and the user talks with it for about 20 utterances. Then the user "
            "rates the bot, and third parties rate the transcript."
        ),
        judge_context="In this conversation a user and a chatbot (the bot) talk about a topic.",
    )
    setting = "wow"
    first_party = BOT
    default_utterances = 21

    def generate_scenario(self, rng: random.Random) -> Scenario:
        return wow_scenario(rng, style=self.style)

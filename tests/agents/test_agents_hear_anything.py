"""Every agent a task registers keeps playing, legally, whatever its partner writes.

People (and a study's attackers) write things no bot partner does: numbers thousands of digits long,
digits of other scripts, emoji and control characters, markup, the longest message the task allows,
fragments of bargaining talk in any order. Each task's own agents (its `agents` table: the rule bot,
the modular bot) play seeded episodes against a heckler that says such things between random legal
moves; they must never raise, and every move they make must be legal (the episode never ends for
illegal moves). The corpus's training split once held a message that made the CaSiNo reader raise,
and a Deal or No Deal count of thousands of digits did the same: this is the generic guard.
"""

from __future__ import annotations

import random

import pytest

from duologue.agents import make_agent
from duologue.core import actions
from duologue.core.agent import Agent
from duologue.core.episode import play_episode
from duologue.core.task import Observation
from duologue.tasks import make, task_ids

HOSTILE = [
    "9" * 900, "give me " + "9" * 500 + " of everything", "٣ ٤ ١٢ ² ½ １２０", "$" + "9" * 400 + " or 1e308 or nan or inf",
    "🙄🙄🙄 oh sure, that's totally fair :/", "\u200b\u200bok\u202e?\u200b", "\x00\x07\x1b[31m", "<script>alert(1)</script>", "' OR 1=1 --",
    "no no no not none never 0 0 0", "all the rest of the everything else for you and me and them", "?", ".", "-",
    "I'll take 3 of 2 of 1 of 0 of all of the none", "how about you get -5 and I get 8?", "deal? no deal. deal!",
    "half the asking price, a tenner, twelve hundred and fifty, 1.2k, 2 grand", "x" * 1000, "\n\nok\n\n", "      a      ",
    "Unfortunately, I cannot do 2 package as I desperately need it. I have to stand my ground on 1 package.",
]
"""Messages nobody's bot writes (the last is a real person's, from the CaSiNo training split). Each is a legal
move: none is blank, invisible (zero-width characters alone) or longer than 1,000 characters."""


class Heckler(Agent):
    """Mostly says the next hostile line (when it may speak), otherwise plays a random legal move.
    Episode k starts at line k - 2, so each line is said early in some episode, after the agent has
    spoken (bots settle fast: a heckled episode often ends within a few turns)."""

    name = "heckler"

    def __init__(self, start: int) -> None:
        self.said = start

    def act(self, observation: Observation) -> actions.Action:
        if "say" in observation.legal and self.rng.random() < 0.85:
            self.said += 1
            return actions.Say(text=HOSTILE[self.said % len(HOSTILE)][: self.task.max_message_chars])
        return self.task.sample_action(self.party, self.rng)


def own_agents() -> list[tuple[str, str]]:
    return [(task_id, kind) for task_id in task_ids() for kind in make(task_id).agents]


@pytest.mark.parametrize(("task_id", "kind"), own_agents())
def test_a_tasks_own_agents_play_on_legally_whatever_the_partner_writes(task_id: str, kind: str):
    task = make(task_id)
    for seed in range(len(HOSTILE)):
        tested = random.Random(seed).choice(task.party_ids)
        agent = make_agent(kind, task)
        refused: list[str] = []
        agent.on_illegal = lambda error, refused=refused: refused.append(str(error))  # type: ignore[method-assign,misc]
        play_episode(task, {party: agent if party == tested else Heckler(start=seed - 3) for party in task.party_ids}, seed=seed)
        assert not refused, (task_id, kind, seed, refused)

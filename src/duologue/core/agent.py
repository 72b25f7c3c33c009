"""The `Agent` interface: anything that chooses moves from observations.

Rule bots, data-driven bots, LLM bots and people (through the terminal or the browser) all play
through this one interface, so any agent can face any other on any task.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod

from duologue.core.actions import Action
from duologue.core.task import IllegalAction, Observation, Task


class Agent(ABC):
    """Chooses one move at a time for one party of one episode."""

    name: str = "agent"

    def reset(self, task: Task, party: str, rng: random.Random) -> None:
        """Called at the start of each episode. `task` gives access to the rules (legal moves,
        `sample_action`); an agent must read the world only through `observe`, never the task's state."""
        self.task = task
        self.party = party
        self.rng = rng

    @abstractmethod
    def act(self, observation: Observation) -> Action:
        """The next move, given what this party sees."""

    def on_illegal(self, error: IllegalAction) -> None:  # noqa: B027  an optional hook, not abstract
        """The last move was refused; `act` is called again. Default: nothing to learn."""


class RandomAgent(Agent):
    """Plays a random legal move: the baseline every task supports."""

    name = "random"

    def act(self, observation: Observation) -> Action:
        return self.task.sample_action(self.party, self.rng)

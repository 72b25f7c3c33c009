"""`hybrid:<policy>+<writer>`: one agent decides the move and its numbers, another writes the words.

The 2024 finding behind it: an LLM that must both decide and speak makes offers no seller would
make and splits that do not add up; letting a deterministic negotiator decide and the LLM only
narrate keeps the moves sound. Here:

* the **policy** is any agent spec (`rule`, `modular`, `rl:utility`): its move is the decision.
  Structured moves (an offer, a split, an answer) are played as decided, so the hybrid makes no
  move its policy would not make;
* the **writer** rewrites the policy's messages: `llm:<target>` (an LLM on any endpoint, asked to
  say the same thing in other words), `retrieval` (the corpus lines the policy's own generator
  retrieved: for policies that have one, `modular` and `rl:...`) or `template` (the policy's own
  wording);
* a **check** makes sure the words say what was decided: the task's `read_decision(text, party)`
  when the task defines one, else a generic reading of what a message commits to (every number
  it names, and which of the moves' item names it mentions, from the action schema). On a
  mismatch the writer tries again (`retries`), then the policy's own words are used.

`agent.turns` records every message (decided words, said words, whether they match, tries), for
the share of turns whose words match the decision.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import Any, Callable, Hashable

from duologue.core import actions, moves
from duologue.core.agent import Agent
from duologue.core.task import IllegalAction, Observation, Task
from duologue.core.text import visible

WRITERS = ("template", "retrieval", "llm:<target>")
_NUMBER_WORDS = {w: i for i, w in enumerate("zero one two three four five six seven eight nine ten eleven twelve".split())}
_NUMBER = re.compile(r"\$?\s?(\d[\d,]*(?:\.\d+)?)\s*(k\b|grand\b)?|\b(" + "|".join(_NUMBER_WORDS) + r")\b", re.IGNORECASE)


def numbers_in(text: str) -> list[float]:
    """Every number a message names (digits, `$1,200`, `1.2k`, number words up to twelve), sorted."""
    found = []
    for match in _NUMBER.finditer(text):
        if match.group(1):
            value = float(match.group(1).replace(",", ""))
            if match.group(2):
                value *= 1000
        else:
            value = float(_NUMBER_WORDS[match.group(3).lower()])
        found.append(value)
    return sorted(found)


def schema_items(schema: moves.Schema) -> list[str]:
    """The item names the moves of an action schema split (their pools), lower case."""
    names: list[str] = []
    for option in moves.options(schema):
        pool = option.get("x-complement", {}).get("pool", {})
        names += [str(name).lower() for name in pool]
    return sorted(set(names))


def generic_reading(text: str, items: list[str]) -> Hashable:
    """What a message commits to, read without task knowledge: its numbers and the items it names."""
    lowered = text.lower()
    named = frozenset(item for item in items if re.search(rf"\b{re.escape(item)}", lowered))
    return (tuple(numbers_in(text)), named)


@dataclass
class WrittenTurn:
    """One message of the hybrid: the policy's words, the words said, and whether they say the same."""

    decided: str
    said: str
    matched: bool
    tries: int
    source: str
    """`writer` (the writer's words passed the check), `fallback` (the policy's words after a
    mismatch or a writer error), or `policy` (the writer is the policy's own wording)."""


class LLMWriter:
    """Asks a chat model to say a message in other words, keeping its numbers and items."""

    SYSTEM = (
        "You are one side of a negotiation chat. Rewrite the message you are given in your own friendly words. "
        "Keep its meaning exactly: every number, price and item must stay the same, add no new number or item. "
        'Answer with JSON: {"text": "..."}.'
    )

    def __init__(self, target: str) -> None:
        from duologue.agents.llm import LLMAgent

        self.agent = LLMAgent(target or None)

    def write(self, decided: str, observation: Observation, feedback: str | None, rng: random.Random) -> str:
        recent = "\n".join(f"{'me' if e.party == observation.party else 'partner'}: {getattr(e, 'text', e.kind)}" for e in observation.transcript[-4:])
        ask = f"Conversation so far:\n{recent or '(nothing yet)'}\n\nMessage to rewrite: {decided}"
        if feedback:
            ask += f"\n\nYour last version was wrong: {feedback}. Keep the numbers and items of the message."
        schema = {"type": "object", "properties": {"text": {"type": "string", "minLength": 1, "maxLength": 200}}, "required": ["text"], "additionalProperties": False}
        data, _ = self.agent.client.complete_json(
            [{"role": "system", "content": self.SYSTEM}, {"role": "user", "content": ask}], schema, schema_name="message", max_tokens=90, temperature=0.7, seed=rng.randrange(2**31)
        )
        text = str(data.get("text", "")).strip() if isinstance(data, dict) else ""
        if not text:
            raise ValueError("the writer gave no text")
        return text


class HybridAgent(Agent):
    """A policy agent's decisions in a writer's words, checked (see the module docstring)."""

    name = "hybrid"

    def __init__(self, argument: str = "", *, retries: int = 1) -> None:
        policy, plus, writer = argument.partition("+")
        if not plus or not policy or not writer:
            raise ValueError(f"hybrid:{argument}: write hybrid:<policy>+<writer>, e.g. hybrid:rule+llm:local (writers: {', '.join(WRITERS)})")
        kind, _, target = writer.partition(":")
        if kind not in ("template", "retrieval", "llm"):
            raise ValueError(f"hybrid:{argument}: unknown writer {writer!r} (writers: {', '.join(WRITERS)})")
        self.policy_spec, self.writer_spec = policy, writer
        self.writer = LLMWriter(target) if kind == "llm" else None
        self.retries = retries
        self.turns: list[WrittenTurn] = []

    def reset(self, task: Task, party: str, rng: random.Random) -> None:
        super().reset(task, party, rng)
        from duologue.agents import make_agent

        self.policy = make_agent(self.policy_spec, task)
        self.policy.reset(task, party, rng)
        if self.writer_spec == "retrieval" and not hasattr(self.policy, "generated"):
            raise ValueError(f"hybrid: the retrieval writer needs a policy with a retrieval generator (modular, rl:...), not {self.policy_spec!r}")
        reader = getattr(task, "read_decision", None)
        self.reader: Callable[[str], Hashable] | None = (lambda text: reader(text, party)) if callable(reader) else None
        self.turns = []

    def reading(self, text: str, observation: Observation) -> Hashable:
        if self.reader is not None:
            return self.reader(text)
        return generic_reading(text, schema_items(self.task.action_schema(observation.party)))

    def act(self, observation: Observation) -> actions.Action:
        move = self.policy.act(observation)
        if not isinstance(move, actions.Say) or self.writer is None:
            if isinstance(move, actions.Say):
                self.turns.append(WrittenTurn(move.text, move.text, True, 0, "policy"))
            return move
        wanted = self.reading(move.text, observation)
        feedback: str | None = None
        for attempt in range(1, self.retries + 2):
            try:
                text = self.writer.write(move.text, observation, feedback, self.rng)[: self.task.max_message_chars]
            except Exception as error:  # noqa: BLE001  an unreachable endpoint or a reply that is not JSON: keep the decided words
                feedback = str(error)
                continue
            if visible(text) and self.reading(text, observation) == wanted:  # a reply of spaces or zero-width characters is no message
                self.turns.append(WrittenTurn(move.text, text, True, attempt, "writer"))
                return actions.Say(text=text)
            feedback = f"{text!r} does not say the same numbers and items as {move.text!r}"
        self.turns.append(WrittenTurn(move.text, move.text, True, self.retries + 1, "fallback"))
        return move

    def on_illegal(self, error: IllegalAction) -> None:
        self.policy.on_illegal(error)

    @property
    def generated(self) -> list[Any]:
        return getattr(self.policy, "generated", [])

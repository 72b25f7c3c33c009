"""The generic LLM agent: plays any task through an OpenAI-compatible endpoint.

Spec forms (see `duologue.llm.settings` for the environment variables):

* `llm:local`: SmolLM2-135M on a local server. `DUOLOGUE_LLM_BASE_URL` when set; otherwise the
  agent starts this process's shared in-process server on its first move (not when it is made,
  so checking a spec costs nothing);
* `llm:openai/gpt-4o-mini`, `llm:<alias>/<model>`: a known endpoint alias and a model;
* `llm:<model>` or `llm`: `DUOLOGUE_LLM_BASE_URL` with that model (or `DUOLOGUE_LLM_MODEL`).

Each move is one chat completion. The prompt holds what the party's `Observation` shows (role,
public scenario, its own private view, the recent transcript, feedback) and the legal moves now;
the reply is constrained by a JSON schema that admits exactly the legal action kinds with their
fields, derived from `Task.action_schema(party)` (`ReplySchema`): strings with a maxLength (which
keeps constrained decoding from looping), numbers within the task's bounds, a split as one of its
allowed combinations (so it always adds up), and a row of the party's own list as a row number,
mapped back to the row itself.

Replies that are not JSON or not a legal move are answered with the error and retried (`repairs`
times). A reply that still cannot be read becomes an `InvalidReply`, a move no task allows, so the
task refuses it and counts it like any illegal move: the agent never substitutes a move of its own.
When the task refuses a move (`on_illegal`), the reason goes into the next request.

Prompts are text templates in `duologue/agents/prompts/` (README there lists the placeholders);
a task may ship its own system prompt as `prompts/system.txt` in its spec's resource package.

`agent.usage` holds the agent's totals: calls, tokens, seconds, invalid replies and refused moves.
"""

from __future__ import annotations

import json
import os
import random
from dataclasses import dataclass, replace
from functools import lru_cache
from importlib import resources
from string import Template
from typing import Any, Callable, Literal

from duologue.core import actions, moves
from duologue.core.agent import Agent
from duologue.core.schema import Event, Message, Offer, Select, SubmitDeal, SystemNote
from duologue.core.spec import TaskSpec
from duologue.core.task import IllegalAction, Observation, Task
from duologue.llm.replies import NotJSON, json_in_reply
from duologue.llm.accounting import Completion, Usage
from duologue.llm.settings import Endpoint, LLMConfigError, LLMSettings, resolve_endpoint

PROMPTS = resources.files("duologue.agents") / "prompts"

PLACEHOLDERS = frozenset(
    ["task", "family", "party", "role", "public", "private", "items", "transcript", "turn", "turns_left", "feedback", "errors", "legal", "moves", "say_max_chars", "error"]
)


class InvalidReply(actions.Action):
    """A reply that never became a legal move. No task allows this kind, so the task refuses and counts it."""

    kind: Literal["invalid-reply"] = "invalid-reply"
    reason: str
    reply: str = ""


class MoveError(ValueError):
    """Why a reply is not a move the agent may make now (sent back to the model)."""


@dataclass
class AgentUsage(Usage):
    """`Usage` plus what became of the replies."""

    moves: int = 0
    """Replies that became a move (legal as far as the agent can tell)."""
    invalid_replies: int = 0
    """Replies that were not JSON or not a legal move, each answered with the error."""
    refused: int = 0
    """Moves the task refused (`on_illegal`), including `InvalidReply`s."""

    def as_dict(self) -> dict[str, float | int | None]:
        return {**super().as_dict(), "moves": self.moves, "invalid_replies": self.invalid_replies, "refused": self.refused}


# --------------------------------------------------------------------------- prompts


@lru_cache(maxsize=64)
def _template(text: str, where: str) -> Template:
    template = Template(text)
    unknown = sorted(set(template.get_identifiers()) - PLACEHOLDERS)
    if unknown:
        raise LLMConfigError(f"{where}: unknown placeholder(s) {', '.join('$' + u for u in unknown)}; known: {', '.join(sorted(PLACEHOLDERS))}")
    return template


def load_template(name: str, spec: TaskSpec | None = None) -> tuple[Template, str]:
    """A prompt template and where it came from: the task's own file (`prompts/` of its spec's
    resources) when it has one, else the generic one."""
    if spec is not None:
        own = spec.resource("prompts", f"{name}.txt")
        if own.is_file():
            where = f"{spec.resources}/prompts/{name}.txt"
            return _template(own.read_text(encoding="utf-8"), where), where
    generic = PROMPTS / f"{name}.txt"
    return _template(generic.read_text(encoding="utf-8"), str(generic)), str(generic)


def _value(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def render_row(row: dict[str, Any]) -> str:
    return ", ".join(f"{key}: {_value(value)}" for key, value in row.items())


def render_view(view: dict[str, Any]) -> str:
    """A scenario view as text lines; lists of records become numbered rows."""
    if not view:
        return "(nothing)"
    lines = []
    for key, value in view.items():
        if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            lines.append(f"- {key}:")
            lines += [f"  {number}. {render_row(row)}" for number, row in enumerate(value, start=1)]
        else:
            lines.append(f"- {key}: {_value(value)}")
    return "\n".join(lines)


def render_items(items: list[dict[str, Any]], private: dict[str, Any] | None = None) -> str:
    """The rows a Select move can pick, numbered from 1 (the number is what the model answers), with a heading.

    When the rows are a table of the private view (MutualFriends' friends), they are named, not repeated.
    """
    if not items:
        return ""
    for key, value in (private or {}).items():
        if value == items:
            return f"Rows you can select: the {key} listed above (answer with the row number).\n"
    rows = [f"{number}. {render_row(row)}" for number, row in enumerate(items, start=1)]
    return "\n".join(["Rows you can select (by row number):", *rows, ""])


def render_event(event: Event, me: str) -> str:
    who = "you" if event.party == me else ("partner" if event.party is not None else "system")
    if isinstance(event, Message):
        return f"{who}: {event.text}"
    if isinstance(event, Offer):
        return f"{who} offered a price of {event.price:g}" if event.price is not None else f"{who} made an offer"
    if isinstance(event, SubmitDeal):
        mine, theirs = _value(event.mine), _value(event.theirs)
        if who == "you":
            return f"you proposed a deal: you get {mine}, partner gets {theirs}"
        return f"{who} proposed a deal: {who} gets {mine}, you get {theirs}"
    if isinstance(event, Select):
        return f"{who} selected {render_row(event.item)}"
    if isinstance(event, SystemNote):
        return f"(system: {event.name})"
    return f"{who}: {event.kind}"


MOVE_HELP: dict[str, str] = {
    "say": "send your partner a message (at most $say_max_chars characters)",
    "offer": "make a final offer at this price",
    "accept": "accept the offer on the table",
    "reject": "reject the offer on the table",
    "quit": "leave without a deal",
    "select": "select that row of your list (row numbers are listed above)",
    "submit-deal": "propose a split: mine is what you get, theirs what your partner gets",
    "accept-deal": "accept the deal your partner proposed",
    "reject-deal": "reject the deal your partner proposed",
    "walk-away": "walk away without a deal",
}
"""Plain words for the built-in move kinds; a task's own kinds are described by their schema."""


def shape(schema: dict[str, Any]) -> str:
    """How a value of this schema is written, for the prompt (`<0..3>`, `"..."`, `{"a": <0..3>}`,
    an enum's choices as `"left"|"right"`): the legal values themselves wherever the schema lists them."""
    if "const" in schema:
        return json.dumps(schema["const"])
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return "|".join(json.dumps(value) for value in schema["enum"])
    kind = schema.get("type")
    if kind == "object":
        inner = ", ".join(f"{json.dumps(name)}: {shape(sub)}" for name, sub in schema.get("properties", {}).items())
        return "{" + inner + "}"
    if kind in ("integer", "number"):
        low = schema.get("minimum", schema.get("exclusiveMinimum"))
        high = schema.get("maximum")
        what = schema.get("description") or ("integer" if kind == "integer" else "number")
        if low is not None and high is not None:
            return f"<{what} {low:g}..{high:g}>" if kind == "number" else f"<{low}..{high}>"
        return f"<{what}>"
    if kind == "string":
        return '"..."'
    if kind == "boolean":
        return "true|false"
    return "<value>"


def describe_moves(schema: dict[str, Any], say_max_chars: int) -> str:
    """One line per move of an action schema: how to write it and what it does (a field whose values
    are rows of the party's own list is written as a row number)."""
    lines = []
    for option in moves.options(schema):
        kind = moves.kind_of(option)
        fields = {
            name: ({"type": "integer", "description": "row number"} if isinstance(sub.get("enum"), list) and all(isinstance(v, dict) for v in sub["enum"]) else sub)
            for name, sub in option.get("properties", {}).items()
        }
        meaning = MOVE_HELP.get(kind) or option.get("description") or f"make a {kind} move"
        lines.append(f"- {shape({'type': 'object', 'properties': fields})}: {meaning.replace('$say_max_chars', str(say_max_chars))}")
    return "\n".join(lines)


# --------------------------------------------------------------------------- the reply's schema


class ReplySchema:
    """The schema a reply must follow, derived from the task's action schema (`Task.action_schema`).

    Constrained decoders get `moves.for_llm` of it (a split that does not add up cannot be written;
    strings are bounded), and a field whose values are rows of the party's own list (an `enum` of
    objects) is asked for as a row number, mapped back to the row when the reply is read.
    """

    def __init__(self, action_schema: dict[str, Any], say_max_chars: int) -> None:
        self.action_schema = action_schema
        self.rows: dict[tuple[str, str], list[Any]] = {}
        flat = moves.for_llm(action_schema, max_chars=say_max_chars)
        for option in flat["oneOf"]:
            kind = moves.kind_of(option)
            option["properties"]["kind"] = {"type": "string", "const": kind}
            for name, field in list(option["properties"].items()):
                values = field.get("enum")
                if values and all(isinstance(v, dict) for v in values):
                    self.rows[(kind, name)] = values
                    option["properties"][name] = {"type": "integer", "minimum": 1, "maximum": len(values), "description": "row number"}
        self.flat = flat
        self.legal = moves.kinds(action_schema)
        options = flat["oneOf"]
        move = options[0] if len(options) == 1 else {"anyOf": options}
        self.json_schema = {"type": "object", "properties": {"move": move}, "required": ["move"], "additionalProperties": False}

    def read(self, text: str) -> actions.Action:
        """The move a reply stands for, or `MoveError` saying (for the model) what is wrong with it."""
        data = _json_of(text)
        if isinstance(data, dict) and isinstance(data.get("move"), dict):
            data = data["move"]
        if not isinstance(data, dict) or "kind" not in data:
            raise MoveError('the reply must be an object {"move": {"kind": ..., ...}}')
        kind = data.get("kind")
        if kind not in self.legal:
            raise MoveError(f"{kind!r} is not a move you can make now; choose one of: {', '.join(self.legal)}")
        data = dict(data)
        for (row_kind, name), rows in self.rows.items():
            if row_kind != kind or name not in data:
                continue
            value = data[name]
            if isinstance(value, bool) or not isinstance(value, (int, dict)):
                raise MoveError(f"{kind}.{name} must be a row number from 1 to {len(rows)}")
            if isinstance(value, int):
                if not 1 <= value <= len(rows):
                    raise MoveError(f"there is no row {value}; choose a row number from 1 to {len(rows)}")
                data[name] = rows[value - 1]
            elif value not in rows:
                raise MoveError(f"that row is not in your list; choose a row number from 1 to {len(rows)}")
        target = moves.option(self.action_schema, str(kind))
        if target is not None:
            data = moves.complete(target, data)
        problem = moves.validate(self.action_schema, data)
        if problem is not None:
            raise MoveError(problem)
        try:
            return actions.parse_action(data)
        except ValueError as error:
            raise MoveError(f"the {kind} move is malformed: {error}") from None


def reply_schema(task: Task, party: str, say_max_chars: int) -> ReplySchema:
    return ReplySchema(task.action_schema(party), say_max_chars)


# --------------------------------------------------------------------------- reading the reply


def _json_of(text: str) -> Any:
    try:
        return json_in_reply(text)
    except NotJSON as error:
        raise MoveError(str(error)) from None


def reply_to_action(text: str, schema: ReplySchema) -> actions.Action:
    """The move a reply stands for under this reply schema, or `MoveError` (sent back to the model)."""
    return schema.read(text)


# --------------------------------------------------------------------------- the agent

_clients: dict[tuple[int, Endpoint, str], Any] = {}


def shared_client(endpoint: Endpoint, settings: LLMSettings) -> Any:
    """One `ChatClient` per endpoint and settings in this process: agents are made per episode,
    and sharing keeps their HTTP connections alive instead of opening new ones each time.
    (Each agent still counts its own usage.) Keyed by process too: a forked worker opens its own connections."""
    try:
        from duologue.llm.client import ChatClient
    except ImportError as error:
        raise LLMConfigError(f"LLM agents need httpx ({error}); install it with: pip install 'duologue[llm]'") from None

    key = (os.getpid(), endpoint, settings.model_dump_json())
    if key not in _clients:
        _clients[key] = ChatClient.from_endpoint(endpoint, settings)
    return _clients[key]



PROBLEM_SHOWN, REPLY_SHOWN = 400, 2000
"""Characters of a refused reply's problem, and of the reply itself, sent back in a repair request."""


def _clipped(text: str, limit: int = PROBLEM_SHOWN) -> str:
    return text if len(text) <= limit else text[:limit] + f" ... ({len(text) - limit} more characters)"


class LLMAgent(Agent):
    """Plays any task by asking a chat model for one JSON move per turn."""

    name = "llm"

    def __init__(
        self,
        target: str | None = None,
        *,
        settings: LLMSettings | None = None,
        client: Any = None,
        repairs: int = 2,
        say_max_chars: int = 280,
        transcript_events: int = 30,
        max_tokens: int | None = None,
        temperature: float | None = None,
        on_chunk: Callable[[str], None] | None = None,
    ) -> None:
        """
        target: the spec's argument (`local`, `openai/gpt-4o-mini`, a model, or None). Resolved now,
        so a configuration mistake fails when the agent is made, not mid-episode.
        client: a ready `ChatClient` (or anything with its `complete`), e.g. to share one or fake one.
        repairs: extra requests per move after a reply that is not a legal move.
        on_chunk: stream each reply and call this with every text chunk (a live "typing" view).
        """
        self.settings = settings or LLMSettings()
        self.target = target
        self.endpoint = resolve_endpoint(target, self.settings)
        self._client = client
        self.repairs = repairs
        self.say_max_chars = say_max_chars
        self.transcript_events = transcript_events
        self.max_tokens = max_tokens if max_tokens is not None else self.settings.max_tokens
        self.temperature = temperature if temperature is not None else self.settings.temperature
        self.on_chunk = on_chunk
        self.usage = AgentUsage()
        self.last_prompt: list[dict[str, str]] = []
        """The messages of the latest request (for debugging and reports)."""
        self._errors: list[str] = []
        self._last_invalid: str | None = None

    @property
    def client(self) -> Any:
        """The chat client, made on first use (starting the shared local server for `llm:local`)."""
        if self._client is None:
            endpoint = self.endpoint
            if endpoint.managed_local:
                from duologue.llm.server import shared_local_server

                endpoint = replace(endpoint, base_url=shared_local_server().url)
            self._client = shared_client(endpoint, self.settings)
        return self._client

    def reset(self, task: Task, party: str, rng: random.Random) -> None:
        super().reset(task, party, rng)
        self._errors = []
        self._last_invalid = None
        self._system, self.system_prompt_source = load_template("system", task.spec)
        self._turn, _ = load_template("turn")
        self._repair, _ = load_template("repair")

    # ------------------------------------------------------------------ prompting

    def placeholders(self, observation: Observation, items: list[dict[str, Any]], errors: list[str], schema: ReplySchema | None = None) -> dict[str, str]:
        """Everything a template may use (see `prompts/README.md`)."""
        events = observation.transcript[-self.transcript_events :] if self.transcript_events else []
        skipped = len(observation.transcript) - len(events)
        transcript = ([f"(... {skipped} earlier events)"] if skipped else []) + [render_event(e, observation.party) for e in events]
        schema = schema or reply_schema(self.task, observation.party, self.say_max_chars)
        return {
            "task": observation.task,
            "family": self.task.family,
            "party": observation.party,
            "role": observation.role or "none",
            "public": render_view(observation.public),
            "private": render_view(observation.private),
            "items": render_items(items, observation.private),
            "transcript": "\n".join(transcript) or "(nothing yet)",
            "turn": str(observation.turn),
            "turns_left": "unknown" if observation.turns_left is None else str(observation.turns_left),
            "feedback": "".join(f"Note: {note}\n" for note in observation.feedback),
            "errors": "".join(f"Your last move was refused: {error}\n" for error in errors),
            "legal": ", ".join(observation.legal),
            "moves": describe_moves(schema.action_schema, self.say_max_chars),
            "say_max_chars": str(self.say_max_chars),
            "error": "",
        }

    def messages(self, observation: Observation, items: list[dict[str, Any]], errors: list[str], schema: ReplySchema | None = None) -> list[dict[str, str]]:
        values = self.placeholders(observation, items, errors, schema)
        return [
            {"role": "system", "content": self._system.safe_substitute(values).strip()},
            {"role": "user", "content": self._turn.safe_substitute(values).strip()},
        ]

    # ------------------------------------------------------------------ playing

    def act(self, observation: Observation) -> actions.Action:
        errors, self._errors = self._errors, []
        items = self.task.items(observation)
        schema = reply_schema(self.task, observation.party, self.say_max_chars)
        messages = self.messages(observation, items, errors, schema)
        problem = ""
        reply = ""
        for _ in range(self.repairs + 1):
            self.last_prompt = list(messages)
            completion = self._ask(messages, schema.json_schema)
            reply = completion.text
            try:
                action = schema.read(reply)
            except MoveError as error:
                problem = _clipped(str(error))  # a 50,000-character message quoted back would grow every request
                self.usage.invalid_replies += 1
                values = {**self.placeholders(observation, items, [], schema), "error": problem}
                messages = [*messages, {"role": "assistant", "content": _clipped(reply, REPLY_SHOWN)}, {"role": "user", "content": self._repair.safe_substitute(values).strip()}]
                continue
            self.usage.moves += 1
            self._last_invalid = None
            return action
        self._last_invalid = problem
        return InvalidReply(reason=problem, reply=reply[:1000])

    def _ask(self, messages: list[dict[str, str]], schema: dict[str, Any]) -> Completion:
        completion: Completion = self.client.complete(
            messages,
            json_schema=schema,
            schema_name="move",
            max_tokens=self.max_tokens,
            temperature=self.temperature,
            seed=self.rng.randrange(2**31),
            on_chunk=self.on_chunk,
        )
        self.usage.add(completion)
        return completion

    def on_illegal(self, error: IllegalAction) -> None:
        """Remember why the move was refused; the next request tells the model."""
        self.usage.refused += 1
        if error.kind == InvalidReply.model_fields["kind"].default and self._last_invalid:
            self._errors.append(f"your reply could not be read as a legal move ({self._last_invalid})")
        else:
            self._errors.append(error.reason)

"""A person playing in the terminal: sees their private view, types messages and moves.

Plain text is a message. Moves start with a slash and are read from the task's action schema, so
every task (a plug-in too) gets its commands with no code here: `/<move> <fields>`, where a move
may be shortened to a unique prefix or word of its name (`/deal` for a split move), a number field
takes a number (`/offer 120`), a row of your own list takes its row number (`/select 3`), and an
object field takes `name=value` pairs (`/submit-deal food=2 water=1 firewood=0`: for a split, what
you get; the rest goes to your partner). `/help` lists the moves you can make now; `/leave` ends
the game unfinished (recorded as a disconnect), in any task.
"""

from __future__ import annotations

import re
import shlex
from typing import Any, Callable

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from duologue.core import actions, moves
from duologue.core.agent import Agent
from duologue.core.schema import Message, SystemNote
from duologue.core.task import IllegalAction, Observation


class CommandError(ValueError):
    """What the person typed is not a move; the message says how to type it."""


class LeftGame(EOFError):
    """The person typed `/leave` (or `/quit` where quitting is not a move): the game ends there."""


def _is_rows(field: moves.Schema) -> bool:
    values = field.get("enum")
    return isinstance(values, list) and bool(values) and all(isinstance(v, dict) for v in values)


def _fields(move: moves.Schema) -> dict[str, moves.Schema]:
    return {name: sub for name, sub in move.get("properties", {}).items() if name != "kind"}


def _free_fields(move: moves.Schema) -> dict[str, moves.Schema]:
    """The fields a person types: all but the half of a split that the other half determines."""
    complement = move.get("x-complement") or {}
    return {name: sub for name, sub in _fields(move).items() if name != complement.get("is")}


def usage(move: moves.Schema) -> str:
    """How to type one move, e.g. `/offer <price up to 1500>`, `/select <row 1..8>`, `/wave <hand: left|right>`
    or `/remote <days 0..5>`: the legal values wherever the schema lists them."""
    parts = [f"/{moves.kind_of(move)}"]
    for name, field in _free_fields(move).items():
        if _is_rows(field):
            parts.append(f"<row 1..{len(field['enum'])}>")
        elif field.get("type") == "object":
            parts += [f"{key}=<{sub.get('minimum', 0)}..{sub.get('maximum', 'n')}>" for key, sub in field.get("properties", {}).items()]
        elif isinstance(field.get("enum"), list):
            parts.append(f"<{name}: {'|'.join(map(str, field['enum']))}>")
        elif field.get("type") == "boolean":
            parts.append(f"<{name}: true|false>")
        elif field.get("type") == "string":
            parts.append(f"<{name}>")
        else:
            parts.append(f"<{name}{_bounds(field)}>")
    complement = move.get("x-complement")
    if complement:
        parts.append(f"(what you get as {complement['of']}; the rest goes to {complement['is']})")
    return " ".join(parts)


def _bounds(field: moves.Schema) -> str:
    """A number field's range as a person reads it: ` 0..5`, ` up to 1500`, ` from 1`, or nothing."""
    low, high = field.get("minimum"), field.get("maximum")
    if isinstance(low, (int, float)) and isinstance(high, (int, float)) and field.get("type") == "integer":
        return f" {low:g}..{high:g}"
    if isinstance(high, (int, float)):
        return f" up to {high:g}"
    return f" from {low:g}" if isinstance(low, (int, float)) else ""


def help_text(schema: moves.Schema) -> str:
    """The moves a person can make now, one per line (only this task's moves, only those legal now)."""
    lines = []
    for move in moves.options(schema):
        kind = moves.kind_of(move)
        if kind == "say":
            lines.append("  type a message to send it")
            continue
        description = move.get("description")
        lines.append(f"  {usage(move)}" + (f"  {description}" if description else ""))
    footer = "\n  /help shows this list; /leave ends the game without finishing it"
    return "Moves you can make now:\n" + ("\n".join(lines) if lines else "  none (wait for your partner)") + footer


def _command_kind(command: str, schema: moves.Schema) -> str:
    kinds = moves.kinds(schema)
    if command in kinds:
        return command
    matches = [k for k in kinds if k.startswith(command)] or [k for k in kinds if command in k.split("-")]
    if len(matches) == 1:
        return matches[0]
    if matches:
        raise CommandError(f"/{command} could be {' or '.join('/' + m for m in matches)}; type the whole name")
    raise CommandError(f"/{command} is not a move you can make now ({', '.join('/' + k for k in kinds if k != 'say') or 'no moves'}); type /help")


def _number(text: str, field: moves.Schema, what: str) -> int | float:
    cleaned = text.replace("$", "").replace(",", "").strip()
    try:
        value = float(cleaned)
    except ValueError:
        raise CommandError(f"{what}: {text!r} is not a number") from None
    if field.get("type") == "integer":
        if not value.is_integer():
            raise CommandError(f"{what}: {text!r} is not a whole number")
        return int(value)
    return value


BOOLEAN_WORDS = {"true": True, "yes": True, "y": True, "1": True, "false": False, "no": False, "n": False, "0": False}


def _scalar(text: str, field: moves.Schema, what: str) -> Any:
    if _is_rows(field):
        rows = field["enum"]
        if not text.isdigit() or not 1 <= int(text) <= len(rows):
            raise CommandError(f"{what}: give a row number from 1 to {len(rows)}")
        return rows[int(text) - 1]
    if field.get("type") == "boolean" and "enum" not in field:
        answer = BOOLEAN_WORDS.get(text.lower())
        if answer is None:
            raise CommandError(f"{what}: answer true or false")
        return answer
    if field.get("type") in ("integer", "number"):
        return _number(text, field, what)
    if "enum" in field:
        for value in field["enum"]:
            if str(value).lower() == text.lower():
                return value
        raise CommandError(f"{what}: choose one of {', '.join(map(str, field['enum']))}")
    return text


def _key(name: str, keys: list[str]) -> str | None:
    for key in keys:
        if key.lower() == name.lower():
            return key
    return None


def parse_move(kind: str, args: list[str], move: moves.Schema) -> dict[str, Any]:
    """The move (as JSON) that these typed arguments give, following the move's schema."""
    data: dict[str, Any] = {"kind": kind}
    free = _free_fields(move)
    complement = move.get("x-complement") or {}
    positional = [name for name, field in free.items() if field.get("type") != "object"]
    for arg in args:
        name, sep, value = arg.partition("=")
        if not sep:
            if not positional:
                raise CommandError(f"/{kind} takes name=value pairs: {usage(move)}")
            first = positional.pop(0)
            data[first] = _scalar(arg, free[first], f"/{kind} {first}")
            continue
        outer, dot, inner = name.partition(".")
        field_name: str | None = _key(outer, list(_fields(move))) if dot else None
        if field_name is not None:
            key = _key(inner, list(_fields(move)[field_name].get("properties", {})))
            if key is None:
                raise CommandError(f"/{kind}: {field_name} has no {inner!r}")
        else:
            field_name = _key(name, list(free))
            key = None
            if field_name is None:
                owners = [f for f, sub in free.items() if sub.get("type") == "object" and _key(name, list(sub.get("properties", {})))]
                if complement.get("of") in owners:
                    owners = [complement["of"]]
                if len(owners) != 1:
                    raise CommandError(f"/{kind}: unknown field {name!r}; {usage(move)}")
                field_name = owners[0]
                key = _key(name, list(free[field_name]["properties"]))
        field = _fields(move)[field_name]
        if key is None:
            data[field_name] = _scalar(value, field, f"/{kind} {field_name}")
        else:
            data.setdefault(field_name, {})[key] = _number(value, field["properties"][key], f"/{kind} {key}")
    for name, field in free.items():
        if field.get("type") == "string" and name not in data and args:
            data[name] = " ".join(args)
    if complement and isinstance(data.get(complement["of"]), dict) and complement["is"] not in data:
        pool = complement["pool"]
        given = data[complement["of"]]
        missing = [item for item in pool if item not in given]
        if missing:
            raise CommandError(f"/{kind}: say how many of {', '.join(missing)} you get: {usage(move)}")
        too_many = [f"{item}={given[item]} (there are {pool[item]})" for item in pool if not 0 <= given[item] <= pool[item]]
        if too_many:
            raise CommandError(f"/{kind}: {', '.join(too_many)}")
        data[complement["is"]] = {item: pool[item] - given[item] for item in pool}
    return moves.complete(move, data)


def command_for(data: dict[str, Any], schema: moves.Schema) -> str:
    """How a person types this move (the inverse of `parse_command`; the conformance checker uses it)."""
    kind = str(data["kind"])
    if kind == "say":
        return str(data["text"]).strip() or str(data["text"])
    move = moves.option(schema, kind)
    if move is None:
        return f"/{kind}"
    words = [f"/{kind}"]
    for name, field in _free_fields(move).items():
        value = data.get(name)
        if _is_rows(field):
            words.append(str(field["enum"].index(value) + 1))
        elif isinstance(value, dict):
            words += [shlex.quote(f"{name}.{key}={number}") for key, number in value.items()]
        elif value is not None:
            words.append(shlex.quote(repr(value) if isinstance(value, float) else str(value)))
    return " ".join(words)


def parse_command(text: str, schema: moves.Schema) -> actions.Action:
    """The action a line typed by a person stands for, under the action schema of the moment."""
    text = text.strip()
    if not text:
        raise CommandError("type a message, or a move such as /help")
    if not text.startswith("/"):
        if moves.option(schema, "say") is None:
            raise CommandError("you cannot send a message now; type /help for the moves you can make")
        data: dict[str, Any] = {"kind": "say", "text": text}
    else:
        try:
            words = shlex.split(text[1:])
        except ValueError as error:
            raise CommandError(f"cannot read that command: {error}") from None
        if not words:
            raise CommandError("type a command after the slash, e.g. /help")
        kind = _command_kind(words[0].lower(), schema)
        move = moves.option(schema, kind)
        assert move is not None
        data = parse_move(kind, words[1:], move)
    problem = moves.validate(schema, data)
    if problem is not None:
        raise CommandError(problem)
    try:
        return actions.parse_action(data)
    except ValueError as error:
        raise CommandError(str(error)) from None


_UNSHOWN = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
"""Control characters and bidirectional overrides: in a terminal they recolour, retitle or reorder
what follows, so a partner's message (a model's, say) could pass for the game's own words."""


def shown(text: str) -> str:
    """Text as the terminal may show it: line breaks and tabs kept, other controls replaced."""
    return _UNSHOWN.sub("\ufffd", text)


def render_view(observation: Observation, console: Console) -> None:
    """Show a party its role, the public scenario and its private view as tables."""
    console.rule(escape(f"{observation.task}" + (f": you are the {observation.role}" if observation.role else "")))
    for title, view in (("public", observation.public), ("private (only you see this)", observation.private)):
        for key, value in view.items():
            if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
                table = Table(title=escape(f"{key} [{title}]"), title_justify="left")
                table.add_column("#", justify="right")
                columns = list(value[0])
                for column in columns:
                    table.add_column(escape(str(column)))
                for number, row in enumerate(value, start=1):
                    table.add_row(str(number), *(escape(plain(row.get(c, ""))) for c in columns))
                console.print(table)
            else:
                console.print(f"[bold]{escape(str(key).replace('_', ' '))}[/] [dim]({title})[/]: {escape(plain(value))}")


def plain(value: Any) -> str:
    """A move's field as a person reads it: `Food 2, Water 1` for counts, rows as `name: value`
    pairs, numbers without a trailing `.0`; never a Python repr."""
    if isinstance(value, dict):  # counts read `Food 2`, words `Name: Ann`
        return ", ".join(f"{key} {plain(item)}" if isinstance(item, (int, float)) else f"{key}: {plain(item)}" for key, item in value.items())
    if isinstance(value, (list, tuple)):
        return ", ".join(plain(item) for item in value)
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def partner_label(task: Any, party: str) -> str:
    """What the terminal calls the other party: `partner`, with its role where the task has roles
    (`partner (seller)`), never its id (`mturk_agent_2`)."""
    spec = getattr(task, "spec", None)
    parties, roles = tuple(getattr(spec, "parties", ())), tuple(getattr(spec, "roles", ()))
    other = next((p for p in parties if p != party), None)
    if other is not None and len(roles) == len(parties):
        return f"partner ({roles[parties.index(other)]})"
    return "partner"


def event_line(event: Any, me: str, partner: str) -> str:
    """One event of the transcript in words (without markup): who did what, with the move's fields
    as plain text; fields the task hides from this party (a private choice) are said to be hidden."""
    who = "you" if event.party == me else (partner if event.party is not None else "system")
    fields = event.model_dump(exclude={"party", "time", "extra", "kind"})
    detail = "; ".join(f"{name.replace('_', ' ')}: {plain(value)}" for name, value in fields.items() if value is not None)
    kind = event.kind.replace("-", " ").replace("_", " ")
    if not detail and any(value is None for value in fields.values()):
        return f"{who}: {kind} (its details are hidden from you until the end)"
    return f"{who}: {kind}" + (f" ({detail})" if detail else "")


def outcome_line(outcome: Any, me: str, partner: str) -> str:
    """How a game ended, for the person who played it: the reason, whether they agreed, and each side's score by who it is."""
    parts = [str(outcome.reason).replace("_", " ")]
    if outcome.agreed is not None:
        parts.append("agreed" if outcome.agreed else "no agreement")
    scores = outcome.scores or {}
    if me in scores:
        parts.append(f"your score: {plain(scores[me])}")
    parts.extend(f"{partner}'s score: {plain(score)}" for party, score in scores.items() if party != me)
    return "; ".join(parts)


class TerminalAgent(Agent):
    """A person at the keyboard. `read` and `console` are injectable so the terminal game is testable."""

    name = "human"
    is_human = True

    def __init__(self, read: Callable[[str], str] = input, console: Console | None = None):
        self.read = read
        self.console = console or Console()
        self.shown = 0
        self.introduced = False

    def act(self, observation: Observation) -> actions.Action:
        schema = self.task.action_schema(self.party)
        if not self.introduced:
            self.introduced = True
            render_view(observation, self.console)
            self.console.print(f"[dim]{escape(help_text(schema))}[/]")
        self.show_new_events(observation)
        while True:
            text = self.read(f"[{', '.join(moves.kinds(schema))}] > ")
            command = text.strip().lower()
            if command == "/help":
                self.console.print(escape(help_text(schema)))
                continue
            if command == "/leave" or (command == "/quit" and moves.option(schema, "quit") is None):
                raise LeftGame("left the game")
            try:
                return parse_command(text, schema)
            except ValueError as error:
                self.console.print(f"[red]{escape(str(error))}[/]")

    def show_new_events(self, observation: Observation) -> None:
        partner = partner_label(self.task, self.party)
        for event in observation.transcript[self.shown :]:
            who = "you" if event.party == self.party else (partner if event.party is not None else "system")
            if isinstance(event, Message):
                self.console.print(f"[bold]{escape(who)}:[/] {escape(shown(event.text))}")  # people and corpora write [brackets]
            elif isinstance(event, SystemNote):
                self.console.print(f"[yellow]({escape(event.name.replace('_', ' '))})[/]")
            else:  # fields a task hides from this party (a private choice) arrive as null: said to be hidden
                self.console.print(f"[cyan]{escape(shown(event_line(event, self.party, partner)))}[/]")
        self.shown = len(observation.transcript)
        for note in observation.feedback:
            self.console.print(f"[yellow]{escape(str(note))}[/]")

    def on_illegal(self, error: IllegalAction) -> None:
        self.console.print(f"[red]not allowed: {escape(error.reason)}[/]")

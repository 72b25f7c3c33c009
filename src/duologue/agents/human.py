"""A person playing in the terminal: sees their private view, types messages and moves.

Plain text is a message. Moves start with a slash: `/offer 120`, `/accept`, `/reject`, `/quit`,
`/select 3` (row 3 of your list), `/deal food=2 water=1 firewood=0` (what you get; the rest goes
to your partner), `/accept-deal`, `/reject-deal`, `/walk-away`, `/help`.
"""

from __future__ import annotations

import shlex
from typing import Any, Callable

from rich.console import Console
from rich.table import Table

from duologue.core import actions
from duologue.core.agent import Agent
from duologue.core.schema import Message, SystemNote
from duologue.core.task import IllegalAction, Observation

HELP = " ".join(__doc__.split("\n\n", 1)[1].split())


class CommandError(ValueError):
    """What the person typed is not a move; the message says how to type it."""


def parse_command(text: str, observation: Observation, items: list[dict[str, Any]]) -> actions.Action:
    """The action a line typed by a person stands for."""
    text = text.strip()
    if not text:
        raise CommandError("type a message, or a move such as /help")
    if not text.startswith("/"):
        return actions.Say(text=text)
    try:
        words = shlex.split(text[1:])
    except ValueError as error:
        raise CommandError(f"cannot read that command: {error}") from None
    if not words:
        raise CommandError("type a command after the slash, e.g. /help")
    command, args = words[0].lower(), words[1:]
    if command == "offer":
        if len(args) != 1:
            raise CommandError("give one price: /offer 120")
        try:
            price = float(args[0].replace("$", "").replace(",", ""))
        except ValueError:
            raise CommandError(f"{args[0]!r} is not a price: /offer 120") from None
        return actions.Offer(price=price)
    if command == "select":
        if len(args) != 1 or not args[0].isdigit() or not 1 <= int(args[0]) <= len(items):
            raise CommandError(f"give a row number from 1 to {len(items)}: /select 3" if items else "there is nothing to select in this task")
        return actions.Select(item=items[int(args[0]) - 1])
    if command == "deal":
        mine: dict[str, int] = {}
        for arg in args:
            issue, _, count = arg.partition("=")
            if not count.isdigit():
                raise CommandError(f"{arg!r}: write issue=count, e.g. /deal food=2 water=1 firewood=0")
            mine[issue.strip().capitalize()] = int(count)
        total = observation.public.get("packages_per_issue", 3)
        return actions.SubmitDeal(mine=mine, theirs={issue: total - count for issue, count in mine.items()})
    simple = {"accept": actions.Accept, "reject": actions.Reject, "quit": actions.Quit, "accept-deal": actions.AcceptDeal, "reject-deal": actions.RejectDeal, "walk-away": actions.WalkAway}
    if command in simple and not args:
        return simple[command]()
    raise CommandError(f"unknown command /{command}; type /help")


def render_view(observation: Observation, console: Console) -> None:
    """Show a party its role, the public scenario and its private view as tables."""
    console.rule(f"{observation.task}: you are {observation.party}" + (f" ({observation.role})" if observation.role else ""))
    for title, view in (("public", observation.public), ("private (only you see this)", observation.private)):
        for key, value in view.items():
            if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
                table = Table(title=f"{key} [{title}]", title_justify="left")
                table.add_column("#", justify="right")
                columns = list(value[0])
                for column in columns:
                    table.add_column(str(column))
                for number, row in enumerate(value, start=1):
                    table.add_row(str(number), *(str(row.get(c, "")) for c in columns))
                console.print(table)
            else:
                console.print(f"[bold]{key}[/] [dim]({title})[/]: {value}")


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
        if not self.introduced:
            self.introduced = True
            render_view(observation, self.console)
            self.console.print(f"[dim]{HELP}[/]")
        self.show_new_events(observation)
        items = self.task.items(observation)
        while True:
            text = self.read(f"[{', '.join(observation.legal)}] > ")
            if text.strip() == "/help":
                self.console.print(HELP)
                continue
            try:
                return parse_command(text, observation, items)
            except (CommandError, ValueError) as error:
                self.console.print(f"[red]{error}[/]")

    def show_new_events(self, observation: Observation) -> None:
        for event in observation.transcript[self.shown :]:
            who = "you" if event.party == self.party else (event.party or "system")
            if isinstance(event, Message):
                self.console.print(f"[bold]{who}:[/] {event.text}")
            elif isinstance(event, SystemNote):
                self.console.print(f"[yellow]({event.name})[/]")
            else:
                detail = event.model_dump(exclude={"party", "time", "extra", "kind"})
                self.console.print(f"[cyan]{who}: {event.kind}[/] {detail if detail else ''}")
        self.shown = len(observation.transcript)
        for note in observation.feedback:
            self.console.print(f"[yellow]{note}[/]")

    def on_illegal(self, error: IllegalAction) -> None:
        self.console.print(f"[red]not allowed: {error.reason}[/]")

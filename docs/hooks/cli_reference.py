"""Build the command-line reference from the `duologue` command itself, at every docs build.

An mkdocs hook (`hooks:` in mkdocs.yml): `on_files` adds the page `reference/cli.md`, written from
the typer application's click commands (usage, help, and each argument's and
option's help record, defaults included, as `--help` prints them),
so a renamed command or option changes the page and a removed one cannot linger in it.
"""

from __future__ import annotations

import html
import re
from typing import Any

import typer
from mkdocs.structure.files import File, Files

PAGE = "reference/cli.md"


def _clean(text: str | None) -> str:
    """Help text as markdown: rich markup dropped, typer's paragraph breaks kept, pipes escaped."""
    text = re.sub(r"\[/?(?:bold|italic|dim|red|green|yellow|cyan|magenta|blue|b|i)\]", "", text or "")
    return text.replace("\b\n", "").strip()


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _param_row(param: Any, ctx: Any) -> str | None:
    """One table row from the help record `--help` prints: the names and the help with its default."""
    if getattr(param, "hidden", False) or param.name == "help":
        return None
    record = param.get_help_record(ctx)
    if record is None:  # an argument without help: its name alone
        record = ((param.metavar or param.name or "").upper(), "")
    names, help_text = record
    code = html.escape(" ".join(names.split())).replace("|", "&#124;")  # a pipe would split the table's cell
    return f"| <code>{code}</code> | {_cell(_clean(help_text))} |"


def _command_section(command: Any, ctx: Any, depth: int) -> list[str]:
    path = ctx.command_path
    lines = [f"{'#' * min(depth, 6)} `{path}`", ""]
    help_text = _clean(command.help)
    if help_text:
        lines += [help_text, ""]
    lines += ["```text", command.get_usage(ctx).strip(), "```", ""]
    rows = [row for row in (_param_row(p, ctx) for p in command.get_params(ctx)) if row]
    if rows:
        lines += ["| argument or option | what it does |", "|---|---|", *rows, ""]
    if hasattr(command, "list_commands"):  # a group (typer vendors its own click)
        for name in command.list_commands(ctx):
            sub = command.get_command(ctx, name)
            if sub is None or sub.hidden:
                continue
            lines += _command_section(sub, typer.Context(sub, info_name=name, parent=ctx), depth + 1)
    return lines


def cli_markdown() -> str:
    """The reference page: every command of `duologue`, in the order `--help` lists them."""
    from duologue.cli import app

    root = typer.main.get_command(app)
    ctx = typer.Context(root, info_name="duologue")
    head = [
        "# Command-line reference",
        "",
        "Written from the `duologue` command itself each time this site is built; "
        "`duologue COMMAND --help` shows the same in the terminal.",
        "",
    ]
    body = _command_section(root, ctx, 1)
    return "\n".join(head + body[body.index("```text"):]) + "\n"


def on_files(files: Files, config: Any) -> Files:
    files.append(File.generated(config, PAGE, content=cli_markdown()))
    return files

"""Agent specs as commands take them: one reader, so `play`, `tournament` and any later command
accept the same three ways of naming several agents."""

from __future__ import annotations

import json
from collections.abc import Iterable

AGENTS_FORMS = "comma-separated (-a rule,modular), repeated (-a rule -a modular) or space-separated (-a rule modular)"
"""The forms every `--agents` option accepts, for its help text."""

AGENT_LIST_COMMAND = {"allow_extra_args": True}
"""Context settings for a command with `--agents`: click gives an option one value, so in
`--agents rule modular` the second word reaches the command as an extra argument (`ctx.args`)."""


def split_agent_specs(values: Iterable[str], extra: Iterable[str] = ()) -> list[str]:
    """`["rule,modular", "random"]` plus extra words `["llm:local"]` -> rule, modular, random, llm:local.

    Order and repeats are kept (`rule,rule` seats the rule bot twice); blanks around and between
    commas are dropped. No spec contains a comma: an agent's argument follows a colon.
    """
    return [spec.strip() for value in [*values, *extra] for spec in value.split(",") if spec.strip()]


def parse_task_options(values: Iterable[str]) -> dict[str, object]:
    """`["max_turns=30", "contexts=ctx.txt", "bottomlines=true"]` -> options for `duologue.tasks.make`.

    Values are read as JSON where they parse (numbers, true/false, null, lists), else kept as text.
    Raises ValueError naming a value that is not `name=value`.
    """
    options: dict[str, object] = {}
    for value in values:
        name, sep, text = value.partition("=")
        if not sep or not name.strip():
            raise ValueError(f"--option {value!r}: write name=value, e.g. --option max_turns=30")
        try:
            options[name.strip()] = json.loads(text)
        except ValueError:
            options[name.strip()] = text
    return options

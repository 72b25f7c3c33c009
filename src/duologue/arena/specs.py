"""Agent specs as commands take them: one reader, so `play`, `tournament` and any later command
accept the same three ways of naming several agents."""

from __future__ import annotations

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

"""Consent and instructions as templates filled from the study, shown safely.

A consent or instructions text (a task's shipped `protocol/<name>.txt`, a file named by a `--study`
file, or a text written in the study itself: `consent: {text: "..."}`) may use placeholders in
braces. Their values come from the study's `consent` block, and `{pay}` and `{bonus}` also from its
`pay` block:

```
consent:
  researcher: Dr Ada Lovelace
  institution: University of Somewhere
  contact: ada@somewhere.ac.uk
  ethics_approval: ERC-2026-041
  duration: 15 minutes
  data_use: Anonymised dialogues may be shared with other researchers for research only.
  withdrawal: Write to the contact within 30 days, quoting your id, and we delete your data.
  more: {lab: Negotiation Lab}          # any other placeholder the text uses ({lab})
```

A study is checked before it is accepted: every placeholder its texts use must be known and have a
value, else the study is refused with the field named; a participant never sees a blank or a brace.
`{{` and `}}` stand for a brace itself.

The text is escaped and then given a little Markdown at most: blank lines part paragraphs, lines
that begin with `- ` are a list, `**bold**`, and `[words](https://...)` or `[words](mailto:...)`
links. Nothing a study writes becomes markup of its own.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from markupsafe import Markup, escape
from pydantic import BaseModel, ConfigDict, Field, field_validator

if TYPE_CHECKING:
    from duologue.web.study import Study

MAX_TEXT = 20_000
"""The longest consent or instructions text a study may write in itself (characters)."""
NAME = r"[a-z][a-z0-9_]*"
SLOT = re.compile(r"\{\{|\}\}|\{(" + NAME + r")\}")


class ConsentFields(BaseModel):
    """The values a study's consent and instructions texts fill in (see the module's text)."""

    model_config = ConfigDict(extra="forbid")

    researcher: str | None = None
    """The researcher responsible for the study, by name."""
    institution: str | None = None
    contact: str | None = None
    """How a participant reaches the researcher (an email address)."""
    ethics_approval: str | None = None
    """The ethics committee's approval (its name and reference number)."""
    duration: str | None = None
    """How long taking part takes, as it should read: `15 minutes`."""
    pay: str | None = None
    """What a person is paid, as it should read; default: the `pay` block's base and currency."""
    bonus: str | None = None
    """The bonus, as it should read; default: `up to <pay.max_bonus> <currency>`."""
    data_use: str | None = None
    """What is kept, who may see it, and for how long."""
    withdrawal: str | None = None
    """How a person withdraws, and until when their data can be deleted."""
    more: dict[str, str] = Field(default_factory=dict)
    """Any other placeholder the texts use, by name."""

    @field_validator("more")
    @classmethod
    def _names_a_text_can_use(cls, more: dict[str, str]) -> dict[str, str]:
        for name in more:
            if not re.fullmatch(NAME, name):
                raise ValueError(f"{name!r} cannot be a placeholder: use lower-case letters, digits and _, starting with a letter")
            if name in cls.model_fields:
                raise ValueError(f"{name!r} is a field of consent: itself; give it there")
        return more


def _money(amount: float, currency: str) -> str:
    return f"{amount:.2f} {currency}"


def _from_pay(study: "Study", name: str) -> str | None:
    pay = study.pay
    if pay is None:
        return None
    if name == "pay":
        return _money(pay.base, pay.currency) if pay.base > 0 else None
    return f"up to {_money(pay.max_bonus, pay.currency)}" if pay.max_bonus else None


DERIVED: dict[str, tuple[Callable[["Study", str], str | None], str]] = {
    "pay": (_from_pay, "pay.base"),
    "bonus": (_from_pay, "pay.max_bonus"),
}
"""Placeholders a study's other blocks can also fill: how, and the field that would."""
FIELDS = tuple(name for name in ConsentFields.model_fields if name != "more")


def values(study: "Study") -> dict[str, str]:
    """Every placeholder this study gives a value to (blank values count as none)."""
    given = study.consent or ConsentFields()
    found: dict[str, str] = {}
    for name in FIELDS:
        value = getattr(given, name)
        if value is None and name in DERIVED:
            derive, _ = DERIVED[name]
            value = derive(study, name)
        if value is not None and value.strip():
            found[name] = value.strip()
    found.update({name: value.strip() for name, value in given.more.items() if value.strip()})
    return found


def placeholders(text: str) -> list[str]:
    """The placeholder names a text uses, in order, each once."""
    return list(dict.fromkeys(name for name in (m.group(1) for m in SLOT.finditer(text)) if name))


def missing(study: "Study", text: str, where: str) -> list[str]:
    """`field: reason` for each placeholder of `text` the study gives no value (empty: all filled)."""
    have = values(study)
    problems = []
    for name in placeholders(text):
        if name in have:
            continue
        if name in FIELDS:
            also = f" (or {DERIVED[name][1]})" if name in DERIVED else ""
            problems.append(f"consent.{name}: {where} uses {{{name}}}, and the study gives it no value; write it under consent:{also}")
        else:
            known = ", ".join(FIELDS)
            problems.append(f"consent.more.{name}: {where} uses {{{name}}}, which is none of {known}; give its value under consent: more:")
    return problems


class UnfilledError(ValueError):
    """A text uses a placeholder its study gives no value (the study check refuses such a study)."""


def fill(text: str, given: dict[str, str]) -> str:
    """The text with each placeholder replaced by its value (`{{`/`}}` by a brace)."""

    def one(match: re.Match[str]) -> str:
        name = match.group(1)
        if name is None:
            return match.group(0)[0]
        if name not in given:
            raise UnfilledError(f"{{{name}}} has no value")
        return given[name]

    return SLOT.sub(one, text)


INLINE: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\*\*(\S(?:.*?\S)?)\*\*"), r"<strong>\1</strong>"),
    (re.compile(r"\[([^\]\n<>]+)\]\(((?:https?://|mailto:)[^\s()<>\"']+)\)"), r'<a href="\2" rel="noopener noreferrer" target="_blank">\1</a>'),
)
"""Markdown-light, applied to text already escaped (so a pattern can only add these tags)."""


def _inline(line: str) -> str:
    out = str(escape(line))
    for pattern, markup in INLINE:
        out = pattern.sub(markup, out)
    return out


def _block(paragraph: str) -> Markup:
    lines = [line.strip() for line in paragraph.splitlines() if line.strip()]
    if all(line.startswith("- ") for line in lines):
        items = "".join(f"<li>{_inline(line[2:].strip())}</li>" for line in lines)
        return Markup(f"<ul>{items}</ul>")
    return Markup(f"<p>{_inline(' '.join(lines))}</p>")


def render(text: str) -> list[Markup]:
    """The text's blocks as safe HTML: paragraphs and lists, escaped, with Markdown-light."""
    return [_block(part) for part in re.split(r"\n\s*\n", text.replace("\r\n", "\n")) if part.strip()]


def shown(study: "Study", text: str) -> list[Markup]:
    """A consent or instructions text as the participant sees it: filled, escaped, rendered."""
    return render(fill(text, values(study)))

"""Crowd-platform pay for a study: base pay, a bonus formula, waiting-room pay, completion
redirects, signed participant links, and Prolific's bulk-bonus CSV.

A study's `pay` block (all optional):

```
pay:
  currency: GBP
  base: 1.50                          # what the platform pays as the study's reward (not bonused)
  bonus: "0.05 * points"              # a formula over a dialogue's figures (below)
  max_bonus: 2.00
  completion_url: "https://app.prolific.com/submissions/complete?cc={code}"
  waiting_leave_after: 300            # the lobby offers a code after this many seconds with its socket open, unpaired
  waiting_pay_per_minute: 0.10        # bonus for time in the waiting room (a person never paired who left with a code)
  waiting_max_seconds: 1800           # waiting pays for at most this long
  min_messages: 2                     # fewer messages by the person: no code, no bonus
  left_pay_per_minute: 0.10           # a person whose partner left: pay for the dialogue's minutes (default: waiting_pay_per_minute)
```

Formula names: `points` (the person's score), `partner_points`, `agreed` (1 or 0), `messages` (the
person's messages), `seconds` (the dialogue's length), `waited` (seconds in the waiting room),
`partner_left` (1 when the person's partner left the dialogue, else 0). Only numbers, these names,
+ - * / ( ), `min`, `max` and `round` are allowed.

A person whose partner left (the dialogue ended as `partner_left`, or a bot took the partner's seat)
is never held to `min_messages`: they get a completion code, their formula bonus, and pay for the
dialogue's time at `left_pay_per_minute` (capped like waiting, by `waiting_max_seconds`).
"""

from __future__ import annotations

import ast
import csv
import hashlib
import hmac
import io
from dataclasses import dataclass
from typing import Any, Callable, Iterable

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from duologue.core.text import visible

FORMULA_NAMES = ("points", "partner_points", "agreed", "messages", "seconds", "waited", "partner_left")
LEAVE_NOTES = ("partner_left", "handover")
"""System notes that name (in `data.party`) a person who left a dialogue between two people."""
_FUNCTIONS: dict[str, Callable[..., float]] = {"min": min, "max": max, "round": lambda value, digits=0: round(value, int(digits))}
_OPERATORS: dict[type[ast.operator], Callable[[float, float], float]] = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b, ast.Div: lambda a, b: a / b if b else 0.0}


class FormulaError(ValueError):
    """A bonus formula that uses something other than numbers, the known names and + - * / min max round."""


def evaluate(formula: str, names: dict[str, float]) -> float:
    """The formula's value for these figures (a tiny arithmetic evaluator: no Python `eval`)."""
    try:
        tree = ast.parse(formula, mode="eval")
    except SyntaxError as error:
        raise FormulaError(f"{formula!r}: not a formula ({error.msg})") from None

    def walk(node: ast.AST) -> float:
        if isinstance(node, ast.Expression):
            return walk(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
            return float(node.value)
        if isinstance(node, ast.Name):
            if node.id not in FORMULA_NAMES:
                raise FormulaError(f"{formula!r}: unknown name {node.id!r}; known: {', '.join(FORMULA_NAMES)}")
            return float(names.get(node.id) or 0.0)
        if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
            return _OPERATORS[type(node.op)](walk(node.left), walk(node.right))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -walk(node.operand)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _FUNCTIONS and not node.keywords:
            try:
                return float(_FUNCTIONS[node.func.id](*[walk(a) for a in node.args]))
            except TypeError:
                raise FormulaError(f"{formula!r}: {node.func.id}() with {len(node.args)} argument(s)") from None
        raise FormulaError(f"{formula!r}: only numbers, {', '.join(FORMULA_NAMES)}, + - * / ( ), min, max and round are allowed")

    return walk(tree)


class Pay(BaseModel):
    """How a study pays (see the module docstring)."""

    model_config = ConfigDict(extra="forbid")

    currency: str = "GBP"
    base: float = Field(default=0.0, ge=0)
    bonus: str | None = None
    max_bonus: float | None = Field(default=None, ge=0)
    completion_url: str | None = None
    """Where the code page sends a person on (`{code}` is replaced by the completion code)."""
    waiting_leave_after: float | None = Field(default=None, gt=0)
    waiting_pay_per_minute: float = Field(default=0.0, ge=0)
    waiting_max_seconds: float = Field(default=1800.0, gt=0, allow_inf_nan=False)
    """Waiting pays for at most this long (`duologue.web.waiting`): a lobby left open all night is not a night's pay."""
    min_messages: int = Field(default=0, ge=0)
    left_pay_per_minute: float | None = Field(default=None, ge=0, allow_inf_nan=False)
    """Pay per minute of the dialogue for a person whose partner left (None = `waiting_pay_per_minute`)."""
    link_secret: str | None = None
    """When set, only links signed with it (`duologue study links`) are let in."""

    @field_validator("bonus")
    @classmethod
    def _formula_parses(cls, formula: str | None) -> str | None:
        if formula is not None:
            evaluate(formula, {})
        return formula

    def bonus_for(self, figures: dict[str, float]) -> float:
        """The bonus for one dialogue (0 below `min_messages`), capped by `max_bonus`, in cents' precision."""
        if figures.get("messages", 0) < self.min_messages and not figures.get("partner_left"):
            return 0.0
        amount = max(0.0, evaluate(self.bonus, figures)) if self.bonus else 0.0
        if self.max_bonus is not None:
            amount = min(amount, self.max_bonus)
        return round(amount, 2)

    @model_validator(mode="after")
    def _waiting_fits_its_cap(self) -> "Pay":
        if self.waiting_leave_after is not None and self.waiting_leave_after > self.waiting_max_seconds:
            raise ValueError(f"waiting_leave_after ({self.waiting_leave_after:g} s) is longer than waiting_max_seconds ({self.waiting_max_seconds:g} s)")
        return self

    def waiting_bonus(self, waited: float) -> float:
        return round(self.waiting_pay_per_minute * min(waited, self.waiting_max_seconds) / 60.0, 2)

    def left_bonus(self, seconds: float) -> float:
        """Pay for the time of a person whose partner left, capped by `waiting_max_seconds`."""
        rate = self.left_pay_per_minute if self.left_pay_per_minute is not None else self.waiting_pay_per_minute
        return round(rate * min(seconds, self.waiting_max_seconds) / 60.0, 2)

    def redirect(self, code: str) -> str | None:
        return self.completion_url.replace("{code}", code) if self.completion_url else None


# --------------------------------------------------------------------------- links


def link_signature(secret: str, study_id: str, participant_id: str) -> str:
    return hmac.new(secret.encode(), f"link|{study_id}|{participant_id}".encode(), hashlib.sha256).hexdigest()[:24]


def signed_link(base_url: str, secret: str, study_id: str, participant_id: str) -> str:
    return f"{base_url.rstrip('/')}/study/{study_id}?participant={participant_id}&sig={link_signature(secret, study_id, participant_id)}"


def link_ok(secret: str, study_id: str, participant_id: str, signature: str | None) -> bool:
    """Whether `signature` signs this participant's link (compared as bytes: a signature in any script is just wrong)."""
    expected = link_signature(secret, study_id, participant_id).encode()
    return signature is not None and hmac.compare_digest(expected, signature.encode("utf-8", "replace"))


# --------------------------------------------------------------------------- payments


@dataclass
class Payment:
    participant_id: str
    amount: float
    why: str


def left_party(dialogue: Any) -> str | None:
    """The party who left a dialogue between two people (the end was theirs), or None."""
    for event in getattr(dialogue, "events", None) or []:
        if event.kind == "system" and getattr(event, "name", None) in LEAVE_NOTES:
            party = (getattr(event, "data", None) or {}).get("party")
            if isinstance(party, str):
                return party
    return None


def partner_left(dialogue: Any, party_id: str) -> bool:
    """Whether `party_id`'s partner left the dialogue (so its end was not theirs)."""
    left = left_party(dialogue)
    return left is not None and left != party_id


def figures_of(dialogue: Any, party_id: str) -> dict[str, float]:
    """A dialogue's figures for one party, the names a bonus formula may use."""
    outcome = dialogue.outcome
    scores = outcome.scores if outcome else {}
    partner = next((p.id for p in dialogue.parties if p.id != party_id), None)
    times = [e.time for e in dialogue.events if getattr(e, "time", None) is not None]
    return {
        "points": float(scores.get(party_id) or 0.0),
        "partner_points": float(scores.get(partner) or 0.0) if partner else 0.0,
        "agreed": 1.0 if outcome is not None and outcome.agreed else 0.0,
        "messages": float(sum(1 for e in dialogue.events if e.kind == "message" and e.party == party_id and visible(getattr(e, "text", "")))),
        "seconds": float(max(times) - min(times)) if times else 0.0,
        "partner_left": 1.0 if partner_left(dialogue, party_id) else 0.0,
    }


def too_short(pay: Pay | None, dialogue: Any, party_id: str) -> str | None:
    """Why this party's dialogue earns no completion code (fewer messages of theirs than the
    study's `min_messages`), or None."""
    if pay is None or not pay.min_messages or dialogue is None or partner_left(dialogue, party_id):
        return None
    written = int(figures_of(dialogue, party_id)["messages"])
    if written >= pay.min_messages:
        return None
    return f"This dialogue ended after {written} message(s) of yours; the study asks for at least {pay.min_messages} to earn a completion code."


def set_aside(pay: Pay | None, dialogue: Any) -> str | None:
    """Why a finished dialogue is too short to count toward quotas or go to raters, or None: no
    message at all (someone left before anyone typed), or a person below the study's `min_messages`."""
    if not any(e.kind == "message" for e in dialogue.events):
        return "no messages"
    if pay is None or not pay.min_messages:
        return None
    for party in dialogue.parties:
        if party.kind == "human":
            written = int(figures_of(dialogue, party.id)["messages"])
            if written < pay.min_messages:
                return f"{party.id} wrote {written} message(s), fewer than min_messages {pay.min_messages}"
    return None


def dialogue_bonus(pay: Pay, dialogue: Any, party_id: str) -> tuple[float, str]:
    """One party's bonus for one dialogue and what it is for: the formula's, plus pay for the
    dialogue's time when their partner left it."""
    figures = figures_of(dialogue, party_id)
    amount = pay.bonus_for(figures)
    if not figures["partner_left"]:
        return amount, dialogue.id
    return round(amount + pay.left_bonus(figures["seconds"]), 2), f"{dialogue.id} (partner left after {figures['seconds']:.0f}s)"


def payments(pay: Pay, dialogues: Iterable[Any], waiting: Iterable[tuple[str, float]] = ()) -> list[Payment]:
    """Bonuses per participant: each finished dialogue's formula bonus, plus pay for waiting-room
    time (capped) of those who left with a code and played no dialogue here (never both). Zero
    amounts are left out."""
    totals: dict[str, list[float | str]] = {}
    for dialogue in dialogues:
        for party in dialogue.parties:
            if party.kind != "human" or not party.participant_id:
                continue
            amount, why = dialogue_bonus(pay, dialogue, party.id)
            entry = totals.setdefault(party.participant_id, [0.0, ""])
            entry[0] = float(entry[0]) + amount
            entry[1] = f"{entry[1]} {why}".strip()
    for participant, waited in waiting:
        if participant in totals:
            continue
        entry = totals.setdefault(participant, [0.0, ""])
        entry[0] = float(entry[0]) + pay.waiting_bonus(waited)
        entry[1] = f"{entry[1]} waited {min(waited, pay.waiting_max_seconds):.0f}s".strip()
    return [Payment(p, round(float(a), 2), str(w)) for p, (a, w) in sorted(totals.items()) if round(float(a), 2) > 0]


def bulk_bonus_csv(rows: list[Payment]) -> str:
    """Prolific's bulk-bonus shape: one `participant_id,amount` line each, no header."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    for row in rows:
        writer.writerow([row.participant_id, f"{row.amount:.2f}"])
    return out.getvalue()

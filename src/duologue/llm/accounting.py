"""What LLM calls cost: tokens and wall time per call, and running totals.

Kept apart from the HTTP client so agents and reports can use these types without httpx.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Completion:
    """One finished call: the text and what it cost."""

    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0
    attempts: int = 1
    finish_reason: str | None = None
    model: str | None = None
    chunks: int = 0
    """Streamed chunks that carried text (0 when not streaming)."""


@dataclass
class Usage:
    """Running totals over many calls (per client, per agent)."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0
    retries: int = 0
    failures: int = 0
    """Calls that ended in an exception after all retries."""

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    @property
    def mean_seconds(self) -> float | None:
        return self.seconds / self.calls if self.calls else None

    def add(self, completion: Completion) -> None:
        self.calls += 1
        self.prompt_tokens += completion.prompt_tokens
        self.completion_tokens += completion.completion_tokens
        self.seconds += completion.seconds
        self.retries += completion.attempts - 1

    def as_dict(self) -> dict[str, float | int | None]:
        return {
            "calls": self.calls,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "total_tokens": self.total_tokens,
            "seconds": round(self.seconds, 4),
            "mean_seconds": None if self.mean_seconds is None else round(self.mean_seconds, 4),
            "retries": self.retries,
            "failures": self.failures,
        }

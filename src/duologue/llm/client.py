"""A small client for OpenAI-compatible chat completions (OpenAI, llama.cpp, vLLM, Ollama, ...).

Built on httpx so the `openai` package stays optional. What it adds over a bare POST:

* one retry policy: connection errors, 429 and 5xx are retried with exponential backoff and
  jitter (a `Retry-After` header is honoured, up to the policy's longest delay); other 4xx are
  the caller's mistake and fail at once;
* accounting: prompt and completion tokens (from the response's `usage`) and wall time per call,
  with running totals in `ChatClient.usage`;
* structured output: a JSON schema sent as `response_format: {"type": "json_schema", ...}`;
* streaming over server-sent events with a callback per text chunk, falling back to one chunk when
  the endpoint answers a stream request with a plain JSON body;
* clear exceptions (`LLMConfigError`, `LLMConnectionError`, `LLMHTTPError`, `LLMResponseError`)
  instead of transport tracebacks;
* bounds: a reply body is read within the timeout in all and up to `max_body_bytes` (decoded;
  a `Content-Length` above it is refused before reading), so an endpoint that sends without end
  costs neither the time nor the memory of the process;
* clean text: the reply's text (and each streamed chunk) is made safe to store and send
  (`duologue.llm.replies.clean_text`), with a warning when something had to be changed.
"""

from __future__ import annotations

import codecs
import json
import logging
import math
import random
import time
import zlib
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

import httpx

from duologue.llm.accounting import Completion, Usage
from duologue.llm.replies import CleanChunks, clean_text, clean_value
from duologue.llm.settings import DEFAULT_MAX_REPLY_BYTES, Endpoint, LLMConfigError, LLMError, LLMSettings

log = logging.getLogger(__name__)

Message = dict[str, Any]
"""A chat message: `{"role": "system" | "user" | "assistant", "content": "..."}`."""


class LLMConnectionError(LLMError):
    """The endpoint could not be reached (or kept failing) after every retry."""


class LLMHTTPError(LLMError):
    """The endpoint answered with an error status; `status` and the server's own message are kept."""

    def __init__(self, message: str, status: int, body: str = ""):
        super().__init__(message)
        self.status = status
        self.body = body

    def __reduce__(self) -> tuple[Any, ...]:  # crosses to the parent process of a worker pool intact
        return (type(self), (str(self), self.status, self.body))


class LLMResponseError(LLMError):
    """The endpoint answered 200 with something that is not a chat completion."""


class LLMReplyTooLarge(LLMResponseError):
    """The endpoint sent a body larger than the client reads (`max_body_bytes`); reading stopped there."""


# --------------------------------------------------------------------------- retries


@dataclass
class RetryPolicy:
    """Exponential backoff with jitter for transient failures.

    Retry n (0-based) waits a random time in [d/2, d] where d = min(backoff_max, backoff * 2**n):
    the doubling spaces retries out, the jitter keeps many clients from retrying in lockstep.
    """

    max_retries: int = 3
    backoff: float = 0.5
    backoff_max: float = 20.0
    rng: random.Random = field(default_factory=random.Random)

    @staticmethod
    def retryable_status(status: int) -> bool:
        """429 (rate limited) and 5xx (server trouble) may pass; other 4xx will not."""
        return status == 429 or status >= 500

    def delay(self, retry: int, retry_after: float | None = None) -> float:
        """Seconds to wait before retry number `retry` (0-based)."""
        if retry_after is not None:
            return min(max(retry_after, 0.0), self.backoff_max)
        ceiling: float = min(self.backoff_max, self.backoff * (2**retry))  # int ** int is typed Any (a negative power is a float)
        return ceiling / 2 + self.rng.uniform(0, ceiling / 2)


def _retry_after(response: httpx.Response) -> float | None:
    value = response.headers.get("retry-after")
    try:
        seconds = float(value) if value is not None else None
    except ValueError:
        return None  # an HTTP date: rare from LLM endpoints; fall back to our own backoff
    return seconds if seconds is not None and math.isfinite(seconds) else None  # "nan", "inf": our own backoff


# --------------------------------------------------------------------------- client


def check_base_url(base_url: str) -> httpx.URL:
    """The base URL parsed, or `LLMConfigError` saying what is wrong with it."""
    hint = "write the endpoint's base URL, e.g. http://127.0.0.1:8080/v1 or https://api.openai.com/v1"
    try:
        url = httpx.URL(base_url)
    except (httpx.InvalidURL, TypeError) as error:
        raise LLMConfigError(f"base URL {base_url!r} is not a URL ({error}); {hint}") from None
    if url.scheme not in ("http", "https") or not url.host:
        raise LLMConfigError(f"base URL {base_url!r} is not an http(s) URL with a host; {hint}")
    return url


class ChatClient:
    """Chat completions against one endpoint and model, with retries and accounting.

    `transport` (an httpx transport) and `sleep` are injectable so tests can fake the network and
    the clock.
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        timeout: float = 60.0,
        retry: RetryPolicy | None = None,
        strict_schema: bool = False,
        extra_body: dict[str, Any] | None = None,
        transport: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] = time.sleep,
        max_body_bytes: int = DEFAULT_MAX_REPLY_BYTES,
    ) -> None:
        self.base_url = str(check_base_url(base_url)).rstrip("/")
        self.model = model
        self.retry = retry or RetryPolicy()
        self.strict_schema = strict_schema
        self.extra_body = dict(extra_body or {})
        self.sleep = sleep
        self.usage = Usage()
        headers = {"Content-Type": "application/json"}
        if api_key:
            headers["Authorization"] = f"Bearer {api_key}"
        password = httpx.URL(self.base_url).password
        self._secrets = tuple(secret for secret in (api_key, password) if secret)
        self._address = f"{self.base_url}/chat/completions"
        self.timeout = timeout
        self.max_body_bytes = max_body_bytes
        self._http = httpx.Client(timeout=timeout, headers=headers, transport=transport)

    @classmethod
    def from_endpoint(cls, endpoint: Endpoint, settings: LLMSettings | None = None, **options: Any) -> "ChatClient":
        """A client for a resolved endpoint, with timeouts and retries from the settings."""
        settings = settings or LLMSettings()
        if endpoint.base_url is None:
            raise LLMConfigError("this endpoint is the managed local server; start it first (duologue.llm.server.shared_local_server)")
        retry = RetryPolicy(settings.max_retries, settings.backoff, settings.backoff_max)
        options = {"timeout": settings.timeout, "max_body_bytes": settings.max_reply_bytes, "retry": retry, "strict_schema": settings.strict_schema, "extra_body": settings.extra_body, **options}
        return cls(endpoint.base_url, endpoint.model, api_key=endpoint.api_key, **options)

    @property
    def url(self) -> str:
        """The chat-completions URL as messages show it: a password in the base URL is masked."""
        return redact(self._address, self._secrets)

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> "ChatClient":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ requests

    def request_body(
        self,
        messages: list[Message],
        *,
        max_tokens: int | None = None,
        temperature: float | None = None,
        json_schema: dict[str, Any] | None = None,
        schema_name: str = "reply",
        stream: bool = False,
        seed: int | None = None,
        extra: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """The JSON body of one chat-completions request."""
        body: dict[str, Any] = {"model": self.model, "messages": messages}
        if max_tokens is not None:
            body["max_tokens"] = max_tokens
        if temperature is not None:
            body["temperature"] = temperature
        if seed is not None:
            body["seed"] = seed
        if json_schema is not None:
            body["response_format"] = {"type": "json_schema", "json_schema": {"name": schema_name, "schema": json_schema, "strict": self.strict_schema}}
        if stream:
            body["stream"] = True
            body["stream_options"] = {"include_usage": True}
        body.update(self.extra_body)
        body.update(extra or {})
        return body

    def complete(
        self,
        messages: list[Message],
        *,
        max_tokens: int | None = None,
        temperature: float | None = None,
        json_schema: dict[str, Any] | None = None,
        schema_name: str = "reply",
        stream: bool = False,
        on_chunk: Callable[[str], None] | None = None,
        seed: int | None = None,
        extra: dict[str, Any] | None = None,
    ) -> Completion:
        """One chat completion. With `stream` (or an `on_chunk` callback), text arrives chunk by chunk."""
        stream = stream or on_chunk is not None
        body = self.request_body(
            messages, max_tokens=max_tokens, temperature=temperature, json_schema=json_schema, schema_name=schema_name, stream=stream, seed=seed, extra=extra
        )
        started = time.perf_counter()
        try:
            completion = self._with_retries(body, stream, on_chunk)
        except LLMError:
            self.usage.failures += 1
            raise
        completion.seconds = time.perf_counter() - started
        self.usage.add(completion)
        return completion

    def complete_json(self, messages: list[Message], json_schema: dict[str, Any], **options: Any) -> tuple[Any, Completion]:
        """A completion constrained by `json_schema`, parsed (its strings cleaned: JSON's escapes can
        spell what `clean_text` removes). Raises `LLMResponseError` when the text is not JSON."""
        completion = self.complete(messages, json_schema=json_schema, **options)
        try:
            data = json.loads(completion.text)
        except json.JSONDecodeError as error:
            raise LLMResponseError(f"the model's reply is not JSON ({error}): {completion.text[:200]!r}") from None
        changed: list[str] = []
        data = clean_value(data, changed)
        if changed:
            log.warning("%s: the JSON reply was cleaned: %s", self.url, "; ".join(dict.fromkeys(changed)))
        return data, completion

    # ------------------------------------------------------------------ internals

    def _with_retries(self, body: dict[str, Any], stream: bool, on_chunk: Callable[[str], None] | None) -> Completion:
        attempts = self.retry.max_retries + 1
        for attempt in range(attempts):
            last = attempt == attempts - 1
            try:
                completion = self._stream(body, on_chunk) if stream else self._post(body)
                completion.text = self._clean(completion.text)
                completion.attempts = attempt + 1
                return completion
            except _Transient as transient:
                if last:
                    raise LLMConnectionError(f"{transient.describe(self.url)}; gave up after {attempts} attempt(s)") from None
                delay = self.retry.delay(attempt, transient.retry_after)
                log.warning("%s; retry %d of %d in %.2fs", transient.describe(self.url), attempt + 1, attempts - 1, delay)
                self.sleep(delay)
        raise AssertionError("unreachable")  # pragma: no cover

    def _clean(self, text: str) -> str:
        cleaned, changed = clean_text(text)
        if changed:
            log.warning("%s: the reply's text was cleaned: %s", self.url, "; ".join(changed))
        return cleaned

    def _send(self, body: dict[str, Any], stream: bool) -> httpx.Response:
        """Send, turning transport failures into `_Transient` (retry) or `LLMConfigError` (give up)."""
        try:
            request = self._http.build_request("POST", self._address, json=body)
            response = self._http.send(request, stream=True)
            if not stream or response.status_code >= 400:
                response = _read_within(response, self.timeout, self.max_body_bytes, self.url)
        except (httpx.UnsupportedProtocol, httpx.InvalidURL) as error:
            raise LLMConfigError(f"cannot send to {self.url}: {error}") from None
        except httpx.TransportError as error:
            raise _Transient(error=error) from None
        if response.status_code >= 400:
            if self.retry.retryable_status(response.status_code):
                raise _Transient(status=response.status_code, body=redact(response.text, self._secrets), retry_after=_retry_after(response))
            raise _http_error(self.url, response, self._secrets)
        return response

    def _post(self, body: dict[str, Any]) -> Completion:
        response = self._send(body, stream=False)
        return _parse_completion(_json(response), self.url)

    def _stream(self, body: dict[str, Any], on_chunk: Callable[[str], None] | None) -> Completion:
        response = self._send(body, stream=True)
        delivered = 0
        try:
            if "text/event-stream" not in response.headers.get("content-type", ""):
                # An endpoint that does not stream: one JSON body, delivered as a single chunk.
                whole = _read_within(response, self.timeout, self.max_body_bytes, self.url)
                completion = _parse_completion(_json(whole), self.url)
                completion.text = self._clean(completion.text)
                if on_chunk is not None and completion.text:
                    on_chunk(completion.text)
                completion.chunks = 1 if completion.text else 0
                return completion

            def counted(text: str) -> None:
                nonlocal delivered
                delivered += 1
                if on_chunk is not None:
                    on_chunk(text)

            clean = CleanChunks(counted)
            completion = _read_events(_sse_data(_lines(_bounded(response, self.max_body_bytes, self.url))), clean)
            clean.flush()
            return completion
        except httpx.TransportError as error:
            if delivered:
                # The caller has seen part of the text: a silent retry would show it twice.
                raise LLMConnectionError(f"the stream from {self.url} broke after {delivered} chunk(s): {error}") from None
            raise _Transient(error=error) from None
        finally:
            response.close()


class _Transient(Exception):
    """A failure worth retrying (internal: callers see `LLMConnectionError` once retries run out)."""

    def __init__(self, error: Exception | None = None, status: int | None = None, body: str = "", retry_after: float | None = None):
        self.error = error
        self.status = status
        self.body = body
        self.retry_after = retry_after

    def describe(self, url: str) -> str:
        if self.status is not None:
            return f"{url} answered {self.status}: {_server_message(self.body)}"
        reason = type(self.error).__name__ if self.error is not None else "error"
        detail = str(self.error) or reason
        if isinstance(self.error, httpx.TimeoutException):
            return f"{url} did not answer in time ({detail}; DUOLOGUE_LLM_TIMEOUT sets the seconds per request)"
        hint = " (is the server running? `duologue llm serve` starts a local one)" if isinstance(self.error, httpx.ConnectError) else ""
        return f"cannot reach {url}: {detail}{hint}"


def _server_message(body: str) -> str:
    """The `error.message` of an OpenAI-style error body, else the body's start."""
    try:
        data = json.loads(body)
    except (json.JSONDecodeError, TypeError):
        return body[:300] or "(empty body)"
    error = data.get("error") if isinstance(data, dict) else None
    if isinstance(error, dict) and error.get("message"):
        return str(error["message"])
    if isinstance(error, str):
        return error
    return body[:300]


def _http_error(url: str, response: httpx.Response, secrets: tuple[str, ...] = ()) -> LLMHTTPError:
    status = response.status_code
    message = redact(_server_message(response.text), secrets)  # a server may echo the key it was sent
    if status == 401:
        advice = "the endpoint refused the API key (set DUOLOGUE_LLM_API_KEY, or the provider's own variable such as OPENAI_API_KEY)"
    elif status == 403:
        advice = "the API key may not use this model or endpoint"
    elif status == 404:
        advice = "no chat-completions route there, or no such model: check the base URL (it usually ends in /v1) and the model name"
    else:
        advice = "the endpoint refused the request"
    return LLMHTTPError(f"{url} answered {status}: {message} ({advice})", status, redact(response.text, secrets))


def redact(text: str, secrets: tuple[str, ...]) -> str:
    """`text` with each secret (an API key, a password in the base URL) masked."""
    for secret in secrets:
        text = text.replace(secret, "****")
    return text


def _too_large(url: str, limit: int, what: str) -> LLMReplyTooLarge:
    return LLMReplyTooLarge(
        f"{url} sent {what} {limit:,} bytes in one reply (a chat completion is a few kB); stopped reading there "
        "(DUOLOGUE_LLM_MAX_REPLY_BYTES sets the limit)"
    )


def _bounded(response: httpx.Response, limit: int, url: str) -> Iterator[bytes]:
    """The response's body, decoded, chunk by chunk, until more than `limit` bytes (decoded, or as
    sent: a compressed body counts both ways) have come; then `LLMReplyTooLarge`. A `Content-Length`
    above the limit is refused before anything is read."""
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise _too_large(url, limit, f"a body of {int(declared):,} bytes (Content-Length), more than")
    received = 0
    for chunk in _decoded(response, limit):
        received += len(chunk)
        if received > limit or response.num_bytes_downloaded > limit:
            raise _too_large(url, limit, "more than")
        yield chunk


def _decoded(response: httpx.Response, limit: int) -> Iterator[bytes]:
    """The body decoded piece by piece, no piece longer than `limit` + 1 bytes: a gzip or deflate body
    is inflated here with a bound (httpx inflates a whole network read at once, and one read of a
    compressed bomb can grow a thousandfold before anything is counted); other encodings as httpx
    decodes them."""
    encoding = response.headers.get("content-encoding", "").strip().lower()
    if response.is_stream_consumed or encoding not in ("gzip", "x-gzip", "deflate"):  # read already (in memory), or not ours to inflate
        yield from response.iter_bytes()
        return
    inflater = zlib.decompressobj(wbits=47)  # gzip or zlib framing, told apart by the header
    try:
        for raw in response.iter_raw(16_384):
            data = raw
            while data:
                piece = inflater.decompress(data, limit + 1)
                if piece:
                    yield piece
                data = inflater.unconsumed_tail
        yield inflater.flush()
    except zlib.error as error:
        raise httpx.DecodingError(f"the body is not valid {encoding}: {error}", request=response.request) from None


def _lines(chunks: Iterator[bytes]) -> Iterator[str]:
    """Text lines of a UTF-8 byte stream (`\\n`, `\\r\\n` or `\\r` ends one), as httpx's `iter_lines`
    gives them; a line is never longer than what `chunks` yields in all, which `_bounded` caps."""
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    partial: list[str] = []
    carriage = False  # the last chunk ended in "\r": a "\n" starting the next one ends no second line
    for chunk in chunks:
        text = decoder.decode(chunk)
        if not text:
            continue
        if carriage and text.startswith("\n"):
            text = text[1:]
        carriage = text.endswith("\r")
        parts = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
        for part in parts[:-1]:
            partial.append(part)
            yield "".join(partial)
            partial = []
        partial.append(parts[-1])
    tail = "".join(partial) + decoder.decode(b"", final=True)
    if tail:
        yield tail


def _read_within(response: httpx.Response, seconds: float, limit: int = DEFAULT_MAX_REPLY_BYTES, url: str = "the endpoint") -> httpx.Response:
    """The response with its whole body, read within `seconds` in all (httpx's timeout is per read,
    so an endpoint that trickles a byte at a time would otherwise hold a request open without end)
    and up to `limit` bytes (`_bounded`)."""
    deadline = time.monotonic() + seconds
    chunks = []
    try:
        for chunk in _bounded(response, limit, url):
            chunks.append(chunk)
            if time.monotonic() > deadline:
                raise httpx.ReadTimeout(f"the answer took more than {seconds:g} s in all", request=response.request)
    finally:
        response.close()
    headers = [(k, v) for k, v in response.headers.items() if k.lower() not in ("content-encoding", "content-length", "transfer-encoding")]  # the body is decoded now
    return httpx.Response(response.status_code, headers=headers, content=b"".join(chunks), request=response.request)


def _json(response: httpx.Response) -> Any:
    try:
        return response.json()
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise LLMResponseError(f"{response.request.url} answered {response.status_code} with a body that is not JSON: {response.text[:200]!r}") from None


def _usage_of(data: dict[str, Any]) -> tuple[int, int]:
    """Token counts as the endpoint reports them; counts it writes oddly are 0 (they only feed accounting)."""
    usage = data.get("usage")
    if not isinstance(usage, dict):
        return 0, 0

    def count(name: str) -> int:
        value = usage.get(name)
        return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value >= 0 else 0

    return count("prompt_tokens"), count("completion_tokens")


def _content_text(content: Any) -> str | None:
    """A message's text: a string, or the text parts of a list of parts (as some servers send); None otherwise."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list) and all(isinstance(part, dict) for part in content):
        return "".join(str(part.get("text", "")) for part in content if part.get("type", "text") == "text")
    return None


def _parse_completion(data: Any, url: str = "the endpoint") -> Completion:
    try:
        choice = data["choices"][0]
        text = _content_text(choice["message"].get("content"))
    except (KeyError, IndexError, TypeError, AttributeError):
        raise LLMResponseError(f"{url} answered with something that is not a chat completion (no choices[0].message): {json.dumps(data)[:300]}") from None
    if text is None:
        raise LLMResponseError(f"{url} answered with message content that is not text: {json.dumps(choice['message'].get('content'))[:300]}")
    prompt_tokens, completion_tokens = _usage_of(data)
    return Completion(text=text, prompt_tokens=prompt_tokens, completion_tokens=completion_tokens, finish_reason=choice.get("finish_reason"), model=data.get("model"))


def _sse_data(source: Iterator[str]) -> Iterator[str]:
    """The `data:` payloads of a server-sent event stream (its lines), one per event."""
    lines: list[str] = []
    for line in source:
        if not line:
            if lines:
                yield "\n".join(lines)
                lines = []
            continue
        if line.startswith("data:"):
            lines.append(line[5:].lstrip(" "))
    if lines:
        yield "\n".join(lines)


def _read_events(payloads: Iterator[str], on_chunk: Callable[[str], None] | None) -> Completion:
    parts: list[str] = []
    completion = Completion(text="")
    for payload in payloads:
        if payload.strip() == "[DONE]":
            break
        try:
            event = json.loads(payload)
        except json.JSONDecodeError:
            raise LLMResponseError(f"a streamed event is not JSON: {payload[:200]!r}") from None
        if not isinstance(event, dict):
            raise LLMResponseError(f"a streamed event is not a JSON object: {payload[:200]!r}")
        if "error" in event:
            raise LLMResponseError(f"the stream ended with an error: {_server_message(payload)}")
        if event.get("usage"):
            completion.prompt_tokens, completion.completion_tokens = _usage_of(event)
        completion.model = event.get("model") or completion.model
        for choice in event.get("choices") or []:
            text = (choice.get("delta") or {}).get("content")
            if text:
                parts.append(text)
                completion.chunks += 1
                if on_chunk is not None:
                    on_chunk(text)
            if choice.get("finish_reason"):
                completion.finish_reason = choice["finish_reason"]
    completion.text = "".join(parts)
    return completion

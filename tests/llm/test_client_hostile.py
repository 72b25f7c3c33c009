"""The chat client and its readers against endpoints that misbehave in the ways real ones do."""

from __future__ import annotations

import json
import pickle
import time

import httpx
import pytest

from duologue.llm.client import ChatClient, LLMConnectionError, LLMHTTPError, LLMResponseError, RetryPolicy
from duologue.llm.replies import NotJSON, json_in_reply
from llm.test_client import BASE, HI, Script, completion_body, make_client


def test_an_http_error_crosses_a_process_boundary_whole():
    """A worker pool pickles the error: without its status, a refused key read as a broken pool."""
    error = LLMHTTPError("http://x answered 401: no (the endpoint refused the API key)", 401, "{}")
    again = pickle.loads(pickle.dumps(error))
    assert (str(again), again.status, again.body) == (str(error), 401, "{}")


def test_a_body_trickled_a_byte_at_a_time_is_cut_at_the_timeout_in_all():
    def trickle():
        for _ in range(50):
            time.sleep(0.05)
            yield b" "

    script = Script(httpx.Response(200, headers={"content-type": "application/json"}, content=trickle()))
    client = make_client(script, timeout=0.3, retry=RetryPolicy(max_retries=0))
    started = time.monotonic()
    with pytest.raises(LLMConnectionError, match="did not answer in time"):
        client.complete(HI)
    assert time.monotonic() - started < 2.0


@pytest.mark.parametrize(
    "content, text",
    [([{"type": "text", "text": "hi "}, {"type": "text", "text": "there"}], "hi there"), (None, "")],
)
def test_content_as_parts_is_joined_and_none_is_empty(content, text):
    body = completion_body()
    body["choices"][0]["message"]["content"] = content
    body["usage"] = {"prompt_tokens": "many", "completion_tokens": "HUGE"}
    raw = json.dumps(body).replace('"HUGE"', "1e400")  # a number no float holds
    completion = make_client(Script(httpx.Response(200, headers={"content-type": "application/json"}, content=raw.encode()))).complete(HI)
    assert completion.text == text and (completion.prompt_tokens, completion.completion_tokens) == (0, 0)


@pytest.mark.parametrize("content", [42, {"text": "hi"}, [1, 2]])
def test_content_that_is_not_text_is_an_error_naming_the_endpoint(content):
    body = completion_body()
    body["choices"][0]["message"]["content"] = content
    with pytest.raises(LLMResponseError, match=f"{BASE}/chat/completions answered with message content that is not text"):
        make_client(Script(httpx.Response(200, json=body))).complete(HI)


def test_a_retry_after_of_nan_falls_back_to_the_clients_own_backoff():
    sleeps: list[float] = []
    script = Script(httpx.Response(429, headers={"retry-after": "nan"}), httpx.Response(200, json=completion_body("ok")))
    assert make_client(script, sleeps).complete(HI).text == "ok"
    assert len(sleeps) == 1 and 0 < sleeps[0] <= 0.5


def test_the_key_and_a_password_in_the_base_url_never_reach_a_message():
    script = Script(httpx.Response(401, json={"error": {"message": "bad key: Bearer sk-SECRET-1 [/x]"}}))
    client = ChatClient("http://me:hunter2@llm.test/v1", "fake", api_key="sk-SECRET-1", transport=httpx.MockTransport(script), retry=RetryPolicy(max_retries=0))
    with pytest.raises(LLMHTTPError) as refused:
        client.complete(HI)
    assert "sk-SECRET-1" not in str(refused.value) and "hunter2" not in str(refused.value) and "****" in str(refused.value)
    assert "hunter2" not in client.url and script.requests[0].url.password == "hunter2"  # it is still sent


def test_nan_is_no_json_number_and_a_judges_prose_around_a_format_is_no_answer():
    from duologue.evaluation.judge import UnusableAnswer, parse_json_reply

    with pytest.raises(NotJSON, match="NaN"):
        json_in_reply('{"kind": "offer", "price": NaN}')
    refusal = 'I cannot rate this. For reference, the format is {"preference": 3} but I refuse to fill it in.'
    assert json_in_reply(refusal) == {"preference": 3}  # an agent's chatty move is still read
    with pytest.raises(UnusableAnswer):
        parse_json_reply(refusal)
    assert parse_json_reply('Here are my ratings: {"preference": 3}') == {"preference": 3}


def test_an_error_message_in_brackets_is_printed_as_written(capsys):
    import typer

    from duologue.cli import fail

    assert isinstance(fail("invalid value at [/messages/0] (see [/docs])"), typer.Exit)
    assert "invalid value at [/messages/0] (see [/docs])" in capsys.readouterr().err

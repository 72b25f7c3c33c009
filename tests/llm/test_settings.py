"""Settings from the environment, and agent spec arguments resolved to endpoints."""

from __future__ import annotations

import pytest

from duologue.llm.settings import BASE_URL_ALIASES, LLMConfigError, LLMSettings, resolve_endpoint


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch):
    for name in ("BASE_URL", "MODEL", "API_KEY", "TIMEOUT", "MAX_RETRIES", "BACKOFF", "ALIASES", "EXTRA_BODY", "LOCAL_MODEL"):
        monkeypatch.delenv(f"DUOLOGUE_LLM_{name}", raising=False)
    for name in ("OPENAI_API_KEY", "OPENROUTER_API_KEY"):
        monkeypatch.delenv(name, raising=False)


def test_settings_read_the_duologue_llm_prefix(monkeypatch):
    monkeypatch.setenv("DUOLOGUE_LLM_BASE_URL", "http://127.0.0.1:9999/v1")
    monkeypatch.setenv("DUOLOGUE_LLM_TIMEOUT", "7.5")
    monkeypatch.setenv("DUOLOGUE_LLM_MAX_RETRIES", "5")
    monkeypatch.setenv("DUOLOGUE_LLM_BACKOFF", "0.25")
    monkeypatch.setenv("DUOLOGUE_LLM_API_KEY", "sk-test")
    monkeypatch.setenv("DUOLOGUE_LLM_EXTRA_BODY", '{"top_k": 40}')
    settings = LLMSettings()
    assert settings.base_url == "http://127.0.0.1:9999/v1"
    assert (settings.timeout, settings.max_retries, settings.backoff) == (7.5, 5, 0.25)
    assert settings.api_key.get_secret_value() == "sk-test"
    assert "sk-test" not in repr(settings), "the key must not show in logs"
    assert settings.extra_body == {"top_k": 40}


def test_local_without_base_url_means_the_managed_server():
    endpoint = resolve_endpoint("local", LLMSettings())
    assert endpoint.managed_local and endpoint.base_url is None


def test_local_with_a_base_url_uses_it(monkeypatch):
    monkeypatch.setenv("DUOLOGUE_LLM_BASE_URL", "http://127.0.0.1:8080/v1")
    endpoint = resolve_endpoint("local")
    assert not endpoint.managed_local
    assert endpoint.base_url == "http://127.0.0.1:8080/v1"


def test_openai_alias_reads_openai_api_key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-openai-variable")
    endpoint = resolve_endpoint("openai/gpt-4o-mini", LLMSettings())
    assert endpoint.base_url == BASE_URL_ALIASES["openai"]
    assert endpoint.model == "gpt-4o-mini"
    assert endpoint.api_key == "sk-from-openai-variable"


def test_duologue_key_wins_over_the_provider_variable(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-provider")
    monkeypatch.setenv("DUOLOGUE_LLM_API_KEY", "sk-duologue")
    assert resolve_endpoint("openai/gpt-4o-mini").api_key == "sk-duologue"


def test_openai_alias_without_any_key_is_a_clear_error():
    with pytest.raises(LLMConfigError, match="OPENAI_API_KEY"):
        resolve_endpoint("openai/gpt-4o-mini", LLMSettings())


def test_model_names_may_contain_slashes(monkeypatch):
    monkeypatch.setenv("OPENROUTER_API_KEY", "k")
    endpoint = resolve_endpoint("openrouter/meta-llama/llama-3.1-8b-instruct")
    assert endpoint.model == "meta-llama/llama-3.1-8b-instruct"


def test_local_aliases_need_no_key():
    endpoint = resolve_endpoint("ollama/qwen2.5:0.5b", LLMSettings())
    assert endpoint.base_url == "http://127.0.0.1:11434/v1" and endpoint.api_key is None


def test_user_aliases_from_the_environment(monkeypatch):
    monkeypatch.setenv("DUOLOGUE_LLM_ALIASES", '{"lab": "http://gpu-box:8000/v1"}')
    endpoint = resolve_endpoint("lab/qwen")
    assert (endpoint.base_url, endpoint.model) == ("http://gpu-box:8000/v1", "qwen")


def test_unknown_alias_suggests_the_closest():
    with pytest.raises(LLMConfigError, match="Did you mean 'openai'"):
        resolve_endpoint("opnai/gpt-4o-mini", LLMSettings())


def test_alias_without_model_is_an_error():
    with pytest.raises(LLMConfigError, match="names no model"):
        resolve_endpoint("vllm/", LLMSettings())


def test_bare_model_needs_a_base_url(monkeypatch):
    with pytest.raises(LLMConfigError, match="DUOLOGUE_LLM_BASE_URL"):
        resolve_endpoint("my-model", LLMSettings())
    monkeypatch.setenv("DUOLOGUE_LLM_BASE_URL", "http://127.0.0.1:8000/v1")
    assert resolve_endpoint("my-model").model == "my-model"
    with pytest.raises(LLMConfigError, match="DUOLOGUE_LLM_MODEL"):
        resolve_endpoint(None)
    monkeypatch.setenv("DUOLOGUE_LLM_MODEL", "default-model")
    assert resolve_endpoint(None).model == "default-model"

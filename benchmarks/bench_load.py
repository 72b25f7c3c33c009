"""Load test of the live platform: simulated participants play whole dialogues against real servers.

Run: `.venv/bin/python benchmarks/bench_load.py [--dialogues 200] [--concurrent 100,200,500,1000]
[--target-p95-ms 50] [--think 1.0] [--frames delta|full] [--configs bare,sqlite,pg-redis] [--task casino-v0]
[--client-processes 1] [--server-port P] [--relay-port P] [--postgres-port P] [--redis-port P]
[--json OUT] [--profile]`

`--concurrent` takes one level or a comma-separated sweep: every configuration is run at every level
(fresh servers and a fresh database each time, at least as many dialogues as the level), one table
row per configuration and level, then where each configuration's p95 crosses `--target-p95-ms`.

Each configuration is started as subprocesses on free loopback ports, measured, and stopped (also
on Ctrl-C), all in the same run:

* `bare`: a minimal uvicorn + starlette websocket relay that pairs two clients and forwards each
  frame to the partner (`load/relay.py`): what any relay costs at least, the practical limit.
* `sqlite`: `duologue serve`, one process, SQLite in a temporary folder (write-ahead log on, as
  the platform always opens SQLite).
* `pg-redis`: a throwaway PostgreSQL cluster, a redis-server, and `duologue serve --workers 2` with
  `DUOLOGUE_REDIS_URL` (the several-process mode). Shown as "not available" when it cannot start.
  `pg-redis:N` is the same with N workers (`--configs pg-redis:1,pg-redis:2,pg-redis:4` shows
  whether throughput grows with workers on the cores at hand; `--workers` sets plain `pg-redis`'s).

Two simulated participants per dialogue (`load/participants.py`) join a human-human study of the
task (free of bots: both seats are "people"), each played by the task's rule agent from what the
server sends, with a jittered pause of about `--think` seconds before each move (a `typing` frame
first when it writes), so N concurrent dialogues is an N-dialogue study, not a flood. Over the bare
relay both clients run the same game in local engines kept in step by the forwarded moves.

Reported per configuration: dialogues finished (of those asked), the peak number of dialogues in
progress at once, dialogues per second (finished / wall time of the client run), relay latency
p50 / p95 / p99 (a move sent -> the partner's first frame holding its event), errors (connections
lost, timeouts, error frames not caused by a refused move, frames whose transcript changed
history, unfinished dialogues), lobby wait p50 / p95 (opening the lobby -> paired), client loop lag p95 (how late the client processes' event loops woke a task that slept
50 ms: where it nears the latency, the simulated people, not the platform, set the figure; the timeline shows it per slice), lost events (acknowledged moves the partner never received, plus
those missing from the stored dialogue, read back through the admin API), duplicated events
(stored or delivered more often than sent), moves the rules refused, the CPU seconds of each component (server workers, PostgreSQL's
postmaster and backends, redis-server, client processes; also as % of one core in the JSON), and
p95 and throughput against the bare relay's at the same level. `--profile` runs the SQLite servers under cProfile and prints where their time went.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import queue as queue_module
import random
import re
import signal
import statistics
import sys
import tempfile
import time
import uuid
from collections import Counter, defaultdict
from contextlib import ExitStack
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the `load` helper package beside this script

import httpx  # noqa: E402
from rich.console import Console  # noqa: E402
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn  # noqa: E402

from load.participants import PlatformSeat, RelaySeat, SeatReport, signature, with_lag_probe  # noqa: E402
from load.report import add_ratios, crossings, crossings_table, ms_percentiles, percentile, results_table, timeline, timeline_table  # noqa: E402,F401 (re-exported for tests)
from load.servers import ServerUnavailable, platform_server, postgres_server, redis_server, relay_server  # noqa: E402

CONFIGS = ("bare", "sqlite", "pg-redis")
DEFAULT_CONFIGS = ("bare", "sqlite", "pg-redis")
ADMIN_TOKEN = "load-benchmark-admin"
TARGET_P95_MS = 50.0


@dataclass
class Options:
    dialogues: int = 200
    concurrent: int = 200
    think: float = 1.0
    task: str = "casino-v0"
    turn_taking: str = "alternate"
    client_processes: int = 1
    timeout: float = 300.0
    seed: int = 0
    workers: int = 2
    profile: bool = False
    frames: str = "delta"
    """What the simulated pages ask the platform for: `delta` frames after the first state (as the chat page does) or `full` states."""
    target_p95_ms: float = TARGET_P95_MS
    sweep: list[int] = field(default_factory=list)
    """The concurrency levels asked for; empty: just `concurrent`."""
    ports: dict[str, int] = field(default_factory=dict)
    """Fixed ports by component (server, relay, postgres, redis); missing or 0: a free port."""
    timeline: float = 0.0
    """Seconds per slice of the latency timeline (0: none): when in the run the slow events came."""


@dataclass
class Result:
    """One configuration's row (and its JSON)."""

    config: str
    requested: int
    concurrent: int
    finished: int = 0
    peak_concurrent: int = 0
    seconds: float = 0.0
    dialogues_per_second: float = 0.0
    latency_ms: dict[str, float | None] = field(default_factory=dict)
    events_timed: int = 0
    errors: int = 0
    error_samples: list[str] = field(default_factory=list)
    lost: int = 0
    lost_in_relay: int = 0
    lost_in_storage: int = 0
    duplicated: int = 0
    refused: int = 0
    client_cpu_percent: float | None = None
    server_cpu_percent: float | None = None
    cpu_seconds: dict[str, float] = field(default_factory=dict)
    """CPU seconds used during the client run by each component: server, postgres, redis, clients."""
    lobby_wait_ms: dict[str, float | None] = field(default_factory=dict)
    ratio_p95_vs_bare: float | None = None
    throughput_vs_bare: float | None = None
    end_reasons: dict[str, int] = field(default_factory=dict)
    available: bool = True
    note: str = ""
    profile: str | None = None
    timeline: list[dict[str, Any]] = field(default_factory=list)
    """Relay latency per slice of the run (`load.report.timeline`), when asked for."""
    client_lag_ms: dict[str, float | None] = field(default_factory=dict)
    """How late the client processes' event loops ran (p50, p95, max): when its p95 nears the
    latency's, the simulated people, not the platform, are the bottleneck."""


# ---------------------------------------------------------------------------- the client side


def study_file(folder: Path, task: str, studies: list[str], turn_taking: str) -> Path:
    """A human-human study per client process, so the lobby pairs participants of one process
    (both seats of a dialogue then share one clock for latency)."""
    entries = [
        {"id": study, "task": task, "partners": [{"kind": "human"}], "turn_taking": turn_taking, "ratings_per_dialogue": 0, "time_limit_seconds": 900}
        for study in studies
    ]
    path = folder / "load-study.json"  # JSON is YAML
    path.write_text(json.dumps({"studies": entries}))
    return path


def share(total: int, parts: int, index: int) -> int:
    """Part `index` of `total` split as evenly as possible into `parts`."""
    return total // parts + (1 if index < total % parts else 0)


async def bounded_seat(seat, limit: asyncio.Semaphore, timeout: float) -> SeatReport:
    async with limit:
        try:
            return await asyncio.wait_for(seat.run(), timeout=timeout)
        except asyncio.TimeoutError:
            seat.report.errors.append(f"no end within {timeout:.0f} s")
        except Exception as error:  # noqa: BLE001 - connection refused, lobby refused, a server error
            seat.report.errors.append(f"{type(error).__name__}: {error}"[:300])
        return seat.report


async def platform_clients(base_url: str, study: str, dialogues: int, concurrent: int, options: Options, tag: str, on_dialogue: Callable[[], None]) -> list[SeatReport]:
    """Two participants per dialogue join the study's lobby; at most `concurrent` dialogues' worth of
    participants are in flight (the lobby pairs them in arrival order)."""
    ws_url = base_url.replace("http://", "ws://", 1)
    rng = random.Random(f"{options.seed}:{tag}")
    limit = asyncio.Semaphore(2 * concurrent)
    seen: Counter = Counter()

    async def one(index: int) -> SeatReport:
        seat = PlatformSeat(ws_url, study, f"load-{tag}-{index}", options.think, random.Random(rng.random()), frames=options.frames)
        report = await bounded_seat(seat, limit, options.timeout)
        if report.dialogue is not None:
            seen[report.dialogue] += 1
            if seen[report.dialogue] == 2:
                on_dialogue()
        return report

    return list(await asyncio.gather(*(one(i) for i in range(2 * dialogues))))


async def relay_clients(base_url: str, dialogues: int, concurrent: int, options: Options, tag: str, on_dialogue: Callable[[], None]) -> list[SeatReport]:
    """Two participants per room of the bare relay, at most `concurrent` rooms at once."""
    rng = random.Random(f"{options.seed}:{tag}")
    limit = asyncio.Semaphore(concurrent)

    async def room(index: int) -> list[SeatReport]:
        seed = rng.randrange(2**31)
        name = f"{tag}-{index}"
        seats = [RelaySeat(base_url, name, s, options.task, seed, f"relay-{name}-{s}", options.think, random.Random(rng.random())) for s in (0, 1)]
        async with limit:
            reports = await asyncio.gather(*(bounded_seat(s, asyncio.Semaphore(1), options.timeout) for s in seats))
        on_dialogue()
        return list(reports)

    rooms = await asyncio.gather(*(room(i) for i in range(dialogues)))
    return [report for pair in rooms for report in pair]


def client_process(kind: str, base_url: str, study: str, dialogues: int, concurrent: int, options: Options, tag: str, results: Any) -> None:
    """One client process: runs its participants, reports each finished dialogue and then everything."""
    try:
        import uvloop

        uvloop.install()
    except ImportError:
        pass
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides when to stop
    cpu_before, wall_start = time.process_time(), time.time()

    def tick() -> None:
        results.put(("dialogue", tag))

    lags: list[tuple[float, float]] = []
    try:
        if kind == "bare":
            reports = asyncio.run(with_lag_probe(relay_clients(base_url, dialogues, concurrent, options, tag, tick), lags))
        else:
            reports = asyncio.run(with_lag_probe(platform_clients(base_url, study, dialogues, concurrent, options, tag, tick), lags))
        results.put(("result", tag, [asdict(r) for r in reports], time.process_time() - cpu_before, wall_start, time.time(), lags))
    except BaseException as error:  # noqa: BLE001 - the parent must hear about it, or it waits forever
        results.put(("failed", tag, f"{type(error).__name__}: {error}", time.process_time() - cpu_before, wall_start, time.time(), lags))


def run_clients(kind: str, base_url: str, studies: list[str], options: Options, console: Console | None) -> tuple[list[SeatReport], float, float, float, list[str], list[tuple[float, float]]]:
    """All client processes of one configuration: (reports, client CPU seconds, start, end,
    failures, the client event loops' lag samples)."""
    context = multiprocessing.get_context("fork")
    results = context.Queue()
    processes = []
    parts = options.client_processes
    for index in range(parts):
        count = share(options.dialogues, parts, index)
        if count == 0:
            continue
        tag = f"{uuid.uuid4().hex[:6]}-{index}"
        arguments = (kind, base_url, studies[index], count, max(1, share(options.concurrent, parts, index)), options, tag, results)
        processes.append(context.Process(target=client_process, args=arguments, daemon=True))
    for process in processes:
        process.start()
    reports: list[SeatReport] = []
    cpu, starts, ends, failures = 0.0, [], [], []
    lags: list[tuple[float, float]] = []
    pending = len(processes)
    progress = Progress(TextColumn(f"[bold]{kind}[/]"), BarColumn(), MofNCompleteColumn(), TextColumn("dialogues"), TimeElapsedColumn(), console=console, disable=console is None, transient=False)
    try:
        with progress:
            bar = progress.add_task(kind, total=options.dialogues)
            while pending:
                try:
                    message = results.get(timeout=0.5)
                except queue_module.Empty:
                    if not any(p.is_alive() for p in processes) and results.empty():
                        failures.append("a client process ended without reporting")
                        break
                    continue
                if message[0] == "dialogue":
                    progress.advance(bar)
                    continue
                pending -= 1
                cpu += message[3]
                starts.append(message[4])
                ends.append(message[5])
                lags.extend(message[6])
                if message[0] == "failed":
                    failures.append(message[2])
                else:
                    reports.extend(SeatReport(**r) for r in message[2])
    finally:
        for process in processes:
            process.join(timeout=5)
            if process.is_alive():
                process.kill()
                process.join()
    start = min(starts) if starts else time.time()
    return reports, cpu, start, max(ends) if ends else start, failures, lags


# ---------------------------------------------------------------------------- judging what happened


def peak_overlap(intervals: list[tuple[float, float]]) -> int:
    """How many intervals were open at once, at most."""
    points = sorted([(start, 1) for start, _ in intervals] + [(end, -1) for _, end in intervals])
    peak = now = 0
    for _, step in points:
        now += step
        peak = max(peak, now)
    return peak


def assess(result: Result, reports: list[SeatReport], stored: dict[str, list[dict[str, Any]]] | None, slice_seconds: float = 0.0, lags: list[tuple[float, float]] | None = None) -> None:
    """Fill latency, lost, duplicated, errors and end reasons from the seats' reports and the stored
    dialogues (None: nothing stored, as over the bare relay); with `slice_seconds`, the timeline;
    with `lags` (the clients' loop-lag samples), how late the simulated people themselves ran."""
    latencies: list[float] = []
    sent_at: list[float] = []
    waits = [r.lobby_seconds for r in reports if r.lobby_seconds is not None]
    errors: list[str] = []
    by_dialogue: dict[str, list[SeatReport]] = defaultdict(list)
    for report in reports:
        result.refused += report.refused
        errors.extend(f"{report.participant}: {e}" for e in report.errors)
        if report.inconsistent:
            errors.extend([f"{report.participant}: a frame's transcript did not extend the one before"] * report.inconsistent)
        result.duplicated += report.seen_twice
        if report.dialogue is None:
            if not report.errors:
                errors.append(f"{report.participant}: never got a seat")
            continue
        by_dialogue[report.dialogue].append(report)
    intervals = []
    for dialogue_id, seats in by_dialogue.items():
        if len(seats) != 2:
            errors.append(f"{dialogue_id}: {len(seats)} seat(s) reported, not 2")
            continue
        if not all(s.done for s in seats):
            errors.append(f"{dialogue_id}: not finished")
        else:
            result.finished += 1
            reason = seats[0].end_reason or "?"
            result.end_reasons[reason] = result.end_reasons.get(reason, 0) + 1
        intervals.append((min(s.started for s in seats), max(s.finished for s in seats)))
        expected: dict[int, str] = {}
        for seat, partner in ((seats[0], seats[1]), (seats[1], seats[0])):
            for index, wanted, sent in seat.acked:
                expected[index] = wanted
                seen = partner.first_seen.get(index)
                if seen is None:
                    result.lost_in_relay += 1
                else:
                    latencies.append(seen - sent)
                    sent_at.append(sent)
        wanted_counts = Counter(expected.values())
        for seat in seats:  # each party's last view holds every acknowledged move, once
            shown = Counter(s for s, party in zip(seat.final_events, seat.final_parties, strict=True) if party is not None)
            if seat.done and shown != wanted_counts:
                errors.append(f"{dialogue_id}: {seat.party}'s last view differs from the moves sent")
            if stored is None:
                result.duplicated += sum((shown - wanted_counts).values())
        if stored is not None:
            events = stored.get(dialogue_id)
            if events is None:
                errors.append(f"{dialogue_id}: not found in storage")
                result.lost_in_storage += len(expected)
                continue
            kept = Counter(signature(e) for e in events if e.get("party") is not None)
            result.lost_in_storage += sum((wanted_counts - kept).values())
            result.duplicated += sum((kept - wanted_counts).values())
            order = [signature(e) for e in events if e.get("party") is not None]
            if sorted(expected) and order != [expected[i] for i in sorted(expected)] and kept == wanted_counts:
                errors.append(f"{dialogue_id}: stored in another order than played")
    missing = result.requested - len(by_dialogue)
    if missing > 0:
        errors.append(f"{missing} dialogue(s) never started")
    result.lost = result.lost_in_relay + result.lost_in_storage
    result.errors = len(errors)
    result.error_samples = errors[:10]
    result.events_timed = len(latencies)
    if lags:
        late = [lag for _, lag in lags]
        result.client_lag_ms = {**ms_percentiles(late, (50, 95)), "max": round(max(late) * 1000, 2)}
    if slice_seconds > 0:
        result.timeline = timeline(sent_at, latencies, slice_seconds, lags or [])
    result.peak_concurrent = peak_overlap(intervals)
    result.latency_ms = ms_percentiles(latencies, (50, 95, 99))
    result.latency_ms["mean"] = round(statistics.fmean(latencies) * 1000, 2) if latencies else None
    result.latency_ms["max"] = round(max(latencies) * 1000, 2) if latencies else None
    result.lobby_wait_ms = ms_percentiles(waits, (50, 95)) if waits else {}


async def fetch_stored(base_url: str, dialogue_ids: list[str]) -> dict[str, list[dict[str, Any]]]:
    """Each dialogue's stored events, read back through the admin API."""
    found: dict[str, list[dict[str, Any]]] = {}
    limit = asyncio.Semaphore(16)
    async with httpx.AsyncClient(base_url=base_url, headers={"X-Admin-Token": ADMIN_TOKEN}, timeout=60) as client:

        async def one(dialogue_id: str) -> None:
            async with limit:
                response = await client.get(f"/admin/api/dialogues/{dialogue_id}")
            if response.status_code == 200:
                found[dialogue_id] = response.json()["events"]

        await asyncio.gather(*(one(d) for d in dialogue_ids))
    return found


# ---------------------------------------------------------------------------- configurations


def measure(result: Result, kind: str, base_url: str, studies: list[str], components: dict[str, Any], options: Options, console: Console | None) -> None:
    """Run the clients against started servers and judge the outcome; `components` maps a name
    (server, postgres, redis) to something with `cpu_seconds()`, counted over the client run."""
    before = {name: c.cpu_seconds() for name, c in components.items()}
    reports, client_cpu, start, end, failures, lags = run_clients(kind, base_url, studies, options, console)
    used = {name: c.cpu_seconds() - before[name] for name, c in components.items()}
    wall = max(end - start, 1e-9)
    result.seconds = round(wall, 2)
    result.cpu_seconds = {name: round(seconds, 2) for name, seconds in {**used, "clients": client_cpu}.items()}
    result.client_cpu_percent = round(100 * client_cpu / wall, 1)
    result.server_cpu_percent = round(100 * used["server"] / wall, 1)
    stored = None
    if kind != "bare":
        ids = sorted({r.dialogue for r in reports if r.dialogue is not None})
        stored = asyncio.run(fetch_stored(base_url, ids))
    assess(result, reports, stored, options.timeline, lags)
    for failure in failures:
        result.errors += 1
        result.error_samples.append(failure)
    result.dialogues_per_second = round(result.finished / wall, 2)


def run_configuration(config: str, options: Options, console: Console | None = None, folder: Path | None = None) -> Result:
    """Start the configuration's servers, run the participants, stop everything; one result."""
    result = Result(config=config, requested=options.dialogues, concurrent=options.concurrent)
    ports = options.ports
    studies = [f"load-{i}" for i in range(options.client_processes)]
    with ExitStack() as stack:
        if folder is None:
            folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix=f"duologue-load-{config}-")))
        try:
            if config == "bare":
                base_url, server = stack.enter_context(relay_server(folder, port=ports.get("relay", 0)))
                measure(result, "bare", base_url, studies, {"server": server}, options, console)
                return result
            study = study_file(folder, options.task, studies, options.turn_taking)
            if config == "sqlite":
                profile = Path(tempfile.gettempdir()) / f"duologue-load-{config}-{os.getpid()}-{int(time.time())}.prof" if options.profile else None
                base_url, server = stack.enter_context(platform_server(folder, study, f"sqlite:///{folder / 'load.db'}", admin_token=ADMIN_TOKEN, profile=profile, port=ports.get("server", 0)))
                measure(result, config, base_url, studies, {"server": server}, options, console)
                if profile is not None:
                    stack.close()  # stop the server so cProfile writes its stats
                    result.profile = summarize_profile(profile, console)
            elif config == "pg-redis" or config.startswith("pg-redis:"):
                workers = int(config.split(":", 1)[1]) if ":" in config else options.workers
                database = stack.enter_context(postgres_server(port=ports.get("postgres", 0)))
                redis_url, redis = stack.enter_context(redis_server(folder, port=ports.get("redis", 0)))
                settings = {"DUOLOGUE_REDIS_URL": redis_url}
                base_url, server = stack.enter_context(platform_server(folder, study, database.url, admin_token=ADMIN_TOKEN, workers=workers, env=settings, port=ports.get("server", 0)))
                measure(result, config, base_url, studies, {"server": server, "postgres": database, "redis": redis}, options, console)
            else:
                raise ValueError(f"unknown configuration {config!r}; known: {', '.join(CONFIGS)}")
        except ServerUnavailable as error:
            result.available = False
            result.note = f"not available: {error}"[:600]
    return result


def summarize_profile(path: Path, console: Console | None, top: int = 30) -> str | None:
    """The server's hottest functions (own time and cumulative), as text; the stats file is kept."""
    import io
    import pstats

    if not path.exists():
        return None
    text = io.StringIO()
    stats = pstats.Stats(str(path), stream=text).strip_dirs()
    stats.sort_stats("tottime").print_stats(top)
    stats.sort_stats("cumulative").print_stats(top)
    summary = f"stats: {path}\n{text.getvalue()}"
    if console is not None:
        console.print(summary, highlight=False, markup=False)
    return summary


# ---------------------------------------------------------------------------- command line


def concurrency_levels(text: str) -> list[int]:
    """`200` or a sweep `100,200,500`: distinct levels, in increasing order."""
    try:
        levels = sorted({int(part) for part in text.split(",") if part.strip()})
    except ValueError:
        raise argparse.ArgumentTypeError(f"--concurrent wants whole numbers separated by commas, not {text!r}") from None
    if not levels or levels[0] < 1:
        raise argparse.ArgumentTypeError("--concurrent levels must be at least 1")
    return levels


def parse_options(argv: list[str] | None = None) -> tuple[Options, list[str], Path | None]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dialogues", type=int, default=200, help="dialogues per configuration and level (at least the level)")
    parser.add_argument("--concurrent", type=concurrency_levels, default=[200], help="dialogues in progress at once, at most; comma-separated for a sweep")
    parser.add_argument("--target-p95-ms", type=float, default=TARGET_P95_MS, help="the relay-latency p95 a configuration should stay under")
    parser.add_argument("--frames", choices=("delta", "full"), default="delta", help="state frames the simulated pages ask for (the chat page asks for deltas)")
    parser.add_argument("--think", type=float, default=1.0, help="seconds a participant pauses before a move (jittered +-50%%)")
    parser.add_argument("--configs", default=",".join(DEFAULT_CONFIGS), help=f"comma-separated, of {', '.join(CONFIGS)}")
    parser.add_argument("--task", default="casino-v0")
    parser.add_argument("--turn-taking", choices=("alternate", "free"), default="alternate", help="of the human-human study (the bare relay always alternates)")
    parser.add_argument("--client-processes", type=int, default=1, help="processes the participants are spread over")
    parser.add_argument("--workers", type=int, default=2, help="server processes of pg-redis")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds a participant may take, lobby included")
    parser.add_argument("--seed", type=int, default=0)
    for component in ("server", "relay", "postgres", "redis"):
        parser.add_argument(f"--{component}-port", type=int, default=0, help=f"loopback port of the {component} (default: a free one)")
    parser.add_argument("--profile", action="store_true", help="run the SQLite servers under cProfile and print their hottest functions")
    parser.add_argument("--timeline", type=float, default=0.0, metavar="SECONDS", help="also print p50/p95 per slice of this many seconds of the run (the lobby's rush against the steady state)")
    parser.add_argument("--json", type=Path, default=None, help="also write the results here")
    args = parser.parse_args(argv)
    configs = [c.strip() for c in args.configs.split(",") if c.strip()]
    unknown = [c for c in configs if c not in CONFIGS and not re.fullmatch(r"pg-redis:[1-9][0-9]?", c)]
    if unknown:
        parser.error(f"unknown configuration(s) {', '.join(unknown)}; known: {', '.join(CONFIGS)}")
    if args.dialogues < 1 or args.client_processes < 1:
        parser.error("--dialogues and --client-processes must be at least 1")
    ports = {c: getattr(args, f"{c}_port") for c in ("server", "relay", "postgres", "redis")}
    if any(not 0 <= port < 65536 for port in ports.values()):
        parser.error("ports must be between 1 and 65535 (0: a free one)")
    options = Options(
        dialogues=args.dialogues,
        concurrent=args.concurrent[0],
        think=args.think,
        frames=args.frames,
        task=args.task,
        turn_taking=args.turn_taking,
        client_processes=args.client_processes,
        timeout=args.timeout,
        seed=args.seed,
        workers=args.workers,
        profile=args.profile,
        target_p95_ms=args.target_p95_ms,
        sweep=args.concurrent,
        ports={c: port for c, port in ports.items() if port},
        timeline=max(args.timeline, 0.0),
    )
    return options, configs, args.json


def run_sweep(options: Options, configs: list[str], console: Console | None = None, done: Callable[[list[Result]], None] | None = None) -> list[Result]:
    """Every configuration at every level (at least `level` dialogues each), ratios per level;
    `done` hears the results so far after each one (a long sweep keeps what it measured)."""
    results: list[Result] = []
    for level in options.sweep or [options.concurrent]:
        at_level = replace(options, concurrent=level, dialogues=max(options.dialogues, level))
        row: list[Result] = []
        for config in configs:
            row.append(run_configuration(config, at_level, console))
            add_ratios(row)
            if done is not None:
                done(results + row)
        results.extend(row)
    return results


def main(argv: list[str] | None = None) -> None:
    options, configs, json_out = parse_options(argv)
    console = Console() if sys.stdout.isatty() else Console(width=240)  # a log file gets the whole table

    def stop(signum, frame):  # SIGTERM stops as cleanly as Ctrl-C: servers are shut down
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)

    def done(so_far: list[Result]) -> None:
        last = so_far[-1]
        console.print(f"{last.config} @ {last.concurrent}: {last.finished}/{last.requested} finished, p95 {last.latency_ms.get('p95')} ms, {last.dialogues_per_second} dialogues/s, {last.errors} errors, {last.lost} lost, {last.duplicated} duplicated", highlight=False)
        if json_out is not None:
            write_json(json_out, options, so_far)

    results = run_sweep(options, configs, console, done)
    console.print(results_table(results, options))
    if len(options.sweep) > 1:
        console.print(crossings_table(results, options.target_p95_ms))
    if options.timeline > 0:
        console.print(timeline_table(results, options.timeline))
    for r in results:
        for sample in r.error_samples[:5]:
            console.print(f"[yellow]{r.config} @ {r.concurrent}[/]: {sample}", highlight=False)
    if json_out is not None:
        write_json(json_out, options, results)
        console.print(f"wrote {json_out}")


def write_json(path: Path, options: Options, results: list[Result]) -> None:
    payload = {"options": asdict(options), "results": [asdict(r) for r in results], "crossings": crossings(results, options.target_p95_ms), "machine": {"cpus": os.cpu_count()}}
    path.write_text(json.dumps(payload, indent=2))


if __name__ == "__main__":
    main()

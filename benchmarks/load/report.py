"""The load benchmark's tables: one row per configuration and concurrency level, the ratios to the
bare relay measured at the same level, and where each configuration's p95 crosses the target.

Works on the benchmark's `Result` rows (any object with the same attributes), so it stays apart
from the code that runs servers and clients.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from rich.table import Table

CPU_PARTS = ("server", "postgres", "redis", "clients")


def percentile(values: list[float], q: float) -> float | None:
    """The q-th percentile (nearest rank), or None without values."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q / 100 * len(ordered)) - 1))]


def add_ratios(results: list[Any]) -> None:
    """p95 and throughput of each row against the bare relay's row at the same concurrency level."""
    bare = {r.concurrent: r for r in results if r.config == "bare" and r.available}
    for r in results:
        base = bare.get(r.concurrent)
        if base is None:
            continue
        p95, base_p95 = r.latency_ms.get("p95"), base.latency_ms.get("p95")
        if base_p95 and p95 is not None:
            r.ratio_p95_vs_bare = round(p95 / base_p95, 2)
        if base.dialogues_per_second:
            r.throughput_vs_bare = round(r.dialogues_per_second / base.dialogues_per_second, 2)


def crossings(results: list[Any], target_ms: float) -> dict[str, dict[str, Any]]:
    """Per configuration: the highest level whose p95 is under the target, the lowest over it (a
    level that did not finish every dialogue counts as over), and a sentence saying so."""
    levels: dict[str, list[tuple[int, float | None, bool]]] = defaultdict(list)
    for r in results:
        if r.available:
            p95 = r.latency_ms.get("p95")
            levels[r.config].append((r.concurrent, p95, p95 is not None and p95 <= target_ms and r.finished == r.requested))
    found: dict[str, dict[str, Any]] = {}
    for config, rows in levels.items():
        rows.sort()
        under = [level for level, _, ok in rows if ok]
        over = [(level, p95) for level, p95, ok in rows if not ok]
        last_under = max(under) if under else None
        first_over = over[0] if over else None
        if first_over is None:
            text = f"under {target_ms:g} ms at every level (to {rows[-1][0]})"
        elif last_under is None:
            text = f"over {target_ms:g} ms from the lowest level ({first_over[0]})"
        else:
            shown = "-" if first_over[1] is None else f"{first_over[1]:,.1f} ms"
            text = f"crosses {target_ms:g} ms between {last_under} and {first_over[0]} (p95 {shown} there)"
        found[config] = {"last_under": last_under, "first_over": first_over[0] if first_over else None, "text": text}
    return found


def crossings_table(results: list[Any], target_ms: float) -> Table:
    table = Table(title=f"where p95 crosses {target_ms:g} ms")
    table.add_column("configuration")
    table.add_column("crossing")
    for config, found in crossings(results, target_ms).items():
        table.add_row(config, found["text"])
    return table


def ms(value: float | None) -> str:
    return "-" if value is None else f"{value:,.1f}"


def cpu_text(seconds: dict[str, float]) -> str:
    """`server 12.3 / pg 4.5 / redis 0.8 / clients 9.0` for the parts measured."""
    names = {"postgres": "pg"}
    return " / ".join(f"{names.get(part, part)} {seconds[part]:.1f}" for part in CPU_PARTS if part in seconds) or "-"


def results_table(results: list[Any], options: Any) -> Table:
    target = options.target_p95_ms
    table = Table(title=f"live platform under load: {options.task}, think {options.think:g} s, turn-taking {options.turn_taking}, {options.client_processes} client process(es), target p95 {target:g} ms")
    columns = ("configuration", "concurrent", "dialogues", "dialogues/s", "x bare dialogues/s", "p50 ms", "p95 ms", "p99 ms", "lobby p50 ms", "lobby p95 ms", "client lag p95 ms", "errors", "lost", "duplicated", "refused", "CPU s", "p95 vs bare")
    for column in columns:
        table.add_column(column, justify="left" if column in ("configuration", "CPU s") else "right")
    for r in results:
        if not r.available:
            table.add_row(r.config, str(r.concurrent), r.note, *[""] * (len(columns) - 3))
            continue
        p95 = r.latency_ms.get("p95")
        p95_text = ms(p95) if p95 is None or p95 <= target else f"[red]{ms(p95)}[/]"
        table.add_row(
            r.config,
            f"{r.concurrent} (peak {r.peak_concurrent})",
            f"{r.finished}/{r.requested}",
            f"{r.dialogues_per_second:.2f}",
            "-" if r.throughput_vs_bare is None else f"{r.throughput_vs_bare:.2f}x",
            ms(r.latency_ms.get("p50")),
            p95_text,
            ms(r.latency_ms.get("p99")),
            ms(r.lobby_wait_ms.get("p50")),
            ms(r.lobby_wait_ms.get("p95")),
            ms(r.client_lag_ms.get("p95")),
            str(r.errors),
            str(r.lost),
            str(r.duplicated),
            str(r.refused),
            cpu_text(r.cpu_seconds),
            "-" if r.ratio_p95_vs_bare is None else f"{r.ratio_p95_vs_bare:.2f}x",
        )
    return table


def ms_percentiles(seconds: list[float], quantiles: tuple[int, ...]) -> dict[str, float | None]:
    """`{"p50": ..., "p95": ...}`: each percentile of `seconds` in ms, to 0.01 (None without values)."""
    return {f"p{q}": (round(v * 1000, 2) if (v := percentile(seconds, q)) is not None else None) for q in quantiles}


def timeline(sent_at: list[float], latencies: list[float], slice_seconds: float, lags: Sequence[tuple[float, float]] = ()) -> list[dict[str, Any]]:
    """Relay latency by when the event was sent: a row per slice of `slice_seconds` from the first
    send (events, p50, p95 and max in ms; with `lags`, the client loops' lag p95 in that slice). A
    p95 made by the lobby's opening rush shows in the first slices only; one the server cannot keep
    up with stays high through the run; one that the client lag matches is the clients' own."""
    if not sent_at:
        return []
    start = min(sent_at)
    slices: dict[int, list[float]] = defaultdict(list)
    for sent, latency in zip(sent_at, latencies, strict=True):
        slices[int((sent - start) // slice_seconds)].append(latency * 1000)
    lag_slices: dict[int, list[float]] = defaultdict(list)
    for began, lag in lags:
        if began >= start:
            lag_slices[int((began - start) // slice_seconds)].append(lag * 1000)
    rows = []
    for index in sorted(slices):
        values = sorted(slices[index])
        row = {"from_s": round(index * slice_seconds, 3), "events": len(values), "p50_ms": round(percentile(values, 50) or 0.0, 2), "p95_ms": round(percentile(values, 95) or 0.0, 2), "max_ms": round(values[-1], 2)}
        if lag_slices.get(index):
            row["client_lag_p95_ms"] = round(percentile(lag_slices[index], 95) or 0.0, 2)
        rows.append(row)
    return rows


def timeline_table(results: list[Any], slice_seconds: float) -> Table:
    """Each configuration's p95 (and events) per slice of the run, side by side."""
    table = Table(title=f"relay latency over the run, per {slice_seconds:g} s of sending: p95 ms (events) / client loop lag p95 ms")
    table.add_column("from s", justify="right")
    shown = [r for r in results if r.available and r.timeline]
    for r in shown:
        table.add_column(f"{r.config} @ {r.concurrent}", justify="right")
    by_slice: dict[float, dict[int, dict[str, Any]]] = defaultdict(dict)
    for column, r in enumerate(shown):
        for row in r.timeline:
            by_slice[row["from_s"]][column] = row
    for start in sorted(by_slice):
        cells = [by_slice[start].get(column) for column in range(len(shown))]
        table.add_row(f"{start:g}", *("" if c is None else f"{ms(c['p95_ms'])} ({c['events']})" + (f" / {ms(c['client_lag_p95_ms'])}" if "client_lag_p95_ms" in c else "") for c in cells))
    return table

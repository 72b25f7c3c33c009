"""The load benchmark's code path, tiny: a few dialogues against a real server and the bare relay,
and the bookkeeping that finds lost, duplicated and reordered events."""

import asyncio
import importlib.util
import sys
import time
from pathlib import Path

import pytest
from rich.console import Console

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_load.py"
spec = importlib.util.spec_from_file_location("bench_load", SCRIPT)
bench = importlib.util.module_from_spec(spec)
sys.modules[spec.name] = bench  # dataclasses look their module up while the script loads
spec.loader.exec_module(bench)

from load.participants import SeatReport, signature  # noqa: E402  (importable once the script has loaded)
from load.servers import free_port, relay_server  # noqa: E402

TINY = bench.Options(dialogues=3, concurrent=3, think=0.0, timeout=60.0)


def table_text(results) -> str:
    console = Console(width=400, record=True)
    console.print(bench.results_table(results, TINY))
    return console.export_text()


@pytest.mark.parametrize("config", ["sqlite", "bare"])
def test_a_tiny_run_plays_every_dialogue_without_losing_or_duplicating_events(config):
    result = bench.run_configuration(config, TINY)
    assert result.available, result.note
    assert result.finished == 3 and result.errors == 0, result.error_samples
    assert result.lost == 0 and result.duplicated == 0
    assert result.events_timed >= 3 * 3  # every CaSiNo dialogue has a few moves, each one timed
    assert 0 <= result.latency_ms["p50"] <= result.latency_ms["p95"] <= result.latency_ms["p99"]
    assert sum(result.end_reasons.values()) == 3
    assert result.server_cpu_percent is not None and result.client_cpu_percent is not None
    assert 0 <= result.client_lag_ms["p50"] <= result.client_lag_ms["p95"] <= result.client_lag_ms["max"]
    assert set(result.cpu_seconds) == {"server", "clients"} and result.cpu_seconds["server"] >= 0
    if config == "sqlite":  # the relay's CPU for three tiny dialogues can be under one clock tick (10 ms)
        assert result.cpu_seconds["server"] > 0
    if config == "sqlite":  # every participant went through the lobby and was timed there
        assert 0 < result.lobby_wait_ms["p50"] <= result.lobby_wait_ms["p95"]
    else:
        assert result.lobby_wait_ms == {}
    text = table_text([result])
    for column in ("configuration", "dialogues", "concurrent", "dialogues/s", "x bare", "p50 ms", "p95 ms", "p99 ms", "lobby p95", "client lag p95", "errors", "lost", "duplicated", "CPU s", "p95 vs bare"):
        assert column in text
    assert f"{config} " in text and "3/3" in text and "server " in text


def test_a_sweep_runs_each_level_with_at_least_that_many_dialogues_and_a_fixed_port_is_used(tmp_path):
    options = bench.Options(dialogues=1, think=0.0, timeout=60.0, sweep=[1, 2], ports={"relay": free_port()})
    results = bench.run_sweep(options, ["bare"])
    assert [(r.concurrent, r.requested, r.finished, r.lost, r.duplicated) for r in results] == [(1, 1, 1, 0, 0), (2, 2, 2, 0, 0)]
    assert all(r.throughput_vs_bare == 1.0 for r in results)
    port = free_port()
    with relay_server(tmp_path, port=port) as (url, _):
        assert url.endswith(f":{port}")


def seat(participant, party, dialogue="d1", acked=(), seen=(), final=(), done=True):
    return SeatReport(
        participant=participant,
        dialogue=dialogue,
        party=party,
        acked=list(acked),
        first_seen=dict(seen),
        final_events=[s for s, _ in final],
        final_parties=[p for _, p in final],
        done=done,
        end_reason="agreement",
        started=0.0,
        finished=1.0,
    )


HI = {"kind": "message", "party": "a", "text": "hi"}
HELLO = {"kind": "message", "party": "b", "text": "hello"}


def played(a_seen=((1, 2.0),), b_seen=((0, 1.05),)):
    """Two seats: a said hi (event 0, sent at t=1), b said hello (event 1, sent at t=2)."""
    final = [(signature(HI), "a"), (signature(HELLO), "b")]
    a = seat("pa", "a", acked=[(0, signature(HI), 1.0)], seen=[(0, 1.0), *a_seen], final=final)
    b = seat("pb", "b", acked=[(1, signature(HELLO), 2.0)], seen=[*b_seen, (1, 2.0)], final=final)
    return [a, b]


def judged(reports, stored):
    result = bench.Result(config="sqlite", requested=1, concurrent=1)
    bench.assess(result, reports, stored)
    return result


def test_a_clean_dialogue_has_no_loss_and_its_latency_is_the_partners_first_sight():
    result = judged(played(a_seen=[(1, 2.02)]), {"d1": [HI, HELLO]})
    assert (result.finished, result.lost, result.duplicated, result.errors) == (1, 0, 0, 0)
    assert result.latency_ms["p50"] == pytest.approx(20.0) and result.latency_ms["max"] == pytest.approx(50.0)


def test_an_event_the_partner_never_received_is_lost_in_the_relay():
    result = judged(played(b_seen=[]), {"d1": [HI, HELLO]})
    assert result.lost_in_relay == 1 and result.lost == 1


def test_an_event_missing_from_storage_is_lost_and_one_stored_twice_is_duplicated():
    assert judged(played(), {"d1": [HI]}).lost_in_storage == 1
    twice = judged(played(), {"d1": [HI, HI, HELLO]})
    assert twice.duplicated == 1 and twice.lost == 0


def test_a_dialogue_stored_in_another_order_or_not_at_all_is_an_error():
    assert any("order" in e for e in judged(played(), {"d1": [HELLO, HI]}).error_samples)
    missing = judged(played(), {})
    assert missing.lost_in_storage == 2 and any("not found" in e for e in missing.error_samples)


def test_unfinished_dialogues_and_lone_seats_are_errors():
    reports = played()
    reports[1].done = False
    assert judged(reports, {"d1": [HI, HELLO]}).finished == 0
    alone = judged(played()[:1], {"d1": [HI, HELLO]})
    assert alone.errors >= 1 and any("1 seat" in e for e in alone.error_samples)


def test_over_the_bare_relay_extra_events_in_a_last_view_are_duplicates():
    reports = played()
    reports[0].final_events.append(signature(HELLO))
    reports[0].final_parties.append("b")
    assert judged(reports, None).duplicated == 1


def test_percentiles_and_peak_concurrency():
    assert bench.percentile(list(range(1, 101)), 95) == 95
    assert bench.percentile([], 50) is None
    assert bench.peak_overlap([(0, 10), (1, 2), (3, 11), (12, 13)]) == 2


def test_the_p95_ratio_is_against_the_bare_relay_and_an_unavailable_configuration_says_why():
    bare = bench.Result(config="bare", requested=1, concurrent=1, latency_ms={"p95": 4.0}, dialogues_per_second=2.0)
    sqlite = bench.Result(config="sqlite", requested=1, concurrent=1, latency_ms={"p95": 10.0}, dialogues_per_second=1.5)
    missing = bench.Result(config="pg-redis", requested=1, concurrent=1, available=False, note="not available: no --workers")
    bench.add_ratios([bare, sqlite, missing])
    assert (bare.ratio_p95_vs_bare, sqlite.ratio_p95_vs_bare, missing.ratio_p95_vs_bare) == (1.0, 2.5, None)
    assert (bare.throughput_vs_bare, sqlite.throughput_vs_bare) == (1.0, 0.75)
    text = table_text([bare, sqlite, missing])
    assert "2.50x" in text and "0.75x" in text and "not available: no --workers" in text


def level(config, concurrent, p95, finished=1):
    return bench.Result(config=config, requested=1, finished=finished, concurrent=concurrent, latency_ms={"p95": p95})


def test_ratios_compare_with_the_relay_at_the_same_level_and_crossings_name_the_levels():
    rows = [level("bare", 100, 5.0), level("sqlite", 100, 20.0), level("bare", 200, 10.0), level("sqlite", 200, 80.0), level("sqlite", 500, 40.0, finished=0)]
    bench.add_ratios(rows)
    assert [r.ratio_p95_vs_bare for r in rows] == [1.0, 4.0, 1.0, 8.0, None]
    found = bench.crossings(rows, 50.0)
    assert found["bare"] == {"last_under": 200, "first_over": None, "text": "under 50 ms at every level (to 200)"}
    assert (found["sqlite"]["last_under"], found["sqlite"]["first_over"]) == (100, 200)  # 500 unfinished: over too
    assert "between 100 and 200" in found["sqlite"]["text"]
    assert bench.crossings([level("sqlite", 100, 60.0)], 50.0)["sqlite"]["text"].startswith("over 50 ms from the lowest level")


def test_options_refuse_unknown_configurations():
    with pytest.raises(SystemExit):
        bench.parse_options(["--configs", "bare,mysql"])
    options, configs, out = bench.parse_options(["--dialogues", "5", "--configs", "bare,pg-redis"])
    assert options.dialogues == 5 and configs == ["bare", "pg-redis"] and out is None
    assert options.target_p95_ms == 50.0 and options.sweep == [200] and options.ports == {}
    options, _, _ = bench.parse_options(["--concurrent", "500,100,200,100", "--target-p95-ms", "30", "--redis-port", "6399"])
    assert options.sweep == [100, 200, 500] and options.concurrent == 100 and options.target_p95_ms == 30.0
    assert options.ports == {"redis": 6399}
    _, configs, _ = bench.parse_options(["--configs", "pg-redis:1,pg-redis:2,pg-redis:4"])  # a worker sweep
    assert configs == ["pg-redis:1", "pg-redis:2", "pg-redis:4"]
    for wrong in (["--concurrent", "10,x"], ["--concurrent", "0"], ["--server-port", "70000"], ["--configs", "pg-redis:x"], ["--configs", "pg-redis:0"]):
        with pytest.raises(SystemExit):
            bench.parse_options(wrong)


def test_the_cpu_of_a_process_tree_includes_children_in_sessions_of_their_own():
    """As PostgreSQL's backends are: each leads its own session, so only the parent links them.

    A parent (its own process, so the test's other children never enter the sum) starts a busy
    grandchild in a new session; the parent's tree must hold the grandchild's CPU time.
    """
    import subprocess
    import time

    from load.servers import tree_cpu_seconds

    busy = "import time\nend = time.process_time() + 0.4\nwhile time.process_time() < end: pass\ntime.sleep(60)"
    parent_code = f"import subprocess, sys, time\nsubprocess.Popen([sys.executable, '-c', {busy!r}], start_new_session=True)\ntime.sleep(60)"
    parent = subprocess.Popen([sys.executable, "-c", parent_code], start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while tree_cpu_seconds(parent.pid) < 0.35 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert tree_cpu_seconds(parent.pid) >= 0.35
    finally:
        import os
        import signal

        for pid in _children_of(parent.pid):
            os.kill(pid, signal.SIGKILL)
        parent.kill()
        parent.wait()


def _children_of(pid: int) -> list[int]:
    """Direct children of `pid`, from /proc."""
    import pathlib

    found = []
    for stat in pathlib.Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


def test_the_timeline_puts_each_event_in_the_slice_it_was_sent_in():
    result = bench.Result(config="sqlite", requested=1, concurrent=1)
    bench.assess(result, played(a_seen=[(1, 2.3)]), {"d1": [HI, HELLO]}, slice_seconds=0.5)
    # hi sent at t=1 seen 50 ms later; hello sent at t=2 (a second later: slice 2) seen 300 ms later
    assert result.timeline == [
        {"from_s": 0.0, "events": 1, "p50_ms": pytest.approx(50.0), "p95_ms": pytest.approx(50.0), "max_ms": pytest.approx(50.0)},
        {"from_s": 1.0, "events": 1, "p50_ms": pytest.approx(300.0), "p95_ms": pytest.approx(300.0), "max_ms": pytest.approx(300.0)},
    ]
    console = Console(width=200, record=True)
    console.print(bench.timeline_table([result], 0.5))
    assert "300.0 (1)" in console.export_text()
    assert judged(played(), {"d1": [HI, HELLO]}).timeline == []  # only when asked for


def test_the_clients_loop_lag_is_summarised_and_put_in_the_slices_it_was_measured_in():
    result = bench.Result(config="sqlite", requested=1, concurrent=1)
    lags = [(0.5, 0.001), (1.1, 0.002), (2.2, 0.120), (2.3, 0.004)]  # before the first send, then slices 0 and 1
    bench.assess(result, played(a_seen=[(1, 2.3)]), {"d1": [HI, HELLO]}, slice_seconds=1.0, lags=lags)
    assert result.client_lag_ms == {"p50": pytest.approx(2.0), "p95": pytest.approx(120.0), "max": pytest.approx(120.0)}
    assert [row.get("client_lag_p95_ms") for row in result.timeline] == [pytest.approx(2.0), pytest.approx(120.0)]
    console = Console(width=200, record=True)
    console.print(bench.timeline_table([result], 1.0))
    assert "300.0 (1) / 120.0" in console.export_text()


def test_the_lag_probe_sees_a_loop_that_a_blocking_call_holds_up():
    from load.participants import with_lag_probe

    async def blocked() -> None:
        await asyncio.sleep(0.12)
        time.sleep(0.2)  # a simulated person's agent thinking on the loop
        await asyncio.sleep(0.12)

    samples: list[tuple[float, float]] = []
    asyncio.run(with_lag_probe(blocked(), samples))
    assert len(samples) >= 3
    assert max(lag for _, lag in samples) >= 0.1, samples

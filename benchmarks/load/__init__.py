"""Helpers of the load benchmark (`benchmarks/bench_load.py`).

* `participants`: simulated participants, websocket clients driven by rule agents, for the
  platform and for the bare relay, and what they measure (relay latency, lost and duplicated events).
* `relay`: the bare websocket relay, the practical limit any relay server can reach.
* `servers`: start and stop the servers the benchmark measures (the relay, `duologue serve` on
  SQLite, PostgreSQL + Redis + `duologue serve --workers 2`) as subprocesses on loopback ports.
* `serve_wrapper`: `duologue serve` with bench-only instrumentation (cProfile, SQLite in WAL mode).
"""

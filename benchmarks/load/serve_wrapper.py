"""`duologue serve` under cProfile, for the benchmark's `--profile`.

`python serve_wrapper.py serve --port ...` is `duologue serve --port ...`; with
`DUOLOGUE_BENCH_PROFILE=FILE` the server runs under cProfile and writes the stats to FILE when it
stops (SIGINT lets uvicorn shut down and this script finish). One process only.
"""

from __future__ import annotations

import cProfile
import os
import sys


def main() -> None:
    sys.argv = ["duologue", *sys.argv[1:]]
    from duologue.cli import main as duologue_main

    stats_file = os.environ.get("DUOLOGUE_BENCH_PROFILE")
    profiler = cProfile.Profile() if stats_file else None
    if profiler is not None:
        profiler.enable()
    try:
        duologue_main()
    except (SystemExit, KeyboardInterrupt):
        pass
    finally:
        if profiler is not None:
            profiler.disable()
            profiler.dump_stats(stats_file)


if __name__ == "__main__":
    main()

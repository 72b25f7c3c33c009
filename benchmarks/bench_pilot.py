"""How long `duologue pilot` takes to bring n simulated people to a code, on a signed-links study
and on a Prolific study (the target: 20 people in under 3 minutes on a 2-core machine).

Run: `.venv/bin/python benchmarks/bench_pilot.py [-n 20] [--at-once N] [--study casino]
[--chromium /usr/bin/chromium] [--json OUT]`

Each study is the built-in one (`--study`, CaSiNo by default) against its rule bot (after 0.5 s),
once with `crowd: links` (the pilot signs each link with the study's secret) and once with
`crowd: prolific` (made-up PROLIFIC_PID and SESSION_ID with the study's STUDY_ID). Each person goes
through the real pages in Chromium, several at once (`--at-once`, default from the cores), on a
temporary SQLite platform; the time is from the pilot's start (the platform's start and the
browser's launch included) to the last person's code. The machine's load average is printed with
the figures, since other processes on shared cores change them.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from duologue.web.payments import Pay
from duologue.web.pilot import CHROMIUM, parallel, pilot
from duologue.web.study_cli import builtin_studies

VARIANTS = {
    "signed links": {"crowd": "links", "pay": Pay(link_secret="bench-secret")},
    "prolific": {"crowd": "prolific", "prolific_study_id": "63aa0bcc1122334455667788"},
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=20)
    parser.add_argument("--at-once", type=int, default=None)
    parser.add_argument("--study", default="casino")
    parser.add_argument("--chromium", default=CHROMIUM)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    base = {s.id: s for s in builtin_studies()}[args.study].model_copy(update={"bot_wait_seconds": 0.5})
    rows = []
    for name, update in VARIANTS.items():
        study = base.model_copy(update=update)
        load = os.getloadavg()[0]
        started = time.perf_counter()
        results, dialogues = pilot(study, args.n, chromium=args.chromium, at_once=args.at_once)
        seconds = time.perf_counter() - started
        codes = sum(1 for r in results if r.code and not r.error)
        rows.append({"study": name, "n": args.n, "at_once": args.at_once or parallel(args.n), "codes": codes, "dialogues": len(dialogues), "seconds": round(seconds, 1), "load_before": round(load, 2), "load_after": round(os.getloadavg()[0], 2)})
        errors = [r.error for r in results if r.error]
        if errors:
            print(f"{name}: {len(errors)} error(s), first: {errors[0]}", file=sys.stderr)
    print(f"{'study':<14} {'people':>6} {'at once':>7} {'codes':>5} {'seconds':>8} {'load (1 min) before/after':>26}")
    for row in rows:
        print(f"{row['study']:<14} {row['n']:>6} {row['at_once']:>7} {row['codes']:>5} {row['seconds']:>8.1f} {row['load_before']:>12.2f} / {row['load_after']:<.2f}")
    print(f"cores: {os.cpu_count()}; target: {args.n} people to a code in under 180 s")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2), encoding="utf-8")
    return 0 if all(row["codes"] == row["n"] for row in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())

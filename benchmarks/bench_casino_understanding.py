"""How well the CaSiNo reader (`duologue.tasks.casino.understanding.read`) understands real people.

Run: `.venv/bin/python benchmarks/bench_casino_understanding.py [--halves dev] [--errors dev] [--cv] [--alone] [--resamples 2000]`

Measured on the project's labelled set (`src/duologue/tasks/casino/understanding_set.jsonl`: 3241
real messages of the train and valid splits, labelled by hand for duologue (1491 of them held out as `test`); see
`duologue.tasks.casino.understanding_eval`). The `dev` half was looked at while improving the
reader; the `test` half was not, and only its errors stay hidden (`--errors test` would show them:
do not tune on what it prints). `--halves dev` scores the dev half alone, for working on the reader
without looking at test. Reads the corpus from `$DUOLOGUE_DATA/casino/split` (default
`../shared/data`), and exits cleanly when it is absent. Each message is read with the dialogue
before it (`read(text, context=...)`), as its labeller read it; `--alone` reads each message by
itself, as callers without the dialogue do. Prints per half, with 95% bootstrap
intervals (items resampled): exact offer reading (precision over the reader's proposals, recall
over labelled offers), the speaker's top and least-needed issue, tops invented for messages that
state none, and stance (agree / refuse / other); then the targets with PASS/FAIL (test half: offer
precision and recall >= 0.90, top issue >= 0.85).

The dev half flatters the reader: its rules were tuned on it and its learned second look
(`understanding_learned`) was trained on it. `--cv` adds the estimate for unseen text that needs
neither half: the rules' fresh readings of the dev messages (how they read each one before they
were ever tuned on it), alone and revised by a model trained on the other labelling rounds
(`understanding_training`, folds by round; needs scikit-learn).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from rich.console import Console
from rich.table import Table

from duologue.arena.report import bootstrap_mean
from duologue.tasks.casino.understanding_eval import load_set, score
from duologue.tasks.casino.understanding_learned import default_model

MEASURES = (
    ("offer_precision", "offer exact, precision"),
    ("offer_recall", "offer exact, recall"),
    ("top", "top issue"),
    ("low", "least-needed issue"),
    ("false_top", "invented top (lower is better)"),
    ("stance", "stance"),
)
TARGETS = {"offer_precision": 0.90, "offer_recall": 0.90, "top": 0.85}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--errors", choices=("dev", "test"), help="Also print the misreadings of this half.")
    parser.add_argument("--halves", nargs="+", choices=("dev", "test"), default=["dev", "test"], help="Which halves to score.")
    parser.add_argument("--resamples", type=int, default=2000)
    parser.add_argument("--alone", action="store_true", help="Read each message without the dialogue before it.")
    parser.add_argument("--cv", action="store_true", help="Also cross-validate the learned second look over labelling rounds (fresh readings of dev).")
    args = parser.parse_args()
    console = Console()
    root = Path(os.environ.get("DUOLOGUE_DATA", Path(__file__).resolve().parents[1].parent / "shared" / "data"))
    folder = root / "casino" / "split"
    if not folder.exists():
        console.print(f"[yellow]skipped: the CaSiNo corpus is not at {folder} (set DUOLOGUE_DATA)[/]")
        return 0
    items = load_set(folder)
    table = Table(title=f"CaSiNo reader on {len(items)} hand-labelled real messages", title_justify="left")
    for column in ("measure", "half", "mean", "95% interval", "n"):
        table.add_column(column, justify="left" if column in ("measure", "half") else "right")
    results = {}
    for half in args.halves:
        scores = score([i for i in items if i.half == half], in_context=not args.alone)
        results[half] = scores
        for name, label in MEASURES:
            values = getattr(scores, name)
            if not values:
                continue
            estimate = bootstrap_mean(values, samples=args.resamples)
            table.add_row(label, half, f"{estimate.mean:.3f}", f"[{estimate.low:.3f}, {estimate.high:.3f}]", str(estimate.n))
    console.print(table)
    failed = False
    for name, target in TARGETS.items() if "test" in results else ():
        values = getattr(results["test"], name)
        mean = sum(values) / len(values) if values else 0.0
        ok = mean >= target
        failed |= not ok
        console.print(f"target {name} >= {target:.2f} on test: {mean:.3f} {'[green]PASS[/]' if ok else '[red]FAIL[/]'}")
    if args.cv:
        from duologue.tasks.casino.understanding_training import cross_validated, out_of_fold

        estimates = cross_validated(items, out_of_fold(items), default_model().thresholds)
        cv_table = Table(title="unseen text: fresh dev readings, cross-validated by labelling round", title_justify="left")
        for column in ("reader, rounds", "precision", "n", "recall", "n"):
            cv_table.add_column(column, justify="left" if column.startswith("reader") else "right")
        for name, (precision, recall, n_read, n_wanted) in estimates.items():
            cv_table.add_row(name, f"{precision:.3f}", str(n_read), f"{recall:.3f}", str(n_wanted))
        console.print(cv_table)
    if args.errors in results:
        for miss in results[args.errors].misses:
            console.print(miss, highlight=False, markup=False)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

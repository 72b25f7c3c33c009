"""CraigslistBargain coarse dialogue acts and prices (`acts` annotator) against the corpus parser's labels.

Run: `.venv/bin/python benchmarks/bench_craigslist_acts.py [--data DIR]`

The validation split carries the labels of CoCoA's rule-based parser on every turn of the
dialogues it parsed (4,797 events). duologue's word lists for price contexts (`prices.py`) were
tuned by looking at the errors on one half of these dialogues only (the `tune` half: dialogues
whose sha256(uuid) is even); the `held-out` half was not looked at while tuning, so its figures
are the honest estimate. Both are printed, with the whole split.

It prints:
* per split: intent accuracy (with a 95% bootstrap interval over events), macro F1, price
  exact-match precision / recall / F1 (all events with a price slot, and messages only);
* per-act precision / recall / F1 and the confusion matrix on the whole split;
* tagging speed: events and messages per second (the whole split, annotated 3 times, token cache cleared each time).
Targets: intent accuracy >= 0.95 and price F1 >= 0.95.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from duologue.arena.report import bootstrap_mean
from duologue.core.schema import Dialogue, Message
from duologue.data.io import read_corpus
from duologue.tasks import corpus_format
from duologue.tasks.craigslist import price_tracker
from duologue.tasks.craigslist.acts import GOLD_SOURCE, ActAnnotator, dialogue_acts


def half_of(dialogue: Dialogue) -> str:
    """`tune` or `held-out`, fixed by the dialogue's id."""
    return "tune" if int(hashlib.sha256((dialogue.id or "").encode()).hexdigest(), 16) % 2 == 0 else "held-out"


def correct_flags(dialogues: list[Dialogue]) -> list[float]:
    """1.0 / 0.0 per labelled event: whether the predicted act equals the gold act."""
    flags = []
    for dialogue in dialogues:
        gold = {a.event: a.labels[0] for a in dialogue.annotations if a.layer == "intent" and a.source == GOLD_SOURCE and a.labels}
        if not gold:
            continue
        acts = dialogue_acts(dialogue)
        flags.extend(1.0 if acts[i] is not None and acts[i].intent == label else 0.0 for i, label in gold.items())
    return flags


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path(os.environ.get("DUOLOGUE_DATA", Path(__file__).resolve().parents[2] / "shared" / "data")))
    args = parser.parse_args()
    console = Console()
    path = args.data / "craigslist" / "validation.json"
    dialogues = read_corpus(corpus_format("craigslist"), path, skip_invalid=True).dialogues
    annotator = ActAnnotator()
    splits = {"all": dialogues, "tune": [d for d in dialogues if half_of(d) == "tune"], "held-out": [d for d in dialogues if half_of(d) == "held-out"]}

    table = Table(title=f"acts vs the corpus parser's labels ({path.name})", title_justify="left")
    for column in ("split", "dialogues", "events", "intent accuracy [95%]", "message accuracy", "macro F1", "price P", "price R", "price F1", "message price F1"):
        table.add_column(column, justify="left" if column == "split" else "right")
    evaluations = {}
    for name, chosen in splits.items():
        evaluation = annotator.evaluate(chosen)
        evaluations[name] = evaluation
        accuracy = bootstrap_mean(correct_flags(chosen))
        m = evaluation.metrics
        table.add_row(
            name, str(len(chosen)), str(evaluation.items), f"{accuracy.mean:.3f} [{accuracy.low:.3f}, {accuracy.high:.3f}]",
            f"{m['message_intent_accuracy']:.3f}", f"{m['macro_f1']:.3f}", f"{m['price_precision']:.3f}", f"{m['price_recall']:.3f}",
            f"{m['price_f1']:.3f}", f"{m['message_price_f1']:.3f}",
        )
    console.print(table)

    whole = evaluations["all"]
    per = Table(title="per act (whole split)", title_justify="left")
    for column in ("act", "precision", "recall", "F1", "support"):
        per.add_column(column, justify="left" if column == "act" else "right")
    for label, score in whole.per_label.items():
        per.add_row(label, f"{score.precision:.3f}", f"{score.recall:.3f}", f"{score.f1:.3f}", str(score.support))
    console.print(per)

    labels = sorted({label for row in (whole.confusion or {}).values() for label in row} | set(whole.confusion or {}))
    confusion = Table(title="confusion (rows: gold, columns: predicted)", title_justify="left")
    confusion.add_column("gold")
    for label in labels:
        confusion.add_column(label[:8], justify="right")
    for gold, row in (whole.confusion or {}).items():
        confusion.add_row(gold, *(str(row.get(label, "")) for label in labels))
    console.print(confusion)

    events = sum(len(d.events) for d in dialogues)
    messages = sum(1 for d in dialogues for e in d.events if isinstance(e, Message))
    rounds = 3
    elapsed = 0.0
    for _ in range(rounds):
        price_tracker._parser_tokens.cache_clear()  # measure reading new text, not the token cache
        price_tracker._line_numbers.cache_clear()
        start = time.perf_counter()
        for dialogue in dialogues:
            annotator.annotate(dialogue)
        elapsed += time.perf_counter() - start
    speed = Table(title="tagging speed (one process)", title_justify="left")
    for column in ("dialogues", "events", "messages", "events/s", "messages/s"):
        speed.add_column(column, justify="right")
    speed.add_row(str(len(dialogues)), str(events), str(messages), f"{rounds * events / elapsed:,.0f}", f"{rounds * messages / elapsed:,.0f}")
    console.print(speed)


if __name__ == "__main__":
    main()

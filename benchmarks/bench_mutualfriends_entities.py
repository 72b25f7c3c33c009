"""How well and how fast the MutualFriends entity annotator finds the knowledge-base values a message names.

Run: `.venv/bin/python benchmarks/bench_mutualfriends_entities.py [--resamples 1000] [--errors dev]
[--write eval.jsonl]`

Measured on the project's labelled set (`src/duologue/tasks/mutualfriends/entity_eval.jsonl`, 250
hand-written utterances over 14 scenarios, see `duologue.tasks.mutualfriends.entities`). The set is
split per scenario into a `dev` half, which was looked at while improving the linker, and a `test`
half, held out: only its figures are reported, never its errors (`--errors test` would show them;
do not tune on what it prints). Prints:

* the set: utterances, gold mentions, negated mentions, per attribute;
* quality per half and knowledge base (`union` of both lists, the annotator's default; `speaker`'s
  own list; `listener`'s own list, i.e. what the rule agent reads with): mention and negated-mention
  precision / recall / F1 via `EntityAnnotator.evaluate`, with 95% percentile-bootstrap intervals of
  the F1s (utterances resampled), negation accuracy and exact spans over the mentions found;
* held-out scores per attribute;
* tagging speed in utterances per second, on the labelled set and on rule-vs-random self-play
  transcripts (a fresh annotator each time, so building each scenario's linker is counted);
* the target (held-out mention F1 >= 0.90) with PASS/FAIL.

`--write PATH` also writes the labelled set as duologue dialogues, for
`duologue annotate entities PATH --evaluate`.
"""

from __future__ import annotations

import argparse
import random
import time
from collections import Counter

from rich.console import Console
from rich.table import Table

from duologue.arena.selfplay import PlayConfig, play_one
from duologue.core.schema import Annotation, Dialogue
from duologue.tasks.mutualfriends.entities import KNOWLEDGE_BASES, EntityAnnotator, load_eval_set, write_eval_set

SPLITS = {"dev": "dev (seen)", "test": "test (held out)"}
"""`dev` was looked at while improving the linker; `test` was not."""
TARGET_F1 = 0.90
ABBREVIATIONS = {"Time Preference": "Time", "Location Preference": "Location"}


def intervals(annotator: EntityAnnotator, labelled: list[tuple[Dialogue, list[Annotation]]], metrics: tuple[str, ...], resamples: int, seed: int) -> dict[str, tuple[float, float]]:
    """95% percentile-bootstrap intervals of evaluation metrics, resampling utterances with their predictions."""
    rng = random.Random(seed)
    values: dict[str, list[float]] = {metric: [] for metric in metrics}
    for _ in range(resamples):
        scored = annotator.score([rng.choice(labelled) for _ in labelled]).metrics
        for metric in metrics:
            values[metric].append(scored[metric])
    low, high = int(0.025 * (resamples - 1)), int(0.975 * (resamples - 1))
    return {metric: (sorted(v)[low], sorted(v)[high]) for metric, v in values.items()}


def set_table(halves: dict[str, list[Dialogue]]) -> Table:
    table = Table(title="labelled set (entity_eval.jsonl)", title_justify="left")
    for column in ("half", "utterances", "no entity", "mentions", "negated", "per attribute"):
        table.add_column(column, justify="left" if column in ("half", "per attribute") else "right")
    annotator = EntityAnnotator()
    for half, dialogues in halves.items():
        gold = [a for d in dialogues for a in annotator.gold(d) if a.labels]
        attributes = Counter(a.value["attribute"] for a in gold)
        table.add_row(
            SPLITS[half],
            str(len(dialogues)),
            str(sum(1 for d in dialogues if not any(a.labels for a in annotator.gold(d)))),
            str(len(gold)),
            str(sum(1 for a in gold if a.value["negated"])),
            " ".join(f"{ABBREVIATIONS.get(k, k)}:{v}" for k, v in sorted(attributes.items())),
        )
    return table


def quality_tables(halves: dict[str, list[Dialogue]], resamples: int, seed: int) -> tuple[list[Table], dict]:
    """Mention and negated-mention scores per half and knowledge base, with bootstrap intervals of the F1s."""
    mentions = Table(title="mentions (attribute and value right, per message)", title_justify="left")
    negations = Table(title="negated mentions (attribute, value and negation right)", title_justify="left")
    for table, extra in ((mentions, "exact span"), (negations, "negation acc.")):
        for column in ("half", "knowledge base", "precision", "recall", "F1", "95% interval", extra):
            table.add_column(column, justify="left" if column in ("half", "knowledge base") else "right")
    results = {}
    for half, dialogues in halves.items():
        for kb in KNOWLEDGE_BASES:
            annotator = EntityAnnotator(kb)
            evaluation = annotator.evaluate(dialogues)
            results[(half, kb)] = evaluation
            m = evaluation.metrics
            bounds = intervals(annotator, [(d, annotator.annotate(d)) for d in dialogues], ("mention_f1", "negation_f1"), resamples, seed)
            label = SPLITS[half] if kb == KNOWLEDGE_BASES[0] else ""
            name = kb + {"union": " (default)", "listener": " (rule agent)"}.get(kb, "")
            for table, prefix, extra in ((mentions, "mention", m["span_exact"]), (negations, "negation", m["negation_accuracy"])):
                low, high = bounds[f"{prefix}_f1"]
                table.add_row(label, name, f"{m[prefix + '_precision']:.3f}", f"{m[prefix + '_recall']:.3f}", f"{m[prefix + '_f1']:.3f}", f"[{low:.3f}, {high:.3f}]", f"{extra:.3f}")
    return [mentions, negations], results


def attribute_table(evaluation) -> Table:
    table = Table(title="held-out half, union knowledge base, per attribute", title_justify="left")
    for column in ("label", "precision", "recall", "F1", "support"):
        table.add_column(column, justify="left" if column == "label" else "right")
    for label, score in evaluation.per_label.items():
        table.add_row(label, f"{score.precision:.3f}", f"{score.recall:.3f}", f"{score.f1:.3f}", str(score.support))
    return table


def speed_table(eval_dialogues: list[Dialogue], transcripts: list[Dialogue], repeats: int) -> Table:
    table = Table(title="tagging speed (a fresh annotator per run, so building each scenario's linker counts)", title_justify="left")
    for column in ("dialogues", "knowledge base", "utterances", "seconds", "utterances/s"):
        table.add_column(column, justify="left" if column in ("dialogues", "knowledge base") else "right")
    sources = {"labelled set": eval_dialogues, f"rule vs random self-play, {len(transcripts)}": transcripts}
    for name, dialogues in sources.items():
        utterances = sum(len(d.messages()) for d in dialogues) * repeats
        for kb in KNOWLEDGE_BASES:
            start = time.perf_counter()
            for _ in range(repeats):
                annotator = EntityAnnotator(kb)
                for dialogue in dialogues:
                    annotator.annotate(dialogue)
            seconds = time.perf_counter() - start
            table.add_row(name if kb == KNOWLEDGE_BASES[0] else "", kb, f"{utterances:,}", f"{seconds:.2f}", f"{utterances / seconds:,.0f}")
    return table


def errors(dialogues: list[Dialogue]) -> Table:
    """Messages where the union annotator and the gold differ (for the dev half: the half one may look at)."""
    annotator = EntityAnnotator()
    table = Table(title="differences from gold (union)", title_justify="left")
    for column in ("message", "missed", "extra"):
        table.add_column(column)
    for dialogue in dialogues:
        gold = {(a.value["attribute"], a.labels[0], a.value["negated"]) for a in annotator.gold(dialogue) if a.labels}
        found = {(a.value["attribute"], a.labels[0], a.value["negated"]) for a in annotator.annotate(dialogue)}
        if gold != found:
            table.add_row(dialogue.events[0].text, "; ".join(map(str, sorted(gold - found))), "; ".join(map(str, sorted(found - gold))))
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples for the intervals")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--episodes", type=int, default=200, help="rule vs random self-play dialogues for the speed test")
    parser.add_argument("--repeats", type=int, default=3, help="runs over each speed corpus")
    parser.add_argument("--errors", choices=["dev", "test"], default=None, help="list the messages where the annotator differs from gold")
    parser.add_argument("--write", default=None, help="also write the labelled set as duologue dialogues (.jsonl) to this path")
    args = parser.parse_args()
    console = Console()

    halves = {half: load_eval_set(split=half) for half in SPLITS}
    console.print(set_table(halves))
    tables, results = quality_tables(halves, args.resamples, args.seed)
    for table in tables:
        console.print(table)
    console.print(attribute_table(results[("test", "union")]))

    config = PlayConfig(task="mutualfriends-v0", agents=["rule", "random"], episodes=args.episodes, seed=args.seed)
    transcripts = [play_one(config, number) for number in range(args.episodes)]
    console.print(speed_table(halves["dev"] + halves["test"], transcripts, args.repeats))

    targets = Table(title="target, held-out half, union knowledge base", title_justify="left")
    for column in ("metric", "value", "target", "result"):
        targets.add_column(column, justify="left" if column == "metric" else "right")
    held_out = results[("test", "union")].metrics
    met = held_out["mention_f1"] >= TARGET_F1
    targets.add_row("mention F1", f"{held_out['mention_f1']:.3f}", f">= {TARGET_F1:.2f}", "[green]PASS[/]" if met else "[red]FAIL[/]")
    targets.add_row("negated-mention F1", f"{held_out['negation_f1']:.3f}", "reported", "")
    console.print(targets)

    if args.errors:
        console.print(errors(halves[args.errors]))
    if args.write:
        console.print(f"wrote the labelled set as dialogues to {write_eval_set(args.write)}")


if __name__ == "__main__":
    main()

"""How well and how fast the CaSiNo strategy tagger labels utterances.

Run: `.venv/bin/python benchmarks/bench_casino_strategies.py [--folds 5] [--seed 0] [--bootstrap 1000] [--data DIR]`

Prints, as tables:

1. Dialogue-grouped k-fold cross-validation of the training recipe on the annotated dialogues of the
   corpus's training split (each fold tunes its thresholds inside its own training part): per-label
   F1 as mean with a 95% t-interval across folds and pooled over all held-out utterances, macro and
   micro F1 likewise, and a 95% bootstrap interval of the pooled macro F1 (dialogues resampled).
2. The shipped model on the annotated dialogues of the validation split (it was trained on all
   annotated training dialogues), per label.
3. Tagging speed of the shipped model in utterances per second (one utterance at a time, as the
   annotator and agents call it).
4. The rule parser's question detector (`understanding.read(...).asks_preferences`) against the
   tagger's held-out `elicit-pref` labels: what the rule agent would gain by using the tagger.

Cross-validation refits the model 30 times (5 outer folds, each with 5 inner threshold folds and one
final fit): a few minutes on two cores. `--folds 0` skips it.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from duologue.core.annotator import label_scores
from duologue.data.io import read_corpus
from duologue.tasks import corpus_format
from duologue.tasks.casino.strategies import load_model
from duologue.tasks.casino.strategy_annotator import StrategyAnnotator
from duologue.tasks.casino.strategy_training import cross_validate, examples_of
from duologue.tasks.casino.understanding import read

TARGET_MACRO_F1 = 0.70


def data_dir(given: str | None) -> Path:
    if given:
        return Path(given)
    root = Path(os.environ.get("DUOLOGUE_DATA", Path(__file__).resolve().parents[2] / "shared" / "data"))
    return root / "casino" / "split"


def cross_validation_table(cv) -> Table:
    table = Table(title=f"cross-validation on the training split: {cv.folds} folds grouped by dialogue, seed {cv.seed}", title_justify="left")
    for column in ("label", "F1 (mean over folds)", "95% interval (folds)", "F1 (pooled)", "precision", "recall", "support"):
        table.add_column(column, justify="left" if column == "label" else "right")
    for label, score in cv.pooled.items():
        mean, low, high = cv.interval(label)
        table.add_row(label, f"{mean:.3f}", f"[{low:.3f}, {high:.3f}]", f"{score.f1:.3f}", f"{score.precision:.3f}", f"{score.recall:.3f}", str(score.support))
    for metric in ("macro_f1", "micro_f1"):
        mean, low, high = cv.interval(metric)
        table.add_row(f"[bold]{metric}[/]", f"{mean:.3f}", f"[{low:.3f}, {high:.3f}]", f"{cv.pooled_metrics[metric]:.3f}", "", "", "")
    low, high = cv.bootstrap_macro
    table.caption = f"pooled macro F1 95% bootstrap interval (dialogues resampled): [{low:.3f}, {high:.3f}]"
    return table


def validation_table(evaluation) -> Table:
    table = Table(title=f"shipped model on the validation split: {evaluation.items} annotated utterances", title_justify="left")
    for column in ("label", "precision", "recall", "F1", "support"):
        table.add_column(column, justify="left" if column == "label" else "right")
    for label, score in evaluation.per_label.items():
        table.add_row(label, f"{score.precision:.3f}", f"{score.recall:.3f}", f"{score.f1:.3f}", str(score.support))
    for metric, value in evaluation.metrics.items():
        table.add_row(f"[bold]{metric}[/]", "", "", f"{value:.3f}", "")
    return table


def speed_table(texts: list[str], previous: list[str | None]) -> Table:
    tagger = StrategyAnnotator()
    tagger.tag(texts[:10], previous[:10])  # warm up
    start = time.perf_counter()
    for text, before in zip(texts, previous, strict=True):
        tagger.tag([text], [before])
    one = len(texts) / (time.perf_counter() - start)
    start = time.perf_counter()
    tagger.tag(texts, previous)
    batch = len(texts) / (time.perf_counter() - start)
    start = time.perf_counter()
    for text in texts:
        read(text)
    parser = len(texts) / (time.perf_counter() - start)
    table = Table(title=f"speed over {len(texts)} utterances", title_justify="left")
    table.add_column("what")
    table.add_column("utterances / s", justify="right")
    table.add_row("tagger, one utterance per call", f"{one:,.0f}")
    table.add_row("tagger, one call for all", f"{batch:,.0f}")
    table.add_row("rule parser (understanding.read), for scale", f"{parser:,.0f}")
    return table


def question_detector_table(examples, tagged: list[frozenset[str]], where: str) -> Table:
    """elicit-pref: the rule parser's `asks_preferences` against the tagger's held-out labels."""
    rows = {
        "rule parser (asks_preferences)": [frozenset({"elicit-pref"}) if read(e.text).asks_preferences else frozenset() for e in examples],
        "tagger (elicit-pref)": [frozenset({"elicit-pref"}) & labels for labels in tagged],
    }
    table = Table(title=f"detecting elicit-pref (what the rule agent reacts to), {where}", title_justify="left")
    for column in ("detector", "precision", "recall", "F1"):
        table.add_column(column, justify="left" if column == "detector" else "right")
    for name, predicted in rows.items():
        scores, _ = label_scores((e.labels & {"elicit-pref"}, p) for e, p in zip(examples, predicted, strict=True))
        score = scores.get("elicit-pref")
        if score is not None:
            table.add_row(name, f"{score.precision:.3f}", f"{score.recall:.3f}", f"{score.f1:.3f}")
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--bootstrap", type=int, default=1000)
    parser.add_argument("--data", help="folder with casino_train.json and casino_valid.json")
    args = parser.parse_args()
    console = Console()
    folder = data_dir(args.data)
    if not (folder / "casino_train.json").exists():
        console.print(f"[yellow]no CaSiNo corpus at {folder}; pass --data[/]")
        return
    fmt = corpus_format("casino")
    train_dialogues = read_corpus(fmt, folder / "casino_train.json").dialogues
    valid_dialogues = read_corpus(fmt, folder / "casino_valid.json").dialogues
    train_examples, valid_examples = examples_of(train_dialogues), examples_of(valid_dialogues)
    model = load_model()
    console.print(f"shipped model: {model.info.get('trained_on')}, {model.space.size:,} features, C={model.info['settings']['C']}")
    if args.folds:
        start = time.perf_counter()
        cv = cross_validate(train_examples, folds=args.folds, seed=args.seed, bootstrap=args.bootstrap)
        console.print(cross_validation_table(cv))
        mean, _, _ = cv.interval("macro_f1")
        verdict = "[green]PASS[/]" if mean >= TARGET_MACRO_F1 else "[red]FAIL[/]"
        console.print(f"target macro F1 >= {TARGET_MACRO_F1}: {mean:.3f} {verdict}  (cross-validation took {time.perf_counter() - start:.0f} s)")
    evaluation = StrategyAnnotator().evaluate([d for d in valid_dialogues if d.annotations_of("strategy")])
    if evaluation is not None:
        console.print(validation_table(evaluation))
    all_examples = train_examples + valid_examples
    console.print(speed_table([e.text for e in all_examples], [e.previous for e in all_examples]))
    if args.folds:
        console.print(question_detector_table(train_examples, [p for _, p in cv.predictions], "held-out folds of the training split"))
    else:
        tagged = [frozenset(t) for t in StrategyAnnotator().tag([e.text for e in valid_examples], [e.previous for e in valid_examples])]
        console.print(question_detector_table(valid_examples, tagged, "validation split"))

if __name__ == "__main__":
    main()

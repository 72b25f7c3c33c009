"""How far an LLM judge agrees with DUO's third-party raters, next to how far they agree with each other.

Run: `.venv/bin/python benchmarks/bench_llm_judge.py [--limit N] [--modes per_item,all] [--reason-chars C]`
(`--base-url URL --model M` for another endpoint; by default SmolLM2-135M runs in this process.)

Dialogues: the DUO files with third-party ratings, the first `--limit` of each group (English
and Japanese, ED and WoW). Raters compared, each on the same dialogues:

* the LLM judge (`duologue.evaluation.judge.Judge`), once per `--modes` entry: `per_item` (one
  request per item) and `all` (one request for every item);
* `baseline:mean`: always answers the group's mean third-party rating of the item (a judge with
  no information about the dialogue; it knows the language and setting);
* `baseline:length`: the bot's mean message length (for stylistic similarity: how close the
  bot's message length is to the user's), cut into five equal-count bands, 1-5.

Per criterion (pooled over the groups that ask it) it prints the raters' own Krippendorff's alpha
(interval), the alpha with the rater added and the change, alpha of the rater against the raters'
mean, and Spearman's rho against that mean and against the user's own rating, each with a 95%
bootstrap interval (`duologue.evaluation.judge.judge_agreement`). A rater that always gives the
same score has no rho (n/a). Then, per LLM mode: seconds per dialogue, requests, unusable replies,
missing answers and the scores it used.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import time
from collections import Counter, defaultdict
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from duologue.core.schema import Dialogue, Rating
from duologue.data.io import read_corpus
from duologue.evaluation.judge import DUO_ITEMS, Judge, JudgeResult, agreement_rows, judge_agreement, judge_dialogues, rated_party
from duologue.evaluation.judge_cli import agreement_cells
from duologue.tasks import corpus_format

GROUPS = (("ed", "en"), ("wow", "en"), ("ed", "ja"), ("wow", "ja"))


def data_root() -> Path:
    return Path(os.environ.get("DUOLOGUE_DATA", Path(__file__).resolve().parents[1].parent / "shared" / "data"))


def rated_dialogues(root: Path, limit: int) -> dict[str, list[Dialogue]]:
    """`<language>/<setting>` -> the first `limit` dialogues (by id) with third-party ratings."""
    fmt = corpus_format("duo")
    groups: dict[str, list[Dialogue]] = {}
    for setting, language in GROUPS:
        folder = root / "duo" / setting / language
        if not folder.is_dir():
            continue
        dialogues = [d for d in read_corpus(fmt, folder).dialogues if any(r.rater_kind == "third_party" for r in d.ratings)]
        groups[f"{language}/{setting}"] = sorted(dialogues, key=lambda d: d.id)[:limit]
    return groups


def third_party_values(dialogue: Dialogue, criterion: str) -> list[float]:
    return [float(r.value) for r in dialogue.ratings if r.rater_kind == "third_party" and r.criterion == criterion]


class MeanBaseline:
    """Answers every dialogue with its group's mean third-party rating of the item."""

    judge_id = "baseline:mean"

    def __init__(self, groups: dict[str, list[Dialogue]]) -> None:
        self.mean: dict[tuple[str, str], float] = {}
        self.group_of: dict[int, str] = {}
        for name, dialogues in groups.items():
            for dialogue in dialogues:
                self.group_of[id(dialogue)] = name
            for item in DUO_ITEMS:
                values = [v for d in dialogues for v in third_party_values(d, item.name)]
                if values:
                    self.mean[(name, item.name)] = round(statistics.fmean(values), 2)

    def rate(self, dialogue: Dialogue) -> JudgeResult:
        result = JudgeResult(dialogue.id, rated_party(dialogue))
        group = self.group_of[id(dialogue)]
        for item in DUO_ITEMS:
            if item.applies_to(dialogue) and (group, item.name) in self.mean:
                value = self.mean[(group, item.name)]
                result.ratings.append(Rating(rater_kind="model", rater_id=self.judge_id, target=result.target, criterion=item.name, value=value))
        return result


def _mean_length(dialogue: Dialogue, party: str | None) -> float:
    lengths = [len(m.text) for m in dialogue.messages() if m.party == party]
    return statistics.fmean(lengths) if lengths else 0.0


class LengthBaseline:
    """Scores from message lengths, cut into five equal-count bands over the dialogues it is given."""

    judge_id = "baseline:length"

    def __init__(self, dialogues: list[Dialogue]) -> None:
        self.features = {id(d): self.feature_values(d) for d in dialogues}
        self.cuts: dict[str, list[float]] = {}
        for name in ("length", "closeness"):
            values = sorted(features[name] for features in self.features.values())
            self.cuts[name] = [values[min(len(values) - 1, math.floor(len(values) * k / 5))] for k in range(1, 5)]

    @staticmethod
    def feature_values(dialogue: Dialogue) -> dict[str, float]:
        bot = rated_party(dialogue)
        user = next((p.id for p in dialogue.parties if p.id != bot), None)
        bot_length, user_length = _mean_length(dialogue, bot), _mean_length(dialogue, user)
        closeness = -abs(math.log((bot_length + 1) / (user_length + 1)))
        return {"length": bot_length, "closeness": closeness}

    def rate(self, dialogue: Dialogue) -> JudgeResult:
        result = JudgeResult(dialogue.id, rated_party(dialogue))
        features = self.features[id(dialogue)]
        for item in DUO_ITEMS:
            if not item.applies_to(dialogue):
                continue
            name = "closeness" if item.name == "stylistic_similarity" else "length"
            score = 1 + sum(features[name] >= cut for cut in self.cuts[name])
            result.ratings.append(Rating(rater_kind="model", rater_id=self.judge_id, target=result.target, criterion=item.name, value=score))
        return result


def merged(judged: dict[str, list[Dialogue]]) -> list[Dialogue]:
    """One copy of each dialogue holding every rater's ratings (the raters judged the same dialogues in the same order)."""
    runs = list(judged.values())
    combined = []
    for copies in zip(*runs, strict=True):
        dialogue = copies[0].model_copy(deep=True)
        for other in copies[1:]:
            dialogue.ratings.extend(r for r in other.ratings if r.rater_kind == "model")
        combined.append(dialogue)
    return combined


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=8, help="Rated dialogues per group (language x setting).")
    parser.add_argument("--modes", default="per_item,all", help="LLM judge modes to run, comma-separated.")
    parser.add_argument("--reason-chars", type=int, default=0, help="Reason length asked for (0: scores only, faster).")
    parser.add_argument("--base-url", default=None)
    parser.add_argument("--model", default="smollm2")
    parser.add_argument("--bootstrap", type=int, default=1000)
    parser.add_argument("--json", dest="json_out", default=None, help="Also write every figure to this JSON file.")
    args = parser.parse_args()
    console = Console(width=170)

    root = data_root()
    groups = rated_dialogues(root, args.limit)
    if not groups:
        console.print(f"DUO not found under {root} (set DUOLOGUE_DATA); nothing to measure")
        sys.exit(0)
    dialogues = [d for members in groups.values() for d in members]
    console.print(f"{len(dialogues)} rated DUO dialogues: " + ", ".join(f"{name} {len(members)}" for name, members in groups.items()))

    from duologue.llm.client import ChatClient

    judged: dict[str, list[Dialogue]] = {}
    costs: dict[str, dict[str, Any]] = {}
    with ExitStack() as stack:
        base_url = args.base_url
        if base_url is None:
            from duologue.llm.server import LocalServer

            base_url = stack.enter_context(LocalServer()).url
        client = stack.enter_context(ChatClient(base_url, args.model, timeout=300))
        for mode in [m.strip() for m in args.modes.split(",") if m.strip()]:
            judge = Judge(client, judge_id=f"{args.model}:{mode}", mode=mode, reason_chars=args.reason_chars)  # type: ignore[arg-type]
            results: list[JudgeResult] = []
            started = time.perf_counter()
            judged[judge.judge_id] = judge_dialogues(dialogues, judge, on_progress=results.append)
            seconds = time.perf_counter() - started
            scores: dict[str, Counter] = defaultdict(Counter)
            for result in results:
                for rating in result.ratings:
                    scores[rating.criterion][rating.value] += 1
            costs[judge.judge_id] = {
                "seconds_per_dialogue": seconds / len(dialogues),
                "requests": sum(r.calls for r in results),
                "unusable_replies": sum(r.unusable_replies for r in results),
                "missing": sum(len(r.missing) for r in results),
                "scores": {criterion: dict(sorted(counter.items())) for criterion, counter in scores.items()},
            }
            console.print(f"{judge.judge_id}: {seconds:.0f}s", highlight=False)
    for baseline in (MeanBaseline(groups), LengthBaseline(dialogues)):
        judged[baseline.judge_id] = judge_dialogues(dialogues, baseline)

    combined = merged(judged)
    table = Table(title=f"agreement with DUO's third-party raters ({len(dialogues)} dialogues; alpha interval level; 95% bootstrap intervals)", title_justify="left")
    for column in ("criterion", "rater", "n", "alpha raters", "alpha raters+rater", "change", "alpha rater~mean", "rho rater~mean", "rho rater~user"):
        table.add_column(column, justify="left" if column in ("criterion", "rater") else "right", no_wrap=True)
    everything: list[dict[str, Any]] = []
    for item in DUO_ITEMS:
        for rater in judged:
            row = agreement_rows([judge_agreement(combined, item.name, judge_id=rater, bootstrap=args.bootstrap)])[0]
            everything.append(row)
            table.add_row(item.name, rater, str(row["dialogues"]), *agreement_cells(row))
        table.add_section()
    console.print(table)

    cost = Table(title="LLM judge: cost and answers", title_justify="left")
    for column in ("rater", "s/dialogue", "requests", "unusable replies", "missing", "scores given (criterion: score x count)"):
        cost.add_column(column, justify="left" if column in ("rater", "scores given (criterion: score x count)") else "right")
    for rater, figures in costs.items():
        given = "; ".join(f"{c}: " + " ".join(f"{s}x{n}" for s, n in counts.items()) for c, counts in figures["scores"].items())
        cost.add_row(rater, f"{figures['seconds_per_dialogue']:.1f}", str(figures["requests"]), str(figures["unusable_replies"]), str(figures["missing"]), given)
    console.print(cost)
    if args.json_out:
        Path(args.json_out).write_text(json.dumps({"groups": {k: len(v) for k, v in groups.items()}, "agreement": everything, "cost": costs}, indent=1, default=float))


if __name__ == "__main__":
    main()

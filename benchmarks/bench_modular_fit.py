"""Do the modular CraigslistBargain agent's words fit their context? 200 sampled replies, checked automatically.

Run: `.venv/bin/python benchmarks/bench_modular_fit.py [--data DIR] [--replies 200] [--seed 0] [--dump FILE]`

The modular agent (`modular`, learning from `craigslist/validation.json`) plays the rule agent in
self-play over the project's listings, in both seats; its messages are pooled and `--replies` of
them are sampled with `--seed`. Each is checked by `tasks/craigslist/fitting.context_fit`:

* grounded: every content word is common bargaining talk (used in 2% or more of the corpus's
  dialogues) or was said in this listing or this dialogue (no `convertible` about a Civic sedan);
* an opening line does not react to something nobody said (`That is very unfair`);
* a question about the item that the listing answers is answered (or honestly not known).

The check was validated by hand: `src/duologue/tasks/craigslist/modular_fit_labels.jsonl` holds one
person's judgement (fits / does not fit, read with the partner's last message and the listing) of
300 replies in five rounds (50, 50, 50, 100, 50), keyed by the sha1 of the reply, the partner's message and the
listing title (no corpus text is stored). Rounds 1 and 2 (seed 0) were read while the check and the
generator were being written (check agreement 33/50, then 39/50); round 3 (`--seed 1`) was read after,
as the validation (43/50 agree before one last change to the check, 43/48 when re-met after it).
Round 4 (`--seed 2`, the first 100 sampled) was read after the generator learned to keep item words
to their listing, answer from the listing and talk price after a price stance, and the check
was tightened to match: 94/100 agree, and the person judged 94/100 fitting (47/50 in the first 50;
the check passed all 100; the six it missed: an answer about cleanliness to a question about
repairs, `the chair` for a table with chairs, `my truck` for a hatchback, `I can come down` while
naming the asking price, `Oh cool` to an `I don't know`, a bare `Thank you` to a greeting).
The last three kinds (also seen while developing) were then fixed in the generator or the check,
so round 4 no longer validates the final state; round 5 (`--seed 5`, the first 50 sampled, read
after those fixes) does: 47/50 agree and 47/50 judged fitting (the check passed all 50; missed:
`I do!` to `I'd pay cash.`, a repeated `No, one or the other` that answers nothing said, and a
question about the condition just described).

Mind what the share means: the agent itself keeps only retrieved lines that pass this check, so
nearly every retrieved reply passes it; the share measures the replies the filter cannot shape (its
answers from the listing, its templates) and the check's own blind spots are invisible in it. The
hand labels are the measure of those: the benchmark prints the agreement on the labelled replies it
meets again and the share the person judged fitting among them (replies change when the agent
changes, so the overlap is printed too).
`--dump FILE` writes the sampled replies with their context and the check's verdict as JSON lines,
for reading. Target: share that fits >= 0.9.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
from importlib import resources
from pathlib import Path

from rich.console import Console
from rich.progress import track
from rich.table import Table

from bench_craigslist_understanding import wilson  # the same Wilson interval (benchmarks/ is on the path when run)
from duologue.core.episode import play_episode
from duologue.core.schema import Message
from duologue.tasks import make
from duologue.tasks.craigslist.agents import CraigslistRuleAgent
from duologue.tasks.craigslist.fitting import context_fit
from duologue.tasks.craigslist.modular import CraigslistModularAgent


def key_of(reply: str, partner_said: str, title: str) -> str:
    return hashlib.sha1("\x1f".join((reply, partner_said, title)).encode()).hexdigest()


def replies(episodes: int, seed: int, corpus: Path) -> tuple[list[dict], frozenset[str]]:
    """Every modular message of `episodes` self-play games against the rule agent, with its context."""
    task = make("craigslist-v0")
    pooled: list[dict] = []
    common: frozenset[str] = frozenset()
    for episode in track(range(episodes), description="modular vs rule"):
        modular_party = "0" if episode % 2 == 0 else "1"
        modular = CraigslistModularAgent(str(corpus))
        agents = {modular_party: modular, ("1" if modular_party == "0" else "0"): CraigslistRuleAgent()}
        dialogue = play_episode(task, agents, seed=seed * 100_000 + episode)
        common = modular.knowledge.extra.get("common", frozenset())
        item = dialogue.scenario.private[modular_party]["item"]
        lines = [item["title"], *item["description"]]
        history: list[str] = []
        partner_said = ""
        for event in dialogue.events:
            if not isinstance(event, Message):
                continue
            if event.party == modular_party:
                pooled.append({"reply": event.text, "partner_said": partner_said, "title": item["title"], "lines": lines, "history": list(history)})
            else:
                partner_said = event.text
            history.append(event.text)
    return pooled, common


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path(os.environ.get("DUOLOGUE_DATA", Path(__file__).resolve().parents[2] / "shared" / "data")))
    parser.add_argument("--replies", type=int, default=200)
    parser.add_argument("--episodes", type=int, default=40)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--dump", type=Path)
    args = parser.parse_args()
    console = Console()
    corpus = args.data / "craigslist" / "validation.json"
    if not corpus.exists():
        console.print(f"[red]no corpus at {corpus}[/red] (set --data or DUOLOGUE_DATA)")
        raise SystemExit(2)
    pooled, common = replies(args.episodes, args.seed, corpus)
    sample = random.Random(args.seed).sample(pooled, min(args.replies, len(pooled)))
    verdicts = []
    for item in sample:
        ok, why = context_fit(item["reply"], partner_said=item["partner_said"], lines=item["lines"], history=item["history"], common=common)
        verdicts.append((item, ok, why))
    fitting = sum(ok for _, ok, _ in verdicts)
    low, high = wilson(fitting, len(verdicts))
    table = Table(title=f"modular replies that fit their context ({len(pooled)} replies in {args.episodes} games, {len(sample)} sampled)", title_justify="left")
    for column in ("replies", "fit", "share [95%]"):
        table.add_column(column, justify="right")
    table.add_row(str(len(verdicts)), str(fitting), f"{fitting / max(len(verdicts), 1):.3f} [{low:.3f}, {high:.3f}]")
    console.print(table)
    reasons: dict[str, int] = {}
    for _, ok, why in verdicts:
        if not ok:
            reasons[why.split(":")[0]] = reasons.get(why.split(":")[0], 0) + 1
    if reasons:
        console.print("misfits by reason: " + ", ".join(f"{r} {n}" for r, n in sorted(reasons.items(), key=lambda x: -x[1])))

    labels = {}
    text = resources.files("duologue.tasks.craigslist").joinpath("modular_fit_labels.jsonl")
    if text.is_file():
        labels = {row["key"]: row["fits"] for row in map(json.loads, text.read_text(encoding="utf-8").splitlines())}
    met = [(ok, labels[key_of(i["reply"], i["partner_said"], i["title"])]) for i, ok, _ in verdicts if key_of(i["reply"], i["partner_said"], i["title"]) in labels]
    if met:
        agree = sum(a == b for a, b in met)
        both = sum(a and b for a, b in met)
        judged = sum(b for _, b in met)
        low, high = wilson(judged, len(met))
        console.print(
            f"check vs the hand labels: {agree}/{len(met)} agree ({agree / len(met):.2f}); "
            f"hand labels say fit {judged}, the check {sum(a for a, _ in met)}, both {both}; "
            f"judged by hand to fit: {judged / len(met):.3f} [{low:.3f}, {high:.3f}]"
        )
    if args.dump:
        with args.dump.open("w", encoding="utf-8") as out:
            for item, ok, why in verdicts:
                out.write(json.dumps({"key": key_of(item["reply"], item["partner_said"], item["title"]), "check": ok, "why": why, "title": item["title"], "lines": item["lines"], "history": item["history"],
                                      "partner_said": item["partner_said"], "reply": item["reply"]}) + "\n")
        console.print(f"wrote {len(verdicts)} replies to {args.dump}")


if __name__ == "__main__":
    main()

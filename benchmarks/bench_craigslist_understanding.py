"""How well the CraigslistBargain reader understands people, on sets labelled from the real validation split.

Run: `.venv/bin/python benchmarks/bench_craigslist_understanding.py [--data DIR] [--splits dev]` (`--splits dev` reads only
the set that rules are tuned on; `--draw SIDE:SEED` prints a draw of messages to label instead, see below)

The labelled sets (`src/duologue/tasks/craigslist/*_labels.jsonl`) point at messages of
`craigslist/validation.json` by dialogue id and event index; one person (the developer who wrote the
rules) labelled every item by reading the message and its listing. Items were split by dialogue
(sha1 of the id) into `dev` and `test` before any rule was changed; rules were then tuned on `dev`.
For prices a third set, `heldout` (100 messages drawn afterwards from dialogues' other messages), was
labelled after the tuning and never tuned on: it is the honest figure. For questions and leaving, all
items were in view while the rules were written, so their `test` figures are optimistic.

Later the price `dev` set grew by 610 messages, labelled the same way and then tuned on: a seeded shuffle
of the unlabelled messages with a digit or a number word, from `dev` dialogues (sha1 parity) that hold no
`test` or `heldout` item, read and labelled in batches of about 90; each batch was scored before the rules
were changed for it (fresh batches scored 0.92 to 0.99). `test` and `heldout` were not read.

Then it grew by 585 more, labelled by reading before the reader was run, in six batches: the last 90
such messages of those `dev` dialogues, then seeded shuffles of such messages from the other dialogues
(the `test` parity) that hold no `test` or `heldout` item, so no labelled dialogue is split between
sets. Each batch was scored before the rules were changed for it, after the fixes for the batches
before it: 0.922 (90), 0.927 (110), 0.964 (110), 0.964 (110), 0.918 (110), 0.964 (55).

A second test set, `test2` (326 messages), makes the test figure worth reading (100 items cannot tell 0.96 from
0.97): every message with a digit or a number word (`NUMBERISH`) not already labelled, from the `test`-parity
dialogues that hold no `dev` item (some hold `test` or `heldout` items), in the order `--draw 1:14` prints (sorted,
then shuffled with seed 14). Each was labelled by reading the message and its listing before the reader was run on
any of them; a typo whose meaning the listing makes plain is labelled with the price meant (`$26(` for $269, `800`
for an $8,500 car). Scored once before any change for it, totals only: 304/326 = 0.933 (`test` and `test2` pooled:
400/426 = 0.939). Neither `test` set's errors were looked at.

Then `dev` grew by 138 more, the last unlabelled messages with a digit or a number word of `dev`-parity dialogues
(all of them hold `heldout` items, so these share dialogues with `heldout`, as `heldout` already did with `dev`), in
the order `--draw 0:14` prints, labelled by reading before the reader was run on them, in two batches; one message
was left out (a typo with two readings). Fresh reads: 66/70 = 0.943 with the reader as `test2` first read it, then
64/68 = 0.941 after the general fixes for the first batch (quotes such as `I see you have the desk for 80`, other
things' prices such as `similar places rent for around $2000`, a refusal in the next sentence such as `$120? That is
way too much`).

After those fixes and more general ones checked on reworded sentences, the test sets were read a second time, totals
only: `test2` 306/326 = 0.939 (0.933 before), `test` 96/100 (unchanged), pooled 402/426 = 0.944 [0.918, 0.962] (0.939
before), `heldout` 95/100 (unchanged). The target of 0.97 is not met: unseen text is read at about 0.94.

Then `dev` grew by 360 messages with neither a digit nor a number word (`"round": "no-number"` in the file), since no
unlabelled message with one was left outside the `test` dialogues (the corpus here is the validation split only; the
training split is not in the shared data): the first 360 of `--draw 0:15:rest` (every such message of `dev`-parity
dialogues that hold no `test` or `test2` item, sorted, then shuffled with seed 15), each labelled by reading it, its
listing and the message before it, and committed before the reader was run on them. None of them puts a price forward
(greetings, questions, `Deal!`, `that is too low`, `can you come down a bit?`), so they measure false alarms on
number-free text (prices in words outside `NUMBERISH`, such as `a tenner` or `half the asking price`, would count
here). The benchmark prints them as a row of their own as well as in `dev`.

With that round in, the reader was probed with about 450 sentences written anew (not corpus text) in the categories the
earlier fixes named: refusals, quotes of the other side's price, comparisons, limits, amounts to move by, other costs,
valuations, prices in words, shares and the whole listing price, ranges, formats, years, measures and phone numbers. It
missed about one in seven; the general shapes behind the misses were fixed and kept in
`tests/tasks/craigslist/test_price_generalisation.py` (a refusal as `not in my budget`, `lower than we hoped`,
`$45? Come on`, `no way I'd pay 90`, `come down to 40`; `how about 12500??` proposes; `I know 40 is low, but` offers;
`is 60 firm?`, `your posting says 60`, `you offered 40` quote; `50 instead of 60` compares; `10 apart`, `$10 short`,
`$80 worth of`, costs for gas or delivery; `I'll pay full price`; `Fifty?`, `60ish`). No `dev` item changed its reading
(1418/1433 of the earlier items, 360/360 of the number-free ones), and the test sets, read a third time (totals only),
did not move: `test` 96/100, `test2` 306/326, pooled 402/426 = 0.944, `heldout` 95/100. The errors left on unseen text
are not of the shapes that reworded sentences reach; the target of 0.97 is still not met.

A learned reading was tried and not shipped: a logistic regression (scikit-learn) over each found price, scoring it
from its flags, the rule reading, its size against the listing and the words around it. To learn how far the rules
can be trusted on text they were not tuned on, it was trained on fresh readings: each `dev` item read by the reader as
it was before that item was labelled (rebuilt from the project history). In 5-fold cross-validation by dialogue it
read 0.953 against the fresh rules' 0.942 (n=1433), but read forward in time (trained on the earlier batches, tested on
each later batch with the reader of its time, as it would meet new text) it read 1021 of 1073 against the rules' 1014
(20 fixed, 13 broken; a sign test gives p = 0.3), and as an override only when far more confident than the rules
gained at most 8: no clear gain, so the rules remain the reading.

* prices (1959 items: 1433 dev, 100 test, 326 test2, 100 heldout): the price the speaker puts forward in the message
  (their ask, offer, counter or limit; none for a refused, compared or relative amount, a valuation, the
  price of something else such as a deposit, or the other side's ask quoted back (`I see you are asking
  $1825`); a range is read as the price it starts at; the speaker's own amount off their own price names
  the new price: `I am asking $600. I can take $50 off` is 550), against `prices.find_price`; exact match;
* questions (70 buyer questions): `line` (the listing line that answers it), `describe` (any line:
  `tell me about it`), `deflect` (the listing is silent: say so) or `other` (not about the item:
  greetings, availability, price), against `reading.answer_question`; exact (same kind and line);
* leaving (80 messages with goodbye, sorry or refusal words): whether the speaker ends the
  negotiation without a deal, against `reading.read_message(...).leaving`.

Intervals: Wilson 95% intervals for shares.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import random
import re
from pathlib import Path

from rich.console import Console
from rich.table import Table

from duologue.tasks.craigslist.price_words import SCALE_WORDS, TENS_WORDS, UNIT_WORDS
from duologue.tasks.craigslist.prices import find_price
from duologue.tasks.craigslist.reading import answer_question, labelled_messages, read_message


def wilson(right: int, total: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a share (sound at 0 and 1, unlike the normal one)."""
    if total == 0:
        return 0.0, 1.0
    share = right / total
    centre = (share + z * z / (2 * total)) / (1 + z * z / total)
    half = z * math.sqrt(share * (1 - share) / total + z * z / (4 * total * total)) / (1 + z * z / total)
    return max(0.0, centre - half), min(1.0, centre + half)


NUMBERISH = re.compile(r"\d|\b(?:" + "|".join(sorted({*UNIT_WORDS, *TENS_WORDS, *SCALE_WORDS})) + r")\b", re.I)
"""A digit or a number word: what a message needs to be drawn for the price sets."""
TEST_PARITY = 1
"""Dialogues whose sha1 (of the id, as an integer) is odd hold the `test` items; even ones the `dev` items."""


def parity(dialogue_id: str) -> int:
    return int(hashlib.sha1(dialogue_id.encode()).hexdigest(), 16) % 2


def draw(dialogues: list[dict], labels: list[dict], *, side: int, seed: int, before: tuple[str, ...] = ("dev", "test", "heldout"),
         numberish: bool = True) -> list[tuple[str, int]]:
    """(dialogue, event) of every message with a digit or a number word not labelled in `before`, from dialogues of
    parity `side` (on the test side, only dialogues that hold no `dev` item), sorted and then shuffled with `seed`.
    With `numberish=False`, the messages with neither (and, on the dev side, only from dialogues with no `test` item)."""
    labelled = {(row["dialogue"], row["event"]) for row in labels if row["split"] in before}
    with_dev = {row["dialogue"] for row in labels if row["split"] == "dev"}
    with_test = {row["dialogue"] for row in labels if row["split"] in ("test", "test2")}
    pool = []
    for dialogue in sorted(dialogues, key=lambda d: d["uuid"]):
        uuid = dialogue["uuid"]
        if parity(uuid) != side or (side == TEST_PARITY and uuid in with_dev) or (not numberish and uuid in with_test):
            continue
        for index, event in enumerate(dialogue["events"]):
            if event["action"] == "message" and isinstance(event["data"], str) and (uuid, index) not in labelled and bool(NUMBERISH.search(event["data"])) == numberish:
                pool.append((uuid, index))
    random.Random(seed).shuffle(pool)
    return pool


def same_price(got: float | None, want: float | None) -> bool:
    return (got is None and want is None) or (got is not None and want is not None and abs(got - want) < 0.01)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draw", metavar="SIDE:SEED", help="print the drawn (dialogue, event) pairs instead (e.g. 1:14 for the test2 draw; "
                        "0:15:rest for messages with no digit or number word)")
    parser.add_argument("--splits", default="dev,test,test2,heldout", help="the price sets to read (e.g. dev while tuning)")
    parser.add_argument("--data", type=Path, default=Path(os.environ.get("DUOLOGUE_DATA", Path(__file__).resolve().parents[2] / "shared" / "data")))
    args = parser.parse_args()
    console = Console()
    path = args.data / "craigslist" / "validation.json"
    if not path.exists():
        console.print(f"[red]no corpus at {path}[/red] (set --data or DUOLOGUE_DATA)")
        raise SystemExit(2)
    if args.draw:
        from importlib import resources

        side, seed, *rest = args.draw.split(":")
        labels = [json.loads(line) for line in resources.files("duologue.tasks.craigslist").joinpath("price_labels.jsonl").read_text(encoding="utf-8").splitlines()]
        for uuid, index in draw(json.loads(path.read_text(encoding="utf-8")), labels, side=int(side), seed=int(seed), numberish=rest != ["rest"]):
            print(uuid, index)
        return

    table = Table(title=f"understanding people ({path.name})", title_justify="left")
    for column in ("set", "split", "items", "right", "share [95%]"):
        table.add_column(column, justify="left" if column in ("set", "split") else "right")

    def row(name: str, split: str, flags: list[bool]) -> None:
        low, high = wilson(sum(flags), len(flags))
        table.add_row(name, split, str(len(flags)), str(sum(flags)), f"{sum(flags) / max(len(flags), 1):.3f} [{low:.3f}, {high:.3f}]")

    prices = labelled_messages("price", path)
    read = {split: [same_price(find_price(i.text, listing_price=i.listing_price, listing_text=i.lines), i.label["price"]) for i in prices if i.split == split]
            for split in args.splits.split(",")}
    for split, flags in read.items():
        row("prices", split, flags)
        if split == "dev":
            fresh = [i for i in prices if i.split == "dev" and i.label.get("round") == "no-number"]
            row("prices", "dev: no-number", [same_price(find_price(i.text, listing_price=i.listing_price, listing_text=i.lines), i.label["price"]) for i in fresh])
    if "test" in read and "test2" in read:
        row("prices", "test+test2", read["test"] + read["test2"])
    questions = labelled_messages("question", path)
    for split in ("dev", "test"):
        flags = []
        for item in (q for q in questions if q.split == split):
            answer = answer_question(item.text, item.lines)
            flags.append(answer.kind == item.label["answer"] and (answer.kind != "line" or answer.line == item.label["line"]))
        row("questions", split, flags)
    leaving = labelled_messages("leaving", path)
    for split in ("dev", "test"):
        chosen = [m for m in leaving if m.split == split]
        got = [read_message(m.text, listing_price=m.listing_price).leaving for m in chosen]
        row("leaving", split, [g == m.label["leaving"] for g, m in zip(got, chosen, strict=False)])
        positives = sum(m.label["leaving"] for m in chosen)
        caught = sum(g and m.label["leaving"] for g, m in zip(got, chosen, strict=False))
        flagged = sum(got)
        table.add_row("", "", "", "", f"leaving: {positives} labelled, {caught} caught, {flagged - caught} false alarms")
    console.print(table)


if __name__ == "__main__":
    main()

"""The Deal or No Deal corpus format (Lewis et al. 2017, the end-to-end-negotiator release).

Native files (`train.txt`, `val.txt`, `test.txt`) hold one perspective of a dialogue per line:

```
<input> 3 3 3 0 1 1 </input> <dialogue> YOU: i'd like the books <eos> THEM: ok <eos> THEM: <selection> </dialogue>
<output> item0=2 item1=0 item2=1 item0=1 item1=3 item2=0 </output> <partner_input> 3 2 3 1 1 1 </partner_input>
```

(one line in the file). `<input>` is this side's count and value of each item type (book, hat,
ball), `<partner_input>` the partner's; the dialogue is `YOU:`/`THEM:` turns ended by `<eos>`, and
the side that pressed the selection button writes `<selection>`; `<output>` is this side's choice
then the partner's (`item0=a item1=b item2=c` each), or `<disagree>`, `<no_agreement>` or
`<disconnect>` six times. Each dialogue is stored twice, the second line being the first seen from
the other side (inputs, `YOU`/`THEM` and the output halves swapped); a few appear only once.

Records: the reader pairs a line with the next when that is its mirror, and makes one record
`{"perspectives": [line, mirror]}`; a line without one becomes `{"perspectives": [line]}`. The
same records can be stored as JSON or JSONL. Writing a record gives its lines back exactly, so a
file is given back line for line.

Mapping to the schema: the first line's `YOU` is party `alice`, `THEM` is `bob` (both people);
the pool is public and each side's values are its private `values`. Turns become `Message`s; the
selection becomes a `ChooseEvent` of the side that pressed it, followed by the other side's. With
an item output both carry what each side took; otherwise they carry null (the corpus does not
say what was entered) and a `SystemNote` names the output (`disagree`, `no_agreement`,
`disconnect`; a disconnect has only the first choice). Agreements score each side the value of
what it took; everything else scores 0.

Errors (the line cannot be read): not the line shape above, counts that are not whole numbers,
the two sides' counts differing, a second line that is not the first's mirror. Warnings (kept as
`Dialogue.anomalies`): a scenario outside the paper's generator constraints (`scenario`), items
chosen with no `<selection>` in the dialogue (`no-selection`; kept as `Source.extra["selection"]`),
item outputs that do not split the pool (`split`). A dialogue that ends with no selection and a
`<no_agreement>` or `<disconnect>` output is no anomaly: someone left.

Self-play and platform dialogues are written with two lines; messages are put on one line
(whitespace collapsed), the only change the one-line format forces.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, ClassVar, Iterable, Iterator, Mapping

from duologue.core.schema import Dialogue, Message, Party, Source, SystemNote
from duologue.data.formats import Checker, CorpusFormat, Problem
from duologue.tasks.dealornodeal.rules import ITEMS, scenario_problems
from duologue.tasks.dealornodeal.task import PARTY_IDS, ChooseEvent, choices, outcome_of, scenario_of

LINE = re.compile(r"<input> (?P<input>[^<]*) </input> <dialogue> (?P<dialogue>.*) </dialogue> <output> (?P<output>[^<>]*(?:<[a-z_]+>[^<>]*)*) </output> <partner_input> (?P<partner>[^<]*) </partner_input>")
OUTPUTS = ("disagree", "no_agreement", "disconnect")
"""The corpus's outputs other than a choice of items."""
EOS, SELECTION = "<eos>", "<selection>"
SPEAKERS = ("YOU", "THEM")
ITEM_KEYS = tuple(f"item{n}" for n in range(len(ITEMS)))


class LineError(ValueError):
    def __init__(self, path: str, reason: str):
        self.path = path
        super().__init__(reason)


_CONTEXT = re.compile(r"\d+(\s+\d+){5}")
"""A line of a context file (`selfplay.txt`): count and value of each of the three items."""


def parse_line(line: str, path: str = "$") -> dict[str, Any]:
    """One perspective line, read: inputs, turns, who selected, output. Raises `LineError`."""
    match = LINE.fullmatch(line)
    if match is None and _CONTEXT.fullmatch(line.strip()):
        raise LineError(path, "a scenario context (`c0 v0 c1 v1 c2 v2`, as in selfplay.txt), not a dialogue: play on such a file with `duologue play -t dealornodeal-v0 -O contexts=PATH`")
    if match is None:
        raise LineError(path, "not a perspective line (`<input> ... </input> <dialogue> ... </dialogue> <output> ... </output> <partner_input> ... </partner_input>`)")
    mine, partner = (_numbers(match[key], f"{path}.{key}") for key in ("input", "partner"))
    if mine[0::2] != partner[0::2]:
        raise LineError(f"{path}.partner_input", f"the two sides have different item counts: {mine[0::2]} and {partner[0::2]}")
    turns, selector = _turns(match["dialogue"], f"{path}.dialogue")
    return {"input": mine, "partner": partner, "turns": turns, "selector": selector, "output": _output(match["output"], f"{path}.output")}


def _numbers(text: str, path: str) -> list[int]:
    tokens = text.split(" ")
    if len(tokens) != 2 * len(ITEMS) or not all(t.isdigit() and t == str(int(t)) for t in tokens):
        raise LineError(path, f"expected {2 * len(ITEMS)} whole numbers (count and value of each item) separated by single spaces, got {text!r}")
    return [int(t) for t in tokens]


def _turns(text: str, path: str) -> tuple[list[tuple[str, str]], str | None]:
    segments = text.split(f" {EOS} ")
    selector = None
    last = segments[-1]
    for who in SPEAKERS:
        if last == f"{who}: {SELECTION}":
            selector = who
            segments = segments[:-1]
    if selector is None:
        if not last.endswith(f" {EOS}"):
            raise LineError(path, f"the dialogue ends neither with `YOU: {SELECTION}`/`THEM: {SELECTION}` nor with `{EOS}`")
        segments[-1] = last[: -len(EOS) - 1]
    turns = []
    for number, segment in enumerate(segments):
        who, sep, said = segment.partition(": ")
        if not sep or who not in SPEAKERS or SELECTION in said.split(" ") or EOS in said.split(" "):
            raise LineError(f"{path}[{number}]", f"a turn is `YOU: text` or `THEM: text`, got {segment[:60]!r}")
        turns.append((who, said))
    return turns, selector


def _output(text: str, path: str) -> list[list[int]] | str:
    tokens = text.split(" ")
    if len(tokens) == 2 * len(ITEMS):
        for name in OUTPUTS:
            if tokens == [f"<{name}>"] * len(tokens):
                return name
        halves = []
        for half in (tokens[: len(ITEMS)], tokens[len(ITEMS) :]):
            counts = []
            for key, token in zip(ITEM_KEYS, half, strict=True):
                name, sep, count = token.partition("=")
                if name != key or not sep or not count.isdigit() or count != str(int(count)):
                    break
                counts.append(int(count))
            halves.append(counts)
        if all(len(h) == len(ITEMS) for h in halves):
            return halves
    raise LineError(path, f"expected `item0=a item1=b item2=c` twice, or one of {', '.join(f'<{n}>' for n in OUTPUTS)} six times; got {text!r}")


def mirror(line: str) -> str:
    """The same dialogue seen from the other side (valid lines only)."""
    return write_line(_swap(parse_line(line)))


def _swap(parsed: dict[str, Any]) -> dict[str, Any]:
    other = {"YOU": "THEM", "THEM": "YOU", None: None}
    output = parsed["output"]
    return {
        "input": parsed["partner"],
        "partner": parsed["input"],
        "turns": [(other[who], said) for who, said in parsed["turns"]],
        "selector": other[parsed["selector"]],
        "output": output if isinstance(output, str) else [output[1], output[0]],
    }


def write_line(parsed: Mapping[str, Any]) -> str:
    """The line of a read perspective (the inverse of `parse_line`)."""
    turns = [f"{who}: {said} {EOS}" for who, said in parsed["turns"]]
    if parsed["selector"] is not None:
        turns.append(f"{parsed['selector']}: {SELECTION}")
    output = parsed["output"]
    if isinstance(output, str):
        out = " ".join([f"<{output}>"] * 2 * len(ITEMS))
    else:
        out = " ".join(f"{key}={n}" for half in output for key, n in zip(ITEM_KEYS, half, strict=True))
    numbers = lambda values: " ".join(map(str, values))  # noqa: E731
    return f"<input> {numbers(parsed['input'])} </input> <dialogue> {' '.join(turns)} </dialogue> <output> {out} </output> <partner_input> {numbers(parsed['partner'])} </partner_input>"


def pair_lines(lines: Iterable[str]) -> Iterator[tuple[int, list[str]]]:
    """(first line number, the perspectives of one dialogue): a line and the next when that is its
    mirror, else the line alone. Blank lines are skipped."""
    pending: tuple[int, str] | None = None
    for number, line in enumerate(lines, start=1):
        line = line.rstrip("\n").rstrip("\r")
        if not line.strip():
            continue
        if pending is not None:
            try:
                twin = mirror(pending[1])
            except LineError:
                twin = None
            if line == twin:
                yield pending[0], [pending[1], line]
                pending = None
                continue
            yield pending[0], [pending[1]]
        pending = (number, line)
    if pending is not None:
        yield pending[0], [pending[1]]


class DealOrNoDealFormat(CorpusFormat):
    """Deal or No Deal: one perspective per text line, each dialogue (usually) twice."""

    name = "dealornodeal"
    task = "dealornodeal"
    description = "Deal or No Deal (Lewis et al. 2017): split books, hats and balls; one perspective per line"
    layout = "list"
    suffixes: ClassVar[tuple[str, ...]] = (".txt",)
    """Native text files; the records may also be stored as JSON or JSONL."""

    # ------------------------------------------------------------------ files

    def iter_file(self, file: Path) -> Iterator[tuple[int, dict[str, Any], int]]:
        """(index, record, first line number) of every dialogue of a native text file."""
        with open(file, encoding="utf-8", newline="") as handle:
            for index, (number, lines) in enumerate(pair_lines(handle)):
                yield index, {"perspectives": lines}, number

    def write_text(self, records: Iterable[Mapping[str, Any]]) -> str:
        return "".join(line + "\n" for record in records for line in record["perspectives"])

    def write_file(self, dialogues: Iterable[Dialogue], out: Path) -> list[Path]:
        """Write dialogues as a native text file, one perspective per line."""
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(self.write_text(self.write_records(dialogues)), encoding="utf-8")
        return [out]

    def split_of(self, file: Path) -> str | None:
        stem = file.stem.lower()
        if stem in ("val", "valid", "validation", "dev"):
            return "valid"
        return super().split_of(file)

    # ------------------------------------------------------------------ checks

    def record_id(self, record: Any) -> str | None:
        return None  # the corpus has no ids, and the same scenario recurs

    def check_in_detail(self, record: Any) -> list[Problem]:
        checker = Checker()
        lines = checker.require(record, "perspectives", list, "$")
        if lines is None:
            return checker.problems
        extra = sorted(set(record) - {"perspectives"})
        if extra:
            checker.fail("$", f"unknown field(s) {extra}; a record holds only `perspectives`")
        if not 1 <= len(lines) <= 2 or not all(isinstance(line, str) for line in lines):
            checker.fail("$.perspectives", "expected one or two perspective lines (strings)")
            return checker.problems
        try:
            parsed = parse_line(lines[0], "$.perspectives[0]")
            if len(lines) == 2:
                parse_line(lines[1], "$.perspectives[1]")
                if lines[1] != write_line(_swap(parsed)):
                    checker.fail("$.perspectives[1]", "not the first line seen from the other side (inputs, YOU/THEM and output halves swapped)")
        except LineError as error:
            checker.fail(error.path, str(error))
            return checker.problems
        self._anomalies(parsed, checker)
        return checker.problems

    @staticmethod
    def _anomalies(parsed: dict[str, Any], checker: Checker) -> None:
        pool = dict(zip(ITEMS, parsed["input"][0::2], strict=True))
        values = {p: dict(zip(ITEMS, v[1::2], strict=True)) for p, v in zip(PARTY_IDS, (parsed["input"], parsed["partner"]), strict=True)}
        for problem in scenario_problems(pool, values):
            checker.warn("$.perspectives[0]", problem, "scenario")
        output = parsed["output"]
        if parsed["selector"] is None and not isinstance(output, str):
            checker.warn("$.perspectives[0].dialogue", "items were chosen but no side pressed <selection>", "no-selection")
        if not isinstance(output, str) and [a + b for a, b in zip(*output, strict=True)] != list(pool.values()):
            checker.warn("$.perspectives[0].output", f"the two choices {output} do not split the pool {list(pool.values())}", "split")

    # ------------------------------------------------------------------ reading

    def to_dialogue(self, record: Any, *, file: str | None = None, index: int | None = None, split: str | None = None) -> Dialogue:
        lines = record["perspectives"]
        parsed = parse_line(lines[0])
        you, them = PARTY_IDS
        party_of = {"YOU": you, "THEM": them}
        pool = dict(zip(ITEMS, parsed["input"][0::2], strict=True))
        values = {you: dict(zip(ITEMS, parsed["input"][1::2], strict=True)), them: dict(zip(ITEMS, parsed["partner"][1::2], strict=True))}
        events: list[Any] = [Message(party=party_of[who], text=said) for who, said in parsed["turns"]]
        output = parsed["output"]
        extra: dict[str, Any] = {"perspectives": len(lines)}
        if parsed["selector"] is None and not isinstance(output, str):
            extra["selection"] = False  # choices without a press of <selection> (an anomaly): alice's first
        if parsed["selector"] is not None or "selection" in extra:
            first = party_of[parsed["selector"] or "YOU"]
            second = them if first == you else you
            if isinstance(output, str):
                events.append(ChooseEvent(party=first))
                if output != "disconnect":
                    events.append(ChooseEvent(party=second))
            else:
                took = {you: dict(zip(ITEMS, output[0], strict=True)), them: dict(zip(ITEMS, output[1], strict=True))}
                events.append(ChooseEvent(party=first, mine=took[first], theirs=took[second]))
                events.append(ChooseEvent(party=second, mine=took[second], theirs=took[first]))
        if isinstance(output, str):
            events.append(SystemNote(party=None, name=output))
        stem = Path(file).stem if file else "dealornodeal"
        dialogue = Dialogue(
            id=f"{stem}-{index if index is not None else 0}",
            task=self.task,
            split=split,
            scenario=scenario_of(pool, values),
            parties=[Party(id=you, kind="human"), Party(id=them, kind="human")],
            events=events,
            source=Source(corpus=self.name, file=file, index=index, extra=extra),
        )
        dialogue.outcome = outcome_of(dialogue)
        return dialogue

    # ------------------------------------------------------------------ writing

    def from_dialogue(self, dialogue: Dialogue) -> dict[str, Any]:
        you, them = (p.id for p in dialogue.parties)
        speaker = {you: "YOU", them: "THEM"}
        pool = [int(dialogue.scenario.public["pool"][item]) for item in ITEMS]
        values = {p: dialogue.scenario.private[p]["values"] for p in (you, them)}
        turns = [(speaker[e.party], " ".join(e.text.split())) for e in dialogue.events if isinstance(e, Message) and e.party in speaker]
        chosen = choices(dialogue.events)
        first = next((e.party for e in dialogue.events if isinstance(e, ChooseEvent) and e.party in speaker), None)
        notes = [e.name for e in dialogue.events if isinstance(e, SystemNote) and e.name in OUTPUTS]
        output: list[list[int]] | str
        if notes:
            output = notes[0]
        elif len(chosen) == 2 and chosen[you].mine is not None and chosen[you].theirs == chosen[them].mine and chosen[them].theirs == chosen[you].mine:
            # each side's `theirs` is what the other took: an agreement, or the corpus's own record of two choices
            output = [[int(chosen[p].mine[item]) for item in ITEMS] for p in (you, them)]  # type: ignore[index]
        elif len(chosen) == 2:
            output = "disagree"
        elif len(chosen) == 1:
            output = "disconnect"
        else:
            output = "no_agreement"
        parsed = {
            "input": [n for item, c in zip(ITEMS, pool, strict=True) for n in (c, int(values[you][item]))],
            "partner": [n for item, c in zip(ITEMS, pool, strict=True) for n in (c, int(values[them][item]))],
            "turns": turns,
            "selector": speaker[first] if first is not None and dialogue.source.extra.get("selection") is not False else None,
            "output": output,
        }
        line = write_line(parsed)
        lines = [line] if dialogue.source.extra.get("perspectives") == 1 else [line, write_line(_swap(parsed))]
        return {"perspectives": lines}


"""The Deal or No Deal line format: pairing perspectives, outputs, anomalies, exact writing, the real split."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from duologue.cli import app
from duologue.core.schema import Message, SystemNote
from duologue.tasks import corpus_format, make
from duologue.tasks.dealornodeal.corpus import DealOrNoDealFormat, mirror
from duologue.tasks.dealornodeal.task import ChooseEvent

runner = CliRunner()
FMT = DealOrNoDealFormat()


def read_text(path: Path):
    records = [record for _, record, _ in FMT.iter_file(path)]
    return records, [FMT.read(record, file=str(path), index=i, split=FMT.split_of(path)) for i, record in enumerate(records)]


def test_the_registry_gives_this_format():
    assert isinstance(corpus_format("dealornodeal"), DealOrNoDealFormat)
    assert make("dealornodeal-v0").corpus == "dealornodeal"


def test_perspectives_are_paired_and_lone_ones_kept(fixtures):
    records, dialogues = read_text(fixtures / "dealornodeal" / "dealornodeal_sample.txt")
    assert [len(r["perspectives"]) for r in records] == [2, 2, 2, 2, 1, 2]
    assert [d.outcome.reason for d in dialogues] == ["agreement", "disagree", "no_agreement", "disconnect", "disagree", "agreement"]
    first = dialogues[0]
    assert [p.id for p in first.parties] == ["alice", "bob"]
    assert first.scenario.public["pool"] == {"book": 1, "hat": 2, "ball": 2}
    assert first.scenario.private["alice"]["values"] == {"book": 4, "hat": 1, "ball": 2}
    assert [(e.party, e.text) for e in first.events if isinstance(e, Message)][1] == ("bob", "you can have the book if i get both hats")
    chosen = [e for e in first.events if isinstance(e, ChooseEvent)]
    assert [(e.party, e.mine) for e in chosen] == [("alice", {"book": 1, "hat": 0, "ball": 2}), ("bob", {"book": 0, "hat": 2, "ball": 0})]
    assert first.outcome.scores == {"alice": 8.0, "bob": 6.0}
    disconnect = dialogues[3]
    assert [e.kind for e in disconnect.events[-2:]] == ["choose", "system"] and disconnect.events[-1].name == "disconnect"
    assert sum(isinstance(e, ChooseEvent) for e in disconnect.events) == 1
    assert dialogues[1].events[-1] == SystemNote(party=None, name="disagree")
    assert dialogues[4].source.extra == {"perspectives": 1}


def test_writing_gives_the_file_back_line_for_line(fixtures):
    path = fixtures / "dealornodeal" / "dealornodeal_sample.txt"
    _, dialogues = read_text(path)
    assert FMT.write_text(FMT.write_records(dialogues)) == path.read_text(encoding="utf-8")


def test_anomalies_are_warnings_and_broken_lines_errors(fixtures):
    records = [record for _, record, _ in FMT.iter_file(fixtures / "dealornodeal" / "dealornodeal_broken.txt")]
    problems = [FMT.check(r) for r in records]
    assert {p.severity for p in problems[0]} == {"warning"}
    assert {p.code for p in problems[0]} == {"scenario", "no-selection", "split"}
    dialogue = FMT.read(records[0])
    assert {a.code for a in dialogue.anomalies} == {"scenario", "no-selection", "split"}
    assert not dialogue.outcome.agreed  # choices that do not split the pool score nothing
    assert FMT.from_dialogue(dialogue) == records[0]  # read whole and written back
    for record, path in zip(records[1:], ("$.perspectives[0].input", "$.perspectives[0]", "$.perspectives[0].output"), strict=True):
        errors = [p for p in FMT.check(record) if p.severity == "error"]
        assert [p.path for p in errors] == [path]


def test_a_second_line_must_mirror_the_first(fixtures):
    records, _ = read_text(fixtures / "dealornodeal" / "dealornodeal_sample.txt")
    record = {"perspectives": [records[0]["perspectives"][0], records[1]["perspectives"][1]]}
    assert [p.path for p in FMT.check(record)] == ["$.perspectives[1]"]
    assert FMT.check({"perspectives": []}) and FMT.check({"lines": []}) and FMT.check([1, 2])


def test_played_dialogues_are_written_as_two_perspectives():
    task = make("dealornodeal-v0")
    from duologue.core.episode import play_episode
    from duologue.tasks.dealornodeal.agents import DealRuleAgent

    dialogue = play_episode(task, {p: DealRuleAgent() for p in task.party_ids}, seed=4)
    record = FMT.from_dialogue(dialogue)
    first, second = record["perspectives"]
    assert mirror(first) == second
    back = FMT.read(record)
    assert back.outcome == dialogue.outcome
    assert [e.text for e in back.messages()] == [e.text for e in dialogue.messages()]


# --------------------------------------------------------------------------- the real validation split

LINE_OUTPUT = re.compile(r"<output> (\S+)")
INPUTS = re.compile(r"<input> ([\d ]+) </input>.*<partner_input> ([\d ]+) </partner_input>")


def agreement_by_hand(path: Path) -> tuple[int, int]:
    """(agreed dialogues, dialogues) counted straight from the lines: a line is the second perspective
    of a dialogue when its inputs are the previous line's swapped and it has as many turns."""
    lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line]
    dialogues = agreed = 0
    previous = None
    for line in lines:
        mine, theirs = INPUTS.search(line).groups()
        if previous is not None and previous[0] == (theirs, mine) and previous[1] == line.count("<eos>"):
            previous = None
            continue
        previous = ((mine, theirs), line.count("<eos>"))
        dialogues += 1
        agreed += LINE_OUTPUT.search(line).group(1).startswith("item0=")
    return agreed, dialogues


def test_the_validation_split_round_trips_line_for_line(corpus_path):
    path = corpus_path("dealornodeal/val.txt")
    records, dialogues = read_text(path)
    assert sum(len(r["perspectives"]) for r in records) == len(path.read_text(encoding="utf-8").splitlines())
    assert not any(d.anomalies for d in dialogues)
    written = FMT.write_text(FMT.write_records(dialogues)).splitlines()
    original = path.read_text(encoding="utf-8").splitlines()
    assert len(written) == len(original)
    for number, (line, again) in enumerate(zip(original, written, strict=True), start=1):
        assert again == line, f"line {number} differs"
    agreed, total = agreement_by_hand(path)
    assert (sum(bool(d.outcome.agreed) for d in dialogues), len(dialogues)) == (agreed, total)


@pytest.fixture
def val_records(corpus_path, tmp_path) -> Path:
    """The validation split's records as JSONL (a form generic corpus IO reads today)."""
    path = corpus_path("dealornodeal/val.txt")
    out = tmp_path / "val.jsonl"
    out.write_text("".join(json.dumps(record) + "\n" for _, record, _ in FMT.iter_file(path)), encoding="utf-8")
    return out


def test_data_commands_on_the_validation_split(corpus_path, val_records, tmp_path):
    result = runner.invoke(app, ["data", "validate", "dealornodeal", str(val_records)])
    assert result.exit_code == 0, result.output
    assert "562 valid, 0 invalid" in result.output
    result = runner.invoke(app, ["data", "stats", "dealornodeal", str(val_records), "--json"])
    assert result.exit_code == 0, result.output
    stats = json.loads(result.stdout)
    agreed, total = agreement_by_hand(corpus_path("dealornodeal/val.txt"))
    assert stats["overall"]["dialogues"] == total
    assert stats["overall"]["outcome"]["agreement_rate"] == pytest.approx(agreed / total)
    own = tmp_path / "val.own.jsonl"
    assert runner.invoke(app, ["data", "convert", "dealornodeal", str(val_records), "-o", str(own)]).exit_code == 0
    back = tmp_path / "back.json"
    result = runner.invoke(app, ["data", "convert", "duologue", str(own), "-o", str(back), "--to", "dealornodeal"])
    assert result.exit_code == 0, result.output
    written = json.loads(back.read_text(encoding="utf-8"))
    assert [line for r in written for line in r["perspectives"]] == corpus_path("dealornodeal/val.txt").read_text(encoding="utf-8").splitlines()


def test_data_commands_read_the_native_text_file(corpus_path):
    result = runner.invoke(app, ["data", "validate", "dealornodeal", str(corpus_path("dealornodeal/val.txt"))])
    assert result.exit_code == 0 and "562 valid" in result.output


def test_a_context_file_is_told_apart_from_a_corpus_and_pointed_to_its_use(fixtures):
    """selfplay.txt holds scenarios, not dialogues: validating it says so and how it is used."""
    from duologue.tasks.dealornodeal.corpus import LineError, parse_line

    context = (fixtures / "dealornodeal" / "contexts.txt").read_text().splitlines()[0]
    with pytest.raises(LineError, match="a scenario context .* -O contexts=PATH"):
        parse_line(context)
    with pytest.raises(LineError, match="not a perspective line"):
        parse_line("hello there")

"""Deliberately broken CraigslistBargains records: each problem must name the field's JSON path."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any, Callable

import pytest

from duologue.data.io import CorpusReadError, read_corpus
from duologue.tasks.craigslist.corpus import CraigslistFormat

FMT = CraigslistFormat()
FIXTURES = Path(__file__).parents[2] / "fixtures" / "craigslist"


def valid_cocoa() -> dict[str, Any]:
    """The parsed bike deal: events 0-5 messages, 6 offer (by 1), 7 accept (by 0)."""
    return json.loads((FIXTURES / "cocoa.json").read_text(encoding="utf-8"))[0]


def valid_hf() -> dict[str, Any]:
    """Turns 0-3 messages, 4 offer (utterance "", intent offer), 5 accept."""
    return json.loads((FIXTURES / "hf.jsonl").read_text(encoding="utf-8").splitlines()[0])


def broken(base: Callable[[], dict[str, Any]], change: Callable[[dict[str, Any]], Any]) -> dict[str, Any]:
    record = copy.deepcopy(base())
    change(record)
    return record


def set_in(path: list[Any], value: Any) -> Callable[[dict[str, Any]], None]:
    def change(record: dict[str, Any]) -> None:
        target: Any = record
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return change


def delete(path: list[Any]) -> Callable[[dict[str, Any]], None]:
    def change(record: dict[str, Any]) -> None:
        target: Any = record
        for key in path[:-1]:
            target = target[key]
        del target[path[-1]]

    return change


COCOA_CASES = [
    # (name, change, expected path, words in the reason)
    ("uuid missing", delete(["uuid"]), "$.uuid", "missing"),
    ("uuid not a string", set_in(["uuid"], 17), "$.uuid", "expected string"),
    ("agents not an object", set_in(["agents"], ["human", "human"]), "$.agents", "expected object"),
    ("agents lack agent 1", set_in(["agents"], {"0": "human"}), "$.agents", "'0' and '1'"),
    ("agent kind not a string", set_in(["agents", "1"], 1), "$.agents.1", "expected a string"),
    ("scenario missing", delete(["scenario"]), "$.scenario", "missing"),
    ("scenario uuid missing", delete(["scenario", "uuid"]), "$.scenario.uuid", "missing"),
    ("post_id a list", set_in(["scenario", "post_id"], [1]), "$.scenario.post_id", "expected string or integer"),
    ("kbs not a list", set_in(["scenario", "kbs"], {}), "$.scenario.kbs", "expected array"),
    ("one kb only", lambda r: r["scenario"]["kbs"].pop(), "$.scenario.kbs", "expected 2 knowledge bases"),
    ("kb not an object", set_in(["scenario", "kbs", 1], "seller"), "$.scenario.kbs[1]", "expected an object"),
    ("two buyers", set_in(["scenario", "kbs", 1, "personal", "Role"], "buyer"), "$.scenario.kbs", "one buyer and one seller"),
    ("unknown role", set_in(["scenario", "kbs", 1, "personal", "Role"], "landlord"), "$.scenario.kbs[1].personal.Role", "'buyer' or 'seller'"),
    ("target a string", set_in(["scenario", "kbs", 0, "personal", "Target"], "140"), "$.scenario.kbs[0].personal.Target", "expected number"),
    ("target missing", delete(["scenario", "kbs", 0, "personal", "Target"]), "$.scenario.kbs[0].personal.Target", "missing"),
    ("target a boolean", set_in(["scenario", "kbs", 0, "personal", "Target"], True), "$.scenario.kbs[0].personal.Target", "expected number"),
    ("bottomline a string", set_in(["scenario", "kbs", 0, "personal", "Bottomline"], "none"), "$.scenario.kbs[0].personal.Bottomline", "expected number"),
    ("item title missing", delete(["scenario", "kbs", 1, "item", "Title"]), "$.scenario.kbs[1].item.Title", "missing"),
    ("description line a number", set_in(["scenario", "kbs", 1, "item", "Description", 2], 42), "$.scenario.kbs[1].item.Description[2]", "expected a string"),
    ("images a string", set_in(["scenario", "kbs", 0, "item", "Images"], "bike/1.jpg"), "$.scenario.kbs[0].item.Images", "expected array"),
    ("listing price a string", set_in(["scenario", "kbs", 0, "item", "Price"], "$200"), "$.scenario.kbs[0].item.Price", "expected number"),
    ("outcome missing", delete(["outcome"]), "$.outcome", "missing"),
    ("outcome a string", set_in(["outcome"], "deal"), "$.outcome", "expected an object or null"),
    ("reward a string", set_in(["outcome", "reward"], "1"), "$.outcome.reward", "expected number"),
    ("outcome offer price negative", set_in(["outcome", "offer", "price"], -170.0), "$.outcome.offer.price", "positive number"),
    ("events not a list", set_in(["events"], {"0": {}}), "$.events", "expected array"),
    ("event not an object", set_in(["events", 3], "hello"), "$.events[3]", "expected an object"),
    ("agent index 2", set_in(["events", 3, "agent"], 2), "$.events[3].agent", "expected 0 or 1"),
    ("agent index as text", set_in(["events", 3, "agent"], "1"), "$.events[3].agent", "expected integer"),
    ("agent missing", delete(["events", 3, "agent"]), "$.events[3].agent", "missing"),
    ("unknown action", set_in(["events", 2, "action"], "counteroffer"), "$.events[2].action", "unknown action 'counteroffer'"),
    ("action missing", delete(["events", 2, "action"]), "$.events[2].action", "missing"),
    ("message data not text", set_in(["events", 0, "data"], {"text": "hi"}), "$.events[0].data", "must be its text"),
    ("data missing", delete(["events", 0, "data"]), "$.events[0].data", "missing"),
    ("offer price negative", set_in(["events", 6, "data", "price"], -5), "$.events[6].data.price", "positive number"),
    ("offer price zero", set_in(["events", 6, "data", "price"], 0), "$.events[6].data.price", "positive number"),
    ("offer price text", set_in(["events", 6, "data", "price"], "170"), "$.events[6].data.price", "positive number"),
    ("offer price missing", delete(["events", 6, "data", "price"]), "$.events[6].data.price", "missing"),
    ("offer data a number", set_in(["events", 6, "data"], 170), "$.events[6].data", "{price, sides}"),
    ("time not a number", set_in(["events", 1, "time"], "yesterday"), "$.events[1].time", "numeric string"),
    ("time a boolean", set_in(["events", 1, "time"], True), "$.events[1].time", "seconds since the epoch"),
    ("time missing", delete(["events", 1, "time"]), "$.events[1].time", "missing"),
    ("start time not a number", set_in(["events", 1, "start_time"], "soon"), "$.events[1].start_time", "numeric string"),
    ("metadata a list", set_in(["events", 0, "metadata"], ["intro"]), "$.events[0].metadata", "{intent, price}"),
    ("metadata intent a number", set_in(["events", 0, "metadata", "intent"], 3), "$.events[0].metadata.intent", "expected string"),
    ("metadata price text", set_in(["events", 2, "metadata", "price"], "$140"), "$.events[2].metadata.price", "expected number"),
    ("accept without an offer", lambda r: r["events"].pop(6), "$.events[6].action", "accept with no offer"),
    (
        "accept after the offer was rejected",
        lambda r: r["events"].insert(7, {"start_time": None, "agent": 0, "time": "1496400089.0", "action": "reject", "data": None, "metadata": None}),
        "$.events[8].action",
        "accept with no offer",
    ),
]


@pytest.mark.parametrize(("name", "change", "path", "words"), COCOA_CASES, ids=[c[0] for c in COCOA_CASES])
def test_broken_cocoa_record_names_the_field(name: str, change: Callable, path: str, words: str) -> None:
    problems = FMT.check(broken(valid_cocoa, change))
    assert problems, f"{name}: no problem found"
    found = [p for p in problems if p.path == path]
    assert found, f"{name}: no problem at {path}; got {[(p.path, p.reason) for p in problems]}"
    assert any(words in p.reason for p in found), f"{name}: {[p.reason for p in found]}"


HF_CASES = [
    ("agent_info missing", delete(["agent_info"]), "$.agent_info", "missing"),
    ("agent index 3", set_in(["agent_turn", 1], 3), "$.agent_turn[1]", "expected 0 or 1"),
    ("agent index text", set_in(["agent_turn", 1], "1"), "$.agent_turn[1]", "integer"),
    ("two buyers", set_in(["agent_info", "Role", 1], "buyer"), "$.agent_info.Role", "one buyer and one seller"),
    ("unknown role", set_in(["agent_info", "Role", 1], "dealer"), "$.agent_info.Role[1]", "'buyer' or 'seller'"),
    ("target text", set_in(["agent_info", "Target", 0], "7"), "$.agent_info.Target[0]", "expected a number"),
    ("three agents", set_in(["agent_info", "Bottomline"], ["None", "None", "None"]), "$.agent_info.Bottomline", "expected 2 entries"),
    ("item price list too short", set_in(["items", "Price"], [10.0]), "$.items.Price", "expected 2 entries"),
    ("item title a number", set_in(["items", "Title", 0], 5), "$.items.Title[0]", "expected a string"),
    ("utterance missing a turn", lambda r: r["utterance"].pop(), "$.utterance", "expected 6 entries"),
    ("utterance a number", set_in(["utterance", 0], 12), "$.utterance[0]", "expected a string"),
    ("act price text", set_in(["dialogue_acts", "price", 0], "5"), "$.dialogue_acts.price[0]", "expected a number"),
    ("acts missing intents", delete(["dialogue_acts", "intent"]), "$.dialogue_acts.intent", "missing"),
    ("offer price zero", set_in(["dialogue_acts", "price", 4], 0.0), "$.dialogue_acts.price[4]", "positive number"),
    ("accept without an offer", set_in(["dialogue_acts", "intent", 4], "agree"), "$.dialogue_acts.intent[5]", "accept with no offer"),
]


@pytest.mark.parametrize(("name", "change", "path", "words"), HF_CASES, ids=[c[0] for c in HF_CASES])
def test_broken_hf_row_names_the_field(name: str, change: Callable, path: str, words: str) -> None:
    problems = FMT.check(broken(valid_hf, change))
    found = [p for p in problems if p.path == path]
    assert found, f"{name}: no problem at {path}; got {[(p.path, p.reason) for p in problems]}"
    assert any(words in p.reason for p in found), f"{name}: {[p.reason for p in found]}"


@pytest.mark.parametrize("value", ["a string", 3, None, [1, 2], True])
def test_a_record_that_is_not_an_object(value: Any) -> None:
    problems = FMT.check(value)
    assert [p.path for p in problems] == ["$"]
    assert "expected an object" in problems[0].reason


def test_an_object_of_neither_shape() -> None:
    problems = FMT.check({"dialogue_id": 1, "chat_logs": []})
    assert [p.path for p in problems] == ["$"]
    assert "CoCoA keys" in problems[0].reason and "Hugging Face keys" in problems[0].reason


def test_valid_bases_have_no_problems() -> None:
    """Guards the cases above: each problem comes from its change, not from the base record."""
    assert FMT.check(valid_cocoa()) == []
    assert FMT.check(valid_hf()) == []


def test_broken_file_reports_each_record_and_keeps_the_valid_one() -> None:
    result = read_corpus(FMT, FIXTURES / "broken.json", skip_invalid=True)
    assert (result.records, result.invalid) == (4, 3)
    assert [d.id for d in result.dialogues] == ["C_valid_among_broken"]
    located = {(p.record, p.path) for p in result.problems}
    assert located == {
        ("C_broken_agent_and_price", "$.events[0].agent"),
        ("C_broken_agent_and_price", "$.events[1].data.price"),
        ("C_broken_roles", "$.scenario.kbs[0].personal.Target"),
        ("C_broken_roles", "$.scenario.kbs"),
        ("C_broken_roles", "$.events[1].action"),
        ("#2", "$.agent_turn[1]"),
    }
    # an accept with no offer on the table is a rule anomaly (people did it): a warning, not an error
    assert {(p.record, p.path, p.code) for p in result.warnings} == {
        ("C_broken_roles", "$.events[0].action", "accept-without-offer"),
        ("#2", "$.dialogue_acts.intent[1]", "accept-without-offer"),
    }
    assert all(p.file and p.file.endswith("broken.json") for p in result.problems)


def test_broken_file_stops_a_strict_read() -> None:
    with pytest.raises(CorpusReadError, match="expected 0 or 1"):
        read_corpus(FMT, FIXTURES / "broken.json")

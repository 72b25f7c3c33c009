"""The MutualFriends corpus format: both native shapes read and written back exactly, and between them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from duologue.core.schema import Dialogue, Message, Offer, Party, Scenario, Select, SystemNote
from duologue.data.compare import record_differences
from duologue.data.io import read_corpus, write_native
from duologue.tasks import corpus_format
from duologue.tasks.mutualfriends.corpus import MutualFriendsFormat, cocoa_time_text, shape_of

FMT = MutualFriendsFormat()
COCOA_FILE = "mutualfriends/cocoa_train.json"
HF_FILE = "mutualfriends/hf_validation.json"


def load(fixtures: Path, name: str) -> list[dict]:
    return json.loads((fixtures / name).read_text(encoding="utf-8"))


def by_id(fixtures: Path, name: str, index: int) -> dict:
    return load(fixtures, name)[index]


def test_registered_under_its_name():
    fmt = corpus_format("mutualfriends")
    assert isinstance(fmt, MutualFriendsFormat)
    assert (fmt.name, fmt.task, fmt.layout) == ("mutualfriends", "mutualfriends", "list")


@pytest.mark.parametrize("name, shape, count", [(COCOA_FILE, "cocoa", 6), (HF_FILE, "hf", 5)])
def test_fixtures_are_valid_and_round_trip_exactly(fixtures, name, shape, count):
    records = load(fixtures, name)
    assert len(records) == count
    for record in records:
        assert FMT.check(record) == [], record["uuid"]
        dialogue = FMT.to_dialogue(record)
        assert dialogue.source.shape == shape == shape_of(record)
        assert record_differences(record, FMT.from_dialogue(dialogue)) == [], record["uuid"]
        # through duologue's own JSON and back, too
        again = Dialogue.model_validate_json(dialogue.model_dump_json())
        assert record_differences(record, FMT.from_dialogue(again)) == [], record["uuid"]


def test_read_corpus_and_write_native_give_the_files_back(fixtures, tmp_path):
    for name, split in ((COCOA_FILE, "train"), (HF_FILE, "valid")):
        result = read_corpus(FMT, fixtures / name)
        assert result.problems == [] and result.invalid == 0
        assert {d.split for d in result.dialogues} == {split}
        out = tmp_path / Path(name).name
        write_native(FMT, result.dialogues, out)
        assert record_differences(load(fixtures, name), json.loads(out.read_text(encoding="utf-8"))) == []


def test_cocoa_record_maps_onto_the_schema(fixtures):
    record = by_id(fixtures, COCOA_FILE, 1)  # Brandon picked first by mistake, then Tyler
    dialogue = FMT.to_dialogue(record, file="train.json", index=1, split="train")
    assert dialogue.id == record["uuid"] and dialogue.task == "mutualfriends"
    assert [(p.id, p.kind) for p in dialogue.parties] == [("0", "human"), ("1", "human")]
    assert dialogue.scenario.id == record["scenario"]["uuid"]
    assert dialogue.scenario.public["alphas"] == [3.0, 0.3, 1.0]
    assert [a["name"] for a in dialogue.scenario.public["attributes"]] == ["Name", "Company", "Time Preference"]
    assert dialogue.scenario.private["1"]["friends"] == record["scenario"]["kbs"][1]
    kinds = [e.kind for e in dialogue.events]
    assert kinds.count("select") == 3 and kinds.count("message") == 7
    first_pick = dialogue.events[4]
    assert isinstance(first_pick, Select) and first_pick.party == "0" and first_pick.item["Name"] == "Brandon"
    assert dialogue.events[0].text == "Hi. Almost all my friends work at Molycorp"
    assert dialogue.events[0].time == pytest.approx(float(record["events"][0]["time"]))
    tyler = {"Name": "Tyler", "Company": "Molycorp", "Time Preference": "evening"}
    outcome = dialogue.outcome
    assert (outcome.reason, outcome.agreed, outcome.deal) == ("success", True, {"friend": tyler})
    assert outcome.scores == {"0": 1.0, "1": 1.0} and outcome.extra["reward"] == 1
    assert (dialogue.source.corpus, dialogue.source.file, dialogue.source.index) == ("mutualfriends", "train.json", 1)


def test_failed_dialogue_is_judged_a_failure(fixtures):
    dialogue = FMT.to_dialogue(by_id(fixtures, COCOA_FILE, 2))  # both picked wrong friends, time ran out
    assert (dialogue.outcome.reason, dialogue.outcome.agreed, dialogue.outcome.deal) == ("failure", False, None)
    assert dialogue.outcome.scores == {"0": 0.0, "1": 0.0} and dialogue.outcome.extra["reward"] == 0
    hf_failed = FMT.to_dialogue(by_id(fixtures, HF_FILE, 1))
    assert hf_failed.outcome.agreed is False and hf_failed.outcome.extra["reward"] == 0


def test_a_bot_agent_keeps_its_name(fixtures):
    dialogue = FMT.to_dialogue(by_id(fixtures, COCOA_FILE, 3))
    bot = dialogue.party("1")
    assert (bot.kind, bot.agent) == ("bot", "rulebased")
    assert FMT.from_dialogue(dialogue)["agents"] == {"0": "human", "1": "rulebased"}


def test_times_written_unlike_cocoa_are_kept_verbatim(fixtures):
    record = by_id(fixtures, COCOA_FILE, 4)  # one time ends in a zero ("...633.10"), start times are set
    assert "agents_info" not in record
    dialogue = FMT.to_dialogue(record)
    odd = dialogue.events[2]
    assert odd.extra["time"] == record["events"][2]["time"] and record["events"][2]["time"].endswith("0")
    assert "time" not in dialogue.events[1].extra  # canonical text needs no copy
    assert cocoa_time_text(dialogue.events[1].time) == record["events"][1]["time"]


def test_hf_row_maps_onto_the_schema(fixtures):
    record = by_id(fixtures, HF_FILE, 2)  # a wrong Megan first, then the right one
    dialogue = FMT.to_dialogue(record)
    assert dialogue.scenario.id == record["scenario_uuid"]
    assert dialogue.scenario.public["attributes"][0] == {"unique": False, "value_type": "name", "name": "Name"}
    assert dialogue.scenario.private["0"]["friends"][3] == {"Name": "Megan", "Major": "Journalism", "Hobby": "Yoga", "Location Preference": "indoor"}
    selects = [e for e in dialogue.events if isinstance(e, Select)]
    assert [(s.party, s.item["Major"]) for s in selects] == [("1", "Biochemistry"), ("1", "Journalism"), ("0", "Journalism")]
    assert all(e.extra == {} for e in dialogue.events)  # start time -1 and float times are the defaults
    assert dialogue.outcome.agreed is True


def _transcript(dialogue: Dialogue) -> list[tuple]:
    return [(e.kind, e.party, e.text if isinstance(e, Message) else e.item) for e in dialogue.events]


@pytest.mark.parametrize("name, other", [(COCOA_FILE, "hf"), (HF_FILE, "cocoa")])
def test_written_in_the_other_shape_keeps_transcript_lists_and_outcome(fixtures, name, other):
    for record in load(fixtures, name):
        dialogue = FMT.to_dialogue(record)
        converted = FMT.from_dialogue(dialogue, shape=other)
        assert shape_of(converted) == other
        assert FMT.check(converted) == [], record["uuid"]
        back = FMT.to_dialogue(converted)
        assert back.source.shape == other
        assert _transcript(back) == _transcript(dialogue)
        assert [e.time for e in back.events] == pytest.approx([e.time for e in dialogue.events])
        assert back.scenario.private == dialogue.scenario.private
        assert back.scenario.id == dialogue.scenario.id
        assert [a["name"] for a in back.scenario.public["attributes"]] == [a["name"] for a in dialogue.scenario.public["attributes"]]
        assert back.scenario.public.get("alphas") == dialogue.scenario.public.get("alphas")
        assert (back.outcome.agreed, back.outcome.extra["reward"]) == (dialogue.outcome.agreed, dialogue.outcome.extra["reward"])
        assert [(p.id, p.kind, p.agent) for p in back.parties] == [(p.id, p.kind, p.agent) for p in dialogue.parties]


def test_hf_row_through_the_cocoa_shape_comes_back_exactly(fixtures):
    # The HF shape holds less than CoCoA's, so nothing is lost on the way through it.
    for record in load(fixtures, HF_FILE):
        cocoa = FMT.from_dialogue(FMT.to_dialogue(record), shape="cocoa")
        assert record_differences(record, FMT.from_dialogue(FMT.to_dialogue(cocoa), shape="hf")) == []


def test_start_times_cross_shapes(fixtures):
    record = by_id(fixtures, COCOA_FILE, 4)
    hf = FMT.from_dialogue(FMT.to_dialogue(record), shape="hf")
    assert hf["events"]["start_times"][0] == pytest.approx(float(record["events"][0]["start_time"]))
    assert hf["events"]["start_times"][-1] == -1.0  # a selection has no start time
    cocoa = FMT.from_dialogue(FMT.to_dialogue(hf), shape="cocoa")
    assert cocoa["events"][-1]["start_time"] is None
    assert float(cocoa["events"][0]["start_time"]) == pytest.approx(float(record["events"][0]["start_time"]))


def test_hf_parquet_rows_read_and_write_back(fixtures, tmp_path):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    records = load(fixtures, HF_FILE)
    strings = pa.list_(pa.string())
    schema = pa.schema([
        ("uuid", pa.string()),
        ("scenario_uuid", pa.string()),
        ("scenario_alphas", pa.list_(pa.float32())),
        ("scenario_attributes", pa.struct([("unique", pa.list_(pa.bool_())), ("value_type", strings), ("name", strings)])),
        ("scenario_kbs", pa.list_(pa.list_(pa.list_(strings)))),
        ("agents", pa.struct([("1", pa.string()), ("0", pa.string())])),
        ("outcome_reward", pa.int32()),
        ("events", pa.struct([
            ("actions", strings),
            ("start_times", pa.list_(pa.float32())),
            ("data_messages", strings),
            ("data_selects", pa.struct([("attributes", pa.list_(strings)), ("values", pa.list_(strings))])),
            ("agents", pa.list_(pa.int32())),
            ("times", pa.list_(pa.float32())),
        ])),
    ])
    path = tmp_path / "validation-00000-of-00001.parquet"
    pq.write_table(pa.Table.from_pylist(records, schema=schema), path)
    result = read_corpus(FMT, path)
    assert result.problems == [] and len(result.dialogues) == len(records)
    assert {d.split for d in result.dialogues} == {"valid"}
    for record, dialogue in zip(records, result.dialogues, strict=True):
        assert record_differences(record, FMT.from_dialogue(dialogue)) == []


# --------------------------------------------------------------------------- dialogues played here

FRIENDS_A = [
    {"Name": "Alice", "Hobby": "Hiking", "Location Preference": "outdoor"},
    {"Name": "Bob", "Hobby": "Chess", "Location Preference": "indoor"},
    {"Name": "Cara", "Hobby": "Chess", "Location Preference": "outdoor"},
    {"Name": "Dev", "Hobby": "Hiking", "Location Preference": "indoor"},
    {"Name": "Eve", "Hobby": "Pottery", "Location Preference": "indoor"},
]
FRIENDS_B = [
    {"Name": "Finn", "Hobby": "Chess", "Location Preference": "indoor"},
    {"Name": "Cara", "Hobby": "Chess", "Location Preference": "outdoor"},
    {"Name": "Gus", "Hobby": "Hiking", "Location Preference": "outdoor"},
    {"Name": "Alice", "Hobby": "Chess", "Location Preference": "indoor"},
    {"Name": "Hana", "Hobby": "Pottery", "Location Preference": "outdoor"},
]


def played(**changes) -> Dialogue:
    """A self-play dialogue: its own party names, no native leftovers, no outcome yet."""
    fields = dict(
        id="selfplay-7",
        task="mutualfriends",
        scenario=Scenario(id="S_selfplay", private={"alice": {"friends": FRIENDS_A}, "bob": {"friends": FRIENDS_B}}),
        parties=[Party(id="alice", kind="bot", agent="rule"), Party(id="bob", kind="human", participant_id="W1")],
        events=[
            Message(party="alice", text="do you have anyone who likes chess?", time=1700000000.25),
            Message(party="bob", text="cara, outdoors", time=1700000004.5),
            SystemNote(party=None, name="typing", time=1700000005.0),
            Select(party="alice", item=FRIENDS_A[2], time=1700000009.0),
            Select(party="bob", item=FRIENDS_B[1], time=1700000011.0),
        ],
    )
    fields.update(changes)
    return Dialogue(**fields)


def test_a_played_dialogue_is_written_in_the_cocoa_shape():
    record = FMT.from_dialogue(played())
    assert FMT.check(record) == []
    assert list(record) == ["uuid", "scenario", "agents_info", "scenario_uuid", "agents", "outcome", "events"]
    assert record["agents"] == {"0": "rule", "1": "human"}
    assert record["scenario_uuid"] == record["scenario"]["uuid"] == "S_selfplay"
    assert "alphas" not in record["scenario"]  # the played scenario carried none
    assert record["scenario"]["attributes"][2] == {"name": "Location Preference", "value_type": "loc_pref", "unique": False, "multivalued": False, "entity": True}
    assert record["outcome"] == {"reward": 1}
    assert [e["agent"] for e in record["events"]] == [0, 1, 0, 1]  # the typing note has no place in the corpus
    assert record["events"][0] == {"start_time": None, "agent": 0, "time": "1700000000.25", "action": "message", "data": "do you have anyone who likes chess?"}
    assert record["events"][2]["time"] == "1700000009.0"
    dialogue = FMT.to_dialogue(record)
    assert dialogue.outcome.agreed is True and _transcript(dialogue)[-1] == ("select", "1", FRIENDS_B[1])


def test_a_played_dialogue_is_written_in_the_hf_shape():
    record = FMT.from_dialogue(played(events=played().events[:4]), shape="hf")
    assert FMT.check(record) == []
    assert record["outcome_reward"] == 0  # only one party has selected
    assert record["scenario_alphas"] == []
    assert record["scenario_attributes"] == {"unique": [False] * 3, "value_type": ["name", "hobby", "loc_pref"], "name": ["Name", "Hobby", "Location Preference"]}
    assert record["events"]["actions"] == ["message", "message", "select"]
    assert record["events"]["start_times"] == [-1.0, -1.0, -1.0]
    assert record["events"]["data_selects"]["values"][2] == ["Cara", "Chess", "outdoor"]
    assert record["events"]["data_messages"][2] == ""


def test_writer_refuses_events_the_corpus_cannot_hold():
    with pytest.raises(ValueError, match="offer"):
        FMT.from_dialogue(played(events=[Offer(party="alice", price=10.0)]))
    with pytest.raises(ValueError, match="shape"):
        FMT.from_dialogue(played(), shape="parlai")  # type: ignore[arg-type]

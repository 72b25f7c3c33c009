"""Reading and writing CraigslistBargains records in both native shapes, on the project's own fixtures."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from duologue.core.schema import (
    Accept,
    Annotation,
    Dialogue,
    Message,
    Offer,
    Outcome,
    Party,
    Quit,
    Reject,
    Scenario,
    SubmitDeal,
    SystemNote,
)
from duologue.data.compare import record_differences
from duologue.data.io import read_corpus, write_native
from duologue.tasks import corpus_format
from duologue.tasks.craigslist.corpus import CraigslistFormat, to_cocoa_record, to_hf_record

FMT = CraigslistFormat()


def cocoa_records(fixtures: Path) -> list[dict]:
    return json.loads((fixtures / "craigslist" / "cocoa.json").read_text(encoding="utf-8"))


def hf_records(fixtures: Path) -> list[dict]:
    lines = (fixtures / "craigslist" / "hf.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def by_id(records: list[dict], uuid: str) -> dict:
    return next(r for r in records if r["uuid"] == uuid)


def transcript(dialogue: Dialogue) -> list[tuple]:
    """What a reader of the dialogue sees: who did what, said what, offered what."""
    return [(e.kind, e.party, getattr(e, "text", None), getattr(e, "price", None)) for e in dialogue.events]


def test_registry_names_this_format() -> None:
    fmt = corpus_format("craigslist")
    assert isinstance(fmt, CraigslistFormat)
    assert (fmt.name, fmt.task, fmt.layout) == ("craigslist", "craigslist", "list")


# ---------------------------------------------------------------------- lossless round trips


def test_cocoa_fixtures_are_valid_and_round_trip_exactly(fixtures: Path) -> None:
    for record in cocoa_records(fixtures):
        assert FMT.check(record) == []
        dialogue = FMT.to_dialogue(record)
        assert dialogue.source.shape == "cocoa"
        back = FMT.from_dialogue(dialogue)
        assert record_differences(record, back) == []
        assert json.dumps(back) == json.dumps(record), "key order differs"


def test_hf_fixtures_are_valid_and_round_trip_exactly(fixtures: Path) -> None:
    for record in hf_records(fixtures):
        assert FMT.check(record) == []
        dialogue = FMT.to_dialogue(record)
        assert dialogue.source.shape == "hf"
        back = FMT.from_dialogue(dialogue)
        assert record_differences(record, back) == []
        assert json.dumps(back) == json.dumps(record), "key order differs"


def test_round_trip_survives_a_trip_through_duologue_json(fixtures: Path) -> None:
    """What a writer needs must live in the dialogue itself, not in Python objects."""
    for record in cocoa_records(fixtures) + hf_records(fixtures):
        dialogue = Dialogue.model_validate_json(FMT.to_dialogue(record).model_dump_json())
        assert record_differences(record, FMT.from_dialogue(dialogue)) == []


def test_reading_does_not_share_lists_with_the_record(fixtures: Path) -> None:
    record = cocoa_records(fixtures)[0]
    kept = copy.deepcopy(record)
    dialogue = FMT.to_dialogue(record)
    dialogue.scenario.private["1"]["item"]["description"].append("edited")
    assert record == kept


def test_read_and_write_files_through_generic_io(fixtures: Path, tmp_path: Path) -> None:
    cocoa = read_corpus(FMT, fixtures / "craigslist" / "cocoa.json")
    hf = read_corpus(FMT, fixtures / "craigslist" / "hf.jsonl")
    assert (len(cocoa.dialogues), len(hf.dialogues)) == (4, 3)
    assert {d.source.shape for d in cocoa.dialogues} == {"cocoa"}
    assert {d.source.shape for d in hf.dialogues} == {"hf"}
    assert [d.source.index for d in hf.dialogues] == [0, 1, 2]
    out = write_native(FMT, cocoa.dialogues, tmp_path / "cocoa.json")[0]
    assert json.loads(out.read_text(encoding="utf-8")) == cocoa_records(fixtures)
    out = write_native(FMT, hf.dialogues, tmp_path / "hf.jsonl")[0]
    assert [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()] == hf_records(fixtures)


# ---------------------------------------------------------------------- what the CoCoA shape means


def test_cocoa_parties_scenario_and_private_views(fixtures: Path) -> None:
    dialogue = FMT.to_dialogue(by_id(cocoa_records(fixtures), "C_fixture_deal_bike"), file="x/valid.json", index=0, split="valid")
    assert dialogue.id == "C_fixture_deal_bike"
    assert (dialogue.task, dialogue.split) == ("craigslist", "valid")
    assert [(p.id, p.kind, p.role) for p in dialogue.parties] == [("0", "human", "buyer"), ("1", "human", "seller")]
    assert dialogue.scenario.id == "S_fixtureBike01"
    assert dialogue.scenario.public == {
        "category": "bike",
        "post_id": "6101234567",
        "title": "Trek FX hybrid bike, great commuter",
        "listing_price": 200,
    }
    buyer, seller = dialogue.scenario.private["0"], dialogue.scenario.private["1"]
    assert (buyer["role"], buyer["target"], buyer["bottomline"]) == ("buyer", 140, None)
    assert (seller["role"], seller["target"]) == ("seller", 200)
    # Private views differ: the buyer sees a shorter description than the seller.
    assert len(buyer["item"]["description"]) == 1
    assert len(seller["item"]["description"]) == 3
    assert seller["item"]["images"] == ["bike/6101234567_0.jpg"]
    assert (dialogue.source.corpus, dialogue.source.file, dialogue.source.index) == ("craigslist", "x/valid.json", 0)


def test_cocoa_events_times_and_parser_annotations(fixtures: Path) -> None:
    dialogue = FMT.to_dialogue(by_id(cocoa_records(fixtures), "C_fixture_deal_bike"))
    assert [e.kind for e in dialogue.events] == ["message"] * 6 + ["offer", "accept"]
    first = dialogue.events[0]
    assert isinstance(first, Message) and first.party == "0" and first.text == "Hi, is the Trek still available?"
    assert first.time == 1496400003.5
    offer = dialogue.events[6]
    assert isinstance(offer, Offer) and (offer.party, offer.price, offer.sides) == ("1", 170.0, "")
    assert isinstance(dialogue.events[7], Accept) and dialogue.events[7].party == "0"

    intents = {a.event: a.labels for a in dialogue.annotations_of("intent")}
    assert intents[0] == ["intro"] and intents[2] == ["init-price"] and intents[7] == ["accept"]
    assert 4 not in intents, "null metadata gives no annotation"
    prices = {a.event: a.value for a in dialogue.annotations_of("price")}
    assert prices[2] == 140.0 and prices[0] is None and 7 not in prices
    assert {a.source for a in dialogue.annotations} == {"corpus-parser"}


def test_cocoa_outcome_of_a_deal_is_scored(fixtures: Path) -> None:
    outcome = FMT.to_dialogue(by_id(cocoa_records(fixtures), "C_fixture_deal_bike")).outcome
    assert outcome is not None
    assert (outcome.reason, outcome.agreed, outcome.deal) == ("agreement", True, {"price": 170.0})
    # Targets 140 / 200: 170 is the midpoint, utility 0 for both.
    assert outcome.scores == {"0": 0.0, "1": 0.0}
    assert outcome.extra == {}, "reward and offer follow from the events"


def test_rejected_offer_is_no_deal_and_outcome_needs_no_extra(fixtures: Path) -> None:
    record = by_id(cocoa_records(fixtures), "C_fixture_reject_housing")
    dialogue = FMT.to_dialogue(record)
    assert dialogue.outcome is not None
    assert (dialogue.outcome.agreed, dialogue.outcome.reason, dialogue.outcome.scores) == (False, "quit", {})
    # Party "0" is the seller here: the kbs order decides roles, not a convention.
    assert [p.role for p in dialogue.parties] == ["seller", "buyer"]
    assert isinstance(dialogue.events[4], Reject) and isinstance(dialogue.events[5], Quit)
    # CoCoA keeps the rejected offer in outcome.offer; the writer derives it from the events.
    assert "native" not in dialogue.outcome.extra
    assert FMT.from_dialogue(dialogue)["outcome"] == {"reward": 0, "offer": {"price": 2300.0, "sides": "first month free"}}


def test_unparsed_release_with_a_bot_and_odd_fields(fixtures: Path) -> None:
    record = by_id(cocoa_records(fixtures), "C_fixture_unparsed_phone")
    dialogue = FMT.to_dialogue(record)
    assert [(p.id, p.kind, p.agent) for p in dialogue.parties] == [("0", "human", None), ("1", "bot", "rulebased")]
    assert dialogue.annotations == []
    assert dialogue.source.extra["scenario_uuid"] == "S_fixturePhone03b"
    assert dialogue.source.extra["fields"]["scenario"] == {"intersection": 0.6}
    # Both sides offered 75 at once and both accepted: one deal at 75.
    assert dialogue.outcome is not None and dialogue.outcome.deal == {"price": 75.0}
    # buyer 63, seller 90: midpoint 76.5, scale 13.5 -> seller (75 - 76.5) / 13.5
    assert dialogue.outcome.scores["1"] == pytest.approx(-1.5 / 13.5)
    assert dialogue.outcome.scores["0"] == pytest.approx(1.5 / 13.5)
    back = FMT.from_dialogue(dialogue)
    assert "metadata" not in back["events"][0] and "agents_info" not in back


def test_offer_without_price_and_outcome_without_offer(fixtures: Path) -> None:
    record = by_id(cocoa_records(fixtures), "C_fixture_stalled_furniture")
    dialogue = FMT.to_dialogue(record)
    offer = dialogue.events[2]
    assert isinstance(offer, Offer) and offer.price is None
    assert dialogue.outcome is not None and dialogue.outcome.agreed is False
    assert dialogue.outcome.extra["native"] == {"reward": 0}
    assert FMT.from_dialogue(dialogue)["outcome"] == {"reward": 0}


# ---------------------------------------------------------------------- what the HF shape means


def test_hf_row_maps_offer_accept_and_acts(fixtures: Path) -> None:
    dialogue = FMT.to_dialogue(hf_records(fixtures)[0])
    assert dialogue.id.startswith("hf-")
    assert FMT.record_id(hf_records(fixtures)[0]) is None
    assert [e.kind for e in dialogue.events] == ["message"] * 4 + ["offer", "accept"]
    offer = dialogue.events[4]
    assert isinstance(offer, Offer) and (offer.party, offer.price) == ("0", 8.0)
    assert dialogue.events[3].text == "sounds good"  # type: ignore[union-attr]
    intents = {a.event: a.labels[0] for a in dialogue.annotations_of("intent")}
    assert intents == {0: "init-price", 1: "counter-price", 2: "agree", 4: "offer", 5: "accept"}
    assert {a.event: a.value for a in dialogue.annotations_of("price")} == {0: 5.0, 1: 9.0, 4: 8.0}
    buyer, seller = dialogue.scenario.private["0"], dialogue.scenario.private["1"]
    assert (buyer["role"], buyer["target"], buyer["bottomline"]) == ("buyer", 7.0, None)
    assert seller["item"]["description"] == ["Charge two devices simultaneously on the go,Dual micro USB output, 2.1 amps"]
    assert dialogue.outcome is not None and dialogue.outcome.deal == {"price": 8.0}
    # targets 7 / 10, midpoint 8.5, scale 1.5: buyer (8.5 - 8) / 1.5
    assert dialogue.outcome.scores["0"] == pytest.approx(1 / 3)


def test_hf_row_with_reject_quit_and_joined_images(fixtures: Path) -> None:
    dialogue = FMT.to_dialogue(hf_records(fixtures)[1])
    assert [p.role for p in dialogue.parties] == ["seller", "buyer"]
    assert [e.kind for e in dialogue.events][-3:] == ["offer", "reject", "quit"]
    assert dialogue.scenario.private["0"]["item"]["images"] == ["car/6120041234_0.jpg", "car/6120041234_1.jpg"]
    assert dialogue.outcome is not None and (dialogue.outcome.agreed, dialogue.outcome.reason) == (False, "quit")


def test_hf_row_without_acts_has_unknown_outcome_and_missing_prices(fixtures: Path) -> None:
    dialogue = FMT.to_dialogue(hf_records(fixtures)[2])
    assert dialogue.annotations == []
    # Without acts the loader's empty turns cannot be told apart: they stay empty messages.
    assert [e.kind for e in dialogue.events] == ["message"] * 5
    assert dialogue.outcome is not None and (dialogue.outcome.agreed, dialogue.outcome.reason) == (None, "unknown")
    assert dialogue.scenario.private["0"]["item"] == {"category": "furniture", "title": "Brass floor lamp", "description": [], "price": None, "images": []}


def test_hf_ints_where_the_loader_writes_floats_are_kept(fixtures: Path) -> None:
    record = hf_records(fixtures)[0]
    record["agent_info"]["Target"] = [7, 10]
    record["dialogue_acts"]["price"] = [5, 9, -1, -1, 8, -1]
    dialogue = FMT.to_dialogue(record)
    assert set(dialogue.source.extra["hf_columns"]) == {"agent_info", "dialogue_acts"}
    assert record_differences(record, FMT.from_dialogue(dialogue)) == []


# ---------------------------------------------------------------------- across shapes


def test_cocoa_record_written_in_hf_shape_keeps_the_transcript(fixtures: Path) -> None:
    for record in cocoa_records(fixtures):
        dialogue = FMT.to_dialogue(record)
        row = FMT.from_dialogue(dialogue, shape="hf")
        assert set(row) == {"agent_info", "agent_turn", "dialogue_acts", "utterance", "items"}
        assert FMT.check(row) == []
        again = FMT.to_dialogue(row)
        assert again.source.shape == "hf"
        assert transcript(again) == transcript(dialogue)
        for party in ("0", "1"):
            mine, theirs = dialogue.scenario.private[party], again.scenario.private[party]
            assert (mine["role"], float(mine["target"])) == (theirs["role"], theirs["target"])
        if dialogue.outcome is not None and dialogue.outcome.agreed:
            assert again.outcome is not None and again.outcome.deal == dialogue.outcome.deal
            assert again.outcome.scores == pytest.approx(dialogue.outcome.scores)


def test_hf_row_written_in_cocoa_shape_is_a_valid_record(fixtures: Path) -> None:
    for row in hf_records(fixtures):
        dialogue = FMT.to_dialogue(row)
        record = FMT.from_dialogue(dialogue, shape="cocoa")
        assert FMT.check(record) == []
        assert transcript(FMT.to_dialogue(record)) == transcript(dialogue)


def test_hf_writer_names_non_message_turns_by_their_act(fixtures: Path) -> None:
    dialogue = FMT.to_dialogue(by_id(cocoa_records(fixtures), "C_fixture_stalled_furniture"))
    row = to_hf_record(dialogue)
    assert row["utterance"][2] == ""
    assert row["dialogue_acts"]["intent"] == ["intro", "inquiry", "offer", "counter-price"]
    assert row["dialogue_acts"]["price"] == [-1.0, -1.0, -1.0, 200.0]
    assert row["agent_info"]["Bottomline"] == ["None", "None"]
    assert row["items"]["Description"][1] == "Solid walnut legs, no pets, no smoke."
    assert row["items"]["Price"] == [350.0, 350.0]


def test_unknown_shape_is_refused(fixtures: Path) -> None:
    with pytest.raises(ValueError, match="shape"):
        FMT.from_dialogue(FMT.to_dialogue(cocoa_records(fixtures)[0]), shape="parquet")


# ---------------------------------------------------------------------- dialogues not read from the corpus


def played_dialogue() -> Dialogue:
    """A self-play episode: ids by role, no native leftovers, a system note, annotations by our parser."""
    item = {"category": "electronics", "title": "Kindle Paperwhite", "description": ["Like new."], "price": 80, "images": []}
    return Dialogue(
        id="selfplay-7",
        task="craigslist",
        scenario=Scenario(
            id="S_generated_1",
            public={"category": "electronics", "title": "Kindle Paperwhite", "listing_price": 80},
            private={
                "seller": {"role": "seller", "target": 80, "bottomline": None, "item": item},
                "buyer": {"role": "buyer", "target": 56, "bottomline": None, "item": item},
            },
        ),
        parties=[Party(id="buyer", kind="bot", agent="rule", role="buyer"), Party(id="seller", kind="human", role="seller")],
        events=[
            Message(party="buyer", time=1700000000.25, text="would you take 60?"),
            SystemNote(party=None, time=1700000001.0, name="typing-timeout"),
            Message(party="seller", time=1700000005.5, text="70 and it's yours"),
            Offer(party="seller", time=1700000006.0, price=70),
            Accept(party="buyer", time=1700000007.0),
        ],
        outcome=Outcome(reason="agreement", agreed=True, deal={"price": 70.0}),
        annotations=[
            Annotation(event=0, layer="intent", labels=["init-price"], source="duologue.acts"),
            Annotation(event=0, layer="price", value=60.0, source="duologue.acts"),
        ],
    )


def test_played_dialogue_is_written_as_a_valid_cocoa_record() -> None:
    dialogue = played_dialogue()
    record = to_cocoa_record(dialogue)
    assert FMT.check(record) == []
    assert list(record) == ["uuid", "scenario", "agents_info", "scenario_uuid", "agents", "outcome", "events"]
    assert record["agents"] == {"0": "rule", "1": "human"}
    assert [kb["personal"]["Role"] for kb in record["scenario"]["kbs"]] == ["buyer", "seller"]
    assert record["scenario"]["uuid"] == record["scenario_uuid"] == "S_generated_1"
    assert record["outcome"] == {"reward": 1, "offer": {"price": 70.0, "sides": ""}}
    assert len(record["events"]) == 4, "the system note has no CoCoA action"
    first = record["events"][0]
    assert first == {
        "start_time": None,
        "agent": 0,
        "time": "1700000000.25",
        "action": "message",
        "data": "would you take 60?",
        "metadata": {"intent": "init-price", "price": 60.0},
    }
    assert record["events"][3]["metadata"] is None
    read = FMT.to_dialogue(record)
    assert [e.kind for e in read.events] == ["message", "message", "offer", "accept"]
    assert read.outcome is not None and read.outcome.scores == pytest.approx({"0": -1 / 6, "1": 1 / 6})  # targets 56 / 80: midpoint 68, scale 12


def test_played_dialogue_is_written_as_a_valid_hf_row() -> None:
    row = to_hf_record(played_dialogue())
    assert FMT.check(row) == []
    assert row["agent_turn"] == [0, 1, 1, 0]
    assert row["utterance"] == ["would you take 60?", "70 and it's yours", "", ""]
    assert row["dialogue_acts"] == {"intent": ["init-price", "", "offer", "accept"], "price": [60.0, -1.0, 70.0, -1.0]}


def test_events_of_other_tasks_cannot_be_written() -> None:
    dialogue = played_dialogue()
    dialogue.events.append(SubmitDeal(party="buyer", mine={"Food": 3}, theirs={"Food": 0}))
    with pytest.raises(ValueError, match="submit-deal"):
        FMT.from_dialogue(dialogue)


def test_more_than_two_parties_cannot_be_written() -> None:
    dialogue = played_dialogue()
    dialogue.parties.append(Party(id="broker", kind="human"))
    with pytest.raises(ValueError, match="two parties"):
        FMT.from_dialogue(dialogue)


# ---------------------------------------------------------------------- check never raises


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(JSON)
def test_check_never_raises_on_arbitrary_json(value: object) -> None:
    assert isinstance(FMT.check(value), list)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(["uuid", "scenario", "agents", "outcome", "events", "agent_info", "agent_turn", "dialogue_acts", "utterance", "items"]), JSON)
def test_check_never_raises_when_one_field_is_replaced(key: str, value: object) -> None:
    cocoa = json.loads((Path(__file__).parents[2] / "fixtures" / "craigslist" / "cocoa.json").read_text(encoding="utf-8"))[0]
    hf = json.loads((Path(__file__).parents[2] / "fixtures" / "craigslist" / "hf.jsonl").read_text(encoding="utf-8").splitlines()[0])
    for record in (cocoa, hf):
        record[key] = value
        problems = FMT.check(record)
        assert isinstance(problems, list)
        if not problems:  # whatever check lets through must convert
            FMT.to_dialogue(record)


def test_parsed_fixture_needs_no_leftovers_but_typing_times(fixtures: Path) -> None:
    dialogue = FMT.to_dialogue(by_id(cocoa_records(fixtures), "C_fixture_deal_bike"))
    assert dialogue.source.extra == {}
    assert {key for event in dialogue.events for key in event.extra} == {"start_time"}

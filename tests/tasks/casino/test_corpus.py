"""The CaSiNo corpus format: mapping to the schema, lossless round trips, and the real corpus."""

from __future__ import annotations

import copy
import json
import statistics
from pathlib import Path

import pytest

from duologue.core.schema import (
    AcceptDeal,
    Annotation,
    Dialogue,
    Message,
    Outcome,
    Party,
    Rating,
    RejectDeal,
    Scenario,
    SubmitDeal,
    SystemNote,
    WalkAway,
)
from duologue.data.compare import record_differences
from duologue.data.io import read_corpus, write_native
from duologue.tasks import corpus_format
from duologue.tasks.casino.corpus import CasinoFormat
from duologue.tasks.casino.rules import LIKENESS_SCALE, SATISFACTION_SCALE, is_pareto_optimal

FMT = CasinoFormat()
A1, A2 = "mturk_agent_1", "mturk_agent_2"


@pytest.fixture
def sample(fixtures: Path) -> list[dict]:
    return json.loads((fixtures / "casino" / "casino_sample.json").read_text(encoding="utf-8"))


def by_id(records: list[dict], dialogue_id: int) -> dict:
    return next(r for r in records if r["dialogue_id"] == dialogue_id)


def assert_lossless(record: dict) -> Dialogue:
    dialogue = FMT.to_dialogue(record)
    assert record_differences(record, FMT.from_dialogue(dialogue)) == []
    # and through duologue's own JSON form, as stored on disk
    again = Dialogue.model_validate_json(dialogue.model_dump_json())
    assert record_differences(record, FMT.from_dialogue(again)) == []
    return dialogue


# --------------------------------------------------------------------------- registry


def test_registered_under_casino():
    fmt = corpus_format("casino")
    assert isinstance(fmt, CasinoFormat)
    assert (fmt.name, fmt.task, fmt.layout) == ("casino", "casino", "list")


def test_record_id():
    assert FMT.record_id({"dialogue_id": 938}) == "938"
    assert FMT.record_id({"dialogue_id": True}) is None
    assert FMT.record_id("nonsense") is None


# --------------------------------------------------------------------------- fixtures


def test_fixture_records_are_valid_and_round_trip_exactly(sample):
    for record in sample:
        assert FMT.check(record) == []
        assert_lossless(record)
        # key order too: the writer emits the corpus's own order
        assert json.dumps(FMT.from_dialogue(FMT.to_dialogue(record))) == json.dumps(record)


def test_read_corpus_reads_the_fixture_file(fixtures):
    result = read_corpus(FMT, fixtures / "casino" / "casino_sample.json")
    assert [d.id for d in result.dialogues] == ["101", "102", "103", "104"]
    assert result.invalid == 0 and result.problems == []
    assert all(d.task == "casino" and d.source.corpus == "casino" for d in result.dialogues)
    assert [d.source.index for d in result.dialogues] == [0, 1, 2, 3]


def test_agreement_after_a_rejection(sample):
    d = FMT.to_dialogue(by_id(sample, 101))
    assert [p.id for p in d.parties] == [A1, A2]
    assert all(p.kind == "human" for p in d.parties)
    assert d.parties[0].info["demographics"]["age"] == 29
    assert d.parties[1].info["personality"]["svo"] == "proself"
    assert d.scenario.public["issues"] == ["Food", "Water", "Firewood"]
    assert d.scenario.public["packages"] == {"Food": 3, "Water": 3, "Firewood": 3}
    view = d.scenario.private[A2]
    assert view["priorities"] == {"Food": "Low", "Water": "Medium", "Firewood": "High"}
    assert view["value2issue"] == {"Low": "Food", "High": "Firewood", "Medium": "Water"}
    assert view["reasons"]["Firewood"] == "My kids get cold at night."

    kinds = [e.kind for e in d.events]
    assert kinds == ["message"] * 6 + ["submit-deal", "reject-deal", "message", "message", "submit-deal", "accept-deal"]
    first = d.events[6]
    assert isinstance(first, SubmitDeal) and first.party == A2
    assert first.mine == {"Food": 2, "Water": 0, "Firewood": 3} and first.theirs == {"Food": 1, "Water": 3, "Firewood": 0}
    assert isinstance(d.events[7], RejectDeal) and d.events[7].party == A1
    assert all(e.extra == {} for e in d.events)  # nothing odd to keep

    assert d.outcome.reason == "agreement" and d.outcome.agreed is True
    assert d.outcome.deal == {A1: {"Water": 2, "Food": 2, "Firewood": 0}, A2: {"Water": 1, "Food": 1, "Firewood": 3}}
    assert d.outcome.scores == {A1: 18, A2: 22}


def test_ratings_are_party_answers_on_label_scales(sample):
    d = FMT.to_dialogue(by_id(sample, 101))
    satisfaction = {r.rater_id: r for r in d.ratings if r.criterion == "satisfaction"}
    likeness = {r.rater_id: r for r in d.ratings if r.criterion == "opponent_likeness"}
    assert satisfaction[A1].value == "Slightly satisfied" and satisfaction[A1].target is None
    assert satisfaction[A1].scale == SATISFACTION_SCALE and satisfaction[A1].rater_kind == "party"
    assert likeness[A2].value == "Extremely like" and likeness[A2].target == A1
    assert likeness[A1].target == A2 and likeness[A1].scale == LIKENESS_SCALE
    assert SATISFACTION_SCALE.numeric(satisfaction[A1].value) == 4.0


def test_annotations_skip_an_unannotated_message(sample):
    d = FMT.to_dialogue(by_id(sample, 101))
    strategy = d.annotations_of("strategy")
    # message 5 ("Food is tricky ...") has no annotation, as in corpus dialogues 428 and 596
    assert [a.event for a in strategy] == [0, 1, 2, 3, 4, 8, 9]
    assert strategy[2].labels == ["self-need", "elicit-pref"]
    assert all(a.source == "corpus" for a in strategy)
    for annotation in strategy:
        assert isinstance(d.events[annotation.event], Message)


def test_repeated_utterances_align_in_order(sample):
    d = FMT.to_dialogue(by_id(sample, 103))
    assert [a.event for a in d.annotations] == [0, 1, 2, 3, 4, 5]
    assert d.events[2].text == d.events[5].text == "ok"


def test_walk_away_scores_five_each_and_first_speaker_comes_first(sample):
    d = FMT.to_dialogue(by_id(sample, 102))
    assert [p.id for p in d.parties] == [A2, A1]
    assert isinstance(d.events[-1], WalkAway) and d.events[-1].party == A1
    assert d.outcome.reason == "walk_away" and d.outcome.agreed is False and d.outcome.deal is None
    assert d.outcome.scores == {A2: 5, A1: 5}
    assert d.annotations == []


def test_unfinished_dialogue_with_unanswered_questions(sample):
    d = FMT.to_dialogue(by_id(sample, 104))
    assert d.outcome.reason == "no_agreement" and d.outcome.agreed is False
    assert d.outcome.scores == {}
    assert [(r.rater_id, r.criterion, r.value) for r in d.ratings] == [(A2, "satisfaction", "Undecided")]


# --------------------------------------------------------------------------- what the schema does not model


def test_native_oddities_are_kept_losslessly(sample):
    record = copy.deepcopy(by_id(sample, 101))
    record["dialogue_id"] = "101"  # a string id stays a string
    record["hit_id"] = "3XYZ"  # an unknown top-level field
    record["chat_logs"][0]["timestamp"] = 1600000000  # an unknown entry field
    record["chat_logs"][7]["task_data"] = {"data": "reject_deal", "reason": "too greedy"}
    record["chat_logs"][11]["task_data"] = {"data": 1}  # an int where the corpus writes text
    record["chat_logs"][10]["task_data"]["note"] = "final"
    record["participant_info"][A1]["worker_country"] = "US"
    record["participant_info"][A2]["outcomes"]["bonus"] = 0.5
    assert FMT.check(record) == []
    d = assert_lossless(record)
    assert d.id == "101"
    assert d.events[0].extra == {"fields": {"timestamp": 1600000000}}
    assert d.events[11].extra == {"task_data": {"data": 1}}


def test_unmatched_annotation_is_kept_when_converted_directly(sample):
    record = copy.deepcopy(by_id(sample, 103))
    record["annotations"].insert(2, ["a line that was edited later", "non-strategic"])
    d = assert_lossless(record)
    stray = d.annotations[2]
    assert stray.event is None and stray.value == {"utterance": "a line that was edited later"}
    assert [a.event for a in d.annotations if a.event is not None] == [0, 1, 2, 3, 4, 5]


def test_write_native_writes_a_json_array(sample, tmp_path):
    dialogues = [FMT.to_dialogue(r) for r in sample]
    (path,) = write_native(FMT, dialogues, tmp_path / "casino_out.json")
    assert json.loads(path.read_text(encoding="utf-8")) == sample


# --------------------------------------------------------------------------- dialogues played here


def played_dialogue() -> Dialogue:
    """A human-bot negotiation as the platform would record it (no corpus extras)."""
    return Dialogue(
        id="6f1c2a",
        task="casino",
        parties=[Party(id="alice", kind="human", info={"demographics": {"age": 30}}), Party(id="bot", kind="bot", agent="rule")],
        scenario=Scenario(
            private={
                "alice": {"priorities": {"Food": "High", "Water": "Low", "Firewood": "Medium"}, "reasons": {"Food": "hungry kids"}},
                "bot": {"priorities": {"Food": "Low", "Water": "High", "Firewood": "Medium"}},
            }
        ),
        events=[
            Message(party="alice", text="hi, I need food"),
            SystemNote(party=None, name="timeout"),
            SubmitDeal(party="bot", mine={"Food": 0, "Water": 3, "Firewood": 1}, theirs={"Food": 3, "Water": 0, "Firewood": 2}),
            AcceptDeal(party="alice"),
        ],
        outcome=Outcome(reason="agreement", agreed=True, scores={"alice": 23.0, "bot": 19.0}),
        ratings=[
            Rating(rater_kind="party", rater_id="alice", criterion="satisfaction", value=5),  # 1..5 questionnaire
            Rating(rater_kind="party", rater_id="alice", target="bot", criterion="opponent_likeness", value="Slightly like", scale=LIKENESS_SCALE),
        ],
        annotations=[Annotation(event=0, layer="strategy", labels=["self-need"], source="duologue.strategy")],
    )


def test_from_dialogue_fills_native_fields_for_played_dialogues():
    record = FMT.from_dialogue(played_dialogue())
    assert record["dialogue_id"] == "6f1c2a"
    assert [e["text"] for e in record["chat_logs"]] == ["hi, I need food", "Submit-Deal", "Accept-Deal"]  # the note has no place
    assert record["chat_logs"][1]["task_data"] == {
        "issue2youget": {"Food": "0", "Water": "3", "Firewood": "1"},
        "issue2theyget": {"Food": "3", "Water": "0", "Firewood": "2"},
    }
    assert record["chat_logs"][2]["task_data"] == {"data": "accept_deal"}
    alice = record["participant_info"]["alice"]
    assert alice["value2issue"] == {"High": "Food", "Medium": "Firewood", "Low": "Water"}
    assert alice["value2reason"] == {"High": "hungry kids", "Medium": "", "Low": ""}
    assert alice["outcomes"] == {"points_scored": 23, "satisfaction": "Extremely satisfied", "opponent_likeness": "Slightly like"}
    assert record["participant_info"]["bot"]["outcomes"] == {"points_scored": 19, "satisfaction": None, "opponent_likeness": None}
    assert record["annotations"] == [["hi, I need food", "self-need"]]
    # what we write, we can read back
    assert FMT.check(record) == []
    back = FMT.to_dialogue(record)
    assert back.outcome.deal == {"alice": {"Food": 3, "Water": 0, "Firewood": 2}, "bot": {"Food": 0, "Water": 3, "Firewood": 1}}


def test_from_dialogue_refuses_moves_of_other_tasks():
    from duologue.core.schema import Offer

    dialogue = played_dialogue()
    dialogue.events = [*dialogue.events, Offer(party="bot", price=10.0)]
    with pytest.raises(ValueError, match="no place in a CaSiNo record"):
        FMT.from_dialogue(dialogue)


# --------------------------------------------------------------------------- the real corpus


def real_records(folder: Path) -> list[tuple[str, dict]]:
    records = []
    for name in ("casino_train.json", "casino_valid.json"):
        records += [(name, r) for r in json.loads((folder / name).read_text(encoding="utf-8"))]
    return records


@pytest.mark.corpus
def test_every_real_record_is_valid_and_round_trips(corpus_path):
    records = real_records(corpus_path("casino/split"))
    assert len(records) == 930
    failures = []
    for name, record in records:
        problems = FMT.check(record)
        if problems:
            failures.append((name, record.get("dialogue_id"), [str(p) for p in problems[:3]]))
            continue
        dialogue = FMT.to_dialogue(record)
        differences = record_differences(record, FMT.from_dialogue(dialogue))
        if differences:
            failures.append((name, record["dialogue_id"], differences[:3]))
    assert failures == []


@pytest.mark.corpus
def test_real_corpus_facts(corpus_path):
    folder = corpus_path("casino/split")
    dialogues = read_corpus(FMT, folder).dialogues
    assert len(dialogues) == 930
    assert {d.split for d in dialogues} == {"train", "valid"}
    scores = [s for d in dialogues for s in d.outcome.scores.values()]
    # DESIGN's 18.64 (sd 3.54) and 25 walk-aways are for all 1,030 dialogues; these files hold
    # train + valid only (the 100 test dialogues, with one walk-away, are not here).
    assert len(scores) == 1860
    assert statistics.mean(scores) == pytest.approx(18.6075, abs=1e-4)
    assert statistics.stdev(scores) == pytest.approx(3.5690, abs=1e-4)
    reasons = [d.outcome.reason for d in dialogues]
    assert reasons.count("walk_away") == 24 and reasons.count("agreement") == 906
    walked = [d for d in dialogues if d.outcome.reason == "walk_away"]
    assert all(set(d.outcome.scores.values()) == {5} for d in walked)
    annotated = [d for d in dialogues if d.annotations]
    assert len(annotated) == 354
    assert sum(len(d.annotations) for d in annotated) == 4123
    assert all(a.event is not None for d in annotated for a in d.annotations)
    gaps = {d.id for d in annotated if len(d.annotations) != len(d.messages())}
    assert gaps == {"428", "596"}
    agreed = [d for d in dialogues if d.outcome.agreed]
    optimal = sum(
        is_pareto_optimal(d.outcome.deal[d.parties[0].id], d.scenario.private[d.parties[0].id]["priorities"], d.scenario.private[d.parties[1].id]["priorities"])
        for d in agreed
    )
    assert optimal == 608  # 67% of agreed deals are Pareto optimal

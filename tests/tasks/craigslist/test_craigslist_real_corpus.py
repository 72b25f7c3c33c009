"""The real CraigslistBargains files (validation.json parsed, dev.json unparsed): skipped when absent."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from duologue.data.compare import record_differences
from duologue.data.io import read_corpus
from duologue.tasks.craigslist.corpus import CraigslistFormat

pytestmark = pytest.mark.corpus
FMT = CraigslistFormat()


@pytest.fixture(scope="module")
def loaded() -> dict[str, list]:
    """Each real file once per module (the `corpus_path` fixture decides whether to skip)."""
    return {}


def records(corpus_path, loaded: dict, name: str) -> list[dict]:
    if name not in loaded:
        loaded[name] = json.loads(corpus_path(f"craigslist/{name}").read_text(encoding="utf-8"))
    return loaded[name]


@pytest.mark.parametrize("name", ["validation.json", "dev.json"])
def test_every_real_record_is_valid_and_round_trips_losslessly(corpus_path, loaded, name: str) -> None:
    data = records(corpus_path, loaded, name)
    assert len(data) == 597
    for index, record in enumerate(data):
        assert FMT.check(record) == [], f"{name} #{index}"
        back = FMT.from_dialogue(FMT.to_dialogue(record, file=name, index=index))
        assert record_differences(record, back) == [], f"{name} #{index} {record['uuid']}"
        assert json.dumps(back) == json.dumps(record), f"{name} #{index}: key order or text differs"


def test_validation_facts(corpus_path) -> None:
    result = read_corpus(FMT, corpus_path("craigslist/validation.json"))
    dialogues = result.dialogues
    assert (result.records, result.invalid, len(dialogues)) == (597, 0, 597)
    assert {d.split for d in dialogues} == {"valid"}
    agreed = [d for d in dialogues if d.outcome and d.outcome.agreed]
    assert len(agreed) == 451  # agreement rate 0.755
    assert Counter(d.outcome.reason for d in dialogues if d.outcome) == {"agreement": 451, "no_agreement": 94, "quit": 52}
    assert all(set(d.outcome.scores) == {"0", "1"} for d in agreed if d.outcome)
    assert all(d.outcome.scores["0"] == pytest.approx(-d.outcome.scores["1"]) for d in agreed if d.outcome)
    intents = Counter(a.labels[0] for d in dialogues for a in d.annotations_of("intent"))
    assert sum(intents.values()) == 4797
    assert intents["unknown"] == 945 and intents["counter-price"] == 821 and intents["offer"] == 422
    assert set(intents) == {
        "intro", "init-price", "inquiry", "inform", "counter-price", "vague-price", "insist", "agree",
        "disagree", "unknown", "offer", "accept", "reject", "quit",
    }
    # Agent 0 is the buyer in every record of this file.
    assert {d.party("0").role for d in dialogues} == {"buyer"}


def test_outcome_reward_matches_the_events(corpus_path, loaded) -> None:
    """CoCoA's reward is 1 exactly when an offer was accepted; outcome.offer needs no extra except when absent."""
    for record in records(corpus_path, loaded, "validation.json"):
        dialogue = FMT.to_dialogue(record)
        assert dialogue.outcome is not None
        assert (record["outcome"]["reward"] == 1) == dialogue.outcome.agreed
        assert ("native" in dialogue.outcome.extra) == ("offer" not in record["outcome"])


def test_dev_is_the_validation_dialogues_without_parser_labels(corpus_path, loaded) -> None:
    validation = {r["uuid"]: FMT.to_dialogue(r) for r in records(corpus_path, loaded, "validation.json")}
    dev = [FMT.to_dialogue(r) for r in records(corpus_path, loaded, "dev.json")]
    assert {d.id for d in dev} == set(validation)
    for dialogue in dev:
        assert dialogue.annotations == []
        twin = validation[dialogue.id]
        assert [e.model_dump(exclude={"extra"}) for e in dialogue.events] == [e.model_dump(exclude={"extra"}) for e in twin.events]
        assert dialogue.outcome == twin.outcome


def test_every_validation_record_keeps_its_transcript_in_hf_shape(corpus_path, loaded) -> None:
    for record in records(corpus_path, loaded, "validation.json"):
        dialogue = FMT.to_dialogue(record)
        row = FMT.from_dialogue(dialogue, shape="hf")
        assert FMT.check(row) == [], record["uuid"]
        again = FMT.to_dialogue(row)
        assert [(e.kind, e.party, getattr(e, "text", None), getattr(e, "price", None)) for e in again.events] == [
            (e.kind, e.party, getattr(e, "text", None), getattr(e, "price", None)) for e in dialogue.events
        ], record["uuid"]
        assert again.outcome is not None and dialogue.outcome is not None
        if any(row["dialogue_acts"]["intent"]):
            assert again.outcome.agreed == dialogue.outcome.agreed
        else:  # no act at all (every parser label null): the row cannot say how it ended
            assert (again.outcome.agreed, dialogue.outcome.agreed) == (None, False)
        assert again.outcome.deal == dialogue.outcome.deal


def test_the_schema_models_almost_everything(corpus_path, loaded) -> None:
    """Native leftovers stay small: typing start times, and the two outcomes that lack an `offer` key."""
    leftovers: Counter = Counter()
    for record in records(corpus_path, loaded, "validation.json"):
        dialogue = FMT.to_dialogue(record)
        leftovers.update(f"source.{key}" for key in dialogue.source.extra)
        leftovers.update(f"event.{key}" for event in dialogue.events for key in event.extra)
        leftovers.update(f"outcome.{key}" for key in (dialogue.outcome.extra if dialogue.outcome else {}))
    assert leftovers == {"event.start_time": 4416, "outcome.native": 2}

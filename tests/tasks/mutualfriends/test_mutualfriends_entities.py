"""The MutualFriends entity annotator: annotation shape, which knowledge base it links against, scoring, the labelled set, the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from duologue.cli import app
from duologue.core.schema import Annotation, Dialogue, Message, Party, Scenario, Select
from duologue.tasks import annotator
from duologue.tasks.mutualfriends.entities import EVAL_SOURCE, EntityAnnotator, eval_set_path, load_eval_set, write_eval_set

ATTRIBUTES = ["Name", "Company", "Time Preference"]
MINE = [  # party "0"
    {"Name": "Tyler", "Company": "Molycorp", "Time Preference": "morning"},
    {"Name": "Mark", "Company": "Google", "Time Preference": "evening"},
    {"Name": "Jessica", "Company": "Procter & Gamble", "Time Preference": "morning"},
]
THEIRS = [  # party "1"
    {"Name": "Tyler", "Company": "Molycorp", "Time Preference": "morning"},
    {"Name": "Brandon", "Company": "Alton Steel", "Time Preference": "afternoon"},
]


def dialogue(*messages: tuple[str, str], annotations: list[Annotation] | None = None, name: str = "d") -> Dialogue:
    return Dialogue(
        id=name,
        task="mutualfriends",
        scenario=Scenario(public={"attributes": [{"name": a} for a in ATTRIBUTES]}, private={"0": {"friends": MINE}, "1": {"friends": THEIRS}}),
        parties=[Party(id="0", kind="human"), Party(id="1", kind="human")],
        events=[Message(party=party, text=text) for party, text in messages],
        annotations=annotations or [],
    )


def found(annotations: list[Annotation]) -> list[tuple[int, str, str, str, bool]]:
    return [(a.event, a.value["attribute"], a.labels[0], a.value["text"], a.value["negated"]) for a in annotations]


def test_each_mention_is_one_annotation_with_the_kb_value_and_the_words_as_written():
    text = "I don't have anyone at P&G, but 2 at molycrop"
    (first, second) = EntityAnnotator().annotate(dialogue(("1", text)))
    assert first.layer == "entity" and first.source == "duologue.entities-v1" and first.event == 0
    assert first.labels == ["Procter & Gamble"]
    assert first.value == {"attribute": "Company", "text": "P&G", "start": 23, "end": 26, "negated": True}
    assert text[first.value["start"] : first.value["end"]] == "P&G"
    assert second.labels == ["Molycorp"] and second.value["negated"] is False
    assert text[second.value["start"] : second.value["end"]] == "molycrop"  # the typo as written


def test_only_messages_are_annotated_and_events_are_indexed_in_the_dialogue():
    d = dialogue(("0", "hi"), ("1", "any evening people?"))
    d.events.insert(1, Select(party="0", item=MINE[0]))
    assert found(EntityAnnotator().annotate(d)) == [(2, "Time Preference", "evening", "evening", False)]


def test_union_links_both_lists_and_nothing_outside_them():
    # party 0 denies a value only party 1 holds; "Alton Steel" is in none of the project's lists
    d = dialogue(("0", "no one at alton steel"), ("0", "any yale people?"))
    union = found(EntityAnnotator("union").annotate(d))
    assert union == [(0, "Company", "Alton Steel", "alton steel", True)]  # Yale is in neither list
    speaker = found(EntityAnnotator("speaker").annotate(d))
    assert speaker == [(1, "School", "Yale University", "yale", False)]  # the writer's list and the project's lexicon
    listener = found(EntityAnnotator("listener").annotate(d))
    assert (0, "Company", "Alton Steel", "alton steel", True) in listener  # the reader holds Alton Steel


def test_the_listener_view_is_what_the_rule_agent_reads_with():
    d = dialogue(("1", "brandon at alton steel in the afternoon"))
    # party 0 holds neither Brandon nor Alton Steel; the project's lists know Brandon, not Alton Steel
    assert {a.labels[0] for a in EntityAnnotator("listener").annotate(d)} == {"Brandon", "afternoon"}
    assert {a.labels[0] for a in EntityAnnotator("union").annotate(d)} == {"Brandon", "Alton Steel", "afternoon"}


def test_names_that_are_everyday_words_are_not_linked_in_verb_position():
    d = dialogue(("0", "I'll mark that down"), ("0", "Mark works at google in the mornings"), ("0", "do you have a mark?"))
    assert found(EntityAnnotator().annotate(d)) == [
        (1, "Name", "Mark", "Mark", False),
        (1, "Company", "Google", "google", False),
        (1, "Time Preference", "morning", "mornings", False),
        (2, "Name", "Mark", "mark", False),
    ]


def test_unknown_knowledge_base_is_refused():
    with pytest.raises(ValueError, match="union, speaker, listener"):
        EntityAnnotator("both")  # type: ignore[arg-type]


def test_registered_for_the_cli():
    assert isinstance(annotator("entities"), EntityAnnotator)


# --------------------------------------------------------------------------- scoring


def gold(event: int, value: str | None, attribute: str = "", negated: bool = False) -> Annotation:
    if value is None:
        return Annotation(event=event, layer="entity", labels=[], value=None, source="gold")
    return Annotation(event=event, layer="entity", labels=[value], value={"attribute": attribute, "negated": negated}, source="gold")


def test_scores_by_hand():
    d = dialogue(
        ("1", "none at molycorp, 2 at google"),  # both found, Molycorp negated: gold agrees
        ("0", "evening?"),  # found; gold also lists Tyler, which the text does not say: a miss
        ("0", "i have one at google"),  # gold says "no entity": Google is a false alarm
        ("1", "tyler in the morning"),  # gold (wrongly) says morning is negated: a mention hit, a negation miss
        annotations=[
            gold(0, "Molycorp", "Company", negated=True),
            gold(0, "Google", "Company"),
            gold(1, "evening", "Time Preference"),
            gold(1, "Tyler", "Name"),
            gold(2, None),
            gold(3, "Tyler", "Name"),
            gold(3, "morning", "Time Preference", negated=True),
        ],
    )
    evaluation = EntityAnnotator().evaluate([d])
    assert evaluation.items == 4
    m = evaluation.metrics
    # mentions: tp 5 (Molycorp, Google, evening, Tyler, morning), fn 1 (Tyler in message 1), fp 1 (Google in message 2)
    assert m["mention_precision"] == pytest.approx(5 / 6) and m["mention_recall"] == pytest.approx(5 / 6)
    # negated: gold {Molycorp, morning}, predicted {Molycorp}: tp 1, fn 1
    assert m["negation_precision"] == 1.0 and m["negation_recall"] == 0.5 and m["negation_f1"] == pytest.approx(2 / 3)
    assert m["negation_accuracy"] == pytest.approx(4 / 5)  # the negation flag of 4 of the 5 mentions found
    assert evaluation.per_label["Name"].support == 2 and evaluation.per_label["Name"].recall == 0.5
    assert evaluation.per_label["Company"].precision == pytest.approx(2 / 3)


def test_spans_are_scored_when_gold_gives_them():
    exact = Annotation(event=0, layer="entity", labels=["Google"], value={"attribute": "Company", "negated": False, "start": 7, "end": 13}, source="gold")
    wider = Annotation(event=0, layer="entity", labels=["Google"], value={"attribute": "Company", "negated": False, "start": 7, "end": 16}, source="gold")
    assert EntityAnnotator().evaluate([dialogue(("0", "one at google"), annotations=[exact])]).metrics["span_exact"] == 1.0
    assert EntityAnnotator().evaluate([dialogue(("0", "one at google"), annotations=[wider])]).metrics["span_exact"] == 0.0


def test_without_gold_there_is_nothing_to_score(fixtures: Path):
    from duologue.data.io import read_corpus
    from duologue.tasks import corpus_format

    dialogues = read_corpus(corpus_format("mutualfriends"), fixtures / "mutualfriends" / "cocoa_train.json").dialogues
    tagger = EntityAnnotator()
    assert tagger.evaluate(dialogues) is None
    tagged = list(tagger.annotate_all(dialogues))
    assert tagger.evaluate(tagged) is None  # its own labels are never gold
    assert any(d.annotations_of("entity") for d in tagged)


# --------------------------------------------------------------------------- the labelled set


def test_labelled_set_loads_as_one_message_dialogues_with_gold():
    everything = load_eval_set()
    dev, test = load_eval_set(split="dev"), load_eval_set(split="test")
    assert len(everything) >= 200 and len(dev) + len(test) == len(everything)
    assert {d.split for d in dev} == {"dev"} and {d.split for d in test} == {"test"}
    for d in everything:
        assert len(d.events) == 1 and d.events[0].party in d.scenario.private
        labels = d.annotations_of("entity")
        assert labels and all(a.source == EVAL_SOURCE for a in labels)
        in_play = {(a, f[a]) for view in d.scenario.private.values() for f in view["friends"] for a in f}
        for a in labels:
            if a.labels:
                assert (a.value["attribute"], a.labels[0]) in in_play
                assert d.events[0].text[a.value["start"] : a.value["end"]] == a.value["text"]
    negated = sum(1 for d in everything for a in d.annotations_of("entity") if a.labels and a.value["negated"])
    without = sum(1 for d in everything if not any(a.labels for a in d.annotations_of("entity")))
    assert negated >= 40 and without >= 20


def test_labelled_set_problems_name_their_line(tmp_path: Path):
    lines = eval_set_path().read_text().splitlines()
    scenario = json.loads(lines[0])
    item = json.loads(next(line for line in lines if json.loads(line)["kind"] == "utterance" and json.loads(line)["scenario"] == scenario["id"] and json.loads(line)["mentions"]))
    item["mentions"][0]["value"] = "Hogwarts"
    broken = tmp_path / "broken.jsonl"
    broken.write_text(lines[0] + "\n" + json.dumps(item) + "\n")
    with pytest.raises(ValueError, match="line 2: .*'Hogwarts' is in neither list"):
        load_eval_set(broken)
    item["scenario"] = "nowhere"
    broken.write_text(lines[0] + "\n" + json.dumps(item) + "\n")
    with pytest.raises(ValueError, match="line 2: scenario 'nowhere'"):
        load_eval_set(broken)


def test_held_out_half_stays_above_the_target():
    """A guard, not the measurement (that is `benchmarks/bench_mutualfriends_entities.py`)."""
    metrics = EntityAnnotator().evaluate(load_eval_set(split="test")).metrics
    assert metrics["mention_f1"] >= 0.90
    assert metrics["negation_f1"] >= 0.80


def test_cli_evaluates_the_labelled_set_and_annotates_a_native_corpus(tmp_path: Path, fixtures: Path):
    converted = write_eval_set(tmp_path / "eval.jsonl", split="dev")
    runner = CliRunner()
    result = runner.invoke(app, ["annotate", "entities", str(converted), "--evaluate", "--json"])
    assert result.exit_code == 0, result.output
    evaluation = json.loads(result.stdout)
    assert evaluation["annotator"] == "entities" and evaluation["items"] == len(load_eval_set(split="dev"))
    assert evaluation["metrics"]["mention_f1"] >= 0.9
    out = tmp_path / "tagged.jsonl"
    result = runner.invoke(app, ["annotate", "entities", str(fixtures / "mutualfriends" / "cocoa_train.json"), "--out", str(out)])
    assert result.exit_code == 0, result.output
    tagged = [Dialogue.model_validate_json(line) for line in out.read_text().splitlines()]
    hiking = tagged[0].annotations_of("entity")[0]
    assert hiking.labels == ["Hiking"] and hiking.value["attribute"] == "Hobby"

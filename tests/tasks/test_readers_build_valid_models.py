"""Readers build models without validating them a second time: they must be exactly what validation makes.

Every real record's dialogue is validated again from its dump; the result must be identical (JSON
types included), so no value skipped a conversion validation would have made (an int where a float
belongs) and every model rule holds. Dialogues must not share lists or objects with the records they
were read from, where the reader promises it (CraigslistBargains).
"""

from __future__ import annotations

import orjson
import pytest
from pydantic import BaseModel

from duologue.core.schema import Dialogue
from duologue.data.io import iter_raw, read_corpus
from duologue.tasks import corpus_format




def assert_as_validated(dialogue: Dialogue) -> None:
    again = Dialogue.model_validate(dialogue.model_dump())
    assert orjson.dumps(again.model_dump()) == orjson.dumps(dialogue.model_dump())


@pytest.mark.parametrize("name, relative", [("casino", "casino/split"), ("duo", "duo"), ("craigslist", "craigslist/validation.json"), ("craigslist", "craigslist/dev.json")])
def test_every_real_dialogue_is_what_validation_makes(name: str, relative: str, corpus_path):
    for dialogue in read_corpus(corpus_format(name), corpus_path(relative)).dialogues:
        assert_as_validated(dialogue)


@pytest.mark.parametrize("name", ["casino", "duo", "craigslist", "mutualfriends"])
def test_every_fixture_dialogue_is_what_validation_makes(name: str, fixtures):
    folder = {"duo": "duo"}.get(name, name)
    result = read_corpus(corpus_format(name), fixtures / folder, skip_invalid=True)
    assert result.dialogues
    for dialogue in result.dialogues:
        assert_as_validated(dialogue)


def containers(value, found: set[int]) -> set[int]:
    if isinstance(value, BaseModel):
        for item in value.__dict__.values():
            containers(item, found)
    elif isinstance(value, (dict, list)):
        found.add(id(value))
        for item in value.values() if isinstance(value, dict) else value:
            containers(item, found)
    return found


def test_craigslist_dialogues_share_nothing_with_their_records(corpus_path):
    fmt = corpus_format("craigslist")
    for raw in iter_raw(corpus_path("craigslist/validation.json"), []):
        dialogue = fmt.to_dialogue(raw.record)
        assert not containers(raw.record, set()) & containers(dialogue, set())

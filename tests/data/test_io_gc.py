"""Reading pauses the cyclic garbage collector and always gives it back as it was."""

import gc
import json
from pathlib import Path

import pytest

from duologue.data.io import CorpusReadError, read_corpus
from duologue.tasks import corpus_format


def test_the_collector_is_back_on_after_a_read_and_after_a_failed_read(tmp_path: Path, fixtures: Path):
    assert gc.isenabled()
    read_corpus(corpus_format("casino"), fixtures / "casino" / "casino_sample.json")
    assert gc.isenabled()
    broken = tmp_path / "casino_broken.json"
    broken.write_text(json.dumps(["not a dialogue"]))
    with pytest.raises(CorpusReadError):
        read_corpus(corpus_format("casino"), broken)
    assert gc.isenabled()


def test_a_collector_the_caller_turned_off_stays_off(fixtures: Path):
    gc.disable()
    try:
        read_corpus(corpus_format("casino"), fixtures / "casino" / "casino_sample.json")
        assert not gc.isenabled()
    finally:
        gc.enable()

"""The label agreement benchmark: its counting on tiny hand-made labellings, and the committed second labels."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_label_agreement.py"
spec = importlib.util.spec_from_file_location("bench_label_agreement", SCRIPT)
assert spec is not None and spec.loader is not None
bench = importlib.util.module_from_spec(spec)
sys.modules[spec.name] = bench  # its dataclasses look their module up by name
spec.loader.exec_module(bench)

ISSUES = {"Food", "Water", "Firewood"}


def _offers(ref, first, second):
    return bench.offer_kind(first, second)


def test_offer_agreement_counts_each_kind_of_difference():
    pairs = [
        ("a", {"Food": 3, "Water": 0}, {"Water": 0, "Food": 3}),  # same split, keys in another order
        ("b", None, None),
        ("c", None, {"Firewood": 1}),
        ("d", {"Water": 2}, {"Water": 2, "Food": 1}),
        ("e", {"Water": 2, "Food": 1}, {"Water": 1, "Food": 1}),
        ("f", {"Water": 2}, {"Food": 1, "Firewood": 0}),
        ("g", {"Water": 2, "Food": 1}, {"Water": 3}),
    ]
    result = bench.agreement(pairs, _offers)
    assert (result.n, result.agreed) == (7, 2)
    assert result.share == pytest.approx(2 / 7)
    assert result.disagreeing == ["c", "d", "e", "f", "g"]
    assert result.kinds == {
        "a split in one labelling, none in the other": 1,
        "an issue left open in one, stated in the other": 1,
        "the same issues, a share differs": 1,
        "each leaves open an issue the other states": 1,
        "issues left open differ and a share differs": 1,
    }
    reviewed = bench.agreement(pairs, _offers, {"c": "a count said against the dialogue"})
    assert reviewed.kinds["a count said against the dialogue"] == 1 and reviewed.kinds["a split in one labelling, none in the other"] == 0


def test_price_kinds_tell_a_second_amount_from_one_not_written():
    text = "I'm asking $1,250 but I could take 1100"
    assert bench.amounts(text) == {1250.0, 1100.0}
    assert bench.price_kind(1250.0, 1250.004, text) is None
    assert bench.price_kind(None, None, text) is None
    assert bench.price_kind(1100.0, None, text) == "a price in one labelling, none in the other"
    assert bench.price_kind(1250.0, 1100.0, text) == "two amounts of the message, each taken by one"
    assert bench.price_kind(1100.0, 9000.0, "listed for 10.5 but will go to 9") == "an amount not written as such in one (typo, shorthand or sum)"
    result = bench.agreement([("x", 10.0, 10.0), ("y", 12.0, None), ("z", None, None)], lambda ref, a, b: bench.price_kind(a, b, ""))
    assert (result.n, result.agreed, result.disagreeing) == (3, 2, ["y"])


def test_wilson_interval_and_the_second_labelling_read_as_a_reader():
    assert bench.wilson(0, 0) == (0.0, 1.0)
    low, high = bench.wilson(189, 198)
    assert low < 189 / 198 < high and low == pytest.approx(0.9159, abs=1e-3) and high == pytest.approx(0.9759, abs=1e-3)
    assert bench.wilson(10, 10)[1] == 1.0
    pairs = [("a", {"Food": 2}, {"Food": 2}), ("b", None, {"Food": 1}), ("c", {"Water": 3}, None), ("d", {"Water": 1}, {"Water": 2})]
    precision, recall = bench.as_reader(pairs)
    assert precision == [1.0, 0.0, 0.0] and recall == [1.0, 0.0, 0.0]


def test_the_draws_are_seeded_and_keep_out_what_was_seen():
    rows = [{"ref": f"train:{i}:1", "half": "test" if i % 3 else "dev", "offer": None} for i in range(60)]
    rows.append({"ref": "train:6:8", "half": "test", "offer": None})
    rows.append({"ref": "train:99:0", "half": "test", "top": None})  # no offer key: not drawn
    drawn = bench.casino_draw(rows, size=10)
    assert drawn == bench.casino_draw(rows, size=10) != bench.casino_draw(rows, seed="another", size=10)
    everything = bench.casino_draw(rows, size=1000)
    assert len(everything) == 40 and "train:6:8" not in everything and "train:99:0" not in everything
    prices = [{"dialogue": f"C_{i}", "event": i % 5, "split": ("dev", "test", "test2", "heldout")[i % 4]} for i in range(40)]
    pairs = bench.craigslist_draw(prices, size=1000)
    assert len(pairs) == 20 and pairs == bench.craigslist_draw(prices, size=1000)


def test_the_committed_second_labels_parse_and_lie_in_their_draws():
    casino_first = bench.lines_of("duologue.tasks.casino", "understanding_set.jsonl")
    casino = bench.lines_of(*bench.CASINO_SECOND)
    prices_first = bench.lines_of("duologue.tasks.craigslist", "price_labels.jsonl")
    prices = bench.lines_of(*bench.CRAIGSLIST_SECOND)
    bench.check_second_files(casino_first, casino, prices_first, prices)
    assert len(bench.casino_draw(casino_first)) == len(bench.craigslist_draw(prices_first)) == bench.DRAWN
    assert (len(casino), len(prices)) == (198, 199)  # 2 and 1 of the 200 drawn left out as unsettled
    for row in casino:
        assert set(row) == {"ref", "sha", "offer", "half"} and row["half"] == "test" and len(row["sha"]) == 12
        if row["offer"] is not None:
            assert row["offer"] and set(row["offer"]) <= ISSUES and all(0 <= n <= 3 for n in row["offer"].values())
    for row in prices:
        assert set(row) == {"dialogue", "event", "split", "price", "sha"} and row["split"] in ("test", "test2")
        assert row["price"] is None or row["price"] > 0
    disagreeing = set(bench.agreement(bench.casino_pairs(casino_first, casino), _offers).disagreeing)
    assert set(bench.REVIEWED_CASINO) <= disagreeing
    found = bench.agreement(bench.craigslist_pairs(prices_first, prices), lambda ref, a, b: bench.price_kind(a, b, ""))
    assert set(bench.REVIEWED_CRAIGSLIST) <= set(found.disagreeing)


def test_without_the_corpora_it_prints_the_agreement_and_skips_the_readers(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(sys, "argv", ["bench_label_agreement.py", "--data", str(tmp_path / "absent")])
    assert bench.main() == 0
    out = capsys.readouterr().out
    assert "189/198" in out and "198/199" in out and "reader accuracy skipped" in out


@pytest.mark.corpus
def test_the_second_labels_point_at_the_messages_they_were_made_on(corpus_path):
    split = corpus_path("casino/split")
    logs = {}
    for name, file in (("train", "casino_train.json"), ("valid", "casino_valid.json")):
        for dialogue in json.loads((split / file).read_text(encoding="utf-8")):
            logs[(name, str(dialogue["dialogue_id"]))] = dialogue["chat_logs"]
    for row in bench.lines_of(*bench.CASINO_SECOND):
        name, dialogue, index = row["ref"].split(":")
        assert bench.short_hash(logs[(name, dialogue)][int(index)]["text"]) == row["sha"], row["ref"]
    events = {d["uuid"]: d["events"] for d in json.loads(corpus_path("craigslist/validation.json").read_text(encoding="utf-8"))}
    for row in bench.lines_of(*bench.CRAIGSLIST_SECOND):
        assert bench.short_hash(events[row["dialogue"]][row["event"]]["data"]) == row["sha"], (row["dialogue"], row["event"])

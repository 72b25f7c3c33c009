"""The tournament benchmark's own logic: which pairings it plays, where each agent sits, what it shows."""

import importlib.util
import sys
from pathlib import Path

from rich.console import Console

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_tournament.py"
spec = importlib.util.spec_from_file_location("bench_tournament", SCRIPT)
bench = importlib.util.module_from_spec(spec)
sys.modules[spec.name] = bench  # dataclasses look their module up while the script loads
spec.loader.exec_module(bench)


def test_every_ordered_pair_is_played_including_self_pairs():
    pairs = bench.pairings(bench.KINDS)
    assert len(pairs) == 16 and len(set(pairs)) == 16
    assert ("rule", "modular") in pairs and ("modular", "rule") in pairs and ("llm:local", "llm:local") in pairs


def test_no_llm_drops_exactly_the_pairs_with_the_llm():
    pairs = bench.pairings(bench.KINDS, llm=False)
    assert len(pairs) == 9
    assert not any("llm:local" in pair for pair in pairs)


def test_the_first_kind_sits_in_the_first_party_slot_and_the_row_names_the_roles():
    result = bench.play_pair("casino-v0", ("rule", "random"), episodes=6, seed=0, workers=1)
    assert (result.first, result.second, result.episodes) == ("rule", "random", 6)
    assert {"agreement", "points_mturk_agent_1", "points_mturk_agent_2", "joint_points", "walk_away"} <= set(result.metrics)
    console = Console(width=400, record=True)
    console.print(bench.tournament_table("casino-v0", [result], "caption"))
    assert "rule (mturk_agent_1) vs random (mturk_agent_2)" in console.export_text()


def test_craigslist_rows_say_buyer_and_seller():
    result = bench.play_pair("craigslist-v0", ("random", "rule"), episodes=6, seed=0, workers=1)
    console = Console(width=400, record=True)
    console.print(bench.tournament_table("craigslist-v0", [result], "caption"))
    text = console.export_text()
    assert "random (buyer) vs rule (seller)" in text
    assert "utility buyer" in text and "fairness" in text
    assert result.to_json()["metrics"]["agreement"]["n"] == 6

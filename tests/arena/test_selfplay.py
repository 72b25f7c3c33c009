import json
from pathlib import Path

import orjson
import pytest

from duologue.arena.report import bootstrap_mean, report
from duologue.arena.selfplay import PlayConfig, episode_seed, finished_episodes, run_selfplay
from duologue.core.schema import Dialogue


def play(config, **kwargs) -> list[Dialogue]:
    return [Dialogue.model_validate_json(line) for line in run_selfplay(config, **kwargs)]


def test_runs_are_reproducible_whatever_the_number_of_workers(coins):
    config = PlayConfig(task=coins, agents=["random", "random"], episodes=12, seed=7)
    one = sorted(play(config), key=lambda d: d.meta["episode"])
    two = sorted(play(config, workers=2), key=lambda d: d.meta["episode"])
    assert [d.model_dump() for d in one] == [d.model_dump() for d in two]
    assert len({d.id for d in one}) == 12
    assert one[0].meta["agents"] == {"0": "random", "1": "random"}


def test_episode_seeds_do_not_overlap_between_neighbouring_runs():
    assert {episode_seed(0, n) for n in range(100)}.isdisjoint({episode_seed(1, n) for n in range(100)})


def test_an_interrupted_run_resumes_without_playing_twice(coins, tmp_path: Path):
    out = tmp_path / "run.jsonl"
    config = PlayConfig(task=coins, agents=["random", "random"], episodes=10, seed=1)
    first = run_selfplay(PlayConfig(**{**config.model_dump(), "episodes": 4}), out=out)
    assert len(list(first)) == 4
    with out.open("ab") as handle:  # a run killed while writing leaves half a line
        handle.write(b'{"id": "half')
    assert finished_episodes(out, config) == {0, 1, 2, 3}
    rest = list(run_selfplay(config, out=out))
    assert len(rest) == 6
    lines = out.read_bytes().splitlines()
    assert sorted(orjson.loads(line)["meta"]["episode"] for line in lines) == list(range(10))


def test_report_gives_metrics_with_intervals(coins):
    dialogues = play(PlayConfig(task=coins, agents=["random", "random"], episodes=40, seed=3))
    [group] = report(dialogues)
    assert group.episodes == 40
    agreement = group.metrics["agreement"]
    expected = sum(d.outcome.agreed for d in dialogues) / 40
    assert agreement.mean == pytest.approx(expected)
    assert agreement.low <= agreement.mean <= agreement.high


def test_bootstrap_interval_covers_the_mean_and_shrinks_with_more_data():
    small = bootstrap_mean([0.0, 1.0] * 5)
    large = bootstrap_mean([0.0, 1.0] * 500)
    assert small.low < 0.5 < small.high
    assert (large.high - large.low) < (small.high - small.low)
    assert bootstrap_mean([2.0]).low == 2.0
    with pytest.raises(ValueError):
        bootstrap_mean([])


def test_report_refuses_dialogues_not_played_here():
    dialogue = Dialogue(id="x", task="casino", parties=[{"id": "a", "kind": "human"}, {"id": "b", "kind": "human"}])
    with pytest.raises(ValueError, match="not played by duologue"):
        report([dialogue])

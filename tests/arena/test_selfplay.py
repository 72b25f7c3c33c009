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


def test_both_ways_of_resampling_agree_with_the_normal_interval():
    import math

    from duologue.arena.report import bootstrap_counts

    n, p = 4000, 0.3  # few distinct values: one multinomial draw per resample
    share = bootstrap_counts([0.0, 1.0], [int(n * (1 - p)), int(n * p)], seed=1)
    half = 1.96 * math.sqrt(p * (1 - p) / n)
    assert share.n == n and share.mean == pytest.approx(p)
    assert share.low == pytest.approx(p - half, abs=0.004) and share.high == pytest.approx(p + half, abs=0.004)
    values = [float(v) for v in range(400)]  # every value distinct: drawn one by one
    spread = bootstrap_mean(values, seed=1)
    sd = math.sqrt(sum((v - 199.5) ** 2 for v in values) / 400)
    assert spread.low == pytest.approx(199.5 - 1.96 * sd / 20, rel=0.02) and spread.high == pytest.approx(199.5 + 1.96 * sd / 20, rel=0.02)
    assert bootstrap_mean(values, seed=1) == spread  # seeded


def test_the_report_streams_and_keeps_counts_not_dialogues(coins):
    from duologue.arena.report import ReportBuilder

    config = PlayConfig(task=coins, agents=["random", "random"], episodes=30, seed=5)
    lines = list(run_selfplay(config))
    builder = ReportBuilder()
    for line in lines:
        builder.add_line(line)
    [streamed] = builder.reports()
    assert streamed == report(Dialogue.model_validate_json(line) for line in lines)[0]
    assert not any(isinstance(value, Dialogue) for value in vars(builder).values())
    kept = sum(len(seen) for columns in builder._values.values() for seen in columns.values())
    assert kept < 30 * len(streamed.metrics)  # distinct values, not one entry per episode


def test_a_long_partial_last_line_is_cut_and_earlier_lines_read_back(coins, tmp_path: Path):
    from duologue.arena.selfplay import drop_partial_last_line, run_lines

    out = tmp_path / "run.jsonl"
    config = PlayConfig(task=coins, agents=["random", "random"], episodes=3, seed=2)
    assert len(list(run_selfplay(config, out=out))) == 3
    whole = out.stat().st_size
    with out.open("ab") as handle:
        handle.write(b'{"id": "' + b"x" * 200_000)  # longer than one block read from the end
    drop_partial_last_line(out)
    assert out.stat().st_size == whole
    more = PlayConfig(**{**config.model_dump(), "episodes": 5})
    assert len(list(run_selfplay(more, out=out))) == 2
    assert len(list(run_lines(out, more, before=whole))) == 3
    assert len(list(run_lines(out, more))) == 5
    assert list(run_lines(out, PlayConfig(**{**config.model_dump(), "seed": 9}))) == []
    headless = tmp_path / "cut.jsonl"
    headless.write_bytes(b'{"no newline at all"')
    drop_partial_last_line(headless)
    assert headless.read_bytes() == b""


def test_a_whole_last_record_without_its_newline_is_kept(coins, tmp_path: Path):
    """Only an unfinished line is cut: a file whose last record lacks the final newline (an editor,
    `head -c`) keeps every record, and the next episodes start on a line of their own."""
    from duologue.arena.selfplay import drop_partial_last_line

    out = tmp_path / "run.jsonl"
    config = PlayConfig(task=coins, agents=["random", "random"], episodes=3, seed=2)
    assert len(list(run_selfplay(config, out=out))) == 3
    out.write_bytes(out.read_bytes().rstrip(b"\n"))
    drop_partial_last_line(out)
    assert finished_episodes(out, config) == {0, 1, 2} and out.read_bytes().endswith(b"}\n")
    more = PlayConfig(**{**config.model_dump(), "episodes": 4})
    assert len(list(run_selfplay(more, out=out))) == 1
    assert finished_episodes(out, more) == {0, 1, 2, 3}


@pytest.mark.parametrize("content", [b"garbage not json\n", b"[1, 2]\n", b'{"meta": null}\n', b'{"meta": {"task_id": "coins-v0"}}\n'])
def test_a_file_that_is_not_self_play_output_is_refused_not_appended_to(coins, tmp_path: Path, content: bytes):
    from duologue.arena.selfplay import NotSelfPlayFile

    out = tmp_path / "notes.jsonl"
    out.write_bytes(content)
    with pytest.raises(NotSelfPlayFile, match="notes.jsonl:1: not"):
        finished_episodes(out, PlayConfig(task=coins, agents=["random", "random"], episodes=1, seed=0))
    assert out.read_bytes() == content

"""`duologue bench`: versioned instance sets, resuming, the reply cache, pins and the illegal-move stop.

The rule agent and a fake OpenAI-compatible endpoint keep most of these fast; one test runs the
embedded local model (SmolLM2 through xllamacpp) end to end on the three negotiation tasks and reruns
it from the cache. They read the real corpora and skip when those are absent.
"""

from __future__ import annotations

import json
import shutil
import time

import pytest
from typer.testing import CliRunner

from duologue.arena import bench
from duologue.cli import app
from fake_endpoint import FakeEndpoint

runner = CliRunner()
TASKS = "casino-v0,craigslist-v0,dealornodeal-v0"



@pytest.fixture
def data(corpus_path, monkeypatch):
    """The real corpora, as the bench finds them."""
    root = corpus_path("casino/split").parents[1]
    monkeypatch.setenv("DUOLOGUE_DATA", str(root))
    return root

@pytest.fixture
def garbage(monkeypatch):
    """`llm:garbage`: a model that never answers with a move."""
    with FakeEndpoint("I would rather talk about the weather.", usage=(100, 5)) as endpoint:
        monkeypatch.setenv("DUOLOGUE_LLM_BASE_URL", endpoint.url)
        monkeypatch.setenv("DUOLOGUE_LLM_MAX_RETRIES", "0")
        yield endpoint


def rows_of(out) -> list[dict]:
    return [json.loads(line) for line in (out / bench.RESULTS).read_text().splitlines() if line.strip()]


def summary_of(out) -> dict:
    return json.loads((out / "summary.json").read_text())


# ---------------------------------------------------------------------------- instance sets


def test_every_negotiation_task_ships_a_verified_instance_set(data):
    assert {"casino-v0", "craigslist-v0", "dealornodeal-v0"} <= set(bench.bench_tasks())
    for task_id in TASKS.split(","):
        chosen = bench.load_instance_set(task_id)
        assert chosen.task == task_id and chosen.version and chosen.checksum.startswith("sha256:")
        dialogues = bench.instance_dialogues(chosen, data, limit=3)
        assert [d.id for d in dialogues] == chosen.dialogues[:3]


def test_an_instance_set_whose_checksum_does_not_match_is_refused(data, tmp_path):
    shipped = json.loads(bench.tasks.spec("casino-v0").resource("bench", "casino-v0.json").read_text())
    shipped["dialogues"] = list(reversed(shipped["dialogues"]))  # the same ids, another order: another benchmark
    sets = tmp_path / "sets"
    sets.mkdir()
    (sets / "casino-v0.json").write_text(json.dumps(shipped))
    result = runner.invoke(app, ["bench", "rule", "--tasks", "casino-v0", "--limit", "1", "--sets", str(sets), "--out", str(tmp_path / "out")])
    assert result.exit_code == 2
    assert "does not match its checksum" in result.output and "new version" in result.output
    assert "Traceback" not in result.output
    assert not (tmp_path / "out" / bench.RESULTS).exists()


def test_an_absent_corpus_is_named_with_where_to_put_it(tmp_path):
    result = runner.invoke(app, ["bench", "rule", "--tasks", "casino-v0", "--data", str(tmp_path / "nothing"), "--out", str(tmp_path / "out")])
    assert result.exit_code == 2
    assert "casino corpus file casino/split/casino_valid.json" in " ".join(result.output.split())
    assert "--data" in result.output and "Traceback" not in result.output


def test_a_corpus_file_of_another_copy_is_refused(data, tmp_path):
    copy = tmp_path / "data" / "casino" / "split"
    copy.mkdir(parents=True)
    text = (data / "casino/split/casino_valid.json").read_text()
    (copy / "casino_valid.json").write_text(text.replace('"Food"', '"Food" ', 1))
    result = runner.invoke(app, ["bench", "rule", "--tasks", "casino-v0", "--data", str(tmp_path / "data"), "--out", str(tmp_path / "out")])
    assert result.exit_code == 2 and "is not the copy of casino" in " ".join(result.output.split())


# ---------------------------------------------------------------------------- runs


def test_rule_on_three_tasks_writes_rows_summary_and_leaderboard_and_resumes(data, tmp_path):
    out = tmp_path / "out"
    result = runner.invoke(app, ["bench", "rule", "--tasks", TASKS, "--limit", "2", "--out", str(out)])
    assert result.exit_code == 0, result.output
    rows = rows_of(out)
    # per task and instance: 2 seats opposite the people, 2 opposite the baseline, 1 self-play episode filling both seats
    assert len(rows) == 3 * 2 * 6
    assert {(r["task"], r["opponent"]) for r in rows} == {(t, o) for t in TASKS.split(",") for o in ("people", "baseline", "self")}
    assert all(r["person_score"] is not None for r in rows)
    html = (out / "leaderboard.html").read_text()
    assert "<table>" in html and "craigslist-v0" in html and "Pareto share" in html
    standings = summary_of(out)["standings"]
    casino = next(s for s in standings if s["task"] == "casino-v0" and s["opponent"] == "people")
    assert set(casino["figures"]) >= {"agreement", "score", "person_score", "score_vs_person", "pareto", "illegal_rate"}
    assert casino["figures"]["agreement"]["low"] <= casino["figures"]["agreement"]["mean"] <= casino["figures"]["agreement"]["high"]
    assert all(isinstance(r["extra"]["frontier_distance"], float) for r in rows if r["task"] == "casino-v0")  # from the declared values

    # an interruption: the last rows lost and a line cut in half; the rerun plays only what is missing
    lines = (out / bench.RESULTS).read_text().splitlines(keepends=True)
    (out / bench.RESULTS).write_text("".join(lines[:30]) + lines[30][:20])
    again = runner.invoke(app, ["bench", "rule", "--tasks", TASKS, "--limit", "2", "--out", str(out)])
    assert again.exit_code == 0, again.output
    assert summary_of(out)["run"]["skipped"] == 26 and summary_of(out)["run"]["played"] == 4  # 30 rows kept: 26 episodes (self-play writes two rows)
    assert sorted(r["key"] for r in rows_of(out)) == sorted(r["key"] for r in rows)
    assert rows_of(out) == rows  # same seeds, same episodes


def test_a_folder_holding_something_else_is_refused_and_left_as_it_was(data, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / bench.RESULTS).write_text('{"episode": 1, "agents": ["rule", "rule"]}\n{"episode": 2')
    result = runner.invoke(app, ["bench", "rule", "--tasks", "casino-v0", "--limit", "1", "--out", str(out)])
    assert result.exit_code == 2 and "results.jsonl:1: not a bench result" in " ".join(result.output.split())
    assert sorted(p.name for p in out.iterdir()) == [bench.RESULTS]
    assert (out / bench.RESULTS).read_text() == '{"episode": 1, "agents": ["rule", "rule"]}\n{"episode": 2'


def test_a_model_that_makes_only_illegal_moves_is_stopped_early_with_the_reason(data, tmp_path, garbage):
    out = tmp_path / "out"
    result = runner.invoke(app, ["bench", "llm:garbage", "--tasks", "casino-v0", "--limit", "3", "--min-episodes", "3", "--out", str(out)])
    assert result.exit_code == 0, result.output
    rows = rows_of(out)
    episodes = [r for r in rows if r["record"] == "episode"]
    stops = [r for r in rows if r["record"] == "stop"]
    assert len(episodes) == 3 < 3 * 6  # stopped after the third of 15 episodes
    assert all(r["illegal"] >= 1 and r["moves"] == 0 and r["ended_by"] == "illegal_actions" for r in episodes)
    assert len(stops) == 1 and "illegal-move rate 1.00 above 0.50 after 3 episodes" in stops[0]["reason"]
    assert "stopped llm:garbage on casino-v0: illegal-move rate 1.00" in " ".join(result.output.split())
    standing = summary_of(out)["standings"][0]
    assert standing["stopped"] == stops[0]["reason"] and standing["figures"]["illegal_rate"]["mean"] == 1.0


def test_replies_are_cached_by_request_and_the_setup_is_pinned(data, tmp_path, garbage, monkeypatch):
    out = tmp_path / "out"
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"llm:garbage": {"input": 1.0, "output": 2.0}}))
    first = runner.invoke(app, ["bench", "llm:garbage", "--tasks", "casino-v0", "--limit", "1", "--max-illegal-rate", "1", "--prices", str(prices), "--out", str(out)])
    assert first.exit_code == 0, first.output
    asked = len(garbage.requests)
    assert asked > 0 and summary_of(out)["run"]["cache_misses"] == asked and summary_of(out)["run"]["cache_hits"] == 0
    cost = summary_of(out)["standings"][0]["figures"]["cost"]["mean"]
    assert cost == pytest.approx((100 * 1.0 + 5 * 2.0) * 9 / 1e6)  # 3 tries of a move, each a request and 2 repairs, at 100 + 5 tokens

    again = runner.invoke(app, ["bench", "llm:garbage", "--tasks", "casino-v0", "--limit", "1", "--max-illegal-rate", "1", "--fresh", "--out", str(out)])
    assert again.exit_code == 0, again.output
    assert len(garbage.requests) == asked  # nothing asked again
    assert summary_of(out)["run"] == {"played": 5, "skipped": 0, "cache_hits": asked, "cache_misses": 0}

    pinned = json.loads((out / "run.json").read_text())["models"]["llm:garbage"]
    assert pinned["model"] == "garbage" and pinned["endpoint"] == garbage.url
    assert pinned["sampling"]["temperature"] == 0.7 and len(pinned["prompt_sha256"]["casino-v0"]) == 16
    monkeypatch.setenv("DUOLOGUE_LLM_TEMPERATURE", "0.2")
    mixed = runner.invoke(app, ["bench", "llm:garbage", "--tasks", "casino-v0", "--limit", "1", "--out", str(out)])
    assert mixed.exit_code == 2 and "another setup" in mixed.output and "another --out" in mixed.output


# ---------------------------------------------------------------------------- the embedded local model


@pytest.fixture(scope="module")
def local_server():
    from duologue.llm.server import local_model_problem, shared_local_server

    problem = local_model_problem()
    if problem:
        pytest.skip(problem)
    return shared_local_server()


def test_the_local_model_on_three_tasks_and_its_rerun_from_the_cache(data, tmp_path, local_server, monkeypatch, capsys):
    """`duologue bench llm:local rule` on the three tasks, one instance each and two moves an episode
    (the model takes seconds a call on two shared cores); the rerun asks the model nothing."""
    monkeypatch.delenv("DUOLOGUE_LLM_BASE_URL", raising=False)
    monkeypatch.setenv("DUOLOGUE_LLM_MAX_TOKENS", "60")
    out = tmp_path / "out"
    command = ["bench", "llm:local", "rule", "--tasks", TASKS, "--limit", "1", "--max-turns", "2", "--max-illegal-rate", "1", "--out", str(out)]
    started = time.perf_counter()
    first = runner.invoke(app, command)
    first_seconds = time.perf_counter() - started
    assert first.exit_code == 0, first.output
    rows = rows_of(out)
    assert {r["model"] for r in rows} == {"llm:local", "rule"} and len(rows) == 2 * 3 * 6
    local = [r for r in rows if r["model"] == "llm:local"]
    asked = summary_of(out)["run"]["cache_misses"]
    assert asked == sum(r["calls"] for r in local) > 0 and all(r["prompt_tokens"] > 0 for r in local if r["calls"])
    assert "llm:local" in (out / "leaderboard.html").read_text()

    shutil.move(out / bench.RESULTS, tmp_path / "first.jsonl")
    started = time.perf_counter()
    second = runner.invoke(app, command)
    second_seconds = time.perf_counter() - started
    assert second.exit_code == 0, second.output
    assert summary_of(out)["run"]["cache_hits"] == asked and summary_of(out)["run"]["cache_misses"] == 0
    before = [json.loads(line) for line in (tmp_path / "first.jsonl").read_text().splitlines()]
    assert [{**r, "cache_hits": 0} for r in rows_of(out)] == [{**r, "cache_hits": 0} for r in before] != []  # the same episodes, replayed from the cache
    assert sum(r["cache_hits"] for r in rows_of(out)) == asked and sum(r["cache_hits"] for r in before) == 0
    with capsys.disabled():
        print(f"\nbench llm:local rule, 3 tasks x 1 instance: {first_seconds:.1f} s, rerun from the cache {second_seconds:.1f} s ({second_seconds / first_seconds:.1%})")

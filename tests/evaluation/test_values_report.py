"""Outcome quality in `duologue report`, `analyze`, `replay` and tournaments: Pareto share, distance
to the frontier and surplus with intervals, people's figures from the corpora beside the bots', and
the utility-space figure in the HTML reports."""

from __future__ import annotations

import re
from html import unescape
from pathlib import Path

import pytest
from typer.testing import CliRunner

from duologue.arena.tournament import run_tournament, tournament_report
from duologue.cli import app

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
CORPORA = {"casino-v0": ("casino", "casino/split/casino_valid.json", "casino/casino_sample.json"), "dealornodeal-v0": ("dealornodeal", "dealornodeal/val.txt", "dealornodeal/dealornodeal_sample.txt")}
ROWS = ("Pareto share (deals)", "distance to frontier (deals)", "surplus over walk-away")
INTERVAL = re.compile(r"\[-?\d+\.\d{3}, -?\d+\.\d{3}\]")

runner = CliRunner()


def run(*args: str):
    return runner.invoke(app, list(args))


def self_play(tmp_path: Path, task_id: str) -> Path:
    out = tmp_path / f"{task_id}.jsonl"
    played = run("play", "-t", task_id, "-a", "rule", "-n", "12", "-o", str(out))
    assert played.exit_code == 0, played.output
    return out


def images(html: str) -> list[str]:
    return [unescape(alt) for alt in re.findall(r'<img alt="([^"]*)" src="data:image/png;base64,', html)]


def check_quality_table(output: str, people: bool, bots: bool = True) -> None:
    flat = " ".join(output.split())
    for row in ROWS:
        assert row in flat, row
    assert ("bots," in flat) == bots and ("people," in flat) == people
    assert len(INTERVAL.findall(output)) >= 4  # the figures with their intervals


@pytest.mark.parametrize("task_id", list(CORPORA))
def test_report_puts_peoples_figures_beside_the_bots_with_the_figure(tmp_path: Path, task_id: str):
    corpus, _, sample = CORPORA[task_id]
    html = tmp_path / "quality.html"
    result = run("report", str(self_play(tmp_path, task_id)), "--people", str(FIXTURES / sample), "--corpus", corpus, "--html", str(html))
    assert result.exit_code == 0, result.output
    check_quality_table(result.stdout, people=True)
    page = html.read_text()
    assert f"people ({corpus} corpus)" in page
    assert any("utility space" in alt and "people's and bots' apart" in alt for alt in images(page))
    assert "Pareto share (deals)" in page and "http://" not in page and "https://" not in page


@pytest.mark.parametrize("task_id", list(CORPORA))
def test_report_on_the_real_corpora(tmp_path: Path, task_id: str, corpus_path):
    corpus, real, _ = CORPORA[task_id]
    result = run("report", str(self_play(tmp_path, task_id)), "--people", str(corpus_path(real)), "--corpus", corpus, "--json")
    assert result.exit_code == 0, result.output
    import json

    groups = json.loads(result.stdout)["outcome_quality"][task_id]
    people = next(g for g in groups if g["people"])
    bots = next(g for g in groups if not g["people"])
    assert people["dialogues"] >= 30 and bots["dialogues"] == 12
    for group in (people, bots):
        for name in ("pareto_efficient", "frontier_distance", "surplus"):
            estimate = group["metrics"][name]
            assert estimate["low"] <= estimate["mean"] <= estimate["high"]
    # people leave value on the table that the frontier shows: some of their deals are not Pareto-efficient
    assert people["metrics"]["pareto_efficient"]["mean"] < 1.0 and people["metrics"]["frontier_distance"]["mean"] > 0


def test_report_reads_a_corpus_alone_and_refuses_people_without_a_format(tmp_path: Path):
    result = run("report", str(FIXTURES / "casino/casino_sample.json"), "--corpus", "casino")
    assert result.exit_code == 0, result.output
    check_quality_table(result.stdout, people=True, bots=False)
    refused = run("report", str(FIXTURES / "casino/casino_sample.json"), "--people", str(FIXTURES / "casino/casino_sample.json"))
    assert refused.exit_code == 2 and "--people needs --corpus" in refused.stderr and "Traceback" not in refused.output


def test_analyze_shows_outcome_quality_and_draws_the_utility_space(tmp_path: Path):
    page = tmp_path / "a.html"
    result = run("analyze", "casino", str(FIXTURES / "casino/casino_sample.json"), "--report", str(page))
    assert result.exit_code == 0, result.output
    check_quality_table(result.stdout, people=True, bots=False)
    assert any("utility space" in alt for alt in images(page.read_text()))
    mixed = run("analyze", "dialogues", str(self_play(tmp_path, "dealornodeal-v0")))
    assert mixed.exit_code == 0, mixed.output
    check_quality_table(mixed.stdout, people=False)


def test_replay_reports_distance_and_surplus_beside_the_persons():
    result = run("replay", "casino", str(FIXTURES / "casino/casino_sample.json"), "-a", "rule", "--limit", "3")
    assert result.exit_code == 0, result.output
    flat = " ".join(result.stdout.split())
    assert "person's surplus (same seat)" in flat and "people's distance to the frontier" in flat


@pytest.mark.parametrize("task_id", ["casino-v0", "dealornodeal-v0", "craigslist-v0"])
def test_baselines_play_a_tournament_against_rule_with_ratings_and_outcome_quality(task_id):
    agents = ["rule", "boulware", "conceder", "tit-for-tat"]
    result = run_tournament(task_id, agents, episodes=2, bootstrap=20)
    pooled = next(b for b in result.leaderboards if b.role is None and b.method == "bradley-terry")
    assert {row.name for row in pooled.rows} == set(agents)
    against_rule = [p for p in result.pairings if "rule" in (p.first, p.second) and p.first != p.second]
    assert all(p.metrics["agreement"].mean > 0 for p in against_rule)
    assert all({"pareto_efficient", "frontier_distance", "surplus"} <= set(p.metrics) for p in against_rule if p.metrics["agreement"].mean == 1)
    page = tournament_report(result).to_html()
    assert any("utility space" in alt for alt in images(page))

"""The CaSiNo corpus's own analysis (`duologue analyze casino`): hand-checked numbers on the fixture, the paper's figures on the real corpus."""

from __future__ import annotations

import math

import pytest

from duologue.data.io import read_corpus
from duologue.tasks import corpus_format, spec
from duologue.tasks.casino.analysis import analyze, analyze_casino, casino_report
from tests.evaluation.test_analyses import small_duo


@pytest.fixture
def casino_sample(fixtures):
    return read_corpus(corpus_format("casino"), fixtures / "casino" / "casino_sample.json").dialogues


def test_the_spec_names_this_analysis(casino_sample):
    assert spec("casino-v0").analysis == "duologue.tasks.casino.analysis:analyze"
    assert [c.r for c in analyze(casino_sample, bootstrap=0).correlations] == [c.r for c in analyze_casino(casino_sample, bootstrap=0).correlations]


def test_casino_figures_of_the_fixture_by_hand(casino_sample):
    analysis = analyze_casino(casino_sample, bootstrap=200)
    assert analysis.dialogues == 4 and analysis.participants == 8
    # scored participants: 18, 22 (101), 5, 5 (102 walk-away), 18, 22 (103); 104 has no points
    assert analysis.points.n == 6 and analysis.points.mean == pytest.approx(15.0)
    # satisfaction answers 4, 5, 1, 3, 5, 4 and 104's single answer 3
    assert analysis.satisfaction.n == 7 and analysis.satisfaction.mean == pytest.approx(25 / 7)
    # Pearson(points, satisfaction) over the six pairs: Sxy=50, Sxx=316, Syy=34/3
    expected = 50 / math.sqrt(316 * 34 / 3)
    assert analysis.correlation("score", "satisfaction").r == pytest.approx(expected)
    assert analysis.correlation("score", "satisfaction").n == 6
    assert analysis.walk_aways.walk_aways == 1 and analysis.walk_aways.rate == pytest.approx(0.25)
    assert analysis.walk_aways.satisfaction_walked.mean == pytest.approx(2.0)
    # answers 1, 3, 3, 4, 4, 5, 5 on the five labels, in scale order
    assert [a.count for a in analysis.satisfaction_answers] == [1, 0, 2, 2, 2]
    assert analysis.satisfaction_answers[0].label == "Extremely dissatisfied"


def test_casino_strategy_counts_of_the_fixture(casino_sample):
    analysis = analyze_casino(casino_sample, bootstrap=0)
    assert analysis.annotated_dialogues == 2 and analysis.annotated_utterances == 13
    uses = {s.strategy: s for s in analysis.strategies}
    assert uses["self-need"].utterances == 5 and uses["small-talk"].utterances == 4 and uses["non-strategic"].utterances == 3
    assert uses["uv-part"].utterances == 1 and uses["uv-part"].dialogues == 1
    assert analysis.strategies[0].strategy == "self-need"  # most used first
    assert uses["self-need"].share == pytest.approx(5 / 13)


def test_casino_needs_casino_dialogues():
    with pytest.raises(ValueError, match="no CaSiNo dialogues"):
        analyze_casino(small_duo())

def test_the_report_and_tables_render_for_the_fixture(casino_sample):
    analysis = analyze_casino(casino_sample, bootstrap=0)
    assert len(casino_report(analysis, casino_sample).figures) >= 3
    assert [table.title for table in analysis.tables()][:2] == ["Per participant", "Pearson correlations per participant"]


def test_real_casino_correlations_are_the_papers(corpus_path):
    dialogues = read_corpus(corpus_format("casino"), corpus_path("casino/split")).dialogues
    analysis = analyze_casino(dialogues, by=["split"], bootstrap=0)
    # the paper's figures are over all 1,030 dialogues; the 930 of train + valid give these to 3 decimals
    for x, y, paper, here in (("score", "satisfaction", 0.376, 0.381), ("score", "opponent_likeness", 0.276, 0.282), ("satisfaction", "opponent_likeness", 0.702, 0.712)):
        found = analysis.correlation(x, y)
        assert found.n == 1860
        assert round(found.r, 3) == here
        assert found.r == pytest.approx(paper, abs=0.011)
    assert analysis.correlation("score", "satisfaction", split="valid").n == 60
    assert analysis.walk_aways.walk_aways == 24
    assert analysis.points.mean == pytest.approx(18.64, abs=0.05)
    assert analysis.annotated_dialogues == 354
    assert {s.strategy for s in analysis.strategies} >= {"small-talk", "self-need", "other-need", "no-need", "elicit-pref", "uv-part", "vouch-fair", "promote-coordination", "showing-empathy", "non-strategic"}

"""Spearman and Pearson correlations with bootstrap intervals, per group, and on the real corpora."""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from duologue.data.io import read_corpus
from duologue.analysis.correlation import Correlation, bootstrap_correlations, correlate, correlation_matrix, correlations
from duologue.analysis.frames import dialogue_frame, party_frame
from duologue.tasks import corpus_format


def test_spearman_of_a_hand_computed_example():
    # x = 1..5 and y = 2,1,4,3,5 are their own ranks; d = -1,1,-1,1,0, sum d^2 = 4;
    # rho = 1 - 6 * 4 / (5 * (25 - 1)) = 1 - 24/120 = 0.8.
    result = correlate([1, 2, 3, 4, 5], [2, 1, 4, 3, 5], bootstrap=0)
    assert result.r == pytest.approx(0.8)
    assert (result.method, result.n) == ("spearman", 5)


def test_pearson_of_a_hand_computed_example():
    # x = 1,2,3 and y = 1,3,2: deviations -1,0,1 and -1,1,0; sum of products 1; sums of squares 2 and 2;
    # r = 1 / sqrt(2 * 2) = 0.5.
    result = correlate([1, 2, 3], [1, 3, 2], method="pearson", bootstrap=0)
    assert result.r == pytest.approx(0.5)


def test_spearman_with_ties_uses_average_ranks():
    # x = 1,1,2,3 -> ranks 1.5,1.5,3,4; y = 1,2,3,4 -> ranks 1..4. Pearson of the ranks:
    # x ranks deviate from 2.5 by -1,-1,0.5,1.5 (squares 4.5); y by -1.5,-0.5,0.5,1.5 (squares 5);
    # products 1.5 + 0.5 + 0.25 + 2.25 = 4.5 -> rho = 4.5 / sqrt(4.5 * 5) = 0.948683.
    assert correlate([1, 1, 2, 3], [1, 2, 3, 4], bootstrap=0).r == pytest.approx(4.5 / np.sqrt(22.5))


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.tuples(st.integers(1, 5), st.integers(1, 5)), min_size=3, max_size=60),
    st.sampled_from(["spearman", "pearson"]),
)
def test_r_and_p_equal_scipy(pairs, method):
    x = np.array([a for a, _ in pairs], dtype=float)
    y = np.array([b for _, b in pairs], dtype=float)
    if np.all(x == x[0]) or np.all(y == y[0]):
        with pytest.raises(ValueError, match="constant"):
            correlate(x, y, method=method)
        return
    reference = stats.spearmanr(x, y) if method == "spearman" else stats.pearsonr(x, y)
    result = correlate(x, y, method=method, bootstrap=0)
    assert result.r == pytest.approx(reference.statistic, abs=1e-12)
    assert result.p == pytest.approx(reference.pvalue, rel=1e-9, abs=1e-300)


@pytest.mark.parametrize("method", ["spearman", "pearson"])
def test_each_resample_is_correlated_afresh(method):
    # The vectorised bootstrap must give what scipy gives on each resample (for Spearman: ranked anew).
    rng = np.random.default_rng(5)
    x = rng.integers(1, 6, size=25).astype(float)
    y = np.clip(x + rng.integers(-2, 3, size=25), 1, 5)
    found = bootstrap_correlations(x, y, method=method, samples=60, seed=9)
    rows = np.random.default_rng(9).integers(0, 25, size=(60, 25))
    scipy_r = stats.spearmanr if method == "spearman" else stats.pearsonr
    expected = [scipy_r(x[r], y[r]).statistic if np.ptp(x[r]) and np.ptp(y[r]) else np.nan for r in rows]
    np.testing.assert_allclose(found, expected, atol=1e-12)


def test_missing_values_drop_their_rows():
    result = correlate([1, 2, np.nan, 3, 4], [2, 1, 5, np.nan, 3], bootstrap=0)
    assert result.n == 3
    assert result.r == pytest.approx(stats.spearmanr([1, 2, 4], [2, 1, 3]).statistic)


def test_too_few_rows_or_a_constant_column_is_a_clear_error():
    with pytest.raises(ValueError, match="only 2 rows"):
        correlate([1, 2, np.nan], [1, 2, 3])
    with pytest.raises(ValueError, match="y is constant"):
        correlate([1, 2, 3, 4], [2, 2, 2, 2])
    with pytest.raises(ValueError, match="paired"):
        correlate([1, 2, 3], [1, 2])
    with pytest.raises(ValueError, match="unknown correlation method"):
        correlate([1, 2, 3], [1, 2, 3], method="kendall")  # type: ignore[arg-type]


def sample(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    return x, x + rng.normal(size=n)


@pytest.mark.parametrize("method", ["spearman", "pearson"])
def test_bootstrap_interval_contains_the_estimate_repeats_with_a_seed_and_shrinks_with_n(method):
    small = correlate(*sample(50), method=method, seed=1)
    again = correlate(*sample(50), method=method, seed=1)
    other = correlate(*sample(50), method=method, seed=2)
    large = correlate(*sample(800), method=method, seed=1)
    assert small.low < small.r < small.high and large.low < large.r < large.high
    assert (again.low, again.high) == (small.low, small.high)
    assert (other.low, other.high) != (small.low, small.high)
    assert (large.high - large.low) < 0.5 * (small.high - small.low)


def test_two_thousand_resamples_of_a_hundred_rows_take_well_under_a_second():
    x, y = sample(100)
    correlate(x, y)  # warm up imports and caches
    start = time.perf_counter()
    correlate(x, y, bootstrap=2000)
    correlate(x, y, method="pearson", bootstrap=2000)
    assert time.perf_counter() - start < 0.5


def test_correlations_cover_every_pair_overall_and_per_group_and_skip_small_groups():
    rng = np.random.default_rng(3)
    frame = pd.DataFrame(
        {
            "a": rng.normal(size=40),
            "b": rng.normal(size=40),
            "c": rng.normal(size=40),
            "setting": ["ed"] * 20 + ["wow"] * 18 + ["tiny"] * 2,
        }
    )
    found = correlations(frame, [("a", "b"), ("a", "c")], by=["setting"], bootstrap=100)
    assert all(isinstance(c, Correlation) for c in found)
    keys = [(c.x, c.y, tuple(c.group.items()), c.n) for c in found]
    assert keys == [
        ("a", "b", (), 40),
        ("a", "b", (("setting", "ed"),), 20),
        ("a", "b", (("setting", "wow"),), 18),
        ("a", "c", (), 40),
        ("a", "c", (("setting", "ed"),), 20),
        ("a", "c", (("setting", "wow"),), 18),
    ]
    ed = frame[frame.setting == "ed"]
    assert found[1].r == pytest.approx(stats.spearmanr(ed.a, ed.b).statistic)
    with pytest.raises(ValueError, match="not in the table"):
        correlations(frame, [("a", "missing")])


def test_correlation_matrix_is_pairwise_and_symmetric():
    frame = pd.DataFrame({"a": [1, 2, 3, 4, np.nan], "b": [2, 1, 4, 3, 5], "c": [4, 3, 2, 1, 0]})
    matrix = correlation_matrix(frame, ["a", "b", "c"])
    assert matrix.loc["a", "b"] == pytest.approx(0.6)  # ranks 1,2,3,4 vs 2,1,4,3: d^2 = 4 -> 1 - 24/60
    assert matrix.loc["b", "c"] == pytest.approx(stats.spearmanr([2, 1, 4, 3, 5], [4, 3, 2, 1, 0]).statistic)
    np.testing.assert_allclose(matrix.values, matrix.values.T)


# --------------------------------------------------------------------------- real corpora


def test_duo_user_similarity_goes_with_user_preference(corpus_path):
    dialogues = read_corpus(corpus_format("duo"), corpus_path("duo")).dialogues
    frame = dialogue_frame(dialogues)
    english = frame[frame.language == "en"]
    found = correlations(english, [("party:stylistic_similarity", "party:preference")], by=["setting"], bootstrap=500)
    by_setting = {c.group.get("setting"): c for c in found}
    assert round(by_setting["ed"].r, 2) == 0.75 and by_setting["ed"].n == 157
    assert round(by_setting["wow"].r, 2) == 0.67 and by_setting["wow"].n == 157
    # Third-party similarity says little about the user's preference (DESIGN: near 0).
    third = correlations(english, [("third_party:stylistic_similarity", "party:preference")], bootstrap=0)[0]
    assert abs(third.r) < 0.15


def test_casino_points_satisfaction_and_liking(corpus_path):
    dialogues = read_corpus(corpus_format("casino"), corpus_path("casino/split")).dialogues
    frame = party_frame(dialogues)
    pairs = [("score", "satisfaction"), ("score", "opponent_likeness"), ("satisfaction", "opponent_likeness")]
    found = {(c.x, c.y): c for c in correlations(frame, pairs, method="pearson", bootstrap=200)}
    # The paper's figures (0.376, 0.276, 0.702) include the unreleased test split; on train + valid
    # (1,860 participants) they come out 0.381, 0.282, 0.712.
    assert found[("score", "satisfaction")].r == pytest.approx(0.376, abs=0.02)
    assert found[("score", "opponent_likeness")].r == pytest.approx(0.276, abs=0.02)
    assert found[("satisfaction", "opponent_likeness")].r == pytest.approx(0.702, abs=0.02)
    assert all(c.n == 1860 for c in found.values())

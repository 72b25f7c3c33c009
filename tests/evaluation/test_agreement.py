"""Krippendorff's alpha, Fleiss' kappa, their bootstrap intervals, and agreement on ratings and annotations."""

from __future__ import annotations

import importlib.util

import krippendorff
import numpy as np
import pytest

from duologue.core.schema import LIKERT_5, Annotation, Dialogue, Message, Party, Rating, Scale, Scenario
from duologue.data.io import read_corpus
from duologue.analysis.agreement import (
    Agreement,
    agreement_by_criterion,
    alpha_from_counts,
    annotation_agreement,
    annotation_agreement_by_label,
    fleiss_kappa,
    krippendorff_alpha,
    rating_agreement,
    rating_matrix,
)
from duologue.tasks import corpus_format

LEVELS = ("nominal", "ordinal", "interval", "ratio")
NAN = np.nan

# Three raters, four items, missing values.
#   item:     1    2    3    4
#   rater A:  1    2    3    -
#   rater B:  1    3    3    2
#   rater C:  -    2    -    2
# Coincidences (pairs within an item, each weighted 1/(values in the item - 1)):
#   item 1 {1,1}: o11 += 2;  item 2 {2,3,2}: o22 += 1, o23 += 1, o32 += 1;  item 3 {3,3}: o33 += 2;
#   item 4 {2,2}: o22 += 2.  So o = [[2,0,0],[0,3,1],[0,1,2]], marginals n1=2, n2=4, n3=3, n=9.
# Interval (distance (c-k)^2): observed = o23 + o32 = 2; expected = sum over c!=k of n_c n_k (c-k)^2 / (n-1)
#   = 2 * (2*4*1 + 2*3*4 + 4*3*1) / 8 = 88 / 8 = 11  ->  alpha = 1 - 2/11 = 9/11.
# Nominal (distance 1): observed = 2; expected = 2 * (8 + 6 + 12) / 8 = 6.5  ->  alpha = 1 - 2/6.5 = 9/13.
# Ordinal: distance = (M_k - M_c)^2 with M_k = (n_1 + ... + n_k) - n_k/2: M = 1, 4, 7.5, so the distances
#   are 9 (1,2), 42.25 (1,3), 12.25 (2,3); observed = 2 * 12.25 = 24.5;
#   expected = 2 * (8*9 + 6*42.25 + 12*12.25) / 8 = 945/8  ->  alpha = 1 - 24.5 / 118.125 = 1 - 196/945.
HAND_MATRIX = [[1, 2, 3, NAN], [1, 3, 3, 2], [NAN, 2, NAN, 2]]
HAND_ALPHA = {"interval": 9 / 11, "nominal": 9 / 13, "ordinal": 1 - 196 / 945}


@pytest.mark.parametrize("level", ["interval", "nominal", "ordinal"])
def test_alpha_of_the_hand_computed_example(level):
    assert krippendorff_alpha(HAND_MATRIX, level) == pytest.approx(HAND_ALPHA[level], abs=1e-12)


def random_ratings(rng: np.random.Generator, raters: int, items: int, missing: float = 0.3) -> np.ndarray:
    """Ratings 1-5 that share a per-item signal (so alpha is neither 0 nor 1), with holes."""
    truth = rng.integers(1, 6, size=items)
    matrix = np.clip(truth + rng.integers(-1, 2, size=(raters, items)), 1, 5).astype(float)
    matrix[rng.random(matrix.shape) < missing] = NAN
    return matrix


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("seed", range(5))
def test_alpha_and_its_resampling_engine_equal_the_krippendorff_package(level, seed):
    rng = np.random.default_rng(seed)
    matrix = random_ratings(rng, raters=int(rng.integers(2, 6)), items=int(rng.integers(10, 60)))
    reference = krippendorff.alpha(reliability_data=matrix, level_of_measurement=level)
    assert krippendorff_alpha(matrix, level) == pytest.approx(reference, abs=1e-12)
    # The bootstrap weights items by how often a resample drew them: that must equal alpha of the
    # matrix with those items repeated, for every level (ordinal distances depend on the marginals).
    domain = np.unique(matrix[~np.isnan(matrix)])
    counts = (matrix.T[:, :, None] == domain[None, None, :]).sum(axis=1)
    draws = rng.integers(0, matrix.shape[1], size=matrix.shape[1])
    weights = np.bincount(draws, minlength=matrix.shape[1])[None, :]
    resampled = matrix[:, draws]
    if (np.sum(~np.isnan(resampled), axis=0) >= 2).any() and len(np.unique(resampled[~np.isnan(resampled)])) > 1:
        expected = krippendorff.alpha(reliability_data=resampled, level_of_measurement=level)
        assert alpha_from_counts(counts, domain, level, weights)[0] == pytest.approx(expected, abs=1e-9)
    assert alpha_from_counts(counts, domain, level)[0] == pytest.approx(reference, abs=1e-9)


def test_alpha_is_undefined_without_pairs_or_variation():
    with pytest.raises(ValueError, match="at least one item with two or more values"):
        krippendorff_alpha([[1, NAN], [NAN, 2]])
    with pytest.raises(ValueError, match="no variation"):
        krippendorff_alpha([[3, 3], [3, 3]])
    with pytest.raises(ValueError, match="level of measurement"):
        krippendorff_alpha(HAND_MATRIX, "cardinal")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="raters x items"):
        krippendorff_alpha([1, 2, 3])


# --------------------------------------------------------------------------- Fleiss' kappa

# Four items, three raters, two categories (a, b); counts per item: [3,0], [2,1], [0,3], [1,2].
# Agreement within an item P_i = (sum of squared counts - 3) / (3 * 2): 1, 1/3, 1, 1/3 -> mean 2/3.
# Category shares: a = (3+2+0+1)/12 = 1/2, b = 1/2 -> chance agreement P_e = 1/4 + 1/4 = 1/2.
# kappa = (2/3 - 1/2) / (1 - 1/2) = 1/3.
HAND_COUNTS = [[3, 0], [2, 1], [0, 3], [1, 2]]

# Five items, four raters, three categories: [4,0,0], [0,4,0], [2,2,0], [0,2,2], [1,1,2].
# P_i = (sum sq - 4) / 12: (16-4)/12 = 1, 1, (8-4)/12 = 1/3, 1/3, (6-4)/12 = 1/6 -> mean (2 + 2/3 + 1/6)/5 = 17/30.
# Shares: (4+0+2+0+1)/20 = 7/20, (0+4+2+2+1)/20 = 9/20, (0+0+0+2+2)/20 = 4/20
# P_e = (49 + 81 + 16) / 400 = 0.365 -> kappa = (0.566667 - 0.365) / (1 - 0.365) = 0.201667 / 0.635 = 0.31759.
HAND_COUNTS_3 = [[4, 0, 0], [0, 4, 0], [2, 2, 0], [0, 2, 2], [1, 1, 2]]


def test_fleiss_kappa_of_hand_computed_examples():
    assert fleiss_kappa(HAND_COUNTS) == pytest.approx(1 / 3, abs=1e-12)
    assert fleiss_kappa(HAND_COUNTS_3) == pytest.approx((17 / 30 - 146 / 400) / (1 - 146 / 400), abs=1e-12)
    assert fleiss_kappa(HAND_COUNTS_3) == pytest.approx(0.31759, abs=1e-5)


def test_fleiss_kappa_refuses_uneven_raters_and_no_variation():
    with pytest.raises(ValueError, match="same number of raters on every item"):
        fleiss_kappa([[2, 1], [1, 1]])
    with pytest.raises(ValueError, match="undefined"):
        fleiss_kappa([[3, 0], [3, 0]])
    with pytest.raises(ValueError, match="at least two raters"):
        fleiss_kappa([[1, 0], [0, 1]])


@pytest.mark.parametrize("seed", range(3))
def test_fleiss_kappa_and_nominal_alpha_are_linked_exactly_on_complete_data(seed):
    # With every rater on every item (N items, m raters, n = N*m values), observed disagreement is
    # 1 - P for both, and alpha's expected disagreement is kappa's (1 - P_e) times n/(n-1), so
    # alpha = 1 - (1 - kappa) * (n - 1) / n.
    rng = np.random.default_rng(seed)
    matrix = random_ratings(rng, raters=3, items=50, missing=0.0)
    domain = np.unique(matrix)
    counts = (matrix.T[:, :, None] == domain[None, None, :]).sum(axis=1)
    n = matrix.size
    assert krippendorff_alpha(matrix, "nominal") == pytest.approx(1 - (1 - fleiss_kappa(counts)) * (n - 1) / n, abs=1e-12)


@pytest.mark.skipif(importlib.util.find_spec("statsmodels") is None, reason="statsmodels is not installed")
@pytest.mark.parametrize("seed", range(3))
def test_fleiss_kappa_equals_statsmodels(seed):
    from statsmodels.stats.inter_rater import fleiss_kappa as reference

    rng = np.random.default_rng(seed)
    counts = rng.multinomial(5, [0.5, 0.3, 0.2], size=40)
    assert fleiss_kappa(counts) == pytest.approx(reference(counts), abs=1e-12)


# --------------------------------------------------------------------------- dialogues


def rated(dialogue_id: str, scores: list[int | float | None], *, criterion: str = "preference", setting: str = "ed") -> Dialogue:
    ratings = [
        Rating(rater_kind="third_party", rater_id=str(rater), target="bot", criterion=criterion, value=score, scale=LIKERT_5)
        for rater, score in enumerate(scores)
        if score is not None
    ]
    ratings.append(Rating(rater_kind="party", rater_id="user", target="bot", criterion=criterion, value=3))
    return Dialogue(
        id=dialogue_id,
        task="openchat",
        scenario=Scenario(public={"setting": setting}),
        parties=[Party(id="user", kind="human"), Party(id="bot", kind="bot", agent="gpt-4o")],
        ratings=ratings,
    )


def hand_dialogues() -> list[Dialogue]:
    """HAND_MATRIX as dialogues: one per item, raters 0, 1, 2."""
    columns = np.array(HAND_MATRIX).T
    return [rated(f"d{i}", [None if np.isnan(v) else int(v) for v in column]) for i, column in enumerate(columns)]


def test_rating_matrix_puts_raters_in_rows_and_dialogues_in_columns():
    matrix, raters, items = rating_matrix(hand_dialogues(), "preference")
    assert raters == ["0", "1", "2"] and items == ["d0", "d1", "d2", "d3"]
    np.testing.assert_array_equal(matrix, np.array(HAND_MATRIX))
    user, user_raters, _ = rating_matrix(hand_dialogues(), "preference", rater_kind="party")
    assert user_raters == ["user"] and user.shape == (1, 4)


def test_rating_matrix_makes_one_item_per_rated_target_and_reads_labels_as_numbers():
    scale = Scale(kind="ordinal", labels=["bad", "ok", "good"])
    dialogue = Dialogue(
        id="n",
        task="casino",
        parties=[Party(id="a", kind="human"), Party(id="b", kind="human")],
        ratings=[
            Rating(rater_kind="third_party", rater_id="x", target="a", criterion="fair", value="good", scale=scale),
            Rating(rater_kind="third_party", rater_id="x", target="b", criterion="fair", value="bad", scale=scale),
            Rating(rater_kind="third_party", rater_id="y", target="a", criterion="fair", value="ok", scale=scale),
        ],
    )
    matrix, raters, items = rating_matrix([dialogue], "fair")
    assert items == ["n/a", "n/b"] and raters == ["x", "y"]
    np.testing.assert_array_equal(matrix, np.array([[3.0, 1.0], [2.0, NAN]]))


def test_rating_agreement_reports_the_figure_counts_and_an_interval():
    agreement = rating_agreement(hand_dialogues(), "preference", bootstrap=500, group={"setting": "ed"})
    assert isinstance(agreement, Agreement)
    assert agreement.value == pytest.approx(9 / 11)
    assert (agreement.measure, agreement.level, agreement.criterion) == ("krippendorff_alpha", "interval", "preference")
    assert (agreement.items, agreement.raters, agreement.values) == (4, 3, 9)
    assert agreement.group == {"setting": "ed"}
    assert agreement.low is not None and agreement.high is not None and agreement.low <= agreement.high


def test_rating_agreement_with_fleiss_kappa_needs_complete_items():
    complete = [rated(f"d{i}", scores) for i, scores in enumerate([[1, 1, 1], [2, 2, 3], [3, 3, 3], [1, 2, 1]])]
    agreement = rating_agreement(complete, "preference", measure="fleiss_kappa", bootstrap=0)
    # categories 1, 2, 3: counts [3,0,0], [0,2,1], [0,0,3], [2,1,0]; P_i = 1, 1/3, 1, 1/3 -> 2/3;
    # shares (3+0+0+2)/12, (0+2+0+1)/12, (0+1+3+0)/12 = 5/12, 3/12, 4/12 -> P_e = (25+9+16)/144 = 50/144.
    assert agreement.value == pytest.approx((2 / 3 - 50 / 144) / (1 - 50 / 144))
    assert agreement.level is None and agreement.low is None and agreement.high is None
    with pytest.raises(ValueError, match="same number of raters"):
        rating_agreement(hand_dialogues(), "preference", measure="fleiss_kappa")


def test_rating_agreement_names_what_is_missing():
    with pytest.raises(ValueError, match="no third_party ratings of 'empathy'"):
        rating_agreement(hand_dialogues(), "empathy")
    with pytest.raises(ValueError, match="unknown agreement measure"):
        rating_agreement(hand_dialogues(), "preference", measure="cohen")  # type: ignore[arg-type]


def many_dialogues(items: int, seed: int, setting: str = "ed") -> list[Dialogue]:
    matrix = random_ratings(np.random.default_rng(seed), raters=3, items=items, missing=0.1)
    return [rated(f"{setting}{i}", [None if np.isnan(v) else int(v) for v in column], setting=setting) for i, column in enumerate(matrix.T)]


def test_bootstrap_interval_contains_the_estimate_repeats_with_a_seed_and_shrinks_with_items():
    small = rating_agreement(many_dialogues(40, seed=1), "preference", bootstrap=1000, seed=3)
    again = rating_agreement(many_dialogues(40, seed=1), "preference", bootstrap=1000, seed=3)
    other_seed = rating_agreement(many_dialogues(40, seed=1), "preference", bootstrap=1000, seed=4)
    large = rating_agreement(many_dialogues(640, seed=1), "preference", bootstrap=1000, seed=3)
    assert small.low < small.value < small.high
    assert (again.low, again.high) == (small.low, small.high)
    assert (other_seed.low, other_seed.high) != (small.low, small.high)
    assert large.low < large.value < large.high
    assert (large.high - large.low) < 0.5 * (small.high - small.low)


def test_agreement_by_criterion_covers_every_rated_criterion_overall_and_per_group():
    dialogues = many_dialogues(30, seed=2, setting="ed") + many_dialogues(30, seed=3, setting="wow")
    dialogues[0].ratings.append(Rating(rater_kind="third_party", rater_id="0", target="bot", criterion="lonely", value=4))  # one rater only
    found = agreement_by_criterion(dialogues, by=["setting"], bootstrap=50)
    keys = [(a.criterion, tuple(a.group.items())) for a in found]
    assert keys == [("preference", ()), ("preference", (("setting", "ed"),)), ("preference", (("setting", "wow"),))]
    ed = rating_agreement(dialogues[:30], "preference", bootstrap=0)
    assert found[1].value == pytest.approx(ed.value) and found[1].items == ed.items


# --------------------------------------------------------------------------- annotations


def annotated(dialogue_id: str, labels_by_annotator: dict[str, list[list[str]]]) -> Dialogue:
    """A dialogue of as many messages as the longest labelling; annotator -> labels per message."""
    length = max(len(per_event) for per_event in labels_by_annotator.values())
    annotations = [
        Annotation(event=event, layer="strategy", labels=labels, source=annotator)
        for annotator, per_event in labels_by_annotator.items()
        for event, labels in enumerate(per_event)
        if labels
    ]
    return Dialogue(
        id=dialogue_id,
        task="casino",
        parties=[Party(id="a", kind="human"), Party(id="b", kind="human")],
        events=[Message(party="a" if i % 2 == 0 else "b", text=f"utterance {i}") for i in range(length)],
        annotations=annotations,
    )


def test_single_label_annotation_agreement_is_nominal_alpha_over_events():
    # Two annotators on four events: same, same, different, same labels.
    # Labels coded x=0, y=1: pairs (x,x), (y,y), (x,y), (y,y): o = [[2,1],[1,4]], n_x = 3, n_y = 5, n = 8;
    # alpha = 1 - (n-1) * 2 / (2 * 3 * 5) = 1 - 14/30 = 8/15.
    dialogue = annotated("c1", {"ann1": [["x"], ["y"], ["x"], ["y"]], "ann2": [["x"], ["y"], ["y"], ["y"]]})
    agreement = annotation_agreement([dialogue], "strategy", bootstrap=200)
    assert agreement.value == pytest.approx(8 / 15)
    assert (agreement.items, agreement.raters, agreement.values, agreement.criterion) == (4, 2, 8, "strategy")


def test_multi_label_layers_are_compared_label_by_label():
    dialogue = annotated(
        "c2",
        {
            "ann1": [["small-talk"], ["self-need", "elicit-pref"], ["elicit-pref"], ["self-need"]],
            "ann2": [["small-talk"], ["self-need"], ["elicit-pref"], ["small-talk"]],
        },
    )
    with pytest.raises(ValueError, match="multi-label"):
        annotation_agreement([dialogue], "strategy")
    by_label = annotation_agreement_by_label([dialogue], "strategy", bootstrap=0)
    assert sorted(by_label) == ["elicit-pref", "self-need", "small-talk"]
    # small-talk present/absent per event: ann1 1,0,0,0; ann2 1,0,0,1 -> pairs (1,1),(0,0),(0,0),(0,1):
    # o = [[4,1],[1,2]] (0 first), n0 = 5, n1 = 3, n = 8 -> alpha = 1 - 7 * 2 / (2 * 15) = 8/15.
    assert by_label["small-talk"].value == pytest.approx(8 / 15)
    assert by_label["small-talk"].criterion == "strategy:small-talk" and by_label["small-talk"].items == 4
    # elicit-pref: ann1 0,1,1,0; ann2 0,0,1,0 -> the same coincidences -> 8/15.
    assert by_label["elicit-pref"].value == pytest.approx(8 / 15)


def test_annotation_agreement_treats_unannotated_events_as_missing_and_rejects_ordered_levels():
    dialogue = annotated("c3", {"ann1": [["x"], ["y"], ["x"]], "ann2": [["x"], [], ["y"]]})
    agreement = annotation_agreement([dialogue], "strategy", bootstrap=0)
    assert agreement.items == 2 and agreement.values == 4
    with pytest.raises(ValueError, match="level='nominal'"):
        annotation_agreement([dialogue], "strategy", level="interval")
    with pytest.raises(ValueError, match="no annotations in layer 'intent'"):
        annotation_agreement([dialogue], "intent")


# --------------------------------------------------------------------------- real data


def test_duo_third_party_raters_agree_weakly(corpus_path):
    dialogues = read_corpus(corpus_format("duo"), corpus_path("duo")).dialogues
    found = agreement_by_criterion(dialogues, by=["language", "setting"], bootstrap=200)
    overall = {a.criterion: a for a in found if not a.group}
    assert set(overall) == {"preference", "stylistic_similarity", "consistency", "empathy", "engagingness"}
    assert overall["preference"].items == 186 and overall["preference"].raters == 3
    for agreement in overall.values():
        assert -0.1 < agreement.value < 0.3  # DESIGN: about 0.1-0.2: weak agreement
    assert 0.1 <= overall["preference"].value <= 0.2
    en_ed = next(a for a in found if a.criterion == "preference" and a.group == {"language": "en", "setting": "ed"})
    assert en_ed.items == 50 and en_ed.values == 150

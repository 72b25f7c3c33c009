"""The DUO corpus's own analysis (`duologue analyze duo`): hand-checked numbers on a tiny set, the published figures on the real corpus."""

from __future__ import annotations

import math
import statistics

import pytest

from duologue.data.io import read_corpus
from duologue.tasks import corpus_format, spec
from duologue.tasks.openchat.analysis import analyze, analyze_duo, duo_report
from tests.evaluation.test_analyses import PREF, SIM, TP_SIM, small_duo


def test_the_specs_name_this_analysis():
    assert spec("openchat-ed-v0").analysis == spec("openchat-wow-v0").analysis == "duologue.tasks.openchat.analysis:analyze"
    default = analyze(small_duo(), bootstrap=0)
    assert default.correlation(SIM, PREF, language="en", setting="ed", style="aligned") is not None  # style and model by default
    assert analyze(small_duo(), by=[], bootstrap=0).correlation(SIM, PREF, language="en", setting="ed", style="aligned") is None


def test_duo_spearman_by_language_and_setting_matches_hand_computation():
    analysis = analyze_duo(small_duo(), bootstrap=200)
    ed = analysis.correlation(SIM, PREF, language="en", setting="ed")
    assert ed is not None and ed.n == 5 and ed.r == pytest.approx(0.9)
    assert analysis.correlation(TP_SIM, PREF, language="en", setting="ed").r == pytest.approx(-0.9)
    wow = analysis.correlation(SIM, PREF, language="en", setting="wow")
    assert wow.r == pytest.approx(1.0) and wow.n == 4
    # no third-party ratings in wow: nothing is made up
    assert analysis.correlation(TP_SIM, PREF, language="en", setting="wow") is None
    assert ed.low <= ed.r <= ed.high


def test_duo_correlations_within_style_need_three_dialogues():
    analysis = analyze_duo(small_duo(), bootstrap=0)
    aligned = analysis.correlation(SIM, PREF, language="en", setting="ed", style="aligned")
    assert aligned is not None and aligned.n == 3 and aligned.r == pytest.approx(0.5)  # ranks 1,2,3 vs 1,3,2
    assert analysis.correlation(SIM, PREF, language="en", setting="ed", style="neutral") is None  # 2 dialogues only
    assert analysis.correlation(SIM, PREF, language="en", setting="ed", model="gpt-4o").r == pytest.approx(0.9)


def test_duo_rating_means_pool_users_and_average_raters_per_dialogue():
    analysis = analyze_duo(small_duo(), bootstrap=0)
    means = {(tuple(m.group.values()), m.rater_kind, m.criterion): m for m in analysis.rating_means}
    user_pref = means[(("en", "ed"), "party", "preference")]
    assert user_pref.n == 5 and user_pref.mean == pytest.approx(3.0) and user_pref.sd == pytest.approx(math.sqrt(2.5))
    third_pref = means[(("en", "ed"), "third_party", "preference")]
    assert third_pref.n == 5  # dialogues, not 15 answers
    assert third_pref.mean == pytest.approx(statistics.fmean([3, 4, 3, 4, 3]))


def test_duo_agreement_of_identical_raters_is_one():
    analysis = analyze_duo(small_duo(), bootstrap=0)
    similarity = next(a for a in analysis.agreement if a.criterion == "stylistic_similarity" and a.group == {"language": "en", "setting": "ed"})
    assert similarity.value == pytest.approx(1.0) and similarity.raters == 3 and similarity.items == 5


def test_the_report_renders_for_the_small_set():
    duo = small_duo()
    analysis = analyze_duo(duo, bootstrap=0)
    assert len(duo_report(analysis, duo).figures) >= 3
    assert analysis.report(duo).to_html() == duo_report(analysis, duo).to_html()
    assert len(analysis.tables()) == 3


# --------------------------------------------------------------------------- the real corpus

CARD_USER_MEANS = {  # the DUO corpus card: subjective evaluations, mean ± sd
    ("en", "ed"): {"preference": (3.47, 1.31), "consistency": (4.40, 0.80), "stylistic_similarity": (3.32, 1.31), "empathy": (3.87, 1.19)},
    ("en", "wow"): {"preference": (3.96, 1.11), "consistency": (4.57, 0.68), "stylistic_similarity": (3.86, 1.06), "engagingness": (3.87, 1.18)},
    ("ja", "ed"): {"preference": (3.53, 1.00), "consistency": (4.13, 0.83), "stylistic_similarity": (3.47, 0.95), "empathy": (3.74, 0.99)},
    ("ja", "wow"): {"preference": (3.82, 1.06), "consistency": (3.93, 1.13), "stylistic_similarity": (3.59, 1.09), "engagingness": (3.62, 1.08)},
}
CARD_JA_THIRD_PARTY = {  # the card's objective evaluations; only the Japanese files hold the card's raters
    ("ja", "ed"): {"preference": (3.63, 0.68), "consistency": (3.82, 0.45), "stylistic_similarity": (3.25, 0.77), "empathy": (3.53, 0.63)},
    ("ja", "wow"): {"preference": (3.73, 0.55), "consistency": (3.96, 0.52), "stylistic_similarity": (3.52, 0.66), "engagingness": (3.67, 0.55)},
}


@pytest.fixture(scope="module")
def duo_analysis():
    from tests.conftest import data_root

    path = data_root() / "duo"
    if not path.exists():
        pytest.skip(f"real corpus not available: {path}")
    dialogues = read_corpus(corpus_format("duo"), path).dialogues
    return analyze_duo(dialogues, bootstrap=0)


def test_real_duo_user_similarity_goes_with_user_preference(duo_analysis):
    assert round(duo_analysis.correlation(SIM, PREF, language="en", setting="ed").r, 2) == 0.75
    assert round(duo_analysis.correlation(SIM, PREF, language="en", setting="wow").r, 2) == 0.67


def test_real_duo_third_party_similarity_does_not_track_user_preference(duo_analysis):
    for setting in ("ed", "wow"):
        found = duo_analysis.correlation(TP_SIM, PREF, language="en", setting=setting)
        assert abs(found.r) < 0.25 and found.p > 0.05


def test_real_duo_third_party_raters_agree_weakly(duo_analysis):
    overall = {a.criterion: a.value for a in duo_analysis.agreement if not a.group}
    assert 0.05 < overall["preference"] < 0.25
    assert 0.05 < overall["stylistic_similarity"] < 0.25
    assert all(a.measure == "krippendorff_alpha" and a.level == "interval" for a in duo_analysis.agreement)


def test_real_duo_user_rating_means_are_the_cards(duo_analysis):
    means = {(m.group["language"], m.group["setting"], m.rater_kind, m.criterion): m for m in duo_analysis.rating_means}
    for (language, setting), criteria in CARD_USER_MEANS.items():
        for criterion, (mean, sd) in criteria.items():
            found = means[(language, setting, "party", criterion)]
            assert (round(found.mean, 2), round(found.sd, 2)) == (mean, sd), (language, setting, criterion)
    for (language, setting), criteria in CARD_JA_THIRD_PARTY.items():
        for criterion, (mean, sd) in criteria.items():
            found = means[(language, setting, "third_party", criterion)]
            assert found.mean == pytest.approx(mean, abs=0.011) and found.sd == pytest.approx(sd, abs=0.011)


"""Corpus statistics: every figure on a hand-computed example, and the DUO card on the real corpus."""

from __future__ import annotations

import functools
import json
import math
from pathlib import Path

import pytest
from rich.console import Console

from duologue.core.schema import Dialogue, Message, Outcome, Party, Rating, Scale, SystemNote
from duologue.data.io import read_corpus
from duologue.data.stats import CorpusStats, corpus_statistics, stats_tables
from duologue.tasks.openchat.corpus import DuoFormat

# Language "xx" has no dedicated tokeniser: lowercased word runs and single punctuation marks,
# which keeps the hand counts below easy to follow.
LANG = "xx"
YES_NO = Scale(kind="ordinal", labels=["no", "maybe", "yes"])


def dialogue(did: str, group: str, participant: str, texts: list[str], *, ratings=(), outcome=None) -> Dialogue:
    return Dialogue(
        id=did,
        task="casino",
        language=LANG,
        parties=[Party(id="h1", kind="human", participant_id=participant), Party(id="b", kind="bot")],
        events=[Message(party="h1" if i % 2 == 0 else "b", text=t) for i, t in enumerate(texts)] + [SystemNote(party=None, name="end")],
        ratings=list(ratings),
        outcome=outcome,
        meta={"group": group},
    )


def party(criterion: str, value) -> Rating:
    return Rating(rater_kind="party", rater_id="h1", target="b", criterion=criterion, value=value)


def third(rater: str, criterion: str, value, scale: Scale | None = None) -> Rating:
    extra = {"scale": scale} if scale else {}
    return Rating(rater_kind="third_party", rater_id=rater, target="b", criterion=criterion, value=value, **extra)


def model(rater: str, criterion: str, value) -> Rating:
    return Rating(rater_kind="model", rater_id=rater, target="b", criterion=criterion, value=value)


@pytest.fixture
def example() -> list[Dialogue]:
    a = dialogue(
        "A", "g1", "w1",
        ["Hello there!", "Hi.", "Hello, hello."],  # 3 + 2 + 4 tokens
        ratings=[party("preference", 4), third("0", "preference", 3), third("1", "preference", 4),
                 third("0", "satisfaction", "yes", YES_NO), model("j1", "preference", 2), model("j2", "preference", 4)],
        outcome=Outcome(reason="agreement", agreed=True, scores={"h1": 10, "b": 6}),
    )  # fmt: skip
    b = dialogue(
        "B", "g1", "w2",
        ["Ok"],  # 1 token
        ratings=[party("preference", 2), third("0", "preference", 5), third("1", "preference", 5), third("2", "preference", 2)],
        outcome=Outcome(reason="walk_away", agreed=False, scores={"h1": 5, "b": 5}),
    )
    c = dialogue("C", "g2", "w1", [])
    d = dialogue("D", "g2", "w3", ["A b c d e"], outcome=Outcome(reason="timeout"))  # 5 tokens
    return [a, b, c, d]


def by_group(d: Dialogue) -> str:
    return d.meta["group"]


def test_basic_counts_per_group(example):
    stats = corpus_statistics(example, by_group)
    g1, g2 = stats.groups
    assert (g1.group, g2.group) == ("g1", "g2")
    assert (g1.dialogues, g1.participants, g1.utterances, g1.tokens, g1.vocabulary) == (2, 2, 4, 10, 7)
    assert g1.type_token_ratio == pytest.approx(0.7)
    assert g1.herdan_c == pytest.approx(math.log(7) / math.log(10))
    assert (g1.utterances_per_dialogue.min, g1.utterances_per_dialogue.max, g1.utterances_per_dialogue.mean) == (1, 3, 2.0)
    assert (g1.utterance_length.min, g1.utterance_length.max, g1.utterance_length.mean) == (1, 4, 2.5)
    assert (g2.dialogues, g2.participants, g2.utterances, g2.tokens, g2.vocabulary) == (2, 2, 1, 5, 5)
    assert g2.type_token_ratio == 1.0 and g2.herdan_c == 1.0
    assert (g2.utterances_per_dialogue.min, g2.utterances_per_dialogue.max, g2.utterances_per_dialogue.mean) == (0, 1, 0.5)
    assert g1.languages == g2.languages == [LANG]


def test_overall_is_the_whole_corpus(example):
    overall = corpus_statistics(example, by_group).overall
    assert overall.group == "all"
    # w1 takes part in A and C: one participant
    assert (overall.dialogues, overall.participants, overall.utterances, overall.tokens, overall.vocabulary) == (4, 3, 5, 15, 12)
    assert overall.type_token_ratio == pytest.approx(0.8)
    assert overall.herdan_c == pytest.approx(math.log(12) / math.log(15))
    assert overall.utterances_per_dialogue.mean == 1.25
    assert overall.utterance_length.mean == 3.0


def test_outcomes(example):
    stats = corpus_statistics(example, by_group)
    g1, g2 = stats.groups
    assert g1.outcome is not None
    assert (g1.outcome.dialogues, g1.outcome.decided, g1.outcome.agreed, g1.outcome.walk_aways) == (2, 2, 1, 1)
    assert g1.outcome.agreement_rate == 0.5
    assert g1.outcome.mean_scores == {"b": 5.5, "h1": 7.5}
    assert g1.outcome.reasons == {"agreement": 1, "walk_away": 1}
    # D ended without saying whether the goal was reached; C has no outcome at all
    assert g2.outcome is not None
    assert (g2.outcome.dialogues, g2.outcome.decided, g2.outcome.agreement_rate, g2.outcome.mean_scores) == (1, 0, None, {})
    assert stats.overall.outcome.reasons == {"agreement": 1, "timeout": 1, "walk_away": 1}


def test_no_outcomes_means_no_outcome_section(example):
    assert corpus_statistics([example[2]]).overall.outcome is None


def test_ratings_party_pooled_third_party_per_dialogue_first(example):
    g1 = corpus_statistics(example, by_group).groups[0]
    summary = {(r.rater_kind, r.criterion): r for r in g1.ratings}
    assert list(summary) == [("party", "preference"), ("third_party", "preference"), ("third_party", "satisfaction"), ("model", "preference")]
    own = summary[("party", "preference")]  # answers 4 and 2
    assert (own.mean, own.sd, own.dialogues, own.ratings, own.values) == (3.0, pytest.approx(math.sqrt(2)), 2, 2, 2)
    raters = summary[("third_party", "preference")]  # dialogue means 3.5 and 4.0, not the pooled 3.8
    assert raters.mean == pytest.approx(3.75)
    assert raters.sd == pytest.approx(math.sqrt(0.125))
    assert (raters.dialogues, raters.ratings, raters.values) == (2, 5, 2)
    labelled = summary[("third_party", "satisfaction")]  # "yes" is the 3rd label
    assert (labelled.mean, labelled.sd, labelled.values) == (3.0, None, 1)
    judges = summary[("model", "preference")]  # 2 and 4 in one dialogue
    assert (judges.mean, judges.sd, judges.ratings, judges.values) == (3.0, None, 2, 1)
    assert corpus_statistics(example, by_group).groups[1].ratings == []


def test_without_grouping_there_is_one_group(example):
    stats = corpus_statistics(example)
    assert [g.group for g in stats.groups] == ["all"]
    assert stats.groups[0] == stats.overall


def test_degenerate_corpora():
    empty = corpus_statistics([])
    assert empty.groups == [] and empty.overall.dialogues == 0 and empty.overall.tokens == 0
    assert empty.overall.type_token_ratio is None and empty.overall.herdan_c is None
    assert empty.overall.utterance_length.min is None
    one_token = corpus_statistics([dialogue("X", "g", "w", ["Hi"])]).overall
    assert one_token.type_token_ratio == 1.0 and one_token.herdan_c is None  # log 1 = 0


def test_tokenization_is_named_per_language(example):
    stats = corpus_statistics(example)
    assert list(stats.tokenization) == [LANG]
    assert "word characters" in stats.tokenization[LANG]


def test_json_round_trip(example):
    stats = corpus_statistics(example, by_group)
    assert CorpusStats.model_validate_json(stats.model_dump_json()) == stats


def render(table) -> str:
    console = Console(width=250, record=True)
    console.print(table)
    return console.export_text()


def test_tables(example):
    stats = corpus_statistics(example, by_group)
    tables = stats_tables(stats)
    assert [t.title.split(" (")[0] for t in tables] == ["Corpus", "Outcomes", "Ratings"]
    assert [c.header for c in tables[0].columns] == ["", "g1", "g2", "all"]
    corpus = render(tables[0])
    assert "Type-token ratio" in corpus and "0.700" in corpus and "1-4" in corpus
    assert "word characters" in corpus  # the caption names the tokenisation
    outcomes = render(tables[1])
    assert "0.500" in outcomes and "Mean score: h1" in outcomes and "Ended: timeout" in outcomes
    ratings = render(tables[2])
    assert "3.00 ± 1.41 (n=2)" in ratings and "3.75 ± 0.35 (n=2)" in ratings and "third-party: satisfaction" in ratings


def test_tables_for_one_group_without_outcomes_or_ratings():
    tables = stats_tables(corpus_statistics([dialogue("X", "g", "w", ["Hi there"])], by_group))
    assert len(tables) == 1
    assert [c.header for c in tables[0].columns] == ["", "g"]


# --------------------------------------------------------------------------- the DUO card


def card(value: float | None, shown: str) -> bool:
    """Whether `value` prints as the card's figure, at the card's precision."""
    decimals = len(shown.split(".")[1]) if "." in shown else 0
    return value is not None and f"{value:.{decimals}f}" == shown


@functools.lru_cache(maxsize=1)
def duo_statistics(root: Path) -> dict:
    """Computed once for all the card tests (reading and tokenising takes about a second)."""
    fmt = DuoFormat()
    stats = corpus_statistics(read_corpus(fmt, root).dialogues, fmt.group_of)
    return {g.group: g for g in stats.groups}


@pytest.fixture
def duo_stats(corpus_path) -> dict:
    return duo_statistics(corpus_path("duo"))


GROUPS = ["en/ed", "en/wow", "ja/ed", "ja/wow"]
BASIC = {
    # dialogues, participants, utterances, tokens, utterances/dialogue min, max, mean,
    # utterance length min, max, mean, vocabulary, type-token ratio, Herdan's C
    "en/ed": (157, 34, 3148, 44640, 20, 23, "20.05", 1, 76, "14.18", 3819, "0.086", "0.77"),
    "en/wow": (157, 34, 3302, 63157, 20, 23, "21.03", 1, 146, "19.13", 6439, "0.10", "0.79"),
    "ja/ed": (68, 52, 1360, 23046, 20, 20, "20", 1, 84, "16.95", 2707, "0.117", "0.787"),
    "ja/wow": (73, 52, 1533, 35524, 21, 21, "21", 2, 76, "23.17", 3669, "0.103", "0.783"),
}
SUBJECTIVE = {  # preference, consistency, stylistic similarity, empathy / engagingness: mean, sd
    "en/ed": ("3.47", "1.31", "4.40", "0.80", "3.32", "1.31", "3.87", "1.19"),
    "en/wow": ("3.96", "1.11", "4.57", "0.68", "3.86", "1.06", "3.87", "1.18"),
    "ja/ed": ("3.53", "1.00", "4.13", "0.83", "3.47", "0.95", "3.74", "0.99"),
    "ja/wow": ("3.82", "1.06", "3.93", "1.13", "3.59", "1.09", "3.62", "1.08"),
}
OBJECTIVE_JA = {
    "ja/ed": ("3.63", "0.68", "3.82", "0.45", "3.25", "0.77", "3.53", "0.63"),
    "ja/wow": ("3.73", "0.55", "3.96", "0.52", "3.52", "0.66", "3.67", "0.55"),
}


def criteria(group: str) -> list[str]:
    return ["preference", "consistency", "stylistic_similarity", "empathy" if group.endswith("ed") else "engagingness"]


@pytest.mark.corpus
@pytest.mark.parametrize("group", GROUPS)
def test_duo_basic_statistics_match_the_card(duo_stats, group):
    g = duo_stats[group]
    dialogues, participants, utterances, tokens, upd_min, upd_max, upd_mean, len_min, len_max, len_mean, vocabulary, ttr, herdan = BASIC[group]
    assert (g.dialogues, g.participants, g.utterances, g.tokens, g.vocabulary) == (dialogues, participants, utterances, tokens, vocabulary)
    assert (g.utterances_per_dialogue.min, g.utterances_per_dialogue.max) == (upd_min, upd_max)
    assert card(g.utterances_per_dialogue.mean, upd_mean)
    assert (g.utterance_length.min, g.utterance_length.max) == (len_min, len_max)
    assert card(g.utterance_length.mean, len_mean)
    assert card(g.type_token_ratio, ttr)
    assert card(g.herdan_c, herdan)


@pytest.mark.corpus
@pytest.mark.parametrize("group", GROUPS)
def test_duo_user_ratings_match_the_card(duo_stats, group):
    ratings = {(r.rater_kind, r.criterion): r for r in duo_stats[group].ratings}
    expected = SUBJECTIVE[group]
    for i, criterion in enumerate(criteria(group)):
        summary = ratings[("party", criterion)]
        assert summary.values == duo_stats[group].dialogues
        assert card(summary.mean, expected[2 * i]), (criterion, summary.mean)
        assert card(summary.sd, expected[2 * i + 1]), (criterion, summary.sd)


@pytest.mark.corpus
@pytest.mark.parametrize("group", ["ja/ed", "ja/wow"])
def test_duo_japanese_third_party_ratings_match_the_card(duo_stats, group):
    ratings = {(r.rater_kind, r.criterion): r for r in duo_stats[group].ratings}
    expected = OBJECTIVE_JA[group]
    for i, criterion in enumerate(criteria(group)):
        summary = ratings[("third_party", criterion)]
        assert summary.values == 45 and summary.ratings == 135
        assert card(summary.sd, expected[2 * i + 1]), (criterion, summary.sd)
        if (group, criterion) == ("ja/ed", "consistency"):
            # The files give 3.8148 (3.81); the card says 3.82, 0.0052 away: likely rounded twice
            # (3.815, then half up to 3.82). The sd (0.45) matches.
            assert card(summary.mean, "3.81") and abs(summary.mean - 3.82) < 0.0055
        else:
            assert card(summary.mean, expected[2 * i]), (criterion, summary.mean)


@pytest.mark.corpus
def test_duo_english_third_party_ratings_are_those_of_the_files(duo_stats):
    # The card's English objective figures come from 70/71 rated dialogues of the journal version;
    # these files carry 50/46, so the figures are the files' own (pinned here), not the card's.
    ed = {r.criterion: r for r in duo_stats["en/ed"].ratings if r.rater_kind == "third_party"}
    wow = {r.criterion: r for r in duo_stats["en/wow"].ratings if r.rater_kind == "third_party"}
    assert ed["preference"].values == 50 and wow["preference"].values == 46
    assert [f"{ed[c].mean:.2f} ± {ed[c].sd:.2f}" for c in criteria("en/ed")] == ["3.50 ± 0.79", "4.55 ± 0.42", "3.51 ± 0.54", "4.10 ± 0.58"]
    assert [f"{wow[c].mean:.2f} ± {wow[c].sd:.2f}" for c in criteria("en/wow")] == ["3.57 ± 0.72", "4.49 ± 0.57", "3.18 ± 0.73", "3.62 ± 0.75"]


def test_score_per_party_pools_every_scored_party_and_unknown_participants_are_none():
    from duologue.core.schema import Dialogue, Outcome
    from duologue.data.stats import corpus_statistics

    parties = [{"id": "a", "kind": "human"}, {"id": "b", "kind": "human"}]
    dialogues = [
        Dialogue(id="1", task="casino", parties=parties, outcome=Outcome(reason="agreement", agreed=True, scores={"a": 10, "b": 20})),
        Dialogue(id="2", task="casino", parties=parties, outcome=Outcome(reason="walk_away", agreed=False, scores={"a": 30})),
    ]
    overall = corpus_statistics(dialogues).overall
    assert overall.outcome.score_mean == 20.0
    assert overall.outcome.score_sd == 10.0
    assert overall.outcome.mean_scores == {"a": 20.0, "b": 20.0}
    assert overall.participants is None


def test_rule_anomalies_are_counted_and_can_be_left_out(fixtures):
    from typer.testing import CliRunner

    from duologue.cli import app

    runner = CliRunner()
    path = str(fixtures / "casino" / "published" / "split")
    result = runner.invoke(app, ["data", "stats", "casino", path, "--json"])
    assert result.exit_code == 0
    stats = json.loads(result.stdout)
    assert stats["overall"]["with_anomalies"] == 1 and stats["overall"]["anomalies"] == {"empty-label": 1}
    assert {g["group"]: g["with_anomalies"] for g in stats["groups"]} == {"test": 1, "train": 0, "valid": 0}
    result = runner.invoke(app, ["data", "stats", "casino", path, "--json", "--skip-anomalous"])
    assert result.exit_code == 0 and json.loads(result.stdout)["overall"]["dialogues"] == 4
    assert "1 dialogue(s) with rule anomalies left out" in result.stderr

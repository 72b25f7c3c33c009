"""The generic analyses (any dialogues) and the building blocks the tasks' own analyses share, on tiny hand-checked sets."""

from __future__ import annotations


import pytest

from duologue.core.schema import LIKERT_5, Dialogue, Message, Outcome, Party, Rating, Scenario
from duologue.data.io import read_corpus
from duologue.analysis.analyses import TaskAnalysis, analyze_dialogues, dialogues_report, rating_means
from duologue.tasks import corpus_format

SIM, PREF = "party:stylistic_similarity", "party:preference"
TP_SIM, TP_PREF = "third_party:stylistic_similarity", "third_party:preference"


def open_chat(number: int, *, user: dict[str, float], third: list[dict[str, float]] | None = None, language: str = "en", setting: str = "ed", style: str = "aligned", model: str = "gpt-4o") -> Dialogue:
    """A DUO-like dialogue with the given user ratings and third-party ratings (one dict per rater)."""
    ratings = [Rating(rater_kind="party", rater_id="user", target="bot", criterion=c, value=v) for c, v in user.items()]
    for rater, answers in enumerate(third or []):
        ratings += [Rating(rater_kind="third_party", rater_id=str(rater), target="bot", criterion=c, value=v, scale=LIKERT_5) for c, v in answers.items()]
    return Dialogue(
        id=f"{language}-{setting}-{number}",
        task="openchat",
        language=language,
        scenario=Scenario(public={"setting": setting, "style": style}),
        parties=[Party(id="user", kind="human", participant_id=f"w{number % 3}"), Party(id="bot", kind="bot", agent=model)],
        events=[Message(party="user", text="I got a new puppy today!"), Message(party="bot", text="That is wonderful, what is its name?")],
        ratings=ratings,
    )


# user similarity 1..5, user preference 1,3,2,4,5: Spearman = 1 - 6*2/(5*24) = 0.9.
# third-party similarity (all three raters agree) 5..1: Spearman with user preference = -0.9.
USER_SIM = [1.0, 2.0, 3.0, 4.0, 5.0]
USER_PREF = [1.0, 3.0, 2.0, 4.0, 5.0]
THIRD_SIM = [5.0, 4.0, 3.0, 2.0, 1.0]


def small_duo() -> list[Dialogue]:
    dialogues = []
    for i in range(5):
        third = [{"stylistic_similarity": THIRD_SIM[i], "preference": 3.0 + (i % 2)} for _ in range(3)]
        dialogues.append(open_chat(i, user={"preference": USER_PREF[i], "stylistic_similarity": USER_SIM[i]}, third=third, style="aligned" if i < 3 else "neutral"))
    # a second setting where similarity and preference go together exactly
    for i in range(4):
        dialogues.append(open_chat(10 + i, setting="wow", user={"preference": float(i + 1), "stylistic_similarity": float(i + 2)}))
    return dialogues


def test_rating_means_by_nothing_is_one_group():
    means = rating_means(small_duo())
    pref = next(m for m in means if m.rater_kind == "party" and m.criterion == "preference")
    assert pref.group == {} and pref.n == 9


@pytest.fixture
def casino_sample(fixtures):
    return read_corpus(corpus_format("casino"), fixtures / "casino" / "casino_sample.json").dialogues


def test_generic_analysis_of_casino_fixture_correlates_ratings_with_score(casino_sample):
    analysis = analyze_dialogues(casino_sample, bootstrap=0)
    assert analysis.by == ["task"]
    found = {(c.x, c.y): c for c in analysis.party_correlations}
    assert found[("satisfaction", "score")].group == {"task": "casino"}
    assert found[("satisfaction", "score")].n == 6
    assert analysis.stats.overall.dialogues == 4


def test_generic_analysis_groups_self_play_by_agents():
    dialogues = []
    for i in range(6):
        agents = {"user": "rule", "bot": "llm:local"} if i % 2 else {"user": "rule", "bot": "rule"}
        d = open_chat(i, user={"preference": float(1 + i % 5), "consistency": float(1 + (i * 2) % 5)})
        d.meta["agents"] = agents
        d.outcome = Outcome(reason="completed", agreed=bool(i % 2), scores={"user": float(i), "bot": 0.0})
        dialogues.append(d)
    analysis = analyze_dialogues(dialogues, bootstrap=0)
    assert analysis.by == ["task", "agents"]
    assert {tuple(g.group.split(" / ")) for g in analysis.stats.groups} == {("openchat", "rule (user) vs rule (bot)"), ("openchat", "rule (user) vs llm:local (bot)")}
    assert any(c.x == "preference" and c.y == "score" for c in analysis.party_correlations)
    with pytest.raises(ValueError, match="cannot group by"):
        analyze_dialogues(dialogues, by=["colour"])


def test_reports_render_for_the_small_sets(casino_sample):
    duo = small_duo()
    assert dialogues_report(analyze_dialogues(duo, bootstrap=0), duo).to_html().startswith("<!DOCTYPE html>")
    assert dialogues_report(analyze_dialogues(casino_sample, bootstrap=0), casino_sample).to_html().startswith("<!DOCTYPE html>")


def test_a_task_analysis_without_its_own_tables_still_reports_its_statistics(casino_sample):
    from duologue.data.stats import corpus_statistics

    bare = TaskAnalysis(dialogues=4, stats=corpus_statistics(casino_sample, lambda d: d.split or "all"))
    assert bare.tables() == []
    assert "Corpus statistics" in bare.report(casino_sample, source="x").to_html()

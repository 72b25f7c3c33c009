"""Dialogues -> tables: grouping fields, long ratings, one row per dialogue, one row per party."""

from __future__ import annotations

import math

import pytest

from duologue.core.schema import LIKERT_5, Dialogue, Outcome, Party, Rating, Scale, Scenario
from duologue.data.io import read_corpus
from duologue.analysis.frames import dialogue_frame, dialogue_groups, party_frame, ratings_frame
from duologue.tasks import corpus_format

SATISFACTION = Scale(kind="ordinal", labels=["Extremely dissatisfied", "Slightly dissatisfied", "Undecided", "Slightly satisfied", "Extremely satisfied"])


def chat(dialogue_id: str, *, user: dict[str, int], raters: list[dict[str, int]], setting: str = "ed", style: str = "aligned", language: str = "en") -> Dialogue:
    """A DUO-like human-bot chat: the user's own ratings and third-party ratings of the bot."""
    ratings = [Rating(rater_kind="party", rater_id="user", target="bot", criterion=c, value=v) for c, v in user.items()]
    for index, scores in enumerate(raters):
        ratings += [Rating(rater_kind="third_party", rater_id=str(index), target="bot", criterion=c, value=v, scale=LIKERT_5) for c, v in scores.items()]
    return Dialogue(
        id=dialogue_id,
        task="openchat",
        language=language,
        scenario=Scenario(public={"setting": setting, "style": style}),
        parties=[Party(id="user", kind="human", role="user"), Party(id="bot", kind="bot", role="system", agent="gpt-4o")],
        ratings=ratings,
    )


def negotiation(dialogue_id: str, *, scores: dict[str, float], reason: str = "agreement", satisfaction: dict[str, str] | None = None) -> Dialogue:
    """A CaSiNo-like negotiation between two people with points and labelled satisfaction answers."""
    ratings = [Rating(rater_kind="party", rater_id=p, criterion="satisfaction", value=label, scale=SATISFACTION) for p, label in (satisfaction or {}).items()]
    return Dialogue(
        id=dialogue_id,
        task="casino",
        split="train",
        parties=[Party(id="a", kind="human"), Party(id="b", kind="human")],
        outcome=Outcome(reason=reason, agreed=reason == "agreement", scores=scores),
        ratings=ratings,
    )


# --------------------------------------------------------------------------- groups


def test_groups_of_a_corpus_chat_come_from_its_public_scenario_and_its_bot():
    groups = dialogue_groups(chat("0", user={}, raters=[], setting="wow", style="neutral", language="ja"))
    assert groups == {"task": "openchat", "language": "ja", "setting": "wow", "style": "neutral", "model": "gpt-4o"}


def test_groups_of_a_played_chat_find_the_style_in_the_bots_private_view():
    dialogue = Dialogue(
        id="p1",
        task="openchat",
        split="test",
        scenario=Scenario(public={"setting": "wow", "topic": "Piano"}, private={"bot": {"style": "not_aligned"}}),
        parties=[Party(id="user", kind="human"), Party(id="bot", kind="bot", agent="llm:local")],
    )
    assert dialogue_groups(dialogue) == {"task": "openchat", "split": "test", "language": "en", "setting": "wow", "style": "not_aligned", "model": "llm:local"}


def test_groups_of_self_play_name_the_pairing_not_a_single_model():
    dialogue = Dialogue(
        id="s1",
        task="craigslist",
        parties=[Party(id="buyer", kind="bot", agent="rule"), Party(id="seller", kind="bot", agent="llm:local")],
        meta={"agents": {"buyer": "rule", "seller": "llm:local"}},
    )
    groups = dialogue_groups(dialogue)
    assert groups["agents"] == "rule (buyer) vs llm:local (seller)"
    assert "model" not in groups and "setting" not in groups and "split" not in groups


# --------------------------------------------------------------------------- ratings_frame


def test_ratings_frame_has_one_numeric_row_per_rating_with_groups():
    dialogues = [
        chat("0", user={"preference": 4}, raters=[{"preference": 2}, {"preference": 5}]),
        negotiation("n", scores={"a": 20.0, "b": 18.0}, satisfaction={"a": "Extremely satisfied", "b": "Undecided"}),
    ]
    frame = ratings_frame(dialogues)
    assert len(frame) == 5
    assert list(frame.columns[:6]) == ["dialogue", "rater_kind", "rater_id", "target", "criterion", "value"]
    assert frame["value"].dtype == float
    satisfaction = frame[frame.criterion == "satisfaction"].set_index("rater_id")["value"].to_dict()
    assert satisfaction == {"a": 5.0, "b": 3.0}  # labels map to 1..5 in scale order
    third = frame[frame.rater_kind == "third_party"]
    assert third["value"].tolist() == [2.0, 5.0] and set(third["setting"]) == {"ed"}
    assert frame[frame.dialogue == "n"]["split"].tolist() == ["train", "train"]


def test_empty_input_still_gives_the_documented_columns():
    assert list(ratings_frame([]).columns) == ["dialogue", "rater_kind", "rater_id", "target", "criterion", "value"]
    assert list(party_frame([]).columns) == ["dialogue", "party", "score", "agreed", "walk_away"]
    assert list(dialogue_frame([]).columns) == ["dialogue"]


# --------------------------------------------------------------------------- dialogue_frame


def test_dialogue_frame_keeps_a_single_users_ratings_and_averages_third_parties():
    frame = dialogue_frame([chat("0", user={"preference": 4, "empathy": 2}, raters=[{"preference": 2}, {"preference": 3}, {"preference": 5}])])
    row = frame.iloc[0]
    assert row["party:preference"] == 4.0 and row["party:empathy"] == 2.0
    assert row["third_party:preference"] == pytest.approx((2 + 3 + 5) / 3)
    assert row["setting"] == "ed" and row["model"] == "gpt-4o"


def test_dialogue_frame_leaves_two_party_raters_to_the_party_frame_and_adds_outcomes():
    dialogues = [
        negotiation("n1", scores={"a": 20.0, "b": 17.0}, satisfaction={"a": "Extremely satisfied", "b": "Undecided"}),
        negotiation("n2", scores={"a": 5.0, "b": 5.0}, reason="walk_away"),
    ]
    frame = dialogue_frame(dialogues).set_index("dialogue")
    assert "party:satisfaction" not in frame.columns
    assert frame.loc["n1", "agreed"] == 1.0 and frame.loc["n1", "walk_away"] == 0.0 and frame.loc["n1", "joint_score"] == 37.0
    assert frame.loc["n2", "agreed"] == 0.0 and frame.loc["n2", "walk_away"] == 1.0 and frame.loc["n2", "joint_score"] == 10.0


def test_dialogue_frame_columns_are_missing_where_a_dialogue_lacks_the_rating():
    frame = dialogue_frame([chat("0", user={"empathy": 3}, raters=[]), chat("1", user={"engagingness": 5}, raters=[], setting="wow")])
    assert math.isnan(frame.set_index("dialogue").loc["0", "party:engagingness"])
    assert frame.set_index("dialogue").loc["1", "party:engagingness"] == 5.0


# --------------------------------------------------------------------------- party_frame


def test_party_frame_has_each_partys_score_and_only_its_own_ratings():
    dialogue = negotiation("n1", scores={"a": 22.0, "b": 15.0}, satisfaction={"a": "Slightly satisfied", "b": "Extremely dissatisfied"})
    dialogue.ratings.append(Rating(rater_kind="party", rater_id="a", target="b", criterion="opponent_likeness", value=2))
    frame = party_frame([dialogue]).set_index("party")
    assert frame.loc["a", "score"] == 22.0 and frame.loc["b", "score"] == 15.0
    assert frame.loc["a", "satisfaction"] == 4.0 and frame.loc["b", "satisfaction"] == 1.0
    assert frame.loc["a", "opponent_likeness"] == 2.0 and math.isnan(frame.loc["b", "opponent_likeness"])
    assert (frame["agreed"] == 1.0).all() and (frame["walk_away"] == 0.0).all()
    assert (frame["dialogue"] == "n1").all() and (frame["task"] == "casino").all()


def test_party_frame_without_an_outcome_has_missing_scores():
    frame = party_frame([chat("0", user={"preference": 3}, raters=[{"preference": 1}])]).set_index("party")
    assert math.isnan(frame.loc["user", "score"]) and math.isnan(frame.loc["bot", "agreed"])
    assert frame.loc["user", "preference"] == 3.0 and math.isnan(frame.loc["bot", "preference"])


# --------------------------------------------------------------------------- real corpora


def test_party_frame_of_the_real_casino_has_every_participant(corpus_path):
    dialogues = read_corpus(corpus_format("casino"), corpus_path("casino/split")).dialogues
    frame = party_frame(dialogues)
    assert len(dialogues) == 930
    assert len(frame) == 1860  # 900 train + 30 valid dialogues, two participants each
    assert frame[["score", "satisfaction", "opponent_likeness"]].notna().all().all()
    assert frame["score"].between(5, 36).all() and frame["satisfaction"].between(1, 5).all()
    assert frame.groupby("split").size().to_dict() == {"train": 1800, "valid": 60}
    assert frame["walk_away"].sum() == 2 * 24  # 24 walk-aways in the released train + valid splits
    assert frame["score"].mean() == pytest.approx(18.61, abs=0.01)


def test_dialogue_frame_of_the_real_duo_groups_by_language_setting_style_and_model(corpus_path):
    dialogues = read_corpus(corpus_format("duo"), corpus_path("duo")).dialogues
    frame = dialogue_frame(dialogues)
    assert len(frame) == 455
    assert frame.groupby(["language", "setting"]).size().to_dict() == {("en", "ed"): 157, ("en", "wow"): 157, ("ja", "ed"): 68, ("ja", "wow"): 73}
    assert set(frame["style"]) == {"aligned", "neutral", "not_aligned", "ent", "nonent"}
    assert set(frame["model"]) == {"gpt-4o", "Llama-3.1-70B-Instruct"}
    assert frame["third_party:preference"].notna().sum() == 50 + 46 + 45 + 45

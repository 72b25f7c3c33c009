"""The LLM judge: prompts and parsing, retries then missing (fake endpoint), the real local model,
agreement on real DUO ratings, and `duologue judge`."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from duologue.cli import app
from duologue.core.schema import Dialogue, Message, Party, Rating, Scenario
from duologue.data.io import read_corpus
from duologue.analysis.agreement import rating_agreement
from duologue.evaluation.judge import (
    DUO_ITEMS,
    Judge,
    JudgeResult,
    UnusableAnswer,
    agreement_rows,
    dialogue_context,
    duo_items,
    judge_agreement,
    judge_dialogues,
    rated_party,
    render_transcript,
    score_of,
    speaker_labels,
)
from duologue.llm.client import ChatClient, LLMConnectionError, RetryPolicy
from duologue.tasks import corpus_format
from fake_endpoint import FakeEndpoint

runner = CliRunner()


def chat(setting: str = "ed", turns: int = 4, dialogue_id: str = "d1") -> Dialogue:
    public = {"setting": setting, "style": "neutral"} | ({"topic": "Piano"} if setting == "wow" else {"emotion": "Proud"})
    events = [Message(party="user" if i % 2 == 0 else "bot", text=f"line {i}") for i in range(turns)]
    return Dialogue(
        id=dialogue_id,
        task="openchat",
        scenario=Scenario(public=public),
        parties=[Party(id="user", kind="human", role="user"), Party(id="bot", kind="bot", role="system", agent="gpt-4o")],
        events=events,
    )


# --------------------------------------------------------------------------- items, transcript, parsing


def test_duo_items_follow_the_setting():
    assert [i.name for i in duo_items("ed")] == ["preference", "consistency", "stylistic_similarity", "empathy"]
    assert [i.name for i in duo_items("wow")] == ["preference", "consistency", "stylistic_similarity", "engagingness"]
    assert [i.name for i in duo_items(criteria=["empathy", "preference"])] == ["preference", "empathy"]
    with pytest.raises(ValueError, match="unknown criterion 'fun'"):
        duo_items(criteria=["fun"])
    judge = Judge(client=None, items=DUO_ITEMS)
    assert [i.name for i in judge.items_for(chat("wow"))][-1] == "engagingness"
    assert "empathy" not in [i.name for i in judge.items_for(chat("wow"))]


def test_the_context_of_a_task_comes_from_its_spec(coins):
    from duologue.tasks import spec

    toy = Dialogue(id="t", task="coins", scenario=Scenario(), parties=[Party(id="0", kind="bot"), Party(id="1", kind="bot")], meta={"task_id": coins})
    assert dialogue_context(toy) == spec(coins).judge_context == "Two parties split 10 coins."
    toy.meta = {}  # a corpus dialogue: found by its family
    assert dialogue_context(toy) == "Two parties split 10 coins."
    toy.task = "nosuchfamily"
    assert dialogue_context(toy) == ""
    assert "user" in dialogue_context(chat("wow")) and "Piano" in dialogue_context(chat("wow"))


def test_transcript_names_user_and_bot_and_keeps_both_ends_when_long():
    dialogue = chat(turns=40)
    assert rated_party(dialogue) == "bot"
    assert speaker_labels(dialogue) == {"user": "user", "bot": "bot"}
    text = render_transcript(dialogue)
    assert text.splitlines()[:2] == ["user: line 0", "bot: line 1"]
    short = render_transcript(dialogue, max_chars=200)
    assert len(short) <= 200
    assert short.splitlines()[0] == "user: line 0" and short.splitlines()[-1] == "bot: line 39"
    assert "left out" in short


def test_party_ids_label_a_dialogue_without_user_and_bot_roles():
    dialogue = Dialogue(id="x", task="casino", parties=[Party(id="a", kind="human"), Party(id="b", kind="human")], events=[Message(party="a", text="hi")])
    assert speaker_labels(dialogue) == {"a": "party a", "b": "party b"}
    assert rated_party(dialogue) is None
    assert render_transcript(dialogue) == "party a: hi"


@pytest.mark.parametrize("value,expected", [(4, 4), (4.0, 4), (1, 1), (5, 5)])
def test_scores_that_count(value, expected):
    assert score_of(value, "score") == expected


@pytest.mark.parametrize("value", [0, 6, 4.5, True, "4", None, float("nan")])
def test_scores_that_do_not_count(value):
    with pytest.raises(UnusableAnswer):
        score_of(value, "score")


# --------------------------------------------------------------------------- a fake endpoint for the failure paths

def test_unusable_replies_are_sent_back_and_retried_until_one_parses():
    with FakeEndpoint(["I think it was nice", '{"score": 9, "reason": "x"}', '{"score": 4, "reason": "kind"}']) as fake:
        with ChatClient(fake.url, "fake") as client:
            judge = Judge(client, items=duo_items(criteria=["empathy"]), judge_id="fake-judge", mode="per_item", attempts=3)
            result = judge.rate(chat("ed"))
    assert [(r.criterion, r.value, r.rater_kind, r.rater_id, r.target) for r in result.ratings] == [("empathy", 4, "model", "fake-judge", "bot")]
    assert result.calls == 3 and result.unusable_replies == 2 and result.missing == {}
    assert result.reasons == {"empathy": "kind"}
    first, second, third = fake.requests
    assert first["response_format"]["json_schema"]["schema"]["properties"]["score"] == {"type": "integer", "minimum": 1, "maximum": 5}
    assert first["response_format"]["json_schema"]["schema"]["properties"]["reason"]["maxLength"] == 200
    assert "user: line 0" in first["messages"][0]["content"]
    assert "not JSON" in second["messages"][-1]["content"] and second["messages"][-2]["content"] == "I think it was nice"
    assert "outside 1-5" in third["messages"][-1]["content"]


def test_an_item_without_a_usable_reply_is_missing_never_invented():
    with FakeEndpoint(['{"score": "great"}']) as fake:
        with ChatClient(fake.url, "fake") as client:
            judge = Judge(client, items=duo_items("ed"), judge_id="fake-judge", mode="per_item", attempts=2)
            judged = judge_dialogues([chat("ed")], judge)
    assert len(fake.requests) == 2 * 4
    [dialogue] = judged
    assert [r for r in dialogue.ratings if r.rater_kind == "model"] == []
    missing = dialogue.meta["judges"]["fake-judge"]["missing"]
    assert sorted(missing) == ["consistency", "empathy", "preference", "stylistic_similarity"]
    assert "after 2 attempt(s)" in missing["empathy"] and "whole number" in missing["empathy"]


def test_all_items_in_one_request():
    reply = '{"preference": 2, "consistency": 5, "stylistic_similarity": 3, "engagingness": 1, "reason": "short"}'
    with FakeEndpoint([reply]) as fake:
        with ChatClient(fake.url, "fake") as client:
            result = Judge(client, mode="all", judge_id="j").rate(chat("wow"))
    assert len(fake.requests) == 1
    schema = fake.requests[0]["response_format"]["json_schema"]["schema"]
    assert schema["required"] == ["preference", "consistency", "stylistic_similarity", "engagingness", "reason"]
    assert {r.criterion: r.value for r in result.ratings} == {"preference": 2, "consistency": 5, "stylistic_similarity": 3, "engagingness": 1}
    assert "about Piano" in fake.requests[0]["messages"][0]["content"]


def test_judging_again_replaces_the_judges_earlier_ratings_and_keeps_the_rest():
    dialogue = chat("ed")
    dialogue.ratings = [Rating(rater_kind="party", rater_id="user", target="bot", criterion="empathy", value=5.0)]
    with FakeEndpoint(['{"score": 2, "reason": ""}']) as fake:
        with ChatClient(fake.url, "fake") as client:
            judge = Judge(client, items=duo_items(criteria=["empathy"]), judge_id="j", mode="per_item", reason_chars=0)
            once = judge_dialogues([dialogue], judge)
            twice = judge_dialogues(once, judge)
    assert "reason" not in fake.requests[0]["response_format"]["json_schema"]["schema"]["properties"]
    assert [(r.rater_kind, r.value) for r in twice[0].ratings] == [("party", 5.0), ("model", 2)]
    assert dialogue.ratings[-1].rater_kind == "party", "the input dialogue is not changed"


def test_an_unreachable_endpoint_is_an_error_not_a_missing_answer():
    client = ChatClient("http://127.0.0.1:9/v1", "none", retry=RetryPolicy(max_retries=0))
    with pytest.raises(LLMConnectionError, match="cannot reach"):
        Judge(client).rate(chat())


# --------------------------------------------------------------------------- agreement on real ratings


class CopyRater:
    """A stand-in judge that answers with one third-party rater's own score (or a constant)."""

    def __init__(self, rater: str | None, judge_id: str, constant: int | None = None):
        self.rater, self.judge_id, self.constant = rater, judge_id, constant

    def rate(self, dialogue: Dialogue) -> JudgeResult:
        result = JudgeResult(dialogue.id, "bot")
        for r in dialogue.ratings:
            if r.rater_kind == "third_party" and r.rater_id == self.rater:
                value = self.constant if self.constant is not None else r.value
                result.ratings.append(Rating(rater_kind="model", rater_id=self.judge_id, target="bot", criterion=r.criterion, value=value))
        return result


@pytest.fixture
def duo_ed_en(corpus_path):
    dialogues = read_corpus(corpus_format("duo"), corpus_path("duo/ed/en")).dialogues
    return [d for d in dialogues if any(r.rater_kind == "third_party" for r in d.ratings)]


def test_agreement_of_a_judge_on_real_duo_ratings(duo_ed_en):
    assert len(duo_ed_en) == 50
    judged = judge_dialogues(duo_ed_en, CopyRater("0", "copy-of-rater-0"))
    result = judge_agreement(judged, "empathy", bootstrap=200)
    assert result.dialogues == 50 and result.unanswered == 0 and result.notes == []
    own = rating_agreement(duo_ed_en, "empathy", bootstrap=200)
    assert result.third_party_alpha.value == pytest.approx(own.value)
    # A judge that copies a rater agrees with the raters' mean (which includes that rater) far better than chance.
    assert result.spearman_vs_mean.r > 0.4 and result.judge_vs_mean_alpha.value > 0.3
    assert result.spearman_vs_mean.low <= result.spearman_vs_mean.r <= result.spearman_vs_mean.high
    assert result.with_judge_alpha.raters == 4 and result.third_party_alpha.raters == 3
    assert -1 <= result.spearman_vs_user.r <= 1 and result.spearman_vs_user.n == 50
    [row] = agreement_rows([result])
    assert row["alpha_change"] == pytest.approx(result.with_judge_alpha.value - own.value)


def test_a_constant_judge_has_no_correlation_and_says_why(duo_ed_en):
    judged = judge_dialogues(duo_ed_en, CopyRater("0", "always-3", constant=3))
    result = judge_agreement(judged, "preference", bootstrap=0)
    assert result.spearman_vs_mean is None and result.spearman_vs_user is None
    assert any("constant" in note for note in result.notes)
    assert result.third_party_alpha is not None and result.with_judge_alpha is not None


def test_agreement_needs_one_named_judge():
    with pytest.raises(ValueError, match="name the judge"):
        judge_agreement([chat()], "empathy")


# --------------------------------------------------------------------------- the real local model


@pytest.fixture(scope="module")
def local_server():
    from duologue.llm.server import local_model_problem, shared_local_server

    problem = local_model_problem()
    if problem:
        pytest.skip(problem)
    return shared_local_server()


def test_the_local_model_rates_a_real_duo_dialogue_on_the_scale(local_server, corpus_path):
    dialogue = read_corpus(corpus_format("duo"), corpus_path("duo/ed/en/0000.json")).dialogues[0]
    with ChatClient(local_server.url, "smollm2", timeout=300) as client:
        judge = Judge(client, items=duo_items("ed"), mode="per_item", reason_chars=60, max_transcript_chars=1500)
        result = judge.rate(dialogue)
    assert result.calls >= 4
    assert len(result.ratings) + len(result.missing) == 4
    for rating in result.ratings:
        assert rating.rater_kind == "model" and rating.rater_id == "llm:smollm2" and rating.target == "bot"
        assert isinstance(rating.value, int) and 1 <= rating.value <= 5
    assert result.ratings, "SmolLM2 answers the constrained schema"


def test_the_local_model_rates_every_item_in_one_request(local_server, fixtures):
    dialogue = read_corpus(corpus_format("duo"), fixtures / "duo" / "wow" / "en").dialogues[0]
    with ChatClient(local_server.url, "smollm2", timeout=300) as client:
        result = Judge(client, mode="all", reason_chars=0, max_transcript_chars=1500).rate(dialogue)
    assert {r.criterion for r in result.ratings} | set(result.missing) == {"preference", "consistency", "stylistic_similarity", "engagingness"}
    assert all(1 <= r.value <= 5 for r in result.ratings)


# --------------------------------------------------------------------------- the command


def test_judge_command_with_an_unreachable_endpoint_exits_1_with_a_message(fixtures, monkeypatch):
    monkeypatch.setenv("DUOLOGUE_LLM_MAX_RETRIES", "0")
    result = runner.invoke(app, ["judge", str(fixtures / "duo"), "--base-url", "http://127.0.0.1:9/v1", "--limit", "1"])
    assert result.exit_code == 1
    assert "cannot reach http://127.0.0.1:9/v1" in result.output


def test_judge_command_rates_writes_and_reports_agreement(fixtures, tmp_path):
    out = tmp_path / "judged.jsonl"
    replies = [json.dumps({"score": s, "reason": "r"}) for s in [3, 4, 2, 5, 1, 3, 4, 2, 5, 1, 3, 4]] * 4
    with FakeEndpoint(replies) as fake:
        result = runner.invoke(app, ["judge", str(fixtures / "duo"), "--base-url", fake.url, "--model", "fake", "--rated-only", "--mode", "per_item", "--format", "json", "--out", str(out), "--bootstrap", "50"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["judge"] == "llm:fake" and report["dialogues"] == 3 and report["missing"] == 0 and report["ratings"] == 12
    assert {row["criterion"] for row in report["agreement"]} == {"preference", "consistency", "stylistic_similarity", "empathy", "engagingness"}
    preference = next(row for row in report["agreement"] if row["criterion"] == "preference")
    assert preference["dialogues"] == 3 and preference["third_party_alpha"] is not None
    lines = out.read_text().splitlines()
    assert len(lines) == 3
    assert sum(r["rater_kind"] == "model" for r in json.loads(lines[0])["ratings"]) == 4


def test_judge_command_refuses_an_unknown_criterion(fixtures):
    result = runner.invoke(app, ["judge", str(fixtures / "duo"), "--criteria", "fun", "--base-url", "http://127.0.0.1:9/v1"])
    assert result.exit_code == 2
    assert "unknown criterion 'fun'" in result.output


def test_judge_command_reads_duologues_own_files_without_being_told(fixtures, tmp_path, monkeypatch):
    from duologue.data.io import write_dialogues
    from duologue.evaluation.judge_cli import _default_corpus
    from duologue.tasks import specs

    monkeypatch.setenv("DUOLOGUE_LLM_MAX_RETRIES", "0")
    own = tmp_path / "chats.jsonl"
    write_dialogues(read_corpus(corpus_format("duo"), fixtures / "duo").dialogues, own)
    assert _default_corpus(own) == "duologue"
    assert _default_corpus(fixtures / "duo") == next(s.corpus for s in specs() if s.kind == "rated")
    result = runner.invoke(app, ["judge", str(own), "--base-url", "http://127.0.0.1:9/v1", "--limit", "1"])
    assert result.exit_code == 1 and "cannot reach" in result.output  # read, then stopped at the endpoint

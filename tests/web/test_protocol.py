"""The pages before the lobby: consent, instructions, comprehension check and surveys in order,
answers checked, kept with the crowd parameters, and put into the dialogue's party info and private view."""

from __future__ import annotations

import re

import pytest
import yaml

from duologue.tasks import spec
from duologue.web import protocol as proto
from duologue.web.study import Study

from web.webtest_helpers import join_lobby


def collection_study(**changes) -> Study:
    data = yaml.safe_load(spec("casino-v0").resource("protocol", "study.yaml").read_text(encoding="utf-8"))
    data.update(changes)
    return Study.model_validate(data)


def answer_survey(client, url: str, survey: proto.Survey, pick: int) -> dict:
    answers = {}
    for item in survey.items:
        if item.kind == "text":
            answers[item.id] = f"my own words for {item.id}"
        elif item.kind == "number":
            answers[item.id] = str(item.low + 7)
        else:
            choices = item.choices()
            answers[item.id] = str(choices[pick % len(choices)].value)
    reply = client.post(url, data=answers, follow_redirects=False)
    assert reply.status_code == 303, reply.text[:500]
    return answers


def test_survey_scores_reverse_items_and_classify_by_majority():
    survey = proto.survey("casino-v0", "personality")
    answers = {f"tipi_{i}": str(i % 7 + 1) for i in range(1, 11)} | {f"svo_{i}": "prosocial" for i in range(1, 7)} | {f"svo_{i}": "proself" for i in range(7, 10)}
    values, problems = survey.read(answers)
    assert problems == []
    fills = survey.fills(values)
    assert fills["info.personality.svo"] == "prosocial"  # 6 of 9 alike
    # extraversion = mean(tipi_1, 8 - tipi_6) = mean(2, 8 - 7)
    assert fills["info.personality.big-five.extraversion"] == 1.5
    values["svo_6"] = "proself"
    assert survey.fills(values)["info.personality.svo"] == "unclassified"


def test_survey_refuses_missing_and_out_of_range_answers():
    survey = proto.survey("casino-v0", "about-you")
    _, problems = survey.read({"age": "7", "gender": "robot"})
    assert len(problems) == 4  # age out of range, gender not an option, two unanswered
    assert any("18 to 100" in p for p in problems)


def test_a_protocol_that_names_a_missing_file_is_refused():
    with pytest.raises(proto.ProtocolError, match="no-such-survey"):
        proto.check("casino-v0", proto.Protocol(surveys=["no-such-survey"]))


def test_pages_run_in_order_and_answers_reach_the_dialogue(make_client):
    study = collection_study(bot_wait_seconds=0.1, partners=[{"kind": "bot", "agent": "rule"}])
    client = make_client([study])
    first = client.get(f"/study/{study.id}?PROLIFIC_PID=p1&STUDY_ID=s9&SESSION_ID=x1", follow_redirects=False)
    assert first.status_code == 303 and first.headers["location"].endswith("/consent?participant=p1")
    # the lobby websocket refuses a person who skipped the pages
    with client.websocket_connect(f"/ws/lobby/{study.id}?participant=p1") as ws:
        assert ws.receive_json()["type"] == "refused"
    assert client.post("/protocol/casino-collection/consent?participant=p1", data={}).status_code == 422
    assert client.post("/protocol/casino-collection/consent?participant=p1", data={"agree": "yes"}, follow_redirects=False).headers["location"].startswith("/protocol/casino-collection/instructions")
    assert "3 packages" in client.get("/protocol/casino-collection/instructions?participant=p1").text
    client.post("/protocol/casino-collection/instructions?participant=p1", data={}, follow_redirects=False)
    wrong = client.post("/protocol/casino-collection/comprehension?participant=p1", data={"check_0": "3", "check_1": "5 points"})
    assert wrong.status_code == 422 and "Not quite" in wrong.text
    right = {f"check_{i}": c.answer for i, c in enumerate(study.protocol.comprehension)}
    assert client.post("/protocol/casino-collection/comprehension?participant=p1", data=right, follow_redirects=False).status_code == 303
    given = {}
    for index, name in enumerate(study.protocol.surveys):
        given[name] = answer_survey(client, f"/protocol/casino-collection/survey:{index}?participant=p1", proto.survey(study.task, name), pick=index + 1)
    lobby = client.get(f"/study/{study.id}?participant=p1")
    assert lobby.status_code == 200 and 'id="lobby"' in lobby.text
    state = client.app.state.platform
    kept = proto.progress_of(state).get(study.id, "p1")
    assert kept["crowd"] == {"PROLIFIC_PID": "p1", "STUDY_ID": "s9", "SESSION_ID": "x1"}
    assert kept["answers"]["casino-own-reasons"]["reason_high"] == "my own words for reason_high"
    drawn = kept["draws"]["casino-own-reasons"]  # the priorities this person was shown
    assert sorted(drawn) == ["High", "Low", "Medium"] and sorted(drawn.values()) == ["Firewood", "Food", "Water"]

    token = join_lobby(client, study.id, "p1")
    seat = state.storage.seat_by_token(token)
    dialogue = state.storage.dialogue(seat.dialogue_id)
    me = next(p for p in dialogue.parties if p.participant_id == "p1")
    assert me.info["demographics"]["age"] == 25 and me.info["demographics"]["gender"] == given["about-you"]["gender"]
    assert set(me.info["personality"]["big-five"]) == {"extraversion", "agreeableness", "conscientiousness", "emotional-stability", "openness-to-experiences"}
    mine = dialogue.scenario.private[me.id]
    assert mine["value2issue"] == drawn and mine["priorities"] == {issue: level for level, issue in drawn.items()}  # negotiates with what it was shown
    assert mine["reasons"] == {drawn[level]: f"my own words for reason_{level.lower()}" for level in ("High", "Medium", "Low")}
    assert dialogue.meta["replay"]["scenario_given"] is True  # a worker rebuilding it keeps the person's reasons
    other = next(p for p in dialogue.parties if p.id != me.id)
    assert other.info == {} and "my own words" not in str(dialogue.scenario.private[other.id])
    assert re.search(r"waiting-code", lobby.text)


def test_the_reasons_page_shows_the_priorities_first_and_asks_why_for_each(make_client):
    """As in the corpus's own protocol: the person sees their high, medium and low item, then writes
    a reason per priority; the same priorities on every visit, and the questions name the items."""
    study = collection_study(protocol={"surveys": ["reasons"]})
    client = make_client([study])
    assert client.get(f"/study/{study.id}?participant=p2", follow_redirects=False).status_code == 303
    first = client.get("/protocol/casino-collection/survey:0?participant=p2")
    again = client.get("/protocol/casino-collection/survey:0?participant=p2")
    drawn = proto.progress_of(client.app.state.platform).get(study.id, "p2")["draws"]["casino-own-reasons"]
    assert first.text == again.text
    for level in ("High", "Medium", "Low"):
        assert f"{level} priority: {drawn[level]}" in first.text
        assert f"{drawn[level]} is your {level.lower()} priority" in first.text
    assert first.text.index('id="drawn"') < first.text.index("<fieldset")  # shown before the questions


def test_a_draw_is_checked_when_the_survey_is_read():
    with pytest.raises(ValueError, match="Middle"):
        proto.Survey.model_validate({"id": "s", "title": "t", "draw": {"keys": ["High"], "values": ["Food"]},
                                     "items": [{"id": "r", "question": "Why {Middle}?", "kind": "text"}]})
    with pytest.raises(ValueError, match="at least as many values"):
        proto.Draw(keys=["High", "Low"], values=["Food"])
    plain = proto.Survey.model_validate({"id": "s", "title": "t", "items": [{"id": "r", "question": "Braces {like this} stay", "kind": "text"}]})
    assert plain.shown(None).items[0].question == "Braces {like this} stay"


def test_a_bots_priorities_follow_the_persons_shown_ones_so_the_pairing_mix_holds():
    """CaSiNo draws pairs as identical (1/4), same top issue (1/4) or different top issues (1/2);
    a person shown priorities of their own must not change that relation with the bot's view."""
    import collections
    import random

    from duologue.tasks import make
    from duologue.tasks.casino.task import PRIORITY_LEVELS

    def relation(a, b):
        ra, rb = [a["value2issue"][lv] for lv in PRIORITY_LEVELS], [b["value2issue"][lv] for lv in PRIORITY_LEVELS]
        return "identical" if ra == rb else "same_top" if ra[0] == rb[0] else "different_top"

    task = make("casino-v0")
    counts: collections.Counter[str] = collections.Counter()
    rng = random.Random(7)
    for seed in range(400):
        task.reset(seed=seed)
        scenario = task.scenario
        person, bot = task.party_ids
        drawn = relation(scenario.private[person], scenario.private[bot])
        before = dict(scenario.private[person])
        shown = rng.sample(["Food", "Water", "Firewood"], 3)
        scenario.private[person] = {**before, "value2issue": dict(zip(PRIORITY_LEVELS, shown, strict=True))}
        task.private_set(scenario, person, before, {person})
        assert relation(scenario.private[person], scenario.private[bot]) == drawn
        view = scenario.private[bot]
        assert {view["value2issue"][lv]: lv for lv in PRIORITY_LEVELS} == view["priorities"]
        counts[drawn] += 1
    assert 0.17 < counts["identical"] / 400 < 0.33 and 0.4 < counts["different_top"] / 400 < 0.6, counts

"""After a dialogue too short to earn a code, the page says "You may join the study again": under
`max_dialogues_per_participant` the lobby must then let the person in, not refuse them as having
already taken part. A dialogue that did earn its code still counts."""

from __future__ import annotations

import pytest

from duologue.web.payments import Pay
from duologue.web.study import Partner, Study

from web.webtest_helpers import join_lobby, play_to_the_end


def one_each(least: int) -> Study:
    return Study(id="once", task="casino-v0", partners=[Partner(kind="bot", agent="rule")], bot_wait_seconds=0.1, max_dialogues_per_participant=1, pay=Pay(min_messages=least))


def play(client, participant: str) -> str:
    client.get(f"/study/once?participant={participant}")
    token = join_lobby(client, "once", participant)
    with client.websocket_connect(f"/ws/chat/{token}") as ws:
        play_to_the_end(ws)
    return token


def test_a_too_short_dialogue_keeps_the_promise_to_join_again(make_client):
    client = make_client([one_each(50)])
    token = play(client, "short-1")  # a few messages, fewer than 50: set aside
    refused = client.get(f"/questionnaire/{token}")
    assert refused.status_code == 403 and "You may join the study again" in refused.text
    again = join_lobby(client, "once", "short-1")  # the promise: not "already taken part"
    assert again != token


def test_a_dialogue_that_earned_its_code_still_counts_toward_the_limit(make_client):
    client = make_client([one_each(0)])  # a code whatever the deal took
    token = play(client, "full-1")
    questions = client.get(f"/api/questionnaire/{token}").json()["questions"]
    answers = {q["key"]: (q["options"][0] if q["options"] else "fine") for q in questions}
    answers = {k: (v.get("value", v.get("label")) if isinstance(v, dict) else v) for k, v in answers.items()}
    assert client.post(f"/api/questionnaire/{token}", json=answers).status_code == 200
    with pytest.raises(AssertionError, match="already taken part"):
        join_lobby(client, "once", "full-1")

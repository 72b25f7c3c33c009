"""A participant may never rate their own dialogue, whatever `rater=` id the address carries: rating
jobs compare the dialogue's people with the identities the browser proved (its bound session)."""

from __future__ import annotations

import time

from fastapi.testclient import TestClient

from duologue.web.study import default_studies

from web.webtest_helpers import join_lobby, play_to_the_end


def one_rating_each():
    studies = [s for s in default_studies(bot_wait_seconds=0.05) if s.task == "craigslist-v0"]
    for study in studies:
        study.ratings_per_dialogue = 1
    return studies


def test_a_participant_asking_under_another_rater_id_is_not_given_their_own_dialogue(make_client):
    client = make_client(one_rating_each())
    assert client.get("/study/craigslist?participant=player-1").status_code == 200  # this browser is player-1
    token = join_lobby(client, "craigslist", "player-1")
    with client.websocket_connect(f"/ws/chat/{token}") as ws:
        play_to_the_end(ws)
    own = client.get("/rate?rater=someone-else", follow_redirects=False)  # the review's repro
    assert own.status_code == 200 and "Nothing to rate" in own.text, own.headers.get("location")
    other_browser = TestClient(client.app)
    job = other_browser.get("/rate?rater=rater-a", follow_redirects=False)
    assert job.status_code == 303 and job.headers["location"].startswith("/rate/craigslist/")  # the dialogue is there to rate


def test_a_job_on_ones_own_dialogue_given_earlier_is_refused(make_client):
    client = make_client(one_rating_each())
    client.get("/study/craigslist?participant=player-2")
    token = join_lobby(client, "craigslist", "player-2")
    with client.websocket_connect(f"/ws/chat/{token}") as ws:
        play_to_the_end(ws)
    client.get("/rate?rater=alias-2")  # binds the alias to this browser too
    storage = client.app.state.platform.storage
    dialogue = storage.dialogues(study_id="craigslist")[0].id
    storage.save_assignment("craigslist", {"dialogue_id": dialogue, "rater_id": "alias-2", "assigned_at": time.time(), "status": "assigned"})  # as an older platform handed out
    for answer in (client.get(f"/rate/craigslist/{dialogue}?rater=alias-2"), client.post(f"/rate/craigslist/{dialogue}?rater=alias-2", data={})):
        assert answer.status_code == 403 and "took part" in answer.text

"""Admin counts, the dialogue viewer and export; third-party rating jobs through the web pages."""

from __future__ import annotations

import io
import json
import zipfile

from fastapi.testclient import TestClient

from duologue.web.study import Partner, Study, default_studies
from web.webtest_helpers import ADMIN, join_lobby, play_to_the_end

HEADERS = {"X-Admin-Token": ADMIN}


def play(client, study: str, who: str) -> str:
    token = join_lobby(client, study, who)
    with client.websocket_connect(f"/ws/chat/{token}") as ws:
        play_to_the_end(ws)
    return token


def studies_with_one_rating() -> list[Study]:
    studies = default_studies(bot_wait_seconds=0.05)
    for study in studies:
        study.ratings_per_dialogue = 1
        if study.task.startswith("openchat"):
            study.task_options = {"utterances": 4}
    return studies


def answer_all(form_html: str) -> dict[str, str]:
    """Pick the middle option of every radio group on a page."""
    import re

    groups: dict[str, list[str]] = {}
    for name, value in re.findall(r'name="([^"]+)" value="([^"]+)"', form_html):
        groups.setdefault(name, []).append(value)
    return {name: values[len(values) // 2] for name, values in groups.items()}


def test_rating_jobs_go_to_raters_who_did_not_take_part_and_each_dialogue_once_per_rater(make_client):
    client = make_client(studies_with_one_rating())
    play(client, "craigslist", "player-1")
    # the player cannot rate their own dialogue
    own = client.get("/rate?rater=player-1")
    assert own.status_code == 200 and "Nothing to rate" in own.text
    player = client
    client = TestClient(player.app)  # the raters' browser: the player's would not be given the player's dialogue
    job = client.get("/rate?rater=rater-a", follow_redirects=False)
    assert job.status_code == 303 and job.headers["location"].startswith("/rate/craigslist/")
    page = client.get(job.headers["location"])
    assert page.status_code == 200 and "rating-transcript" in page.text
    # someone else cannot open or submit rater-a's job
    other_url = job.headers["location"].replace("rater=rater-a", "rater=rater-b")
    assert client.get(other_url).status_code == 403
    # a reload gives the same job back
    assert client.get("/rate?rater=rater-a", follow_redirects=False).headers["location"] == job.headers["location"]
    # k = 1: while rater-a holds the only slot, rater-b gets nothing
    assert "Nothing to rate" in client.get("/rate?rater=rater-b").text
    incomplete = client.post(job.headers["location"], data={})
    assert incomplete.status_code == 422
    assert client.post(job.headers["location"], data={**answer_all(page.text), "².x": "1"}).status_code == 422  # a key int() refuses
    done = client.post(job.headers["location"], data=answer_all(page.text))
    assert done.status_code == 200 and "saved" in done.text
    assert client.post(job.headers["location"], data=answer_all(page.text)).status_code == 403  # the job is closed
    ratings = player.app.state.platform.storage.ratings()
    assert ratings and {r.rater_kind for r in ratings} == {"third_party"} and {r.rater_id for r in ratings} == {"rater-a"}
    assert "Nothing to rate" in client.get("/rate?rater=rater-a").text  # never the same dialogue twice
    counts = client.get("/admin/api/counts", headers=HEADERS).json()
    assert counts["studies"]["craigslist"]["rated"] == 1


def test_admin_counts_viewer_and_export_in_every_corpus_format(make_client):
    client = make_client(studies_with_one_rating())
    tokens = {study: play(client, study, f"p-{study}") for study in ("casino", "craigslist", "mutualfriends", "openchat-ed", "openchat-wow")}
    answered = client.post(f"/api/questionnaire/{tokens['casino']}", json={"0.satisfaction": 5, "0.opponent_likeness": 4})
    assert answered.status_code == 200
    counts = client.get("/admin/api/counts", headers=HEADERS).json()
    assert counts["total"]["finished"] == 5 and counts["total"]["waiting"] == 0
    assert counts["studies"]["casino"]["quotas"][1] == {"pairing": "bot:rule", "count": 1, "quota": None}
    dashboard = client.get(f"/admin?token={ADMIN}")
    assert dashboard.status_code == 200 and "duologue_admin" in dashboard.headers.get("set-cookie", "")
    assert client.get("/admin/api/counts").status_code == 200  # the cookie now opens the admin pages
    dialogue_id = client.app.state.platform.storage.seat_by_token(tokens["casino"]).dialogue_id
    assert client.get(f"/admin/dialogues/{dialogue_id}").status_code == 200
    record = client.get(f"/admin/api/dialogues/{dialogue_id}").json()
    assert record["outcome"] and record["ratings"]
    response = client.get("/admin/export")
    assert response.status_code == 200 and "attachment" in response.headers["content-disposition"]
    archive = zipfile.ZipFile(io.BytesIO(response.content))
    names = set(archive.namelist())
    assert {"dialogues.jsonl", "manifest.json", "native/casino/casino.json", "native/craigslist/craigslist.json", "native/mutualfriends/mutualfriends.json"} <= names
    assert sum(n.startswith("native/duo/") for n in names) == 2
    lines = [json.loads(line) for line in archive.read("dialogues.jsonl").decode().splitlines()]
    assert len(lines) == 5
    casino = json.loads(archive.read("native/casino/casino.json"))
    outcomes = [info["outcomes"] for info in casino[0]["participant_info"].values()]
    assert {"satisfaction": "Extremely satisfied", "opponent_likeness": "Slightly like"}.items() <= next(o for o in outcomes if o.get("satisfaction")).items()
    only = zipfile.ZipFile(io.BytesIO(client.get("/admin/export?study=casino").content))
    assert len(only.read("dialogues.jsonl").decode().splitlines()) == 1
    assert client.get("/admin/export?study=nope").status_code == 404


def test_an_interrupted_server_marks_live_dialogues_finished_on_the_next_start(tmp_path):
    from fastapi.testclient import TestClient

    from duologue.web.app import create_app
    from web.conftest import fast_settings

    settings = fast_settings(tmp_path)
    studies = [Study(id="casino", task="casino-v0", partners=[Partner(kind="bot")], bot_wait_seconds=0.05)]
    app = create_app(settings, studies)
    client = TestClient(app)
    client.__enter__()
    token = join_lobby(client, "casino", "crash")
    dialogue_id = app.state.platform.storage.seat_by_token(token).dialogue_id
    app.state.platform.storage.engine.dispose()
    # the next process starts before this one ended its dialogues
    again = create_app(settings, studies)
    with TestClient(again) as second:
        info = again.state.platform.storage.info(dialogue_id)
        assert info.status == "finished" and info.end_reason == "interrupted"
        view = second.get(f"/api/chat/{token}/view").json()
        assert view["done"] and view["events"][-1]["name"] == "interrupted"
        # no deal and no points: not the task's verdict on a dialogue that simply stopped
        assert view["outcome"] == {"reason": "interrupted", "agreed": None, "deal": None, "score": None}
        stored = again.state.platform.storage.dialogue(dialogue_id)
        assert stored.outcome.reason == "interrupted" and stored.outcome.scores == {} and stored.meta["end_reason"] == "interrupted"
        assert second.get(f"/api/questionnaire/{token}").status_code == 200  # the way to a completion code stays open
    client.__exit__(None, None, None)


def test_studies_added_on_the_admin_page_survive_a_restart(tmp_path):
    from fastapi.testclient import TestClient

    from duologue.web.app import create_app
    from web.conftest import fast_settings

    settings = fast_settings(tmp_path)
    with TestClient(create_app(settings, default_studies())) as client:
        text = "id: added\ntask: craigslist-v0\npartners: [{kind: bot, agent: random}]\nbot_wait_seconds: 0\n"
        assert client.post("/admin/studies", data={"text": text}, headers=HEADERS, follow_redirects=False).status_code == 303
    with TestClient(create_app(settings, default_studies())) as client:
        study = client.app.state.platform.studies["added"]
        assert study.partners[0].agent == "random"
        assert "/study/added" in client.get("/").text
        token = join_lobby(client, "added", "someone")
        seats = client.app.state.platform.storage.seats(client.app.state.platform.storage.seat_by_token(token).dialogue_id)
        assert {s.agent for s in seats if s.kind == "bot"} == {"random"}


def test_a_study_with_dialogues_keeps_its_task_and_its_dialogues_keep_their_forms(make_client):
    """Replacing a study on the admin page may change its settings, not the task its dialogues were
    played in: their questionnaires and rater forms stay that task's."""
    client = make_client(studies_with_one_rating())
    token = play(client, "casino", "player-1")
    retask = "id: casino\ntask: mutualfriends-v0\npartners: [{kind: bot, agent: rule}]\n"
    refused = client.post("/admin/studies", data={"text": retask}, headers=HEADERS, follow_redirects=False)
    assert refused.status_code == 409 and "already has dialogues of another task" in refused.text
    assert client.app.state.platform.studies["casino"].task == "casino-v0"
    same = "id: casino\ntask: casino-v0\npartners: [{kind: bot, agent: random}]\nbot_wait_seconds: 0\nratings_per_dialogue: 1\n"
    assert client.post("/admin/studies", data={"text": same}, headers=HEADERS, follow_redirects=False).status_code == 303
    form = client.get(f"/api/questionnaire/{token}").json()
    assert "satisfaction" in json.dumps(form)

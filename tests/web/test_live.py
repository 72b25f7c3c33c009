"""Live dialogues over websockets: every task against its bot, two people, resuming, timeouts,
disconnects, quotas, and no private view ever sent to the other party."""

from __future__ import annotations

import json
import time

import pytest

from duologue.web.study import Partner, Study, default_studies
from web.webtest_helpers import join_lobby, next_move, pair_two, play_to_the_end, state_where, until

TASK_STUDIES = [s.id for s in default_studies()]


def storage(client):
    return client.app.state.platform.storage


@pytest.mark.parametrize("study", TASK_STUDIES)
def test_a_person_plays_every_task_against_its_bot_and_everything_is_stored(client, study):
    started = time.time()
    token = join_lobby(client, study, f"person-{study}")
    with client.websocket_connect(f"/ws/chat/{token}") as ws:
        final = play_to_the_end(ws)
    assert final["done"] and final["questionnaire_url"] == f"/questionnaire/{token}"
    assert time.time() - started < 60
    stored = storage(client).dialogue(final["dialogue"])
    assert stored is not None and stored.outcome is not None
    assert len(stored.events) == len(final["events"])  # every event was stored as it happened
    assert [e["kind"] for e in final["events"]] == [e.kind for e in stored.events]
    kinds = {p.kind for p in stored.parties}
    assert kinds == {"human", "bot"}
    assert stored.meta["study"] == study and stored.meta["pairing"] == "bot:rule"
    assert storage(client).info(final["dialogue"]).status == "finished"


def people_studies() -> list[Study]:
    studies = default_studies(bot_wait_seconds=0.1)
    for task in ("casino-v0", "mutualfriends-v0", "craigslist-v0", "openchat-ed-v0"):
        studies.append(Study(id=f"{task.removesuffix('-v0')}-people", task=task, partners=[Partner(kind="human")], task_options={"utterances": 4} if "openchat" in task else {}))
    return studies


def secret_strings(private: dict) -> set[str]:
    found: set[str] = set()

    def walk(value):
        if isinstance(value, dict):
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)
        elif isinstance(value, str) and len(value) >= 4:
            found.add(value)
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            found.add(json.dumps(value))

    walk(private)
    return found


def without_chosen_content(frame: dict) -> str:
    """A frame as text, minus what the parties chose to reveal (their messages, selections, offers)."""
    frame = dict(frame)
    frame["events"] = [{"kind": e["kind"], "party": e["party"]} for e in frame.get("events", [])]
    return json.dumps(frame)


@pytest.mark.parametrize("task", ["casino", "mutualfriends", "craigslist", "openchat-ed"])
def test_two_people_pair_play_and_never_see_each_others_private_view(make_client, task):
    client = make_client(people_studies())
    token_a, token_b = pair_two(client, f"{task}-people")
    seen_a: list = []
    with client.websocket_connect(f"/ws/chat/{token_a}") as ws_a, client.websocket_connect(f"/ws/chat/{token_b}") as ws_b:
        first_a = until(ws_a, state_where(lambda s: True), seen=seen_a)
        first_b = until(ws_b, state_where(lambda s: True))
        assert first_a["party"] != first_b["party"] and first_a["dialogue"] == first_b["dialogue"]
        ws_a.send_json({"type": "typing"})
        until(ws_b, lambda f: f["type"] == "typing")
        for step in range(60):  # both play, whoever may move
            if first_a["done"] and first_b["done"]:
                break
            for ws, state, _seen in ((ws_a, first_a, seen_a), (ws_b, first_b, None)):
                if state["legal"] and not state["done"]:
                    ws.send_json({"type": "move", "action": next_move(state, step)})
                    break
            first_a = until(ws_a, state_where(lambda s: True), seen=seen_a)
            first_b = until(ws_b, state_where(lambda s: True))
        assert first_a["done"] and first_b["done"]
    dialogue = storage(client).dialogue(first_a["dialogue"])
    mine = dialogue.scenario.private[first_a["party"]]
    theirs = dialogue.scenario.private[first_b["party"]]
    public = json.dumps(dialogue.scenario.public)
    own = secret_strings(mine)
    # values only the other party holds (not part of one of our own values: "Biology" in "Marine Biology")
    hidden = {s for s in secret_strings(theirs) - own if s not in public and not s.isdigit() and not any(s in o for o in own)}
    assert hidden or task == "openchat-ed"
    for frame in seen_a:
        text = without_chosen_content(frame)
        leaked = [s for s in hidden if s in text]
        assert not leaked, f"party {first_a['party']} was sent {leaked[:3]} from the other party's private view"
    view = client.get(f"/api/chat/{token_a}/view").json()
    assert not [s for s in hidden if s in without_chosen_content(view)]
    for url in (f"/chat/{token_a}", f"/questionnaire/{token_a}"):
        page = client.get(url).text
        assert not [s for s in hidden if s in page], url
    assert {p.kind for p in dialogue.parties} == {"human"} and dialogue.meta["pairing"] == "human-human"


def test_a_participant_is_never_paired_with_themselves(make_client):
    client = make_client(people_studies())
    with client.websocket_connect("/ws/lobby/casino-people?participant=same") as first:
        assert first.receive_json()["type"] == "waiting"
        with client.websocket_connect("/ws/lobby/casino-people?participant=same") as second:
            assert second.receive_json()["type"] == "waiting"
            refused = first.receive_json()
            assert refused["type"] == "refused" and "another window" in refused["reason"]
            with client.websocket_connect("/ws/lobby/casino-people?participant=other") as third:
                assert third.receive_json()["type"] == "waiting"
                assert third.receive_json()["type"] == "paired"
            assert second.receive_json()["type"] == "paired"
    dialogues = storage(client).dialogues(study_id="casino-people")
    assert len(dialogues) == 1
    people = {s.participant_id for s in storage(client).seats(dialogues[0].id)}
    assert people == {"same", "other"}


def test_a_returning_participant_resumes_their_dialogue(client):
    token = join_lobby(client, "casino", "returner")
    with client.websocket_connect(f"/ws/chat/{token}") as ws:
        state = until(ws, state_where(lambda s: True))
    again = join_lobby(client, "casino", "returner")
    assert again == token
    with client.websocket_connect(f"/ws/chat/{token}") as ws:
        resumed = until(ws, state_where(lambda s: True))
    assert resumed["dialogue"] == state["dialogue"] and not resumed["done"]


def test_partner_disconnect_ends_cleanly_after_the_reconnect_window(make_client):
    client = make_client(people_studies(), reconnect_seconds=0.5)
    token_a, token_b = pair_two(client, "casino-people")
    with client.websocket_connect(f"/ws/chat/{token_a}") as ws:
        until(ws, state_where(lambda s: True))
        ws.send_json({"type": "move", "action": {"kind": "say", "text": "hello? are you there?"}})
        final = until(ws, state_where(lambda s: s["done"]))  # B never connects
    assert final["end_reason"] == "partner_left" and final["partner_left"] is True  # the study's default `on_partner_leave: end`
    assert final["questionnaire_url"] == f"/questionnaire/{token_a}"
    dialogue = storage(client).dialogue(final["dialogue"])
    assert dialogue.events[-1].kind == "system" and dialogue.events[-1].name == "partner_left"
    assert dialogue.events[-1].data == {"party": next(p.id for p in dialogue.parties if p.id != final["party"])}
    assert dialogue.outcome is not None
    answer = client.post(f"/api/questionnaire/{token_a}", json={"0.satisfaction": 3, "0.opponent_likeness": 1})
    assert answer.status_code == 200 and answer.json()["completion_code"]


def test_a_partner_who_comes_back_in_time_keeps_the_dialogue(make_client):
    client = make_client(people_studies(), reconnect_seconds=2.0)
    token_a, token_b = pair_two(client, "casino-people")
    with client.websocket_connect(f"/ws/chat/{token_a}") as ws_a:
        until(ws_a, state_where(lambda s: True))
        with client.websocket_connect(f"/ws/chat/{token_b}") as ws_b:
            until(ws_b, state_where(lambda s: True))
        notice = until(ws_a, lambda f: f["type"] == "partner" and not f["connected"])
        assert notice["reconnect_seconds"] == 2.0
        with client.websocket_connect(f"/ws/chat/{token_b}") as ws_b:
            state_b = until(ws_b, state_where(lambda s: True))
            assert not state_b["done"]
            assert until(ws_a, lambda f: f["type"] == "partner")["connected"] is True
        time.sleep(0.1)
    assert storage(client).info(state_b["dialogue"]).status == "live"


def test_idle_dialogues_end_and_still_get_the_questionnaire(make_client):
    studies = [Study(id="idle", task="casino-v0", partners=[Partner(kind="bot")], idle_seconds=0.5)]
    client = make_client(studies)
    token = join_lobby(client, "idle", "sleepy")
    with client.websocket_connect(f"/ws/chat/{token}") as ws:
        final = until(ws, state_where(lambda s: s["done"]))
    assert final["end_reason"] == "idle"
    assert client.get(f"/questionnaire/{token}").status_code == 200


def test_the_time_limit_ends_a_dialogue_with_a_timeout(make_client):
    studies = [Study(id="short", task="openchat-wow-v0", partners=[Partner(kind="bot")], human_party="user", time_limit_seconds=0.6)]
    client = make_client(studies)
    token = join_lobby(client, "short", "slow")
    with client.websocket_connect(f"/ws/chat/{token}") as ws:
        first = until(ws, state_where(lambda s: True))
        assert first["seconds_left"] is not None and first["seconds_left"] <= 0.6
        final = until(ws, state_where(lambda s: s["done"]))
    assert final["end_reason"] == "timeout"


def test_quotas_are_respected(make_client):
    studies = [Study(id="small", task="casino-v0", partners=[Partner(kind="bot")], quotas={"bot:rule": 1})]
    client = make_client(studies)
    join_lobby(client, "small", "first")
    with client.websocket_connect("/ws/lobby/small?participant=second") as ws:
        assert ws.receive_json()["type"] == "waiting"
        frame = ws.receive_json()
        assert frame["type"] == "refused" and "full" in frame["reason"]
    assert len(storage(client).dialogues(study_id="small")) == 1


def test_per_scenario_quotas_spread_people_over_a_scenario_pool(make_client):
    from duologue.web.study import Scenarios

    studies = [Study(id="pool", task="casino-v0", partners=[Partner(kind="bot")], scenarios=Scenarios(pool=2, seed=7), per_scenario=1)]
    client = make_client(studies)
    for who in ("p1", "p2"):
        join_lobby(client, "pool", who)
    keys = sorted(i.scenario_key for i in storage(client).dialogues(study_id="pool"))
    assert keys == ["seed:7", "seed:8"]
    with client.websocket_connect("/ws/lobby/pool?participant=p3") as ws:
        assert ws.receive_json()["type"] == "waiting"
        assert ws.receive_json()["type"] == "refused"


def test_a_bot_takes_the_seat_only_after_the_wait(make_client):
    client = make_client(default_studies(bot_wait_seconds=0.8))
    started = time.time()
    join_lobby(client, "casino", "patient")
    assert time.time() - started >= 0.7


def test_a_study_can_replay_corpus_scenarios_live(make_client, fixtures):
    from duologue.web.study import Scenarios

    sample = fixtures / "casino" / "casino_sample.json"
    if not sample.exists():
        pytest.skip("no CaSiNo fixture")
    studies = [Study(id="replay", task="casino-v0", partners=[Partner(kind="bot")], scenarios=Scenarios(source="corpus", corpus="casino", path=sample))]
    client = make_client(studies)
    token = join_lobby(client, "replay", "replayer")
    with client.websocket_connect(f"/ws/chat/{token}") as ws:
        final = play_to_the_end(ws)
    info = storage(client).info(final["dialogue"])
    assert info.scenario_key.startswith("corpus:")
    assert final["private"]["reasons"]  # the corpus participant's own reasons


@pytest.mark.parametrize("study", TASK_STUDIES)
def test_a_person_never_receives_the_bots_private_view(client, study):
    token = join_lobby(client, study, f"curious-{study}")
    seen: list = []
    with client.websocket_connect(f"/ws/chat/{token}") as ws:
        final = play_to_the_end(ws, seen=seen)
    dialogue = storage(client).dialogue(final["dialogue"])
    bot = next(p.id for p in dialogue.parties if p.kind == "bot")
    own = secret_strings(dialogue.scenario.private.get(final["party"], {}))
    public = json.dumps(dialogue.scenario.public)
    hidden = {s for s in secret_strings(dialogue.scenario.private.get(bot, {})) - own if s not in public and not s.isdigit() and not any(s in o for o in own)}
    for frame in seen:
        text = without_chosen_content(frame)
        assert not [s for s in hidden if s in text]

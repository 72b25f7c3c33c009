"""People's text: a message made only of invisible or bidi characters is refused like an empty one
and never counts toward `min_messages`; a bidi override inside visible text is taken out before it
is stored, and shown text is isolated, so nothing reorders the page after it."""

from __future__ import annotations

import pytest

from duologue.core.schema import Message
from duologue.web.payments import Pay, figures_of, too_short
from duologue.web.protocol import SurveyItem
from duologue.web.study import Partner, Study

from web.webtest_helpers import ADMIN, join_lobby

INVISIBLE = [
    "\u202e\u200b",  # the review's repro: a right-to-left override and a zero-width space
    "\u200b\u200c\u200d\u2060\ufeff",  # zero-width space, joiners, word joiner, byte-order mark
    "\u202a\u202b\u202c\u202d\u2066\u2067\u2068\u2069",  # embeddings, overrides, isolates
    " \u200e\u200f\u061c ",  # direction marks between spaces
    "\u3164\u115f\uffa0",  # Hangul fillers: letters that draw nothing
    "\u2800",  # the blank Braille pattern
    "\u00ad\U000e0041",  # a soft hyphen and a tag character
    "\u0301\u20dd",  # marks with nothing to mark
]


def bot_study(least: int = 0) -> Study:
    return Study(id="talk", task="casino-v0", partners=[Partner(kind="bot", agent="rule")], bot_wait_seconds=0.05, pay=Pay(min_messages=least))


def say(client, token: str, text: str):
    return client.post(f"/api/chat/{token}/moves", json={"kind": "say", "text": text})


@pytest.mark.parametrize("text", INVISIBLE, ids=lambda t: "+".join(f"U{ord(c):04X}" for c in t))
def test_a_message_of_invisible_characters_is_refused_like_an_empty_one(make_client, text):
    client = make_client([bot_study()])
    token = join_lobby(client, "talk", "p-1")
    refused = say(client, token, text)
    assert refused.status_code == 422 and "needs some text" in refused.text, refused.text
    assert say(client, token, "").status_code == 422  # the same answer as an empty message
    storage = client.app.state.platform.storage
    dialogue = storage.dialogues(study_id="talk")[0].id
    assert not [e for e in storage.events(dialogue) if e.kind == "message" and e.party is not None and storage.seat_by_token(token).party == e.party]


def test_the_socket_refuses_them_too(make_client):
    client = make_client([bot_study()])
    token = join_lobby(client, "talk", "p-2")
    with client.websocket_connect(f"/ws/chat/{token}") as ws:
        while ws.receive_json().get("type") != "state":
            pass
        ws.send_json({"type": "move", "action": {"kind": "say", "text": INVISIBLE[0]}, "move_id": "m-1"})
        while (frame := ws.receive_json()).get("move_id") != "m-1":
            pass
    assert frame["type"] == "error" and frame["status"] == 422


def test_invisible_messages_stored_earlier_do_not_count_toward_min_messages(make_client):
    client = make_client([bot_study(least=2)])
    token = join_lobby(client, "talk", "p-3")
    assert say(client, token, "Hello there, neighbour!").status_code == 200
    storage = client.app.state.platform.storage
    party = storage.seat_by_token(token).party
    dialogue = storage.dialogue(storage.dialogues(study_id="talk")[0].id)
    padded = dialogue.model_copy(update={"events": [*dialogue.events, *(Message(party=party, text=text, time=None) for text in INVISIBLE)]})
    assert figures_of(padded, party)["messages"] == 1
    assert too_short(Pay(min_messages=2), padded, party) is not None


def test_a_bidi_override_inside_a_message_is_stored_without_it_and_shown_isolated(make_client):
    client = make_client([bot_study()])
    token = join_lobby(client, "talk", "p-4")
    assert say(client, token, "I need \u202ewater\u202c more than food").status_code == 200
    storage = client.app.state.platform.storage
    dialogue = storage.dialogues(study_id="talk")[0].id
    said = [e.text for e in storage.events(dialogue) if e.kind == "message"]
    assert "I need water more than food" in said and not any("\u202e" in text or "\u202c" in text for text in said)
    admin = client.get(f"/admin/dialogues/{dialogue}", headers={"X-Admin-Token": ADMIN})
    assert admin.status_code == 200 and "\u202e" not in admin.text
    assert "<bdi>I need water more than food</bdi>" in admin.text  # each shown text in its own direction


def test_survey_answers_lose_bidi_controls_and_need_visible_text():
    item = SurveyItem(id="why", question="Why?", kind="text")
    assert item.read("\u202egnihtemos") == ("gnihtemos", None)
    value, problem = item.read("\u200b\u200b\u202e")
    assert value is None and problem is not None

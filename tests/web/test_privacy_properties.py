"""No frame a party receives ever carries the other party's private view: random seeds, random legal moves.

Extends `tests/web/test_live.py` (one scripted game per task, frames of one side only): here
hypothesis draws the scenario seed and a random legal move sequence for every task with two
people, and BOTH parties' websocket frames, HTTP move answers, GET views and pages are searched:

* every state frame's `private` is exactly the receiving party's own private view;
* no text the other party holds privately (reasons, friends' values, ...) appears anywhere
  outside what a party chose to write in its own moves;
* no number only the other party holds (a buyer's target, a bottomline) appears as a value
  outside the counters every frame has (turn, seconds left, ...);
* the outcome a party sees has its own score only.
"""

from __future__ import annotations

import itertools
import json
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from duologue.core import moves
from duologue.web.study import Partner, Study, default_studies
from web.webtest_helpers import pair_two, state_where, until

TASKS = ["casino-v0", "craigslist-v0", "mutualfriends-v0", "openchat-ed-v0", "openchat-wow-v0"]
COUNTERS = {"turn", "turns_left", "seconds_left", "max_message_chars", "time", "reconnect_seconds", "bot_wait_seconds"}
"""Keys whose numbers are the platform's own, never a private value."""
CHOSEN = {"text", "item", "price", "mine", "theirs", "deal", "sides"}
"""Keys whose values a party chose to say (its messages, offers, deals, selections)."""
NAMES = itertools.count()


def people_studies() -> list[Study]:
    studies = default_studies(bot_wait_seconds=0.1)
    for task in TASKS:
        options = {"utterances": 6} if task.startswith("openchat") else {}
        studies.append(Study(id=f"{task}-people", task=task, partners=[Partner(kind="human")], task_options=options))
    return studies


@pytest.fixture
def client(make_client):
    return make_client(people_studies())


def random_move(state: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A legal move for this view, drawn from its action schema (talk more often, so games last a while)."""
    schema = state["schema"]
    kinds = moves.kinds(schema)
    kind = "say" if "say" in kinds and rng.random() < 0.5 else rng.choice(kinds)
    if kind == "say":
        return {"kind": "say", "text": rng.choice(["hi", "What do you need most?", "ok 🙂", "I could go to 200", "no way", "<b>x</b>", "deal?"])}
    return moves.sample(moves.option(schema, kind), rng)


def strings_and_numbers(value: Any, skip: set[str] = frozenset()) -> tuple[set[str], set[float]]:
    """Every string (4+ characters) and number in a JSON value, leaving out the values under `skip` keys."""
    texts: set[str] = set()
    numbers: set[float] = set()

    def walk(item: Any) -> None:
        if isinstance(item, dict):
            for key, child in item.items():
                if key not in skip:
                    walk(child)
        elif isinstance(item, list):
            for child in item:
                walk(child)
        elif isinstance(item, str):
            if len(item) >= 4:
                texts.add(item)
        elif isinstance(item, (int, float)) and not isinstance(item, bool):
            numbers.add(float(item))

    walk(value)
    return texts, numbers


class Secrets:
    """What only `other` knows, as strings and numbers that `party` can find nowhere else."""

    def __init__(self, dialogue, party: str, other: str) -> None:
        own_texts, own_numbers = strings_and_numbers(dialogue.scenario.private.get(party, {}))
        public_texts, public_numbers = strings_and_numbers(dialogue.scenario.public)
        public_blob = json.dumps(dialogue.scenario.public)
        texts, numbers = strings_and_numbers(dialogue.scenario.private.get(other, {}))
        self.texts = {t for t in texts - own_texts if t not in public_blob and not t.isdigit() and not any(t in o for o in own_texts)}
        self.numbers = numbers - own_numbers - public_numbers
        self.own_private = dialogue.scenario.private.get(party, {})

    def leaks_in(self, frame: dict[str, Any]) -> list:
        visible = dict(frame)
        if "private" in visible:
            assert visible.pop("private") == self.own_private, "a frame's private view is not the receiver's own"
        texts, numbers = strings_and_numbers(visible, skip=CHOSEN | COUNTERS)
        blob = " ".join(texts)
        return [t for t in self.texts if t in blob] + sorted(self.numbers & numbers)


def drain_states(ws, seen: list) -> dict[str, Any]:
    return until(ws, state_where(lambda s: True), seen=seen)


@pytest.mark.parametrize("task", TASKS)
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), via_http=st.booleans())
def test_no_frame_a_party_gets_carries_the_other_partys_private_view(client, task, seed, via_http):
    rng = random.Random(seed)
    n = next(NAMES)
    tokens = pair_two(client, f"{task}-people", f"a{n}", f"b{n}")
    seen: dict[str, list] = {t: [] for t in tokens}
    with client.websocket_connect(f"/ws/chat/{tokens[0]}") as ws_a, client.websocket_connect(f"/ws/chat/{tokens[1]}") as ws_b:
        sockets = dict(zip(tokens, (ws_a, ws_b), strict=True))
        states = {t: drain_states(sockets[t], seen[t]) for t in tokens}
        for _ in range(40):
            if all(s["done"] for s in states.values()):
                break
            movers = [t for t in tokens if states[t]["legal"] and not states[t]["done"]]
            mover = rng.choice(movers)
            move = random_move(states[mover], rng)
            if via_http:
                answer = client.post(f"/api/chat/{mover}/moves", json=move)
                assert answer.status_code == 200, (move, answer.text)
                seen[mover].append(answer.json()["view"])
            else:
                sockets[mover].send_json({"type": "move", "action": move})
            for token in tokens:
                states[token] = drain_states(sockets[token], seen[token])
        for token in tokens:
            seen[token].append(client.get(f"/api/chat/{token}/view").json())
    storage = client.app.state.platform.storage
    dialogue = storage.dialogue(storage.seat_by_token(tokens[0]).dialogue_id)
    parties = {t: storage.seat_by_token(t).party for t in tokens}
    for token, other_token in (tokens, tokens[::-1]):
        secrets = Secrets(dialogue, parties[token], parties[other_token])
        assert task.startswith("openchat") or secrets.texts or secrets.numbers, "nothing private to look for"
        for frame in seen[token]:
            assert not secrets.leaks_in(frame), f"{parties[token]} was sent {secrets.leaks_in(frame)[:3]} of the other party's private view"
            outcome = frame.get("outcome")
            if outcome is not None:
                assert set(outcome) == {"reason", "agreed", "deal", "score"}
                if dialogue.outcome is not None:
                    assert outcome["score"] == dialogue.outcome.scores.get(parties[token])
        for url in (f"/chat/{token}", f"/questionnaire/{token}", f"/api/questionnaire/{token}"):
            page = client.get(url).text
            assert not [t for t in secrets.texts if t in page], url

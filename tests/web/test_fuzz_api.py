"""Fuzz every HTTP operation of the platform from its own OpenAPI description (schemathesis).

Each generated request is sent twice: as generated (random tokens, ids and bodies), and with real
seat tokens, study and dialogue ids and the admin token put in, so that bodies reach the code
behind the 404s and 401s (moves into a live dialogue, answers to a finished one's questionnaire,
study text on the admin page). Every answer must be a 4xx or better, never a 5xx, and must fit
the schema where the route declares one.

The requests go through one started `TestClient`, so dialogues started in the lobby (their
runner tasks live on its event loop) are the ones the fuzzed moves reach. The schema is the app's
own `app.openapi()` (`from_dict`): `from_asgi` would start a second lifespan on another loop.
"""

from __future__ import annotations

import random
import tempfile
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import requests
import schemathesis
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import response_schema_conformance

from duologue.web.app import create_app
from duologue.web.study import Partner, Study, default_studies
from web.conftest import fast_settings
from web.webtest_helpers import ADMIN, join_lobby, pair_two

SCHEMA_APP = create_app(fast_settings(Path(tempfile.mkdtemp(prefix="duologue-schema-"))), default_studies())
schema = schemathesis.openapi.from_dict(SCHEMA_APP.openapi())



def check(case, response) -> None:
    """No 5xx; every answer fits the route's declared schema (the platform's own 422s included: see
    `describe_refusals`); an API error says what is wrong in `detail`."""
    assert response.status_code < 500, f"{case.as_curl_command()} -> {response.status_code}: {response.text[:300]}"
    case.validate_response(response, checks=[not_a_server_error, response_schema_conformance])
    if response.status_code >= 400 and case.path.startswith(("/api/", "/admin/api/")):
        assert response.headers["content-type"].startswith("application/json"), response.text[:200]
        assert response.json().get("detail"), response.text[:200]


def fuzz_studies() -> list[Study]:
    return default_studies(bot_wait_seconds=0.1) + [
        Study(id="casino-people", task="casino-v0", partners=[Partner(kind="human")]),
        Study(id="craigslist-people", task="craigslist-v0", partners=[Partner(kind="human")]),
        Study(id="friends-people", task="mutualfriends-v0", partners=[Partner(kind="human")]),
    ]


class Platform:
    """A started app with live and finished dialogues, and the real ids to put into requests."""

    def __init__(self, tmp: Path) -> None:
        self.client = TestClient(create_app(fast_settings(tmp, bot_typing_seconds=0.0), fuzz_studies()))
        self.client.__enter__()
        self.live_tokens = [*pair_two(self.client, "casino-people"), *pair_two(self.client, "craigslist-people", "carol", "dave"), *pair_two(self.client, "friends-people", "erin", "frank")]
        finished = join_lobby(self.client, "casino", "gina")
        self.client.post(f"/api/chat/{finished}/moves", json={"kind": "walk-away"})
        self.finished_tokens = [finished]
        storage = self.client.app.state.platform.storage
        self.dialogue_ids = [storage.seat_by_token(t).dialogue_id for t in self.live_tokens + self.finished_tokens]
        self.studies = list(self.client.app.state.platform.studies)
        self.rng = random.Random(7)

    def real(self, name: str, value):
        """A real value for a path or query parameter, when the name says what it is."""
        choices = {
            "token": self.live_tokens + self.finished_tokens,
            "study_id": self.studies,
            "study": self.studies,
            "dialogue_id": self.dialogue_ids,
            "rater": ["rater-1", "alice"],
            "participant": ["henry"],
        }.get(name)
        return self.rng.choice(choices) if choices else value

    def close(self) -> None:
        self.client.__exit__(None, None, None)


@pytest.fixture(scope="module")
def platform(tmp_path_factory):
    platform = Platform(tmp_path_factory.mktemp("fuzz"))
    yield platform
    platform.close()


def send(client: TestClient, case) -> object:
    """Send a case through the TestClient, with the exact bytes requests would send."""
    prepared = requests.Request(**case.as_transport_kwargs(base_url="http://testserver")).prepare()
    url = urlsplit(prepared.url)
    target = url.path + (f"?{url.query}" if url.query else "")
    body = prepared.body.encode() if isinstance(prepared.body, str) else prepared.body
    return client.request(prepared.method, target, headers=dict(prepared.headers), content=body, follow_redirects=False)


@schema.parametrize()
@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
def test_no_operation_answers_with_a_server_error(case, platform):
    check(case, send(platform.client, case))

    for name in list(case.path_parameters or {}):
        case.path_parameters[name] = platform.real(name, case.path_parameters[name])
    for name in list(case.query or {}):
        case.query[name] = platform.real(name, case.query[name])
    case.headers = {**(case.headers or {}), "X-Admin-Token": ADMIN}
    check(case, send(platform.client, case))


# ---------------------------------------------------------------------- bodies the schema cannot describe

from hypothesis import example, given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

TEXT = st.text(max_size=40) | st.sampled_from(["", "   ", "x" * 1001, "\x00", "🙂", "<script>", "NaN"])
NUMBERS = st.integers(-(10**30), 10**30) | st.floats() | st.sampled_from([0, -1, 3, 2**63])
ANY = st.recursive(st.none() | st.booleans() | NUMBERS | TEXT, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3), max_leaves=6)
SHARES = st.dictionaries(st.sampled_from(["Food", "Water", "Firewood", "Gold"]), st.integers(-1, 4) | ANY, max_size=4)
MOVES = st.one_of(
    st.builds(lambda t: {"kind": "say", "text": t}, TEXT),
    st.builds(lambda p: {"kind": "offer", "price": p}, NUMBERS | ANY),
    st.builds(lambda m, t: {"kind": "submit-deal", "mine": m, "theirs": t}, SHARES, SHARES),
    st.builds(lambda i: {"kind": "select", "item": i}, st.dictionaries(TEXT, ANY, max_size=4) | ANY),
    st.sampled_from([{"kind": k} for k in ("accept", "reject", "quit", "accept-deal", "reject-deal", "walk-away", "fly")]),
    ANY,
)


def fresh_live_token(platform: Platform) -> str:
    """A seat of a dialogue still going, pairing two new people when every one has ended."""
    hub = platform.client.app.state.platform.hub
    storage = platform.client.app.state.platform.storage
    going = [t for t in platform.live_tokens if (live := hub.get(storage.seat_by_token(t).dialogue_id)) is not None and not live.task.done]
    if not going:
        n = len(platform.live_tokens)
        study = platform.rng.choice(["casino-people", "craigslist-people", "friends-people"])
        going = list(pair_two(platform.client, study, f"p{n}", f"p{n + 1}"))
        platform.live_tokens.extend(going)
    return platform.rng.choice(going)


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(move=MOVES, raw=st.booleans())
def test_any_move_body_on_a_live_seat_is_answered_without_a_server_error(platform, move, raw):
    token = fresh_live_token(platform)
    if raw:  # Python's json accepts NaN and Infinity: send them as a browser script could
        import json

        response = platform.client.post(f"/api/chat/{token}/moves", content=json.dumps(move), headers={"content-type": "application/json"})
    else:
        response = platform.client.post(f"/api/chat/{token}/moves", content=_strict_json(move), headers={"content-type": "application/json"})
    assert response.status_code < 500, (move, response.status_code, response.text[:300])
    if response.status_code == 200:
        assert response.json()["ok"] is True
    else:
        assert_declared_refusal(response)


def _strict_json(value) -> bytes:
    import json

    try:
        return json.dumps(value, allow_nan=False).encode()
    except ValueError:
        return b"null"


def assert_declared_refusal(response) -> None:
    """A refusal has the shape the OpenAPI description declares for it: the platform's one sentence
    (`Refusal`), or FastAPI's own list of validation errors (objects with `loc` and `msg`)."""
    detail = response.json()["detail"]
    assert detail, response.text[:300]
    if isinstance(detail, list):
        assert response.status_code == 422 and all(isinstance(d, dict) and {"loc", "msg"} <= d.keys() for d in detail), response.text[:300]
    else:
        assert isinstance(detail, str), response.text[:300]


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(answers=st.dictionaries(st.sampled_from(["0.satisfaction", "0.opponent_likeness", "1.x", "0.", "", "9.satisfaction"]) | TEXT, ANY, max_size=3) | ANY)
@example(answers={"0.satisfaction": "plenty", "9.satisfaction": 1})  # several problems: still one sentence
def test_any_questionnaire_answer_is_answered_without_a_server_error(platform, answers):
    token = platform.finished_tokens[0]
    import json

    response = platform.client.post(f"/api/questionnaire/{token}", content=json.dumps(answers), headers={"content-type": "application/json"})
    assert response.status_code in (200, 409, 422), (answers, response.status_code, response.text[:300])
    if response.status_code != 200:
        assert_declared_refusal(response)

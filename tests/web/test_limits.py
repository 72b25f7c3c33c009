"""Rate and size limits (`duologue.web.limits`): the buckets, the middleware, and (once wired) the platform.

The limiter's clock is injected, so no test sleeps. The properties: over any window a key never
gets more than `burst + rate * window` actions, a key that keeps to the rate is never refused,
and keys never share a bucket.
"""

from __future__ import annotations

import json

import pytest
from fastapi import Depends, FastAPI, WebSocket, WebSocketDisconnect
from fastapi.testclient import TestClient
from hypothesis import given, settings
from hypothesis import strategies as st

from duologue.web.limits import WEBSOCKET_MESSAGE_TOO_BIG, WEBSOCKET_TRY_AGAIN_LATER, LimitsMiddleware, MoveLimit, RateLimited, RateLimiter, client_address, frame_size, limit_moves
from duologue.web.settings import Settings
from duologue.web.study import Partner, Study
from duologue.web.app import create_app
from web.conftest import fast_settings, fast_studies
from web.webtest_helpers import pair_two


class FakeClock:
    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


# ---------------------------------------------------------------------- the buckets


def test_a_burst_then_the_rate():
    clock = FakeClock()
    limiter = RateLimiter(rate=2.0, burst=3, clock=clock)
    assert [limiter.allow("a") for _ in range(4)] == [True, True, True, False]
    assert limiter.retry_after("a") == pytest.approx(0.5)
    clock.advance(0.49)
    assert not limiter.allow("a")
    clock.advance(0.01)
    assert limiter.allow("a") and not limiter.allow("a")
    assert limiter.allow("b"), "another key has its own bucket"


def test_refused_actions_cost_nothing_and_a_clock_stepping_back_mints_nothing():
    clock = FakeClock()
    limiter = RateLimiter(rate=1.0, burst=1, clock=clock)
    assert limiter.allow("a")
    for _ in range(50):
        assert not limiter.allow("a")
    clock.advance(1.0)
    assert limiter.allow("a")
    clock.advance(-100.0)
    assert not limiter.allow("a")


def test_memory_stays_bounded():
    clock = FakeClock()
    limiter = RateLimiter(rate=1.0, burst=2, clock=clock, max_keys=100)
    for i in range(1000):
        limiter.allow(f"address-{i}")
    assert len(limiter) == 100
    clock.advance(2.0)  # every bucket full again: nothing worth keeping
    limiter.allow("late")
    assert len(limiter) == 1


@pytest.mark.parametrize("rate, burst", [(0, 1), (-1, 1), (float("nan"), 1), (float("inf"), 1), (1, 0)])
def test_nonsense_limits_are_refused(rate, burst):
    with pytest.raises(ValueError):
        RateLimiter(rate=rate, burst=burst)


STEPS = st.lists(st.tuples(st.floats(0, 3, allow_nan=False), st.sampled_from("abc")), min_size=1, max_size=80)


@settings(max_examples=300, deadline=None)
@given(rate=st.floats(0.1, 20), burst=st.integers(1, 8), steps=STEPS)
def test_no_key_ever_gets_more_than_burst_plus_rate_times_the_window(rate, burst, steps):
    clock = FakeClock()
    limiter = RateLimiter(rate=rate, burst=burst, clock=clock)
    allowed: dict[str, list[float]] = {}
    for wait, key in steps:
        clock.advance(wait)
        if limiter.allow(key):
            allowed.setdefault(key, []).append(clock.now)
    for times in allowed.values():
        for i in range(len(times)):
            for j in range(i, len(times)):
                assert j - i + 1 <= burst + rate * (times[j] - times[i]) + 1e-6


@settings(max_examples=200, deadline=None)
@given(rate=st.floats(0.1, 20), burst=st.integers(1, 8), count=st.integers(1, 60), slack=st.floats(1.0, 3.0))
def test_a_key_that_keeps_to_the_rate_is_never_refused(rate, burst, count, slack):
    clock = FakeClock()
    limiter = RateLimiter(rate=rate, burst=burst, clock=clock)
    for _ in range(count):
        assert limiter.allow("calm")
        clock.advance(slack / rate)


def test_move_limit_says_how_long_to_wait():
    clock = FakeClock()
    limit = MoveLimit(moves_per_second=1.0, burst=2, clock=clock)
    limit.check("seat")
    limit.check("seat")
    with pytest.raises(RateLimited) as refused:
        limit.check("seat")
    assert refused.value.retry_after == pytest.approx(1.0)
    assert "too many moves" in str(refused.value)


def test_frame_size_counts_utf8_bytes_and_client_address_trusts_proxies_only_when_told():
    assert frame_size({"type": "websocket.receive", "text": "abc"}) == 3
    assert frame_size({"type": "websocket.receive", "text": "é"}) == 2
    assert frame_size({"type": "websocket.receive", "bytes": b"\x00" * 7}) == 7
    scope = {"client": ("10.0.0.1", 5000), "headers": [(b"x-forwarded-for", b"203.0.113.9, 10.0.0.1")]}
    assert client_address(scope) == "10.0.0.1"
    assert client_address(scope, trust_forwarded_for=True) == "203.0.113.9"
    assert client_address({"headers": []}) == "unknown"


# ---------------------------------------------------------------------- the middleware on a small app


def small_app(clock: FakeClock, **limits) -> FastAPI:
    app = FastAPI()
    app.state.move_limit = MoveLimit(moves_per_second=1.0, burst=2, clock=clock)

    @app.get("/api/ping")
    async def ping() -> dict:
        return {"ok": True}

    @app.get("/healthz")
    async def health() -> dict:
        return {"status": "ok"}

    @app.post("/api/chat/{token}/moves", dependencies=[Depends(limit_moves)])
    async def move(token: str) -> dict:
        return {"ok": True}

    @app.websocket("/ws")
    async def echo(websocket: WebSocket) -> None:
        await websocket.accept()
        try:
            while True:
                await websocket.send_text(await websocket.receive_text())
        except WebSocketDisconnect:
            pass

    app.add_middleware(LimitsMiddleware, clock=clock, **limits)
    return app


def test_requests_over_the_rate_get_429_with_retry_after_per_address():
    clock = FakeClock()
    client = TestClient(small_app(clock, requests_per_second=1.0, burst=3, trust_forwarded_for=True))
    assert [client.get("/api/ping").status_code for _ in range(4)] == [200, 200, 200, 429]
    refused = client.get("/api/ping")
    assert refused.headers["retry-after"] == "1" and "too many requests" in refused.json()["detail"]
    assert client.get("/healthz").status_code == 200, "the health check is exempt"
    assert client.get("/api/ping", headers={"X-Forwarded-For": "198.51.100.7"}).status_code == 200, "another address"
    clock.advance(1.0)
    assert client.get("/api/ping").status_code == 200


def test_the_move_dependency_answers_429_per_seat():
    clock = FakeClock()
    client = TestClient(small_app(clock, requests_per_second=100.0, burst=100))
    assert [client.post("/api/chat/seat-a/moves").status_code for _ in range(3)] == [200, 200, 429]
    assert client.post("/api/chat/seat-b/moves").status_code == 200
    refused = client.post("/api/chat/seat-a/moves")
    assert refused.headers["retry-after"] == "1" and "too many moves" in refused.json()["detail"]


def test_a_websocket_frame_over_the_limit_closes_the_socket_before_the_app_reads_it():
    client = TestClient(small_app(FakeClock(), max_frame_bytes=100))
    with client.websocket_connect("/ws") as ws:
        ws.send_text("x" * 100)
        assert ws.receive_text() == "x" * 100
        ws.send_text("é" * 51)  # 102 bytes
        closed = ws.receive()
        assert closed["type"] == "websocket.close" and closed["code"] == WEBSOCKET_MESSAGE_TOO_BIG


def test_an_address_opening_sockets_too_fast_is_refused_at_the_handshake():
    clock = FakeClock()
    client = TestClient(small_app(clock, requests_per_second=1.0, burst=3))
    for _ in range(3):
        with client.websocket_connect("/ws") as ws:
            ws.send_text("hi")
            assert ws.receive_text() == "hi"
    with pytest.raises(WebSocketDisconnect) as refused:
        with client.websocket_connect("/ws"):
            pass
    assert refused.value.code == WEBSOCKET_TRY_AGAIN_LATER
    clock.now += 1.0  # a second later the bucket holds one more
    with client.websocket_connect("/ws") as ws:
        ws.send_text("back")
        assert ws.receive_text() == "back"


# ---------------------------------------------------------------------- on the platform


def test_the_platform_app_with_the_middleware_refuses_a_flood(tmp_path):
    app = create_app(fast_settings(tmp_path), fast_studies())
    app.add_middleware(LimitsMiddleware, requests_per_second=1.0, burst=5, clock=FakeClock())
    with TestClient(app) as client:
        codes = [client.get("/api/chat/nobody/view").status_code for _ in range(7)]
        assert client.get("/static/chat.js").status_code == 200, "static files are exempt"
    assert codes == [404] * 5 + [429] * 2


def test_the_wired_platform_limits_a_seats_moves_over_http_and_websocket(make_client):
    studies = [Study(id="people", task="openchat-wow-v0", partners=[Partner(kind="human")], turn_taking="free")]
    client = make_client(studies, moves_per_second=0.001, move_burst=2, requests_per_second=1000.0, request_burst=1000)
    a, b = pair_two(client, "people")
    codes = [client.post(f"/api/chat/{a}/moves", json={"kind": "say", "text": f"hello {i}"}).status_code for i in range(3)]
    assert codes[:2] != [429, 429] and codes[2] == 429
    with client.websocket_connect(f"/ws/chat/{a}") as ws:
        ws.receive_json()
        ws.send_json({"type": "move", "action": {"kind": "say", "text": "still here"}})
        frame = ws.receive_json()
        while frame.get("type") != "error":
            frame = ws.receive_json()
        assert frame["status"] == 429


def test_a_seat_flooding_typing_and_resync_frames_reaches_neither_its_partner_nor_the_view_builder(make_client):
    """Typing over the frame limit is dropped (the partner sees a burst, not a flood); a resync or
    ping over it gets an error frame with status 429 instead of a whole state; moves keep their own limit."""
    studies = [Study(id="people", task="openchat-wow-v0", partners=[Partner(kind="human")], turn_taking="free")]
    client = make_client(studies, frames_per_second=0.001, frame_burst=3)
    a, b = pair_two(client, "people")
    with client.websocket_connect(f"/ws/chat/{a}") as flood, client.websocket_connect(f"/ws/chat/{b}") as partner:
        flood.receive_json()
        partner.receive_json()
        for _ in range(50):
            flood.send_json({"type": "typing"})
        flood.send_json({"type": "resync"})
        refused = flood.receive_json()
        while refused["type"] != "error":  # presence and the partner's own frames come too
            assert refused["type"] not in ("state", "delta"), "a resync over the limit must not rebuild the view"
            refused = flood.receive_json()
        assert refused["status"] == 429 and refused["retry_after"] > 0
        flood.send_json({"type": "move", "action": {"kind": "say", "text": "a move still goes through"}})
        seen = []
        while not any(f.get("type") in ("state", "delta") and "a move still goes through" in json.dumps(f) for f in seen):
            seen.append(partner.receive_json())
        assert sum(f["type"] == "typing" for f in seen) <= 3, [f["type"] for f in seen]


# ---------------------------------------------------------------------- secure settings, seen from outside


def admin_cookie(tmp_path) -> str:
    with TestClient(create_app(fast_settings(tmp_path), fast_studies()), base_url="https://testserver") as client:
        response = client.get("/admin", params={"token": "test-admin-token"})
        assert response.status_code == 200
        return next(c for c in response.headers.get_list("set-cookie") if c.startswith("duologue_admin="))


def test_the_admin_cookie_is_http_only_and_same_site_strict(tmp_path):
    cookie = admin_cookie(tmp_path).lower()
    assert "httponly" in cookie and "samesite=strict" in cookie


def test_the_admin_cookie_is_secure_over_https(tmp_path):
    assert "secure" in admin_cookie(tmp_path).lower().split("; ")


def test_the_admin_cookie_does_not_hold_the_token_itself(tmp_path):
    assert "test-admin-token" not in admin_cookie(tmp_path)


def test_a_short_admin_token_is_refused():
    with pytest.raises(ValueError):
        Settings(admin_token="x")


def test_pages_with_a_seat_token_in_the_url_send_no_referrer(tmp_path):
    with TestClient(create_app(fast_settings(tmp_path), fast_studies())) as client:
        response = client.get("/")
        assert response.headers.get("referrer-policy") == "no-referrer"
        assert response.headers.get("x-content-type-options") == "nosniff"

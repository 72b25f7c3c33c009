"""Bots are warmed at start: in a fresh process (nothing imported yet), the first bot reply after
a person's first message comes within 2 s of an ordinary reply; the start waits for the warm-up,
and a lobby of a study added later waits for its bots. (In Chromium: tests/web/browser/test_first_reply.py.)"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from duologue.web.study import Partner, Study
from duologue.web.warmup import warm_study

TESTS = Path(__file__).resolve().parents[1]

FRESH_PROCESS = textwrap.dedent(
    """
    import json, sys, tempfile, time
    from pathlib import Path
    from fastapi.testclient import TestClient
    from duologue.web.app import create_app
    from duologue.web.study import Partner, Study
    from web.conftest import fast_settings
    from web.webtest_helpers import join_lobby, until

    study = Study(id="bargain", task=sys.argv[1], partners=[Partner(kind="bot", agent="rule")], bot_wait_seconds=0.0, time_limit_seconds=None)
    app = create_app(fast_settings(Path(tempfile.mkdtemp()), warm_bots=True), [study])
    with TestClient(app) as client:  # the start itself waits for the warm-up
        warmer = app.state.platform.warmer
        assert warmer.seconds is not None and all(f.done() for f in warmer.warming.values())
        token = join_lobby(client, "bargain", "first-person")
        replies = []
        with client.websocket_connect(f"/ws/chat/{token}") as ws:
            state = until(ws, lambda f: f.get("type") == "state" and "say" in f["legal"])
            for text in ["Hi, is it still available? Would you take less?", "Hmm, that is still a lot for me."]:
                count = len(state["events"])
                sent = time.perf_counter()
                ws.send_json({"type": "move", "action": {"kind": "say", "text": text}})
                state = until(ws, lambda f: f.get("type") == "state" and len(f["events"]) > count + 1)
                replies.append(time.perf_counter() - sent)
                if state["done"] or "say" not in state["legal"]:
                    break
    print(json.dumps({"warm_seconds": warmer.seconds, "replies": replies}))
    """
)


@pytest.mark.parametrize("task_id", ["craigslist-v0"])
def test_the_first_bot_reply_after_a_start_is_as_fast_as_an_ordinary_one(task_id):
    done = subprocess.run([sys.executable, "-c", FRESH_PROCESS, task_id], cwd=TESTS, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    timings = json.loads(done.stdout.strip().splitlines()[-1])
    first, ordinary = timings["replies"][0], timings["replies"][-1]
    assert len(timings["replies"]) == 2 and first <= ordinary + 2.0, timings


def test_warming_plays_only_local_bots_and_never_fails_the_start():
    study = Study(id="w", task="casino-v0", partners=[Partner(kind="bot", agent="rule"), Partner(kind="bot", agent="random"), Partner(kind="bot", agent="llm:local")])
    assert warm_study(study) == ["rule", "random"]  # a remote model is never called to warm it
    broken = Study(id="b", task="casino-v0", partners=[Partner(kind="bot", agent="no-such-agent")])
    assert warm_study(broken) == []


def test_a_lobby_waits_for_its_studys_bots_before_pairing(make_client, monkeypatch):
    """A study added on a running platform is warmed in the background; nobody meets its bot cold."""
    import threading

    from web.webtest_helpers import join_lobby

    from duologue.web import warmup

    release = threading.Event()
    warmed: list[str] = []

    def slow_warm(studies):
        release.wait(30)
        warmed.extend(s.id for s in studies)
        return 0.0

    client = make_client(studies=[Study(id="people", task="casino-v0", partners=[Partner(kind="human")])], warm_bots=True)
    monkeypatch.setattr(warmup, "warm", slow_warm)
    state = client.app.state.platform
    state.add_study(Study(id="late", task="casino-v0", partners=[Partner(kind="bot", agent="rule")], bot_wait_seconds=0.0))
    timer = threading.Timer(0.5, release.set)
    timer.start()
    join_lobby(client, "late", "late-person")  # returns with a seat only after the warm-up ended
    assert warmed == ["late"]

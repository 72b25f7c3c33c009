"""A task from outside duologue plugs in with no edit to duologue: by `register` or an entry point.

The throwaway task (`tests/plugins/handshake`) brings its own move kind and event; it must pass
the conformance checker, be listed by `duologue tasks`, play in the terminal, and keep its own
events through a stored dialogue.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from duologue.core.schema import Dialogue
from duologue.tasks import TASKS, register, spec
from duologue.testing import check_task

PLUGINS = Path(__file__).parent / "plugins"


@pytest.fixture
def handshake(monkeypatch):
    monkeypatch.syspath_prepend(str(PLUGINS))
    from handshake import HandshakeTask

    task_id = register(HandshakeTask)
    yield task_id
    TASKS.pop(task_id, None)


def test_a_registered_plug_in_passes_the_checker_and_keeps_its_own_events(handshake):
    assert spec(handshake).title.startswith("Handshake")
    check_task(handshake, episodes=10)
    from duologue.agents import make_agent
    from duologue.core.episode import play_episode
    from duologue.tasks import make

    task = make(handshake)
    dialogue = play_episode(task, {p: make_agent("random", task) for p in task.party_ids}, seed=3)
    back = Dialogue.model_validate_json(dialogue.model_dump_json())
    assert [e.kind for e in back.events] == [e.kind for e in dialogue.events] and "wave" in [e.kind for e in back.events]
    assert type(back.events[-1]).__name__ == "Waved"


def entry_point_env(tmp_path: Path) -> dict[str, str]:
    """A folder on PYTHONPATH that declares the plug-in as an installed distribution would."""
    dist = tmp_path / "handshake-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: handshake\nVersion: 0.1\n", encoding="utf-8")
    (dist / "entry_points.txt").write_text("[duologue.tasks]\nhandshake-v0 = handshake:HandshakeTask\n", encoding="utf-8")
    env = dict(os.environ)
    env["COLUMNS"] = "250"
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), str(PLUGINS), env.get("PYTHONPATH", "")])
    return env


def duologue(*args: str, env: dict[str, str], input: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "duologue.cli", *args], env=env, input=input, capture_output=True, text=True, timeout=300)


def test_an_entry_point_plug_in_is_listed_and_plays_in_the_terminal(tmp_path: Path):
    env = entry_point_env(tmp_path)
    listed = duologue("tasks", env=env)
    assert listed.returncode == 0, listed.stderr
    assert "handshake-v0" in listed.stdout
    out = tmp_path / "chat.jsonl"
    played = duologue("chat", "--task", "handshake-v0", "--vs", "random", "--seed", "2", "--out", str(out), env=env, input="/help\nleft?\n/wave 3\n/wave left\n" + "/wave left\n" * 5)
    assert played.returncode == 0, played.stdout + played.stderr
    assert "/wave <hand>" in played.stdout and "Wave a hand." in played.stdout, "help comes from the plug-in's schema"
    assert "choose one of left, right" in played.stdout, "a bad value is refused with the schema's own choices"
    dialogue = json.loads(out.read_text(encoding="utf-8").splitlines()[0])
    assert dialogue["task"] == "handshake" and any(e["kind"] == "wave" and e["party"] == "a" for e in dialogue["events"])


def test_a_broken_entry_point_does_not_take_the_built_in_tasks_down(tmp_path: Path):
    env = entry_point_env(tmp_path)
    (tmp_path / "handshake-0.1.dist-info" / "entry_points.txt").write_text("[duologue.tasks]\nbroken-v0 = no_such_module:Nothing\n", encoding="utf-8")
    played = duologue("play", "--task", "casino-v0", "--agents", "random", "--agents", "random", "-n", "1", "-o", str(tmp_path / "p.jsonl"), env=env)
    assert played.returncode == 0, played.stderr

"""Self-play on Ray: the same episodes as the local backend, streamed, resumable, failing loudly.

`test_ray_backend.py` runs this module in a pytest process of its own (Ray's driver library ends
its process outright when its local services die, which would take the whole suite with it); a
single case also runs directly: `pytest tests/arena/ray_backend_cases.py -k NAME`.

One local Ray instance (2 CPUs) serves the whole module. Its workers are separate processes that
import this module as `arena.ray_backend_cases` (the tests folder is on their PYTHONPATH), which is
how they find the toy agents below.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from duologue.arena import backends
from duologue.arena.backends import BackendError, failed_episode, run_episodes
from duologue.arena.selfplay import PlayConfig, episode_seed, finished_episodes, run_selfplay
from duologue.cli import app
from duologue.core.agent import RandomAgent
from duologue.core.schema import Dialogue
from toy_task import CoinSplit

TESTS = Path(__file__).resolve().parents[1]
HERE = "arena.ray_backend_cases"
"""This module's name on the Ray workers."""

FAILING_EPISODE = 5
SLOW_EPISODE = 0
SLOW_SECONDS = 8.0
OBJECT_STORE_BYTES = 128 * 2**20
"""Episodes are a few kB each: a small store keeps Ray independent of the size of /dev/shm."""


class ExplodingAgent(RandomAgent):
    """Plays randomly, but raises in one episode of a seed-0 run: an agent with a bug."""

    def act(self, observation):
        if self.task.seed == episode_seed(0, FAILING_EPISODE):
            raise ValueError("the agent's model returned nonsense")
        return super().act(observation)


class SleepyAgent(RandomAgent):
    """Plays randomly, but takes its time in one episode of a seed-0 run: a slow LLM call."""

    def reset(self, task, party, rng):
        super().reset(task, party, rng)
        if task.seed == episode_seed(0, SLOW_EPISODE):
            time.sleep(SLOW_SECONDS)


class TrickCoins(CoinSplit):
    spec = CoinSplit.spec.model_copy(update={"id": "trickcoins-v0"})
    agents = {"boom": f"{HERE}:ExplodingAgent", "sleepy": f"{HERE}:SleepyAgent"}


@dataclass(frozen=True)
class TouchJob:
    """A fake episode that leaves `N.start` and `N.done` files behind, to count what ran."""

    folder: str
    seconds: float = 0.05

    def __call__(self, number: int) -> bytes:
        Path(self.folder, f"{number}.start").touch()
        time.sleep(self.seconds)
        Path(self.folder, f"{number}.done").touch()
        return orjson.dumps({"episode": number})


@pytest.fixture(scope="module")
def ray_instance():
    ray = pytest.importorskip("ray")
    if ray.is_initialized():
        ray.shutdown()
    worker_path = os.pathsep.join(filter(None, [str(TESTS), os.environ.get("PYTHONPATH")]))
    ray.init(num_cpus=2, object_store_memory=OBJECT_STORE_BYTES, include_dashboard=False, log_to_driver=False, runtime_env={"env_vars": {"PYTHONPATH": worker_path}})
    yield ray
    ray.shutdown()


@pytest.fixture
def trick(monkeypatch):
    from duologue import tasks

    monkeypatch.setitem(tasks.TASKS, "trickcoins-v0", f"{HERE}:TrickCoins")
    return "trickcoins-v0"


def by_episode(lines) -> dict[int, dict]:
    dialogues = [Dialogue.model_validate_json(line).model_dump(mode="json") for line in lines]
    keyed = {d["meta"]["episode"]: d for d in dialogues}
    assert len(keyed) == len(dialogues), "an episode was played twice"
    return keyed


def episodes_in(out: Path) -> list[int]:
    return sorted(orjson.loads(line)["meta"]["episode"] for line in out.read_bytes().splitlines())


@pytest.mark.parametrize("task_agents", [("coins", ["random", "random"]), ("casino-v0", ["rule", "rule"])], ids=["toy", "casino-rule"])
def test_ray_plays_the_same_episodes_as_the_local_backend(ray_instance, coins, task_agents):
    task, agents = task_agents
    config = PlayConfig(task=coins if task == "coins" else task, agents=agents, episodes=16, seed=11, options={"max_turns": 12})
    local = by_episode(run_selfplay(config, workers=2))
    on_ray = by_episode(run_selfplay(config, backend="ray"))
    assert sorted(on_ray) == list(range(16))
    assert on_ray == local  # timing is a virtual clock, so whole dialogues compare equal
    assert len({d["id"] for d in on_ray.values()}) == 16
    assert ray_instance.is_initialized(), "a Ray instance the run did not start must outlive it"


OWN_RAY_SCRIPT = """
import ray
from duologue.arena.selfplay import PlayConfig, run_selfplay
config = PlayConfig(task="casino-v0", agents=["rule", "rule"], episodes=4)
lines = run_selfplay(config, backend="ray", workers=2)
next(lines)
print(int(ray.cluster_resources()["CPU"]), 1 + sum(1 for _ in lines), ray.is_initialized())
"""


def test_a_run_starts_and_stops_its_own_local_ray_with_one_cpu_per_worker():
    pytest.importorskip("ray")
    environment = {name: value for name, value in os.environ.items() if name != "RAY_ADDRESS"}
    result = subprocess.run([sys.executable, "-c", OWN_RAY_SCRIPT], capture_output=True, text=True, timeout=180, env=environment)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["2", "4", "False"]


def test_results_stream_in_finishing_order(ray_instance, trick, tmp_path: Path):
    out = tmp_path / "run.jsonl"
    config = PlayConfig(task=trick, agents=["sleepy", "random"], episodes=12, seed=0)
    start = time.perf_counter()
    run = run_selfplay(config, backend="ray", out=out)
    first = orjson.loads(next(run))
    waited = time.perf_counter() - start
    assert first["meta"]["episode"] != SLOW_EPISODE
    assert waited < SLOW_SECONDS, "the first episode waited for the slow one"
    assert episodes_in(out) == [first["meta"]["episode"]], "a finished episode is in the file before the run ends"
    rest = [orjson.loads(line)["meta"]["episode"] for line in run]
    assert rest[-1] == SLOW_EPISODE
    assert episodes_in(out) == list(range(12))


def test_an_interrupted_ray_run_resumes_and_plays_each_episode_once(ray_instance, coins, tmp_path: Path):
    out = tmp_path / "run.jsonl"
    config = PlayConfig(task=coins, agents=["random", "random"], episodes=30, seed=4)
    run = run_selfplay(config, backend="ray", out=out)
    consumed = [next(run) for _ in range(15)]
    run.close()  # Ctrl-C halfway
    time.sleep(0.5)
    assert len(out.read_bytes().splitlines()) == 15, "nothing is written after the run was stopped"
    assert finished_episodes(out, config) == {orjson.loads(line)["meta"]["episode"] for line in consumed}
    rest = list(run_selfplay(config, backend="ray", out=out))
    assert len(rest) == 15
    assert episodes_in(out) == list(range(30))
    assert by_episode(out.read_bytes().splitlines()) == by_episode(run_selfplay(config))


def test_only_a_few_tasks_are_in_flight(ray_instance, tmp_path: Path):
    run = run_episodes(TouchJob(str(tmp_path)), range(2000), backend="ray")
    next(run)
    time.sleep(1.5)  # a consumer that is slow to take lines: the workers must not run ahead
    started = len(list(tmp_path.glob("*.start")))
    run.close()
    assert started <= 2 * backends.IN_FLIGHT_PER_CPU + 2, f"{started} of 2000 episodes started for one result taken"


def test_closing_the_run_cancels_the_episodes_in_flight(ray_instance, tmp_path: Path):
    in_flight = backends.IN_FLIGHT_PER_CPU * 2
    run = run_episodes(TouchJob(str(tmp_path), seconds=2.0), range(100), backend="ray")
    next(run)  # one CPU's first episode is done; the episodes submitted after it are still running
    run.close()
    time.sleep(3.0)  # long enough for an uncancelled episode to finish
    started, done = len(list(tmp_path.glob("*.start"))), len(list(tmp_path.glob("*.done")))
    # Ray cancels best-effort (one that is being handed to a worker may still run), so the bound is
    # "not all of them": without the cancel every submitted episode finishes.
    assert done < in_flight, f"{done} of the {started} episodes submitted before the run stopped finished"
    assert started <= in_flight, "episodes were submitted after the run stopped"


@pytest.mark.parametrize("where", [{"backend": "ray"}, {"backend": "local", "workers": 2}, {"backend": "local"}], ids=["ray", "pool", "in-process"])
def test_a_failing_episode_names_its_number(ray_instance, trick, tmp_path: Path, where):
    out = tmp_path / "run.jsonl"
    config = PlayConfig(task=trick, agents=["boom", "random"], episodes=12, seed=0)
    with pytest.raises(ValueError, match="nonsense") as caught:
        list(run_selfplay(config, out=out, **where))
    assert failed_episode(caught.value) == FAILING_EPISODE
    assert f"episode {FAILING_EPISODE}" in "".join(caught.value.__notes__)
    assert FAILING_EPISODE not in episodes_in(out)


def test_play_command_on_ray_writes_resumes_and_reports_failures(ray_instance, coins, trick, tmp_path: Path):
    runner = CliRunner()
    out = tmp_path / "run.jsonl"
    result = runner.invoke(app, ["play", "--task", coins, "--agents", "random", "-n", "10", "--backend", "ray", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert episodes_in(out) == list(range(10))
    result = runner.invoke(app, ["play", "--task", coins, "--agents", "random", "-n", "14", "--backend", "ray", "--out", str(out)])
    assert result.exit_code == 0 and "resumed: 10 episode(s)" in result.stderr
    assert episodes_in(out) == list(range(14))
    result = runner.invoke(app, ["play", "--task", trick, "--agents", "boom", "--agents", "random", "-n", "8", "--backend", "ray"])
    assert result.exit_code == 1
    assert f"episode {FAILING_EPISODE} failed: ValueError" in result.stderr and "Traceback" not in result.output


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.parametrize("address", [f"127.0.0.1:{free_port()}", f"ray://127.0.0.1:{free_port()}"], ids=["gcs", "client"])
def test_a_wrong_cluster_address_is_a_clean_error(address):
    pytest.importorskip("ray")
    # A fresh process: this one may already be attached to the module's Ray instance.
    command = [sys.executable, "-c", "from duologue.cli import main; main()", "play", "--task", "casino-v0", "--agents", "rule", "-n", "2", "--backend", "ray", "--address", address]
    start = time.perf_counter()
    result = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert result.returncode == 1, result.stderr
    assert "no Ray cluster answers at" in result.stderr and address in result.stderr
    assert "Traceback" not in result.stderr
    assert time.perf_counter() - start < 60


@pytest.mark.parametrize("address", ["nonsense", "ray://", "host:port"])
def test_a_malformed_address_is_refused_before_contacting_anything(address):
    with pytest.raises(BackendError, match="is not 'auto'"):
        backends._check_reachable(address)


def test_backend_and_address_options_are_checked(coins):
    runner = CliRunner()
    result = runner.invoke(app, ["play", "--task", coins, "--agents", "random", "-n", "1", "--backend", "spark"])
    assert result.exit_code == 2 and "choose one of local, ray" in result.stderr
    result = runner.invoke(app, ["play", "--task", coins, "--agents", "random", "-n", "1", "--address", "auto"])
    assert result.exit_code == 2 and "--backend ray" in result.stderr
    with pytest.raises(BackendError, match="unknown backend"):
        run_episodes(TouchJob("."), [0], backend="spark")


def test_a_finished_run_does_not_start_ray(monkeypatch):
    def refuse(*args):
        raise AssertionError("Ray was started for a run with nothing left to play")

    monkeypatch.setattr(backends, "_connect", refuse)
    assert list(run_episodes(TouchJob("."), [], backend="ray")) == []

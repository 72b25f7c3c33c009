"""Round-robin tournaments: every ordered pair of agent specs plays a self-play run, then ratings.

Every ordered pair (A, B) of the specs is played, self-pairs included: A sits in the task's first
party slot (CraigslistBargain's buyer, CaSiNo's `mturk_agent_1`), B in the second. Seats matter
(buyer and seller want opposite things, a first mover may anchor), so A vs B and B vs A are two
pairings. Every pairing uses the same run seed, so A vs B and B vs A play the same scenarios
(episode n has the same seed in each): a paired design where luck of the draw cancels out.

Each pairing is one `run_selfplay` run. With an output folder it is written to its own jsonl
(`<task>__<A>__vs__<B>.jsonl`), so an interrupted tournament resumes: a rerun skips the episodes
already there. The dialogues of all pairings then go to `duologue.arena.ratings` for the
leaderboards, and each pairing's task metrics to `duologue.arena.report` for the pairing table.

Pairings with a local LLM (`llm:local`, a model loaded in each worker process) play on one worker;
`llm_episodes` lets them play fewer episodes than the others (they are slow on a CPU).
"""

from __future__ import annotations

import random
import re
import time
from itertools import product
from pathlib import Path
from typing import Any, Callable

import orjson
from pydantic import Field
from rich.table import Table

from duologue.agents import check_agent, declares_values
from duologue.arena.ratings import Leaderboard, ratings_from_dialogues
from duologue.arena.report import Estimate, report
from duologue.arena.selfplay import NotSelfPlayFile, PlayConfig, finished_episodes, run_selfplay
from duologue.core.schema import Dialogue, Model
from duologue.data.outputs import special_file_problem
from duologue.tasks import make
from duologue.tasks import spec as task_spec

class PairingResult(Model):
    """One ordered pairing's outcome: who sat where, what was measured, how long it took."""

    task: str
    first: str
    second: str
    episodes: int
    seconds: float
    """Seconds spent playing in this call (episodes resumed from a file cost nothing)."""
    metrics: dict[str, Estimate] = Field(default_factory=dict)
    out: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "task": self.task,
            "first": self.first,
            "second": self.second,
            "episodes": self.episodes,
            "seconds": round(self.seconds, 3),
            "metrics": {name: estimate.model_dump() for name, estimate in self.metrics.items()},
        }


class Tournament(Model):
    """A finished round-robin: its settings, each pairing's metrics and the leaderboards."""

    task: str
    agents: list[str]
    episodes: int
    seed: int
    pairings: list[PairingResult] = Field(default_factory=list)
    leaderboards: list[Leaderboard] = Field(default_factory=list)
    dialogues: list[Dialogue] = Field(default_factory=list, exclude=True)
    """Every episode played (kept out of the JSON form: it is in the output folder)."""


def pairings(agents: list[str] | tuple[str, ...]) -> list[tuple[str, str]]:
    """Every ordered pair of distinct specs (both seats, self-pairs included), in the specs' order."""
    unique = list(dict.fromkeys(agents))
    return list(product(unique, unique))


def check_agents(task_id: str, agents: list[str]) -> None:
    """Raise `UnknownNameError` (with a did-you-mean) for an unknown task or agent spec, and
    `AgentSpecError` for one that cannot play the task, before anything is played."""
    for spec in agents:
        check_agent(spec, make(task_id))


def loads_a_model(spec: str) -> bool:
    """Whether an agent loads a model into each worker process (`llm:local`), so parallel workers would each load it."""
    kind, _, argument = spec.partition(":")
    return kind == "llm" and argument.split("/")[0] == "local"


def pairing_file(out_dir: Path, task_id: str, pair: tuple[str, str]) -> Path:
    """The jsonl of one pairing in a tournament folder; specs are made safe for file names."""

    def slug(spec: str) -> str:
        return re.sub(r"[^A-Za-z0-9._-]+", "_", spec)

    return out_dir / f"{task_id}__{slug(pair[0])}__vs__{slug(pair[1])}.jsonl"


def read_pairing(out: Path, config: PlayConfig) -> list[Dialogue]:
    """The episodes of this run in `out` (one per episode number below `config.episodes`)."""
    found: dict[int, Dialogue] = {}
    if not out.exists():
        return []
    if (special := special_file_problem(out)) is not None:  # /dev/full would be read forever
        raise NotSelfPlayFile(special)
    with out.open("rb") as handle:
        for line in handle:
            try:
                record = orjson.loads(line)
            except orjson.JSONDecodeError:
                continue
            meta = record.get("meta", {}) if isinstance(record, dict) else {}
            number = meta.get("episode")
            if (
                meta.get("task_id") == config.task
                and meta.get("run_seed") == config.seed
                and list(meta.get("agents", {}).values()) == config.agents
                and isinstance(number, int)
                and number < config.episodes
                and number not in found
            ):
                found[number] = Dialogue.model_validate(record)
    return [found[n] for n in sorted(found)]


def _backend_options(backend: str, address: str | None) -> dict[str, Any]:
    """Only pass the backend keywords when they are not the defaults, so a local run works with any `run_selfplay`."""
    return {} if backend == "local" and address is None else {"backend": backend, "address": address}


def play_pairing(
    task_id: str,
    pair: tuple[str, str],
    *,
    episodes: int,
    seed: int = 0,
    workers: int = 1,
    out: Path | None = None,
    options: dict[str, Any] | None = None,
    backend: str = "local",
    address: str | None = None,
    on_episode: Callable[[Dialogue | None], None] | None = None,
) -> tuple[PairingResult, list[Dialogue]]:
    """Play one ordered pairing (resuming from `out` when given) and estimate its task metrics."""
    config = PlayConfig(task=task_id, agents=list(pair), episodes=episodes, seed=seed, options=options or {})
    start = time.perf_counter()
    lines = list(run_selfplay(config, workers=workers, out=out, on_episode=on_episode, **_backend_options(backend, address)))
    seconds = time.perf_counter() - start
    if out is not None:
        dialogues = read_pairing(out, config)
    else:
        dialogues = sorted((Dialogue.model_validate_json(line) for line in lines), key=lambda d: d.meta.get("episode", 0))
    groups = report(dialogues) if dialogues else []
    result = PairingResult(
        task=task_id,
        first=pair[0],
        second=pair[1],
        episodes=len(dialogues),
        seconds=seconds,
        metrics=groups[0].metrics if groups else {},
        out=None if out is None else str(out),
    )
    return result, dialogues


def episodes_done(out_dir: Path | None, task_id: str, agents: list[str], *, episodes: int, seed: int, llm_episodes: int | None = None, options: dict[str, Any] | None = None) -> int:
    """How many of the tournament's episodes are already in `out_dir` (for a progress bar that starts there)."""
    if out_dir is None:
        return 0
    done = 0
    for pair in pairings(agents):
        wanted = _episodes_for(pair, episodes, llm_episodes)
        config = PlayConfig(task=task_id, agents=list(pair), episodes=wanted, seed=seed, options=options or {})
        done += len([n for n in finished_episodes(pairing_file(out_dir, task_id, pair), config) if n < wanted])
    return done


def total_episodes(agents: list[str], *, episodes: int, llm_episodes: int | None = None) -> int:
    return sum(_episodes_for(pair, episodes, llm_episodes) for pair in pairings(agents))


def _episodes_for(pair: tuple[str, str], episodes: int, llm_episodes: int | None) -> int:
    return llm_episodes if llm_episodes is not None and any(loads_a_model(spec) for spec in pair) else episodes


def run_tournament(
    task_id: str,
    agents: list[str],
    *,
    episodes: int = 50,
    seed: int = 0,
    workers: int = 1,
    out_dir: Path | None = None,
    options: dict[str, Any] | None = None,
    backend: str = "local",
    address: str | None = None,
    llm_episodes: int | None = None,
    bootstrap: int = 1000,
    by_role: bool = True,
    anchor: str | None = None,
    on_episode: Callable[[Dialogue | None], None] | None = None,
    on_pairing: Callable[[tuple[str, str]], None] | None = None,
) -> Tournament:
    """Play the round-robin, then rate the agents from all its dialogues.

    `llm_episodes`: episodes for pairings with a local LLM (default: `episodes`); those pairings
    play on one worker. `on_pairing` is called before each pairing starts, `on_episode` after
    each episode played (not for episodes resumed from `out_dir`).
    """
    tournament = Tournament(task=task_id, agents=list(dict.fromkeys(agents)), episodes=episodes, seed=seed)
    everything: list[Dialogue] = []
    for pair in pairings(agents):
        if on_pairing:
            on_pairing(pair)
        heavy = any(loads_a_model(spec) for spec in pair)
        result, dialogues = play_pairing(
            task_id,
            pair,
            episodes=_episodes_for(pair, episodes, llm_episodes),
            seed=seed,
            workers=1 if heavy and backend == "local" else workers,
            out=None if out_dir is None else pairing_file(out_dir, task_id, pair),
            options=options,
            backend=backend,
            address=address,
            on_episode=on_episode,
        )
        tournament.pairings.append(result)
        everything.extend(dialogues)
    tournament.dialogues = everything
    tournament.leaderboards = ratings_from_dialogues(everything, by_role=by_role, bootstrap=bootstrap, seed=seed, anchor=anchor)
    return tournament


# --------------------------------------------------------------------------- tables


def headline_metrics(task_id: str) -> list[tuple[str, str]] | None:
    """(episode-metric name, column heading) for a task's pairing table, from its spec's metrics;
    None (show every metric) when the spec names none."""
    columns = [(metric.name, metric.label) for metric in task_spec(task_id).metrics]
    if declares_values(make(task_id)):
        columns += [(name, label) for name, label in VALUE_COLUMNS if name not in {n for n, _ in columns}]
    return columns or None


VALUE_COLUMNS = (("pareto_efficient", "Pareto share"), ("frontier_distance", "distance to frontier"), ("surplus", "surplus"))
"""Outcome-quality columns added for a task that declares values (`duologue.core.values`)."""


def seat_labels(task_id: str) -> dict[str, str]:
    """Party id -> how a seat is named in tables: the party's role where the task has roles, else its id."""
    task = make(task_id)
    parties = task.make_parties(task.generate_scenario(random.Random(0)))
    return {party.id: party.role or party.id for party in parties}


def cell(estimate: Estimate | None) -> str:
    if estimate is None:
        return "-"
    return f"{estimate.mean:.3f}\n[{estimate.low:.3f}, {estimate.high:.3f}]"


def pairing_table(task_id: str, results: list[PairingResult], caption: str | None = None) -> Table:
    """One row per pairing: the task's headline metrics (mean and 95% interval), episodes, seconds."""
    first, second = make(task_id).party_ids
    labels = seat_labels(task_id)
    columns = headline_metrics(task_id)
    if columns is None:
        names = list(dict.fromkeys(name for result in results for name in result.metrics))
        columns = [(name, name.replace("_", " ")) for name in names]
    table = Table(title=f"{task_id} tournament (mean, 95% bootstrap interval)", title_justify="left", caption=caption, caption_justify="left", show_lines=True)
    table.add_column("pairing", justify="left")
    for _, heading in columns:
        table.add_column(heading, justify="right")
    table.add_column("episodes", justify="right")
    table.add_column("seconds", justify="right")
    for result in results:
        row = f"{result.first} ({labels[first]}) vs {result.second} ({labels[second]})"
        table.add_row(row, *(cell(result.metrics.get(name)) for name, _ in columns), str(result.episodes), f"{result.seconds:.1f}")
    return table


def tournament_report(tournament: Tournament) -> Any:
    """The tournament as a `duologue.analysis.report.Report`: the leaderboards with interval figures, then the pairings."""
    from duologue.arena.ratings import add_to_report
    from duologue.analysis.report import Report

    report = Report(
        f"{tournament.task} tournament",
        subtitle=f"agents: {', '.join(tournament.agents)}; {tournament.episodes} episodes per ordered pairing (both seats, self-pairs included); seed {tournament.seed}",
    )
    compare = task_spec(tournament.task).compare
    if compare != "score":
        report.section("How parties compare").text(f"Games are won by {'surplus over the walk-away value' if compare == 'surplus' else 'score against the mean of the same role'}, as the task's spec says.")
    for board in tournament.leaderboards:
        add_to_report(report, board)
    _add_outcome_quality(report, tournament)
    first, second = make(tournament.task).party_ids
    labels = seat_labels(tournament.task)
    columns = headline_metrics(tournament.task) or [(name, name) for name in dict.fromkeys(n for r in tournament.pairings for n in r.metrics)]
    section = report.section("Pairings")
    section.text("Each pairing's task metrics: mean over its episodes and 95% bootstrap interval.")
    section.table(
        ["pairing", *(heading for _, heading in columns), "episodes"],
        [
            [f"{r.first} ({labels[first]}) vs {r.second} ({labels[second]})", *(_interval_text(r.metrics.get(name)) for name, _ in columns), r.episodes]
            for r in tournament.pairings
        ],
    )
    return report


def _add_outcome_quality(report: Any, tournament: Tournament) -> None:
    """For a task with values: each agent's outcome quality and the utility-space figure of its deals."""
    from duologue.arena.quality import add_to_report, group_figures

    task = make(tournament.task)
    if not declares_values(task) or not tournament.dialogues:
        return
    by_pairing: dict[str, list[Dialogue]] = {}
    for dialogue in tournament.dialogues:
        agents = dialogue.meta.get("agents") or {}
        by_pairing.setdefault(" vs ".join(str(a) for a in agents.values()), []).append(dialogue)
    groups = [group_figures(task, label, dialogues, seed=tournament.seed) for label, dialogues in by_pairing.items()]
    add_to_report(report, task, groups, by_pairing)


def _interval_text(estimate: Estimate | None) -> str | None:
    return None if estimate is None else f"{estimate.mean:.3f} [{estimate.low:.3f}, {estimate.high:.3f}]"

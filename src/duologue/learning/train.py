"""`duologue train policy`: REINFORCE with a baseline on the coarse-act view, against a fixed partner.

Start: the supervised act policy of the task's `modular` agent (a zero correction). Each update
plays `batch` episodes (the learner alternating seats, seeds derived from the run seed, on the
local or Ray backend), and takes one Adam step on -(R - baseline) * sum log pi(act), with the
advantage scaled by a running spread and a small L2 pull towards the supervised policy. The
baseline is a running mean of the rewards, or (`baseline="paired"`) the reward the supervised
agent got in the same game (same scenario, seat and partner) plus a running mean of the
differences: on CaSiNo, whose scenarios alone move the points by 15 or more, that is what lets a
utility policy learn to hold out; on CraigslistBargain's normalised prices it only adds noise. A
checkpoint after every update makes a run resumable; the learning curve is written as PNG and HTML.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Callable, Literal, TypedDict

import numpy as np
from pydantic import Field

from duologue import tasks
from duologue.arena.backends import run_episodes
from duologue.core.schema import Model
from duologue.modular.coarse_policy import CoarsePolicy
from duologue.learning.rewards import REWARDS
from duologue.learning.rollout import RolloutJob, read_rollout


class TrainConfig(Model):
    """One training run; the same config and seed give the same policy (on one backend and worker count)."""

    task: str
    reward: str = "utility"
    episodes: int = Field(1000, ge=1)
    partner: str = "modular"
    """The fixed partner's agent spec, or several comma-separated (drawn per episode, see `RolloutJob`)."""
    base: str = "modular"
    seed: int = 0
    batch: int = Field(20, ge=2)
    lr: float = Field(0.1, gt=0, allow_inf_nan=False)
    l2: float = 1e-3
    backend: Literal["local", "ray"] = "local"
    workers: int = Field(1, ge=1)
    address: str | None = None
    options: dict[str, Any] = Field(default_factory=dict)
    baseline: Literal["mean", "paired"] = "mean"
    """What an episode's reward is measured against: `mean`, a running mean of the rewards, or `paired`, the
    reward of the supervised agent in the same game (see `RolloutJob`; twice the play)."""
    turns: bool = True
    """The policy also sees how many turns are left: a coarse bucket, and the exact count in the last turns
    (`duologue.agents.rl.turns_features`; recorded as `turns: exact` in the policy file)."""


class CurvePoint(Model):
    episodes: int
    reward: float
    agreement: float
    own: float
    turns: float


def supervised_acts(config: TrainConfig) -> list[str]:
    """The act vocabulary of the base agent's supervised policy, plus the argument variants it offers."""
    from duologue.agents import make_agent
    from duologue.core.episode import agent_rng

    task = tasks.make(config.task, **config.options)
    task.reset(seed=config.seed)
    try:
        agent = make_agent(config.base, task)
    except KeyError as error:  # the task has no such agent kind
        raise ValueError(f"{config.task}: no {config.base!r} agent to start from ({error}); strategy learning needs a modular agent") from None
    agent.reset(task, task.party_ids[0], agent_rng(config.seed, task.party_ids[0]))
    knowledge = getattr(agent, "knowledge", None)
    if knowledge is None:
        raise ValueError(f"{config.task}: the {config.base!r} agent has no act policy to start from (a modular agent does)")
    acts = {act for counts in knowledge.policy.counts.values() for act in counts}
    variants = getattr(agent, "option_names", None)  # argument variants (`point:option`) the task's agent offers
    return sorted(acts | set(variants() if callable(variants) else ()))


def run_folder(out: Path, run_dir: Path | None = None) -> Path:
    """Where a run keeps its checkpoint and curve (default: `<out>.run/` beside the policy)."""
    return Path(run_dir) if run_dir is not None else out.with_name(out.name + ".run")


class _RunState(TypedDict):
    """Progress kept in the checkpoint so a run resumes where it stopped."""

    done: int
    baseline: float | None
    spread: float
    curve: list[dict[str, Any]]


def checkpoint_path(out: Path, run_dir: Path | None = None) -> Path:
    return run_folder(out, run_dir) / "checkpoint.pt"


def train(
    config: TrainConfig,
    out: Path,
    *,
    run_dir: Path | None = None,
    progress: Callable[[int, int, CurvePoint | None], None] | None = None,
    resume: bool = True,
) -> tuple[CoarsePolicy, list[CurvePoint]]:
    """Train and write `out` (the policy); the checkpoint and the curve (`curve.png`, `curve.html`)
    go to `run_dir`. Returns the policy and its curve."""
    import torch

    if config.reward not in REWARDS:
        raise ValueError(f"unknown reward {config.reward!r}: choose one of {', '.join(REWARDS)}")
    torch.manual_seed(config.seed)
    meta = {"task": config.task, "base": config.base, "reward": config.reward, "partner": config.partner, "seed": config.seed, "turns": "exact" if config.turns else False,
            "baseline": config.baseline, "batch": config.batch, "lr": config.lr}
    ckpt = checkpoint_path(out, run_dir)
    ckpt.parent.mkdir(parents=True, exist_ok=True)
    saved = torch.load(ckpt, weights_only=False) if resume and ckpt.exists() else None
    policy = CoarsePolicy.fresh(saved["acts"] if saved is not None and "acts" in saved else supervised_acts(config), **meta)
    weights = torch.zeros(policy.weights.shape, requires_grad=True)
    bias = torch.zeros(policy.bias.shape, requires_grad=True)
    optimizer = torch.optim.Adam([weights, bias], lr=config.lr)
    state: _RunState = {"done": 0, "baseline": None, "spread": 1.0, "curve": []}
    if saved is not None:
        if {**saved["config"], "episodes": 0} != {**config.model_dump(), "episodes": 0}:  # more or fewer episodes: the same run
            raise ValueError(f"{ckpt} belongs to another run ({saved['config']}); remove it or pass another --out")
        with torch.no_grad():
            weights.copy_(saved["weights"])
            bias.copy_(saved["bias"])
        optimizer.load_state_dict(saved["optimizer"])
        state = saved["state"]
    curve = [CurvePoint(**p) for p in state["curve"]]
    if progress:
        progress(state["done"], config.episodes, curve[-1] if curve else None)
    while state["done"] < config.episodes:
        numbers = list(range(state["done"], min(state["done"] + config.batch, config.episodes)))
        job = RolloutJob(
            task=config.task, reward=config.reward, partner=config.partner, run_seed=config.seed, acts=tuple(policy.acts),
            weights=weights.detach().numpy().copy(), bias=bias.detach().numpy().copy(), meta=meta, options=config.options,
            task_registry={k: v for k, v in tasks.TASKS.items() if isinstance(v, str)}, baseline=config.baseline, base=config.base,
        )
        rollouts = sorted((read_rollout(line) for line in run_episodes(job, numbers, backend=config.backend, workers=config.workers, address=config.address)), key=lambda r: r["number"])  # type: ignore[arg-type]
        rewards = np.array([r["reward"] for r in rollouts], dtype=np.float64)
        values = rewards - np.array([r["reference"] for r in rollouts], dtype=np.float64) if config.baseline == "paired" else rewards
        baseline = float(values.mean()) if state["baseline"] is None else state["baseline"]
        spread = max(float(values.std()), 1e-3) if state["baseline"] is None else state["spread"]
        optimizer.zero_grad()
        loss = torch.zeros(())
        for rollout, value in zip(rollouts, values, strict=True):
            if rollout["decisions"]:
                loss = loss - (value - baseline) / spread * policy.torch_logp(rollout["decisions"], weights, bias)
        loss = loss / len(rollouts) + config.l2 * (weights.pow(2).sum() + bias.pow(2).sum())
        loss.backward()
        optimizer.step()
        state["baseline"] = 0.8 * baseline + 0.2 * float(values.mean())
        state["spread"] = 0.8 * spread + 0.2 * max(float(values.std()), 1e-3)
        state["done"] = numbers[-1] + 1
        point = CurvePoint(
            episodes=state["done"], reward=float(rewards.mean()), agreement=float(np.mean([r["agreed"] for r in rollouts])),
            own=float(np.mean([r["own"] for r in rollouts])), turns=float(np.mean([r["turns"] or 0 for r in rollouts])),
        )
        curve.append(point)
        state["curve"] = [p.model_dump() for p in curve]
        policy = CoarsePolicy(policy.acts, weights.detach().numpy().copy(), bias.detach().numpy().copy(), {**meta, "episodes": state["done"]})
        out.parent.mkdir(parents=True, exist_ok=True)
        torch.save({"config": config.model_dump(), "acts": policy.acts, "weights": weights.detach().clone(), "bias": bias.detach().clone(), "optimizer": optimizer.state_dict(), "state": state}, ckpt)
        if progress:
            progress(state["done"], config.episodes, point)
    policy = CoarsePolicy(policy.acts, weights.detach().numpy().copy(), bias.detach().numpy().copy(), {**meta, "episodes": state["done"]})
    policy.save(out)
    write_curve(curve, ckpt.parent, title=f"{config.task}: reward {config.reward} against {config.partner}")
    return policy, curve


def smooth(values: list[float], window: int = 5) -> list[float]:
    return [float(np.mean(values[max(0, i - window + 1) : i + 1])) for i in range(len(values))]


def write_curve(curve: list[CurvePoint], folder: Path, *, title: str) -> tuple[Path, Path]:
    """The learning curve as `curve.png` and `curve.html` (the PNG inline, and the numbers) in `folder`."""
    import base64
    import html

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    png = folder / "curve.png"
    page = folder / "curve.html"
    x = [p.episodes for p in curve]
    figure, axes = plt.subplots(1, 3, figsize=(12, 3.2))
    for ax, name in zip(axes, ("reward", "agreement", "turns"), strict=True):
        values = [getattr(p, name) for p in curve]
        ax.plot(x, values, alpha=0.35, color="tab:blue")
        ax.plot(x, smooth(values), color="tab:blue")
        ax.set_title(name)
        ax.set_xlabel("episodes")
    figure.suptitle(title)
    figure.tight_layout()
    figure.savefig(png, dpi=80)
    plt.close(figure)
    encoded = base64.b64encode(png.read_bytes()).decode()
    rows = "".join(
        f"<tr><td>{p.episodes}</td><td>{p.reward:.3f}</td><td>{p.agreement:.2f}</td><td>{p.own:.3f}</td><td>{p.turns:.1f}</td></tr>" for p in curve
    )
    page.write_text(
        f"<!doctype html><meta charset=utf-8><title>{html.escape(title)}</title><h1>{html.escape(title)}</h1>"
        f"<img alt='learning curve' src='data:image/png;base64,{encoded}'>"
        f"<table><tr><th>episodes</th><th>mean reward</th><th>agreement</th><th>own score</th><th>moves</th></tr>{rows}</table>",
        encoding="utf-8",
    )
    return png, page


def summary(curve: list[CurvePoint], last: int = 5) -> dict[str, float]:
    """Mean figures over the first and the last `last` updates (what training changed)."""
    if not curve:
        return {}
    head, tail = curve[:last], curve[-last:]
    out: dict[str, float] = {}
    for name in ("reward", "agreement", "own", "turns"):
        out[f"{name}_first"] = float(np.mean([getattr(p, name) for p in head]))
        out[f"{name}_last"] = float(np.mean([getattr(p, name) for p in tail]))
    return {k: (v if math.isfinite(v) else 0.0) for k, v in out.items()}

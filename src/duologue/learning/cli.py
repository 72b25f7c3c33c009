"""`duologue train policy`: the command around `duologue.learning.train` (progress bars, errors, summary)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from duologue.terminal import errors


def train_policy_command(
    task: Annotated[str, typer.Option(help="Task id whose modular agent's act policy to improve.")],
    reward: Annotated[str, typer.Option(help="utility, fairness, length or joint (CoCoA's rewards; no deal: -0.5).")] = "utility",
    episodes: Annotated[int, typer.Option(help="Self-play episodes to train on.")] = 400,
    out: Annotated[Optional[Path], typer.Option("--out", "-o", help="Policy file to write (.npz); default: the shipped policy of this task and reward.")] = None,
    partner: Annotated[str, typer.Option(help="The fixed partner's agent spec, or several comma-separated (modular,rule): one drawn per episode from the run seed.")] = "modular",
    seed: Annotated[int, typer.Option(help="Run seed; the defaults reproduce the shipped policies.")] = 0,
    batch: Annotated[int, typer.Option(help="Episodes per policy-gradient update.")] = 20,
    lr: Annotated[float, typer.Option(help="Adam step size.")] = 0.1,
    backend: Annotated[str, typer.Option(help="Where rollouts run: local or ray.")] = "local",
    workers: Annotated[int, typer.Option(help="Parallel rollout workers.")] = 1,
    address: Annotated[Optional[str], typer.Option(help="Ray cluster address (with --backend ray).")] = None,
    run_dir: Annotated[Optional[Path], typer.Option("--run-dir", help="Folder for the checkpoint and the learning curve; default: runs/<task>-<reward>.")] = None,
    fresh: Annotated[bool, typer.Option("--fresh", help="Ignore an existing checkpoint and start over.")] = False,
    baseline: Annotated[str, typer.Option(help="mean (a running mean of the rewards) or paired (the supervised agent's reward in the same game: less noise where the scenario alone decides much of the score).")] = "mean",
    turns: Annotated[bool, typer.Option("--turns/--no-turns", help="Let the policy see a coarse count of the turns left (--no-turns: the context of the base agent only).")] = True,
) -> None:
    """Improve the supervised act policy by policy gradient in self-play (He et al. 2018's RL stage); resumable."""
    try:
        import torch  # noqa: F401

        from duologue.learning.train import TrainConfig, checkpoint_path, summary, train
    except ImportError as error:
        errors.print(f"[red]training needs torch, gymnasium and pettingzoo (pip install 'duologue[rl]'): {error}[/]")
        raise typer.Exit(2) from None
    from pydantic import ValidationError

    from duologue import tasks
    from duologue.arena.backends import BackendError
    from duologue.tasks import UnknownNameError

    try:
        tasks.spec(task)
        config = TrainConfig(task=task, reward=reward, episodes=episodes, partner=partner, seed=seed, batch=batch, lr=lr, backend=backend, workers=workers, address=address, turns=turns, baseline=baseline)  # type: ignore[arg-type]
    except UnknownNameError as error:
        errors.print(f"[red]{error}[/]")
        raise typer.Exit(2) from None
    except ValidationError as error:  # said per option, without pydantic's links
        errors.print("[red]" + "; ".join(f"--{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in error.errors()) + "[/]")
        raise typer.Exit(2) from None
    from duologue.agents import AgentSpecError, check_agent

    try:
        check_agent(partner, tasks.make(task))  # before any episode: the partner is played from the first one
    except (UnknownNameError, AgentSpecError) as error:
        errors.print(f"[red]--partner: {error}[/]")
        raise typer.Exit(2) from None
    target = out or Path(__file__).parent / "policies" / task / f"{reward}.npz"
    folder = run_dir or Path("runs") / f"{task}-{reward}"
    from duologue.data.outputs import output_problem

    problem = output_problem(target, suffixes=(".npz",)) or output_problem(folder, folder=True)
    if problem is not None:  # before training, which would be lost
        errors.print(f"[red]{problem}[/]")
        raise typer.Exit(2)
    if fresh and checkpoint_path(target, folder).exists():
        checkpoint_path(target, folder).unlink()
    columns = (SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), TimeRemainingColumn())
    with Progress(*columns, console=errors) as progress:
        bar = progress.add_task(f"{task} {reward}: starting", total=episodes)

        def advance(done: int, total: int, point) -> None:
            said = f" reward {point.reward:+.3f}, agreement {point.agreement:.2f}, {point.turns:.1f} moves" if point is not None else ""
            progress.update(bar, completed=done, total=total, description=f"{task} {reward}:{said}")

        try:
            _, curve = train(config, target, run_dir=folder, progress=advance)
        except (ValueError, BackendError) as error:
            errors.print(f"[red]{error}[/]")
            raise typer.Exit(2) from None
    figures = summary(curve)
    errors.print(
        f"[green]wrote {target} ({target.stat().st_size} bytes), checkpoint and curve in {folder}/ (curve.png, curve.html)[/]\n"
        f"first updates: reward {figures.get('reward_first', 0):+.3f}, agreement {figures.get('agreement_first', 0):.2f}, {figures.get('turns_first', 0):.1f} moves; "
        f"last updates: reward {figures.get('reward_last', 0):+.3f}, agreement {figures.get('agreement_last', 0):.2f}, {figures.get('turns_last', 0):.1f} moves"
    )

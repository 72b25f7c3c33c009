"""`duologue judge PATH --people`: the judge predicts each person's own answers; its agreement with them per question."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

import typer
from rich.markup import escape
from rich.table import Table
from duologue.terminal import console, fail




def _cell(figure: Any) -> str:
    if figure is None:
        return "n/a"
    if figure.low is None or figure.high is None:
        return f"{figure.value:.2f}"
    return f"{figure.value:.2f} [{figure.low:.2f}, {figure.high:.2f}]"


def people_table(results: list[Any], title: str) -> Table:
    table = Table(title=title, title_justify="left")
    for column in ("question", "n", "no answer", "rho judge~person", "alpha (ordinal)", "exact", "distance", "majority exact", "majority distance"):
        table.add_column(column, justify="left" if column == "question" else "right", no_wrap=column == "question")
    for r in results:
        majority = ["n/a" if v is None else f"{v:.2f}" for v in (r.majority_exact, r.majority_distance)]
        table.add_row(r.criterion, str(r.pairs), str(r.unanswered), _cell(r.spearman), _cell(r.alpha), _cell(r.exact), _cell(r.distance), *majority)
    return table


def judge_people(
    dialogues: list[Any], corpus: str, wanted: list[str] | None, *, client: Callable[[], Any], judge_id: str | None, mode: str, attempts: int,
    reason_chars: int, bootstrap: int, as_json: bool, out: Path | None,
) -> None:
    """Predict the people's own answers with the judge and print its agreement with them per question."""
    from dataclasses import asdict

    from duologue.arena.replay import ReplayError, task_for
    from duologue.data.io import write_dialogues
    from duologue.evaluation.judge import Judge
    from duologue.evaluation.judge_people import judge_parties, party_items, people_agreement
    from duologue.llm.settings import LLMError

    if not dialogues:
        raise fail("no dialogues to judge", 2)
    try:
        task_id = task_for(dialogues[0], corpus)
    except ReplayError as error:
        raise fail(f"--people: {error}", 2) from None
    items = [item for item in party_items(task_id) if wanted is None or item.name in wanted]
    if not items:
        known = ", ".join(item.name for item in party_items(task_id)) or "none"
        raise fail(f"--people: {task_id}'s party questionnaire has no such five-point question (its questions: {known})", 2)
    judged = []
    try:
        judge = Judge(client(), items=items, judge_id=judge_id, mode=mode, attempts=attempts, reason_chars=reason_chars)  # type: ignore[arg-type]
        for dialogue in judge_parties(dialogues, judge):
            judged.append(dialogue)
    except LLMError as error:
        raise fail(str(error), 1) from None
    if out is not None:
        write_dialogues(judged, out)
    results = [people_agreement(judged, item.name, judge_id=judge.judge_id, bootstrap=bootstrap) for item in items]
    if as_json:
        typer.echo(json.dumps({"judge": judge.judge_id, "task": task_id, "dialogues": len(judged), "agreement": [asdict(r) for r in results]}, default=float))
        return
    wide = console  # wide off a terminal already (duologue.core.terminal.CliConsole)
    wide.print(people_table(results, f"{judge.judge_id} predicting {len(judged)} dialogues' people's own answers ({task_id}; 95% bootstrap intervals)"))
    for result in results:
        for note in result.notes:
            console.print(f"[dim]{result.criterion}: {escape(note)}[/]", highlight=False)

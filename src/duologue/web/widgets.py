"""What the chat page needs to know about a task, from its spec: title, words for its score, and
the URL of its optional page widget (a script under the task's own `static/`, see `routers.tasks`)."""

from __future__ import annotations

import re
from typing import Any

from duologue.core.spec import TaskSpec

ASSET_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,80}\.(js|css)$")
"""A file a task may serve from its `static/` folder: a plain name (no folders), script or style."""


def task_spec_of(task: Any) -> TaskSpec | None:
    """The spec of a task instance or class (None for a task written without one)."""
    found = getattr(task, "spec", None)
    return found if isinstance(found, TaskSpec) else None


def widget_url(task_spec: TaskSpec | None) -> str | None:
    if task_spec is None or not task_spec.widget or not ASSET_NAME.match(task_spec.widget):
        return None
    return f"/tasks/{task_spec.id}/static/{task_spec.widget}"


def page_info(task_spec: TaskSpec | None) -> dict[str, Any]:
    """The spec's facts a party's view carries (the same for both parties)."""
    if task_spec is None:
        return {"score_label": None, "widget": None}
    return {"score_label": task_spec.score if task_spec.scored else None, "widget": widget_url(task_spec)}

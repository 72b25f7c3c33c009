"""A task's own page files (its widget script), read through its spec from the task's package.

Only files named by a plain name ending `.js` or `.css` under the task's `static/` are served;
anything else is 404. Generic code never names the task: the spec says where its files live.
"""

from __future__ import annotations

from fastapi import APIRouter, HTTPException
from fastapi.responses import Response

from duologue.tasks import UnknownNameError, spec
from duologue.web.widgets import ASSET_NAME

router = APIRouter(tags=["tasks"])

MEDIA_TYPES = {"js": "text/javascript; charset=utf-8", "css": "text/css; charset=utf-8"}


@router.get("/tasks/{task_id}/static/{name}", include_in_schema=False)
async def task_asset(task_id: str, name: str) -> Response:
    """A script or style the task ships in its `static/` folder (its page widget)."""
    if not ASSET_NAME.match(name):
        raise HTTPException(404, "no such file")
    try:
        task_spec = spec(task_id)
    except (UnknownNameError, AttributeError):  # not registered, or written without a spec
        raise HTTPException(404, "no such task") from None
    text = task_spec.read_resource("static", name)
    if text is None:
        raise HTTPException(404, f"task {task_id} has no file {name}")
    return Response(text, media_type=MEDIA_TYPES[name.rsplit(".", 1)[1]], headers={"Cache-Control": "no-cache"})

"""What every router needs from the platform, without importing the app that mounts the routers:
the `Platform` state on `app.state.platform`, the participant id from a crowd platform's link, and
pages rendered from the templates. `duologue.web.app` builds the platform; the routers
(`duologue.web.routers`) take it from here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fastapi import HTTPException, Request
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates

from duologue.web.hub import LiveHub
from duologue.web.matchmaker import Matchmaker
from duologue.web.settings import Settings
from duologue.web.storage import Storage
from duologue.web.study import Study

if TYPE_CHECKING:
    from duologue.web.warmup import BotWarmer

HERE = Path(__file__).parent
templates = Jinja2Templates(directory=str(HERE / "templates"))

PARTICIPANT_ID = re.compile(r"^[A-Za-z0-9_.@:-]{1,100}$")
PARTICIPANT_PARAMS = ("participant", "PROLIFIC_PID", "workerId", "participant_id", "worker_id")
"""Query parameters crowd platforms use for the participant's id (Prolific, MTurk, our own)."""


@dataclass
class Platform:
    """Everything a request handler needs, kept on `app.state.platform`."""

    settings: Settings
    storage: Storage
    studies: dict[str, Study]
    hub: LiveHub
    matchmaker: Matchmaker
    warmer: "BotWarmer | None" = None
    """The bots' warm-up (`duologue.web.warmup`): the start waits for it; a lobby waits for its study's."""

    def study(self, study_id: str) -> Study:
        study = self.studies.get(study_id)
        if study is None:
            raise HTTPException(404, f"no study {study_id!r}; studies: {', '.join(self.studies)}")
        return study

    def add_study(self, study: Study) -> None:
        self.studies[study.id] = study
        self.matchmaker.pools.pop(study.id, None)
        self.storage.save_study(study.id, study.model_dump(mode="json"))
        if self.warmer is not None:  # its lobby waits for these bots before pairing anyone
            self.warmer.start([study])

    async def bots_ready(self, study_id: str) -> None:
        """Until the study's bots are warm: nobody is paired with a cold bot."""
        if self.warmer is not None:
            await self.warmer.ready(study_id)


def platform(request: Request) -> Platform:
    state: Platform = request.app.state.platform
    return state


def participant_from(request: Request) -> str | None:
    """The participant id from whichever crowd-platform query parameter is present."""
    for name in PARTICIPANT_PARAMS:
        value = request.query_params.get(name)
        if value:
            if not PARTICIPANT_ID.match(value):
                raise HTTPException(422, f"{name}: a participant id is 1-100 letters, digits or _.@:- characters")
            return value
    return None


def page(request: Request, name: str, context: dict[str, Any] | None = None, status_code: int = 200) -> HTMLResponse:
    return templates.TemplateResponse(request, name, context or {}, status_code=status_code)

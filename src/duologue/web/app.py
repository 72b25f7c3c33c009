"""The app factory: `create_app()` wires settings, storage, studies, live dialogues and routers.

`duologue serve` runs it with uvicorn; tests build their own app with a temporary database.
With `--workers N`, uvicorn imports `create_app_from_env` in each worker process (settings come from
`DUOLOGUE_*` environment variables) and the workers cooperate through Redis and PostgreSQL
(`duologue.web.cluster`).
"""

from __future__ import annotations

import logging
from contextlib import asynccontextmanager
from typing import Any, AsyncIterator

from fastapi import FastAPI, HTTPException, Request
from fastapi.staticfiles import StaticFiles
from pydantic import ValidationError
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from duologue.web import slow_clients
from duologue.web.cluster import ClusterUnavailable
from duologue.web.limits import LimitsMiddleware, MoveLimit, RateLimiter
from duologue.web.hub import LiveHub
from duologue.web.matchmaker import Matchmaker
from duologue.web.replay import ReplayMismatch
from duologue.web.settings import Settings
from duologue.web.collector import Collector
from duologue.web.storage import Storage, StorageUnavailable
from duologue.web.study import Study, default_studies, load_studies
from duologue.web.deps import HERE, Platform, templates
from duologue.web.routers import admin, chat, lobby, protocol, questionnaires, ratings, tasks

log = logging.getLogger(__name__)


SECURITY_HEADERS = [
    (b"referrer-policy", b"no-referrer"),  # seat tokens live in /chat/{token}: never send them on in a Referer
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),  # no page of a study may be framed by another site
    # scripts, styles and sockets only from the platform itself: no inline script, no other site;
    # forms post only here, and to MTurk (an MTurk study's code page posts the code back to it)
    (b"content-security-policy", b"default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self' https://www.mturk.com https://workersandbox.mturk.com; frame-ancestors 'none'"),
]
PRIVATE_PATHS = ("/chat/", "/questionnaire/", "/api/chat/", "/api/questionnaire/", "/rate", "/study/", "/protocol/", "/waiting-code/")
"""Pages that show one person's seat, answers (the protocol's surveys too) or completion code:
never kept by a browser or proxy cache."""
NO_STORE = [(b"cache-control", b"no-store")]


class SecurityHeaders:
    """Adds `SECURITY_HEADERS` to every HTTP response (plain ASGI, so websockets pass untouched)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        private = scope.get("path", "").startswith(PRIVATE_PATHS)

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [h for h in message.get("headers", []) if not (private and h[0].lower() == b"cache-control")]
                message["headers"] = headers + SECURITY_HEADERS + (NO_STORE if private else [])
            await send(message)

        await self.app(scope, receive, with_headers)


REFUSAL_SCHEMA = {
    "title": "Refusal",
    "type": "object",
    "properties": {"detail": {"type": "string", "title": "Detail", "description": "What is wrong, in words."}},
    "required": ["detail"],
}


def describe_refusals(app: FastAPI) -> None:
    """Declare the platform's own 422s in the OpenAPI description.

    FastAPI documents a 422 only as its request-validation list; the platform also refuses a body
    that parses but is no valid move or answer, with a sentence in `detail`. Both shapes are declared
    so clients generated from the description (and the API fuzz test) expect what they get.
    """
    produce = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is not None:
            return app.openapi_schema
        schema = produce()
        schema.setdefault("components", {}).setdefault("schemas", {})["Refusal"] = REFUSAL_SCHEMA
        for operations in schema.get("paths", {}).values():
            for operation in operations.values():
                declared = operation.get("responses", {}).get("422", {}).get("content", {}).get("application/json")
                if declared is not None:
                    declared["schema"] = {"anyOf": [declared["schema"], {"$ref": "#/components/schemas/Refusal"}]}
        app.openapi_schema = schema
        return schema

    app.openapi = openapi  # type: ignore[method-assign]


def create_app(settings: Settings | None = None, studies: list[Study] | None = None) -> FastAPI:
    """A ready app. Studies: given, else `settings.study`'s file, else one default study per task."""
    settings = settings or Settings()
    slow_clients.configure(settings.header_timeout_seconds)  # the HTTP protocol `duologue serve` runs
    if studies is None:
        studies = load_studies(settings.study) if settings.study else default_studies()
    storage = Storage(settings.database_url, threads=settings.storage_threads)
    known = {s.id: s for s in studies}
    for saved in storage.studies():  # studies added on the admin page earlier
        try:
            study = Study.model_validate(saved)
        except ValidationError:  # saved by an older version: the study file still has it
            continue
        known.setdefault(study.id, study)
    hub = LiveHub(storage, settings, known)
    matchmaker = Matchmaker(known, storage, hub)
    state = Platform(settings, storage, known, hub, matchmaker)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if settings.redis_url:  # several workers: live dialogues belong to all of them, none is interrupted
            await hub.join_cluster(settings.redis_url)
        else:
            hub.mark_interrupted()
        if settings.warm_bots:  # ready only with warm bots: the first reply after a start as fast as any other
            from duologue.web.warmup import BotWarmer, show_progress

            show_progress()
            state.warmer = BotWarmer()
            state.warmer.start(state.studies.values())
            await state.warmer.wait_all()
        collector = Collector(settings.gc_full_seconds) if settings.gc_full_seconds else None
        if collector is not None:  # full collections on a timer, not whenever the heap grows
            collector.start()
        yield
        if collector is not None:
            await collector.stop()
        if state.warmer is not None:
            state.warmer.close()
        await matchmaker.close()
        await hub.close()
        storage.close()

    app = FastAPI(title="duologue", lifespan=lifespan, docs_url="/api/docs", redoc_url=None)
    app.state.platform = state
    describe_refusals(app)
    app.state.move_limit = MoveLimit(settings.moves_per_second, settings.move_burst)
    app.state.frame_limit = RateLimiter(settings.frames_per_second, settings.frame_burst)
    app.add_middleware(
        LimitsMiddleware,
        requests_per_second=settings.requests_per_second,
        burst=settings.request_burst,
        max_frame_bytes=settings.max_frame_bytes,
        trust_forwarded_for=settings.trust_forwarded_for,
    )
    app.add_middleware(SecurityHeaders)
    app.mount("/static", StaticFiles(directory=str(HERE / "static")), name="static")

    for module in (lobby, protocol, chat, questionnaires, ratings, admin, tasks):
        app.include_router(module.router)

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, error: HTTPException) -> Response:
        """JSON for the API, a readable page for people."""
        from fastapi.responses import JSONResponse

        if request.url.path.startswith(("/api", "/admin/api")) or "application/json" in request.headers.get("accept", "") or request.method != "GET":
            return JSONResponse({"detail": error.detail}, status_code=error.status_code, headers=getattr(error, "headers", None))
        return templates.TemplateResponse(request, "error.html", {"status": error.status_code, "detail": error.detail}, status_code=error.status_code)

    @app.exception_handler(ReplayMismatch)
    async def not_rebuilt(request: Request, error: Exception) -> Response:
        """This worker cannot rebuild a dialogue from its stored events: 503 (another worker, or a
        fixed task, may), never a stack trace nor a view of a stale engine."""
        from fastapi.responses import JSONResponse

        log.error("%s %s refused: the stored events do not replay: %s", request.method, request.url.path, error)
        return JSONResponse({"detail": "this dialogue cannot be brought up to date here; please try again in a moment"}, status_code=503, headers={"Retry-After": "5"})

    @app.exception_handler(StorageUnavailable)
    @app.exception_handler(ClusterUnavailable)
    async def unavailable(request: Request, error: Exception) -> Response:
        """The database or Redis is away for a moment: say so (503, retry), never a stack trace."""
        from fastapi.responses import JSONResponse

        return JSONResponse({"detail": "the platform is briefly unavailable; please try again in a moment"}, status_code=503, headers={"Retry-After": "2"})

    return app


def create_app_from_env() -> FastAPI:
    """The app from `DUOLOGUE_*` environment variables only: what each uvicorn worker process imports."""
    return create_app(Settings())


"""create_app(): routers, error handlers, and the lifespan that owns the grader pool."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import torch
from fastapi import FastAPI
from fastapi.responses import JSONResponse
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from api import db
from api.catalog import load_catalog
from api.config import Settings, get_settings
from api.deps import AppContext
from api.fairness import GradingLimits
from api.followups import check_follow_ups
from api.grading.grader import Grader
from api.grading.pool import GraderPool, SandboxUnavailable
from api.questions import load_question_bank
from api.routes import exercises, health, progress, questions, submissions, users
from api.routes.interviews import router as interviews_router

log = logging.getLogger("addnorm")

# Far above the 64 KiB code limit (JSON escaping can double it) but stops a body that would
# only waste memory before validation could refuse it.
MAX_BODY_BYTES = 1 << 20


class BodySizeLimit:
    """413 for a declared body over the limit, before anything reads it. Plain ASGI: the
    decorator-style HTTP middleware costs about a millisecond per request in task plumbing."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            length = Headers(scope=scope).get("content-length")
            if length is not None and length.isdigit() and int(length) > self.max_bytes:
                response = JSONResponse({"detail": "Request body too large"}, status_code=413)
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


def build_context(settings: Settings) -> AppContext:
    """Everything the app needs, validated before the first request: content, DB, sandbox."""
    # The service's tensors are tiny (references of a few cases) and gradings run in parallel
    # threads: intra-op threads only contend with each other, several-fold slower on 2 cores.
    torch.set_num_threads(1)
    catalog = load_catalog(settings.content_dir)
    bank = load_question_bank(settings.content_dir / "questions")
    check_follow_ups(settings.content_dir, catalog, (q.id for q in bank))
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    engine = db.make_engine(settings.sqlalchemy_url)
    db.migrate(engine)
    pool = GraderPool(
        slots=settings.grader_slots,
        profile=settings.sandbox,
        cpu_seconds=settings.cpu_seconds,
        queue_timeout=settings.queue_timeout_seconds,
    )
    try:
        pool.start()
    except SandboxUnavailable as exc:
        # Fail closed, and say why and what the operator may choose instead.
        log.error("refusing to start: %s", exc)
        raise
    if settings.sandbox != "strict":
        log.warning(
            "sandbox profile %r chosen explicitly: weaker than strict (see /health)",
            settings.sandbox,
        )
    grader = Grader(pool, time_limit=settings.time_limit_seconds)
    grader.warm_up([e.spec for e in catalog.values()])
    limits = GradingLimits(
        max_concurrent=settings.max_concurrent_gradings, per_minute=settings.submissions_per_minute
    )
    return AppContext(
        settings=settings,
        engine=engine,
        catalog=catalog,
        grader=grader,
        limits=limits,
        questions=bank,
    )


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or get_settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        ctx = build_context(settings)
        app.state.ctx = ctx
        try:
            yield
        finally:
            ctx.grader.pool.close()
            ctx.engine.dispose()

    app = FastAPI(
        title="addnorm",
        summary="Transformer building blocks, graded in a sandbox against PyTorch.",
        version="0.1.0",
        lifespan=lifespan,
    )

    app.add_middleware(BodySizeLimit, max_bytes=MAX_BODY_BYTES)
    for module in (health, users, exercises, submissions, progress, questions):
        app.include_router(module.router)
    app.include_router(interviews_router)
    return app

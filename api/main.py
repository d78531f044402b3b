"""create_app(): routers, error handlers, and the lifespan that owns the grader pool."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

from fastapi import FastAPI, Request, Response
from fastapi.responses import JSONResponse

from api import db
from api.catalog import load_catalog
from api.config import Settings, get_settings
from api.deps import AppContext
from api.fairness import GradingLimits
from api.grading.grader import Grader
from api.grading.pool import GraderPool, SandboxUnavailable
from api.questions import load_question_bank
from api.routes import exercises, health, progress, questions, submissions, users

log = logging.getLogger("addnorm")

# Far above the 64 KiB code limit (JSON escaping can double it) but stops a body that would
# only waste memory before validation could refuse it.
MAX_BODY_BYTES = 1 << 20


def build_context(settings: Settings) -> AppContext:
    """Everything the app needs, validated before the first request: content, DB, sandbox."""
    catalog = load_catalog(settings.content_dir)
    bank = load_question_bank(settings.content_dir / "questions")
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    engine = db.make_engine(settings.sqlalchemy_url)
    db.migrate(engine)
    pool = GraderPool(
        slots=settings.grader_slots,
        profile=settings.sandbox,
        recycle_after=settings.recycle_after,
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

    @app.middleware("http")
    async def limit_body(
        request: Request, call_next: Callable[[Request], Awaitable[Response]]
    ) -> Response:
        length = request.headers.get("content-length")
        if length is not None and length.isdigit() and int(length) > MAX_BODY_BYTES:
            return JSONResponse({"detail": "Request body too large"}, status_code=413)
        return await call_next(request)

    for module in (health, users, exercises, submissions, progress, questions):
        app.include_router(module.router)
    return app

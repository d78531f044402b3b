"""create_app(): routers, error handlers, and the lifespan that owns the grader pool."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import torch
from anyio import to_thread
from fastapi import Depends, FastAPI
from fastapi.exceptions import RequestValidationError
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm.exc import ObjectDeletedError, StaleDataError

from api import db, jsonbody
from api.config import Settings, get_settings
from api.content.catalog import load_catalog
from api.content.followups import check_follow_ups
from api.content.questions import load_question_bank
from api.grading import longlived
from api.grading.deciders import Deciders
from api.grading.grader import Grader, fingerprint
from api.grading.pool import SandboxUnavailable
from api.grading.startup import StartInBackground, pool_for
from api.http import (
    admin,
    exercises,
    health,
    openapi_doc,
    progress,
    questions,
    submissions,
    users,
)
from api.http.deleted import LearnerGone, learner_deleted
from api.http.deps import AppContext
from api.http.fairness import GradingLimits, GradingTurns, SharedGradingLimits
from api.http.hold import paused_answer, practice_hold
from api.http.httpguard import BodyGuard, invalid_text
from api.http.interviews import router as interviews_router
from api.http.limited import AddressLimit, limited
from api.http.ratelimits import ClientLimits, Limited
from api.http.refusals import invalid_request
from api.learning.practice_pause import PracticePaused
from api.queue.recovery import recover_in_background
from api.web import install as install_web_ui

log = logging.getLogger("addnorm")

# Request threads in queue mode, where most of them sleep waiting for a verdict notice.
QUEUE_MODE_THREADS = 256


def build_context(settings: Settings) -> AppContext:
    """Everything the app needs, validated before the first request: content, DB, sandbox."""
    # The service's tensors are tiny (references of a few cases) and gradings run in parallel
    # threads: intra-op threads only contend with each other, several-fold slower on 2 cores.
    torch.set_num_threads(1)
    catalog = load_catalog(settings.content_dir)
    # The sandbox's zygote boots (a fresh interpreter importing torch and arming its slots)
    # while this process reads the question bank and migrates the database: start-up costs
    # the longer of the two, not their sum. It is awaited below, before anything is served.
    pool = None if settings.queue_mode else pool_for(settings, catalog)
    booting = None if pool is None else StartInBackground(pool.start)
    try:
        bank = load_question_bank(settings.content_dir / "questions")
        check_follow_ups(settings.content_dir, catalog, (q.id for q in bank))
        settings.data_dir.mkdir(parents=True, exist_ok=True)
        engine = db.make_engine(settings.sqlalchemy_url)
        db.migrate(engine)
        limits = make_limits(settings)
        client_limits = ClientLimits(settings)
    except BaseException:
        if pool is not None and booting is not None:
            booting.wait_quietly()
            pool.close()
        raise
    if pool is None:
        # Workers own the grader (`addnorm worker`); this process records, sends and waits.
        from api.queue.client import GradingQueue

        return AppContext(
            settings=settings,
            engine=engine,
            catalog=catalog,
            grader=None,
            limits=limits,
            questions=bank,
            client_limits=client_limits,
            queue=GradingQueue(settings),
        )
    assert booting is not None
    try:
        booting.wait()
    except SandboxUnavailable as exc:
        # Fail closed, and say why and what the operator may choose instead.
        log.error("refusing to start: %s", exc)
        raise
    if settings.sandbox != "strict":
        log.warning(
            "sandbox profile %r chosen explicitly: weaker than strict (see /health)",
            settings.sandbox,
        )
    deciders = None
    if settings.deciders:
        deciders = Deciders(
            settings.deciders,
            settings.content_dir,
            {slug: fingerprint(e.spec) for slug, e in catalog.items()},
        )
        try:
            deciders.start()
        except BaseException:
            pool.close()
            raise
    grader = Grader(pool, time_limit=settings.time_limit_seconds, deciders=deciders)
    if deciders is None:
        # After ready, not before: a learner may open pages and answer questions meanwhile,
        # and a submission that arrives first takes its turn between two exercises' warm-ups.
        grader.warm_up_in_background([e.spec for e in catalog.values()])
    return AppContext(
        settings=settings,
        engine=engine,
        catalog=catalog,
        grader=grader,
        limits=limits,
        questions=bank,
        client_limits=client_limits,
        turns=GradingTurns(
            slots=settings.grader_slots,
            per_address=settings.gradings_per_address,
            timeout=settings.queue_timeout_seconds,
        ),
    )


def make_limits(settings: Settings) -> GradingLimits:
    """Per-learner limits: in Redis when one is configured (shared by every API process),
    else in this process's memory."""
    url = settings.shared_redis_url
    if url is None:
        return GradingLimits(
            max_concurrent=settings.max_concurrent_gradings,
            per_minute=settings.submissions_per_minute,
        )
    import redis

    return SharedGradingLimits(
        redis.Redis.from_url(url, socket_timeout=5, socket_connect_timeout=2),
        prefix=settings.redis_prefix,
        max_concurrent=settings.max_concurrent_gradings,
        per_minute=settings.submissions_per_minute,
        # A slot is held for the request: the verdict wait, or a grading plus its queue wait.
        lease_seconds=max(settings.verdict_wait_seconds, settings.time_limit_seconds)
        + settings.queue_timeout_seconds
        + 30,
    )


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or get_settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        ctx = build_context(settings)
        app.state.ctx = ctx
        longlived.settle()  # start-up's objects live as long as the service: see the module
        if ctx.queue is not None:
            # A submit waits up to ADDNORM_VERDICT_WAIT_SECONDS on a Redis socket in a thread:
            # anyio's default 40 threads capped a lagging cluster at 40 / 5 s = 8 submissions/s
            # accepted (measured: answers took 20 s at 20 arrivals/s). Waiting threads are idle.
            to_thread.current_default_thread_limiter().total_tokens = QUEUE_MODE_THREADS
        if ctx.grader is not None:
            recover_in_background(
                ctx.engine, settings=settings, catalog=ctx.catalog, grader=ctx.grader
            )
        try:
            yield
        finally:
            if ctx.grader is not None:
                ctx.grader.pool.close()
                if ctx.grader.deciders is not None:
                    ctx.grader.deciders.close()
            if ctx.queue is not None:
                ctx.queue.close()
            ctx.engine.dispose()

    app = FastAPI(
        title="addnorm",
        summary="Transformer building blocks, graded in a sandbox against PyTorch.",
        version="0.1.0",
        lifespan=lifespan,
        default_response_class=jsonbody.Body,
        # FastAPI's own /docs and /redoc load their script from a CDN: ours are rendered from
        # the schema on the server, no script at all (api.web.apidocs).
        docs_url=None,
        redoc_url=None,
        # Practice pauses while a mock interview runs, on every route not allowed by api.http.hold.
        dependencies=[Depends(practice_hold)],
    )

    # Bodies counted as they arrive (chunked too), larger ones authenticated first: httpguard.
    app.add_middleware(BodyGuard)
    # Outside it: a client over its request rate costs no body read and no token lookup.
    app.add_middleware(AddressLimit)
    app.add_exception_handler(Limited, limited)
    app.add_exception_handler(UnicodeEncodeError, invalid_text)
    # Refusals that always serialise, whatever the body held (NaN, huge values): api.http.refusals.
    app.add_exception_handler(RequestValidationError, invalid_request)
    app.add_exception_handler(PracticePaused, paused_answer)
    # A learner deleted while their request ran (its rows refused, or gone): api.http.deleted.
    app.add_exception_handler(DBAPIError, learner_deleted)
    app.add_exception_handler(ObjectDeletedError, learner_deleted)
    app.add_exception_handler(StaleDataError, learner_deleted)
    app.add_exception_handler(LearnerGone, learner_deleted)
    for module in (health, users, exercises, submissions, progress, questions, admin):
        app.include_router(module.router)
    app.include_router(interviews_router)
    # The browser UI (pages under /app, static files, CSP and other security headers).
    install_web_ui(app)
    # /openapi.json also describes the refusals every route can answer: api.http.openapi_doc.
    openapi_doc.install(app)
    return app

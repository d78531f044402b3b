"""``/health``: whether the service is up, and nothing else for a stranger.

The detail (mode, sandbox layers and profile, slots, job and restart counters, workers) is
``health_detail(ctx)``, for the operator's endpoint to return; ADDNORM_HEALTH_DETAILS=true puts
it in the public answer too (a single-user laptop, the test suite).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from sqlalchemy import text

from api.http.deps import AppContext, AppDep

router = APIRouter(tags=["health"])


def _up(ctx: AppContext) -> bool:
    with ctx.engine.connect() as conn:
        conn.execute(text("SELECT 1"))
    if ctx.grader is None:
        assert ctx.queue is not None
        return ctx.queue.ping()
    return ctx.grader.pool.status.running


def health_detail(ctx: AppContext) -> dict[str, Any]:
    """Everything the deployment says about itself: for its operator, not for strangers (the
    sandbox's layers and counters that move with other learners' submissions)."""
    with ctx.engine.connect() as conn:
        conn.execute(text("SELECT 1"))
    if ctx.grader is None:
        assert ctx.queue is not None
        # Queue mode: this process grades nothing; it is healthy when it can reach the broker.
        broker = ctx.queue.ping()
        return {
            "status": "ok" if broker else "degraded",
            "database": "ok",
            "mode": "queue",
            "broker": "ok" if broker else "unreachable",
            # Submissions wait in the queue (202) while this is 0: the API itself is fine.
            "workers": ctx.queue.live_workers(),
            # The cluster's grading slots in fair turns (api.queue.fair): jobs sent to workers
            # and not finished, and jobs waiting for a slot.
            "turns": ctx.queue.turns(),
            "exercises": len(ctx.catalog),
            "questions": len(ctx.questions),
            "sandbox": {"profile": ctx.settings.sandbox, "running": False, "graded_by": "workers"},
        }
    pool = ctx.grader.pool.status
    return {
        "mode": "embedded",
        "status": "ok" if pool.running else "degraded",
        "database": "ok",
        "exercises": len(ctx.catalog),
        "questions": len(ctx.questions),
        "sandbox": {
            "profile": pool.profile,
            "running": pool.running,
            "slots": pool.slots,
            "layers": pool.layers,
            "jobs": pool.jobs,
            "restarts": pool.restarts,
        },
        # Where verdicts are decided (api.grading.deciders): 0 processes = in the service.
        "deciders": _deciders(ctx),
    }


def _deciders(ctx: AppContext) -> dict[str, int]:
    assert ctx.grader is not None
    deciders = ctx.grader.deciders
    if deciders is None:
        return {"processes": 0, "running": 0, "restarts": 0}
    return {
        "processes": deciders.count,
        "running": deciders.running(),
        "restarts": deciders.restarts,
    }


@router.get("/health")
def read_health(ctx: AppDep) -> dict[str, Any]:
    if ctx.settings.health_details:
        return health_detail(ctx)
    return {"status": "ok" if _up(ctx) else "degraded"}

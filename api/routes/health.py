from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from sqlalchemy import text

from api.deps import AppDep

router = APIRouter(tags=["health"])


@router.get("/health")
def read_health(ctx: AppDep) -> dict[str, Any]:
    with ctx.engine.connect() as conn:
        conn.execute(text("SELECT 1"))
    pool = ctx.grader.pool.status
    return {
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
    }

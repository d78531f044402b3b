from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from api import practice, progress
from api.deps import AppDep, CurrentUser, SessionDep

router = APIRouter(tags=["progress"])


@router.get("/progress")
def read_progress(ctx: AppDep, user: CurrentUser, session: SessionDep) -> dict[str, Any]:
    assert user.id is not None
    topics = practice.mastery(session, user_id=user.id, bank=ctx.questions, catalog=ctx.catalog)
    return {
        "exercises": progress.exercise_progress(session, user_id=user.id, catalog=ctx.catalog),
        "topics": {
            topic: {
                "mastery": round(m.mastery, 3),
                "attempted": m.attempted,
                "total": m.total,
                "latest_correct": m.latest_correct,
            }
            for topic, m in topics.items()
        },
    }

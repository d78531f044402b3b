from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from api import progress
from api.deps import AppDep, CurrentUser, SessionDep

router = APIRouter(tags=["progress"])


@router.get("/progress")
def read_progress(ctx: AppDep, user: CurrentUser, session: SessionDep) -> dict[str, Any]:
    assert user.id is not None
    return {
        "exercises": progress.exercise_progress(session, user_id=user.id, catalog=ctx.catalog),
    }

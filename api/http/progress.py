from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from fastapi import APIRouter

from api.http.deps import AppDep, CurrentUser, SessionDep
from api.learning import interview_records, practice, progress, review

router = APIRouter(tags=["progress"])

MASTERY_RULE = (
    "mastery = points / points_possible: each question whose latest answer is right earns "
    f"{review.QUESTION_WEIGHT:g} point, each exercise whose latest verdict passed "
    f"{review.EXERCISE_WEIGHT:g}; items never tried earn 0, so 1.0 means every question of the "
    "topic answered right and every exercise passed"
)


@router.get("/progress")
def read_progress(ctx: AppDep, user: CurrentUser, session: SessionDep) -> dict[str, Any]:
    """Per-exercise status, and mastery per topic with the counts it is computed from."""
    assert user.id is not None
    # An interview whose time ran out unseen still counts: its held answers are written now.
    interview_records.settle_expired(
        session, user_id=user.id, bank=ctx.questions, catalog=ctx.catalog, now=datetime.now(UTC)
    )
    topics = practice.mastery(session, user_id=user.id, bank=ctx.questions, catalog=ctx.catalog)
    return {
        "exercises": progress.exercise_progress(session, user_id=user.id, catalog=ctx.catalog),
        "mastery_rule": MASTERY_RULE,
        "topics": {
            topic: {
                "mastery": round(m.mastery, 3),
                "points": m.points,
                "points_possible": m.points_possible,
                # Questions and exercises together (an exercise may count in two topics).
                "attempted": m.attempted,
                "total": m.total,
                "latest_correct": m.latest_correct,
                # `questions.total` is the number GET /questions?topic=<topic> lists.
                "questions": {
                    "total": m.questions.total,
                    "attempted": m.questions.attempted,
                    "correct": m.questions.right,
                },
                "exercises": {
                    "total": m.exercises.total,
                    "attempted": m.exercises.attempted,
                    "passed": m.exercises.right,
                },
            }
            for topic, m in topics.items()
        },
    }

from __future__ import annotations

import logging
from datetime import UTC, datetime
from typing import Any

from fastapi import APIRouter, HTTPException
from fastapi.responses import JSONResponse

from api import plaintext, practice, submissions
from api.deps import AppDep, CurrentUser, ExerciseDep, SessionDep
from api.fairness import Throttled
from api.grading.pool import GradingLost, PoolBusy
from api.grading.static import MAX_CODE_BYTES
from api.models import SubmissionCreate

log = logging.getLogger("addnorm.api")
router = APIRouter(tags=["submissions"])


@router.post("/exercises/{slug}/submissions", status_code=201, response_model=None)
def create_submission(
    body: SubmissionCreate,
    exercise: ExerciseDep,
    user: CurrentUser,
    session: SessionDep,
    ctx: AppDep,
) -> JSONResponse:
    """Grade the code in the sandbox and answer with the verdict (synchronously: ~tens of ms)."""
    assert user.id is not None
    # A lone surrogate is valid JSON but not UTF-8: replaced here, before anything encodes it.
    code = plaintext.sanitised(body.code)
    size = len(code.encode())
    if size > MAX_CODE_BYTES:
        raise HTTPException(
            413, detail=f"Code is {size} bytes; the limit is {MAX_CODE_BYTES // 1024} KiB"
        )
    try:
        with ctx.limits.slot(user.id):
            row = submissions.start(session, user_id=user.id, exercise=exercise.slug, code=code)
            try:
                verdict = ctx.grader.grade(code, exercise.spec)
            except GradingLost as exc:
                row = submissions.fail(session, row=row, reason=f"not graded: {exc}")
                return JSONResponse(
                    {"detail": f"Grading did not finish ({exc}); please resubmit", "id": row.id},
                    status_code=503,
                    headers={"Retry-After": "1"},
                )
            except PoolBusy:
                row = submissions.fail(session, row=row, reason="not graded: the grader was busy")
                return JSONResponse(
                    {"detail": "The grader is busy; please resubmit shortly", "id": row.id},
                    status_code=503,
                    headers={"Retry-After": "2"},
                )
            except Exception as exc:
                log.exception("grading submission %s failed", row.id)
                row = submissions.fail(
                    session, row=row, reason=f"grading failed: {type(exc).__name__}"
                )
                return JSONResponse(
                    {"detail": "Grading failed on the server; your code was saved", "id": row.id},
                    status_code=500,
                )
    except Throttled as exc:
        raise HTTPException(
            429,
            detail=f"Too many submissions: {exc.reason}",
            headers={"Retry-After": str(exc.retry_after)},
        ) from None
    row = submissions.complete(session, row=row, verdict=verdict)
    practice.record_verdict(
        session, user_id=user.id, exercise=exercise, submission=row, now=datetime.now(UTC)
    )
    session.commit()
    # Already JSON-safe: skip FastAPI's recursive encoder, which costs milliseconds on a verdict
    # with dozens of checks.
    return JSONResponse(submissions.public(row), status_code=201)


@router.get("/submissions/{submission_id}")
def read_submission(submission_id: int, user: CurrentUser, session: SessionDep) -> dict[str, Any]:
    assert user.id is not None
    row = submissions.get(session, user_id=user.id, submission_id=submission_id)
    if row is None:
        raise HTTPException(404, detail="Submission not found")
    return submissions.public(row)


@router.get("/submissions")
def read_submissions(
    user: CurrentUser, session: SessionDep, exercise: str | None = None
) -> list[dict[str, Any]]:
    assert user.id is not None
    rows = submissions.list_for(session, user_id=user.id, exercise=exercise)
    return [submissions.public(r) for r in rows]

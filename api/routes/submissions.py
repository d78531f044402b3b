from __future__ import annotations

import logging
from datetime import UTC, datetime
from typing import Any

from fastapi import APIRouter, HTTPException
from sqlmodel import Session

from api import interview_records, plaintext, submissions, submitting
from api.catalog import Exercise, Lang
from api.deps import AppContext, AppDep, CurrentUser, ExerciseDep, RowId, SessionDep
from api.fairness import Throttled
from api.grading.pool import GradingLost, PoolBusy
from api.grading.static import MAX_CODE_BYTES
from api.jsonbody import Body
from api.models import Submission, SubmissionCreate, User
from api.routes.users import learner_lang
from api.verdict_i18n import render

log = logging.getLogger("addnorm.api")
router = APIRouter(tags=["submissions"])


@router.post(
    "/exercises/{slug}/submissions",
    status_code=201,
    response_model=None,
    responses={
        202: {"description": "Queue mode: stored and queued, no verdict yet; poll `Location`"}
    },
)
def create_submission(
    body: SubmissionCreate,
    exercise: ExerciseDep,
    user: CurrentUser,
    session: SessionDep,
    ctx: AppDep,
    lang: Lang | None = None,
) -> Body:
    """Grade the code and answer with the verdict, unless a running mock interview asks this
    exercise: then it is a 409 pointing there, so its feedback cannot be had around it.

    The verdict reads in ``lang``, by default the learner's preference (``PATCH /users/me``);
    it is stored in both languages, so reading it later in the other one works too."""
    assert user.id is not None
    held = interview_records.holding(
        session, user_id=user.id, kind="exercise", item_id=exercise.slug, now=datetime.now(UTC)
    )
    if held is not None:
        raise HTTPException(
            409,
            detail=(
                f"{exercise.slug} is part of your running mock interview {held.id}: submit it "
                f"with POST /interviews/{held.id}/items/{{position}}/submissions until it ends"
            ),
        )
    return grade_submission(body, exercise, user, session, ctx, lang=lang)


def grade_submission(
    body: SubmissionCreate,
    exercise: Exercise,
    user: User,
    session: Session,
    ctx: AppContext,
    *,
    lang: Lang | None = None,
) -> Body:
    """Grade the code in the sandbox and answer with the verdict: synchronously (~tens of ms)
    when embedded; in queue mode after a bounded wait for a worker, else 202 + ``Location``."""
    assert user.id is not None
    # A lone surrogate is valid JSON but not UTF-8: replaced here, before anything encodes it.
    code = plaintext.sanitised(body.code)
    size = len(code.encode())
    if size > MAX_CODE_BYTES:
        raise HTTPException(
            413, detail=f"Code is {size} bytes; the limit is {MAX_CODE_BYTES // 1024} KiB"
        )
    shown = lang or learner_lang(user)
    if ctx.queue is not None:
        return _enqueue_submission(code, exercise, user.id, session, ctx, lang, shown)
    assert ctx.grader is not None
    try:
        with ctx.limits.slot(user.id):
            row = submissions.start(session, user_id=user.id, exercise=exercise.slug, code=code)
            try:
                verdict = ctx.grader.grade(code, exercise.spec)
            except GradingLost as exc:
                row = submissions.fail(session, row=row, reason=f"not graded: {exc}")
                return Body(
                    {"detail": f"Grading did not finish ({exc}); please resubmit", "id": row.id},
                    status_code=503,
                    headers={"Retry-After": "1"},
                )
            except PoolBusy:
                row = submissions.fail(session, row=row, reason="not graded: the grader was busy")
                return Body(
                    {"detail": "The grader is busy; please resubmit shortly", "id": row.id},
                    status_code=503,
                    headers={"Retry-After": "2"},
                )
            except Exception as exc:
                log.exception("grading submission %s failed", row.id)
                row = submissions.fail(
                    session, row=row, reason=f"grading failed: {type(exc).__name__}"
                )
                return Body(
                    {"detail": "Grading failed on the server; your code was saved", "id": row.id},
                    status_code=500,
                )
    except Throttled as exc:
        raise HTTPException(
            429,
            detail=f"Too many submissions: {exc.reason}",
            headers={"Retry-After": str(exc.retry_after)},
        ) from None
    assert row.id is not None
    recorded = submitting.record(session, submission_id=row.id, exercise=exercise, verdict=verdict)
    # None only if start-up recovery graded this very row first: its verdict stands.
    if recorded is None:
        return Body(render(submissions.public(_reread(session, row)), shown), status_code=201)
    # Already JSON-safe: skip FastAPI's recursive encoder, which costs milliseconds on a verdict
    # with dozens of checks.
    return Body(render(submissions.public(recorded, just_recorded=True), shown), status_code=201)


def _reread(session: Session, row: Submission) -> Submission:
    session.refresh(row)
    return row


def _enqueue_submission(
    code: str,
    exercise: Exercise,
    user_id: int,
    session: Session,
    ctx: AppContext,
    asked: Lang | None,
    lang: Lang,
) -> Body:
    """Queue mode: store the row `queued`, send the task, wait a bounded time for the notice.

    The row is on record before the task exists, so whatever fails after (the broker, this
    process) the sweeper finds it `queued` and sends it again: the learner never resubmits."""
    assert ctx.queue is not None
    try:
        with ctx.limits.slot(user_id):
            row = submissions.start(
                session, user_id=user_id, exercise=exercise.slug, code=code, queued=True
            )
            assert row.id is not None
            with ctx.queue.notices.awaiting(row.id) as wait:
                if ctx.queue.send(row.id):
                    submissions.mark_sent(session, submission_id=row.id)
                    wait(ctx.queue.verdict_wait)
            session.refresh(row)
    except Throttled as exc:
        raise HTTPException(
            429,
            detail=f"Too many submissions: {exc.reason}",
            headers={"Retry-After": str(exc.retry_after)},
        ) from None
    if row.state == "done":
        return Body(render(submissions.public(row), lang), status_code=201)
    if row.state == "grader_failed":
        return Body(
            {"detail": f"Grading did not finish ({row.message}); please resubmit", "id": row.id},
            status_code=503,
            headers={"Retry-After": "1"},
        )
    # The poll path keeps a language asked for here (else the learner's preference applies).
    location = f"/submissions/{row.id}" + (f"?lang={asked}" if asked else "")
    return Body(
        render(submissions.public(row), lang),
        status_code=202,
        headers={"Location": location, "Retry-After": "1"},
    )


@router.get("/submissions/{submission_id}")
def read_submission(
    submission_id: RowId, user: CurrentUser, session: SessionDep, lang: Lang | None = None
) -> dict[str, Any]:
    assert user.id is not None
    row = submissions.get(session, user_id=user.id, submission_id=submission_id)
    if row is None:
        raise HTTPException(404, detail="Submission not found")
    return render(_shown(row, _held(session, user.id)), lang or learner_lang(user))


@router.get("/submissions")
def read_submissions(
    user: CurrentUser,
    session: SessionDep,
    exercise: str | None = None,
    lang: Lang | None = None,
) -> list[dict[str, Any]]:
    assert user.id is not None
    rows = submissions.list_for(session, user_id=user.id, exercise=exercise)
    held = _held(session, user.id)
    shown = lang or learner_lang(user)
    return [render(_shown(r, held), shown) for r in rows]


def _held(session: Session, user_id: int) -> dict[str, datetime]:
    return interview_records.held_exercises(session, user_id=user_id, now=datetime.now(UTC))


def _shown(row: Submission, held: dict[str, datetime]) -> dict[str, Any]:
    """The public view, details withheld for a coding item of a running interview."""
    view = submissions.public(row)
    since = held.get(row.exercise)
    created = row.created_at if row.created_at.tzinfo else row.created_at.replace(tzinfo=UTC)
    return submissions.withheld(view) if since is not None and created >= since else view

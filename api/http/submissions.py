from __future__ import annotations

import logging
from datetime import UTC, datetime
from typing import Any

from fastapi import APIRouter, HTTPException, Request
from sqlalchemy import func
from sqlmodel import Session, col, select

from api import plaintext
from api.content.catalog import Exercise, Lang
from api.grading.grader import static_verdict
from api.grading.pool import GradingLost, PoolBusy
from api.grading.static import MAX_CODE_BYTES
from api.grading.stored import stored
from api.grading.verdict import Verdict
from api.http.deleted import LearnerGone
from api.http.deps import AppContext, AppDep, CurrentUser, ExerciseDep, RowId, SessionDep
from api.http.fairness import NoTurn, Throttled
from api.http.limited import client_key
from api.http.ratelimits import Limited
from api.http.users import learner_lang
from api.jsonbody import Body
from api.learning import submissions, submitting
from api.learning.verdict_i18n import render
from api.models import Submission, SubmissionCreate, User

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
    request: Request,
    lang: Lang | None = None,
) -> Body:
    """Grade the code and answer with the verdict. While the learner's mock interview runs,
    practice is paused (api.http.hold): a 409 pointing to the interview, before this runs.

    The verdict reads in ``lang``, by default the learner's preference (``PATCH /users/me``);
    it is stored in both languages, so reading it later in the other one works too."""
    return grade_submission(body, exercise, user, session, ctx, client_key(request), lang=lang)


def grade_submission(
    body: SubmissionCreate,
    exercise: Exercise,
    user: User,
    session: Session,
    ctx: AppContext,
    address: str,
    *,
    lang: Lang | None = None,
    always_store: bool = False,
) -> Body:
    """Grade the code in the sandbox and answer with the verdict: synchronously (~tens of ms)
    when embedded; in queue mode after a bounded wait for a worker, else 202 + ``Location``.

    Counted per learner and per client ``address`` (api.http.ratelimits). Code the static check
    refuses is answered here, without a grading slot; past the learner's hourly budget of
    stored refusals it is answered and not stored (200, ``"id": null``), unless
    ``always_store`` (an interview item, whose attempt needs its row)."""
    assert user.id is not None
    # A lone surrogate is valid JSON but not UTF-8: replaced here, before anything encodes it.
    code = plaintext.sanitised(body.code)
    size = len(code.encode())
    if size > MAX_CODE_BYTES:
        raise HTTPException(
            413, detail=f"Code is {size} bytes; the limit is {MAX_CODE_BYTES // 1024} KiB"
        )
    shown = lang or learner_lang(user)
    refused = static_verdict(code, exercise.spec)
    if refused is not None:
        # No grading slot needed, but the learner's per-minute and concurrency limits hold.
        try:
            with ctx.limits.slot(user.id):
                _count_stored(ctx, user.id, address)
                return _static_refusal(
                    code, refused, exercise, user, session, ctx, shown, always_store
                )
        except Throttled as exc:
            raise _limited(exc) from None
    if ctx.queue is not None:
        return _enqueue_submission(code, exercise, user.id, address, session, ctx, lang, shown)
    assert ctx.grader is not None and ctx.turns is not None
    try:
        with ctx.limits.slot(user.id), ctx.turns.turn(address, user.id):
            _count_stored(ctx, user.id, address)
            row = submissions.start(session, user_id=user.id, exercise=exercise.slug, code=code)
            try:
                verdict = ctx.grader.grade_for_record(code, exercise.spec, checked=True)
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
        raise _limited(exc) from None
    except NoTurn:
        # Every slot stayed busy for the whole wait: on record, saying why it was not graded
        # (counted against the hourly quotas like any stored submission).
        _count_stored(ctx, user.id, address)
        row = submissions.start(session, user_id=user.id, exercise=exercise.slug, code=code)
        row = submissions.fail(session, row=row, reason="not graded: the grader was busy")
        return Body(
            {"detail": "The grader is busy; please resubmit shortly", "id": row.id},
            status_code=503,
            headers={"Retry-After": "2"},
        )
    assert row.id is not None
    recorded = submitting.record(session, submission_id=row.id, exercise=exercise, verdict=verdict)
    # None only if start-up recovery graded this very row first: its verdict stands.
    if recorded is None:
        return Body(render(submissions.public(_reread(session, row)), shown), status_code=201)
    # Already JSON-safe: skip FastAPI's recursive encoder, which costs milliseconds on a verdict
    # with dozens of checks.
    return Body(render(submissions.public(recorded, just_recorded=True), shown), status_code=201)


def _limited(exc: Throttled) -> Limited:
    """A grading limit's refusal as every limit's: 429, Retry-After, one line in both languages
    (a page shows it in the reader's)."""
    return Limited(exc.reason, exc.reason_zh, exc.retry_after, subject="submissions")


def _count_stored(ctx: AppContext, user_id: int, address: str) -> None:
    """The hourly quotas count submissions about to be stored: one refused for the moment (its
    learner or address already has jobs running) costs nothing and does not count."""
    ctx.client_limits.hit("submissions", user_id)
    ctx.client_limits.hit("address_submissions", address)


def _static_refusal(
    code: str,
    verdict: Verdict,
    exercise: Exercise,
    user: User,
    session: Session,
    ctx: AppContext,
    shown: Lang,
    always_store: bool,
) -> Body:
    """Code refused before it could run (syntax, a banned name, a missing definition): stored
    like any verdict while the learner's hourly budget lasts, else answered and not kept, so
    the same refused 64 KiB sent a thousand times costs the database nothing."""
    assert user.id is not None
    form = stored(verdict)
    if always_store or ctx.client_limits.may_store_static_rejection(user.id):
        row = submissions.start(session, user_id=user.id, exercise=exercise.slug, code=code)
        assert row.id is not None
        recorded = submitting.record(session, submission_id=row.id, exercise=exercise, verdict=form)
        if recorded is not None:
            view = submissions.public(recorded, just_recorded=True)
            return Body(render(view, shown), status_code=201)
    unstored = Submission(
        user_id=user.id,
        exercise=exercise.slug,
        code="",
        state="done",
        verdict=form.status,
        message=form.message,
        result=form.result,
        completed_at=datetime.now(UTC),
    )
    view = submissions.public(unstored)
    return Body({**render(view, shown), "stored": False}, status_code=200)


def _reread(session: Session, row: Submission) -> Submission:
    found = session.exec(
        select(Submission)
        .where(col(Submission.id) == row.id)
        .execution_options(populate_existing=True)
    ).first()
    if found is None:
        raise LearnerGone()  # deleted with its learner while the code was graded
    return found


def _refuse_past_open_jobs(session: Session, user_id: int, limit: int) -> None:
    """Queue mode: the learner's jobs still queued or grading count towards their concurrency,
    not only the requests waiting for a verdict (a 202 frees its request, not its job). Read
    under the learner's slot, so concurrent submits of theirs overshoot by at most the slots."""
    open_jobs = session.exec(
        select(func.count())
        .select_from(Submission)
        .where(Submission.user_id == user_id, col(Submission.state).in_(submissions.OPEN_STATES))
    ).one()
    session.commit()
    if int(open_jobs) >= limit:
        raise Throttled(
            f"{limit} of your submissions are already queued or being graded",
            2,
            f"你已有 {limit} 个提交在排队或评测中",
        )


def _enqueue_submission(
    code: str,
    exercise: Exercise,
    user_id: int,
    address: str,
    session: Session,
    ctx: AppContext,
    asked: Lang | None,
    lang: Lang,
) -> Body:
    """Queue mode: store the row `queued`, send the task, wait a bounded time for the notice.

    The row is on record before the task exists, so whatever fails after (the broker, this
    process) the sweeper finds it `queued` and sends it again: the learner never resubmits."""
    queue = ctx.queue
    assert queue is not None
    try:
        with ctx.limits.slot(user_id):
            _refuse_past_open_jobs(session, user_id, ctx.settings.max_concurrent_gradings)
            # The address's place in line (api.queue.fair), before anything is stored.
            token = queue.reserve(address)
            if token is None:
                per = ctx.settings.gradings_per_address
                raise Throttled(
                    f"{per} submissions from your address are already queued or being graded",
                    2,
                    f"你的地址已有 {per} 个提交在排队或评测中",
                )
            try:
                _count_stored(ctx, user_id, address)
                row = submissions.start(
                    session, user_id=user_id, exercise=exercise.slug, code=code, queued=True
                )
            except BaseException:
                queue.unreserve(address, token)
                raise
            assert row.id is not None
            with queue.notices.awaiting(row.id) as wait:
                # Sent now if a slot is free for it, else by the worker that frees one.
                sent = queue.submit(row.id, address=address, user_id=user_id, token=token)
                for job in sent:
                    submissions.mark_sent(session, submission_id=job)
                if row.id in sent or token:
                    wait(queue.verdict_wait)
            session.refresh(row)
    except Throttled as exc:
        raise _limited(exc) from None
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
    return render(submissions.public(row), lang or learner_lang(user))


@router.get("/submissions")
def read_submissions(
    user: CurrentUser,
    session: SessionDep,
    exercise: str | None = None,
    lang: Lang | None = None,
) -> list[dict[str, Any]]:
    assert user.id is not None
    rows = submissions.list_for(session, user_id=user.id, exercise=exercise)
    shown = lang or learner_lang(user)
    return [render(submissions.public(r), shown) for r in rows]

"""The exercise list, one exercise (prompt beside the editor), grading from the page, and a past
submission."""

from __future__ import annotations

import json
import time
from datetime import UTC
from typing import Annotated, Any

from fastapi import APIRouter, Form, HTTPException, Request
from fastapi.responses import RedirectResponse, Response
from sqlmodel import Session

from api.content.catalog import Exercise, Lang
from api.content.followups import follow_ups_for
from api.content.questions import public_view
from api.http.deps import AppContext, AppDep, RowId, SessionDep
from api.http.ratelimits import Limited
from api.http.submissions import create_submission
from api.learning import progress, submissions
from api.models import Submission, SubmissionCreate, User
from api.web.help import draft_code, help_view
from api.web.render import render
from api.web.session import CheckedFormDep, LearnerDep, PageNotFound, WebDep
from api.web.verdicts import verdict_view

router = APIRouter(include_in_schema=False)

# How long a page waits for a queued submission (the API's 202) before showing it as pending.
QUEUE_WAIT_SECONDS = 60.0
_PENDING = ("queued", "grading")


def next_exercise(
    session: Session, ctx: AppContext, *, user_id: int, exercise: Exercise
) -> Exercise | None:
    """Where a pass leads: the next exercise in catalogue order the learner has not solved
    (wrapping round), else simply the next one."""
    slugs = list(ctx.catalog)
    if exercise.slug not in slugs or len(slugs) < 2:
        return None
    at = slugs.index(exercise.slug)
    following = slugs[at + 1 :] + slugs[:at]
    mine = progress.exercise_progress(session, user_id=user_id, catalog=ctx.catalog)
    unsolved = [s for s in following if mine.get(s, {}).get("status") != "solved"]
    return ctx.catalog[(unsolved or following)[0]]


def _loop_context(
    session: Session, ctx: AppContext, user: User, exercise: Exercise, lang: Lang
) -> dict[str, Any]:
    """What the results pane offers after a pass: the next exercise and the follow-ups (each
    with its question-bank item, so it can be answered in place)."""
    assert user.id is not None
    asked = []
    for f in follow_ups_for(ctx.settings.content_dir, exercise.slug):
        if f.question in ctx.questions:
            asked.append((f, public_view(ctx.questions.get(f.question), lang)))
    return {
        "next_exercise": next_exercise(session, ctx, user_id=user.id, exercise=exercise),
        "follow_ups": asked,
    }


def _exercise(ctx: AppContext, slug: str) -> Exercise:
    exercise = ctx.catalog.get(slug)
    if exercise is None:
        raise PageNotFound()
    return exercise


@router.get("/app/exercises")
def read_exercise_list(
    request: Request, web: WebDep, user: LearnerDep, session: SessionDep, ctx: AppDep
) -> Response:
    assert user.id is not None
    mine = progress.exercise_progress(session, user_id=user.id, catalog=ctx.catalog)
    return render(request, web, "exercises.html", exercises=list(ctx.catalog.values()), mine=mine)


def _exercise_page(
    request: Request,
    web: WebDep,
    user: User,
    session: Session,
    exercise: Exercise,
    *,
    code: str | None = None,
    problem: str | None = None,
    status: int = 200,
) -> Response:
    assert user.id is not None
    history = submissions.list_for(session, user_id=user.id, exercise=exercise.slug)
    latest = history[0] if history else None
    if code is None:
        code = _opening_code(session, user.id, exercise, latest, web.lang)
    verdict = verdict_view(submissions.public(latest), web.lang) if latest is not None else None
    return render(
        request,
        web,
        "exercise.html",
        status=status,
        exercise=exercise,
        code=code,
        verdict=verdict,
        history=[verdict_view(submissions.public(r), web.lang) for r in history[:20]],
        problem=problem,
        draft_key=f"addnorm:draft:{user.id}:{exercise.slug}",
        help=help_view(session, request.app.state.ctx, user=user, exercise=exercise, lang=web.lang),
        help_problem=request.query_params.get("help"),
        draft_saved=request.query_params.get("saved") == "1",
        **_loop_context(session, request.app.state.ctx, user, exercise, web.lang),
    )


def _opening_code(
    session: Session, user_id: int, exercise: Exercise, latest: Submission | None, lang: Lang
) -> str:
    """The server's draft when it is newer than the last submission, else that submission's
    code, else the starter: the page opens where the learner left off, on any device."""
    draft = draft_code(session, user_id=user_id, exercise=exercise.slug)
    if draft is not None:
        code, saved_at = draft
        submitted = latest.created_at if latest is not None else None
        if submitted is None or saved_at >= (
            submitted if submitted.tzinfo else submitted.replace(tzinfo=UTC)
        ):
            return code
    return latest.code if latest is not None else exercise.starter_for(lang)


@router.get("/app/exercises/{slug}")
def read_exercise_page(
    request: Request, slug: str, web: WebDep, user: LearnerDep, session: SessionDep, ctx: AppDep
) -> Response:
    return _exercise_page(request, web, user, session, _exercise(ctx, slug))


def _await_verdict(session: Session, *, user_id: int, submission_id: int) -> Submission | None:
    """Queue mode answers 202: poll the row (written by the worker) until it has a verdict."""
    deadline = time.monotonic() + QUEUE_WAIT_SECONDS
    while True:
        session.expire_all()
        row = submissions.get(session, user_id=user_id, submission_id=submission_id)
        session.commit()
        if row is None or row.state not in _PENDING or time.monotonic() > deadline:
            return row
        time.sleep(0.25)


def _grade(
    request: Request, user: User, session: Session, ctx: AppContext, exercise: Exercise, code: str
) -> tuple[dict[str, Any] | None, str | None, int]:
    """Grade through the API's own route function: (verdict JSON, problem, HTTP status)."""
    assert user.id is not None
    try:
        response = create_submission(
            SubmissionCreate(code=code), exercise, user, session, ctx, request
        )
    except HTTPException as exc:  # 413 too large, 429 throttled
        return None, str(exc.detail), exc.status_code
    data = json.loads(bytes(response.body))
    if response.status_code == 202:
        submission_id = data.get("id")
        if not isinstance(submission_id, int):
            location = response.headers.get("location", "")
            tail = location.rstrip("/").rsplit("/", 1)[-1]
            submission_id = int(tail) if tail.isdigit() else None
        row = (
            _await_verdict(session, user_id=user.id, submission_id=submission_id)
            if submission_id is not None
            else None
        )
        if row is None:
            return None, "The submission was queued but could not be found", 502
        return submissions.public(row), None, 200
    if response.status_code == 201:
        return data, None, 201
    if data.get("stored") is False:
        # Refused by the static check past the hourly budget of stored refusals: the reason
        # is shown with the code kept in the editor, nothing new is in the history.
        return None, str(data.get("message") or "Not graded"), 422
    return None, str(data.get("detail") or "Grading failed"), response.status_code


@router.post("/app/exercises/{slug}/submissions")
def create_submission_page(
    request: Request,
    slug: str,
    web: CheckedFormDep,
    user: LearnerDep,
    session: SessionDep,
    ctx: AppDep,
    code: Annotated[str, Form(max_length=1 << 20)] = "",
) -> Response:
    exercise = _exercise(ctx, slug)
    # Browsers send CRLF line ends in form posts; the grader reports lines as the learner wrote.
    code = code.replace("\r\n", "\n")
    retry_after: int | None = None
    try:
        _, problem, status = _grade(request, user, session, ctx, exercise, code)
    except Limited as exc:
        # Over a limit: the reason in the reader's language where the verdict would be, the
        # code kept in the editor.
        reason = exc.reason_zh if web.lang == "zh" else exc.reason
        problem, status, retry_after = reason, 429, exc.retry_after
    if request.headers.get("x-addnorm-partial") == "1":
        assert user.id is not None
        history = submissions.list_for(session, user_id=user.id, exercise=exercise.slug)
        latest = history[0] if history else None
        partial = render(
            request,
            web,
            "_results.html",
            status=status if problem else 200,
            exercise=exercise,
            problem=problem,
            verdict=verdict_view(submissions.public(latest), web.lang) if latest else None,
            history=[verdict_view(submissions.public(r), web.lang) for r in history[:20]],
            **_loop_context(session, ctx, user, exercise, web.lang),
        )
        return _with_retry_after(partial, retry_after)
    if problem is not None:
        # Keep what the learner typed: the page comes back with it and the reason.
        page = _exercise_page(
            request, web, user, session, exercise, code=code, problem=problem, status=status
        )
        return _with_retry_after(page, retry_after)
    return RedirectResponse(f"/app/exercises/{exercise.slug}#results", status_code=303)


def _with_retry_after(response: Response, retry_after: int | None) -> Response:
    if retry_after is not None:
        response.headers["Retry-After"] = str(retry_after)
    return response


@router.get("/app/submissions/{submission_id}")
def read_submission_page(
    request: Request,
    submission_id: RowId,
    web: WebDep,
    user: LearnerDep,
    session: SessionDep,
    ctx: AppDep,
) -> Response:
    assert user.id is not None
    row = submissions.get(session, user_id=user.id, submission_id=submission_id)
    if row is None:
        raise PageNotFound()
    return render(
        request,
        web,
        "submission.html",
        row=row,
        exercise=ctx.catalog.get(row.exercise),
        verdict=verdict_view(submissions.public(row), web.lang),
    )

"""Mock interviews in the browser: start one from a preset, work through it item by item
against each item's clock, finish it (confirming when items are unanswered), read the report
with its rubric, rate the explanation, and see the trend across interviews.

Every action calls the JSON API's own route function, so the page holds back exactly what the
API holds back while an interview runs (no right/wrong; a submission is only "received"). The
rest of practice is paused meanwhile (api.http.hold); ``paused_page`` is its notice.
"""

from __future__ import annotations

import contextlib
from datetime import UTC, datetime
from typing import Annotated, Any

from fastapi import APIRouter, Form, HTTPException, Request
from fastapi.responses import RedirectResponse, Response
from pydantic import ValidationError

from api.content import interview_rubric
from api.content.questions import TOPICS, PublicQuestion
from api.http.deps import AppDep, RowId, SessionDep
from api.http.interviews import (
    InterviewAnswer,
    InterviewCreate,
    SelfRating,
    create_interview,
    create_interview_answer,
    create_interview_submission,
    finish_interview,
    rate_interview,
    read_interview,
    read_interviews,
)
from api.http.ratelimits import Limited
from api.learning import interview_records as records
from api.learning import submissions
from api.learning.interviews import MAX_MINUTES, PRESETS
from api.learning.practice_pause import PracticePaused
from api.models import Interview, SubmissionCreate
from api.web import charts
from api.web.i18n import Lang, text
from api.web.quiz import _raw_answer
from api.web.render import render
from api.web.session import CheckedFormDep, LearnerDep, PageNotFound, WebDep, web_session
from api.web.verdicts import verdict_view

router = APIRouter(include_in_schema=False)

# Refusals travel back to the page as one of these codes (never as free text in a URL).
_PROBLEMS = {404: "iv_not_found", 409: "iv_over", 410: "iv_retired", 422: "iv_invalid"}


def paused_page(request: Request, exc: PracticePaused) -> Response:
    """The notice every held page answers with while the learner's interview runs."""
    from sqlmodel import Session

    with Session(request.app.state.ctx.engine, expire_on_commit=False) as session:
        web = web_session(request, session)
    return render(request, web, "paused.html", status=409, paused=exc)


def _problem(exc: HTTPException) -> str:
    return _PROBLEMS.get(exc.status_code, "iv_failed")


def _interview(
    interview_id: int, ctx: AppDep, user: Any, session: SessionDep, lang: Lang | None = None
) -> Any:
    try:
        return read_interview(interview_id, ctx, user, session, lang=lang)
    except HTTPException as exc:
        if exc.status_code == 404:
            raise PageNotFound() from None
        raise


def _to(path: str, problem: str | None = None, anchor: str = "") -> Response:
    query = f"?problem={problem}" if problem else ""
    return RedirectResponse(f"{path}{query}{anchor}", status_code=303)


def _list_page(
    request: Request,
    web: WebDep,
    user: LearnerDep,
    session: SessionDep,
    ctx: AppDep,
    *,
    problem: str | None = None,
    status: int = 200,
) -> Response:
    past = read_interviews(ctx, user, session)
    return render(
        request,
        web,
        "interviews.html",
        status=status,
        past=past,
        topics=TOPICS,
        presets=PRESETS,
        shortest=ctx.settings.interview_min_minutes,
        longest=MAX_MINUTES,
        problem=problem,
    )


def _given(question: PublicQuestion | None, answer: object, lang: Lang) -> str:
    """An answer as the learner gave it: the choice texts rather than their indices."""
    if answer is None:
        return "–"
    if isinstance(answer, bool):
        return text("true" if answer else "false", lang)
    choices = {c.index: c.text for c in (question.choices or [])} if question else {}
    if isinstance(answer, int) and answer in choices:
        return choices[answer]
    if isinstance(answer, list) and choices:
        return "; ".join(choices.get(a, str(a)) for a in answer if isinstance(a, int)) or "–"
    return str(answer)


@router.get("/app/interviews")
def read_interviews_page(
    request: Request, web: WebDep, user: LearnerDep, session: SessionDep, ctx: AppDep
) -> Response:
    return _list_page(request, web, user, session, ctx)


@router.post("/app/interviews")
def create_interview_page(
    request: Request,
    web: CheckedFormDep,
    user: LearnerDep,
    session: SessionDep,
    ctx: AppDep,
    minutes: Annotated[str, Form(max_length=16)] = "",
    topics: Annotated[list[str] | None, Form()] = None,
    preset: Annotated[str, Form(max_length=16)] = "",
) -> Response:
    chosen = [t for t in (topics or [])[: len(TOPICS)] if t in TOPICS] or None
    fields: dict[str, Any] = {"topics": chosen, "lang": web.lang}
    if minutes.strip():
        fields["minutes"] = minutes.strip().replace(",", ".")
    if preset in PRESETS:
        fields["preset"] = preset
    try:
        body = InterviewCreate.model_validate(fields)
        started = create_interview(body, ctx, user, session)
    except ValidationError:
        return _list_page(request, web, user, session, ctx, problem="iv_minutes", status=422)
    except HTTPException as exc:
        code = "iv_minutes" if "minutes" in str(exc.detail) else _problem(exc)
        return _list_page(request, web, user, session, ctx, problem=code, status=exc.status_code)
    return _to(f"/app/interviews/{started.id}")


@router.get("/app/interviews/{interview_id}")
def read_interview_page(
    request: Request,
    interview_id: RowId,
    web: WebDep,
    user: LearnerDep,
    session: SessionDep,
    ctx: AppDep,
) -> Response:
    assert user.id is not None
    row = _mine(session, user.id, interview_id)
    if row is not None:
        # Back on the list: whichever item was open stops its clock.
        records.leave_open(session, row, now=datetime.now(UTC))
    iv = _interview(interview_id, ctx, user, session, web.lang)
    verdicts: dict[int, Any] = {}
    given: dict[int, str] = {}
    trend = None
    if iv.report is not None:
        trend = charts.trend_chart(
            [(p.id, p.score) for p in iv.report.trend], interview_rubric.MAX_SCORE
        )
        verdicts = {
            r.position: verdict_view(r.verdict, web.lang) for r in iv.report.items if r.verdict
        }
        asked = {i.position: i.question for i in iv.items}
        given = {
            r.position: _given(asked.get(r.position), r.answer, web.lang) for r in iv.report.items
        }
    return render(
        request,
        web,
        "interview.html",
        iv=iv,
        verdicts=verdicts,
        given=given,
        trend=trend,
        points=interview_rubric.EXPLAIN_POINTS,
        point_name=lambda p: interview_rubric.point_name(p, web.lang),
        problem=request.query_params.get("problem"),
    )


def _mine(session: SessionDep, user_id: int, interview_id: int) -> Interview | None:
    """The learner's own interview, or None (another learner's, or none at all)."""
    try:
        return records.get(session, user_id=user_id, interview_id=interview_id)
    except records.InterviewNotFound:
        return None


@router.get("/app/interviews/{interview_id}/finish")
def read_finish_page(
    request: Request,
    interview_id: RowId,
    web: WebDep,
    user: LearnerDep,
    session: SessionDep,
    ctx: AppDep,
) -> Response:
    """The confirm step (no script needed): which items are still unanswered, and a button."""
    iv = _interview(interview_id, ctx, user, session, web.lang)
    if iv.state != "running":
        return _to(f"/app/interviews/{interview_id}", anchor="#report")
    left = [i for i in iv.items if i.status == "open"]
    return render(request, web, "interview_finish.html", iv=iv, left=left)


@router.post("/app/interviews/{interview_id}/finish")
def finish_interview_page(
    interview_id: RowId,
    web: CheckedFormDep,
    user: LearnerDep,
    session: SessionDep,
    ctx: AppDep,
    confirm: Annotated[str, Form(max_length=8)] = "",
) -> Response:
    del web
    try:
        finish_interview(interview_id, ctx, user, session, confirm=confirm == "1")
    except HTTPException as exc:
        if exc.status_code == 404:
            raise PageNotFound() from None
        if exc.status_code == 409 and "confirm=true" in str(exc.detail):
            # Items unanswered: ask first.
            return _to(f"/app/interviews/{interview_id}/finish")
        return _to(f"/app/interviews/{interview_id}", _problem(exc))
    return _to(f"/app/interviews/{interview_id}", anchor="#report")


@router.post("/app/interviews/{interview_id}/self-rating")
def rate_interview_page(
    interview_id: RowId,
    web: CheckedFormDep,
    user: LearnerDep,
    session: SessionDep,
    ctx: AppDep,
    shapes: Annotated[str, Form(max_length=2)] = "0",
    numerical_stability: Annotated[str, Form(max_length=2)] = "0",
    cost: Annotated[str, Form(max_length=2)] = "0",
    training_vs_inference: Annotated[str, Form(max_length=2)] = "0",
) -> Response:
    del web
    here = f"/app/interviews/{interview_id}"
    try:
        body = SelfRating.model_validate(
            {
                "shapes": shapes,
                "numerical_stability": numerical_stability,
                "cost": cost,
                "training_vs_inference": training_vs_inference,
            }
        )
        rate_interview(interview_id, body, ctx, user, session)
    except ValidationError:
        return _to(here, "iv_invalid", "#self-rating")
    except HTTPException as exc:
        if exc.status_code == 404:
            raise PageNotFound() from None
        return _to(here, _problem(exc), "#self-rating")
    return _to(here, anchor="#rubric")


@router.post("/app/interviews/{interview_id}/items/{position}/answers")
def create_interview_answer_page(
    interview_id: RowId,
    position: int,
    web: CheckedFormDep,
    user: LearnerDep,
    session: SessionDep,
    ctx: AppDep,
    choice: Annotated[str, Form(max_length=8)] = "",
    choices: Annotated[list[str] | None, Form()] = None,
    truth: Annotated[str, Form(max_length=8)] = "",
    number: Annotated[str, Form(max_length=64)] = "",
    explanation: Annotated[str, Form(max_length=records.MAX_EXPLANATION_CHARS * 2)] = "",
    back: Annotated[str, Form(max_length=8)] = "",
) -> Response:
    del web
    iv = _interview(interview_id, ctx, user, session)
    item = next((i for i in iv.items if i.position == position), None)
    if item is None or (item.question is None and item.kind != "explain"):
        raise PageNotFound()
    # Answered from the item's own page, the learner lands back there.
    here = (
        f"/app/interviews/{interview_id}/items/{position}"
        if back == "item"
        else f"/app/interviews/{interview_id}"
    )
    raw: object
    if item.kind == "explain":
        raw = explanation.replace("\r\n", "\n").strip() or None
    else:
        assert item.question is not None
        raw = _raw_answer(item.question.type, choice, (choices or [])[:16], truth, number)
    if raw is None:
        return _to(here, "answer_required", f"#item-{position}")
    try:
        create_interview_answer(
            interview_id, position, InterviewAnswer(answer=raw), ctx, user, session
        )
    except HTTPException as exc:
        return _to(here, _problem(exc), f"#item-{position}")
    return _to(here, anchor=f"#item-{position}")


@router.get("/app/interviews/{interview_id}/items/{position}")
def read_interview_item_page(
    request: Request,
    interview_id: RowId,
    position: int,
    web: WebDep,
    user: LearnerDep,
    session: SessionDep,
    ctx: AppDep,
) -> Response:
    """One item on its own page, with its clock: opening it starts the clock (server-side), so
    time is measured per item whatever order the learner takes them in. A coding item shows
    its prompt beside the editor, with the code last submitted for it here."""
    assert user.id is not None
    row = _mine(session, user.id, interview_id)
    if row is None:
        raise PageNotFound()
    if row.state == "running" and any(i["position"] == position for i in row.items):
        # Opening it starts its clock; an interview that just ran out simply records nothing,
        # nor does a learner past the hourly budget of clock moves (the page is still shown).
        with contextlib.suppress(records.InterviewOver, Limited):
            ctx.client_limits.hit("interview_clock", user.id)
            records.record_event(
                session, row, position=position, event="open", now=datetime.now(UTC)
            )
    iv = _interview(interview_id, ctx, user, session, web.lang)
    item = next((i for i in iv.items if i.position == position), None)
    if item is None:
        raise PageNotFound()
    exercise = ctx.catalog.get(item.id) if item.kind == "exercise" else None
    if exercise is None:
        return render(
            request,
            web,
            "interview_item.html",
            iv=iv,
            item=item,
            exercise=None,
            code=None,
            result=None,
            problem=request.query_params.get("problem"),
        )
    # The code last submitted for it since this interview began (the page reopens on it).
    since = iv.started_at
    last = next(
        (
            r
            for r in submissions.list_for(session, user_id=user.id, exercise=exercise.slug)
            if (r.created_at if r.created_at.tzinfo else r.created_at.replace(tzinfo=UTC)) >= since
        ),
        None,
    )
    return render(
        request,
        web,
        "interview_item.html",
        iv=iv,
        item=item,
        exercise=exercise,
        code=last.code if last is not None else exercise.starter_for(web.lang),
        result=request.query_params.get("result"),
        problem=request.query_params.get("problem"),
    )


@router.post("/app/interviews/{interview_id}/items/{position}/submissions")
def create_interview_submission_page(
    request: Request,
    interview_id: RowId,
    position: int,
    web: CheckedFormDep,
    user: LearnerDep,
    session: SessionDep,
    ctx: AppDep,
    code: Annotated[str, Form(max_length=1 << 20)] = "",
) -> Response:
    del web
    here = f"/app/interviews/{interview_id}/items/{position}"
    code = code.replace("\r\n", "\n")
    try:
        outcome = create_interview_submission(
            interview_id, position, SubmissionCreate(code=code), ctx, user, session, request
        )
    except HTTPException as exc:
        if exc.status_code == 404:
            raise PageNotFound() from None
        if exc.status_code == 413:
            return _to(here, "iv_too_large")
        if exc.status_code == 409 and "submissions" in str(exc.detail):
            return _to(here, "iv_limit")
        return _to(here, _problem(exc))
    if not isinstance(outcome, records.SubmissionRecorded):
        # Not graded (the grader busy or broken; 503): nothing recorded, submit again.
        return _to(here, "iv_not_graded")
    return RedirectResponse(
        f"{here}?result=received&left={outcome.attempts_left}#result", status_code=303
    )

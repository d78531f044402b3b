"""Mock interviews in the browser: start one, work through it against the clock (answer its
questions, submit its exercises), finish it, read the report; and the list of past ones.

Every action calls the JSON API's own route function, so the page holds back exactly what the
API holds back while an interview runs (no right/wrong, only passed / not passed).
"""

from __future__ import annotations

from datetime import UTC
from typing import Annotated, Any

from fastapi import APIRouter, Form, HTTPException, Request
from fastapi.responses import RedirectResponse, Response
from pydantic import ValidationError

from api import interview_records as records
from api import submissions
from api.deps import AppDep, RowId, SessionDep
from api.interviews import MAX_MINUTES
from api.models import SubmissionCreate
from api.questions import TOPICS, PublicQuestion
from api.routes.interviews import (
    InterviewAnswer,
    InterviewCreate,
    create_interview,
    create_interview_answer,
    create_interview_submission,
    finish_interview,
    read_interview,
    read_interviews,
)
from api.web.i18n import Lang, text
from api.web.quiz import _raw_answer
from api.web.render import render
from api.web.session import CheckedFormDep, LearnerDep, PageNotFound, WebDep
from api.web.verdicts import verdict_view

router = APIRouter(include_in_schema=False)

# Refusals travel back to the page as one of these codes (never as free text in a URL).
_PROBLEMS = {404: "iv_not_found", 409: "iv_over", 410: "iv_retired", 422: "iv_invalid"}


def _problem(exc: HTTPException) -> str:
    return _PROBLEMS.get(exc.status_code, "iv_failed")


def _interview(interview_id: int, ctx: AppDep, user: Any, session: SessionDep) -> Any:
    try:
        return read_interview(interview_id, ctx, user, session)
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
) -> Response:
    chosen = [t for t in (topics or [])[: len(TOPICS)] if t in TOPICS] or None
    try:
        body = InterviewCreate.model_validate(
            {"minutes": minutes.strip().replace(",", "."), "topics": chosen, "lang": web.lang}
        )
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
    iv = _interview(interview_id, ctx, user, session)
    verdicts: dict[int, Any] = {}
    given: dict[int, str] = {}
    if iv.report is not None:
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
        problem=request.query_params.get("problem"),
    )


@router.post("/app/interviews/{interview_id}/finish")
def finish_interview_page(
    interview_id: RowId, web: CheckedFormDep, user: LearnerDep, session: SessionDep, ctx: AppDep
) -> Response:
    del web
    try:
        finish_interview(interview_id, ctx, user, session)
    except HTTPException as exc:
        if exc.status_code == 404:
            raise PageNotFound() from None
        return _to(f"/app/interviews/{interview_id}", _problem(exc))
    return _to(f"/app/interviews/{interview_id}", anchor="#report")


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
) -> Response:
    del web
    iv = _interview(interview_id, ctx, user, session)
    item = next((i for i in iv.items if i.position == position), None)
    if item is None or item.question is None:
        raise PageNotFound()
    here = f"/app/interviews/{interview_id}"
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
    """A coding item: its prompt beside the editor, with the code last submitted for it here."""
    assert user.id is not None
    iv = _interview(interview_id, ctx, user, session)
    item = next((i for i in iv.items if i.position == position), None)
    exercise = ctx.catalog.get(item.id) if item is not None and item.kind == "exercise" else None
    if exercise is None:
        raise PageNotFound()
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
        return _to(here, "iv_too_large" if exc.status_code == 413 else _problem(exc))
    if not isinstance(outcome, records.SubmissionRecorded):
        # Not graded (the grader busy or broken; 503): nothing recorded, submit again.
        return _to(here, "iv_not_graded")
    return RedirectResponse(f"{here}?result={outcome.result}#result", status_code=303)

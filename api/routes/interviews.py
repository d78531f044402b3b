"""A timed mock interview over HTTP: start it, answer and submit while it runs, read the report.

While it runs, a question's answer is only acknowledged and a submission answers only passed or
not passed; the report, with everything revealed, comes when the learner finishes or the server
finds the time is up.
"""

from __future__ import annotations

import json
import math
import secrets
from datetime import UTC, datetime
from random import Random
from typing import Any

from fastapi import APIRouter, HTTPException, Request
from pydantic import BaseModel, ConfigDict, Field, field_validator

from api import interview_records as records
from api.catalog import Lang
from api.deps import AppDep, CurrentUser, RowId, SessionDep
from api.interviews import MAX_MINUTES
from api.jsonbody import Body
from api.limited import client_key
from api.models import Interview, SubmissionCreate
from api.questions import TOPICS, AnswerShapeError, Topic
from api.routes.questions import shape_error_detail
from api.routes.submissions import grade_submission

router = APIRouter(tags=["interviews"])


class InterviewCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    minutes: float = Field(gt=0, allow_inf_nan=False, description="length of the interview")
    topics: list[Topic] | None = Field(
        default=None,
        min_length=1,
        max_length=len(TOPICS),
        description="draw from these topics only; default: the learner's weaker topics",
    )
    lang: Lang = "en"

    @field_validator("minutes", mode="before")
    @classmethod
    def _non_finite_as_text(cls, value: object) -> object:
        # JSON bodies may carry NaN / Infinity; a 422 that echoes them as floats cannot be
        # encoded (allow_nan=False) and would become a 500. As text they are refused the same way.
        if isinstance(value, float) and not math.isfinite(value):
            return str(value)
        return value


class InterviewAnswer(BaseModel):
    model_config = ConfigDict(extra="forbid")

    answer: Any


_STATUS: dict[type[records.InterviewError], int] = {
    records.InterviewNotFound: 404,
    records.ItemNotFound: 404,
    records.InterviewOver: 409,
    records.InterviewRunning: 409,
    records.AlreadyAnswered: 409,
    records.WrongItemKind: 422,
    records.NothingToAsk: 422,
    records.ItemRetired: 410,
    records.StartCollided: 409,
}


def _refuse(exc: records.InterviewError) -> HTTPException:
    return HTTPException(_STATUS.get(type(exc), 400), detail=str(exc))


def _now() -> datetime:
    return datetime.now(UTC)


def _settled(ctx: AppDep, user_id: int, session: SessionDep, interview_id: int) -> Interview:
    """The learner's interview, ended first if its time is up."""
    row = records.get(session, user_id=user_id, interview_id=interview_id)
    return records.settle(session, row, bank=ctx.questions, catalog=ctx.catalog, now=_now())


@router.post("/interviews", status_code=201, response_model=records.InterviewPublic)
def create_interview(
    body: InterviewCreate, ctx: AppDep, user: CurrentUser, session: SessionDep
) -> records.InterviewPublic:
    """Start a mock interview: one or two coding exercises and a handful of questions."""
    assert user.id is not None
    shortest = ctx.settings.interview_min_minutes
    if not shortest <= body.minutes <= MAX_MINUTES:
        raise HTTPException(422, detail=f"minutes must be between {shortest:g} and {MAX_MINUTES:g}")
    now = _now()
    try:
        row = records.start(
            session,
            user_id=user.id,
            bank=ctx.questions,
            catalog=ctx.catalog,
            minutes=body.minutes,
            topics=body.topics,
            lang=body.lang,
            now=now,
            rng=Random(secrets.randbits(64)),
        )
    except records.InterviewError as exc:
        raise _refuse(exc) from None
    return records.view(session, row, bank=ctx.questions, catalog=ctx.catalog, now=now)


@router.get("/interviews", response_model=list[records.InterviewSummary])
def read_interviews(
    ctx: AppDep, user: CurrentUser, session: SessionDep
) -> list[records.InterviewSummary]:
    assert user.id is not None
    records.settle_expired(
        session, user_id=user.id, bank=ctx.questions, catalog=ctx.catalog, now=_now()
    )
    return [records.summary(r) for r in records.list_for(session, user_id=user.id)]


@router.get("/interviews/{interview_id}", response_model=records.InterviewPublic)
def read_interview(
    interview_id: RowId, ctx: AppDep, user: CurrentUser, session: SessionDep
) -> records.InterviewPublic:
    """The interview; once it has ended, with its report."""
    assert user.id is not None
    try:
        row = _settled(ctx, user.id, session, interview_id)
    except records.InterviewError as exc:
        raise _refuse(exc) from None
    return records.view(session, row, bank=ctx.questions, catalog=ctx.catalog, now=_now())


@router.post("/interviews/{interview_id}/finish", response_model=records.InterviewPublic)
def finish_interview(
    interview_id: RowId, ctx: AppDep, user: CurrentUser, session: SessionDep
) -> records.InterviewPublic:
    """End the interview now and answer with its report (an ended one: the same report)."""
    assert user.id is not None
    now = _now()
    try:
        row = records.get(session, user_id=user.id, interview_id=interview_id)
        records.finish(session, row, bank=ctx.questions, catalog=ctx.catalog, now=now)
    except records.InterviewError as exc:
        raise _refuse(exc) from None
    return records.view(session, row, bank=ctx.questions, catalog=ctx.catalog, now=now)


@router.post(
    "/interviews/{interview_id}/items/{position}/answers",
    status_code=201,
    response_model=records.AnswerRecorded,
)
def create_interview_answer(
    interview_id: RowId,
    position: int,
    body: InterviewAnswer,
    ctx: AppDep,
    user: CurrentUser,
    session: SessionDep,
) -> records.AnswerRecorded:
    """Answer a question of the interview: recorded, with no word on whether it is right."""
    assert user.id is not None
    now = _now()
    try:
        row = _settled(ctx, user.id, session, interview_id)
        records.answer(
            session,
            row,
            position=position,
            raw_answer=body.answer,
            bank=ctx.questions,
            now=now,
        )
    except records.InterviewError as exc:
        raise _refuse(exc) from None
    except AnswerShapeError as exc:
        lang: Lang = "zh" if row.lang == "zh" else "en"
        raise HTTPException(422, detail=shape_error_detail(exc, lang)) from None
    return records.AnswerRecorded(
        position=position, recorded=True, remaining_seconds=records.remaining_seconds(row, now)
    )


@router.post(
    "/interviews/{interview_id}/items/{position}/submissions",
    status_code=201,
    response_model=records.SubmissionRecorded,
)
def create_interview_submission(
    interview_id: RowId,
    position: int,
    body: SubmissionCreate,
    ctx: AppDep,
    user: CurrentUser,
    session: SessionDep,
    request: Request,
) -> records.SubmissionRecorded | Body:
    """Submit code for a coding item: graded as usual, answered with passed / not passed only."""
    assert user.id is not None
    now = _now()
    try:
        row = _settled(ctx, user.id, session, interview_id)
        exercise = records.submittable(row, position, ctx.catalog)
    except records.InterviewError as exc:
        raise _refuse(exc) from None
    graded = grade_submission(
        body, exercise, user, session, ctx, client_key(request), always_store=True
    )
    outcome = json.loads(bytes(graded.body))
    if graded.status_code not in (201, 202):
        # Not graded (grader busy or broken): pass the refusal on, without the submission id,
        # and record nothing, so the learner simply submits again.
        headers = {k: v for k, v in graded.headers.items() if k.lower() == "retry-after"}
        return Body(
            {"detail": outcome.get("detail", "Not graded")},
            status_code=graded.status_code,
            headers=headers,
        )
    records.record_submission(
        session, row, position=position, submission_id=_submission_id(graded, outcome), at=now
    )
    recorded = records.SubmissionRecorded(
        position=position,
        result=records.submission_result(outcome.get("verdict"), outcome.get("state", "")),
        remaining_seconds=records.remaining_seconds(row, now),
    )
    if graded.status_code == 202:
        # Queue mode: accepted, verdict to come; the report reads it from the submission row.
        return Body(recorded.model_dump(mode="json"), status_code=202)
    return recorded


def _submission_id(graded: Body, outcome: dict[str, Any]) -> int:
    """The id of the submission just made: in the body of a verdict, or (queue mode, 202) in
    the body or the ``Location`` to poll, ``/submissions/{id}``."""
    if isinstance(outcome.get("id"), int):
        return int(outcome["id"])
    location = graded.headers.get("location", "")
    return int(location.rstrip("/").rsplit("/", 1)[-1])

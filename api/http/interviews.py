"""A timed mock interview over HTTP: start it, answer and submit while it runs, read the report.

While it runs, an answer is only acknowledged and a submission only "received" (its verdict is
the report's); the rest of practice is paused (api.http.hold). The report, with everything revealed,
comes when the learner finishes or the server finds the time is up.
"""

from __future__ import annotations

import json
import math
import secrets
from datetime import UTC, datetime
from random import Random
from typing import Any, Literal

from fastapi import APIRouter, HTTPException, Request
from pydantic import BaseModel, ConfigDict, Field, field_validator

from api.content.catalog import Lang
from api.content.questions import TOPICS, AnswerShapeError, Topic
from api.http.deps import AppDep, CurrentUser, RowId, SessionDep
from api.http.limited import client_key
from api.http.submissions import grade_submission
from api.jsonbody import Body
from api.learning import interview_records as records
from api.learning.interviews import DEFAULT_PRESET, MAX_MINUTES, PRESETS
from api.models import Interview, SubmissionCreate

router = APIRouter(tags=["interviews"])


class InterviewCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    preset: Literal["phone_screen", "onsite", "concepts"] | None = Field(
        default=None,
        description="phone_screen (20 min: one exercise, two follow-ups), onsite (45 min: two "
        "exercises, follow-ups, explain; the default), concepts (20 min of questions)",
    )
    minutes: float | None = Field(
        default=None,
        gt=0,
        allow_inf_nan=False,
        description="length of the interview; default: the preset's",
    )
    max_attempts: int | None = Field(
        default=None, ge=1, le=10, description="submissions per coding item (default 3)"
    )
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


class SelfRating(BaseModel):
    model_config = ConfigDict(extra="forbid")

    # Each point of the rubric: 0 missed, 1 touched on it, 2 covered as the model answer does.
    shapes: int = Field(ge=0, le=2)
    numerical_stability: int = Field(ge=0, le=2)
    cost: int = Field(ge=0, le=2)
    training_vs_inference: int = Field(ge=0, le=2)


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
    records.AttemptLimit: 409,
    records.UnansweredItems: 409,
    records.NotEnded: 409,
    records.NothingToRate: 422,
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
    """Start a mock interview from a preset (by default the 45-minute on-site round): items
    easy to hard, each with its time budget."""
    assert user.id is not None
    shortest = ctx.settings.interview_min_minutes
    preset = body.preset or DEFAULT_PRESET
    minutes = body.minutes if body.minutes is not None else PRESETS[preset].minutes
    if not shortest <= minutes <= MAX_MINUTES:
        raise HTTPException(422, detail=f"minutes must be between {shortest:g} and {MAX_MINUTES:g}")
    ctx.client_limits.hit("interviews", user.id)
    now = _now()
    try:
        row = records.start(
            session,
            user_id=user.id,
            bank=ctx.questions,
            catalog=ctx.catalog,
            minutes=minutes,
            topics=body.topics,
            lang=body.lang,
            now=now,
            rng=Random(secrets.randbits(64)),
            preset=preset,
            max_attempts=body.max_attempts or ctx.settings.interview_max_attempts,
            content_dir=ctx.settings.content_dir,
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
    interview_id: RowId,
    ctx: AppDep,
    user: CurrentUser,
    session: SessionDep,
    lang: Lang | None = None,
) -> records.InterviewPublic:
    """The interview; once it has ended, with its report. ``lang``: read it in the other
    language than the one it was started in."""
    assert user.id is not None
    try:
        row = _settled(ctx, user.id, session, interview_id)
    except records.InterviewError as exc:
        raise _refuse(exc) from None
    return records.view(
        session, row, bank=ctx.questions, catalog=ctx.catalog, now=_now(), lang=lang
    )


@router.post("/interviews/{interview_id}/finish", response_model=records.InterviewPublic)
def finish_interview(
    interview_id: RowId,
    ctx: AppDep,
    user: CurrentUser,
    session: SessionDep,
    confirm: bool = False,
) -> records.InterviewPublic:
    """End the interview now and answer with its report (an ended one: the same report).

    With items unanswered it is a 409 listing them unless ``confirm=true``: they are then
    reported as unanswered."""
    assert user.id is not None
    now = _now()
    try:
        row = records.get(session, user_id=user.id, interview_id=interview_id)
        records.finish(
            session, row, bank=ctx.questions, catalog=ctx.catalog, now=now, confirm=confirm
        )
    except records.InterviewError as exc:
        raise _refuse(exc) from None
    return records.view(session, row, bank=ctx.questions, catalog=ctx.catalog, now=now)


@router.post("/interviews/{interview_id}/self-rating", response_model=records.InterviewPublic)
def rate_interview(
    interview_id: RowId,
    body: SelfRating,
    ctx: AppDep,
    user: CurrentUser,
    session: SessionDep,
) -> records.InterviewPublic:
    """After the end: rate the explanation against the model answer, point by point (0..2).
    The rating goes into the report and, the first time, the explained exercise's review."""
    assert user.id is not None
    now = _now()
    try:
        row = _settled(ctx, user.id, session, interview_id)
        records.rate_self(session, row, points=body.model_dump(), catalog=ctx.catalog, now=now)
    except records.InterviewError as exc:
        raise _refuse(exc) from None
    return records.view(session, row, bank=ctx.questions, catalog=ctx.catalog, now=now)


def _clock(
    interview_id: int,
    position: int,
    event: Literal["open", "leave"],
    ctx: AppDep,
    user_id: int,
    session: SessionDep,
) -> records.ItemClock:
    ctx.client_limits.hit("interview_clock", user_id)
    now = _now()
    try:
        row = _settled(ctx, user_id, session, interview_id)
        return records.record_event(session, row, position=position, event=event, now=now)
    except records.InterviewError as exc:
        raise _refuse(exc) from None


@router.post("/interviews/{interview_id}/items/{position}/open", response_model=records.ItemClock)
def open_interview_item(
    interview_id: RowId, position: int, ctx: AppDep, user: CurrentUser, session: SessionDep
) -> records.ItemClock:
    """The learner turns to this item: its clock runs until another is opened or it is left."""
    assert user.id is not None
    return _clock(interview_id, position, "open", ctx, user.id, session)


@router.post("/interviews/{interview_id}/items/{position}/leave", response_model=records.ItemClock)
def leave_interview_item(
    interview_id: RowId, position: int, ctx: AppDep, user: CurrentUser, session: SessionDep
) -> records.ItemClock:
    """The learner steps away from this item: its clock stops."""
    assert user.id is not None
    return _clock(interview_id, position, "leave", ctx, user.id, session)


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
    """Answer a question or follow-up (its answer as for POST /questions/{id}/answers), or an
    explain item (a few sentences of text): recorded, with no word on whether it is right.
    Counted with the learner's other answers (ADDNORM_ANSWERS_PER_HOUR)."""
    assert user.id is not None
    ctx.client_limits.hit("answers", user.id)
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
        raise HTTPException(422, detail=exc.detail(lang)) from None
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
    """Submit code for a coding item: graded as usual, answered only "received" (the verdict is
    the report's), within the interview's limit of submissions per item."""
    assert user.id is not None
    now = _now()
    try:
        row = _settled(ctx, user.id, session, interview_id)
        exercise, attempt = records.reserve_attempt(session, row, position, ctx.catalog, now)
    except records.InterviewError as exc:
        raise _refuse(exc) from None
    try:
        graded = grade_submission(
            body, exercise, user, session, ctx, client_key(request), always_store=True
        )
    except BaseException:
        records.release_attempt(session, attempt)
        raise
    outcome = json.loads(bytes(graded.body))
    if graded.status_code not in (201, 202):
        # Not graded (grader busy or broken, the code refused before grading): pass the
        # refusal on, without the submission id, and give the attempt back, so the learner
        # simply submits again.
        records.release_attempt(session, attempt)
        headers = {k: v for k, v in graded.headers.items() if k.lower() == "retry-after"}
        return Body(
            {"detail": outcome.get("detail", "Not graded")},
            status_code=graded.status_code,
            headers=headers,
        )
    submission_id = _submission_id(graded, outcome)
    made = records.attach_submission(session, row, attempt, submission_id)
    recorded = records.SubmissionRecorded(
        position=position,
        submission_id=submission_id,
        attempts=made,
        attempts_left=max(0, row.max_attempts - made),
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

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from fastapi import APIRouter, HTTPException
from pydantic import BaseModel

from api.content.catalog import Lang
from api.content.questions import (
    AnswerResult,
    AnswerShapeError,
    PublicQuestion,
    Question,
    QuestionBank,
    QuestionNotFound,
    QuestionType,
    Topic,
    public_view,
)
from api.http.deps import AppDep, CurrentUser, SessionDep
from api.learning import interview_records, practice
from api.learning.practice import NextReviewPublic

router = APIRouter(tags=["questions"])


class AnswerCreate(BaseModel):
    answer: Any


class AnswerChecked(AnswerResult):
    next_review: NextReviewPublic


def _bank(ctx: AppDep) -> QuestionBank:
    bank: QuestionBank = ctx.questions
    return bank


def _question(ctx: AppDep, question_id: str) -> Question:
    try:
        return _bank(ctx).get(question_id)
    except QuestionNotFound:
        raise HTTPException(404, detail="Question not found") from None


@router.get("/questions", response_model=list[PublicQuestion])
def read_questions(
    ctx: AppDep,
    user: CurrentUser,
    topic: Topic | None = None,
    type: QuestionType | None = None,
    lang: Lang = "en",
) -> list[PublicQuestion]:
    del user
    return [public_view(q, lang) for q in _bank(ctx).select(topic=topic, type=type)]


@router.get("/questions/{question_id}", response_model=PublicQuestion)
def read_question(
    ctx: AppDep, user: CurrentUser, question_id: str, lang: Lang = "en"
) -> PublicQuestion:
    del user
    return public_view(_question(ctx, question_id), lang)


@router.post("/questions/{question_id}/answers", response_model=AnswerChecked)
def create_answer(
    ctx: AppDep,
    user: CurrentUser,
    session: SessionDep,
    question_id: str,
    body: AnswerCreate,
    lang: Lang = "en",
) -> AnswerChecked:
    """Check an answer, store it, reschedule the question and say when it comes back."""
    assert user.id is not None
    question = _question(ctx, question_id)
    now = datetime.now(UTC)
    ctx.client_limits.hit("answers", user.id)
    try:
        answered = practice.answer_question(
            session,
            user_id=user.id,
            question=question,
            raw_answer=body.answer,
            lang=lang,
            now=now,
        )
    except AnswerShapeError as exc:
        raise HTTPException(422, detail=exc.detail(lang)) from None
    return AnswerChecked(
        **answered.result.model_dump(),
        next_review=NextReviewPublic.of(answered.next_review),
    )


@router.get("/review")
def read_review(
    ctx: AppDep, user: CurrentUser, session: SessionDep, lang: Lang = "en"
) -> dict[str, Any]:
    """What is due now, most overdue first: questions and exercises alike."""
    assert user.id is not None
    _settle_interviews(ctx, user.id, session)
    due = practice.due_reviews(
        session,
        user_id=user.id,
        bank=_bank(ctx),
        catalog=ctx.catalog,
        lang=lang,
        now=datetime.now(UTC),
    )
    return {"due": due, "count": len(due)}


@router.get("/session")
def read_session(
    ctx: AppDep,
    user: CurrentUser,
    session: SessionDep,
    lang: Lang = "en",
    max_new: int = 5,
    max_reviews: int = 20,
) -> dict[str, Any]:
    """Today's practice set: due reviews, then new items from the weakest topic."""
    assert user.id is not None
    if not (0 <= max_new <= 50 and 0 <= max_reviews <= 200):
        raise HTTPException(422, detail="max_new must be 0..50 and max_reviews 0..200")
    _settle_interviews(ctx, user.id, session)
    return practice.practice_session(
        session,
        user_id=user.id,
        bank=_bank(ctx),
        catalog=ctx.catalog,
        lang=lang,
        now=datetime.now(UTC),
        max_reviews=max_reviews,
        max_new=max_new,
    )


def _settle_interviews(ctx: AppDep, user_id: int, session: SessionDep) -> None:
    # An interview whose time ran out unseen still counts: its held answers reach review now.
    interview_records.settle_expired(
        session, user_id=user_id, bank=_bank(ctx), catalog=ctx.catalog, now=datetime.now(UTC)
    )

"""Conceptual questions: browse by topic and type, answer, read the explanation and source;
and today's review session."""

from __future__ import annotations

import math
from datetime import UTC, datetime
from typing import Annotated

from fastapi import APIRouter, Form, Request
from fastapi.responses import Response

from api.content.questions import (
    QUESTION_TYPES,
    TOPICS,
    AnswerResult,
    AnswerShapeError,
    Question,
    QuestionBank,
    QuestionNotFound,
    public_view,
)
from api.http.deps import AppDep, SessionDep
from api.learning import practice
from api.web.i18n import Lang
from api.web.render import render
from api.web.session import CheckedFormDep, LearnerDep, PageNotFound, WebDep

router = APIRouter(include_in_schema=False)


def _question(bank: QuestionBank, question_id: str) -> Question:
    try:
        return bank.get(question_id)
    except QuestionNotFound:
        raise PageNotFound() from None


def _next_id(bank: QuestionBank, question: Question) -> str | None:
    same_topic = [q.id for q in bank.select(topic=question.topic)]
    at = same_topic.index(question.id)
    return same_topic[at + 1] if at + 1 < len(same_topic) else None


@router.get("/app/quiz")
def read_quiz(
    request: Request,
    web: WebDep,
    user: LearnerDep,
    ctx: AppDep,
    topic: str = "",
    type: str = "",
) -> Response:
    del user
    # Unknown filter values from a hand-edited URL mean "no filter", not an error page.
    chosen_topic = topic if topic in TOPICS else None
    chosen_type = type if type in QUESTION_TYPES else None
    found = ctx.questions.select(topic=chosen_topic, type=chosen_type)
    return render(
        request,
        web,
        "quiz.html",
        questions=[public_view(q, web.lang) for q in found],
        topics=TOPICS,
        types=QUESTION_TYPES,
        chosen_topic=chosen_topic or "",
        chosen_type=chosen_type or "",
    )


def _question_page(
    request: Request,
    web: WebDep,
    bank: QuestionBank,
    question: Question,
    *,
    result: AnswerResult | None = None,
    next_review: str | None = None,
    problem: str | None = None,
    status: int = 200,
) -> Response:
    return render(
        request,
        web,
        "question.html",
        status=status,
        question=public_view(question, web.lang),
        result=result,
        # Sources name the article by its title (the bank validates it against _sources.yaml).
        source_title=question.source.article if result and question.source else None,
        next_review=next_review,
        problem=problem,
        next_id=_next_id(bank, question),
    )


@router.get("/app/quiz/{question_id}")
def read_question_page(
    request: Request, question_id: str, web: WebDep, user: LearnerDep, ctx: AppDep
) -> Response:
    del user
    return _question_page(request, web, ctx.questions, _question(ctx.questions, question_id))


def _raw_answer(
    question_type: str, choice: str, choices: list[str], truth: str, number: str
) -> object:
    """The form's fields as the JSON answer the API takes; None when nothing was given."""
    if question_type in ("single_choice", "code_reading"):
        return int(choice) if choice.isdigit() else None
    if question_type == "multiple_select":
        # Nothing ticked is a legitimate (wrong) answer, as in the API: "none of these apply".
        return [int(c) for c in choices if c.isdigit()]
    if question_type == "true_false":
        return {"true": True, "false": False}.get(truth)
    if question_type == "numeric":
        try:
            value = float(number.strip().replace(",", "."))
        except ValueError:
            return None
        return value if math.isfinite(value) else None
    return None


@router.post("/app/quiz/{question_id}")
def create_answer_page(
    request: Request,
    question_id: str,
    web: CheckedFormDep,
    user: LearnerDep,
    session: SessionDep,
    ctx: AppDep,
    choice: Annotated[str, Form(max_length=8)] = "",
    choices: Annotated[list[str] | None, Form()] = None,
    truth: Annotated[str, Form(max_length=8)] = "",
    number: Annotated[str, Form(max_length=64)] = "",
) -> Response:
    assert user.id is not None
    question = _question(ctx.questions, question_id)
    raw = _raw_answer(question.type, choice, (choices or [])[:16], truth, number)
    if raw is None:
        return _question_page(
            request, web, ctx.questions, question, problem="answer_required", status=422
        )
    lang: Lang = web.lang
    ctx.client_limits.hit("answers", user.id)
    try:
        answered = practice.answer_question(
            session,
            user_id=user.id,
            question=question,
            raw_answer=raw,
            lang=lang,
            now=datetime.now(UTC),
        )
    except AnswerShapeError:
        return _question_page(
            request, web, ctx.questions, question, problem="answer_required", status=422
        )
    return _question_page(
        request,
        web,
        ctx.questions,
        question,
        result=answered.result,
        next_review=answered.next_review.text,
    )


@router.get("/app/review")
def read_review_page(
    request: Request, web: WebDep, user: LearnerDep, session: SessionDep, ctx: AppDep
) -> Response:
    assert user.id is not None
    plan = practice.practice_session(
        session,
        user_id=user.id,
        bank=ctx.questions,
        catalog=ctx.catalog,
        lang=web.lang,
        now=datetime.now(UTC),
    )
    return render(request, web, "review.html", plan=plan)

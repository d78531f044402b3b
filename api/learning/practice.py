"""Questions answered and exercises graded, as spaced-review cards and topic mastery.

The thin adapter between the pure scheduling functions (api.learning.review) and the tables: it
reads and writes ``QuestionAnswer`` and ``ReviewCard`` rows, always with the time passed in.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, NamedTuple

from pydantic import BaseModel
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlmodel import Session, select

from api.content.catalog import Exercise, Lang
from api.content.questions import (
    AnswerResult,
    Question,
    QuestionBank,
    Topic,
    check_answer,
    public_view,
)
from api.learning import hints, practice_pause, review, submissions
from api.models import QuestionAnswer, ReviewCard, Submission


def _aware(moment: datetime) -> datetime:
    # SQLite returns naive datetimes; everything stored is UTC.
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def _locked_card(session: Session, *, user_id: int, kind: str, item_id: str) -> ReviewCard | None:
    # FOR UPDATE on PostgreSQL (SQLite ignores it; its writers are serialised anyway): two
    # reviews of one card at once (two gradings of an exercise finishing together, two tabs
    # answering one question) are applied one after the other, instead of both reading one
    # state and the later commit dropping the other's review.
    return session.exec(
        select(ReviewCard)
        .where(
            ReviewCard.user_id == user_id, ReviewCard.kind == kind, ReviewCard.item_id == item_id
        )
        .with_for_update()
    ).first()


def _insert_card(session: Session, card: dict[str, Any]) -> bool:
    """Insert a first card unless one exists by then; True when this insert made it.

    ON CONFLICT DO NOTHING rather than a plain insert: on PostgreSQL a concurrent first review
    of the same item waits on the other's uncommitted row and, once it commits, finds it there
    instead of failing the whole transaction (and the verdict with it) on the unique key."""
    dialect = session.get_bind().dialect.name
    insert = sqlite_insert if dialect == "sqlite" else postgresql_insert
    result = session.execute(
        insert(ReviewCard.__table__).values(**card).on_conflict_do_nothing()  # type: ignore[attr-defined]
    )
    return bool(result.rowcount)  # type: ignore[attr-defined]


def _rate(
    session: Session,
    *,
    user_id: int,
    kind: str,
    item_id: str,
    topic: str,
    rating: review.Rating,
    now: datetime,
) -> ReviewCard:
    row = _locked_card(session, user_id=user_id, kind=kind, item_id=item_id)
    if row is None:
        first = review.review(None, rating, now)
        card = {"user_id": user_id, "kind": kind, "item_id": item_id, "topic": topic}
        made = _insert_card(
            session, {**card, "card": first.card_json, "due": first.due, "updated_at": now}
        )
        row = _locked_card(session, user_id=user_id, kind=kind, item_id=item_id)
        if row is None:
            raise RuntimeError(f"the review card {card} was neither found nor made")
        if made:
            return row
    # Reviews are applied in commit order, not in the order their requests were stamped: one
    # stamped earlier that waited on the lock above counts as given with the later one.
    at = max(now, review.last_review(row.card) or now)
    reviewed = review.review(row.card, rating, at)
    row.card, row.due, row.updated_at = reviewed.card_json, reviewed.due, at
    session.add(row)
    return row


class NextReviewPublic(BaseModel):
    """When an item comes back for review: ``text`` is "in 10 minutes", "tomorrow", ..."""

    due: datetime
    in_seconds: int
    text: str

    @classmethod
    def of(cls, told: review.NextReview) -> NextReviewPublic:
        return cls(due=told.due, in_seconds=told.in_seconds, text=told.text)


class Answered(NamedTuple):
    result: AnswerResult
    next_review: review.NextReview


def answer_question(
    session: Session,
    *,
    user_id: int,
    question: Question,
    raw_answer: object,
    lang: Lang,
    now: datetime,
) -> Answered:
    """Check, store the answer, and reschedule the question's card. Raises AnswerShapeError,
    and PracticePaused while the learner's mock interview runs (its key must not be had here)."""
    practice_pause.ensure_open(session, user_id=user_id, now=now)
    result = check_answer(question, raw_answer, lang)
    card = record_answer(
        session, user_id=user_id, question=question, result=result, answered_at=now, now=now
    )
    session.commit()
    return Answered(result, review.describe_due(_aware(card.due), now, lang))


def record_answer(
    session: Session,
    *,
    user_id: int,
    question: Question,
    result: AnswerResult,
    answered_at: datetime,
    now: datetime,
) -> ReviewCard:
    """Store a checked answer given at ``answered_at`` and review its card at ``now``.

    The two differ for an interview, whose answers are held back until it ends (so neither
    /progress nor /review gives away whether an answer was right while it runs). Does not
    commit."""
    session.add(
        QuestionAnswer(
            user_id=user_id,
            question_id=question.id,
            topic=question.topic,
            answer=result.answer,
            correct=result.correct,
            created_at=answered_at,
        )
    )
    return _rate(
        session,
        user_id=user_id,
        kind="question",
        item_id=question.id,
        topic=question.topic,
        rating=review.rate_question(result.correct),
        now=now,
    )


def next_review(
    session: Session, *, user_id: int, kind: str, item_id: str, lang: Lang, now: datetime
) -> review.NextReview | None:
    """When the learner's card for an item comes back, or None when they have no card."""
    row = session.exec(
        select(ReviewCard).where(
            ReviewCard.user_id == user_id, ReviewCard.kind == kind, ReviewCard.item_id == item_id
        )
    ).first()
    return review.describe_due(_aware(row.due), now, lang) if row is not None else None


def record_verdict(
    session: Session, *, user_id: int, exercise: Exercise, submission: Submission, now: datetime
) -> None:
    """Reschedule the exercise's card from a verdict (first-try pass Good, later pass Hard, a
    pass after hints Hard, after the worked solution Again).

    Does not commit: the caller commits it together with the verdict it comes from."""
    assert submission.id is not None and submission.verdict is not None
    # Any verdict but a pass rates Again whatever came before: the lookups are for passes only,
    # and most submissions do not pass.
    rating = (
        _rate_pass(session, user_id=user_id, exercise=exercise.slug, submission_id=submission.id)
        if submission.verdict == "passed"
        else review.rate_exercise(submission.verdict, previous_failures=0)
    )
    _rate(
        session,
        user_id=user_id,
        kind="exercise",
        item_id=exercise.slug,
        topic=exercise.meta.topic,
        rating=rating,
        now=now,
    )


def record_self_rating(
    session: Session, *, user_id: int, exercise: Exercise, grade: int, now: datetime
) -> None:
    """Reschedule the exercise's card from the learner's rating of their own explanation of it
    (1 Again .. 4 Easy; see api.content.interview_rubric.self_rating_grade). Does not commit."""
    _rate(
        session,
        user_id=user_id,
        kind="exercise",
        item_id=exercise.slug,
        topic=exercise.meta.topic,
        rating=review.Rating(max(1, min(4, grade))),
        now=now,
    )


def _rate_pass(
    session: Session, *, user_id: int, exercise: str, submission_id: int
) -> review.Rating:
    """How a pass rates: the card was last rated Good or Hard at the last pass, so the failures
    since then make this pass Hard, and so do hints or the worked solution shown since. Two
    indexed lookups, not a read of every earlier verdict (a learner may have hundreds on one
    exercise)."""
    last = hints.last_pass(session, user_id=user_id, exercise=exercise, before_id=submission_id)
    failures = submissions.count_done(
        session,
        user_id=user_id,
        exercise=exercise,
        after_id=last.id if last is not None else 0,
        before_id=submission_id,
    )
    help_taken = hints.taken_since(
        session, user_id=user_id, exercise=exercise, since=last.at if last else None
    )
    return review.rate_exercise("passed", failures, help_taken)


def _cards(session: Session, user_id: int) -> list[ReviewCard]:
    return list(session.exec(select(ReviewCard).where(ReviewCard.user_id == user_id)))


def _describe(
    kind: str, item_id: str, bank: QuestionBank, catalog: dict[str, Exercise], lang: Lang
) -> dict[str, Any]:
    if kind == "question" and item_id in bank:
        q = public_view(bank.get(item_id), lang)
        return {"kind": kind, "id": item_id, "topic": q.topic, "prompt": q.prompt}
    if kind == "exercise" and item_id in catalog:
        e = catalog[item_id]
        return {"kind": kind, "id": item_id, "topic": e.meta.topic, "title": e.title(lang)}
    return {"kind": kind, "id": item_id}


def due_reviews(
    session: Session,
    *,
    user_id: int,
    bank: QuestionBank,
    catalog: dict[str, Exercise],
    lang: Lang,
    now: datetime,
) -> list[dict[str, Any]]:
    scheduled = [
        review.ScheduledItem(c.kind, c.item_id, _aware(c.due))  # type: ignore[arg-type]
        for c in _cards(session, user_id)
    ]
    return [
        {
            **_describe(s.kind, s.item_id, bank, catalog, lang),
            "due": s.due.isoformat(),
            "overdue_seconds": round((now - s.due).total_seconds()),
        }
        for s in review.due_items(scheduled, now)
    ]


def practice_catalogue(bank: QuestionBank, catalog: dict[str, Exercise]) -> list[review.ItemRef]:
    """Every question and every exercise, with the topics the exercise's folder declares."""
    return review.catalogue_items(bank, {slug: e.meta.topics for slug, e in catalog.items()})


def mastery(
    session: Session, *, user_id: int, bank: QuestionBank, catalog: dict[str, Exercise]
) -> dict[Topic, review.TopicMastery]:
    answers = [
        review.AnswerRecord(a.question_id, a.correct, _aware(a.created_at))
        for a in session.exec(select(QuestionAnswer).where(QuestionAnswer.user_id == user_id))
    ]
    verdicts = [
        review.VerdictRecord(s.exercise, s.verdict or "", _aware(s.completed_at or s.created_at))
        for s in session.exec(
            select(Submission)
            .where(Submission.user_id == user_id, Submission.state == "done")
            .options(*submissions.SUMMARY_ONLY)
        )
    ]
    catalogue = practice_catalogue(bank, catalog)
    return review.topic_mastery(catalogue=catalogue, answers=answers, verdicts=verdicts)


def practice_session(
    session: Session,
    *,
    user_id: int,
    bank: QuestionBank,
    catalog: dict[str, Exercise],
    lang: Lang,
    now: datetime,
    max_reviews: int = 20,
    max_new: int = 5,
) -> dict[str, Any]:
    cards = [
        review.ScheduledItem(c.kind, c.item_id, _aware(c.due))  # type: ignore[arg-type]
        for c in _cards(session, user_id)
    ]
    catalogue = practice_catalogue(bank, catalog)
    levels: dict[Topic, float] = {
        t: m.mastery
        for t, m in mastery(session, user_id=user_id, bank=bank, catalog=catalog).items()
    }
    plan = review.compose_session(
        cards=cards,
        catalogue=catalogue,
        mastery=levels,
        now=now,
        max_reviews=max_reviews,
        max_new=max_new,
    )
    return {
        "reviews": [
            {**_describe(r.kind, r.item_id, bank, catalog, lang), "due": r.due.isoformat()}
            for r in plan.reviews
        ],
        "new": [_describe(i.kind, i.item_id, bank, catalog, lang) for i in plan.new],
        "focus_topics": plan.focus_topics,
    }

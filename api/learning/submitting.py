"""Grading a stored submission and recording its one verdict: the service function that the
embedded route, start-up recovery and the queue worker all call.

No HTTP here: the caller maps the outcomes (a verdict, ``GradingLost``/``PoolBusy`` from the
pool, a closed row) to its own answers, retries or logs.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime

from sqlalchemy import Engine
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select

from api.content.catalog import Exercise
from api.grading.grader import Grader
from api.grading.pool import GradingLost, PoolBusy
from api.grading.stored import StoredVerdict
from api.learning import practice, submissions
from api.models import Submission

log = logging.getLogger("addnorm.submitting")


def record(
    session: Session, *, submission_id: int, exercise: Exercise, verdict: StoredVerdict
) -> Submission | None:
    """Store the verdict and reschedule the learner's review card, in one transaction, unless
    the submission already has its outcome (a second grading of it) or is gone (its learner
    was deleted while it was graded): then None, nothing written."""
    try:
        row = submissions.finish(session, submission_id=submission_id, verdict=verdict)
        if row is None:
            return None
        practice.record_verdict(
            session, user_id=row.user_id, exercise=exercise, submission=row, now=datetime.now(UTC)
        )
        session.commit()
    except IntegrityError:
        # PostgreSQL: the learner's deletion committed between the verdict's row and the review
        # card's, whose foreign key then refused it. Anything else is not ours to hide.
        session.rollback()
        if session.exec(select(Submission.id).where(Submission.id == submission_id)).first():
            raise
        return None
    return row


def grade_stored(
    engine: Engine,
    *,
    submission_id: int,
    catalog: dict[str, Exercise],
    grader: Grader,
) -> Submission | None:
    """Grade a recorded submission from its stored code and record the verdict.

    Returns the row with its outcome, or None when it already had one before this call (a
    duplicate task). ``GradingLost`` and ``PoolBusy`` propagate with the row left ``grading``:
    the grader broke, not the learner's code, so the caller tries again (or the sweeper does).
    """
    with Session(engine, expire_on_commit=False) as session:
        row = submissions.claim(session, submission_id=submission_id)
        if row is None:
            return None
        exercise = catalog.get(row.exercise)
        if exercise is None:
            return submissions.close(
                session,
                submission_id=submission_id,
                reason=f"not graded: exercise {row.exercise!r} is no longer offered",
            )
        try:
            verdict = grader.grade_for_record(row.code, exercise.spec)
        except (GradingLost, PoolBusy):
            raise
        except Exception as exc:
            log.exception("grading submission %s failed", submission_id)
            return submissions.close(
                session,
                submission_id=submission_id,
                reason=f"grading failed: {type(exc).__name__}",
            )
        recorded = record(session, submission_id=submission_id, exercise=exercise, verdict=verdict)
        if recorded is None:
            if session.get(Submission, submission_id, populate_existing=True) is None:
                log.info("submission %s: its learner was deleted meanwhile", submission_id)
            else:
                log.info("submission %s was graded twice; the first verdict stands", submission_id)
        return recorded

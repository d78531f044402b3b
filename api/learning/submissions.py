"""Submission records: written before grading, completed after, so nothing is lost.

Every text is sanitised and capped (``api.plaintext``) on the way in and again on the way out,
so no row, old or new, can break a write, a response or a learner's listing.

A verdict is written at most once per submission (``finish`` and ``close`` are guarded by the
row's state), so a job graded twice (a redelivered task, a sweep, a restart) still leaves one
verdict and one review update.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, cast

from sqlalchemy import func, update
from sqlalchemy.orm import QueryableAttribute, defer
from sqlalchemy.orm.attributes import set_committed_value
from sqlmodel import Session, col, select

from api import plaintext
from api.grading.static import MAX_CODE_BYTES
from api.grading.stored import StoredVerdict
from api.models import Submission, utcnow

# For queries that read submissions' state and outcome only (progress, mastery, streaks): the
# stored code and verdict (tens of KiB of JSON each, in both languages) stay in the database
# instead of being loaded and decoded for every submission the learner ever made.
_VERDICT_DEFERRED = defer(cast(QueryableAttribute[Any], Submission.result))
SUMMARY_ONLY = (_VERDICT_DEFERRED, defer(cast(QueryableAttribute[Any], Submission.code)))

OPEN_STATES = ("queued", "grading")


def start(
    session: Session, *, user_id: int, exercise: str, code: str, queued: bool = False
) -> Submission:
    """On record before anything grades it: ``grading`` embedded, ``queued`` in queue mode."""
    # The route refuses code over the limit; the cap here only guards other callers.
    code = plaintext.capped(code, MAX_CODE_BYTES)
    row = Submission(
        user_id=user_id,
        exercise=exercise,
        code=code,
        state="queued" if queued else "grading",
        started_at=None if queued else utcnow(),
        attempts=0 if queued else 1,
    )
    session.add(row)
    session.flush()
    session.refresh(row)
    # Read back before the commit, not after: a read after it would begin a new transaction
    # that holds one of the pool's connections for as long as the code is graded.
    session.commit()
    return row


def mark_sent(session: Session, *, submission_id: int) -> None:
    session.execute(
        update(Submission)
        .where(col(Submission.id) == submission_id, col(Submission.state).in_(OPEN_STATES))
        .values(sent_at=utcnow())
    )
    session.commit()


def claim(session: Session, *, submission_id: int) -> Submission | None:
    """Begin (another) grading of an open row; None when it already has its outcome."""
    claimed = session.execute(
        update(Submission)
        .where(col(Submission.id) == submission_id, col(Submission.state).in_(OPEN_STATES))
        .values(state="grading", started_at=utcnow(), attempts=col(Submission.attempts) + 1)
    )
    session.commit()
    if claimed.rowcount != 1:  # type: ignore[attr-defined]
        return None
    return session.get(Submission, submission_id, populate_existing=True)


def _take_open(
    session: Session, submission_id: int, outcome: dict[str, Any] | None = None
) -> Submission | None:
    """Lock an open row for its one outcome, inside the caller's transaction, writing
    ``outcome`` (column values) with the same statement.

    A guarded UPDATE is the lock: PostgreSQL makes a concurrent writer wait for this
    transaction and then re-check the guard (the row is no longer open), SQLite serialises
    writers outright. So of two gradings of one submission exactly one records its outcome."""
    values = {"completed_at": utcnow(), **(outcome or {})}
    taken = session.execute(
        update(Submission)
        .where(col(Submission.id) == submission_id, col(Submission.state).in_(OPEN_STATES))
        .values(**values),
        # The row is read back below: no need for the ORM to find and update it in the session.
        execution_options={"synchronize_session": False},
    )
    if taken.rowcount != 1:  # type: ignore[attr-defined]
        session.rollback()
        return None
    if "result" not in values:
        return session.get(Submission, submission_id, populate_existing=True)
    # Read back without the verdict: it is what was just written (tens of KiB of JSON that would
    # otherwise be decoded again).
    row = session.get(
        Submission, submission_id, populate_existing=True, options=[_VERDICT_DEFERRED]
    )
    if row is not None:
        set_committed_value(row, "result", values["result"])
    return row


def finish(session: Session, *, submission_id: int, verdict: StoredVerdict) -> Submission | None:
    """Record the verdict unless the row already has an outcome (then None). The caller
    commits, with the review card it updates alongside."""
    # Made safe to store where it was decided (``stored``): the row's lock is then held for
    # one statement.
    outcome = {
        "state": "done",
        "verdict": verdict.status,
        "message": verdict.message,
        "result": verdict.result,
    }
    return _take_open(session, submission_id, outcome)


def close(session: Session, *, submission_id: int, reason: str) -> Submission | None:
    """Give up on an open row without a verdict (``grader_failed``); commits. None when the
    row already had its outcome."""
    row = _take_open(session, submission_id)
    return None if row is None else fail(session, row=row, reason=reason)


def count_done(
    session: Session, *, user_id: int, exercise: str, after_id: int, before_id: int
) -> int:
    """How many of the learner's submissions of ``exercise`` got a verdict between the two ids
    (both excluded)."""
    found = session.exec(
        select(func.count())
        .select_from(Submission)
        .where(
            Submission.user_id == user_id,
            Submission.exercise == exercise,
            Submission.state == "done",
            col(Submission.id) > after_id,
            col(Submission.id) < before_id,
        )
    ).one()
    return int(found)


def open_rows(session: Session, *, limit: int = 500) -> list[Submission]:
    """Rows still waiting for an outcome, oldest first (for the sweeper and recovery)."""
    query = (
        select(Submission)
        .where(col(Submission.state).in_(OPEN_STATES))
        .order_by(col(Submission.id))
        .limit(limit)
    )
    return list(session.exec(query))


def fail(session: Session, *, row: Submission, reason: str) -> Submission:
    """Grading itself broke (not the learner's code): say so on the row."""
    row.state = "grader_failed"
    row.message = plaintext.capped(reason, plaintext.MAX_MESSAGE)
    row.completed_at = utcnow()
    session.add(row)
    session.flush()
    session.refresh(row)  # before the commit, as in ``start``: no transaction is left open
    session.commit()
    return row


def get(session: Session, *, user_id: int, submission_id: int) -> Submission | None:
    row = session.get(Submission, submission_id)
    return row if row is not None and row.user_id == user_id else None


def list_for(session: Session, *, user_id: int, exercise: str | None) -> list[Submission]:
    query = select(Submission).where(Submission.user_id == user_id)
    if exercise:
        query = query.where(Submission.exercise == exercise)
    return list(session.exec(query.order_by(col(Submission.id).desc()).limit(200)))


def public(row: Submission, *, just_recorded: bool = False) -> dict[str, Any]:
    """The submission as the API shows it, every field bounded.

    ``just_recorded``: the row's result is what ``finish`` wrote a moment ago, bounded where
    the verdict was decided (``api.grading.stored``), so it is not walked a second time (a
    thousand nodes on every submission). A row read back later may predate the bound, and is."""
    result = row.result if isinstance(row.result, dict) else {}
    text = _as_recorded if just_recorded else plaintext.bounded
    return {
        "id": row.id,
        "exercise": row.exercise,
        "state": row.state,
        "verdict": row.verdict,
        "message": plaintext.capped(row.message or "", plaintext.MAX_MESSAGE),
        # Both languages are kept; api.learning.verdict_i18n.render shows the reader's one.
        "message_zh": plaintext.capped(str(result.get("message_zh") or ""), plaintext.MAX_MESSAGE),
        "checks": text(result.get("checks") or []),
        "diagnosis": text(result.get("diagnosis")),
        "error": text(result.get("error")),
        "stdout": plaintext.capped(result.get("stdout") or ""),
        "stderr": plaintext.capped(result.get("stderr") or ""),
        "cases_total": text(result.get("cases_total", 0)),
        "cases_passed": text(result.get("cases_passed", 0)),
        "seed": text(result.get("seed")),
        "timings_ms": text(result.get("timings_ms") or {}),
        # A lab's figure: numbers the parent read from the child and bounded (grading/labs.py).
        "chart": text(result.get("chart")),
        "created_at": _iso(row.created_at),
        "completed_at": _iso(row.completed_at),
    }


def _as_recorded(value: Any) -> Any:
    return value


def _iso(moment: datetime | None) -> str | None:
    if moment is None:
        return None
    # SQLite hands back naive datetimes; everything stored is UTC.
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).isoformat()

"""Submission records: written before grading, completed after, so nothing is lost.

Every text is sanitised and capped (``api.plaintext``) on the way in and again on the way out,
so no row, old or new, can break a write, a response or a learner's listing.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlmodel import Session, col, select

from api import plaintext
from api.grading.static import MAX_CODE_BYTES
from api.grading.verdict import Verdict
from api.models import Submission, utcnow


def start(session: Session, *, user_id: int, exercise: str, code: str) -> Submission:
    # The route refuses code over the limit; the cap here only guards other callers.
    code = plaintext.capped(code, MAX_CODE_BYTES)
    row = Submission(user_id=user_id, exercise=exercise, code=code, state="grading")
    session.add(row)
    session.commit()
    session.refresh(row)
    return row


def complete(session: Session, *, row: Submission, verdict: Verdict) -> Submission:
    """Record the verdict; the caller commits (with the review card it updates alongside)."""
    row.state = "done"
    row.verdict = verdict.status
    row.message = plaintext.capped(verdict.message, plaintext.MAX_MESSAGE)
    row.result = plaintext.bounded_result(
        verdict.model_dump(mode="json", exclude={"status", "message"})
    )
    row.completed_at = utcnow()
    session.add(row)
    return row


def fail(session: Session, *, row: Submission, reason: str) -> Submission:
    """Grading itself broke (not the learner's code): say so on the row."""
    row.state = "grader_failed"
    row.message = plaintext.capped(reason, plaintext.MAX_MESSAGE)
    row.completed_at = utcnow()
    session.add(row)
    session.commit()
    session.refresh(row)
    return row


def get(session: Session, *, user_id: int, submission_id: int) -> Submission | None:
    row = session.get(Submission, submission_id)
    return row if row is not None and row.user_id == user_id else None


def list_for(session: Session, *, user_id: int, exercise: str | None) -> list[Submission]:
    query = select(Submission).where(Submission.user_id == user_id)
    if exercise:
        query = query.where(Submission.exercise == exercise)
    return list(session.exec(query.order_by(col(Submission.id).desc()).limit(200)))


def public(row: Submission) -> dict[str, Any]:
    result = row.result if isinstance(row.result, dict) else {}
    text = plaintext.bounded
    return {
        "id": row.id,
        "exercise": row.exercise,
        "state": row.state,
        "verdict": row.verdict,
        "message": plaintext.capped(row.message or "", plaintext.MAX_MESSAGE),
        "checks": text(result.get("checks") or []),
        "diagnosis": text(result.get("diagnosis")),
        "error": text(result.get("error")),
        "stdout": plaintext.capped(result.get("stdout") or ""),
        "stderr": plaintext.capped(result.get("stderr") or ""),
        "cases_total": text(result.get("cases_total", 0)),
        "cases_passed": text(result.get("cases_passed", 0)),
        "seed": text(result.get("seed")),
        "timings_ms": text(result.get("timings_ms") or {}),
        "created_at": _iso(row.created_at),
        "completed_at": _iso(row.completed_at),
    }


def _iso(moment: datetime | None) -> str | None:
    if moment is None:
        return None
    # SQLite hands back naive datetimes; everything stored is UTC.
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).isoformat()

"""Submission records: written before grading, completed after, so nothing is lost."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlmodel import Session, col, select

from api.grading.verdict import Verdict
from api.models import Submission, utcnow


def start(session: Session, *, user_id: int, exercise: str, code: str) -> Submission:
    row = Submission(user_id=user_id, exercise=exercise, code=code, state="grading")
    session.add(row)
    session.commit()
    session.refresh(row)
    return row


def complete(session: Session, *, row: Submission, verdict: Verdict) -> Submission:
    """Record the verdict; the caller commits (with the review card it updates alongside)."""
    row.state = "done"
    row.verdict = verdict.status
    row.message = verdict.message
    row.result = verdict.model_dump(mode="json", exclude={"status", "message"})
    row.completed_at = utcnow()
    session.add(row)
    return row


def fail(session: Session, *, row: Submission, reason: str) -> Submission:
    """Grading itself broke (not the learner's code): say so on the row."""
    row.state = "grader_failed"
    row.message = reason
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
    result = row.result or {}
    return {
        "id": row.id,
        "exercise": row.exercise,
        "state": row.state,
        "verdict": row.verdict,
        "message": row.message,
        "checks": result.get("checks", []),
        "diagnosis": result.get("diagnosis"),
        "error": result.get("error"),
        "stdout": result.get("stdout", ""),
        "stderr": result.get("stderr", ""),
        "cases_total": result.get("cases_total", 0),
        "cases_passed": result.get("cases_passed", 0),
        "seed": result.get("seed"),
        "timings_ms": result.get("timings_ms", {}),
        "created_at": _iso(row.created_at),
        "completed_at": _iso(row.completed_at),
    }


def _iso(moment: datetime | None) -> str | None:
    if moment is None:
        return None
    # SQLite hands back naive datetimes; everything stored is UTC.
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).isoformat()

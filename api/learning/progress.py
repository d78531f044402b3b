"""Per-exercise progress of one learner, derived from their submissions."""

from __future__ import annotations

from typing import Any

from sqlmodel import Session, col, select

from api.content.catalog import Exercise
from api.learning import submissions
from api.models import Submission


def exercise_progress(
    session: Session, *, user_id: int, catalog: dict[str, Exercise]
) -> dict[str, dict[str, Any]]:
    rows = session.exec(
        select(Submission)
        .where(Submission.user_id == user_id, Submission.state == "done")
        .order_by(col(Submission.id))
        .options(*submissions.SUMMARY_ONLY)
    )
    progress: dict[str, dict[str, Any]] = {
        slug: {
            "status": "not_started",
            "attempts": 0,
            "first_solved_at": None,
            "last_verdict": None,
        }
        for slug in catalog
    }
    for row in rows:
        entry = progress.get(row.exercise)
        if entry is None:
            continue
        entry["attempts"] += 1
        entry["last_verdict"] = row.verdict
        if row.verdict == "passed" and entry["first_solved_at"] is None:
            entry["first_solved_at"] = row.completed_at
            entry["attempts_to_solve"] = entry["attempts"]
        entry["status"] = "solved" if entry["first_solved_at"] else "attempted"
    return progress

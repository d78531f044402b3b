"""What to do with submissions that have no outcome yet: a pure plan, and the adapter that
carries it out against the database.

Used twice: by each queue worker every few seconds (re-send rows no worker is working on), and
by the embedded service at start-up (every open row was left by a dead process). The plan reads
no clock and no database, so its rules are tested by moving ``now``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from enum import StrEnum

from sqlalchemy import Engine
from sqlmodel import Session

from api.learning import submissions
from api.models import Submission

log = logging.getLogger("addnorm.sweeper")


class Step(StrEnum):
    WAIT = "wait"  # someone is (probably) on it
    GRADE = "grade"  # nobody is: grade it again (re-send the task, or grade it here)
    CLOSE = "close"  # too old or too many tries: record that it was not graded


@dataclass(frozen=True)
class Policy:
    # No sign of progress (created, sent, grading began) for this long: grade it again.
    stale_after: timedelta
    # Older than this, or begun this many times without a verdict: close it.
    give_up_after: timedelta
    max_attempts: int


@dataclass(frozen=True)
class Decision:
    submission_id: int
    step: Step
    reason: str = ""


def _utc(moment: datetime | None) -> datetime | None:
    # Both databases hand back naive datetimes; everything stored is UTC.
    if moment is None:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def decide(row: Submission, *, now: datetime, policy: Policy) -> Decision:
    assert row.id is not None
    created = _utc(row.created_at)
    assert created is not None
    if now - created >= policy.give_up_after:
        minutes = policy.give_up_after.total_seconds() / 60
        return Decision(
            row.id,
            Step.CLOSE,
            f"not graded: the service lost this submission for over {minutes:g} minutes "
            "(a restart or an outage); your code was saved, please resubmit it",
        )
    progress = max(m for m in (created, _utc(row.sent_at), _utc(row.started_at)) if m is not None)
    if now - progress < policy.stale_after:
        return Decision(row.id, Step.WAIT)
    if row.attempts >= policy.max_attempts:
        return Decision(
            row.id,
            Step.CLOSE,
            f"not graded: grading was interrupted {row.attempts} times (the grader was "
            "restarted under it); your code was saved, please resubmit it",
        )
    return Decision(row.id, Step.GRADE)


def plan(rows: Iterable[Submission], *, now: datetime, policy: Policy) -> list[Decision]:
    return [decide(row, now=now, policy=policy) for row in rows]


@dataclass(frozen=True)
class SweepReport:
    regraded: int
    closed: int
    waiting: int


def sweep(
    engine: Engine,
    *,
    now: datetime,
    policy: Policy,
    regrade: Callable[[int], None],
) -> SweepReport:
    """Carry out the plan for every open row. ``regrade`` sends the task again (queue mode) or
    grades the row in place (embedded start-up recovery)."""
    with Session(engine, expire_on_commit=False) as session:
        decisions = plan(submissions.open_rows(session), now=now, policy=policy)
        session.commit()
    regraded = closed = 0
    for decision in decisions:
        if decision.step is Step.CLOSE:
            with Session(engine, expire_on_commit=False) as session:
                if submissions.close(
                    session, submission_id=decision.submission_id, reason=decision.reason
                ):
                    closed += 1
                    log.warning("closed submission %s: %s", decision.submission_id, decision.reason)
        elif decision.step is Step.GRADE:
            try:
                regrade(decision.submission_id)
            except Exception:
                # The next sweep tries again; one bad row must not stop the others.
                log.exception("could not re-grade submission %s", decision.submission_id)
            else:
                regraded += 1
    waiting = sum(d.step is Step.WAIT for d in decisions)
    if regraded or closed:
        log.info("sweep: %s re-graded, %s closed, %s in progress", regraded, closed, waiting)
    return SweepReport(regraded=regraded, closed=closed, waiting=waiting)

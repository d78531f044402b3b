"""Embedded start-up recovery: rows a dead process left `queued`/`grading` are graded again
from their stored code (or, past the deadline, closed as not graded), so the learner finds an
outcome in ``GET /submissions`` instead of a row that says `grading` forever."""

from __future__ import annotations

import logging
import threading
from datetime import UTC, datetime, timedelta

from sqlalchemy import Engine

from api.config import Settings
from api.content.catalog import Exercise
from api.grading.grader import Grader
from api.learning.submitting import grade_stored
from api.queue.sweeper import Policy, SweepReport, sweep

log = logging.getLogger("addnorm.recovery")


def recover(
    engine: Engine,
    *,
    settings: Settings,
    catalog: dict[str, Exercise],
    grader: Grader,
    now: datetime,
) -> SweepReport:
    # At start-up nothing of ours is grading yet: every open row is an orphan (stale at once).
    policy = Policy(
        stale_after=timedelta(0),
        give_up_after=timedelta(seconds=settings.give_up_after_seconds),
        max_attempts=settings.max_attempts,
    )

    def regrade(submission_id: int) -> None:
        grade_stored(engine, submission_id=submission_id, catalog=catalog, grader=grader)

    report = sweep(engine, now=now, policy=policy, regrade=regrade)
    if report.regraded or report.closed:
        log.warning(
            "start-up recovery: %s submission(s) left by a stopped process graded again, %s closed",
            report.regraded,
            report.closed,
        )
    return report


def recover_in_background(
    engine: Engine, *, settings: Settings, catalog: dict[str, Exercise], grader: Grader
) -> threading.Thread:
    """Recovery beside the first requests: the service answers while old rows are graded."""

    def run() -> None:
        try:
            recover(
                engine, settings=settings, catalog=catalog, grader=grader, now=datetime.now(UTC)
            )
        except Exception:
            log.exception("start-up recovery failed; open rows stay as they are")

    thread = threading.Thread(target=run, name="addnorm-recovery", daemon=True)
    thread.start()
    return thread

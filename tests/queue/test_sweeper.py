"""The sweeper's rules, on rows in memory and a moving clock (no database, no sleeping)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from api.models import Submission
from api.queue.sweeper import Policy, Step, plan

T0 = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)
POLICY = Policy(
    stale_after=timedelta(seconds=120), give_up_after=timedelta(hours=1), max_attempts=3
)


def row(n: int, state: str, *, age: float, sent: float | None = None, started: float | None = None,
        attempts: int = 0) -> Submission:  # fmt: skip
    def ago(seconds: float | None) -> datetime | None:
        # Stored naive, as both databases hand them back.
        return None if seconds is None else (T0 - timedelta(seconds=seconds)).replace(tzinfo=None)

    created = ago(age)
    assert created is not None
    return Submission(
        id=n, user_id=1, exercise="layer_norm", code="", state=state, created_at=created,
        sent_at=ago(sent), started_at=ago(started), attempts=attempts,
    )  # fmt: skip


def steps(*rows: Submission, now: datetime = T0) -> list[Step]:
    return [d.step for d in plan(rows, now=now, policy=POLICY)]


def test_recent_rows_are_left_to_whoever_holds_them() -> None:
    assert steps(
        row(1, "queued", age=5, sent=5),
        row(2, "grading", age=200, sent=200, started=30, attempts=1),
    ) == [Step.WAIT, Step.WAIT]


def test_a_row_nobody_sent_or_graded_for_too_long_is_graded_again() -> None:
    # Queued but never sent (the API died between the write and the send), sent but never
    # started (Redis lost the task), started but never finished (the worker died).
    assert steps(
        row(1, "queued", age=121),
        row(2, "queued", age=400, sent=130),
        row(3, "grading", age=400, sent=400, started=125, attempts=1),
    ) == [Step.GRADE, Step.GRADE, Step.GRADE]


def test_re_sending_counts_as_progress_so_a_long_queue_is_not_flooded() -> None:
    resent = row(1, "queued", age=3000, sent=10)
    assert steps(resent) == [Step.WAIT]
    assert steps(resent, now=T0 + timedelta(seconds=111)) == [Step.GRADE]


def test_past_the_deadline_a_row_is_closed_with_a_reason() -> None:
    [decision] = plan([row(1, "queued", age=3600)], now=T0, policy=POLICY)
    assert decision.step is Step.CLOSE
    assert "please resubmit" in decision.reason and "60 minutes" in decision.reason


def test_a_submission_that_keeps_losing_its_grader_is_closed_after_max_attempts() -> None:
    assert steps(row(1, "grading", age=900, started=200, attempts=2)) == [Step.GRADE]
    [decision] = plan([row(1, "grading", age=900, started=200, attempts=3)], now=T0, policy=POLICY)
    assert decision.step is Step.CLOSE and "interrupted 3 times" in decision.reason


def test_start_up_recovery_treats_every_earlier_open_row_as_orphaned() -> None:
    at_start = Policy(stale_after=timedelta(0), give_up_after=timedelta(hours=1), max_attempts=3)
    rows = [row(1, "grading", age=1, started=1, attempts=1), row(2, "queued", age=0.5)]
    assert [d.step for d in plan(rows, now=T0, policy=at_start)] == [Step.GRADE, Step.GRADE]
    # A row created after the recovery's clock reading belongs to a live request.
    late = row(3, "grading", age=-0.2, started=-0.2, attempts=1)
    assert [d.step for d in plan([late], now=T0, policy=at_start)] == [Step.WAIT]

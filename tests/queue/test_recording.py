"""One verdict per submission, however many gradings race for it; limits shared by processes.

On the real databases (a PostgreSQL database of this session's own, a SQLite file) and the real
Redis: the guarantees live in their locking, so nothing here is mocked.
"""

from __future__ import annotations

import secrets
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from sqlalchemy import Engine
from sqlmodel import Session, select

from api import db
from api.config import REPO_ROOT
from api.content.catalog import Exercise, load_catalog
from api.grading.stored import StoredVerdict, stored
from api.grading.verdict import Check, Verdict
from api.http.fairness import SharedGradingLimits, Throttled
from api.learning import submissions, submitting
from api.models import ReviewCard, Submission, User
from tests.services import SYSTEM_REDIS


@pytest.fixture(scope="module")
def layer_norm() -> Exercise:
    return load_catalog(REPO_ROOT / "exercises")["layer_norm"]


@pytest.fixture(params=["sqlite", "postgresql"])
def engine(request: pytest.FixtureRequest, tmp_path: Path, pg_url: str) -> Iterator[Engine]:
    url = f"sqlite:///{tmp_path / 'addnorm.db'}" if request.param == "sqlite" else pg_url
    eng = db.make_engine(url)
    db.migrate(eng)
    yield eng
    eng.dispose()


def new_submission(engine: Engine, *, queued: bool = True) -> tuple[int, int]:
    with Session(engine, expire_on_commit=False) as session:
        # A random hash: the id of a temporary object, used before, is reused as soon as the
        # object is freed, so two learners on one PostgreSQL database could collide.
        user = User(name="learner", token_hash=secrets.token_hex(32))
        session.add(user)
        session.commit()
        assert user.id is not None
        row = submissions.start(
            session, user_id=user.id, exercise="layer_norm", code="x = 1", queued=queued
        )
        assert row.id is not None
        return user.id, row.id


def verdict(status: str) -> StoredVerdict:
    return stored(Verdict(status=status, message=f"{status} on every case", cases_total=3))


def test_second_recording_of_a_verdict_changes_nothing(
    engine: Engine, layer_norm: Exercise
) -> None:
    user_id, sid = new_submission(engine)
    with Session(engine, expire_on_commit=False) as session:
        first = submitting.record(
            session, submission_id=sid, exercise=layer_norm, verdict=verdict("passed")
        )
    assert first is not None and first.state == "done" and first.verdict == "passed"
    with Session(engine, expire_on_commit=False) as session:
        card = session.exec(select(ReviewCard).where(ReviewCard.user_id == user_id)).one()
        card_before = (card.card, card.due)
        second = submitting.record(
            session, submission_id=sid, exercise=layer_norm, verdict=verdict("failed")
        )
    assert second is None
    with Session(engine) as session:
        row = session.get(Submission, sid)
        card_after = session.exec(select(ReviewCard).where(ReviewCard.user_id == user_id)).one()
        assert row is not None
        assert (row.state, row.verdict, row.message) == ("done", "passed", "passed on every case")
        # The review card was rescheduled once, by the verdict that stands.
        assert (card_after.card, card_after.due) == card_before


def test_racing_gradings_store_exactly_one_verdict(engine: Engine, layer_norm: Exercise) -> None:
    _, sid = new_submission(engine)
    outcomes: list[Submission | None] = []
    barrier = threading.Barrier(6)

    def grade(status: str) -> None:
        with Session(engine, expire_on_commit=False) as session:
            barrier.wait()
            outcomes.append(
                submitting.record(
                    session, submission_id=sid, exercise=layer_norm, verdict=verdict(status)
                )
            )

    threads = [
        threading.Thread(target=grade, args=(s,)) for s in ["passed", "failed", "timeout"] * 2
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    winners = [o for o in outcomes if o is not None]
    assert len(outcomes) == 6 and len(winners) == 1
    with Session(engine) as session:
        row = session.get(Submission, sid)
        assert row is not None and row.verdict == winners[0].verdict


def test_claim_counts_attempts_and_refuses_a_row_with_an_outcome(
    engine: Engine, layer_norm: Exercise
) -> None:
    _, sid = new_submission(engine)
    with Session(engine, expire_on_commit=False) as session:
        first = submissions.claim(session, submission_id=sid)
        again = submissions.claim(session, submission_id=sid)
        assert first is not None and again is not None
        assert (again.state, again.attempts) == ("grading", 2) and again.started_at is not None
        submitting.record(
            session, submission_id=sid, exercise=layer_norm, verdict=verdict("passed")
        )
        assert submissions.claim(session, submission_id=sid) is None
        assert submissions.close(session, submission_id=sid, reason="late") is None
        # Only this test's row: the PostgreSQL database is one per worker, and a queue test
        # beside this one may have a submission of its own still being graded.
        assert sid not in {row.id for row in submissions.open_rows(session)}


def test_no_connection_is_held_while_a_submission_is_graded(engine: Engine) -> None:
    """Between ``start`` and ``record`` the code is graded, for up to the time limit. ``start``
    used to read the row back after its commit, which began a transaction that held one of the
    pool's connections all that time: with 16 learners submitting at once, all 15 connections
    SQLAlchemy's default pool allows were open."""
    user_id, _ = new_submission(engine)
    with Session(engine, expire_on_commit=False) as session:
        row = submissions.start(session, user_id=user_id, exercise="layer_norm", code="x = 1")
        assert (row.id, row.state, row.code) != (None, "grading", None)  # read back, usable
        assert not session.in_transaction() and engine.pool.checkedout() == 0  # type: ignore[attr-defined]
        failed = submissions.fail(session, row=row, reason="not graded: the grader was busy")
        assert failed.state == "grader_failed" and failed.message.startswith("not graded")
        assert not session.in_transaction() and engine.pool.checkedout() == 0  # type: ignore[attr-defined]


def test_a_recorded_row_shows_what_was_stored(engine: Engine, layer_norm: Exercise) -> None:
    """``finish`` does not read the verdict it wrote back (tens of KiB of JSON): the row it
    returns must still say exactly what the database holds."""
    _, sid = new_submission(engine, queued=False)
    checks = [
        Check(case=f"case {i}", description="", target="output", passed=i != 1, message="m")
        for i in range(5)
    ]
    checks[1].max_abs_error = 0.1 + 0.2  # a float that must come back exactly as written
    failed = Verdict(status="failed", message="differs on case 1", cases_total=5, checks=checks)
    with Session(engine, expire_on_commit=False) as session:
        shown = submitting.record(
            session, submission_id=sid, exercise=layer_norm, verdict=stored(failed)
        )
    assert shown is not None
    with Session(engine) as session:
        row = session.get(Submission, sid)
        assert row is not None
        assert submissions.public(row) == submissions.public(shown, just_recorded=True)
        assert row.result == shown.result and row.result["checks"][1]["passed"] is False
        assert row.result["checks"][1]["max_abs_error"] == 0.1 + 0.2
        assert (row.code, row.state, row.verdict) == (shown.code, "done", "failed")


# -- limits shared by several API processes -----------------------------------------------------


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def two_processes(prefix: str, clock: Clock, **limits: int) -> list[SharedGradingLimits]:
    """Two API processes' limits: separate clients, one Redis, one prefix."""
    return [
        SharedGradingLimits(
            redis.Redis.from_url(SYSTEM_REDIS),
            prefix=prefix,
            max_concurrent=limits.get("max_concurrent", 10),
            per_minute=limits.get("per_minute", 100),
            lease_seconds=30,
            clock=clock,
        )
        for _ in range(2)
    ]


def test_rate_limit_is_one_limit_across_processes(prefix: str) -> None:
    clock = Clock()
    a, b = two_processes(f"{prefix}rate:", clock, per_minute=3)
    for limits in (a, b, a):
        with limits.slot(7):
            pass
    with pytest.raises(Throttled) as refused, b.slot(7):
        pass
    assert "more than 3 submissions in a minute" in refused.value.reason
    assert refused.value.retry_after == 61
    with a.slot(8):  # another learner is not affected
        pass
    clock.now += 60.5
    with b.slot(7):  # the window moved on
        pass


def test_concurrency_limit_is_one_limit_and_a_dead_holders_slot_lapses(prefix: str) -> None:
    clock = Clock()
    a, b = two_processes(f"{prefix}conc:", clock, max_concurrent=1)
    held = a.slot(7)
    held.__enter__()  # process a is grading for learner 7...
    with pytest.raises(Throttled) as refused, b.slot(7):
        pass
    assert "already being graded" in refused.value.reason
    # ...and dies without releasing: the lease runs out, the learner is not locked out.
    clock.now += 31
    with b.slot(7):
        pass
    with a.slot(7):  # released on exit: free again
        pass

"""Nothing lost in the embedded mode either: a submission whose process was killed (-9) while
grading it is graded again from its stored code when the service starts; one left too long is
closed with a message saying the service lost it. On SQLite and PostgreSQL."""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest
from sqlalchemy import create_engine
from sqlmodel import Session

from api.models import Submission
from tests.api.test_resilience import SPIN, zygote_pids
from tests.services import postgres_database
from tests.support import start_server, stop_server


@pytest.fixture(params=["sqlite", "postgresql"])
def own_database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'addnorm.db'}"
    else:
        with postgres_database() as url:
            yield url


def store_orphan(database_url: str, *, user_id: int, age: timedelta) -> int:
    """A row a dead process left `grading`, as the database holds it."""
    engine = create_engine(database_url)
    try:
        with Session(engine, expire_on_commit=False) as session:
            created = datetime.now(UTC) - age
            row = Submission(
                user_id=user_id, exercise="layer_norm", code=SPIN, state="grading",
                created_at=created, started_at=created, attempts=1,
            )  # fmt: skip
            session.add(row)
            session.commit()
            assert row.id is not None
            return row.id
    finally:
        engine.dispose()


@pytest.mark.slow
def test_submissions_left_grading_by_a_killed_process_get_an_outcome_after_restart(
    tmp_path: Path, own_database: str
) -> None:
    env = {"ADDNORM_DATABASE_URL": own_database, "ADDNORM_TIME_LIMIT_SECONDS": "2"}
    first = start_server(tmp_path / "first", **env)
    try:
        token = first.new_learner()
        with first.client(token) as c:
            lost: list[Exception] = []

            def post() -> None:
                with first.client(token) as learner:
                    try:
                        learner.post("/exercises/layer_norm/submissions", json={"code": SPIN})
                    except httpx.HTTPError as exc:
                        lost.append(exc)

            thread = threading.Thread(target=post)
            thread.start()
            deadline = time.monotonic() + 20
            while not (rows := c.get("/submissions").json()) or rows[0]["state"] != "grading":
                assert time.monotonic() < deadline, "the submission never started grading"
                time.sleep(0.05)
            killed = rows[0]["id"]
        victims = [first.process.pid, *zygote_pids(first)]
        for pid in victims:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        first.process.wait()
        thread.join()
        assert lost, "the learner's request died with the process"
    finally:
        if first.process.poll() is None:
            stop_server(first)
    engine = create_engine(own_database)
    with Session(engine) as session:
        row = session.get(Submission, killed)
        assert row is not None and row.state == "grading"  # what a restart used to leave forever
        owner = row.user_id
    engine.dispose()
    ancient = store_orphan(own_database, user_id=owner, age=timedelta(hours=2))

    second = start_server(tmp_path / "second", **env)
    try:
        with second.client(token) as c:
            deadline = time.monotonic() + 60
            while True:
                rows = {r["id"]: r for r in c.get("/submissions").json()}
                if all(rows[i]["state"] not in {"queued", "grading"} for i in (killed, ancient)):
                    break
                assert time.monotonic() < deadline, f"still open after restart: {rows}"
                time.sleep(0.2)
    finally:
        stop_server(second)
    assert rows[killed]["state"] == "done" and rows[killed]["verdict"] == "timeout"
    assert rows[ancient]["state"] == "grader_failed" and rows[ancient]["verdict"] is None
    assert "lost this submission" in str(rows[ancient]["message"])
    assert "please resubmit" in str(rows[ancient]["message"])

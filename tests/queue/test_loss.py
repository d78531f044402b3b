"""Nothing lost in queue mode, for real: a worker killed (-9) mid-job, the API killed (-9) while
learners wait, Redis killed (-9) with jobs in its queue. Every submission ends with exactly one
verdict, which the learner finds with ``GET /submissions``."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest
import redis
from sqlalchemy import create_engine
from sqlmodel import Session

from api.models import Submission
from tests.queue.conftest import queue_settings
from tests.services import Worker, private_redis, start_worker
from tests.support import REPO, Server, start_server, stop_server

SOLUTION = (REPO / "solutions" / "layer_norm.py").read_text()
SPIN = (
    "import torch\nfrom torch import nn\n"
    "class LayerNorm(nn.Module):\n    pass\n"
    "while True:\n    pass\n"
)
pytestmark = pytest.mark.slow


@pytest.fixture
def workers() -> Iterator[list[Worker]]:
    started: list[Worker] = []
    yield started
    for w in started:
        w.stop()


@pytest.fixture
def servers() -> Iterator[list[Server]]:
    started: list[Server] = []
    yield started
    for s in started:
        if s.process.poll() is None:
            stop_server(s)


def submit(client: httpx.Client, code: str) -> int:
    r = client.post("/exercises/layer_norm/submissions", json={"code": code})
    assert r.status_code in {201, 202}, r.text
    return int(r.json()["id"])


def outcomes(
    client: httpx.Client, ids: set[int], seconds: float = 90
) -> dict[int, dict[str, object]]:
    """Wait until every one of ``ids`` has an outcome; the learner's whole list, by id."""
    deadline = time.monotonic() + seconds
    while True:
        rows = client.get("/submissions").json()
        by_id = {int(r["id"]): r for r in rows}
        # One row per submission, never a duplicate.
        assert len(by_id) == len(rows)
        if all(by_id.get(i, {}).get("state") in {"done", "grader_failed"} for i in ids):
            return by_id
        if time.monotonic() > deadline:
            raise AssertionError(f"still open after {seconds} s: {rows}")
        time.sleep(0.3)


def attempts(database_url: str, submission_id: int) -> int:
    engine = create_engine(database_url)
    try:
        with Session(engine) as session:
            row = session.get(Submission, submission_id)
            assert row is not None
            return row.attempts
    finally:
        engine.dispose()


def wait_for_state(client: httpx.Client, submission_id: int, state: str) -> None:
    deadline = time.monotonic() + 30
    while client.get(f"/submissions/{submission_id}").json()["state"] != state:
        assert time.monotonic() < deadline, f"submission {submission_id} never became {state}"
        time.sleep(0.05)


def test_worker_killed_mid_job(
    tmp_path: Path,
    queue_env: dict[str, str],
    pg_url: str,
    servers: list[Server],
    workers: list[Worker],
) -> None:
    env = {**queue_env, "ADDNORM_VERDICT_WAIT_SECONDS": "0"}
    api = start_server(tmp_path / "api", **env)
    servers.append(api)
    workers.append(start_worker(tmp_path / "w1", env, name="doomed"))
    with api.client(api.new_learner()) as c:
        spin = submit(c, SPIN)
        wait_for_state(c, spin, "grading")
        workers[0].kill()  # kill -9 while it holds the job (the task is unacknowledged)
        waiting = {submit(c, SOLUTION) for _ in range(3)}  # queued while no worker runs
        workers.append(start_worker(tmp_path / "w2", env, name="successor"))
        rows = outcomes(c, {spin} | waiting)
    assert rows[spin]["state"] == "done" and rows[spin]["verdict"] == "timeout"
    assert all(rows[i]["verdict"] == "passed" for i in waiting)
    # It was begun again by the new worker (sweeper or redelivery), and recorded once.
    assert attempts(pg_url, spin) >= 2


def test_api_killed_while_learners_wait(
    tmp_path: Path,
    queue_env: dict[str, str],
    pg_url: str,
    servers: list[Server],
    workers: list[Worker],
) -> None:
    api = start_server(tmp_path / "api", **queue_env)  # waits up to 5 s for verdicts
    servers.append(api)
    token = api.new_learner()
    errors: list[Exception] = []

    def learner() -> None:
        with api.client(token) as c:
            try:
                c.post("/exercises/layer_norm/submissions", json={"code": SOLUTION})
            except httpx.HTTPError as exc:
                errors.append(exc)

    # No worker yet: the requests wait for verdicts that cannot come...
    threads = [threading.Thread(target=learner) for _ in range(3)]
    for t in threads:
        t.start()
    with api.client(token) as c:
        deadline = time.monotonic() + 20
        while len(c.get("/submissions").json()) < 3:
            assert time.monotonic() < deadline, "the submissions were never recorded"
            time.sleep(0.05)
        ids = {int(r["id"]) for r in c.get("/submissions").json()}
    api.process.kill()  # ...and the API dies under them (kill -9).
    for t in threads:
        t.join()
    assert len(errors) == 3, "every waiting learner lost the connection"
    # A fourth died between writing its row and sending its task: stored, never sent.
    engine = create_engine(pg_url)
    with Session(engine, expire_on_commit=False) as session:
        orphan = Submission(
            user_id=_user(pg_url, ids),
            exercise="layer_norm",
            code=SOLUTION,
            state="queued",
            created_at=datetime.now(UTC),
        )
        session.add(orphan)
        session.commit()
        assert orphan.id is not None
        ids.add(orphan.id)
    engine.dispose()
    restarted = start_server(tmp_path / "api", **queue_env)
    servers.append(restarted)
    workers.append(start_worker(tmp_path / "w", queue_env))
    with restarted.client(token) as c:
        rows = outcomes(c, ids)
    assert {rows[i]["verdict"] for i in ids} == {"passed"}
    assert all(rows[i]["state"] == "done" for i in ids)


def _user(database_url: str, ids: set[int]) -> int:
    engine = create_engine(database_url)
    try:
        with Session(engine) as session:
            row = session.get(Submission, next(iter(ids)))
            assert row is not None
            return row.user_id
    finally:
        engine.dispose()


def test_redis_killed_with_jobs_in_its_queue(
    tmp_path: Path,
    pg_url: str,
    prefix: str,
    servers: list[Server],
    workers: list[Worker],
) -> None:
    (tmp_path / "redis").mkdir()
    with private_redis(tmp_path / "redis") as broker:
        env = {
            **queue_settings(pg_url, broker.url, f"{prefix}aof:"),
            "ADDNORM_VERDICT_WAIT_SECONDS": "0",
        }
        api = start_server(tmp_path / "api", **env)
        servers.append(api)
        with api.client(api.new_learner()) as c:
            queued = {submit(c, SOLUTION) for _ in range(3)}
            broker.kill()  # kill -9: only the append-only file survives
            # Redis down: the submission is still taken and stored (no 5xx), to be sent later.
            r = c.post("/exercises/layer_norm/submissions", json={"code": SOLUTION})
            assert r.status_code == 202, r.text
            unsent = int(r.json()["id"])
            broker.start()
            client = redis.Redis.from_url(broker.url)
            # In line: Celery's queue, or (no worker has announced a slot yet) the fair turns'
            # pending set (api.queue.fair); both in Redis, both in its append-only file.
            in_line = client.llen(f"{prefix}aof:grading") + client.zcard(
                f"{prefix}aof:fair:pending"
            )
            assert in_line == 3, "the queue did not survive"
            client.close()
            workers.append(start_worker(tmp_path / "w", env))
            rows = outcomes(c, queued | {unsent})
    assert all(rows[i]["state"] == "done" and rows[i]["verdict"] == "passed" for i in rows)
    assert set(rows) == queued | {unsent}

"""Queue mode end to end: ``addnorm serve`` with a broker records and enqueues, ``addnorm
worker`` grades, on PostgreSQL and the machine's Redis (a key prefix of this session's own)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.services import Worker, start_worker
from tests.support import REPO, Server, start_server, stop_server

SOLUTION = (REPO / "solutions" / "layer_norm.py").read_text()
STARTER = (REPO / "exercises" / "layer_norm" / "starter.py").read_text()


@pytest.fixture(scope="module")
def cluster_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("cluster")


@pytest.fixture(scope="module")
def queue_api(cluster_dir: Path, queue_env: dict[str, str]) -> Iterator[Server]:
    srv = start_server(cluster_dir / "api", **queue_env)
    yield srv
    stop_server(srv)


@pytest.fixture(scope="module")
def worker(cluster_dir: Path, queue_env: dict[str, str], queue_api: Server) -> Iterator[Worker]:
    w = start_worker(cluster_dir / "worker", queue_env)
    yield w
    w.stop()


def poll(client: httpx.Client, location: str, seconds: float = 60) -> dict[str, object]:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        body: dict[str, object] = client.get(location).json()
        if body["state"] not in {"queued", "grading"}:
            return body
        time.sleep(0.2)
    raise AssertionError(f"{location} still without an outcome after {seconds} s: {body}")


def test_health_says_queue_mode_and_reaches_the_broker(queue_api: Server) -> None:
    body = httpx.get(f"{queue_api.url}/health").json()
    assert body["status"] == "ok" and body["mode"] == "queue" and body["broker"] == "ok"
    assert body["workers"] == 0  # none started yet: submissions would wait in the queue
    assert body["sandbox"]["graded_by"] == "workers"


def test_health_counts_live_workers(queue_api: Server, worker: Worker) -> None:
    deadline = time.monotonic() + 10
    while (workers := httpx.get(f"{queue_api.url}/health").json()["workers"]) < 1:
        assert time.monotonic() < deadline, "the running worker never showed in /health"
        time.sleep(0.2)
    assert workers == 1
    # Its slots count in the fair turns' capacity (its threads, at most its grader's slots).
    turns = httpx.get(f"{queue_api.url}/health").json()["turns"]
    assert turns["slots"] >= 1 and turns["pending"] == 0, turns


def test_worker_grades_and_the_api_answers_with_the_verdict(
    queue_api: Server, worker: Worker
) -> None:
    with queue_api.client(queue_api.new_learner()) as c:
        passed = c.post("/exercises/layer_norm/submissions", json={"code": SOLUTION})
        failed = c.post("/exercises/layer_norm/submissions", json={"code": STARTER})
        progress = c.get("/progress").json()["exercises"]["layer_norm"]
    assert passed.status_code == 201, passed.text
    assert passed.json()["verdict"] == "passed" and passed.json()["state"] == "done"
    assert passed.json()["cases_passed"] == passed.json()["cases_total"] > 5
    assert failed.status_code == 201 and failed.json()["verdict"] in {"failed", "error"}
    # The worker recorded the review alongside the verdict, as the embedded service does.
    assert progress["status"] == "solved" and progress["attempts"] == 2


def test_without_a_worker_in_time_the_answer_is_202_with_a_location_to_poll(
    cluster_dir: Path, queue_env: dict[str, str], worker: Worker
) -> None:
    # A second API that waits no time at all: the verdict cannot be there yet.
    srv = start_server(cluster_dir / "api-nowait", **queue_env, ADDNORM_VERDICT_WAIT_SECONDS="0")
    try:
        with srv.client(srv.new_learner()) as c:
            r = c.post("/exercises/layer_norm/submissions", json={"code": SOLUTION})
            assert r.status_code == 202, r.text
            assert r.headers["location"] == f"/submissions/{r.json()['id']}"
            assert r.json()["state"] in {"queued", "grading"} and r.json()["verdict"] is None
            done = poll(c, r.headers["location"])
            # A language asked for on submitting stays on the poll path.
            zh = c.post(
                "/exercises/layer_norm/submissions", json={"code": STARTER}, params={"lang": "zh"}
            )
            assert zh.status_code == 202, zh.text
            assert zh.headers["location"] == f"/submissions/{zh.json()['id']}?lang=zh"
            assert zh.json()["lang"] == "zh"
            read = poll(c, zh.headers["location"])
    finally:
        stop_server(srv)
    assert done["state"] == "done" and done["verdict"] == "passed"
    assert read["lang"] == "zh" and read["verdict"] == "error"
    assert "你的代码" in str(read["message"]) and "NotImplementedError" in str(read["message"])


def test_bad_input_is_refused_before_anything_is_queued(queue_api: Server) -> None:
    with queue_api.client(queue_api.new_learner()) as c:
        too_big = c.post(
            "/exercises/layer_norm/submissions", json={"code": "#" + "x" * (65 * 1024)}
        )
        unknown = c.post("/exercises/batch_norm/submissions", json={"code": SOLUTION})
        assert c.get("/submissions").json() == []
    assert too_big.status_code == 413 and unknown.status_code == 404

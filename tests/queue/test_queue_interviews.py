"""A mock interview in queue mode, for real (an API, a worker, PostgreSQL, Redis): the coding
item's submissions answer only "received" while the interview runs, even once the worker has
stored their verdicts, and the report tells them after the end."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from tests.interviews.test_holds import REVEALING, keys_deep
from tests.queue.conftest import queue_settings
from tests.services import SYSTEM_REDIS, Worker, redis_prefix, start_worker
from tests.support import REPO, Server, start_server, stop_server

RECEIVED = {"position", "result", "submission_id", "attempts", "attempts_left", "remaining_seconds"}


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory, pg_url: str) -> Iterator[tuple[Server, str]]:
    with redis_prefix() as prefix:
        env = queue_settings(pg_url, SYSTEM_REDIS, prefix)
        root: Path = tmp_path_factory.mktemp("queue-interview")
        server = start_server(root / "api", **env)
        try:
            worker: Worker = start_worker(root / "worker", env)
            try:
                yield server, pg_url
            finally:
                worker.stop()
        finally:
            stop_server(server)


def _state(pg_url: str, submission_id: int) -> tuple[str, str | None]:
    url = pg_url.replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(url) as conn:
        row = conn.execute(
            "SELECT state, verdict FROM submission WHERE id = %s", (submission_id,)
        ).fetchone()
    assert row is not None
    return str(row[0]), row[1]


def _graded(pg_url: str, submission_id: int) -> tuple[str, str | None]:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        state = _state(pg_url, submission_id)
        if state[0] not in ("queued", "grading"):
            return state
        time.sleep(0.2)
    raise AssertionError(f"submission {submission_id} was not graded within 60 s")


def test_an_interview_submission_shows_only_received_until_the_end(
    cluster: tuple[Server, str],
) -> None:
    server, pg_url = cluster
    with server.client(server.new_learner("queued interviewee")) as c:
        r = c.post("/interviews", json={"preset": "phone_screen"})
        assert r.status_code == 201, r.text
        iv: dict[str, Any] = r.json()
        ex = next(i for i in iv["items"] if i["kind"] == "exercise")
        url = f"/interviews/{iv['id']}/items/{ex['position']}/submissions"
        wrong = c.post(url, json={"code": "import torch\n\nx = 1\n"})
        right = c.post(url, json={"code": (REPO / "solutions" / f"{ex['id']}.py").read_text()})
        ids = []
        for sent in (wrong, right):
            # 201 when the worker answered within the wait, 202 otherwise: "received" either way.
            assert sent.status_code in (201, 202), sent.text
            assert set(sent.json()) == RECEIVED and sent.json()["result"] == "received"
            ids.append(int(sent.json()["submission_id"]))
        assert [right.json()["attempts"], right.json()["attempts_left"]] == [2, 1]
        # The worker has stored both verdicts...
        assert _graded(pg_url, ids[1]) == ("done", "passed")
        assert _graded(pg_url, ids[0])[0] == "done"
        # ...and nothing shows them while the interview runs.
        now = c.get(f"/interviews/{iv['id']}").json()
        assert now["state"] == "running" and now["report"] is None
        assert not keys_deep(now["items"]) & REVEALING
        item = next(i for i in now["items"] if i["position"] == ex["position"])
        assert item["status"] == "submitted" and item["attempts"] == 2
        for path in (f"/submissions/{ids[1]}", "/submissions", f"/exercises/{ex['id']}/hints/1"):
            held = c.get(path)
            assert held.status_code == 409, (path, held.text[:200])
            assert f"mock interview {iv['id']}" in held.json()["detail"]
            assert "passed" not in held.text
        done = c.post(f"/interviews/{iv['id']}/finish", params={"confirm": "true"})
        assert done.status_code == 200, done.text
        report = done.json()["report"]
        first = next(i for i in report["items"] if i["position"] == ex["position"])
        assert first["result"] == "passed" and first["attempts"] == 2
        # After the end the submissions read in full again.
        assert c.get(f"/submissions/{ids[1]}").json()["verdict"] == "passed"

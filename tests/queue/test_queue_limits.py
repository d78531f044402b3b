"""Queue mode's share of the limits, over HTTP on PostgreSQL and the machine's Redis: a learner's
queued jobs count towards their concurrency (no worker runs, so nothing leaves the queue), and
the per-address limits are one limit for every API process sharing the Redis."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from tests.queue.conftest import queue_settings
from tests.services import SYSTEM_REDIS, redis_prefix
from tests.support import DEPLOYED_DEFAULTS, REPO, Server, start_server, stop_server

SOLUTION = (REPO / "solutions" / "layer_norm.py").read_text()


@pytest.fixture(scope="module")
def two_apis(
    tmp_path_factory: pytest.TempPathFactory, pg_url: str
) -> Iterator[tuple[Server, Server]]:
    """Two API processes, one database and one Redis prefix of their own, no worker."""
    with redis_prefix() as prefix:
        env = {
            **DEPLOYED_DEFAULTS,
            **queue_settings(pg_url, SYSTEM_REDIS, prefix),
            "ADDNORM_MAX_CONCURRENT_GRADINGS": "2",
            "ADDNORM_VERDICT_WAIT_SECONDS": "0",
            "ADDNORM_SIGNUPS_PER_HOUR": "3",
        }
        first = start_server(tmp_path_factory.mktemp("api-a"), **env)
        try:
            second = start_server(tmp_path_factory.mktemp("api-b"), **env)
            try:
                yield first, second
            finally:
                stop_server(second)
        finally:
            stop_server(first)


def _from(server: Server, source: str, token: str | None = None) -> httpx.Client:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return httpx.Client(
        base_url=server.url,
        headers=headers,
        timeout=60,
        transport=httpx.HTTPTransport(local_address=source),
    )


def test_sign_ups_are_one_limit_across_api_processes(two_apis: tuple[Server, Server]) -> None:
    first, second = two_apis
    statuses = []
    for server in (first, second, first, second):
        with _from(server, "127.0.0.21") as c:
            statuses.append(c.post("/users", json={"name": "shared"}).status_code)
    assert statuses == [201, 201, 201, 429]
    with _from(second, "127.0.0.21") as c:
        r = c.post("/users", json={"name": "again"})
    assert r.status_code == 429 and int(r.headers["retry-after"]) >= 1


def test_queued_jobs_count_towards_a_learners_concurrency(
    two_apis: tuple[Server, Server],
) -> None:
    first, second = two_apis
    with _from(first, "127.0.0.22") as c:
        token = c.post("/users", json={"name": "queues"}).json()["token"]
    codes = []
    for server in (first, second, first):
        with _from(server, "127.0.0.22", token) as c:
            r = c.post("/exercises/layer_norm/submissions", json={"code": SOLUTION})
            codes.append(r.status_code)
            if r.status_code == 429:
                assert int(r.headers["retry-after"]) >= 1
                assert "queued" in r.json()["detail"]
    # Two wait in the queue (202: no worker), the third is refused and stored nothing.
    assert codes == [202, 202, 429]
    with _from(second, "127.0.0.22", token) as c:
        assert len(c.get("/submissions").json()) == 2

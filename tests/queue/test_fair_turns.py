"""Fair turns in queue mode (api.queue.fair), for real: the Lua scripts against the machine's
Redis, then a flood of fresh accounts from one address against a real API, a real worker and
PostgreSQL, with another learner's latency measured in jobs."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import httpx
import psycopg
import pytest
import redis

from api.queue.fair import FairQueue
from tests.queue.conftest import queue_settings
from tests.services import SYSTEM_REDIS, Worker, redis_prefix, start_worker
from tests.support import DEPLOYED_DEFAULTS, REPO, Server, start_server, stop_server

SOLUTION = (REPO / "solutions" / "layer_norm.py").read_text()
# Passes the static check and sleeps in the sandbox until the time limit kills it.
SLOW = """\
import time
import torch
from torch import nn


class LayerNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-5) -> None:
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        time.sleep(30)
        return x
"""


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def turns() -> Iterator[tuple[FairQueue, Clock]]:
    client = redis.Redis.from_url(SYSTEM_REDIS)
    clock = Clock()
    with redis_prefix() as prefix:
        fair = FairQueue(
            client,
            prefix=prefix,
            per_address=4,
            lease_seconds=60,
            alive_seconds=30,
            clock=clock,
        )
        # One worker of two slots, seen just now.
        client.zadd(f"{prefix}workers", {"w1": clock.now})
        fair.announce("w1", 2)
        yield fair, clock
    client.close()


def _submit(fair: FairQueue, sid: int, address: str, user: int) -> list[int]:
    token = fair.reserve(address)
    assert token is not None
    return fair.enqueue(sid, address=address, user_id=user, token=token)


def test_a_free_slot_goes_to_the_address_with_the_fewest_jobs(
    turns: tuple[FairQueue, Clock],
) -> None:
    fair, _ = turns
    # Address A fills both slots and its line: two sent, two pending, the fifth refused.
    sent = [s for sid in (1, 2, 3, 4) for s in _submit(fair, sid, "A", 10 + sid)]
    assert sent == [1, 2]
    assert fair.reserve("A") is None
    # B arrives last but is served first when a slot frees: A has two running, B none.
    assert _submit(fair, 5, "B", 20) == []
    assert fair.is_pending(5) and fair.is_pending(3)
    assert fair.status() == {"slots": 2, "running": 2, "pending": 3}
    assert fair.release(1) == [5]
    # Running now: 2 (A) and 5 (B). When 2 ends, A has none running: its earliest pending job.
    assert fair.release(2) == [3]
    # When 5 ends, B has nothing pending: A's last one.
    assert fair.release(5) == [4]
    assert fair.status() == {"slots": 2, "running": 2, "pending": 0}
    # A's places come back as its jobs end.
    assert fair.reserve("A") is not None


def test_within_an_address_the_learner_with_fewer_jobs_goes_first(
    turns: tuple[FairQueue, Clock],
) -> None:
    fair, _ = turns
    assert _submit(fair, 1, "A", 1) == [1]
    assert _submit(fair, 2, "A", 1) == [2]
    assert _submit(fair, 3, "A", 1) == []  # learner 1's third
    assert _submit(fair, 4, "A", 2) == []  # learner 2's first, later
    assert fair.release(1) == [4]


def test_leases_lapse_and_a_worker_that_stops_stops_counting(
    turns: tuple[FairQueue, Clock],
) -> None:
    fair, clock = turns
    assert _submit(fair, 1, "A", 1) == [1]
    assert _submit(fair, 2, "A", 2) == [2]
    assert _submit(fair, 3, "B", 3) == []
    # The workers holding 1 and 2 died without releasing: after the lease, the slots are free.
    clock.now += 61
    fair.client.zadd(f"{fair.prefix}workers", {"w1": clock.now})
    assert fair.dispatch() == [3]
    # No live worker: nothing is sent, the job waits.
    clock.now += 31
    assert _submit(fair, 4, "C", 4) == []
    fair.client.zadd(f"{fair.prefix}workers", {"w1": clock.now})
    assert fair.dispatch() == [4]


def test_a_reservation_never_stored_lapses(turns: tuple[FairQueue, Clock]) -> None:
    fair, clock = turns
    tokens = [fair.reserve("A") for _ in range(4)]
    assert None not in tokens and fair.reserve("A") is None
    token = tokens[0]
    assert token is not None
    fair.unreserve("A", token)
    assert fair.reserve("A") is not None
    clock.now += 61  # none of them was stored: every hold lapses
    assert None not in [fair.reserve("A") for _ in range(4)]
    assert fair.reserve("A") is None


# --------------------------------------------------------------------------- over HTTP


@pytest.fixture(scope="module")
def deployed(
    tmp_path_factory: pytest.TempPathFactory, pg_url: str
) -> Iterator[tuple[Server, Worker, str]]:
    """The deployed limits (4 jobs per address, 2 per learner, 10 accounts an hour per
    address), one worker of two slots, jobs killed at 3 s."""
    with redis_prefix() as prefix:
        env = {
            **DEPLOYED_DEFAULTS,
            **queue_settings(pg_url, SYSTEM_REDIS, prefix),
            "ADDNORM_TIME_LIMIT_SECONDS": "3",
            "ADDNORM_GRADER_SLOTS": "2",
            "ADDNORM_VERDICT_WAIT_SECONDS": "15",
            "ADDNORM_SWEEP_AFTER_SECONDS": "60",
            "ADDNORM_VISIBILITY_TIMEOUT_SECONDS": "30",
            # The deployed per-learner limits, not the queue tests' generous ones.
            "ADDNORM_MAX_CONCURRENT_GRADINGS": "",
            "ADDNORM_SUBMISSIONS_PER_MINUTE": "",
        }
        root: Path = tmp_path_factory.mktemp("fair")
        server = start_server(root / "api", **env)
        try:
            worker = start_worker(root / "worker", env)
            try:
                yield server, worker, pg_url
            finally:
                worker.stop()
        finally:
            stop_server(server)


def _from(server: Server, source: str, token: str | None = None) -> httpx.Client:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return httpx.Client(
        base_url=server.url,
        headers=headers,
        timeout=60,
        transport=httpx.HTTPTransport(local_address=source),
    )


def _rows(pg_url: str, query: str, *args: object) -> list[tuple[object, ...]]:
    url = pg_url.replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(url) as conn:
        return list(conn.execute(query, args).fetchall())


def test_a_flood_of_fresh_accounts_from_one_address_delays_another_by_one_job(
    deployed: tuple[Server, Worker, str],
) -> None:
    """Eight fresh learners on 127.0.0.41 keep both slots busy with 3 s jobs (sixteen clients
    at once); a learner on 127.0.0.42 submits a correct solution three times meanwhile. In
    arrival order the victim would wait behind the address's queued jobs; in fair turns no
    flood job starts between the victim's submission and its grading."""
    server, _, pg_url = deployed
    with _from(server, "127.0.0.41") as signup:
        tokens = [signup.post("/users", json={"name": f"f{i}"}).json()["token"] for i in range(8)]
    with _from(server, "127.0.0.42") as signup:
        victim = signup.post("/users", json={"name": "victim"}).json()["token"]
    statuses: list[int] = []
    stop = threading.Event()

    def flood(token: str) -> None:
        with _from(server, "127.0.0.41", token) as c:
            while not stop.is_set():
                r = c.post("/exercises/layer_norm/submissions", json={"code": SLOW})
                statuses.append(r.status_code)
                if r.status_code != 201:
                    time.sleep(0.3)

    threads = [threading.Thread(target=flood, args=(t,)) for t in tokens for _ in range(2)]
    for t in threads:
        t.start()
    measured: list[tuple[float, int, int]] = []
    try:
        time.sleep(5)  # the flood fills both slots and its address's line
        with _from(server, "127.0.0.42", victim) as c:
            for _ in range(3):
                sent = datetime.now(UTC).replace(tzinfo=None)
                began = time.monotonic()
                r = c.post("/exercises/layer_norm/submissions", json={"code": SOLUTION})
                assert r.status_code in (201, 202), r.text[:300]
                body = r.json()
                while body["state"] in ("queued", "grading"):  # not graded within the wait
                    time.sleep(0.2)
                    body = c.get(f"/submissions/{body['id']}").json()
                waited = time.monotonic() - began
                assert body["verdict"] == "passed", body
                ((started,),) = _rows(
                    pg_url, "SELECT started_at FROM submission WHERE id = %s", body["id"]
                )
                # Flood jobs that began grading after the victim submitted and before its own.
                ((ahead,),) = _rows(
                    pg_url,
                    "SELECT count(*) FROM submission WHERE id <> %s AND started_at > %s"
                    " AND started_at < %s",
                    body["id"],
                    sent,
                    started,
                )
                # Flood jobs waiting (pending or queued) when the victim's began.
                ((running,),) = _rows(
                    pg_url,
                    "SELECT count(*) FROM submission WHERE started_at <= %s"
                    " AND (completed_at IS NULL OR completed_at > %s) AND id <> %s",
                    started,
                    started,
                    body["id"],
                )
                measured.append((waited, int(str(ahead)), int(str(running))))
    finally:
        stop.set()
        for t in threads:
            t.join(timeout=90)
    print(
        "queue-mode flood: victim waits (s, flood jobs started ahead of it, jobs running "
        f"beside it) {[(round(w, 2), a, b) for w, a, b in measured]}; "
        f"flood statuses {sorted(set(statuses))} ({len(statuses)} answers, "
        f"{statuses.count(429)} of them 429)"
    )
    # The flood was real: both slots busy beside the victim's job at least once, and refused.
    assert max(b for _, _, b in measured) >= 1
    assert 429 in statuses and 503 not in statuses
    # The flood did not overtake the victim: it waited for a running job to end, no more (one
    # at most: a flood job handed its slot in the milliseconds before the victim's row was in
    # line). In arrival order, the address's two queued jobs went first each time.
    assert all(a <= 1 for _, a, _ in measured), measured

"""Fairness under load: per-learner limits answer 429 with Retry-After, and a full grader
answers 503 'busy' after a bounded wait instead of hanging."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import httpx
import pytest

from tests.support import Server, start_server, stop_server

SPIN = (
    "import torch\nfrom torch import nn\n"
    "class LayerNorm(nn.Module):\n    pass\n"
    "while True:\n    pass\n"
)
BROKEN = "class LayerNorm(:\n"


@pytest.fixture(scope="module")
def tight(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = start_server(
        tmp_path_factory.mktemp("tight"),
        ADDNORM_GRADER_SLOTS="1",
        ADDNORM_TIME_LIMIT_SECONDS="2",
        ADDNORM_QUEUE_TIMEOUT_SECONDS="0.5",
        ADDNORM_MAX_CONCURRENT_GRADINGS="1",
        ADDNORM_SUBMISSIONS_PER_MINUTE="4",
    )
    yield srv
    stop_server(srv)


def post(client: httpx.Client, code: str) -> httpx.Response:
    return client.post("/exercises/layer_norm/submissions", json={"code": code})


def in_background(client: httpx.Client, code: str) -> tuple[threading.Thread, list[httpx.Response]]:
    out: list[httpx.Response] = []
    thread = threading.Thread(target=lambda: out.append(post(client, code)))
    thread.start()
    return thread, out


def wait_until_grading(client: httpx.Client) -> None:
    for _ in range(100):
        if any(s["state"] == "grading" for s in client.get("/submissions").json()):
            return
        threading.Event().wait(0.02)
    raise AssertionError("the background submission never started grading")


def test_per_minute_limit_is_429_with_retry_after(tight: Server) -> None:
    with tight.client(tight.new_learner()) as c:
        answers = [post(c, BROKEN) for _ in range(5)]
    assert [r.status_code for r in answers] == [201, 201, 201, 201, 429]
    last = answers[-1]
    assert "Too many submissions" in last.json()["detail"]
    assert 1 <= int(last.headers["retry-after"]) <= 61


def test_second_concurrent_grading_of_one_learner_is_429(tight: Server) -> None:
    with (
        tight.client(tight.new_learner()) as c,
        tight.client(c.headers["authorization"].split()[1]) as c2,
    ):
        thread, first = in_background(c, SPIN)
        wait_until_grading(c2)
        second = post(c2, BROKEN)
        thread.join()
    assert second.status_code == 429 and second.headers["retry-after"] == "1"
    assert first[0].json()["verdict"] == "timeout"


def test_full_grader_answers_busy_instead_of_hanging(tight: Server) -> None:
    with tight.client(tight.new_learner("a")) as a, tight.client(tight.new_learner("b")) as b:
        thread, first = in_background(a, SPIN)
        wait_until_grading(a)
        busy = post(b, SPIN.replace("while True", "while 1"))
        thread.join()
        rows = b.get("/submissions").json()
    assert busy.status_code == 503, busy.text
    assert busy.headers["retry-after"] and "busy" in busy.json()["detail"]
    # Nothing is lost: the refused submission is on record, saying why it was not graded.
    assert [(r["id"], r["state"]) for r in rows] == [(busy.json()["id"], "grader_failed")]
    assert "busy" in rows[0]["message"]
    assert first[0].json()["verdict"] == "timeout"

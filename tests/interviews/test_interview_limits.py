"""Write endpoints of the interview (and the hints) bounded per learner, over HTTP against a
real server: interviews started an hour, answers (interview answers count with the quiz's),
item clock moves; reopening an item or rereading a hint stores nothing new."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from api.content.questions import QuestionBank
from tests.interviews.test_interviews_http import right_answer
from tests.support import Server, start_server, stop_server


@pytest.fixture(scope="module")
def limited(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = start_server(
        tmp_path_factory.mktemp("interview-limits"),
        ADDNORM_INTERVIEWS_PER_HOUR="2",
        ADDNORM_ANSWERS_PER_HOUR="3",
        ADDNORM_INTERVIEW_CLOCK_PER_HOUR="5",
    )
    yield srv
    stop_server(srv)


def rows(server: Server, table: str) -> int:
    with sqlite3.connect(server.data_dir / "addnorm.db") as conn:
        return int(conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0])


def assert_limited(r: httpx.Response, words: str) -> None:
    assert r.status_code == 429, r.text[:300]
    assert int(r.headers["retry-after"]) >= 1
    detail = r.json()["detail"]
    assert detail.startswith("Too many") and words in detail and "\n" not in detail


def start(c: httpx.Client, preset: str) -> dict[str, Any]:
    r = c.post("/interviews", json={"preset": preset})
    assert r.status_code == 201, r.text
    body: dict[str, Any] = r.json()
    return body


def test_interviews_started_are_limited_per_learner(limited: Server) -> None:
    with limited.client(limited.new_learner()) as c:
        for _ in range(2):
            iv = start(c, "concepts")
            assert c.post(f"/interviews/{iv['id']}/finish?confirm=true").status_code == 200
        assert_limited(c.post("/interviews", json={"preset": "concepts"}), "mock interviews")
    # Another learner has a budget of their own.
    with limited.client(limited.new_learner()) as c:
        start(c, "concepts")


def test_interview_answers_count_with_the_learners_answers(
    limited: Server, bank: QuestionBank
) -> None:
    with limited.client(limited.new_learner()) as c:
        iv = start(c, "concepts")
        stored = rows(limited, "interviewattempt")
        statuses = []
        for it in iv["items"][:4]:
            r = c.post(
                f"/interviews/{iv['id']}/items/{it['position']}/answers",
                json={"answer": right_answer(bank.get(it["id"]))},
            )
            statuses.append(r.status_code)
        assert statuses[:3] == [201, 201, 201], statuses
        assert_limited(r, "answers")
        assert rows(limited, "interviewattempt") == stored + 3


def test_reopening_an_item_stores_nothing_and_clock_moves_are_limited(limited: Server) -> None:
    with limited.client(limited.new_learner()) as c:
        iv = start(c, "concepts")
        before = rows(limited, "interviewevent")
        base = f"/interviews/{iv['id']}/items"
        # Open 1, open 1 again, leave, leave again: two moves stored.
        for path in ("1/open", "1/open", "1/leave", "1/leave"):
            assert c.post(f"{base}/{path}").status_code == 200
        assert rows(limited, "interviewevent") == before + 2
        assert c.post(f"{base}/2/open").status_code == 200
        assert_limited(c.post(f"{base}/3/open"), "items opened or left")
        assert rows(limited, "interviewevent") == before + 3


def test_rereading_a_hint_stores_it_once(limited: Server) -> None:
    with limited.client(limited.new_learner()) as c:
        before = rows(limited, "helpuse")
        for _ in range(5):
            assert c.get("/exercises/layer_norm/hints/1").status_code == 200
        assert c.get("/exercises/layer_norm/hints/2").status_code == 200
        assert rows(limited, "helpuse") == before + 2

"""An interview item takes what its rules allow, however many requests arrive at once.

A question takes one answer and a coding item ``max_attempts`` submissions: both were a count of
the stored attempts, read before the insert, so requests sent together all found room (four
answers to one question were recorded; eight submissions against a limit of three). The record
an operator judges a learner by must hold to the rules. Runs on SQLite and on PostgreSQL, each
with a database of its own and a per-learner grading limit high enough that the pool, not the
limiter, decides how many submissions run at once.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import pytest
from sqlalchemy import text

from api.content.interview_rubric import self_rating_grade
from api.content.questions import load_question_bank
from api.db import make_engine
from api.learning import review
from tests.admin.conftest import fresh_database
from tests.support import REPO, Server, at_once, start_server, stop_server

AT_ONCE = 8
MAX_ATTEMPTS = 3  # the default of POST /interviews


@dataclass(frozen=True)
class Racing:
    server: Server
    database_url: str


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def racing(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Racing]:
    directory = tmp_path_factory.mktemp("racing")
    with fresh_database(request.param, directory) as url:
        srv = start_server(
            directory / "data",
            ADDNORM_DATABASE_URL=url,
            ADDNORM_SUBMISSIONS_PER_MINUTE="1000",
            ADDNORM_MAX_CONCURRENT_GRADINGS=str(AT_ONCE),
        )
        yield Racing(srv, url)
        stop_server(srv)


@pytest.fixture
def racing_server(racing: Racing) -> Server:
    return racing.server


def _together(server: Server, token: str, path: str, body: dict[str, Any] | None) -> list[int]:
    def send() -> int:
        with server.client(token) as client:
            return client.post(path, json=body).status_code

    return sorted(at_once(AT_ONCE, send))


def _interview(server: Server, token: str) -> dict[str, Any]:
    with server.client(token) as client:
        started = client.post("/interviews", json={"minutes": 30, "topics": ["layer_norm"]})
    assert started.status_code == 201, started.text
    body: dict[str, Any] = started.json()
    return body


def test_a_question_item_records_one_answer(racing_server: Server) -> None:
    token = racing_server.new_learner("eager")
    iv = _interview(racing_server, token)
    question = next(i for i in iv["items"] if i["kind"] == "question")
    base = f"/interviews/{iv['id']}/items/{question['position']}"

    key = load_question_bank(REPO / "exercises" / "questions").get(question["id"]).answer
    statuses = _together(racing_server, token, f"{base}/answers", {"answer": key})
    assert statuses == [201] + [409] * (AT_ONCE - 1), statuses

    with racing_server.client(token) as client:
        running = client.get(f"/interviews/{iv['id']}").json()
    item = next(i for i in running["items"] if i["position"] == question["position"])
    assert item["status"] == "answered", item


def test_a_coding_item_takes_at_most_its_submissions(racing_server: Server) -> None:
    token = racing_server.new_learner("hasty")
    iv = _interview(racing_server, token)
    coding = next(i for i in iv["items"] if i["kind"] == "exercise")
    path = f"/interviews/{iv['id']}/items/{coding['position']}/submissions"
    code = (REPO / "solutions" / f"{coding['id']}.py").read_text()

    statuses = _together(racing_server, token, path, {"code": code})
    accepted = statuses.count(201)
    # A 429 or 503 (no room to grade it now) records nothing and gives the attempt back; every
    # other answer is a grading (201) or the limit (409).
    assert set(statuses) <= {201, 409, 429, 503}, statuses
    assert accepted <= MAX_ATTEMPTS, statuses
    with racing_server.client(token) as client:
        for _ in range(20):
            if accepted == MAX_ATTEMPTS:
                break
            more = client.post(path, json={"code": code})
            assert more.status_code in (201, 429, 503), more.text
            accepted += more.status_code == 201
        assert accepted == MAX_ATTEMPTS
        refused = client.post(path, json={"code": code})
        assert refused.status_code == 409, refused.text
        running = client.get(f"/interviews/{iv['id']}").json()
    item = next(i for i in running["items"] if i["position"] == coding["position"])
    assert item["attempts"] == MAX_ATTEMPTS, item


def test_a_self_rating_feeds_the_review_card_once(racing: Racing) -> None:
    """Ratings of one explanation sent at once: the explained exercise's card is rated once
    (each used to find no earlier rating and rate the card again)."""
    server = racing.server
    token = server.new_learner("rates twice")
    with server.client(token) as client:
        iv = client.post("/interviews", json={"preset": "onsite"}).json()
        ended = client.post(f"/interviews/{iv['id']}/finish", params={"confirm": "true"})
        assert ended.status_code == 200, ended.text
        user_id = client.get("/users/me").json()["id"]
    explained = next(i for i in iv["items"] if i["kind"] == "explain")["id"]
    points = {"shapes": 2, "numerical_stability": 2, "cost": 1, "training_vs_inference": 2}

    statuses = _together(server, token, f"/interviews/{iv['id']}/self-rating", points)
    assert statuses == [200] * AT_ONCE, statuses

    engine = make_engine(racing.database_url)
    try:
        with engine.connect() as connection:
            (card,) = connection.execute(
                text(
                    "SELECT card FROM reviewcard WHERE user_id = :user_id"
                    " AND kind = 'exercise' AND item_id = :item"
                ),
                {"user_id": user_id, "item": explained},
            ).one()
    finally:
        engine.dispose()
    stored = json.loads(card)
    # A first review's difficulty and stability depend on its rating alone; a second one, even
    # at the same moment, moves both.
    once = json.loads(
        review.review(None, review.Rating(self_rating_grade(points)), datetime.now(UTC)).card_json
    )
    assert (stored["difficulty"], stored["stability"]) == (once["difficulty"], once["stability"])

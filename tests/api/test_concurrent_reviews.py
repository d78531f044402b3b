"""Two reviews of one card at the same moment: both answered, both counted.

A learner's two tabs answering one question together (or two gradings of one exercise finishing
together) both find no review card and both insert one. On PostgreSQL the second insert used to
fail on the card's unique key, and the learner got a 500 for a right answer; and two reviews of
an existing card could both read one state, the later commit dropping the other's review. Runs
on SQLite and on PostgreSQL (tests/api/conftest.py).
"""

from __future__ import annotations

import json

from sqlalchemy import text

from api.content.questions import TrueFalseQuestion, load_question_bank
from api.db import make_engine
from tests.support import REPO, Server, at_once

# Each question is answered right by two requests at once: a new card rated Good twice leaves
# its learning steps (fsrs state 2, Review); rated once, it is still learning (state 1).
QUESTIONS = 6
REVIEW_STATE = 2


def _answer_together(server: Server, token: str, question: TrueFalseQuestion) -> list[int]:
    def answer() -> int:
        with server.client(token) as client:
            return client.post(
                f"/questions/{question.id}/answers", json={"answer": question.answer}
            ).status_code

    return sorted(at_once(2, answer))


def test_simultaneous_answers_are_both_counted(server: Server, database_url: str) -> None:
    bank = load_question_bank(REPO / "exercises" / "questions")
    questions = [q for q in bank.questions if isinstance(q, TrueFalseQuestion)][:QUESTIONS]
    assert len(questions) == QUESTIONS
    token = server.new_learner("two tabs")
    for question in questions:
        statuses = _answer_together(server, token, question)
        assert statuses == [200, 200], (question.id, statuses)

    with server.client(token) as client:
        user_id = client.get("/users/me").json()["id"]
    engine = make_engine(database_url)
    try:
        with engine.connect() as connection:
            rows = connection.execute(
                text(
                    "SELECT item_id, card FROM reviewcard"
                    " WHERE user_id = :user_id AND kind = 'question'"
                ),
                {"user_id": user_id},
            ).all()
    finally:
        engine.dispose()
    states = {item: json.loads(card)["state"] for item, card in rows}
    assert states == {q.id: REVIEW_STATE for q in questions}, states

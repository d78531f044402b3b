"""Spaced review over HTTP on the real SQLite file: yesterday's mistakes are in today's review,
most overdue first, for questions and coding exercises alike, and only for their learner."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime, timedelta

import httpx

from api.content.questions import QuestionBank
from tests.catalog_topics import exercise_topics
from tests.support import REPO, Server

STARTER = (REPO / "exercises" / "layer_norm" / "starter.py").read_text()
SOLUTION = (REPO / "solutions" / "layer_norm.py").read_text()


def backdate(server: Server, item_id: str, days: float) -> None:
    """Move a card's due date into the past, as if its review had been scheduled days ago."""
    due = (datetime.now(UTC) - timedelta(days=days)).replace(tzinfo=None)
    with sqlite3.connect(server.data_dir / "addnorm.db") as db:
        changed = db.execute(
            "UPDATE reviewcard SET due = ? WHERE item_id = ?", (due.isoformat(" "), item_id)
        ).rowcount
    assert changed >= 1, f"no review card for {item_id}"


def test_yesterdays_mistakes_are_due_today_most_overdue_first(
    server: Server, api: httpx.Client, bank: QuestionBank
) -> None:
    assert api.get("/review").json() == {"due": [], "count": 0}
    # A wrong answer and a failed exercise; a right answer for contrast.
    assert (
        api.post("/questions/ln-biased-variance/answers", json={"answer": True}).json()["correct"]
        is False
    )
    assert api.post("/exercises/layer_norm/submissions", json={"code": STARTER}).json()[
        "verdict"
    ] in {"failed", "error"}
    key = bank.get("ffn-why-after-attention").answer
    right = api.post("/questions/ffn-why-after-attention/answers", json={"answer": key})
    assert right.json()["correct"] is True
    # Just answered: a wrong answer comes back after a short learning step, not at once.
    assert api.get("/review").json()["count"] == 0
    backdate(server, "ln-biased-variance", days=1)
    backdate(server, "layer_norm", days=2)
    due = api.get("/review", params={"lang": "zh"}).json()
    assert [(d["kind"], d["id"]) for d in due["due"]] == [
        ("exercise", "layer_norm"),
        ("question", "ln-biased-variance"),
    ]
    assert due["due"][0]["overdue_seconds"] > due["due"][1]["overdue_seconds"] > 0
    assert any("\u4e00" <= ch <= "\u9fff" for ch in due["due"][1]["prompt"])
    # The right answer is not due: it comes back in days, not the next morning.
    assert "ffn-why-after-attention" not in [d["id"] for d in due["due"]]
    session = api.get("/session").json()
    assert [r["id"] for r in session["reviews"]] == ["layer_norm", "ln-biased-variance"]
    # Another learner has none of this.
    with server.client(server.new_learner("other")) as other:
        assert other.get("/review").json()["count"] == 0


def test_passing_after_failing_pushes_the_exercise_out_of_review(
    server: Server, api: httpx.Client
) -> None:
    api.post("/exercises/layer_norm/submissions", json={"code": STARTER})
    backdate(server, "layer_norm", days=1)
    assert [d["id"] for d in api.get("/review").json()["due"]] == ["layer_norm"]
    assert (
        api.post("/exercises/layer_norm/submissions", json={"code": SOLUTION}).json()["verdict"]
        == "passed"
    )
    assert api.get("/review").json()["count"] == 0


def test_an_answer_says_when_the_question_comes_back(api: httpx.Client, bank: QuestionBank) -> None:
    wrong = api.post("/questions/ln-biased-variance/answers", json={"answer": True}).json()
    assert wrong["correct"] is False
    assert wrong["next_review"]["text"] == "in 10 minutes"
    assert 590 <= wrong["next_review"]["in_seconds"] <= 600
    key = bank.get("ffn-why-after-attention").answer
    right = api.post(
        "/questions/ffn-why-after-attention/answers", params={"lang": "zh"}, json={"answer": key}
    ).json()
    assert right["correct"] is True
    assert right["next_review"]["text"] == "2 天后"
    due = datetime.fromisoformat(right["next_review"]["due"])
    assert timedelta(days=1.9) < due - datetime.now(UTC) <= timedelta(days=2)


def test_progress_explains_mastery_and_its_totals_match_the_questions(
    api: httpx.Client, bank: QuestionBank
) -> None:
    formula = bank.get("rms-formula")
    api.post("/questions/rms-formula/answers", json={"answer": formula.answer})
    body = api.get("/progress").json()
    assert "points_possible" in body["mastery_rule"]
    for topic, entry in body["topics"].items():
        listed = api.get("/questions", params={"topic": topic}).json()
        assert entry["questions"]["total"] == len(listed), topic
        assert entry["total"] == entry["questions"]["total"] + entry["exercises"]["total"]
        if entry["points_possible"]:
            assert entry["mastery"] == round(entry["points"] / entry["points_possible"], 3)
    rms = body["topics"]["rms_norm"]
    assert rms["questions"] | {"total": 0} == {"total": 0, "attempted": 1, "correct": 1}
    # Every exercise whose meta.yaml lists the topic counts towards it.
    n_exercises = sum("rms_norm" in ts for ts in exercise_topics().values())
    assert rms["exercises"] == {"total": n_exercises, "attempted": 0, "passed": 0}
    # One question right of n questions and k exercises (3 points each): 1 / (n + 3k).
    assert rms["points"] == 1
    assert rms["points_possible"] == rms["questions"]["total"] + 3 * n_exercises


def test_session_mixes_an_exercise_with_questions_of_the_weakest_topic(
    api: httpx.Client,
) -> None:
    session = api.get("/session").json()
    focus = session["focus_topics"][0]
    kinds = [item["kind"] for item in session["new"]]
    assert len(kinds) == 5 and "exercise" in kinds and "question" in kinds
    assert {item["topic"] for item in session["new"]} == {focus}

"""A timed mock interview over HTTP with the real server, the real SQLite file and the real
sandbox: nothing is revealed while it runs, the server ends it when time is up, and the report
tells everything and feeds spaced review."""

from __future__ import annotations

import sqlite3
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta
from typing import Any

import httpx
import pytest

from api.content.questions import (
    MultipleSelectQuestion,
    NumericQuestion,
    Question,
    QuestionBank,
    SingleChoiceQuestion,
    TrueFalseQuestion,
)
from tests.support import REPO, Server

SOLUTION = (REPO / "solutions" / "layer_norm.py").read_text()


def starter_of(slug: str) -> str:
    return (REPO / "exercises" / slug / "starter.py").read_text()


def solution_of(slug: str) -> str:
    """The worked solution of whichever exercise the interview drew (the catalogue has several
    on one topic, and grows)."""
    return (REPO / "solutions" / f"{slug}.py").read_text()


# Words a running interview must never show: the key, the explanation, the verdict's details.
REVEALING = {"correct", "correct_answer", "explanation", "source", "checks", "diagnosis", "message"}


def right_answer(q: Question) -> Any:
    return q.answer


def wrong_answer(q: Question) -> Any:
    match q:
        case TrueFalseQuestion():
            return not q.answer
        case NumericQuestion():
            return q.answer * 10 + 7
        case MultipleSelectQuestion():
            return [] if q.answer else [0]
        case SingleChoiceQuestion() | _:
            return (q.answer + 1) % len(q.choices)


def keys_deep(value: object) -> set[str]:
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in keys_deep(v)}
    if isinstance(value, list):
        return {k for v in value for k in keys_deep(v)}
    return set()


def fixed(value: object) -> object:
    """``value`` without its ``next_review`` entries, which count down with the clock."""
    if isinstance(value, dict):
        return {k: fixed(v) for k, v in value.items() if k != "next_review"}
    if isinstance(value, list):
        return [fixed(v) for v in value]
    return value


def questions_of(interview: dict[str, Any]) -> list[dict[str, Any]]:
    return [i for i in interview["items"] if i["kind"] == "question"]


def test_a_thirty_minute_round_and_its_report(
    server: Server, api: httpx.Client, bank: QuestionBank
) -> None:
    # No preset named: the on-site round, its budgets scaled to the 30 minutes asked for.
    r = api.post("/interviews", json={"minutes": 30, "topics": ["layer_norm"]})
    assert r.status_code == 201, r.text
    iv = r.json()
    assert iv["state"] == "running" and iv["report"] is None and iv["preset"] == "onsite"
    assert 1790 < iv["remaining_seconds"] <= 1800
    deadline = datetime.fromisoformat(iv["deadline"]) - datetime.fromisoformat(iv["started_at"])
    assert deadline == timedelta(minutes=30)
    kinds = [i["kind"] for i in iv["items"]]
    # Warm-up, then each exercise with its follow-ups, then the explanation of the last one.
    assert kinds[:2] == ["question", "question"] and kinds[-1] == "explain"
    assert kinds.count("exercise") == 2
    assert [i["position"] for i in iv["items"]] == list(range(1, len(kinds) + 1))
    assert sum(i["budget_seconds"] for i in iv["items"]) == pytest.approx(1800, abs=1)
    assert {t for i in questions_of(iv) for t in i["topics"]} == {"layer_norm"}
    ex_pos = [i["position"] for i in iv["items"] if i["kind"] == "exercise"]
    first_ex = iv["items"][ex_pos[0] - 1]
    slug = first_ex["id"]
    assert "layer_norm" in first_ex["topics"] and first_ex["title"] and first_ex["prompt"]
    # The questions come as GET /questions shows them: prompt and choices, never the key.
    assert all(i["question"]["prompt"] for i in questions_of(iv))
    assert not keys_deep(iv["items"]) & REVEALING
    base = f"/interviews/{iv['id']}/items"

    q1, q2 = (bank.get(i["id"]) for i in questions_of(iv)[:2])
    a1 = api.post(f"{base}/1/answers", json={"answer": right_answer(q1)})
    a2 = api.post(f"{base}/2/answers", json={"answer": wrong_answer(q2)})
    for a, position in ((a1, 1), (a2, 2)):
        assert a.status_code == 201, a.text
        # No feedback at all: the same shape for a right and a wrong answer.
        assert set(a.json()) == {"position", "recorded", "remaining_seconds"}
        assert a.json()["position"] == position and a.json()["recorded"] is True
    # Practice is paused meanwhile: progress and review point to the interview.
    for held in (api.get("/progress"), api.get("/review")):
        assert held.status_code == 409 and held.json()["interview_id"] == iv["id"]

    failed = api.post(f"{base}/{ex_pos[0]}/submissions", json={"code": starter_of(slug)})
    assert failed.status_code == 201, failed.text
    passed = api.post(f"{base}/{ex_pos[0]}/submissions", json={"code": solution_of(slug)})
    # A failing and a passing submission answer alike: received.
    assert failed.json()["result"] == passed.json()["result"] == "received"
    assert (failed.json()["attempts_left"], passed.json()["attempts_left"]) == (2, 1)

    # While it runs: no report, statuses only.
    running = api.get(f"/interviews/{iv['id']}").json()
    assert running["report"] is None
    assert [i["status"] for i in running["items"][:2]] == ["answered"] * 2
    assert running["items"][ex_pos[0] - 1]["status"] == "submitted"
    assert running["items"][ex_pos[0] - 1]["attempts"] == 2
    assert not keys_deep(running["items"]) & REVEALING

    # The coding item cannot be graded around the interview, nor its verdicts read.
    around_code = api.post(f"/exercises/{slug}/submissions", json={"code": solution_of(slug)})
    assert around_code.status_code == 409
    assert f"/interviews/{iv['id']}" in around_code.json()["detail"]
    assert api.get("/submissions", params={"exercise": slug}).status_code == 409
    assert api.get(f"/submissions/{passed.json()['submission_id']}").status_code == 409

    # Clear refusals.
    again = api.post(f"{base}/1/answers", json={"answer": right_answer(q1)})
    assert again.status_code == 409 and "already answered" in again.json()["detail"]
    code_as_answer = api.post(f"{base}/{ex_pos[0]}/answers", json={"answer": 0})
    assert code_as_answer.status_code == 422 and "/submissions" in code_as_answer.json()["detail"]
    answer_as_code = api.post(f"{base}/1/submissions", json={"code": SOLUTION})
    assert answer_as_code.status_code == 422 and "/answers" in answer_as_code.json()["detail"]
    missing = api.post(f"{base}/{len(kinds) + 1}/answers", json={"answer": 0})
    assert missing.status_code == 404 and f"1..{len(kinds)}" in missing.json()["detail"]
    third = next(i for i in iv["items"] if i["kind"] == "follow_up")
    malformed = api.post(f"{base}/{third['position']}/answers", json={"answer": "B"})
    assert malformed.status_code == 422 and malformed.json()["detail"].startswith("Expected")
    # The interview's questions cannot be answered around it, with feedback, while it runs.
    around = api.post(f"/questions/{q2.id}/answers", json={"answer": right_answer(q2)})
    assert around.status_code == 409 and f"interview {iv['id']}" in around.json()["detail"]
    second = api.post("/interviews", json={"minutes": 30})
    assert second.status_code == 409 and f"/interviews/{iv['id']}/finish" in second.json()["detail"]

    # Items are unanswered: finishing asks for a confirmation first.
    unconfirmed = api.post(f"/interviews/{iv['id']}/finish")
    assert unconfirmed.status_code == 409 and "confirm=true" in unconfirmed.json()["detail"]
    done = api.post(f"/interviews/{iv['id']}/finish", params={"confirm": "true"})
    assert done.status_code == 200, done.text
    body = done.json()
    assert body["state"] == "finished" and body["remaining_seconds"] == 0
    report = body["report"]
    assert report["ended_by"] == "learner"
    assert report["score"] == {"right": 2, "total": len(kinds)}
    results = [i["result"] for i in report["items"]]
    assert results[:2] == ["correct", "wrong"] and results[ex_pos[0] - 1] == "passed"
    assert results.count("not_answered") == len(kinds) - 3
    first, wrong, exercise = report["items"][0], report["items"][1], report["items"][ex_pos[0] - 1]
    # Everything now revealed: the key, the explanation and the source; the full verdict.
    assert first["check"]["correct"] is True and first["check"]["explanation"]
    assert wrong["check"]["correct"] is False and wrong["check"]["correct_answer_text"]
    assert wrong["answer"] == wrong_answer(q2) or isinstance(q2, MultipleSelectQuestion)
    assert exercise["verdict"]["verdict"] == "passed" and exercise["verdict"]["checks"]
    assert exercise["verdict"]["lang"] == "en"  # the interview's language (English by default)
    assert len(exercise["submission_ids"]) == 2 and exercise["attempts"] == 2
    assert exercise["max_attempts"] == 3
    # ... and the submission endpoints show the details again.
    revealed = api.get(f"/submissions/{exercise['submission_ids'][0]}").json()
    assert "withheld" not in revealed and revealed["checks"]
    # Time: spent on what was touched, nothing on what was not, all within the time used.
    assert all(report["items"][n - 1]["time_spent_seconds"] > 0 for n in (1, 2, ex_pos[0]))
    untouched = [i for i in report["items"] if i["result"] == "not_answered"]
    assert all(i["time_spent_seconds"] == 0 for i in untouched)
    spent = sum(i["time_spent_seconds"] for i in report["items"])
    assert spent + report["time_unaccounted_seconds"] == pytest.approx(
        report["time_used_seconds"], abs=0.01
    )
    # Mastery moved: one question right (1 point) and the exercise passed (3 points).
    change = report["mastery"]["layer_norm"]
    points = api.get("/progress").json()["topics"]["layer_norm"]
    assert change["before"] == 0 and change["after"] == pytest.approx(points["mastery"], abs=1e-3)
    assert points["points"] == 4 and points["questions"]["attempted"] == 2
    # What to review: the wrong answer (back in ten minutes) and the unanswered ones, so named.
    advice = {a["position"]: a for a in report["review"]}
    assert advice[2]["reason"] == "wrong answer"
    assert advice[2]["next_review"]["text"] == "in 10 minutes"
    assert {a["reason"] for p, a in advice.items() if p != 2} == {"not answered"}
    assert sorted(advice) == sorted([2] + [i["position"] for i in untouched])
    assert report["unanswered"] == [i["position"] for i in untouched]
    assert first["next_review"]["text"] == "in 2 days"
    # The weakest topics: the interview's topics of least mastery now, weakest first.
    weakest = report["weakest_topics"]
    asked = {t for i in iv["items"] for t in i["topics"]}
    assert set(weakest) <= asked and len(weakest) == min(3, len(asked))
    now = [report["mastery"][t]["after"] for t in weakest]
    assert now == sorted(now)
    assert all(report["mastery"][t]["after"] >= now[-1] for t in asked - set(weakest))

    # Over: no more answers, and the report does not change.
    late = api.post(f"{base}/{third['position']}/answers", json={"answer": 0})
    assert late.status_code == 409 and "was finished" in late.json()["detail"]
    # (Only "next review in ..." moves on with the clock.)
    assert fixed(api.post(f"/interviews/{iv['id']}/finish").json()["report"]) == fixed(report)
    assert fixed(api.get(f"/interviews/{iv['id']}").json()["report"]) == fixed(report)
    # Once it is over, they are ordinary questions again.
    q3 = bank.get(third["id"])
    assert api.post(f"/questions/{q3.id}/answers", json={"answer": right_answer(q3)}).is_success
    listed = api.get("/interviews").json()
    assert [(i["id"], i["state"]) for i in listed] == [(iv["id"], "finished")]


def test_the_server_ends_the_interview_when_time_runs_out(
    server: Server, api: httpx.Client, bank: QuestionBank
) -> None:
    # 0.1 minutes: six seconds, room for one answer on a busy machine.
    iv = api.post("/interviews", json={"minutes": 0.1, "topics": ["rms_norm"], "lang": "zh"})
    assert iv.status_code == 201, iv.text
    iv_id, items = iv.json()["id"], iv.json()["items"]
    assert any("\u4e00" <= ch <= "\u9fff" for ch in items[0]["question"]["prompt"])
    q1 = bank.get(items[0]["id"])
    answered = api.post(f"/interviews/{iv_id}/items/1/answers", json={"answer": wrong_answer(q1)})
    assert answered.status_code == 201, answered.text
    deadline = datetime.fromisoformat(iv.json()["deadline"])
    time.sleep(max(0.0, answered.json()["remaining_seconds"]) + 0.5)

    # Nobody opened the interview, yet its held answer reaches progress and review.
    topic = api.get("/progress").json()["topics"]["rms_norm"]
    assert topic["questions"]["attempted"] == 1 and topic["questions"]["correct"] == 0

    late = api.post(f"/interviews/{iv_id}/items/2/answers", json={"answer": right_answer(q1)})
    assert late.status_code == 409 and "ran out of time" in late.json()["detail"]
    code = api.post(f"/interviews/{iv_id}/items/{len(items)}/submissions", json={"code": ""})
    assert code.status_code == 409
    body = api.get(f"/interviews/{iv_id}").json()
    assert body["state"] == "expired" and body["remaining_seconds"] == 0
    # It ended at its deadline, not when someone next looked.
    assert datetime.fromisoformat(body["ended_at"]) == deadline
    report = body["report"]
    assert report["ended_by"] == "time"
    assert report["time_used_seconds"] == pytest.approx(6.0, abs=0.1)
    assert [i["result"] for i in report["items"]][:2] == ["wrong", "not_answered"]
    assert report["items"][-1]["result"] == "not_answered"
    # Explained in the interview's language.
    assert any("\u4e00" <= ch <= "\u9fff" for ch in report["items"][0]["check"]["explanation"])
    # The question answered wrong comes back within minutes (an exercise not reached, ranked
    # first when its topics are weaker, has no review card yet).
    wrong = next(r for r in report["review"] if r["position"] == 1)
    assert wrong["next_review"]["text"].endswith("分钟后"), report["review"]
    # A new interview may start now that this one is over.
    again = api.post("/interviews", json={"minutes": 0.01})
    assert again.status_code == 201


def test_interviews_are_private(server: Server, api: httpx.Client) -> None:
    iv = api.post("/interviews", json={"minutes": 30}).json()
    with server.client(server.new_learner("other")) as other:
        assert other.get(f"/interviews/{iv['id']}").status_code == 404
        assert other.post(f"/interviews/{iv['id']}/finish").status_code == 404
        r = other.post(f"/interviews/{iv['id']}/items/1/answers", json={"answer": 0})
        assert r.status_code == 404 and r.json()["detail"] == "Interview not found"
        r = other.post(f"/interviews/{iv['id']}/items/7/submissions", json={"code": SOLUTION})
        assert r.status_code == 404
        assert other.get("/interviews").json() == []
    # Still running and untouched for its learner.
    mine = api.get(f"/interviews/{iv['id']}").json()
    assert mine["state"] == "running" and all(i["status"] == "open" for i in mine["items"])
    with server.client() as anonymous:
        assert anonymous.post("/interviews", json={"minutes": 30}).status_code == 401
        assert anonymous.get(f"/interviews/{iv['id']}").status_code == 401


@pytest.mark.parametrize(
    ("body", "detail"),
    [
        ({"minutes": 0.001}, "minutes must be between 0.01 and 180"),
        ({"minutes": 181}, "minutes must be between 0.01 and 180"),
        ({"minutes": -5}, "greater than 0"),
        ({"minutes": "thirty"}, "valid number"),
        ({"preset": "marathon"}, "phone_screen"),
        ({"minutes": 30, "topics": ["quantisation"]}, "ffn"),
        ({"minutes": 30, "topics": []}, "at least 1"),
        ({"minutes": 30, "lang": "fr"}, "'en' or 'zh'"),
        ({"minutes": 30, "minute": 30}, "Extra inputs"),
    ],
)
def test_bad_interview_requests_are_clear_422s(
    api: httpx.Client, body: dict[str, Any], detail: str
) -> None:
    r = api.post("/interviews", json=body)
    assert r.status_code == 422, r.text
    assert detail in str(r.json()["detail"])


@pytest.mark.parametrize("value", [b"NaN", b"Infinity", b"-Infinity"])
def test_non_finite_minutes_are_a_422_not_a_500(api: httpx.Client, value: bytes) -> None:
    r = api.post(
        "/interviews",
        content=b'{"minutes": ' + value + b"}",
        headers={"content-type": "application/json"},
    )
    assert r.status_code == 422, r.text
    assert "finite" in str(r.json()["detail"]) or "greater than 0" in str(r.json()["detail"])


def test_unknown_interviews(api: httpx.Client) -> None:
    assert api.get("/interviews/999999").status_code == 404
    assert api.post("/interviews/999999/finish").status_code == 404
    assert api.get("/interviews/not-a-number").status_code == 422


def test_concurrent_finishes_feed_the_held_answers_once(
    server: Server, api: httpx.Client, bank: QuestionBank
) -> None:
    iv = api.post("/interviews", json={"minutes": 30, "topics": ["ffn"]}).json()
    q1 = bank.get(iv["items"][0]["id"])
    assert api.post(
        f"/interviews/{iv['id']}/items/1/answers", json={"answer": right_answer(q1)}
    ).is_success
    token = api.headers["Authorization"].removeprefix("Bearer ")

    def finish(_: int) -> int:
        with server.client(token) as c:
            # Items are left unanswered on purpose: confirmed.
            finished = c.post(f"/interviews/{iv['id']}/finish", params={"confirm": "true"})
            return finished.status_code

    with ThreadPoolExecutor(max_workers=6) as pool:
        assert list(pool.map(finish, range(6))) == [200] * 6
    with sqlite3.connect(server.data_dir / "addnorm.db") as db:
        query = "SELECT user_id FROM interview WHERE id = ?"
        (user_id,) = db.execute(query, (iv["id"],)).fetchone()
        rows = db.execute(
            "SELECT count(*) FROM questionanswer WHERE user_id = ? AND question_id = ?",
            (user_id, q1.id),
        ).fetchone()
    assert rows == (1,)
    topic = api.get("/progress").json()["topics"]["ffn"]
    assert (topic["questions"]["attempted"], topic["questions"]["correct"]) == (1, 1)

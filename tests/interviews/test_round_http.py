"""An interview round over HTTP with the real server and sandbox: the submission limit, the
clock per item through jumps, follow-ups and the explain item end to end, the rubric on a known
interview, the same report in the other language, and the trend across interviews."""

from __future__ import annotations

import time
from typing import Any

import httpx
import pytest

from api.content.catalog import load_catalog
from api.content.questions import QuestionBank
from tests.interviews.test_interviews_http import right_answer, wrong_answer
from tests.support import REPO

CATALOG = load_catalog(REPO / "exercises")


def solution_of(slug: str) -> str:
    return (REPO / "solutions" / f"{slug}.py").read_text()


def of_kind(iv: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [i for i in iv["items"] if i["kind"] == kind]


def rubric_of(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {r["dimension"]: r for r in report["rubric"]}


def test_submissions_are_limited_and_counted(api: httpx.Client) -> None:
    iv = api.post("/interviews", json={"preset": "phone_screen", "max_attempts": 2}).json()
    assert iv["max_attempts"] == 2
    (ex,) = of_kind(iv, "exercise")
    url = f"/interviews/{iv['id']}/items/{ex['position']}/submissions"
    first = api.post(url, json={"code": "x = 1"})
    second = api.post(url, json={"code": solution_of(ex["id"])})
    assert [first.json()["attempts_left"], second.json()["attempts_left"]] == [1, 0]
    third = api.post(url, json={"code": solution_of(ex["id"])})
    assert third.status_code == 409 and "2 submissions" in third.json()["detail"]
    report = api.post(f"/interviews/{iv['id']}/finish", params={"confirm": "true"}).json()["report"]
    item = next(i for i in report["items"] if i["kind"] == "exercise")
    # The refused third was never graded or counted; the last graded one is the verdict.
    assert item["attempts"] == 2 and len(item["submission_ids"]) == 2
    assert item["result"] == "passed"
    assert "passed on attempt 2 of 2" in " ".join(rubric_of(report)["correctness"]["evidence"])


def test_the_default_limit_is_three(api: httpx.Client) -> None:
    iv = api.post("/interviews", json={"preset": "phone_screen"}).json()
    (ex,) = of_kind(iv, "exercise")
    url = f"/interviews/{iv['id']}/items/{ex['position']}/submissions"
    codes = [api.post(url, json={"code": "x = 1"}).status_code for _ in range(4)]
    assert codes == [201, 201, 201, 409]
    api.post(f"/interviews/{iv['id']}/finish", params={"confirm": "true"})


def test_time_is_measured_per_item_through_jumps(api: httpx.Client) -> None:
    iv = api.post("/interviews", json={"preset": "phone_screen"}).json()
    (ex,) = of_kind(iv, "exercise")
    fu1, fu2 = of_kind(iv, "follow_up")
    items = f"/interviews/{iv['id']}/items"
    # Exercise, jump to the second follow-up, back to the exercise, leave.
    opened = api.post(f"{items}/{ex['position']}/open")
    assert opened.status_code == 200 and opened.json()["budget_seconds"] == ex["budget_seconds"]
    time.sleep(1.0)
    api.post(f"{items}/{fu2['position']}/open")
    time.sleep(0.6)
    api.post(f"{items}/{ex['position']}/open")
    time.sleep(0.5)
    left = api.post(f"{items}/{ex['position']}/leave").json()
    assert left["time_spent_seconds"] >= 1.5
    # While it runs, each item shows its own clock beside its budget.
    running = {i["position"]: i for i in api.get(f"/interviews/{iv['id']}").json()["items"]}
    assert running[fu2["position"]]["time_spent_seconds"] >= 0.6
    assert running[fu1["position"]]["time_spent_seconds"] == 0
    report = api.post(f"/interviews/{iv['id']}/finish", params={"confirm": "true"}).json()["report"]
    spent = {i["position"]: i for i in report["items"]}
    assert spent[ex["position"]]["time_spent_seconds"] >= 1.5
    assert 0.6 <= spent[fu2["position"]]["time_spent_seconds"] < 1.5
    # The follow-up never opened had none, and is reported as unanswered, not "not reached".
    assert spent[fu1["position"]]["time_spent_seconds"] == 0
    assert spent[fu1["position"]]["result"] == "not_answered"
    assert all(not i["over_budget"] for i in report["items"])
    assert all(i["budget_seconds"] > 0 for i in report["items"])
    assert {a["reason"] for a in report["review"]} == {"not answered"}


def test_leaving_an_item_that_is_not_open_stops_no_clock(api: httpx.Client) -> None:
    """Leaving is of one item: a leave of another (a stale page, a CLI typo) left the open
    item's clock stopped, its time uncounted."""
    iv = api.post("/interviews", json={"preset": "phone_screen"}).json()
    (ex,) = of_kind(iv, "exercise")
    fu1, _ = of_kind(iv, "follow_up")
    items = f"/interviews/{iv['id']}/items"
    assert api.post(f"{items}/{ex['position']}/open").status_code == 200
    time.sleep(0.3)
    assert api.post(f"{items}/{fu1['position']}/leave").status_code == 200
    time.sleep(0.7)
    running = {i["position"]: i for i in api.get(f"/interviews/{iv['id']}").json()["items"]}
    assert running[ex["position"]]["time_spent_seconds"] >= 0.9, running[ex["position"]]
    assert running[fu1["position"]]["time_spent_seconds"] == 0
    api.post(f"/interviews/{iv['id']}/finish", params={"confirm": "true"})


def test_follow_ups_and_the_explain_item_end_to_end(api: httpx.Client, bank: QuestionBank) -> None:
    iv = api.post("/interviews", json={"preset": "onsite"}).json()
    assert iv["minutes"] == 45
    items = f"/interviews/{iv['id']}/items"
    exercises = of_kind(iv, "exercise")
    follow_ups = of_kind(iv, "follow_up")
    (explain,) = of_kind(iv, "explain")
    assert len(follow_ups) >= 2 and explain["id"] == exercises[-1]["id"]
    # Each follow-up names the exercise it follows and the interviewer's words, no key.
    for fu in follow_ups:
        assert fu["ask"] and fu["follows"] in {e["position"] for e in exercises}
        assert fu["question"]["prompt"] and "answer" not in fu["question"]
    for ex in exercises:
        api.post(f"{items}/{ex['position']}/submissions", json={"code": solution_of(ex["id"])})
    right, wrong = follow_ups[0], follow_ups[1]
    r1 = api.post(
        f"{items}/{right['position']}/answers", json={"answer": right_answer(bank.get(right["id"]))}
    )
    r2 = api.post(
        f"{items}/{wrong['position']}/answers", json={"answer": wrong_answer(bank.get(wrong["id"]))}
    )
    assert r1.status_code == r2.status_code == 201
    # The explanation: text, bounded, once.
    assert api.post(f"{items}/{explain['position']}/answers", json={"answer": 3}).status_code == 422
    too_long = api.post(f"{items}/{explain['position']}/answers", json={"answer": "x" * 4001})
    assert too_long.status_code == 422
    said = "Stats over the last dim, eps inside the sqrt; one pass, memory-bound; same in eval."
    assert (
        api.post(f"{items}/{explain['position']}/answers", json={"answer": said}).status_code == 201
    )
    # Rating before the end is refused: the model answer comes at the end.
    early = api.post(
        f"/interviews/{iv['id']}/self-rating",
        json={"shapes": 2, "numerical_stability": 2, "cost": 2, "training_vs_inference": 2},
    )
    assert early.status_code == 409
    report = api.post(f"/interviews/{iv['id']}/finish", params={"confirm": "true"}).json()["report"]
    by_pos = {i["position"]: i for i in report["items"]}
    assert by_pos[right["position"]]["result"] == "correct"
    assert by_pos[wrong["position"]]["result"] == "wrong"
    assert by_pos[wrong["position"]]["check"]["explanation"] and by_pos[wrong["position"]]["ask"]
    shown = by_pos[explain["position"]]
    assert shown["result"] == "answered" and shown["explanation"] == said
    # The model answer is the explained exercise's own, and in Chinese when read so.
    answer = CATALOG[explain["id"]].model_answer
    assert answer is not None
    assert shown["model_answer"] == answer.text("en")
    zh = api.get(f"/interviews/{iv['id']}", params={"lang": "zh"}).json()["report"]
    zh_shown = next(i for i in zh["items"] if i["position"] == explain["position"])
    assert zh_shown["model_answer"] == answer.text("zh")
    assert report["self_rating"] is None
    bad = api.post(f"/interviews/{iv['id']}/self-rating", json={"shapes": 3})
    assert bad.status_code == 422
    rated = api.post(
        f"/interviews/{iv['id']}/self-rating",
        json={"shapes": 2, "numerical_stability": 1, "cost": 2, "training_vs_inference": 0},
    )
    assert rated.status_code == 200, rated.text
    after = rated.json()["report"]
    assert after["self_rating"]["points"] == {
        "shapes": 2,
        "numerical_stability": 1,
        "cost": 2,
        "training_vs_inference": 0,
    }
    evidence = " ".join(e for r in after["rubric"] for e in r["evidence"])
    assert "self-rating on cost: 2 of 2" in evidence
    assert "self-rating against the model answer: 5 of 8" in evidence
    # The rating scheduled the explained exercise's review.
    explained = next(i for i in after["items"] if i["kind"] == "explain")
    assert explained["next_review"] is not None


def test_the_rubric_of_a_known_interview(api: httpx.Client, bank: QuestionBank) -> None:
    """A clean phone screen: the solution on the first try, both follow-ups right."""
    iv = api.post("/interviews", json={"preset": "phone_screen"}).json()
    items = f"/interviews/{iv['id']}/items"
    (ex,) = of_kind(iv, "exercise")
    api.post(f"{items}/{ex['position']}/open")
    sub = api.post(f"{items}/{ex['position']}/submissions", json={"code": solution_of(ex["id"])})
    assert sub.status_code == 201
    for fu in of_kind(iv, "follow_up"):
        api.post(
            f"{items}/{fu['position']}/answers", json={"answer": right_answer(bank.get(fu["id"]))}
        )
    # Everything answered: no confirmation needed.
    done = api.post(f"/interviews/{iv['id']}/finish")
    assert done.status_code == 200, done.text
    report = done.json()["report"]
    rubric = rubric_of(report)
    assert rubric["correctness"]["score"] == 4
    assert f"{ex['id']}: passed on attempt 1 of 3" in rubric["correctness"]["evidence"]
    assert rubric["edge_cases_numerics"]["score"] == 4
    assert "drawn cases passed" in rubric["edge_cases_numerics"]["evidence"][0]
    assert rubric["cost"]["score"] == 4 and "against a budget of" in rubric["cost"]["evidence"][0]
    assert rubric["communication"]["score"] == 4
    assert rubric["communication"]["evidence"] == ["follow-up questions: 2 of 2 right"]
    assert report["recommendation"] == "hire" and report["recommendation_name"] == "Hire"
    assert report["reasons"] == [
        "every exercise passed (1 of 1)",
        "every pass within 2 submissions",
        "0 of 2 questions missed (at most 1 for hire)",
        "lowest dimension: Correctness 4 of 4 (needs 3)",
    ]
    assert report["unanswered"] == [] and report["review"] == []
    # The next one goes badly: the trend shows both.
    iv2 = api.post("/interviews", json={"preset": "phone_screen"}).json()
    (ex2,) = of_kind(iv2, "exercise")
    for _ in range(3):
        api.post(
            f"/interviews/{iv2['id']}/items/{ex2['position']}/submissions", json={"code": "x = 1"}
        )
    for fu in of_kind(iv2, "follow_up"):
        api.post(
            f"/interviews/{iv2['id']}/items/{fu['position']}/answers",
            json={"answer": wrong_answer(bank.get(fu["id"]))},
        )
    bad = api.post(f"/interviews/{iv2['id']}/finish").json()["report"]
    assert rubric_of(bad)["correctness"]["score"] == 0
    assert rubric_of(bad)["communication"]["score"] == 0
    assert bad["recommendation"] == "no"
    assert bad["reasons"] == ["short of Lean no: 0 of 1 exercises passed"]
    assert [(p["id"], p["recommendation"]) for p in bad["trend"]] == [
        (iv["id"], "hire"),
        (iv2["id"], "no"),
    ]
    assert bad["trend"][0]["score"] == 4.0 and bad["trend"][1]["score"] < 2


def test_the_same_interview_in_the_other_language(api: httpx.Client, bank: QuestionBank) -> None:
    iv = api.post("/interviews", json={"preset": "phone_screen", "lang": "zh"}).json()
    assert iv["lang"] == "zh"
    fu = of_kind(iv, "follow_up")[0]
    assert any("\u4e00" <= ch <= "\u9fff" for ch in fu["ask"])
    api.post(
        f"/interviews/{iv['id']}/items/{fu['position']}/answers",
        json={"answer": wrong_answer(bank.get(fu["id"]))},
    )
    zh = api.post(f"/interviews/{iv['id']}/finish", params={"confirm": "true"}).json()
    en = api.get(f"/interviews/{iv['id']}", params={"lang": "en"}).json()
    assert zh["report"]["lang"] == "zh" and en["report"]["lang"] == "en"
    assert [r["name"] for r in zh["report"]["rubric"]] == [
        "正确性",
        "边界情况与数值",
        "开销",
        "表达沟通",
    ]
    assert [r["name"] for r in en["report"]["rubric"]] == [
        "Correctness",
        "Edge cases and numerics",
        "Cost",
        "Communication",
    ]
    assert zh["report"]["recommendation"] == en["report"]["recommendation"]
    assert zh["report"]["recommendation_name"] in {"录用", "倾向录用", "倾向不录用", "不录用"}
    zh_item = next(i for i in zh["report"]["items"] if i["position"] == fu["position"])
    en_item = next(i for i in en["report"]["items"] if i["position"] == fu["position"])
    assert any("\u4e00" <= ch <= "\u9fff" for ch in zh_item["check"]["explanation"])
    assert not any("\u4e00" <= ch <= "\u9fff" for ch in en_item["ask"])
    assert {a["reason"] for a in zh["report"]["review"]} <= {"回答错误", "未作答"}
    assert "没有提交" in " ".join(zh["report"]["rubric"][0]["evidence"])
    # Same facts either way: only the words differ.
    assert [r["score"] for r in zh["report"]["rubric"]] == [
        r["score"] for r in en["report"]["rubric"]
    ]


@pytest.mark.parametrize(
    ("body", "status"),
    [({"preset": "phone_screen", "max_attempts": 0}, 422), ({"max_attempts": 11}, 422)],
)
def test_bad_limits_are_refused(api: httpx.Client, body: dict[str, Any], status: int) -> None:
    assert api.post("/interviews", json=body).status_code == status

"""A quiz over HTTP against the real server: by topic, in both languages, answers and progress."""

from __future__ import annotations

from typing import Any

import httpx

from api.content.questions import QuestionBank, SingleChoiceQuestion


def test_list_by_topic_in_both_languages(api: httpx.Client, bank: QuestionBank) -> None:
    en = api.get("/questions", params={"topic": "layer_norm", "lang": "en"})
    zh = api.get("/questions", params={"topic": "layer_norm", "lang": "zh"})
    assert en.status_code == 200 and zh.status_code == 200
    assert [q["id"] for q in en.json()] == [q.id for q in bank.select(topic="layer_norm")]
    assert [q["id"] for q in zh.json()] == [q["id"] for q in en.json()]
    first_en, first_zh = en.json()[0], zh.json()[0]
    assert first_en["prompt"] != first_zh["prompt"]
    for listed in en.json():
        assert "answer" not in listed and "explanation" not in listed and "source" not in listed


def test_filter_by_type(api: httpx.Client) -> None:
    listed = api.get("/questions", params={"type": "code_reading"}).json()
    assert listed and all(q["type"] == "code_reading" and q["code"] for q in listed)


def test_answer_right_and_wrong(api: httpx.Client, bank: QuestionBank) -> None:
    q = bank.get("ln-biased-variance")
    right = api.post(f"/questions/{q.id}/answers", json={"answer": False})
    assert right.status_code == 200
    assert right.json()["correct"] is True
    wrong = api.post(f"/questions/{q.id}/answers", params={"lang": "zh"}, json={"answer": True})
    body: dict[str, Any] = wrong.json()
    assert body["correct"] is False and body["correct_answer"] is False
    assert body["explanation"] == q.explanation_zh
    assert q.source is not None
    assert body["source"] == {"article": q.source.article, "section": q.source.section}


def test_numeric_answer_with_tolerance(api: httpx.Client) -> None:
    url = "/questions/ln-output-small-vector/answers"
    assert api.post(url, json={"answer": -1.342}).json()["correct"] is True
    assert api.post(url, json={"answer": -1.162}).json()["correct"] is False


def test_malformed_answer_is_422_with_expected_shape(api: httpx.Client) -> None:
    r = api.post("/questions/ffn-classic-formula/answers", json={"answer": "0"})
    assert r.status_code == 422
    assert "an integer choice index 0..3" in r.json()["detail"]
    r = api.post("/questions/ffn-up-then-down/answers", json={"answer": [1, 1]})
    assert r.status_code == 422 and "distinct choice indices" in r.json()["detail"]
    r = api.post("/questions/ln-biased-variance/answers", json={"answer": "false"})
    assert r.status_code == 422 and "true or false" in r.json()["detail"]


def test_a_malformed_answer_in_chinese_is_refused_in_chinese(api: httpx.Client) -> None:
    url = "/questions/ffn-classic-formula/answers?lang=zh"
    r = api.post(url, json={"answer": False})
    assert r.status_code == 422
    assert r.json()["detail"] == "应为一个选项下标整数 0..3；收到的是布尔值"
    r = api.post(url, json={"answer": 9})
    assert r.json()["detail"] == "应为一个选项下标整数 0..3；下标 9 超出范围"


def test_unknown_question_is_404(api: httpx.Client) -> None:
    assert api.get("/questions/no-such-question").status_code == 404
    assert api.post("/questions/no-such-question/answers", json={"answer": 0}).status_code == 404


def test_answers_move_topic_mastery_and_session(api: httpx.Client, bank: QuestionBank) -> None:
    before = api.get("/progress").json()["topics"]["rms_norm"]
    assert before["attempted"] == 0
    formula = bank.get("rms-formula")
    assert isinstance(formula, SingleChoiceQuestion)
    key = bank.get("rms-param-count").answer
    api.post("/questions/rms-param-count/answers", json={"answer": key})
    wrong = (formula.answer + 1) % len(formula.choices)
    api.post("/questions/rms-formula/answers", json={"answer": wrong})
    after = api.get("/progress").json()["topics"]["rms_norm"]
    assert after["attempted"] == 2 and after["latest_correct"] == 1
    assert 0 < after["mastery"] < 1
    session = api.get("/session", params={"max_new": 3}).json()
    # The two answered questions have cards now; new items never repeat them.
    assert {"rms-param-count", "rms-formula"}.isdisjoint(i["id"] for i in session["new"])
    assert len(session["new"]) == 3

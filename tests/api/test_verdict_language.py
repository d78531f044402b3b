"""The verdict in the learner's language over HTTP: ``?lang=`` on submitting and reading, the
learner's preference (``PATCH /users/me``) as the default, Chinese starters, a clear 422 for an
unknown language, and verdicts stored before Chinese existed still rendering."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest
from sqlalchemy import JSON, Integer, column, create_engine, table

from tests.support import REPO, Server

WRONG = (REPO / "exercises" / "layer_norm" / "variants" / "failed_unbiased_variance.py").read_text()
CJK = re.compile(r"[\u4e00-\u9fff]")
# English words the grader's templates use: none may be left in a Chinese verdict's texts.
ENGLISH = re.compile(r"\b(cases?|failed|differs|reference|allowed|shape|random|default init)\b")


def _submit(api: httpx.Client, **params: str) -> dict[str, Any]:
    r = api.post("/exercises/layer_norm/submissions", json={"code": WRONG}, params=params)
    assert r.status_code == 201, r.text
    body: dict[str, Any] = r.json()
    assert body["verdict"] == "failed" and body["diagnosis"]["name"] == "unbiased_variance"
    return body


def _assert_chinese(body: dict[str, Any]) -> None:
    assert body["lang"] == "zh"
    assert CJK.search(body["message"]) and not ENGLISH.search(body["message"]), body["message"]
    assert "个用例" in body["message"] and "未通过" in body["message"]
    diagnosis = body["diagnosis"]
    assert diagnosis["title"] == diagnosis["title_zh"] and CJK.search(diagnosis["title"])
    assert diagnosis["explanation"] == diagnosis["explanation_zh"]
    assert diagnosis["title_zh"] in body["message"]
    failing = [c for c in body["checks"] if not c["passed"]]
    assert failing
    for c in body["checks"]:
        assert "形状" in c["description"] and not ENGLISH.search(c["description"]), c
        assert CJK.search(c["message"]) and not ENGLISH.search(c["message"]), c
        assert not c["step_description"] or c["step_description"].startswith("第 "), c
        assert not any(k.endswith("_zh") for k in c), c
    # The message quotes a failing case (the one that shows the diagnosed mistake best) and its
    # first failing check, in the same words as the check.
    quoted = re.search(r"'([\w.+-]+)'", body["message"])
    assert quoted, body["message"]
    first = next(c for c in failing if c["case"] == quoted.group(1))
    assert first["message"] in body["message"]


def _assert_english(body: dict[str, Any]) -> None:
    assert body["lang"] == "en"
    assert "cases failed" in body["message"] and not CJK.search(body["message"])
    assert body["diagnosis"]["title"].startswith("Unbiased variance")
    for c in body["checks"]:
        assert "shape" in c["description"] and not CJK.search(c["description"] + c["message"])
        assert not any(k.endswith("_zh") for k in c), c


def test_a_wrong_layer_norm_reads_in_chinese_and_back_in_english(api: httpx.Client) -> None:
    body = _submit(api, lang="zh")
    _assert_chinese(body)
    english = api.get(f"/submissions/{body['id']}", params={"lang": "en"}).json()
    _assert_english(english)
    # Same verdict, same facts: only the words differ.
    assert [c["passed"] for c in english["checks"]] == [c["passed"] for c in body["checks"]]
    assert english["cases_passed"] == body["cases_passed"]
    again = api.get(f"/submissions/{body['id']}", params={"lang": "zh"}).json()
    assert again["message"] == body["message"]
    listed = api.get("/submissions", params={"exercise": "layer_norm", "lang": "zh"}).json()
    _assert_chinese(next(s for s in listed if s["id"] == body["id"]))


def test_the_learners_preference_is_the_default(api: httpx.Client) -> None:
    assert api.get("/users/me").json()["lang"] == "en"
    _assert_english(_submit(api))
    r = api.patch("/users/me", json={"lang": "zh"})
    assert r.status_code == 200 and r.json()["lang"] == "zh"
    assert api.get("/users/me").json()["lang"] == "zh"
    body = _submit(api)
    _assert_chinese(body)
    _assert_chinese(api.get(f"/submissions/{body['id']}").json())
    # An explicit ?lang= wins over the preference.
    _assert_english(api.get(f"/submissions/{body['id']}", params={"lang": "en"}).json())
    exercise = api.get("/exercises/layer_norm").json()
    assert exercise["lang"] == "zh" and CJK.search(exercise["starter"])
    # An empty update changes nothing.
    assert api.patch("/users/me", json={}).json()["lang"] == "zh"
    assert api.patch("/users/me", json={"lang": "en"}).json()["lang"] == "en"
    _assert_english(api.get(f"/submissions/{body['id']}").json())


@pytest.mark.parametrize("lang", ["fr", "EN", "", "zh-CN"])
def test_an_unknown_language_is_a_clear_422(api: httpx.Client, lang: str) -> None:
    submitted = api.post(
        "/exercises/layer_norm/submissions", json={"code": WRONG}, params={"lang": lang}
    )
    assert submitted.status_code == 422
    assert "lang" in str(submitted.json()["detail"])
    assert api.get("/submissions", params={"lang": lang}).status_code == 422
    assert api.get("/submissions/1", params={"lang": lang}).status_code == 422
    assert api.get("/exercises/layer_norm", params={"lang": lang}).status_code == 422
    patched = api.patch("/users/me", json={"lang": lang})
    assert patched.status_code == 422 and "lang" in str(patched.json()["detail"])
    assert api.get("/users/me").json()["lang"] == "en"


def test_every_exercise_serves_its_chinese_starter(api: httpx.Client) -> None:
    for listed in api.get("/exercises").json():
        slug = listed["slug"]
        en = api.get(f"/exercises/{slug}", params={"lang": "en"}).json()["starter"]
        zh = api.get(f"/exercises/{slug}", params={"lang": "zh"}).json()["starter"]
        assert not CJK.search(en), slug
        if (REPO / "exercises" / slug / "starter.zh.py").is_file():
            assert CJK.search(zh) and zh != en, slug
        else:  # optional per exercise: the English one stands in
            assert zh == en, slug


def _rewrite_result(database_url: str, submission_id: int, result: object) -> None:
    """Put an old-format (or odd) verdict straight into the server's database."""
    submission = table("submission", column("id", Integer), column("result", JSON))
    engine = create_engine(database_url)
    try:
        with engine.begin() as conn:
            conn.execute(
                submission.update().where(submission.c.id == submission_id).values(result=result)
            )
    finally:
        engine.dispose()


def _without_chinese(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_chinese(v) for k, v in value.items() if k not in _ADDED}
    if isinstance(value, list):
        return [_without_chinese(v) for v in value]
    return value


# What this change added to a stored verdict; a verdict stored before has none of it.
_ADDED = {"message_zh", "description_zh", "step_description_zh"}


def test_a_verdict_stored_before_chinese_still_renders(
    server: Server, api: httpx.Client, database_url: str
) -> None:
    body = _submit(api, lang="en")
    stored = api.get(f"/submissions/{body['id']}", params={"lang": "en"}).json()
    old = {
        k: stored[k]
        for k in ("checks", "diagnosis", "error", "stdout", "stderr", "cases_total", "seed")
    }
    old["cases_passed"] = stored["cases_passed"]
    old["checks"] = _without_chinese(old["checks"])
    _rewrite_result(database_url, body["id"], old)
    zh = api.get(f"/submissions/{body['id']}", params={"lang": "zh"}).json()
    _assert_chinese(zh)  # derived from the English and the structured fields
    _assert_english(api.get(f"/submissions/{body['id']}", params={"lang": "en"}).json())
    # Garbage where a verdict should be: shown as it is, never a 5xx.
    for odd in ({"checks": "not a list", "diagnosis": ["x"]}, {"checks": [1, None, {"x": 2}]}, {}):
        _rewrite_result(database_url, body["id"], odd)
        for lang in ("zh", "en"):
            r = api.get(f"/submissions/{body['id']}", params={"lang": lang})
            assert r.status_code == 200, (odd, lang, r.text)
            assert api.get("/submissions", params={"lang": lang}).status_code == 200

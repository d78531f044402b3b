"""The per-learner quotas over HTTP against a real server with small limits: submissions an hour,
answers an hour, drafts (count, bytes, saves an hour), mock interviews an hour. Each is a 429
with Retry-After and one line (a 413 for a draft quota, which waiting does not lift), nothing
stored past it, and the pages give the reason in the reader's language."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator

import httpx
import pytest

from tests.browser.test_sessions_http import browser, csrf_of, sign_in
from tests.support import DEPLOYED_DEFAULTS, REPO, Server, start_server, stop_server

SOLUTION = (REPO / "solutions" / "layer_norm.py").read_text()


@pytest.fixture(scope="module")
def tight(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    limits = {
        "ADDNORM_SUBMISSIONS_PER_HOUR": "2",
        "ADDNORM_ANSWERS_PER_HOUR": "2",
        "ADDNORM_DRAFT_SAVES_PER_HOUR": "6",
        "ADDNORM_DRAFTS_PER_LEARNER": "2",
        "ADDNORM_DRAFT_BYTES_PER_LEARNER": "100000",
        "ADDNORM_INTERVIEWS_PER_HOUR": "1",
    }
    srv = start_server(tmp_path_factory.mktemp("tight"), **{**DEPLOYED_DEFAULTS, **limits})
    yield srv
    stop_server(srv)


def count(server: Server, table: str) -> int:
    with sqlite3.connect(server.data_dir / "addnorm.db") as conn:
        return int(conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0])


def limited(r: httpx.Response, words: str) -> None:
    assert r.status_code == 429, r.text[:300]
    assert int(r.headers["retry-after"]) >= 1
    detail = r.json()["detail"]
    assert words in detail and "\n" not in detail, detail


def test_submissions_an_hour(tight: Server) -> None:
    token = tight.new_learner("submits")
    before = count(tight, "submission")
    with tight.client(token) as c:
        for _ in range(2):
            assert (
                c.post("/exercises/layer_norm/submissions", json={"code": SOLUTION}).status_code
                == 201
            )
        r = c.post("/exercises/layer_norm/submissions", json={"code": SOLUTION})
        limited(r, "Too many submissions: more than 2 submissions an hour")
        # Refused by the static check or not: past the quota nothing more is stored.
        limited(c.post("/exercises/layer_norm/submissions", json={"code": "def f(:"}), "an hour")
    assert count(tight, "submission") - before == 2


def test_the_exercise_page_says_why_in_the_readers_language(tight: Server) -> None:
    token = tight.new_learner("pages")
    with tight.client(token) as c:
        for _ in range(2):
            c.post("/exercises/layer_norm/submissions", json={"code": SOLUTION})
    with browser(tight) as page:
        sign_in(page, token)
        for lang, words in [
            ("en", "more than 2 submissions an hour"),
            ("zh", "每小时提交超过 2 次"),
        ]:
            page.cookies.set("addnorm_lang", lang, domain="127.0.0.1")
            form = csrf_of(page.get("/app/exercises/layer_norm").text)
            for partial in ({}, {"X-Addnorm-Partial": "1"}):
                r = page.post(
                    "/app/exercises/layer_norm/submissions",
                    data={"code": SOLUTION, "csrf": form},
                    headers=partial,
                )
                assert r.status_code == 429
                assert int(r.headers["retry-after"]) >= 1
                assert words in r.text
                # The learner's code stays in the editor on the whole page.
                if not partial:
                    assert "class LayerNorm" in r.text


def test_answers_an_hour(tight: Server) -> None:
    token = tight.new_learner("answers")
    before = count(tight, "questionanswer")
    with tight.client(token) as c:
        questions = c.get("/questions").json()
        qid = questions[0]["id"]
        for _ in range(2):
            assert c.post(f"/questions/{qid}/answers", json={"answer": 0}).status_code < 500
        limited(c.post(f"/questions/{qid}/answers", json={"answer": 0}), "answers an hour")
    assert count(tight, "questionanswer") - before <= 2


def test_draft_count_bytes_and_saves(tight: Server) -> None:
    token = tight.new_learner("drafts")
    with tight.client(token) as c:
        slugs = [e["slug"] for e in c.get("/exercises").json()][:3]
        big = "# " + "x" * 60_000
        assert c.put(f"/exercises/{slugs[0]}/draft", json={"code": big}).status_code == 200
        # A second 60 KB draft would take the learner past 100,000 bytes in all.
        r = c.put(f"/exercises/{slugs[1]}/draft", json={"code": big})
        assert r.status_code == 413 and "100000" in r.json()["detail"]
        # Overwriting the same draft is measured without its old self.
        assert c.put(f"/exercises/{slugs[0]}/draft", json={"code": big}).status_code == 200
        assert c.put(f"/exercises/{slugs[1]}/draft", json={"code": "x = 1"}).status_code == 200
        # A third draft is one more than the learner may keep.
        r = c.put(f"/exercises/{slugs[2]}/draft", json={"code": "x = 1"})
        assert r.status_code == 413 and "limit is 2" in r.json()["detail"]
        # Six saves an hour, refused ones included: the seventh is a 429.
        assert c.put(f"/exercises/{slugs[1]}/draft", json={"code": "x = 2"}).status_code == 200
        limited(
            c.put(f"/exercises/{slugs[1]}/draft", json={"code": "x = 3"}), "draft saves an hour"
        )
    with sqlite3.connect(tight.data_dir / "addnorm.db") as conn:
        stored = conn.execute(
            "SELECT count(*), sum(length(CAST(code AS BLOB))) FROM draft WHERE user_id ="
            " (SELECT id FROM user WHERE name = 'drafts')"
        ).fetchone()
    assert stored[0] == 2 and stored[1] <= 100_000


def test_the_interview_page_says_why_in_the_readers_language(tight: Server) -> None:
    token = tight.new_learner("interviews")
    with tight.client(token) as c:
        iv = c.post("/interviews", json={"preset": "concepts"}).json()
        assert c.post(f"/interviews/{iv['id']}/finish?confirm=true").status_code == 200
        limited(c.post("/interviews", json={"preset": "concepts"}), "mock interviews started")
    before = count(tight, "interview")
    with browser(tight) as page:
        sign_in(page, token)
        for lang, words in [
            ("en", "more than 1 mock interviews started an hour"),
            ("zh", "每小时开始的模拟面试超过 1 场"),
        ]:
            page.cookies.set("addnorm_lang", lang, domain="127.0.0.1")
            form = csrf_of(page.get("/app/interviews").text)
            r = page.post("/app/interviews", data={"preset": "concepts", "csrf": form})
            assert r.status_code == 429, r.text[:300]
            assert int(r.headers["retry-after"]) >= 1
            assert words in r.text
    assert count(tight, "interview") == before

"""The hint, solution, draft and interview pages over plain HTTP (no browser): CSRF on every new
form, drafts escaped and private, another learner's interview a 404, refusals shown, not 5xx."""

from __future__ import annotations

import re
from collections.abc import Iterator

import httpx
import pytest

from tests.browser.test_pages_http import HOSTILE, csrf_of, sign_up
from tests.support import Server


@pytest.fixture
def browser_client(server: Server) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.url, timeout=60, follow_redirects=False) as client:
        yield client


def start_interview(client: httpx.Client, csrf: str) -> tuple[str, int, str]:
    """A 30-minute interview on LayerNorm: its page, and the position and slug of its
    coding exercise (as the running page lists them)."""
    r = client.post(
        "/app/interviews", data={"csrf": csrf, "minutes": "30", "topics": ["layer_norm"]}
    )
    assert r.status_code == 303, r.text
    location = r.headers["location"]
    assert re.fullmatch(r"/app/interviews/\d+", location)
    page = client.get(location).text
    found = re.search(r'data-position="(\d+)" data-kind="exercise" data-id="([a-z0-9_]+)"', page)
    assert found, page
    return location, int(found.group(1)), found.group(2)


def test_every_new_form_needs_its_csrf_token(browser_client: httpx.Client) -> None:
    sign_up(browser_client)
    csrf = csrf_of(browser_client.get("/app/exercises/layer_norm").text)
    interview, coding, _ = start_interview(browser_client, csrf)
    # Practice is paused while the interview runs: these answer with the notice before any
    # form is read (nothing done either way).
    for path, data in [
        ("/app/exercises/layer_norm/hints", {"rung": "1"}),
        ("/app/exercises/layer_norm/solution", {}),
        ("/app/exercises/layer_norm/draft", {"code": "x = 1"}),
    ]:
        r = browser_client.post(path, data=data)
        assert r.status_code == 409 and 'data-testid="practice-paused"' in r.text, path
    for path, data in [
        ("/app/interviews", {"minutes": "30"}),
        (f"{interview}/items/1/answers", {"choice": "0"}),
        (f"{interview}/items/{coding}/submissions", {"code": "x = 1"}),
        (f"{interview}/finish", {}),
    ]:
        assert browser_client.post(path, data=data).status_code == 403, path
        assert browser_client.post(path, data={**data, "csrf": "0" * 64}).status_code == 403
    # Nothing happened: the interview still running; no hint recorded, no draft saved.
    assert 'data-state="running"' in browser_client.get(interview).text
    browser_client.post(f"{interview}/finish", data={"csrf": csrf, "confirm": "1"})
    page = browser_client.get("/app/exercises/layer_norm").text
    assert 'data-testid="hint-list"' not in page and "x = 1" not in page


def test_a_draft_is_escaped_and_private(server: Server, browser_client: httpx.Client) -> None:
    sign_up(browser_client, "drafts")
    csrf = csrf_of(browser_client.get("/app/exercises/layer_norm").text)
    saved = browser_client.post(
        "/app/exercises/layer_norm/draft", data={"csrf": csrf, "code": HOSTILE}
    )
    assert saved.status_code == 303
    assert saved.headers["location"] == "/app/exercises/layer_norm?saved=1#code"
    page = browser_client.get("/app/exercises/layer_norm").text
    assert "<script>alert('code')" not in page and "&lt;/textarea&gt;&lt;script&gt;" in page
    # The editor's background save answers 204, and a draft over 64 KiB is refused (413).
    quiet = {"X-Addnorm-Partial": "1"}
    r = browser_client.post(
        "/app/exercises/layer_norm/draft", data={"csrf": csrf, "code": "y = 2"}, headers=quiet
    )
    assert r.status_code == 204
    # A signed-in browser may send as much as a bearer client (the 4 KiB limit is a stranger's).
    long_draft = "# a long draft\n" + "x = 1  # ok\n" * 2000
    r = browser_client.post(
        "/app/exercises/layer_norm/draft", data={"csrf": csrf, "code": long_draft}, headers=quiet
    )
    assert r.status_code == 204, r.text
    big = {"csrf": csrf, "code": "#" * (64 * 1024 + 1)}
    r = browser_client.post("/app/exercises/layer_norm/draft", data=big, headers=quiet)
    assert r.status_code == 413
    r = browser_client.post("/app/exercises/layer_norm/draft", data=big)
    assert r.status_code == 303 and "help=too_large" in r.headers["location"]
    assert "over 64 KiB" in browser_client.get(r.headers["location"]).text
    assert "x = 1  # ok" in browser_client.get("/app/exercises/layer_norm").text

    with httpx.Client(base_url=server.url, timeout=60) as other:
        sign_up(other, "someone else")
        theirs = other.get("/app/exercises/layer_norm").text
        assert "x = 1  # ok" not in theirs and "raise NotImplementedError" in theirs


def test_another_learners_interview_is_a_404(server: Server, browser_client: httpx.Client) -> None:
    sign_up(browser_client, "owner")
    csrf = csrf_of(browser_client.get("/app/interviews").text)
    interview, coding, _ = start_interview(browser_client, csrf)
    with httpx.Client(base_url=server.url, timeout=60) as other:
        sign_up(other, "intruder")
        theirs = csrf_of(other.get("/app/interviews").text)
        assert other.get(interview).status_code == 404
        assert other.get(f"{interview}/items/{coding}").status_code == 404
        assert other.post(f"{interview}/finish", data={"csrf": theirs}).status_code == 404
        assert "data-interview=" not in other.get("/app/interviews").text
    assert browser_client.get("/app/interviews/999999").status_code == 404
    # A question has its own page too (with its clock).
    question = browser_client.get(f"{interview}/items/1")
    assert question.status_code == 200 and 'data-kind="question"' in question.text
    assert browser_client.get(f"{interview}/items/99").status_code == 404


def test_refusals_come_back_as_pages(browser_client: httpx.Client) -> None:
    sign_up(browser_client, "refused")
    csrf = csrf_of(browser_client.get("/app/interviews").text)
    # (Empty is the preset's own length.)
    for minutes in ("1", "abc", "1e9", "nan"):
        r = browser_client.post("/app/interviews", data={"csrf": csrf, "minutes": minutes})
        assert r.status_code == 422, minutes
        assert "between 10 and 180 minutes" in r.text
    # The solution before it is earned: back to the page, the reason shown.
    r = browser_client.post("/app/exercises/layer_norm/solution", data={"csrf": csrf})
    assert r.status_code == 303 and r.headers["location"].endswith("?help=locked#hints")
    page = browser_client.get(r.headers["location"]).text
    assert "The solution is not open yet." in page and "3 more failed attempts" in page
    # A rung beyond the ladder, or no rung at all: refused without a 5xx.
    assert (
        browser_client.post("/app/exercises/layer_norm/hints", data={"csrf": csrf, "rung": "4"})
        .headers["location"]
        .endswith("?help=failed#hints")
    )
    assert (
        browser_client.post(
            "/app/exercises/layer_norm/hints", data={"csrf": csrf, "rung": "x"}
        ).status_code
        == 422
    )
    # During an interview: practice is paused, and the page says why, linking to it.
    interview, _, held = start_interview(browser_client, csrf)
    r = browser_client.post(f"/app/exercises/{held}/hints", data={"csrf": csrf, "rung": "1"})
    assert r.status_code == 409 and f'href="{interview}"' in r.text
    assert 'data-testid="practice-paused"' in browser_client.get(f"/app/exercises/{held}").text
    # An answer with nothing chosen, and one after the end: the interview page says so. (Nothing
    # ticked is a legitimate answer to a select-all-that-apply question: ask another kind.)
    page = browser_client.get(interview).text
    items = re.findall(r'<li id="item-(\d+)"(.*?)</li>', page, flags=re.DOTALL)
    single = [n for n, body in items if re.search(r'name="(choice|truth|number)"', body)]
    assert single, "six LayerNorm questions, every one select-all-that-apply"
    r = browser_client.post(f"{interview}/items/{single[0]}/answers", data={"csrf": csrf})
    assert r.status_code == 303 and "problem=answer_required" in r.headers["location"]
    # Finishing with items unanswered asks first (a page, no script needed).
    asked = browser_client.post(f"{interview}/finish", data={"csrf": csrf})
    assert asked.headers["location"] == f"{interview}/finish"
    assert 'data-testid="finish-confirm"' in browser_client.get(f"{interview}/finish").text
    browser_client.post(f"{interview}/finish", data={"csrf": csrf, "confirm": "1"})
    # Every field filled, so the answer has a shape whatever the question's type.
    answer = {"csrf": csrf, "choice": "0", "choices": "0", "truth": "true", "number": "1"}
    r = browser_client.post(f"{interview}/items/1/answers", data=answer)
    assert "problem=iv_over" in r.headers["location"]
    assert "This interview has ended" in browser_client.get(r.headers["location"]).text

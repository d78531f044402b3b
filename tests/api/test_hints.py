"""Hints before answers over HTTP: the hint ladder, the worked solution and when it opens, what
using them does to the review schedule, the refusal during a mock interview, and saved drafts."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack
from typing import Any

import httpx
import pytest

from api.content.catalog import HINT_RUNGS
from tests.support import REPO, Server

SOLUTION = (REPO / "solutions" / "layer_norm.py").read_text()
STARTER = (REPO / "exercises" / "layer_norm" / "starter.py").read_text()


def _has_chinese(text: str) -> bool:
    return any("\u4e00" <= ch <= "\u9fff" for ch in text)


@pytest.fixture
def learner(server: Server) -> Iterator[httpx.Client]:
    with server.client(server.new_learner("hints")) as client:
        yield client


def submit(api: httpx.Client, code: str, slug: str = "layer_norm") -> str:
    r = api.post(f"/exercises/{slug}/submissions", json={"code": code})
    assert r.status_code == 201, r.text
    return str(r.json()["verdict"])


def help_of(api: httpx.Client, slug: str = "layer_norm", lang: str = "en") -> dict[str, Any]:
    r = api.get(f"/exercises/{slug}/help", params={"lang": lang})
    assert r.status_code == 200, r.text
    return dict(r.json())


def test_every_exercise_has_a_ladder_of_hints_in_both_languages(learner: httpx.Client) -> None:
    slugs = [e["slug"] for e in learner.get("/exercises").json()]
    assert slugs
    for slug in slugs:
        assert help_of(learner, slug)["hints_seen"] == []
        for number, kind in enumerate(HINT_RUNGS, start=1):
            en = learner.get(f"/exercises/{slug}/hints/{number}").json()
            zh = learner.get(f"/exercises/{slug}/hints/{number}", params={"lang": "zh"}).json()
            assert en["rung"] == zh["rung"] == number and en["of"] == len(HINT_RUNGS)
            assert en["kind"] == zh["kind"] == kind
            assert en["lang"] == "en" and not _has_chinese(en["text"]) and len(en["text"]) > 20
            assert zh["lang"] == "zh" and _has_chinese(zh["text"])
        # Recorded: each rung once in the summary, however often it was read.
        assert help_of(learner, slug)["hints_seen"] == list(range(1, len(HINT_RUNGS) + 1))


def test_a_hint_beyond_the_ladder_is_404_with_the_range(learner: httpx.Client) -> None:
    for number in (0, len(HINT_RUNGS) + 1, 99):
        r = learner.get(f"/exercises/layer_norm/hints/{number}")
        assert r.status_code == 404
        assert r.json()["detail"] == (
            f"Hint {number} does not exist: layer_norm has hints 1 to {len(HINT_RUNGS)}"
        )
    assert learner.get("/exercises/nope/hints/1").status_code == 404
    assert learner.get("/exercises/layer_norm/hints/x").status_code == 422
    # Nothing recorded for the refusals.
    assert help_of(learner)["hints_seen"] == []


def test_hints_and_solution_need_a_learner(server: Server) -> None:
    with server.client() as anonymous:
        assert anonymous.get("/exercises/layer_norm/hints/1").status_code == 401
        assert anonymous.get("/exercises/layer_norm/solution").status_code == 401
        assert anonymous.get("/exercises/layer_norm/draft").status_code == 401


def test_the_solution_opens_after_three_failed_attempts_on_explicit_request(
    learner: httpx.Client,
) -> None:
    for failed in range(3):
        r = learner.get("/exercises/layer_norm/solution", params={"reveal": 1})
        assert r.status_code == 403
        left = 3 - failed
        word = "attempt" if left == 1 else "attempts"
        assert f"{left} more failed {word} unlock it" in r.json()["detail"]
        zh = learner.get("/exercises/layer_norm/solution", params={"lang": "zh"})
        assert zh.status_code == 403 and f"还差 {left} 次" in zh.json()["detail"]
        assert help_of(learner)["solution"]["attempts_to_unlock"] == left
        assert submit(learner, STARTER) != "passed"

    status = help_of(learner)["solution"]
    assert status["needs_reveal"] and not status["allowed"] and not status["seen"]
    # Earned, but not without asking: the plain GET says how to ask and what it costs.
    plain = learner.get("/exercises/layer_norm/solution")
    assert plain.status_code == 403 and "reveal=1" in plain.json()["detail"]
    assert "review" in plain.json()["detail"]
    assert not help_of(learner)["solution"]["seen"]

    shown = learner.get("/exercises/layer_norm/solution", params={"reveal": 1})
    assert shown.status_code == 200, shown.text
    assert shown.json()["code"] == SOLUTION
    assert help_of(learner)["solution"]["seen"]
    # The POST is the same explicit request.
    posted = learner.post("/exercises/layer_norm/solution", params={"lang": "zh"})
    assert posted.status_code == 200 and posted.json()["code"] == SOLUTION
    assert _has_chinese(posted.json()["reason"])


def test_the_solution_is_open_after_a_pass(learner: httpx.Client) -> None:
    assert learner.get("/exercises/layer_norm/solution").status_code == 403
    assert submit(learner, SOLUTION) == "passed"
    status = help_of(learner)["solution"]
    assert status["allowed"] and not status["needs_reveal"] and status["attempts_to_unlock"] == 0
    r = learner.get("/exercises/layer_norm/solution")
    assert r.status_code == 200 and r.json()["code"] == SOLUTION
    assert "passed" in r.json()["reason"]
    # Only for the exercise passed.
    assert learner.get("/exercises/rms_norm/solution").status_code == 403


def due_in(api: httpx.Client) -> int:
    due = help_of(api)["next_review"]
    assert due is not None
    return int(due["in_seconds"])


def test_help_lowers_the_review_rating(server: Server) -> None:
    """The same pass comes back for review sooner the more help preceded it."""
    with ExitStack() as stack:
        clients = [stack.enter_context(server.client(server.new_learner())) for _ in range(4)]
        _help_lowers_the_review_rating(*clients)


def _help_lowers_the_review_rating(
    alone: httpx.Client, hinted: httpx.Client, revealed: httpx.Client, struggled: httpx.Client
) -> None:

    assert submit(alone, SOLUTION) == "passed"  # Good: days away

    assert hinted.get("/exercises/layer_norm/hints/1").status_code == 200
    assert submit(hinted, SOLUTION) == "passed"  # Hard: minutes away

    for api in (revealed, struggled):
        for _ in range(3):
            assert submit(api, STARTER) != "passed"
    assert revealed.get("/exercises/layer_norm/solution?reveal=1").status_code == 200
    assert submit(revealed, SOLUTION) == "passed"  # Again: the shortest step
    assert submit(struggled, SOLUTION) == "passed"  # Hard, after failures

    assert due_in(alone) > 24 * 3600
    assert due_in(hinted) < due_in(alone)
    assert due_in(revealed) < due_in(struggled)
    assert due_in(struggled) < due_in(alone)  # failures since the last pass make it Hard

    # Help counts until the next pass only: after it, a pass without help is rated on its own
    # (Good: out of the learning steps, a day or more away rather than minutes).
    assert submit(hinted, SOLUTION) == "passed"
    assert due_in(hinted) > 12 * 3600
    # Failures count since the last pass only, too.
    assert submit(struggled, SOLUTION) == "passed"
    assert due_in(struggled) > 12 * 3600


def test_hints_and_solution_are_refused_during_a_mock_interview(learner: httpx.Client) -> None:
    assert submit(learner, SOLUTION) == "passed"  # the solution would be open outside
    iv = learner.post("/interviews", json={"minutes": 30, "topics": ["layer_norm"]}).json()
    held = next(i["id"] for i in iv["items"] if i["kind"] == "exercise")
    for path in (f"/exercises/{held}/hints/1", f"/exercises/{held}/solution"):
        r = learner.get(path)
        assert r.status_code == 409, path
        # Practice as a whole is paused, pointing to the interview.
        assert f"mock interview {iv['id']} runs" in r.json()["detail"]
    assert learner.post(f"/exercises/{held}/solution").status_code == 409
    assert learner.get(f"/exercises/{held}/help").status_code == 409

    finished = learner.post(f"/interviews/{iv['id']}/finish", params={"confirm": "true"})
    finished.raise_for_status()
    # Nothing was recorded while it ran.
    assert help_of(learner, held)["hints_seen"] == []
    assert learner.get(f"/exercises/{held}/hints/1").status_code == 200


def test_a_draft_is_saved_per_learner_and_exercise(server: Server, learner: httpx.Client) -> None:
    assert learner.get("/exercises/layer_norm/draft").status_code == 404
    code = "import torch\n# 草稿 ✓\n"
    saved = learner.put("/exercises/layer_norm/draft", json={"code": code})
    assert saved.status_code == 200, saved.text
    assert learner.get("/exercises/layer_norm/draft").json()["code"] == code
    learner.put("/exercises/layer_norm/draft", json={"code": code + "x = 1\n"})
    assert learner.get("/exercises/layer_norm/draft").json()["code"] == code + "x = 1\n"
    # Another exercise and another learner see nothing of it.
    assert learner.get("/exercises/rms_norm/draft").status_code == 404
    with server.client(server.new_learner("other")) as other:
        assert other.get("/exercises/layer_norm/draft").status_code == 404
    assert learner.put("/exercises/nope/draft", json={"code": "x"}).status_code == 404


def test_a_draft_is_bounded_and_sanitised(learner: httpx.Client) -> None:
    big = learner.put("/exercises/layer_norm/draft", json={"code": "#" * (64 * 1024 + 1)})
    assert big.status_code == 413 and "64 KiB" in big.json()["detail"]
    assert learner.put("/exercises/layer_norm/draft", json={"code": 5}).status_code == 422
    assert learner.put("/exercises/layer_norm/draft", content=b"{").status_code == 422
    # A lone surrogate is valid JSON but not UTF-8: stored replaced, never a 500.
    raw = b'{"code": "x = 1  # \\ud800"}'
    r = learner.put(
        "/exercises/layer_norm/draft", content=raw, headers={"content-type": "application/json"}
    )
    assert r.status_code == 200, r.text
    assert "\ud800" not in learner.get("/exercises/layer_norm/draft").json()["code"]

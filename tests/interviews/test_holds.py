"""While a mock interview runs, nothing graded can be had anywhere: every route of the app is
tried, as listed by the app itself, so a route added later is covered without anyone adding it
here. Only the routes on api.http.hold's allow-list answer normally; each of them is checked to give
nothing away."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from fastapi.routing import APIRoute

from api.http.hold import SAFE_DURING_INTERVIEW
from api.main import create_app
from tests.support import REPO, Server, browser_cookie

# Words a running interview's own routes must never show: the key, the verdict's details.
REVEALING = {"correct", "correct_answer", "explanation", "source", "checks", "diagnosis", "verdict"}


def app_routes() -> list[tuple[str, str]]:
    """(method, path template) of every route the app serves, included routers flattened."""

    def walk(routes: list[Any]) -> Iterator[Any]:
        for r in routes:
            inner = getattr(r, "original_router", None)
            if inner is not None:
                yield from walk(inner.routes)
            else:
                yield r

    found = []
    for route in walk(create_app().routes):
        if isinstance(route, APIRoute) or hasattr(route, "methods"):
            for method in sorted(route.methods or ()):
                if method != "HEAD":
                    found.append((method, route.path))
    return found


def keys_deep(value: object) -> set[str]:
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in keys_deep(v)}
    if isinstance(value, list):
        return {k for v in value for k in keys_deep(v)}
    return set()


def fill(path: str, values: dict[str, str]) -> str:
    # A parameter the fixture has no row for (an operator's invite, say) gets an id that may not
    # exist: the hold must answer before the route looks anything up.
    return re.sub(r"\{(\w+)\}", lambda m: values.get(m.group(1), "1"), path)


def send(client: httpx.Client, method: str, url: str) -> httpx.Response:
    if method == "GET":
        return client.get(url)
    if url.startswith("/app"):
        # A form post; the hold answers before the form's own checks (CSRF) would.
        return client.request(method, url, data={"code": "x = 1", "name": "x"})
    return client.request(method, url, json={"code": "x = 1", "answer": 0, "name": "x"})


@pytest.fixture
def running(server: Server) -> Iterator[dict[str, Any]]:
    """A learner with a practice history, now in a running phone screen with one submission."""
    token = server.new_learner("held")
    with server.client(token) as api:
        solution = (REPO / "solutions" / "layer_norm.py").read_text()
        before = api.post("/exercises/layer_norm/submissions", json={"code": solution})
        assert before.status_code == 201, before.text
        iv = api.post("/interviews", json={"preset": "phone_screen"}).json()
        exercise = next(i for i in iv["items"] if i["kind"] == "exercise")
        follow_up = next(i for i in iv["items"] if i["kind"] == "follow_up")
        sub = api.post(
            f"/interviews/{iv['id']}/items/{exercise['position']}/submissions",
            json={"code": (REPO / "solutions" / f"{exercise['id']}.py").read_text()},
        )
        assert sub.status_code == 201, sub.text
        yield {
            "token": token,
            "cookie": browser_cookie(server, token),
            "interview": iv,
            "values": {
                "slug": exercise["id"],
                "question_id": follow_up["id"],
                "submission_id": str(sub.json()["submission_id"]),
                "interview_id": str(iv["id"]),
                "position": str(exercise["position"]),
                "number": "1",
            },
            "practice_submission": before.json()["id"],
        }
        api.post(f"/interviews/{iv['id']}/finish", params={"confirm": "true"})


def test_the_allow_list_names_only_routes_that_exist() -> None:
    routes = set(app_routes())
    assert routes >= SAFE_DURING_INTERVIEW, SAFE_DURING_INTERVIEW - routes


def test_every_other_route_points_to_the_running_interview(
    server: Server, running: dict[str, Any]
) -> None:
    iv, values = running["interview"], running["values"]
    held = [r for r in app_routes() if r not in SAFE_DURING_INTERVIEW]
    # The graded surfaces the issue names are all among them (so the list is not vacuous).
    for must in [
        ("POST", "/exercises/{slug}/submissions"),
        ("GET", "/submissions/{submission_id}"),
        ("GET", "/submissions"),
        ("GET", "/progress"),
        ("GET", "/review"),
        ("POST", "/questions/{question_id}/answers"),
        ("GET", "/exercises/{slug}/hints/{number}"),
        ("GET", "/exercises/{slug}/solution"),
        ("GET", "/app/submissions/{submission_id}"),
        ("POST", "/app/quiz/{question_id}"),
        ("GET", "/app/progress"),
        ("GET", "/app/review"),
        ("POST", "/app/exercises/{slug}/submissions"),
    ]:
        assert must in held
    api = httpx.Client(
        base_url=server.url, headers={"Authorization": f"Bearer {running['token']}"}, timeout=60
    )
    page = httpx.Client(
        base_url=server.url, cookies={"addnorm_session": running["cookie"]}, timeout=60
    )
    with api, page:
        for method, template in held:
            url = fill(template, values)
            if template.startswith("/app"):
                r = send(page, method, url)
                assert r.status_code == 409, (method, template, r.status_code)
                assert 'data-testid="practice-paused"' in r.text, (method, template)
                assert f'href="/app/interviews/{iv["id"]}"' in r.text
            else:
                r = send(api, method, url)
                assert r.status_code == 409, (method, template, r.status_code, r.text[:200])
                body = r.json()
                assert body["interview_id"] == iv["id"], (method, template)
                assert f"/interviews/{iv['id']}" in body["detail"]
                assert body["interview_url"] == f"/interviews/{iv['id']}"
                assert not keys_deep(body) & REVEALING
        # The notice in Chinese for a learner reading Chinese.
        zh = api.get("/progress", params={"lang": "zh"}).json()
        assert f"模拟面试 {iv['id']} 正在进行" in zh["detail"]
        page.cookies.set("addnorm_lang", "zh")
        zh_page = page.get("/app/progress")
        assert "练习已暂停" in zh_page.text and f"#{iv['id']}" in zh_page.text


def test_the_interview_routes_show_only_received(server: Server, running: dict[str, Any]) -> None:
    iv, values = running["interview"], running["values"]
    with server.client(running["token"]) as api:
        now = api.get(f"/interviews/{iv['id']}").json()
        assert now["report"] is None
        assert not keys_deep(now["items"]) & REVEALING
        ex = next(i for i in now["items"] if i["kind"] == "exercise")
        assert ex["status"] == "submitted" and ex["attempts"] == 1
        again = api.post(
            f"/interviews/{iv['id']}/items/{values['position']}/submissions",
            json={"code": "x = 1"},
        )
        assert again.status_code == 201
        assert again.json()["result"] == "received"
        assert set(again.json()) == {
            "position",
            "result",
            "submission_id",
            "attempts",
            "attempts_left",
            "remaining_seconds",
        }
    page = httpx.Client(
        base_url=server.url, cookies={"addnorm_session": running["cookie"]}, timeout=60
    )
    with page:
        item = page.get(f"/app/interviews/{iv['id']}/items/{values['position']}?result=passed")
        assert item.status_code == 200
        # A crafted ?result= cannot make the page say passed: only "received" is ever shown.
        assert 'data-result="passed"' not in item.text


def test_without_an_interview_the_same_routes_answer_normally(server: Server) -> None:
    token = server.new_learner("free")
    with server.client(token) as api:
        for path in ("/progress", "/review", "/submissions", "/exercises", "/questions"):
            r = api.get(path)
            assert r.status_code == 200, (path, r.text[:200])
        answered = api.get("/questions").json()[0]["id"]
        r = api.post(f"/questions/{answered}/answers", json={"answer": 0})
        assert r.status_code in (200, 422)

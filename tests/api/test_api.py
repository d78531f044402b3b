"""The HTTP API end to end: users and tokens, exercises, submissions, progress, bad input."""

from __future__ import annotations

import httpx
from sqlalchemy import create_engine, text

from tests.support import REPO, Server

SOLUTION = (REPO / "solutions" / "layer_norm.py").read_text()
STARTER = (REPO / "exercises" / "layer_norm" / "starter.py").read_text()


def test_health_reports_sandbox_layers(server: Server) -> None:
    body = httpx.get(f"{server.url}/health").json()
    assert body["status"] == "ok"
    assert body["exercises"] >= 4
    layers = body["sandbox"]["layers"]
    assert layers["setsid"]["active"] is True
    assert body["sandbox"]["profile"] in {"strict", "standard", "insecure"}


def stored(database_url: str, sql: str, **params: object) -> tuple[object, ...]:
    """One row read straight from the server's database (SQLite file or PostgreSQL)."""
    engine = create_engine(database_url)
    try:
        with engine.connect() as conn:
            return tuple(conn.execute(text(sql), params).one())
    finally:
        engine.dispose()


def test_create_user_returns_token_once_and_stores_only_its_hash(
    server: Server, database_url: str
) -> None:
    with server.client() as c:
        r = c.post("/users", json={"name": "Ada"})
    assert r.status_code == 201
    body = r.json()
    assert body["name"] == "Ada" and len(body["token"]) >= 40
    (token_hash,) = stored(
        database_url, 'SELECT token_hash FROM "user" WHERE id = :id', id=body["id"]
    )
    assert isinstance(token_hash, str)
    assert token_hash != body["token"] and len(token_hash) == 64


def test_missing_or_wrong_token_is_401(server: Server) -> None:
    with server.client() as c:
        assert c.get("/exercises").status_code == 401
    with server.client("not-a-token") as c:
        r = c.get("/exercises")
    assert r.status_code == 401 and r.json()["detail"] == "Invalid token"


def test_exercise_list_and_detail_in_both_languages(api: httpx.Client) -> None:
    listing = api.get("/exercises").json()
    slugs = [e["slug"] for e in listing]
    assert {"layer_norm", "rms_norm", "swiglu_ffn", "residual_block"} <= set(slugs)
    assert all(e["status"] == "not_started" for e in listing)
    en = api.get("/exercises/layer_norm").json()
    zh = api.get("/exercises/layer_norm", params={"lang": "zh"}).json()
    assert en["contract"]["class_name"] == "LayerNorm"
    assert en["starter"] == STARTER
    assert en["prompt"] != zh["prompt"] and any("\u4e00" <= ch <= "\u9fff" for ch in zh["prompt"])
    assert api.get("/exercises/layer_norm", params={"lang": "fr"}).status_code == 422


def test_unknown_exercise_is_404(api: httpx.Client) -> None:
    r = api.post("/exercises/batch_norm/submissions", json={"code": SOLUTION})
    assert r.status_code == 404 and r.json()["detail"] == "Exercise not found"
    assert api.get("/exercises/nope").status_code == 404


def test_malformed_body_is_422(api: httpx.Client) -> None:
    assert api.post("/exercises/layer_norm/submissions", json={"source": "x"}).status_code == 422
    assert api.post("/exercises/layer_norm/submissions", content=b"{not json").status_code == 422


def test_code_over_64_kib_is_413(api: httpx.Client) -> None:
    big = SOLUTION + "\n#" + "x" * (64 * 1024)
    r = api.post("/exercises/layer_norm/submissions", json={"code": big})
    assert r.status_code == 413 and "64 KiB" in r.json()["detail"]


def test_syntax_error_is_an_error_verdict_with_line_and_column(api: httpx.Client) -> None:
    code = "import torch\n\nclass LayerNorm(torch.nn.Module:\n    pass\n"
    r = api.post("/exercises/layer_norm/submissions", json={"code": code})
    assert r.status_code == 201
    body = r.json()
    assert body["verdict"] == "error"
    assert body["error"]["line"] == 3 and body["error"]["column"] is not None
    assert "line 3" in body["message"]


def test_solution_passes_and_is_recorded(api: httpx.Client, database_url: str) -> None:
    r = api.post("/exercises/layer_norm/submissions", json={"code": SOLUTION})
    assert r.status_code == 201
    body = r.json()
    assert body["verdict"] == "passed", body["message"]
    assert body["cases_passed"] == body["cases_total"] > 5
    assert all(c["passed"] for c in body["checks"])
    targets = {c["target"] for c in body["checks"]}
    assert {"output", "grad of input", "grad of weight", "grad of bias"} <= targets
    assert body["timings_ms"]["total"] > 0
    again = api.get(f"/submissions/{body['id']}").json()
    assert again["verdict"] == "passed" and again["state"] == "done"
    row = stored(
        database_url, "SELECT state, verdict FROM submission WHERE id = :id", id=body["id"]
    )
    assert row == ("done", "passed")


def test_starter_fails_with_a_message(api: httpx.Client) -> None:
    body = api.post("/exercises/layer_norm/submissions", json={"code": STARTER}).json()
    assert body["verdict"] in {"failed", "error"}
    assert body["message"]


def test_learners_see_only_their_own_submissions(server: Server, api: httpx.Client) -> None:
    mine = api.post("/exercises/layer_norm/submissions", json={"code": STARTER}).json()
    other = server.new_learner("other")
    with server.client(other) as c:
        assert c.get(f"/submissions/{mine['id']}").status_code == 404
        assert c.get("/submissions").json() == []
    listed = api.get("/submissions", params={"exercise": "layer_norm"}).json()
    assert mine["id"] in [s["id"] for s in listed]
    assert api.get("/submissions", params={"exercise": "rms_norm"}).json() == []


def test_progress_moves_from_not_started_to_attempted_to_solved(api: httpx.Client) -> None:
    def status() -> dict[str, object]:
        entry: dict[str, object] = api.get("/progress").json()["exercises"]["layer_norm"]
        return entry

    assert status()["status"] == "not_started"
    api.post("/exercises/layer_norm/submissions", json={"code": STARTER})
    assert status()["status"] == "attempted"
    api.post("/exercises/layer_norm/submissions", json={"code": SOLUTION})
    solved = status()
    assert solved["status"] == "solved" and solved["attempts"] == 2
    assert solved["first_solved_at"] is not None
    listing = {e["slug"]: e["status"] for e in api.get("/exercises").json()}
    assert listing["layer_norm"] == "solved" and listing["rms_norm"] == "not_started"

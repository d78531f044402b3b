"""The operator's hold on learners, over HTTP against a real server on SQLite and PostgreSQL:
rename, disable, a new token, and deletion that leaves no row of theirs, table by table."""

from __future__ import annotations

import re
import threading
import time
from typing import Any

import httpx
from sqlalchemy import Table, func, select
from sqlmodel import SQLModel

import api.models  # noqa: F401  (every table on SQLModel.metadata)
from api import db
from api.content.questions import QuestionBank
from tests.admin.conftest import Deployment
from tests.support import REPO, at_once, browser_cookie

UNBIASED = (
    REPO / "exercises" / "layer_norm" / "variants" / "failed_unbiased_variance.py"
).read_text()
SOLUTION = (REPO / "solutions" / "layer_norm.py").read_text()


def test_every_admin_route_refuses_learners_and_strangers(deployment: Deployment) -> None:
    """Read from the app's own OpenAPI description, so a route added later is checked too."""
    _, token = deployment.new_learner("curious")
    with deployment.server.client() as c:
        paths = c.get("/openapi.json").json()["paths"]
    admin = [(p, m) for p, methods in paths.items() if p.startswith("/admin") for m in methods]
    assert len(admin) >= 12, admin
    for path, method in admin:
        url = re.sub(r"\{[^}]+\}", "1", path)
        with deployment.server.client(token) as learner:
            r = learner.request(method.upper(), url, json={})
            assert r.status_code == 403, (method, path, r.status_code, r.text)
        with deployment.server.client() as stranger:
            r = stranger.request(method.upper(), url, json={})
            assert r.status_code == 401, (method, path, r.status_code)
    # ...and the operator's pages too, to a learner signed in on the pages.
    cookie = browser_cookie(deployment.server, token)
    for page in ("/app/admin", "/app/admin/cohort.json", "/app/admin/submissions/1"):
        r = httpx.get(
            f"{deployment.server.url}{page}",
            cookies={"addnorm_session": cookie},
            follow_redirects=False,
            timeout=30,
        )
        assert r.status_code == 403, (page, r.status_code)


def test_rename_and_disable_and_enable(deployment: Deployment) -> None:
    uid, token = deployment.new_learner("Wrong Name")
    cookie = browser_cookie(deployment.server, token)
    with deployment.as_operator() as op, deployment.server.client(token) as me:
        renamed = op.patch(f"/admin/learners/{uid}", json={"name": "Right Name"})
        assert renamed.status_code == 200 and renamed.json()["name"] == "Right Name"
        assert me.get("/users/me").json()["name"] == "Right Name"

        off = op.patch(f"/admin/learners/{uid}", json={"disabled": True})
        assert off.json()["disabled"] is True
        refused = me.get("/users/me")
        assert refused.status_code == 403 and "disabled" in refused.json()["detail"]
        assert me.post("/exercises/layer_norm/submissions", json={"code": "x"}).status_code == 403
        # The browser is signed out as well: its pages send it to the sign-in page.
        page = httpx.get(
            f"{deployment.server.url}/app/exercises",
            cookies={"addnorm_session": cookie},
            follow_redirects=False,
            timeout=30,
        )
        assert page.status_code == 303 and "/app/signin" in page.headers["location"]

        on = op.patch(f"/admin/learners/{uid}", json={"disabled": False})
        assert on.json()["disabled"] is False
        assert me.get("/users/me").status_code == 200

        assert op.patch("/admin/learners/999999", json={"name": "x"}).status_code == 404
        assert op.patch(f"/admin/learners/{uid}", json={"name": ""}).status_code == 422


def test_a_reissued_token_replaces_the_old_one_at_once(deployment: Deployment) -> None:
    uid, old = deployment.new_learner("Forgetful")
    with deployment.server.client(old) as c:
        assert c.get("/users/me").status_code == 200
    with deployment.as_operator() as op:
        issued = op.post(f"/admin/learners/{uid}/token")
    assert issued.status_code == 200, issued.text
    new = issued.json()["token"]
    assert new != old and issued.json()["id"] == uid
    with deployment.server.client(old) as c:
        assert c.get("/users/me").status_code == 401
    with deployment.server.client(new) as c:
        assert c.get("/users/me").json()["id"] == uid
    # Operators cannot be touched over HTTP: they are managed on the host.
    with deployment.as_operator() as op:
        me = op.get("/users/me").json()
        assert op.post(f"/admin/learners/{me['id']}/token").status_code == 404
        assert op.delete(f"/admin/learners/{me['id']}").status_code == 404


def _populate(deployment: Deployment, token: str, bank: QuestionBank) -> None:
    """A row in every table a learner can fill over HTTP."""
    with deployment.server.client(token) as c:
        assert (
            c.post("/exercises/layer_norm/submissions", json={"code": UNBIASED}).status_code == 201
        )
        assert c.put("/exercises/layer_norm/draft", json={"code": SOLUTION}).status_code == 200
        assert c.get("/exercises/layer_norm/hints/1").status_code == 200
        question = next(iter(bank))
        r = c.post(f"/questions/{question.id}/answers", json={"answer": question.answer})
        assert r.status_code == 200, r.text
        iv = c.post("/interviews", json={"minutes": 10})
        assert iv.status_code == 201, iv.text
        item = iv.json()["items"][0]
        base = f"/interviews/{iv.json()['id']}/items/{item['position']}"
        if item["kind"] == "question":
            answered = c.post(f"{base}/answers", json={"answer": bank.get(item["id"]).answer})
        else:
            answered = c.post(f"{base}/submissions", json={"code": SOLUTION})
        assert answered.status_code == 201, answered.text
        finished = c.post(f"/interviews/{iv.json()['id']}/finish", params={"confirm": "true"})
        assert finished.status_code == 200, finished.text


def _theirs(table: Table, user_id: int) -> Any:
    """This test's own reading of "a row of theirs": a user_id column, or a reference to a row
    of a table that has one (the interview's attempts). Written apart from api.learning.learners, so
    the two must agree for the test to pass."""
    if "user_id" in table.c:
        return table.c.user_id == user_id
    for column in table.columns:
        for fk in column.foreign_keys:
            parent = fk.column.table
            if "user_id" in parent.c:
                return column.in_(select(fk.column).where(parent.c.user_id == user_id))
    return None


def _counts(url: str, user_id: int) -> dict[str, int]:
    engine = db.make_engine(url)
    try:
        with engine.connect() as conn:
            counts = {}
            for table in SQLModel.metadata.sorted_tables:
                where = _theirs(table, user_id)
                if where is not None:
                    counts[table.name] = conn.execute(
                        select(func.count()).select_from(table).where(where)
                    ).scalar_one()
            user = SQLModel.metadata.tables["user"]
            counts["user"] = conn.execute(
                select(func.count()).select_from(user).where(user.c.id == user_id)
            ).scalar_one()
            return counts
    finally:
        engine.dispose()


def test_deleting_a_learner_leaves_no_row_of_theirs(
    deployment: Deployment, bank: QuestionBank
) -> None:
    doomed, doomed_token = deployment.new_learner("Doomed")
    kept, kept_token = deployment.new_learner("Kept")
    _populate(deployment, doomed_token, bank)
    _populate(deployment, kept_token, bank)

    before = _counts(deployment.database_url, doomed)
    # Every table a learner fills today holds rows of theirs, so the check below can fail.
    known = {
        "user", "submission", "draft", "helpuse", "questionanswer", "reviewcard", "interview",
        "interviewattempt",
    }  # fmt: skip
    assert known <= set(before), before
    assert all(before[t] > 0 for t in known), before
    kept_before = _counts(deployment.database_url, kept)

    with deployment.as_operator() as op:
        gone = op.delete(f"/admin/learners/{doomed}")
        assert gone.status_code == 200, gone.text
        # The answer says what went, table by table; it agrees with the database.
        for table in known:
            assert gone.json()["rows"][table] == before[table], table
        assert op.delete(f"/admin/learners/{doomed}").status_code == 404

    after = _counts(deployment.database_url, doomed)
    assert after == dict.fromkeys(before, 0), after
    assert _counts(deployment.database_url, kept) == kept_before
    with deployment.server.client(doomed_token) as c:
        assert c.get("/users/me").status_code == 401
    with deployment.server.client(kept_token) as c:
        assert c.get("/progress").json()["exercises"]["layer_norm"]["attempts"] == 1


def _id_ranges(url: str, user_id: int) -> dict[str, tuple[int, int]]:
    """(lowest, highest) id of the learner's rows, table by table, for the tables they fill."""
    engine = db.make_engine(url)
    try:
        with engine.connect() as conn:
            ranges = {}
            for table in SQLModel.metadata.sorted_tables:
                where = table.c.id == user_id if table.name == "user" else _theirs(table, user_id)
                if where is None:
                    continue
                low, high = conn.execute(
                    select(func.min(table.c.id), func.max(table.c.id)).where(where)
                ).one()
                if low is not None:
                    ranges[table.name] = (low, high)
            return ranges
    finally:
        engine.dispose()


def test_a_deleted_learners_ids_are_never_given_again(
    deployment: Deployment, bank: QuestionBank
) -> None:
    """The newest learner, with the newest row of every table they fill, is deleted; the next
    learner's rows all get ids above theirs, in every table. (SQLite without AUTOINCREMENT gave
    the newcomer the deleted learner's ids, so an operator's page still showing the deleted
    learner would reset the newcomer's token, and an old submission link would open theirs.)"""
    doomed, doomed_token = deployment.new_learner("Newest, then deleted")
    _populate(deployment, doomed_token, bank)
    theirs = _id_ranges(deployment.database_url, doomed)
    assert {"user", "submission", "interview", "draft", "reviewcard"} <= set(theirs), theirs
    with deployment.server.client(doomed_token) as c:
        old_submission = max(r["id"] for r in c.get("/submissions").json())
    with deployment.as_operator() as op:
        assert op.delete(f"/admin/learners/{doomed}").status_code == 200

    newcomer, newcomer_token = deployment.new_learner("Signed up after")
    _populate(deployment, newcomer_token, bank)
    mine = _id_ranges(deployment.database_url, newcomer)
    assert set(mine) == set(theirs), (mine, theirs)
    for table, (low, _) in mine.items():
        assert low > theirs[table][1], (table, mine[table], theirs[table])
    with deployment.as_operator() as op:
        # Acting on the deleted learner from a stale page reaches no one.
        assert op.post(f"/admin/learners/{doomed}/token").status_code == 404
    with deployment.server.client(newcomer_token) as c:
        assert c.get("/users/me").status_code == 200
        assert c.get(f"/submissions/{old_submission}").status_code == 404


def test_one_of_simultaneous_deletions_deletes(deployment: Deployment, bank: QuestionBank) -> None:
    """Eight deletions of one learner at once: one answers what it deleted, the others 404
    (each used to answer 200 with "1 user deleted", an operator's record that lied)."""
    doomed, token = deployment.new_learner("Deleted Twice")
    _populate(deployment, token, bank)

    def delete() -> httpx.Response:
        with deployment.as_operator() as op:
            return op.delete(f"/admin/learners/{doomed}")

    answers = at_once(8, delete)
    statuses = sorted(a.status_code for a in answers)
    assert statuses == [200] + [404] * 7, statuses
    deleted = next(a for a in answers if a.status_code == 200).json()["rows"]
    assert deleted["user"] == 1 and deleted["submission"] > 0, deleted
    left = _counts(deployment.database_url, doomed)
    assert not any(left.values()), left


def test_deleting_learners_while_their_code_is_graded(deployment: Deployment) -> None:
    """The operator deletes learners whose submissions are being graded, at staggered moments:
    every deletion succeeds and leaves nothing of theirs; each learner's request answers its
    verdict (201) or, deleted first, as an unknown token (401); never a 500. Both databases
    used to answer 500s here (the submission's row gone when it was read back, a row written
    after the deletion refused by its foreign key)."""
    log_start = deployment.server.log.stat().st_size
    outcomes: list[tuple[int, int]] = []
    for k in range(10):
        learner, token = deployment.new_learner(f"Graded then gone {k}")
        answers: dict[str, int] = {}

        def submit(token: str = token, answers: dict[str, int] = answers) -> None:
            with deployment.server.client(token) as c:
                answers["submit"] = c.post(
                    "/exercises/layer_norm/submissions", json={"code": SOLUTION}
                ).status_code

        def remove(learner: int = learner, k: int = k, answers: dict[str, int] = answers) -> None:
            time.sleep(0.015 * k)
            with deployment.as_operator() as op:
                answers["delete"] = op.delete(f"/admin/learners/{learner}").status_code

        threads = [threading.Thread(target=submit), threading.Thread(target=remove)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=120)
        outcomes.append((answers["submit"], answers["delete"]))
        left = _counts(deployment.database_url, learner)
        assert not any(left.values()), (k, left)
    assert all(d == 200 for _, d in outcomes), outcomes
    assert all(s in (201, 401) for s, _ in outcomes), outcomes
    logged = deployment.server.log.read_bytes()[log_start:].decode(errors="replace")
    assert "Traceback" not in logged, logged[-3000:]

"""ADDNORM_REGISTRATION over HTTP against real servers: open (as before), invite (codes used up,
expired, revoked, raced for), closed (only the operator creates learners)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta

import httpx
import pytest

from tests.admin.conftest import Deployment, deploy
from tests.support import stop_server


@pytest.fixture(scope="module")
def open_deployment(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployment]:
    data = tmp_path_factory.mktemp("open")
    # No ADDNORM_REGISTRATION at all: the default must stay open, as before this change.
    d = deploy(data, f"sqlite:///{data / 'addnorm.db'}")
    yield d
    stop_server(d.server)


@pytest.fixture(scope="module")
def closed_deployment(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployment]:
    data = tmp_path_factory.mktemp("closed")
    d = deploy(data, f"sqlite:///{data / 'addnorm.db'}", ADDNORM_REGISTRATION="closed")
    yield d
    stop_server(d.server)


def test_open_registration_is_the_default(open_deployment: Deployment) -> None:
    with open_deployment.server.client() as c:
        r = c.post("/users", json={"name": "anyone"})
        assert r.status_code == 201, r.text
        with open_deployment.server.client(r.json()["token"]) as me:
            assert me.get("/users/me").json()["name"] == "anyone"
        # An invite field is ignored when none is needed (even a made-up one).
        assert c.post("/users", json={"name": "b", "invite": "nonsense"}).status_code == 201


def test_invite_mode_refuses_a_sign_up_without_a_valid_code(deployment: Deployment) -> None:
    with deployment.server.client() as c:
        none = c.post("/users", json={"name": "gatecrasher"})
        assert none.status_code == 403
        assert "invitation" in none.json()["detail"]
        for bad in ("", "   ", "not-a-code", "x" * 128):
            r = c.post("/users", json={"name": "gatecrasher", "invite": bad})
            assert r.status_code == 403, (bad, r.text)
        assert c.post("/users", json={"name": "g", "invite": "x" * 129}).status_code == 422


def test_an_invite_is_used_up_after_its_uses(deployment: Deployment) -> None:
    with deployment.as_operator() as op:
        made = op.post("/admin/invites", json={"uses": 2, "expires_in_hours": 1})
    assert made.status_code == 201, made.text
    body = made.json()
    assert set(body) >= {"code", "uses", "expires_at"} and body["uses"] == 2
    expires = datetime.fromisoformat(body["expires_at"])
    assert timedelta(minutes=59) < expires - datetime.now(UTC) <= timedelta(hours=1)
    with deployment.server.client() as c:
        first = c.post("/users", json={"name": "one", "invite": body["code"]})
        second = c.post("/users", json={"name": "two", "invite": body["code"]})
        third = c.post("/users", json={"name": "three", "invite": body["code"]})
    assert first.status_code == 201 and second.status_code == 201
    assert third.status_code == 403
    assert "used up" in third.json()["detail"]
    with deployment.as_operator() as op:
        listed = {i["id"]: i for i in op.get("/admin/invites").json()}
    assert listed[body["id"]]["used"] == 2 and listed[body["id"]]["state"] == "used_up"
    # Codes are stored hashed: the list never shows one.
    assert all("code" not in i for i in listed.values())


def test_an_expired_invite_is_refused(deployment: Deployment) -> None:
    soon = datetime.now(UTC) + timedelta(seconds=2)
    code = deployment.invite(uses=5, expires_at=soon.isoformat())
    time.sleep(max(0.0, (soon - datetime.now(UTC)).total_seconds()) + 0.5)
    with deployment.server.client() as c:
        r = c.post("/users", json={"name": "late", "invite": code})
    assert r.status_code == 403 and "expired" in r.json()["detail"]
    with deployment.as_operator() as op:
        # An expiry in the past, or without a time zone, or both kinds at once: refused.
        past = (datetime.now(UTC) - timedelta(hours=1)).isoformat()
        assert op.post("/admin/invites", json={"expires_at": past}).status_code == 422
        naive = datetime.now().replace(tzinfo=None).isoformat()
        assert op.post("/admin/invites", json={"expires_at": naive}).status_code == 422
        both = {"expires_at": soon.isoformat(), "expires_in_hours": 1}
        assert op.post("/admin/invites", json=both).status_code == 422
        assert op.post("/admin/invites", json={"uses": 0}).status_code == 422


def test_an_expiry_out_of_any_range_is_refused_not_a_server_error(deployment: Deployment) -> None:
    """Moments at the ends of the calendar that have no UTC time (they answered 500), and hours
    that are no number."""
    with deployment.as_operator() as op:
        for body in (
            {"expires_at": "9999-12-31T23:00:00-01:00"},
            {"expires_at": "0001-01-01T00:00:00+14:00"},
        ):
            r = op.post("/admin/invites", json=body)
            assert r.status_code == 422 and "out of range" in r.text, (body, r.text)
        r = op.post(
            "/admin/invites",
            content=b'{"expires_in_hours": NaN}',
            headers={"content-type": "application/json"},
        )
        assert r.status_code == 422 and "finite" in r.text, r.text


def test_a_revoked_invite_is_refused(deployment: Deployment) -> None:
    with deployment.as_operator() as op:
        made = op.post("/admin/invites", json={"uses": 3}).json()
        assert op.delete(f"/admin/invites/{made['id']}").json()["state"] == "revoked"
    with deployment.server.client() as c:
        assert c.post("/users", json={"name": "x", "invite": made["code"]}).status_code == 403


def test_an_invites_last_use_goes_to_one_of_many_racing_sign_ups(deployment: Deployment) -> None:
    code = deployment.invite(uses=1)

    def sign_up(i: int) -> int:
        with deployment.server.client() as c:
            return c.post("/users", json={"name": f"racer {i}", "invite": code}).status_code

    with ThreadPoolExecutor(8) as pool:
        answers = sorted(pool.map(sign_up, range(8)))
    assert answers == [201] + [403] * 7


def test_the_cli_makes_an_invite_that_works_over_http(deployment: Deployment) -> None:
    done = deployment.admin("invite", "--uses", "1", "--days", "1")
    code = done.stdout.strip()
    assert code and "expires" in done.stderr
    with deployment.server.client() as c:
        assert c.post("/users", json={"name": "cli", "invite": code}).status_code == 201
        assert c.post("/users", json={"name": "cli2", "invite": code}).status_code == 403
    bad = deployment.admin("invite", "--uses", "0", check=False)
    assert bad.returncode == 2


def test_closed_registration_only_the_operator_creates_learners(
    closed_deployment: Deployment,
) -> None:
    d = closed_deployment
    # Even a real invite code does not open a closed server.
    code = d.invite()
    with d.server.client() as c:
        for body in ({"name": "me"}, {"name": "me", "invite": code}):
            r = c.post("/users", json=body)
            assert r.status_code == 403 and "closed" in r.json()["detail"]
    with d.as_operator() as op:
        made = op.post("/admin/learners", json={"name": "Lin"})
    assert made.status_code == 201, made.text
    with d.server.client(made.json()["token"]) as lin:
        assert lin.get("/users/me").json()["name"] == "Lin"
        # A learner cannot create learners.
        assert lin.post("/admin/learners", json={"name": "friend"}).status_code == 403


def test_the_sign_up_page_follows_the_mode(
    deployment: Deployment, closed_deployment: Deployment, open_deployment: Deployment
) -> None:
    def page(d: Deployment) -> str:
        return httpx.get(f"{d.server.url}/app/signin", timeout=30).text

    assert 'name="invite"' in page(deployment)
    assert 'name="invite"' not in page(open_deployment)
    closed = page(closed_deployment)
    assert 'action="/app/signup"' not in closed and 'data-testid="registration-closed"' in closed

"""Browser sessions over HTTP against a real server: the cookie names a server-side session (never
the API token); signing out, expiry, signing in again and rotating the token each leave the old
cookie, its form tokens and (for rotation) the old API token refused on pages, forms and the API."""

from __future__ import annotations

import re
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.support import Server, at_once, start_server, stop_server

AT_ONCE = 4

CSRF = re.compile(r'name="csrf" value="([0-9a-f]{64})"')


def csrf_of(html: str) -> str:
    match = CSRF.search(html)
    assert match, "no CSRF field in the page"
    return match.group(1)


def browser(server: Server) -> httpx.Client:
    return httpx.Client(base_url=server.url, timeout=60, follow_redirects=False)


def sign_in(client: httpx.Client, token: str, *, remember: bool = False) -> str:
    """Sign in with the token; the session cookie the server set. Already signed in, the sign-in
    page redirects: the form is posted with the signed-in page's own form token."""
    page = client.get("/app/signin")
    if page.status_code == 303:
        page = client.get("/app/exercises")
    data = {"token": token, "csrf": csrf_of(page.text)}
    if remember:
        data["remember"] = "true"
    r = client.post("/app/signin", data=data)
    assert r.status_code == 303, r.text
    return set_session(r)


def set_session(r: httpx.Response) -> str:
    """The session id a response set (read from the header: a planted cookie of the same name
    may sit in the jar beside it)."""
    found = [c for c in r.headers.get_list("set-cookie") if c.startswith("addnorm_session=")]
    assert len(found) == 1, r.headers
    return found[0].split(";", 1)[0].split("=", 1)[1]


def replay(server: Server, cookie: str, visitor: str | None = None) -> httpx.Client:
    """Another client holding a copy of a cookie: what an attacker with a stolen one has."""
    client = browser(server)
    client.cookies.set("addnorm_session", cookie)
    if visitor:
        client.cookies.set("addnorm_visitor", visitor)
    return client


def api_status(server: Server, token: str, path: str = "/users/me", method: str = "GET") -> int:
    with server.client(token) as c:
        return c.request(method, path).status_code


def refused_everywhere(server: Server, cookie: str, form_token: str) -> None:
    """The cookie opens no page, its form token posts no form, and it is no API credential."""
    with replay(server, cookie) as stolen:
        page = stolen.get("/app/exercises")
        assert page.status_code == 303 and page.headers["location"].startswith("/app/signin")
        for path, data in [
            ("/app/exercises/layer_norm/submissions", {"code": "x = 1"}),
            ("/app/exercises/layer_norm/draft", {"code": "x = 1"}),
            ("/app/lang", {"lang": "zh"}),
            ("/app/account/token", {}),
        ]:
            r = stolen.post(path, data={**data, "csrf": form_token})
            # Refused: the form check (403) or, signed out, the sign-in redirect; never done.
            assert r.status_code in (303, 403), (path, r.status_code)
            assert r.status_code == 403 or r.headers["location"].startswith("/app/signin")
    assert api_status(server, cookie) == 401


def test_the_cookie_is_not_the_api_token(server: Server) -> None:
    token = server.new_learner("cookie is not token")
    with browser(server) as client:
        cookie = sign_in(client, token)
        assert cookie != token
        assert client.get("/app/exercises").status_code == 200
    # The database keeps a hash of the session id, never the id itself.
    db = server.data_dir / "addnorm.db"
    with sqlite3.connect(db) as conn:
        stored = [row[0] for row in conn.execute("SELECT id_hash FROM browsersession")]
    assert cookie not in stored and len(stored) >= 1
    assert api_status(server, cookie) == 401


def test_signing_out_ends_the_session(server: Server) -> None:
    token = server.new_learner("signs out")
    with browser(server) as client:
        cookie = sign_in(client, token)
        page = client.get("/app/exercises")
        assert page.status_code == 200
        form_token = csrf_of(page.text)
        r = client.post("/app/signout", data={"csrf": form_token})
        assert r.status_code == 303
    refused_everywhere(server, cookie, form_token)
    # Signing out ends the browser session, not the learner's API token.
    assert api_status(server, token) == 200


def test_signing_in_again_rotates_the_session(server: Server) -> None:
    token = server.new_learner("signs in twice")
    with browser(server) as client:
        first = sign_in(client, token)
        first_form = csrf_of(client.get("/app/exercises").text)
        second = sign_in(client, token)
        assert second != first
        page = client.get("/app/exercises")
        assert page.status_code == 200
        assert csrf_of(page.text) != first_form
    refused_everywhere(server, first, first_form)


def test_a_cookie_planted_before_sign_in_opens_nothing_after(server: Server) -> None:
    """Session fixation: an id the attacker chose (or saw before sign-in) is never adopted."""
    token = server.new_learner("fixated")
    planted = "A" * 43
    with browser(server) as client:
        client.cookies.set("addnorm_session", planted, domain="127.0.0.1")
        cookie = sign_in(client, token)
        assert cookie != planted
    with replay(server, planted) as attacker:
        assert attacker.get("/app/exercises").status_code == 303


def test_rotating_the_token_over_the_api(server: Server) -> None:
    token = server.new_learner("rotates by api")
    with browser(server) as client:
        cookie = sign_in(client, token)
        form_token = csrf_of(client.get("/app/exercises").text)
    with server.client(token) as c:
        r = c.post("/users/me/token")
    assert r.status_code == 200
    new = r.json()["token"]
    assert new != token and len(new) >= 43
    # The old token is refused at once; the new one works; the sessions it had are ended.
    assert api_status(server, token) == 401
    assert api_status(server, token, "/users/me/token", "POST") == 401
    with server.client(new) as c:
        assert c.get("/users/me").json()["name"] == "rotates by api"
    refused_everywhere(server, cookie, form_token)
    with browser(server) as client:
        page = client.get("/app/signin")
        r = client.post("/app/signin", data={"token": token, "csrf": csrf_of(page.text)})
        assert r.status_code == 401
        sign_in(client, new)


def test_rotating_the_token_from_the_account_page(server: Server) -> None:
    token = server.new_learner("rotates by page")
    with browser(server) as elsewhere:
        other_cookie = sign_in(elsewhere, token)
        other_form = csrf_of(elsewhere.get("/app/exercises").text)
    with browser(server) as client:
        here = sign_in(client, token)
        page = client.get("/app/account")
        assert page.status_code == 200 and 'data-testid="rotate-token"' in page.text
        # Without the form token nothing changes.
        assert client.post("/app/account/token", data={}).status_code == 403
        assert api_status(server, token) == 200
        r = client.post("/app/account/token", data={"csrf": csrf_of(page.text)})
        assert r.status_code == 200
        shown = re.search(r'data-testid="token">([^<]+)<', r.text)
        assert shown
        new = shown.group(1)
        # This browser carries on with a fresh session; every other one is signed out.
        assert set_session(r) != here
        assert client.get("/app/exercises").status_code == 200
    assert api_status(server, token) == 401
    assert api_status(server, new) == 200
    refused_everywhere(server, here, csrf_of(page.text))
    refused_everywhere(server, other_cookie, other_form)


def test_two_tabs_rotating_at_once_show_one_token_that_works(server: Server) -> None:
    """Tabs post the form with the same session at once: one shows the new token, the others
    none (each used to show a token of its own, and only the last one worked)."""
    token = server.new_learner("rotates in two tabs")
    with browser(server) as client:
        sign_in(client, token)
        form = csrf_of(client.get("/app/account").text)
        cookies = dict(client.cookies)

    def rotate() -> httpx.Response:
        with browser(server) as tab:
            tab.cookies.update(cookies)
            return tab.post("/app/account/token", data={"csrf": form})

    answers = at_once(AT_ONCE, rotate)
    statuses = sorted(a.status_code for a in answers)
    # One token shown. A tab that reached the rotation after the winner is sent back to the
    # account page; one whose session had already ended by then is refused (403) as any form.
    assert statuses.count(200) == 1 and set(statuses) <= {200, 303, 403}, statuses
    assert all(a.headers["location"] == "/app/account" for a in answers if a.status_code == 303)
    shown = re.search(
        r'data-testid="token">([^<]+)<', next(a for a in answers if a.status_code == 200).text
    )
    assert shown
    assert api_status(server, shown.group(1)) == 200
    assert api_status(server, token) == 401


@pytest.fixture(scope="module")
def brief_sessions(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    # Sessions of 4 seconds (0.0011 h), so expiry is seen without waiting hours.
    srv = start_server(tmp_path_factory.mktemp("brief"), ADDNORM_SESSION_HOURS="0.0011")
    yield srv
    stop_server(srv)


def test_a_session_expires(brief_sessions: Server) -> None:
    server = brief_sessions
    token = server.new_learner("expires")
    with browser(server) as client:
        cookie = sign_in(client, token, remember=True)
        page = client.get("/app/exercises")
        assert page.status_code == 200
        form_token = csrf_of(page.text)
        time.sleep(4.5)
        assert client.get("/app/exercises").status_code == 303
    refused_everywhere(server, cookie, form_token)


def test_remembered_cookie_lasts_no_longer_than_the_session(brief_sessions: Server) -> None:
    token = brief_sessions.new_learner("remembered")
    with browser(brief_sessions) as client:
        page = client.get("/app/signin")
        r = client.post(
            "/app/signin", data={"token": token, "csrf": csrf_of(page.text), "remember": "true"}
        )
        session = [c for c in r.headers.get_list("set-cookie") if c.startswith("addnorm_session=")]
        assert len(session) == 1
        max_age = re.search(r"max-age=(\d+)", session[0].lower())
        assert max_age and int(max_age.group(1)) <= 4


def test_end_sessions_ends_every_live_session_of_one_learner(tmp_path: Path) -> None:
    """``api.learning.sessions.end_sessions``, the operator features' way in, on a real database."""
    from datetime import UTC, datetime, timedelta

    from sqlmodel import Session

    from api import db
    from api.learning import sessions
    from api.models import User

    engine = db.make_engine(f"sqlite:///{tmp_path / 'a.db'}")
    db.migrate(engine)
    now = datetime.now(UTC)
    with Session(engine) as s:
        one, two = User(name="one", token_hash="1" * 64), User(name="two", token_hash="2" * 64)
        s.add(one)
        s.add(two)
        s.commit()
        assert one.id is not None and two.id is not None
        mine = [sessions.begin(s, user_id=one.id, hours=1, now=now) for _ in range(3)]
        theirs = sessions.begin(s, user_id=two.id, hours=1, now=now)
        sessions.end(s, mine[0].cookie, now=now)
        assert sessions.end_sessions(s, one.id) == 2
        assert all(sessions.find(s, b.cookie, now=now) is None for b in mine)
        assert sessions.find(s, theirs.cookie, now=now) is not None
        assert sessions.end_sessions(s, one.id) == 0
        later = now + timedelta(hours=2)
        assert sessions.find(s, theirs.cookie, now=later) is None
    engine.dispose()

"""The pages' security over plain HTTP (fast, no browser): cookies, CSRF on every form, the
bearer API alongside, escaping of learners' code and output, one learner's data never on
another's page, the Content Security Policy."""

from __future__ import annotations

import re
from collections.abc import Iterator

import httpx
import pytest

from tests.support import Server

CSRF = re.compile(r'name="csrf" value="([0-9a-f]{64})"')


def csrf_of(html: str) -> str:
    match = CSRF.search(html)
    assert match, "no CSRF field in the page"
    return match.group(1)


@pytest.fixture
def browser_client(server: Server) -> Iterator[httpx.Client]:
    """A cookie-keeping client, as a browser: no bearer header."""
    with httpx.Client(base_url=server.url, timeout=60, follow_redirects=False) as client:
        yield client


def sign_up(client: httpx.Client, name: str = "web learner") -> str:
    page = client.get("/app/signin")
    assert page.status_code == 200
    r = client.post("/app/signup", data={"name": name, "csrf": csrf_of(page.text)})
    assert r.status_code == 200, r.text
    token = re.search(r'data-testid="token">([^<]+)<', r.text)
    assert token
    return token.group(1)


def submit(client: httpx.Client, code: str, slug: str = "layer_norm") -> httpx.Response:
    page = client.get(f"/app/exercises/{slug}")
    assert page.status_code == 200
    return client.post(
        f"/app/exercises/{slug}/submissions", data={"code": code, "csrf": csrf_of(page.text)}
    )


def test_session_cookie_is_httponly_and_samesite(browser_client: httpx.Client) -> None:
    page = browser_client.get("/app/signin")
    visitor = page.headers["set-cookie"].lower()
    assert "addnorm_visitor=" in visitor and "httponly" in visitor and "samesite=lax" in visitor
    r = browser_client.post("/app/signup", data={"name": "c", "csrf": csrf_of(page.text)})
    session = [c for c in r.headers.get_list("set-cookie") if c.startswith("addnorm_session=")]
    assert len(session) == 1
    flags = session[0].lower()
    assert "httponly" in flags and "samesite=lax" in flags and "path=/" in flags
    assert browser_client.get("/app/exercises").status_code == 200


def test_every_form_needs_its_csrf_token(server: Server, browser_client: httpx.Client) -> None:
    page = browser_client.get("/app/signin")
    good = csrf_of(page.text)
    # No token, a wrong token, a foreign origin: refused, and nobody is created or signed in.
    for data, headers in [
        ({"name": "x"}, {}),
        ({"name": "x", "csrf": "0" * 64}, {}),
        ({"name": "x", "csrf": good}, {"Origin": "http://evil.example"}),
    ]:
        r = browser_client.post("/app/signup", data=data, headers=headers)
        assert r.status_code == 403, data
        assert "addnorm_session" not in r.headers.get("set-cookie", "")
    sign_up(browser_client)
    # Once signed in, the token is bound to the session: the visitor's old one no longer works.
    r = browser_client.post(
        "/app/exercises/layer_norm/submissions", data={"code": "x = 1", "csrf": good}
    )
    assert r.status_code == 403
    for path, data in [
        ("/app/exercises/layer_norm/submissions", {"code": "x = 1"}),
        ("/app/quiz/ln-mean-shape", {"choice": "0"}),
        ("/app/lang", {"lang": "zh"}),
        ("/app/signout", {}),
    ]:
        assert browser_client.post(path, data=data).status_code == 403, path
    # A token from another browser's session does not work here either.
    with httpx.Client(base_url=server.url, timeout=60) as other:
        sign_up(other, "other")
        theirs = csrf_of(other.get("/app/exercises/layer_norm").text)
    r = browser_client.post("/app/lang", data={"lang": "zh", "csrf": theirs})
    assert r.status_code == 403


def test_bearer_tokens_and_pages_share_learners(
    server: Server, browser_client: httpx.Client
) -> None:
    token = sign_up(browser_client, "both ways")
    with server.client(token) as api:
        assert api.get("/users/me").json()["name"] == "both ways"
    # And a learner made over the API signs in to the pages with its token.
    api_token = server.new_learner("api first")
    with httpx.Client(base_url=server.url, timeout=60) as fresh:
        page = fresh.get("/app/signin")
        bad = fresh.post("/app/signin", data={"token": "nope", "csrf": csrf_of(page.text)})
        assert bad.status_code == 401 and "not known" in bad.text
        r = fresh.post(
            "/app/signin",
            data={"token": api_token, "csrf": csrf_of(page.text), "next": "//evil.example/x"},
        )
        assert r.status_code == 303
        assert r.headers["location"] == "/app/exercises"  # never off-site
        assert "api first" in fresh.get("/app/exercises").text


HOSTILE = """# </textarea><script>alert('code')</script>
import torch
from torch import nn

print("<img src=x onerror=alert('out')>")


class LayerNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-5) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim))
        self.bias = nn.Parameter(torch.zeros(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        raise ValueError("<b>bold</b>")
"""


def test_learner_code_and_output_are_escaped(browser_client: httpx.Client) -> None:
    sign_up(browser_client)
    r = submit(browser_client, HOSTILE)
    assert r.status_code == 303
    page = browser_client.get("/app/exercises/layer_norm").text
    submission = re.search(r'href="(/app/submissions/\d+)"', page)
    assert submission
    for html in (page, browser_client.get(submission.group(1)).text):
        # Shown (the error the code raised, the code itself), and shown as text.
        assert "&lt;b&gt;bold&lt;/b&gt;" in html
        assert "&lt;/textarea&gt;&lt;script&gt;alert(&#39;code&#39;)&lt;/script&gt;" in html
        assert "<script>alert" not in html and "<img src=x" not in html and "<b>bold" not in html


def test_no_page_shows_another_learners_data(server: Server) -> None:
    marker = "# alice-private-marker-7f3a"
    with (
        httpx.Client(base_url=server.url, timeout=60) as alice,
        httpx.Client(base_url=server.url, timeout=60) as bob,
    ):
        sign_up(alice, "alice")
        sign_up(bob, "bob")
        submit(alice, f"{marker}\nx = 1\n")
        page = alice.get("/app/exercises/layer_norm").text
        theirs = re.search(r'href="/app/submissions/(\d+)"', page)
        assert theirs and marker in page
        assert bob.get(f"/app/submissions/{theirs.group(1)}").status_code == 404
        for path in ("/app/exercises", "/app/exercises/layer_norm", "/app/progress", "/app/review"):
            html = bob.get(path).text
            assert marker not in html and "alice" not in html, path


def test_strict_content_security_policy(server: Server, browser_client: httpx.Client) -> None:
    for path in ("/app/signin", "/health", "/static/style.css"):
        policy = browser_client.get(path).headers["content-security-policy"]
        assert "script-src 'self';" in policy
        assert "unsafe-inline" not in policy and "unsafe-eval" not in policy
        assert "http" not in policy and "*" not in policy
        assert "default-src 'none'" in policy and "frame-ancestors 'none'" in policy
    html = browser_client.get("/app/signin").text
    assert not re.search(r"<script(?![^>]*\bsrc=)", html), "inline script in a page"
    assert " style=" not in html
    # Each page's style nonce is fresh.
    a = browser_client.get("/app/signin").headers["content-security-policy"]
    b = browser_client.get("/app/signin").headers["content-security-policy"]
    assert a != b


def test_language_choice_is_remembered(browser_client: httpx.Client) -> None:
    sign_up(browser_client)
    page = browser_client.get("/app/exercises")
    assert "LayerNorm from scratch" in page.text
    r = browser_client.post(
        "/app/lang", data={"lang": "zh", "next": "/app/exercises", "csrf": csrf_of(page.text)}
    )
    assert r.status_code == 303 and r.headers["location"] == "/app/exercises"
    for _ in range(2):
        html = browser_client.get("/app/exercises").text
        assert "从零实现 LayerNorm" in html and 'lang="zh-CN"' in html


def test_pages_for_missing_things_are_404_pages(browser_client: httpx.Client) -> None:
    assert browser_client.get("/app/exercises").status_code == 303  # not signed in
    sign_up(browser_client)
    for path in ("/app/exercises/nope", "/app/quiz/nope", "/app/submissions/999999"):
        r = browser_client.get(path)
        assert r.status_code == 404 and r.headers["content-type"].startswith("text/html"), path

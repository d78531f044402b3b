"""The API reference pages in a real Chromium: every request stays on the origin, the page runs
under the same Content Security Policy as every page (no violation reported), and it lists the
API from its own schema, working with no network beyond the server."""

from __future__ import annotations

import httpx
from playwright.sync_api import Browser

from api.web.security import content_security_policy
from tests.support import Server


def _strict_policy(header: str) -> None:
    # The site's policy, with a per-page style nonce: no other origin anywhere in it.
    base = content_security_policy()
    for directive in base.split("; "):
        if directive.startswith("style-src"):
            assert header.split("; ")[2].startswith("style-src 'self'")
            continue
        assert directive in header.split("; "), (directive, header)
    assert "http" not in header and "*" not in header and "unsafe" not in header


def test_api_docs_stay_on_the_origin_under_the_csp(server: Server, browser: Browser) -> None:
    context = browser.new_context()
    page = context.new_page()
    requests: list[str] = []
    violations: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.on(
        "console", lambda m: violations.append(m.text) if "Content Security" in m.text else None
    )
    # Anything not on the server's own origin is refused outright, so nothing outside is reached.
    context.route(
        "**/*",
        lambda route: (
            route.continue_() if route.request.url.startswith(server.url) else route.abort()
        ),
    )
    try:
        for path in ("/docs", "/redoc"):
            response = page.goto(f"{server.url}{path}")
            assert response is not None and response.status == 200
            assert page.url == f"{server.url}/docs"
            _strict_policy(response.headers["content-security-policy"])
            assert response.headers["x-frame-options"] == "DENY"
            operations = page.locator('[data-testid="operation"]')
            assert operations.count() >= 20
            assert page.locator("#post--exercises-slug-submissions").count() == 1
            assert page.get_by_text("POST /users/me/token").count() >= 1
            # The page's own script only: the site's bundle, from this origin.
            sources = page.locator("script").evaluate_all("els => els.map(e => e.src)")
            assert all(src.startswith(f"{server.url}/static/") for src in sources), sources
    finally:
        context.close()
    assert requests, "no request seen"
    assert all(url.startswith(server.url) for url in requests), requests
    assert not violations, violations


def test_the_schema_and_docs_answer_over_plain_http(server: Server) -> None:
    r = httpx.get(f"{server.url}/docs")
    assert r.status_code == 200
    # Every link, script and stylesheet on this origin: a path, never another host.
    import re

    for ref in re.findall(r'(?:src|href)="([^"]*)"', r.text):
        assert ref.startswith(("/", "#")) and not ref.startswith("//"), ref
    assert "content-security-policy" in r.headers
    schema = httpx.get(f"{server.url}/openapi.json")
    assert schema.status_code == 200 and "/users/me/token" in schema.json()["paths"]

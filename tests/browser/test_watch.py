"""The browser tests' own detectors fire: a request to another host, a console error, an
accessibility violation. Without this a clean result could mean a blind check."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser

from tests.browser.watch import Watch, axe_violations


def test_watch_sees_outside_requests_and_console_errors(browser: Browser) -> None:
    watch = Watch()
    context = browser.new_context()
    watch.attach(context)
    page = context.new_page()
    try:
        page.route("http://127.0.0.1:9/", lambda r: r.fulfill(body="<p>local</p>"))
        page.goto("http://127.0.0.1:9/")
        page.evaluate("fetch('https://cdn.example.com/lib.js').catch(() => {})")
        page.evaluate("console.error('boom')")
        page.wait_for_timeout(300)
        assert "https://cdn.example.com/lib.js" in watch.outside
        assert any("boom" in e for e in watch.console_errors)
        with pytest.raises(AssertionError):
            watch.assert_clean()
    finally:
        context.close()


def test_axe_reports_serious_violations(browser: Browser, axe_source: str) -> None:
    page = browser.new_page()
    try:
        page.set_content(
            '<html><body><main><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">'
            '<input type="text"></main></body></html>'
        )
        found = {v["id"] for v in axe_violations(page, axe_source)}
        assert {"image-alt", "label"} <= found
    finally:
        page.close()

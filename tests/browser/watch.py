"""What a page did behind the learner's back: every request it made, every console error, and
what axe-core finds. The browser tests assert on these after each step."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from playwright.sync_api import BrowserContext, ConsoleMessage, Page, Request, Route
from playwright.sync_api import TimeoutError as PlaywrightTimeout

LOCAL_HOSTS = {"127.0.0.1"}
# axe-core impacts that fail a test; "moderate" and "minor" are reported, not fatal.
FATAL_IMPACTS = {"serious", "critical"}


@dataclass
class Watch:
    requests: list[str] = field(default_factory=list)
    outside: list[str] = field(default_factory=list)
    console_errors: list[str] = field(default_factory=list)
    # Requests sent and not yet answered (or failed): what a page that never goes idle waits on.
    pending: dict[Request, str] = field(default_factory=dict)

    def attach(self, context: BrowserContext) -> None:
        def route(r: Route) -> None:
            url = r.request.url
            self.requests.append(url)
            scheme = urlsplit(url).scheme
            if scheme in ("data", "blob") or urlsplit(url).hostname in LOCAL_HOSTS:
                r.continue_()
            else:
                # Recorded and refused: the test fails on it, and never waits for a network.
                self.outside.append(url)
                r.abort()

        context.route("**/*", route)
        context.on("page", self._page)
        context.on("request", lambda r: self.pending.__setitem__(r, r.url))
        context.on("requestfinished", lambda r: self.pending.pop(r, None))
        context.on("requestfailed", lambda r: self.pending.pop(r, None))

    def idle(self, page: Page) -> None:
        """``wait_for_load_state("networkidle")``, naming the requests still open if it never
        comes (a CI run once timed out there with nothing to say which)."""
        try:
            page.wait_for_load_state("networkidle")
        except PlaywrightTimeout as exc:
            still = sorted(self.pending.values())
            raise AssertionError(f"the page's network never went idle; open: {still}") from exc

    def _page(self, page: Page) -> None:
        def console(message: ConsoleMessage) -> None:
            if message.type == "error":
                self.console_errors.append(f"{page.url}: {message.text}")

        page.on("console", console)
        page.on("pageerror", lambda exc: self.console_errors.append(f"{page.url}: {exc}"))

    def assert_clean(self) -> None:
        assert self.requests, "no request was observed: the watch is not attached"
        assert not self.outside, f"requests left 127.0.0.1: {self.outside}"
        assert not self.console_errors, f"console errors: {self.console_errors}"


def axe_violations(page: Page, axe_source: str) -> list[dict[str, Any]]:
    """Run axe-core (WCAG 2 A/AA rules) on the page; the serious and critical violations.

    Injected through the DevTools protocol, which the page's CSP does not govern: the policy
    under test stays exactly as served."""
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.evaluate(axe_source)
    result: dict[str, Any] = page.evaluate(
        """async () => await window.axe.run(document, {
            runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']},
            resultTypes: ['violations'],
        })"""
    )
    return [
        {
            "id": v["id"],
            "impact": v["impact"],
            "help": v["help"],
            "targets": [n["target"] for n in v["nodes"]][:5],
        }
        for v in result["violations"]
        if v["impact"] in FATAL_IMPACTS
    ]


def shoot(page: Page, folder: Path, name: str) -> Path:
    """The whole page as ``name.png``, and what fits the window as ``name.view.png`` (the
    README's screenshots are of the latter)."""
    path = folder / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    page.screenshot(path=str(folder / f"{name}.view.png"))
    return path

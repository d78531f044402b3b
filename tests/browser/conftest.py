"""A real Chromium (Debian's /usr/bin/chromium) driven by Playwright against the real server."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Playwright, sync_playwright

from tests.support import REPO

CHROMIUM = Path(os.environ.get("ADDNORM_CHROMIUM", "/usr/bin/chromium"))
# Without the background-networking flags Chromium phones Google's hosts (and fails offline).
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-default-apps",
    "--disable-domain-reliability",
]
# axe-core's browser build, vendored (MPL-2.0, its licence beside it) so that the accessibility
# scans need no npm: a fresh user's npm may not reach its registry (test_bundle holds the copy
# to web/'s locked version).
AXE = Path(__file__).parent / "vendor" / "axe.min.js"
SCREENSHOTS = Path(os.environ.get("ADDNORM_SCREENSHOTS", REPO / "build" / "screenshots"))


@pytest.fixture(scope="session")
def playwright() -> Iterator[Playwright]:
    with sync_playwright() as p:
        yield p


@pytest.fixture(scope="session")
def browser(playwright: Playwright) -> Iterator[Browser]:
    # Never skipped: a missing browser is a failed CI setup, not a reason to pass.
    assert CHROMIUM.exists(), f"{CHROMIUM} missing: apt-get install -y chromium (see .ci/run)"
    chromium = playwright.chromium.launch(
        executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
    )
    yield chromium
    chromium.close()


@pytest.fixture(scope="session")
def axe_source() -> str:
    assert AXE.is_file(), f"{AXE} missing from the checkout"
    return AXE.read_text(encoding="utf-8")


@pytest.fixture(scope="session")
def screenshots() -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS

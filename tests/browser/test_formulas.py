"""Formulas in a prompt render with the vendored KaTeX, under the strict CSP, offline: a server
whose content has a prompt with TeX in it (a copy of exercises/ with one formula added)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from tests.browser.watch import Watch
from tests.support import REPO, Server, start_server, stop_server

FORMULA = r"$$y = \frac{x - \mu}{\sqrt{\sigma^2 + \epsilon}} \odot \gamma + \beta$$"


@pytest.fixture(scope="module")
def formula_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    content = tmp_path_factory.mktemp("content") / "exercises"
    shutil.copytree(REPO / "exercises", content, ignore=shutil.ignore_patterns("__pycache__"))
    prompt = content / "layer_norm" / "prompt.md"
    prompt.write_text(prompt.read_text() + f"\n## The formula\n\n{FORMULA}\n", encoding="utf-8")
    server = start_server(tmp_path_factory.mktemp("formula"), ADDNORM_CONTENT_DIR=str(content))
    yield server
    stop_server(server)


@pytest.mark.slow
def test_prompt_formula_renders_with_katex(
    formula_server: Server, browser: Browser, screenshots: Path
) -> None:
    watch = Watch()
    context = browser.new_context()
    watch.attach(context)
    page = context.new_page()
    try:
        page.goto(formula_server.url + "/app/signin")
        page.get_by_label("Your name").fill("formulas")
        page.get_by_role("button", name="Create and sign in").click()
        page.goto(formula_server.url + "/app/exercises/layer_norm")
        # The added formula is the prompt's last (the prompt has display formulas of its own).
        math = page.get_by_test_id("prompt").locator(".katex-display").last
        expect(math).to_be_visible()
        # KaTeX's MathML twin carries the source: the formula, not the raw dollars, is shown.
        expect(math.locator("annotation")).to_contain_text(r"\sqrt{\sigma^2 + \epsilon}")
        assert "$$" not in page.get_by_test_id("prompt").inner_text()
        page.wait_for_load_state("networkidle")
        fonts = [u for u in watch.requests if "/static/dist/fonts/KaTeX_" in u]
        assert fonts, "KaTeX's fonts were not loaded from this server"
        math.screenshot(path=str(screenshots / "formula.png"))
        watch.assert_clean()
    finally:
        context.close()

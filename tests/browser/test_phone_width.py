"""On a 390x844 phone no exercise page scrolls sideways, in either language: a formula wider
than the screen scrolls inside its own box, and every other part of the page fits."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, expect

from api.content.catalog import load_catalog
from tests.browser.test_practice_loop import LOCALES, sign_up
from tests.support import REPO, Server

CATALOGUE = sorted(load_catalog(REPO / "exercises"))
PHONE = {"width": 390, "height": 844}

# Each formula box: how wide it is, how wide its content is, and whether it scrolls.
_BOXES = """() => [...document.querySelectorAll('[data-testid=prompt] .katex-display')].map(el => ({
    client: el.clientWidth,
    content: el.scrollWidth,
    overflow: getComputedStyle(el).overflowX,
    right: el.getBoundingClientRect().right,
}))"""
# The elements sticking out past the viewport's right edge (the page's own scroll is not one).
_WIDE = """width => [...document.body.querySelectorAll('*')].filter(el => {
    const box = el.getBoundingClientRect();
    if (box.width === 0 || box.right <= width + 0.5) return false;
    for (let up = el.parentElement; up; up = up.parentElement) {
        const o = getComputedStyle(up).overflowX;
        if (o === 'auto' || o === 'scroll' || o === 'hidden') {
            if (up.getBoundingClientRect().right <= width + 0.5) return false;
        }
    }
    return true;
}).map(el => el.tagName + '.' + el.className).slice(0, 10)"""


@pytest.mark.slow
@pytest.mark.parametrize("lang", list(LOCALES))
def test_no_exercise_page_scrolls_sideways_on_a_phone(
    server: Server, browser: Browser, lang: str
) -> None:
    context = browser.new_context(viewport=PHONE, locale=LOCALES[lang])  # type: ignore[arg-type]
    page = context.new_page()
    wide_formulas = 0
    try:
        sign_up(page, server, f"phone {lang}")
        for slug in CATALOGUE:
            page.goto(f"{server.url}/app/exercises/{slug}")
            page.get_by_test_id("tab-prompt").click()
            prompt = page.get_by_test_id("prompt")
            expect(prompt).to_be_visible()
            page.wait_for_load_state("networkidle")  # KaTeX has typeset the prompt
            width = page.evaluate("document.documentElement.scrollWidth")
            assert width <= PHONE["width"], (
                f"{slug} ({lang}) is {width}px wide: {page.evaluate(_WIDE, PHONE['width'])}"
            )
            for box in page.evaluate(_BOXES):
                assert box["right"] <= PHONE["width"] + 0.5, (slug, lang, box)
                if box["content"] > box["client"]:
                    wide_formulas += 1
                    assert box["overflow"] in ("auto", "scroll"), (slug, lang, box)
        # The check on scrolling boxes above had something to check.
        assert wide_formulas > 0, "no formula is wider than a phone: nothing tested the scroll"
    finally:
        context.close()

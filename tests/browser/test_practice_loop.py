"""The practice loop in one view, in a real Chromium at 1280x800 and 390x844, in English and
Chinese: a wrong LayerNorm's first failing check lands beside the editor (on a phone the result
tab opens by itself), the prompt's formulas are rendered, a syntax error is marked on its line,
hints open in place, and a pass leads to the next exercise in one click. Every state is checked
with axe-core, and a Chinese page carries no English interface sentence."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.test_learner_flow import (
    FIXED_LAYER_NORM,
    WRONG_LAYER_NORM,
    submit_and_wait,
    type_code,
)
from tests.browser.watch import Watch, axe_violations, shoot
from tests.support import Server

SIZES = {"1280x800": {"width": 1280, "height": 800}, "390x844": {"width": 390, "height": 844}}
LOCALES = {"en": "en-US", "zh": "zh-CN"}

# A syntax error on line 3, column 12 (the stray colon), in code that is otherwise a module.
SYNTAX_ERROR = "import torch\n\nx = torch.ones(3):\n"

# Interface chrome on a Chinese page: what the page itself says, not the learner's code, the
# grader's own texts, or names (of tensors, dtypes, exercises, functions) that are the same in
# both languages. Two English words in a row count as an English sentence.
ENGLISH_RUN = re.compile(r"(?<![\w.])[A-Za-z]{2,}(?:[ ,'’-]+[A-Za-z]{2,})+(?![\w.(])")
NOT_CHROME = (
    # The prompt's own content (bilingual at its source; it cites English article titles).
    "[data-testid=prompt] > :not(#prompt-h)",
    "[data-testid=editor]",
    ".cm-editor",
    "textarea",
    "pre",
    "code",
    ".katex",
    ".message",
    ".case-words",
    ".facts dd",
    ".case-name",
    ".checks td",
    ".case-group > p",
    ".diagnosis",
    ".who",
    "[data-testid=switch-lang]",
    ".brand",
    "title",
    "script",
    "style",
)


def english_in_chrome(page: Page) -> list[str]:
    """Runs of English words in the page's visible interface text (see NOT_CHROME)."""
    texts: list[str] = page.evaluate(
        """skip => {
            const out = [];
            const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
            for (let node = walker.nextNode(); node; node = walker.nextNode()) {
                const el = node.parentElement;
                if (!el || el.closest(skip)) continue;
                if (!el.checkVisibility()) continue;
                const text = node.textContent.trim();
                if (text) out.push(text);
            }
            return out;
        }""",
        ", ".join(NOT_CHROME),
    )
    return [m.group(0) for t in texts for m in ENGLISH_RUN.finditer(t)]


def inside_viewport(page: Page, test_id: str) -> dict[str, float]:
    box = page.get_by_test_id(test_id).first.bounding_box()
    assert box is not None, f"{test_id} is not rendered"
    return box


def sign_up(page: Page, server: Server, name: str) -> None:
    page.goto(server.url + "/app/signin")
    page.locator("#name").fill(name)
    page.locator("form[action='/app/signup'] button[type=submit]").click()
    expect(page.get_by_test_id("token")).to_be_visible()


def axe_clean(page: Page, axe_source: str, where: str, watch: Watch) -> None:
    watch.idle(page)
    assert axe_violations(page, axe_source) == [], where


@pytest.mark.slow
@pytest.mark.parametrize("lang", list(LOCALES))
@pytest.mark.parametrize("size", list(SIZES))
def test_practice_loop(
    server: Server, browser: Browser, axe_source: str, screenshots: Path, size: str, lang: str
) -> None:
    watch = Watch()
    viewport = SIZES[size]
    context = browser.new_context(viewport=viewport, locale=LOCALES[lang])  # type: ignore[arg-type]
    watch.attach(context)
    page = context.new_page()
    phone = viewport["width"] < 900
    try:
        sign_up(page, server, f"loop {size} {lang}")
        if navigator_clipboard := page.evaluate("!!navigator.clipboard"):
            expect(page.get_by_test_id("copy-token")).to_be_visible()
        del navigator_clipboard
        page.goto(server.url + "/app/exercises/layer_norm")
        assert page.evaluate("document.documentElement.lang") == ("zh-CN" if lang == "zh" else "en")

        # The prompt's formulas are typeset by the bundled KaTeX, not left as TeX.
        if phone:
            page.get_by_test_id("tab-prompt").click()
        prompt = page.get_by_test_id("prompt")
        expect(prompt.locator(".katex").first).to_be_visible()
        formulas = prompt.locator(".katex-display annotation")
        expect(formulas).to_have_count(2)
        expect(formulas.nth(1)).to_contain_text(r"\sqrt{\sigma^2 + \varepsilon}")
        assert "$$" not in prompt.inner_text()
        axe_clean(page, axe_source, "prompt", watch)

        # Hints open in place: no page load, the hint appears in the panel.
        page.evaluate("window.__samePage = true")
        page.get_by_test_id("hint-button").click()
        expect(page.get_by_test_id("hint-list").locator("li")).to_have_count(1)
        assert page.evaluate("window.__samePage === true"), "the hint reloaded the page"

        # A wrong LayerNorm: the verdict and its first failing check beside the editor.
        if phone:
            page.get_by_test_id("tab-code").click()
        type_code(page, WRONG_LAYER_NORM)
        submit_and_wait(page, shortcut=False)
        expect(page.get_by_test_id("verdict")).to_have_attribute("data-status", "failed")
        first = page.get_by_test_id("first-failure")
        expect(first).to_be_visible()
        figure = inside_viewport(page, "first-failure-error")
        assert figure["y"] >= 0 and figure["y"] + figure["height"] <= viewport["height"], (
            f"the first failure's error is outside the {size} viewport: {figure}"
        )
        if phone:
            expect(page.get_by_test_id("tab-result")).to_have_attribute("aria-selected", "true")
        else:
            assert page.evaluate("window.scrollY") == 0, "submitting scrolled the page"
            editor = inside_viewport(page, "editor")
            assert editor["y"] >= 0 and editor["y"] < viewport["height"] - 200, editor
            assert editor["x"] + 100 < figure["x"], "the editor and the verdict overlap"
        # NaN said as NaN; an unbounded tolerance never printed as a number near 1.8e308.
        card = first.inner_text()
        assert "e+308" not in page.get_by_test_id("verdict").inner_text()
        assert re.search(r"\d|NaN|inf", card), card
        # The full table: folded, grouped by case, with counts per case.
        table = page.get_by_test_id("all-checks")
        expect(table).not_to_have_attribute("open", "")
        groups = table.locator("details.case-group")
        assert groups.count() >= 2
        assert int(groups.first.get_attribute("data-failed") or 0) > 0
        table.locator("summary").first.click()
        groups.first.locator("summary").click()
        expect(groups.first.locator("tr.bad").first).to_be_visible()
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= viewport["width"], f"the page is {width}px wide at {size}"
        axe_clean(page, axe_source, "failed verdict", watch)
        shoot(page, screenshots, f"loop-{size}-{lang}-failed")
        if lang == "zh":
            assert english_in_chrome(page) == [], "English interface text on a Chinese page"

        # A syntax error: its line marked in the editor.
        if phone:
            page.get_by_test_id("tab-code").click()
        type_code(page, SYNTAX_ERROR)
        submit_and_wait(page, shortcut=True)
        expect(page.get_by_test_id("verdict")).to_have_attribute("data-error-line", "3")
        if phone:
            page.get_by_test_id("tab-code").click()
        marker = page.locator(".cm-editor [data-testid=error-marker]")
        expect(marker).to_have_attribute("data-line", "3")
        expect(marker).to_contain_text("x = torch.ones(3):")
        expect(page.locator(".cm-editor .cm-error-char")).to_have_count(1)

        # The fix passes; the next exercise is one click away.
        type_code(page, FIXED_LAYER_NORM)
        expect(marker).to_have_count(0)  # an edit clears the old mark
        submit_and_wait(page, shortcut=False)
        expect(page.get_by_test_id("verdict-status")).to_have_attribute(
            "class", re.compile("passed")
        )
        expect(page.get_by_test_id("follow-ups").get_by_test_id("follow-up").first).to_be_visible()
        axe_clean(page, axe_source, "passed verdict", watch)
        if lang == "zh":
            assert english_in_chrome(page) == [], "English interface text on a Chinese page"
        shoot(page, screenshots, f"loop-{size}-{lang}-passed")
        # The worked solution, highlighted and read-only, with a diff against the learner's code.
        page.evaluate("window.__samePage = true")
        page.get_by_test_id("see-solution").click()
        solution = page.get_by_test_id("solution")
        expect(solution).to_be_visible()
        expect(solution.locator(".tok-keyword").first).to_be_visible()
        assert solution.locator("[contenteditable=true]").count() == 0
        expect(page.get_by_test_id("solution-diff").locator(".del").first).to_be_attached()
        assert page.evaluate("window.__samePage === true"), "the solution reloaded the page"
        axe_clean(page, axe_source, "solution", watch)
        if phone:
            page.get_by_test_id("tab-result").click()
        next_link = page.get_by_test_id("next-exercise")
        target = next_link.get_attribute("href")
        assert target and target != "/app/exercises/layer_norm"
        next_link.click()
        expect(page).to_have_url(server.url + target)
        expect(page.get_by_test_id("prompt")).to_be_attached()
        watch.assert_clean()
    finally:
        context.close()

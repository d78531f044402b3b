"""Every exercise's prompt, in English and Chinese, carries its formulas in math delimiters that
the bundled KaTeX typesets on the page: rendered `.katex` elements, no KaTeX parse error, no raw
`$$` left. The formula rung of the hint ladder is typeset the same way once opened in place."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, expect

from api.content.catalog import load_catalog
from tests.browser.test_practice_loop import LOCALES, sign_up
from tests.browser.watch import Watch
from tests.support import REPO, Server

CATALOG = load_catalog(REPO / "exercises")
# KaTeX (throwOnError off) shows a formula it cannot parse as `.katex-error`, and a command it
# does not know as its name, backslash and all, in the typeset formula: either is left broken.
BROKEN = """root => [
    ...[...root.querySelectorAll(".katex-error")].map(e => e.textContent),
    ...[...root.querySelectorAll(".katex-html")]
        .map(e => e.textContent)
        .filter(t => t.includes("\\\\")),
]"""
# Its formula rung is code (upcast, compute, cast back) rather than a formula.
# Exercises whose second hint is code, not a formula (the newest five have not been converted
# to TeX yet: their hints spell the formula as the tensor code that computes it).
NO_FORMULA_HINT = {
    "mixed_precision_norm",
    "scaled_dot_product_attention",
    "batch_norm_backward",
    "online_softmax",
    "dropout",
    "checkpointed_ffn",
    # Their second rung is the update or the attention written as the code that computes it.
    "adamw_step",
    "clip_grad_norm",
    "multi_head_attention",
}


@pytest.mark.slow
@pytest.mark.parametrize("lang", list(LOCALES))
def test_every_prompt_and_formula_hint_is_typeset(
    server: Server, browser: Browser, lang: str
) -> None:
    watch = Watch()
    context = browser.new_context(viewport={"width": 1280, "height": 800}, locale=LOCALES[lang])
    watch.attach(context)
    page = context.new_page()
    untypeset: list[str] = []
    try:
        sign_up(page, server, f"math {lang}")
        for slug in sorted(CATALOG):
            page.goto(f"{server.url}/app/exercises/{slug}")
            assert page.evaluate("document.documentElement.lang") == (
                "zh-CN" if lang == "zh" else "en"
            )
            prompt = page.get_by_test_id("prompt")
            expect(prompt.locator(".katex").first).to_be_attached()
            untypeset += [f"{slug}: broken formula {t[:60]!r}" for t in prompt.evaluate(BROKEN)]
            if "$$" in prompt.inner_text():
                untypeset.append(f"{slug}: raw $$ in the prompt")
            if slug in NO_FORMULA_HINT:
                continue
            for rung in (1, 2):
                page.get_by_test_id("hint-button").click()
                expect(page.locator(f"#hint-{rung}")).to_be_visible()
            hint = page.locator("#hint-2")
            expect(hint.locator(".katex").first).to_be_attached()
            if hint.evaluate(BROKEN) or "$" in hint.inner_text():
                untypeset.append(f"{slug}: formula hint not typeset: {hint.inner_text()[:80]}")
        assert untypeset == []
        watch.assert_clean()
    finally:
        context.close()


# What sticks out of the prompt pane sideways, narrowed to 282 px as a learner may drag it: the
# pane itself must not scroll; a wide formula or code block scrolls inside its own box.
OVERFLOW = """pane => {
    const out = [];
    if (pane.scrollWidth > pane.clientWidth + 1)
        out.push(`pane ${pane.scrollWidth} > ${pane.clientWidth}`);
    const right = pane.getBoundingClientRect().right;
    for (const el of pane.querySelectorAll(".katex-display, .katex, pre, table, img")) {
        const scroller = el.closest(".katex-display, pre, .scroll");
        if (scroller && scroller !== el && scroller.contains(el)) continue;
        const end = Math.round(el.getBoundingClientRect().right);
        const scrolls = el.matches(".katex-display, pre") && el.scrollWidth > el.clientWidth;
        if (end > right + 1 && !scrolls)
            out.push(`${el.className || el.tagName} ends at ${end} > ${Math.round(right)}`);
    }
    return out;
}"""


@pytest.mark.slow
@pytest.mark.parametrize("lang", list(LOCALES))
def test_wide_formulas_scroll_in_their_own_box(server: Server, browser: Browser, lang: str) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 800}, locale=LOCALES[lang])
    page = context.new_page()
    found: list[str] = []
    try:
        sign_up(page, server, f"wide math {lang}")
        for slug in sorted(CATALOG):
            page.goto(f"{server.url}/app/exercises/{slug}")
            expect(page.get_by_test_id("prompt").locator(".katex").first).to_be_attached()
            pane = page.locator(".pane-prompt")
            pane.evaluate("pane => { pane.style.width = '282px'; pane.style.minWidth = '0'; }")
            found += [f"{slug}: {what}" for what in pane.evaluate(OVERFLOW)]
        assert found == []
    finally:
        context.close()

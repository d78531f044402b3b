"""The first failing check shows the learner's value beside the expected one, at the worst
element and its neighbours, in Chromium at 1280x800 and 390x844, in both languages: for a
LayerNorm that doubles its output every value shown is twice the expected one, and the unbiased
variance on a one-wide row shows NaN where the expected value is finite."""

from __future__ import annotations

import math
import re

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.test_learner_flow import submit_and_wait, type_code
from tests.browser.test_practice_loop import LOCALES, SIZES, english_in_chrome, sign_up
from tests.cli.conftest import SOLUTION, UNBIASED
from tests.support import Server

# Right in every way but a factor of two: its output and every gradient are twice the truth.
DOUBLED = SOLUTION.replace("        return (x - mean)", "        return 2 * (x - mean)")
assert DOUBLED != SOLUTION


def _figure(text: str) -> float:
    text = text.strip()
    return {"NaN": math.nan, "inf": math.inf, "-inf": -math.inf}.get(text) or float(text)


def values_rows(page: Page) -> dict[str, list[str]]:
    """The card's index, yours and expected columns as the page shows them, the worst row's
    index under "worst"."""
    values = page.get_by_test_id("first-failure-values")
    rows = {
        side: values.locator(f"tbody td[data-side={side}]").all_inner_texts()
        for side in ("yours", "expected")
    }
    rows["index"] = values.locator("tbody th[scope=row]").all_inner_texts()
    marked = values.locator("tbody tr.worst th")
    expect(marked).to_have_count(1)
    rows["worst"] = [marked.inner_text()]
    return rows


def submitted(page: Page, code: str) -> dict[str, list[str]]:
    type_code(page, code)
    submit_and_wait(page, shortcut=False)
    expect(page.get_by_test_id("verdict")).to_have_attribute("data-status", "failed")
    expect(page.get_by_test_id("first-failure-values")).to_be_visible()
    return values_rows(page)


@pytest.mark.slow
@pytest.mark.parametrize("lang", list(LOCALES))
@pytest.mark.parametrize("size", list(SIZES))
def test_your_value_beside_the_expected_one(
    server: Server, browser: Browser, size: str, lang: str
) -> None:
    viewport = SIZES[size]
    context = browser.new_context(viewport=viewport, locale=LOCALES[lang])  # type: ignore[arg-type]
    page = context.new_page()
    try:
        sign_up(page, server, f"values {size} {lang}")
        page.goto(server.url + "/app/exercises/layer_norm")

        rows = submitted(page, DOUBLED)
        n = len(rows["yours"])
        assert 1 <= n <= 5 and len(rows["expected"]) == n == len(rows["index"]), rows
        # The columns are consecutive last-dim indices, the worst one among them and at the
        # index the card names.
        index = [int(i) for i in rows["index"]]
        assert index == list(range(index[0], index[0] + n)), rows
        worst = page.get_by_test_id("first-failure").locator(".facts dd").all_inner_texts()
        named = next((w for w in worst if w.startswith("(")), None)
        if named is not None:  # a 0-d value has no index
            assert int(named.strip("()").split(",")[-1]) == int(rows["worst"][0]), (named, rows)
        for yours, expected in zip(rows["yours"], rows["expected"], strict=True):
            y, e = _figure(yours), _figure(expected)
            # bfloat16 cases round the learner's side to 8 bits of mantissa.
            assert abs(y - 2 * e) <= 1e-2 * abs(2 * e) + 1e-6, rows
        assert any(_figure(e) != 0 for e in rows["expected"]), rows

        box = page.get_by_test_id("first-failure-values").bounding_box()
        assert box is not None and box["x"] >= 0
        assert box["x"] + box["width"] <= viewport["width"], f"values clipped at {size}: {box}"
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= viewport["width"], f"the page is {width}px wide at {size}"

        # The unbiased variance divides by n - 1 = 0 on the one-wide rows: NaN, shown as such.
        rows = submitted(page, UNBIASED)
        card = page.get_by_test_id("first-failure").inner_text()
        assert "dim_1" in card, card  # the grader's first case: rows of one element
        assert rows["yours"] == ["NaN"], rows
        assert math.isfinite(_figure(rows["expected"][0])), rows  # the bias: x - mean is 0
        assert re.search(r"[\u4e00-\u9fff]", card) if lang == "zh" else "Yours" in card
        if lang == "zh":
            assert "你的值" in card and "期望值" in card, card
            assert english_in_chrome(page) == [], "English interface text on a Chinese page"
        else:
            assert "Expected" in card, card
    finally:
        context.close()

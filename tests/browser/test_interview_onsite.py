"""The 45-minute on-site round in a real Chromium, start to report: warm-up questions, two coding
items each followed by its follow-ups, the explain item written on its own page, the report
with the model answer, the self-rating against it, and the same report read in Chinese. Every
page is scanned by axe-core and photographed; no request leaves 127.0.0.1, no console error."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.test_help_interviews_drafts import answer_first_choice, new_context, sign_up
from tests.browser.test_learner_flow import Visit, type_code
from tests.browser.watch import Watch
from tests.support import REPO, Server

EXPLANATION = (
    "Mean and variance are taken over the last dimension only, so every row of shape (..., d) "
    "is normalised on its own; the variance is the biased one and eps goes inside the square "
    "root, which keeps it finite for a constant row. It costs two passes over the input, O(n) "
    "time and no extra memory beyond the statistics, and it behaves the same in training and "
    "inference because no running statistics are kept."
)


def kinds(page: Page) -> list[str]:
    items = page.get_by_test_id("items").locator("> li")
    return [str(items.nth(n).get_attribute("data-kind")) for n in range(items.count())]


@pytest.mark.slow
def test_the_onsite_round_with_the_explain_item_and_the_self_rating(
    server: Server, browser: Browser, axe_source: str, screenshots: Path
) -> None:
    watch = Watch()
    context = new_context(browser, watch)
    page = context.new_page()
    visit = Visit(page, axe_source, screenshots, "interview-onsite")
    try:
        sign_up(page, server, "on-site candidate")
        page.goto(server.url + "/app/interviews")
        page.get_by_test_id("preset-onsite").check()
        page.get_by_test_id("start-interview").click()
        expect(page.get_by_test_id("interview-state")).to_have_attribute("data-state", "running")
        plan = kinds(page)
        # Warm-up first, then each exercise with its follow-ups, the explain item last.
        assert plan.count("exercise") == 2 and plan[-1] == "explain", plan
        assert plan[0] == "question" and plan.index("follow_up") > plan.index("exercise")
        visit.check("running")
        base = page.url.split("#")[0]

        for position, kind in enumerate(plan, 1):
            item = page.locator(f"#item-{position}")
            if kind in ("question", "follow_up"):
                answer_first_choice(page, position)
            elif kind == "exercise":
                slug = item.get_attribute("data-id")
                item.get_by_test_id("open-exercise").click()
                expect(page.get_by_test_id("item-clock")).to_be_visible()
                type_code(page, (REPO / "solutions" / f"{slug}.py").read_text())
                page.get_by_test_id("submit").click()
                expect(page.get_by_test_id("interview-result")).to_have_attribute(
                    "data-result", "received"
                )
                expect(page.get_by_test_id("verdict")).to_have_count(0)
                page.get_by_test_id("back-to-interview").click()
            else:
                item.get_by_test_id("open-explain").click()
                expect(page.get_by_test_id("item-clock")).to_be_visible()
                page.get_by_label("Your explanation").fill(EXPLANATION)
                visit.check("explain")
                page.get_by_test_id("send-explanation").click()
                expect(page.get_by_test_id("explain-form")).to_have_count(0)
                page.get_by_test_id("back-to-interview").click()
            page.wait_for_url(base + "*")
            expect(page.locator(f"#item-{position}")).not_to_have_attribute("data-status", "open")

        # Everything answered: finishing asks nothing.
        page.get_by_test_id("finish").click()
        expect(page.get_by_test_id("interview-state")).to_have_attribute("data-state", "finished")
        report = page.get_by_test_id("report")
        results = report.get_by_test_id("report-items").locator("> li")
        expect(results).to_have_count(len(plan))
        for position, kind in enumerate(plan, 1):
            if kind == "exercise":
                expect(results.nth(position - 1)).to_have_attribute("data-result", "passed")
        expect(report.get_by_test_id("explanation")).to_contain_text("biased one and eps")
        expect(report.get_by_test_id("model-answer").locator("dt")).to_have_count(4)
        visit.check("report")

        # The self-rating against the model answer: 2, 1, 2, 1 of 2 each.
        form = report.get_by_test_id("self-rating-form")
        for n, value in enumerate((2, 1, 2, 1)):
            form.locator("p").nth(n + 1).locator(f"input[value='{value}']").check()
        form.get_by_test_id("rate").click()
        given = page.get_by_test_id("self-rating-given")
        expect(given).to_contain_text("2/2")
        expect(given).to_contain_text("1/2")
        expect(page.get_by_test_id("self-rating-form")).to_have_count(0)
        communication = page.locator("[data-testid=rubric] tr[data-dimension=communication]")
        expect(communication).to_contain_text("self-rating against the model answer: 6 of 8")
        expect(communication).to_contain_text("explained the code in 74 words")
        expect(page.get_by_test_id("recommendation")).to_be_visible()
        visit.check("rated")

        # The same report in Chinese.
        page.get_by_test_id("switch-lang").click()
        communication = page.locator("[data-testid=rubric] tr[data-dimension=communication]")
        expect(communication).to_contain_text("对照参考答案自评：6 / 8")
        expect(page.get_by_test_id("rubric")).to_contain_text("正确性")
        expect(page.get_by_test_id("self-rating-given")).to_contain_text("2/2")
        visit.check("report-zh")
        watch.assert_clean()
    finally:
        context.close()

"""A learner's whole path through the browser UI, in a real Chromium: sign up, a wrong LayerNorm
named by its mistake, the fix passing, the page in Chinese, quiz answers right and wrong, the
progress chart moving; on a desktop and on a 390x844 phone (dark mode), with no request leaving
127.0.0.1, no console error, and no serious accessibility violation on any page."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from api.content.questions import load_question_bank
from tests.browser.watch import Watch, axe_violations, shoot
from tests.support import REPO, Server

WRONG_LAYER_NORM = """import torch
from torch import nn


class LayerNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-5) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))
        self.bias = nn.Parameter(torch.zeros(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        mean = x.mean(-1, keepdim=True)
        var = x.var(-1, keepdim=True)  # unbiased: divides by n - 1
        return (x - mean) / torch.sqrt(var + self.eps) * self.weight + self.bias
"""
FIXED_LAYER_NORM = WRONG_LAYER_NORM.replace(
    "x.var(-1, keepdim=True)  # unbiased: divides by n - 1",
    "x.var(-1, keepdim=True, unbiased=False)",
)

VIEWPORTS = {
    "desktop": {"viewport": {"width": 1280, "height": 900}, "color_scheme": "light"},
    "phone": {"viewport": {"width": 390, "height": 844}, "color_scheme": "dark"},
}


class Visit:
    """One learner's browser: every page is checked for accessibility and photographed."""

    def __init__(self, page: Page, axe_source: str, folder: Path, prefix: str) -> None:
        self.page, self.axe_source, self.folder, self.prefix = page, axe_source, folder, prefix
        self.width = page.viewport_size["width"] if page.viewport_size else 0

    def check(self, name: str) -> None:
        page = self.page
        page.wait_for_load_state("networkidle")
        assert axe_violations(page, self.axe_source) == [], name
        # No inline script anywhere (the CSP would block it and log an error anyway).
        assert page.evaluate("document.querySelectorAll('script:not([src])').length") == 0
        # Readable at this width: nothing pushes the page sideways (tables scroll in place).
        overflow = page.evaluate("document.documentElement.scrollWidth")
        assert overflow <= self.width, f"{name}: page is {overflow}px wide at {self.width}px"
        shoot(page, self.folder, f"{self.prefix}-{name}")


def show_pane(page: Page, name: str) -> None:
    """On a phone the exercise page's panes are tabs: open one, as a learner taps it."""
    tab = page.get_by_test_id(f"tab-{name}")
    if tab.count() and tab.is_visible():
        tab.click()


def type_code(page: Page, code: str) -> None:
    show_pane(page, "code")
    editor = page.get_by_test_id("editor")
    editor.click()
    page.keyboard.press("ControlOrMeta+a")
    # A paste, as a learner brings code from their own editor (keyboard.insert_text would turn
    # the indentation into no-break spaces, as contenteditable typing does).
    editor.evaluate(
        """(el, text) => {
            const data = new DataTransfer();
            data.setData('text/plain', text);
            el.dispatchEvent(new ClipboardEvent('paste', {clipboardData: data, bubbles: true}));
        }""",
        code,
    )
    page.keyboard.press("ControlOrMeta+Home")
    # The editor mirrors itself into the form's textarea: what the server will receive.
    assert page.input_value("#code") == code


def topic_mastery(page: Page, topic: str) -> int:
    bar = page.get_by_test_id("mastery-chart").locator(f"g[data-topic={topic}]")
    return int(bar.get_attribute("data-mastery") or -1)


def exercise_cell(page: Page, slug: str) -> Locator:
    return page.get_by_test_id("exercise-chart").locator(f"g[data-slug={slug}]")


def watch_spinner(page: Page) -> None:
    page.evaluate(
        """() => {
            window.__spinnerSeen = false;
            const spinner = document.querySelector('[data-testid=spinner]');
            new MutationObserver(() => {
                if (!spinner.hidden) window.__spinnerSeen = true;
            }).observe(spinner, {attributes: true});
        }"""
    )


def submit_and_wait(page: Page, *, shortcut: bool) -> None:
    results = page.get_by_test_id("results")
    before = results.inner_html()
    watch_spinner(page)
    if shortcut:
        page.get_by_test_id("editor").focus()
        page.keyboard.press("ControlOrMeta+Enter")
    else:
        page.get_by_test_id("submit").click()
    page.wait_for_function(
        "before => document.querySelector('[data-testid=results]').innerHTML !== before",
        arg=before,
        timeout=60_000,
    )
    expect(page.get_by_test_id("spinner")).to_be_hidden()
    assert page.evaluate("window.__spinnerSeen"), "no spinner was shown while grading"


@pytest.mark.slow
@pytest.mark.parametrize("device", list(VIEWPORTS))
def test_learner_flow(
    server: Server, browser: Browser, axe_source: str, screenshots: Path, device: str
) -> None:
    watch = Watch()
    context = browser.new_context(**VIEWPORTS[device], locale="en-US")  # type: ignore[arg-type]
    watch.attach(context)
    page = context.new_page()
    visit = Visit(page, axe_source, screenshots, device)
    try:
        # Sign up: the root sends a stranger to the sign-in page.
        page.goto(server.url + "/")
        expect(page).to_have_url(server.url + "/app/signin")
        visit.check("signin")
        page.get_by_label("Your name").fill(f"browser {device}")
        page.get_by_role("button", name="Create and sign in").click()
        token = page.get_by_test_id("token").inner_text()
        assert len(token) >= 40
        visit.check("welcome")
        page.get_by_role("link", name="Continue to the exercises").click()

        # The list: every exercise not started yet.
        row = page.locator("tr[data-slug=layer_norm]")
        expect(row.get_by_test_id("status")).to_have_text("not started")
        visit.check("exercises")

        # Progress before anything: nothing solved, the LayerNorm topic at zero.
        page.get_by_role("link", name="Progress").click()
        mastery_before = topic_mastery(page, "layer_norm")
        assert mastery_before == 0
        expect(exercise_cell(page, "layer_norm")).to_have_attribute("data-status", "not_started")
        visit.check("progress-empty")

        # The exercise: starter code in the editor, a wrong LayerNorm named by its mistake.
        page.get_by_role("link", name="Exercises").click()
        page.get_by_role("link", name="LayerNorm from scratch").click()
        expect(page.get_by_test_id("prompt")).to_contain_text("Layer normalisation rescales")
        assert "raise NotImplementedError" in page.input_value("#code")
        type_code(page, WRONG_LAYER_NORM)
        submit_and_wait(page, shortcut=True)
        verdict = page.get_by_test_id("verdict")
        expect(verdict).to_have_attribute("data-status", "failed")
        expect(page.get_by_test_id("diagnosis")).to_have_attribute(
            "data-mistake", "unbiased_variance"
        )
        # The first failing check leads, with its numbers; the full table folds away by case.
        expect(page.get_by_test_id("first-failure")).to_be_visible()
        expect(page.get_by_test_id("first-failure-error")).to_have_text(
            re.compile(r"^(\d|NaN|inf)")
        )
        expect(page.get_by_test_id("all-checks")).not_to_have_attribute("open", "")
        visit.check("exercise-failed")

        # The fix, typed but not sent, survives a reload as a draft; then it passes.
        type_code(page, FIXED_LAYER_NORM)
        page.reload()
        assert page.input_value("#code") == FIXED_LAYER_NORM
        submit_and_wait(page, shortcut=False)
        expect(page.get_by_test_id("verdict-status")).to_have_text("passed")
        expect(page.get_by_test_id("history").locator("li")).to_have_count(2)
        visit.check("exercise-passed")

        # A reload keeps the learner's last code, and the verdict.
        page.reload()
        assert page.input_value("#code") == FIXED_LAYER_NORM
        expect(page.get_by_test_id("verdict-status")).to_have_text("passed")

        # Chinese: the prompt, the verdict and the interface; the choice is remembered.
        page.get_by_test_id("switch-lang").click()
        expect(page.get_by_test_id("prompt")).to_contain_text("层归一化")
        expect(page.get_by_test_id("verdict-status")).to_have_text("通过")
        expect(page.get_by_test_id("verdict-summary")).to_contain_text("全部")
        expect(page.locator("html")).to_have_attribute("lang", "zh-CN")
        visit.check("exercise-zh")
        page.get_by_role("link", name="编程题").click()
        expect(page.locator("tr[data-slug=layer_norm]").get_by_test_id("status")).to_have_text(
            "已解决"
        )
        # An earlier failed submission shows its diagnosis in Chinese too.
        page.goto(server.url + "/app/exercises/layer_norm")
        show_pane(page, "result")
        page.get_by_test_id("history").locator("li").last.get_by_role("link").click()
        expect(page.get_by_test_id("diagnosis")).to_contain_text("方差")
        expect(page.get_by_test_id("submitted-code")).to_have_text(WRONG_LAYER_NORM.rstrip("\n"))
        visit.check("submission-zh")
        page.get_by_test_id("switch-lang").click()
        # The switch navigates: an evaluate could land between two documents (no root element).
        expect(page.locator("html")).to_have_attribute("lang", "en")

        # Quiz: one answer right, one wrong; each with its explanation and source.
        bank = load_question_bank(REPO / "exercises" / "questions")
        right, wrong = bank.select(topic="layer_norm", type="single_choice")[:2]
        page.get_by_role("link", name="Quiz").click()
        page.get_by_label("Topic").select_option("layer_norm")
        page.get_by_role("button", name="Filter").click()
        expect(page.get_by_test_id("questions").locator("li")).not_to_have_count(0)
        visit.check("quiz")
        page.goto(f"{server.url}/app/quiz/{right.id}")
        page.locator(f"input[name=choice][value='{right.answer}']").check()  # type: ignore[union-attr]
        page.get_by_role("button", name="Answer").click()
        feedback = page.get_by_test_id("feedback")
        expect(feedback).to_have_attribute("data-correct", "true")
        expect(feedback).to_contain_text(right.explanation[:30])
        expect(feedback).to_contain_text(right.source.section)
        visit.check("question-right")
        page.goto(f"{server.url}/app/quiz/{wrong.id}")
        other = (wrong.answer + 1) % len(wrong.choices)  # type: ignore[union-attr]
        page.locator(f"input[name=choice][value='{other}']").check()
        page.get_by_role("button", name="Answer").click()
        expect(page.get_by_test_id("feedback")).to_have_attribute("data-correct", "false")
        visit.check("question-wrong")

        # Review: nothing is due yet (a wrong answer comes back in minutes, a pass in days);
        # the new items are ones not yet answered.
        page.get_by_role("link", name="Review").click()
        expect(page.get_by_text("Nothing is due right now.")).to_be_visible()
        new_items = page.get_by_test_id("new").locator("a")
        expect(new_items).not_to_have_count(0)
        offered = [new_items.nth(i).get_attribute("href") for i in range(new_items.count())]
        assert f"/app/quiz/{right.id}" not in offered and f"/app/quiz/{wrong.id}" not in offered
        visit.check("review")

        # Progress moved: LayerNorm solved, its topic's mastery up, a streak, recent activity.
        page.get_by_role("link", name="Progress").click()
        assert topic_mastery(page, "layer_norm") > mastery_before
        expect(exercise_cell(page, "layer_norm")).to_have_attribute("data-status", "solved")
        expect(page.get_by_test_id("streak")).to_contain_text("1")
        expect(page.get_by_test_id("recent").locator("li")).to_have_count(4)
        visit.check("progress")
        watch.assert_clean()
    finally:
        context.close()

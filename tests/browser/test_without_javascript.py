"""With JavaScript off the pages still work: the plain textarea submits, the verdict comes back
as a full page (the enhanced editor is a convenience, never a requirement)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, expect

from tests.browser.test_learner_flow import FIXED_LAYER_NORM
from tests.browser.watch import Watch
from tests.support import Server


@pytest.mark.slow
def test_textarea_submits_without_javascript(server: Server, browser: Browser) -> None:
    watch = Watch()
    context = browser.new_context(java_script_enabled=False)
    watch.attach(context)
    page = context.new_page()
    try:
        page.goto(server.url + "/app/signin")
        page.get_by_label("Your name").fill("no js")
        page.get_by_role("button", name="Create and sign in").click()
        page.goto(server.url + "/app/exercises/layer_norm")
        textarea = page.locator("textarea#code")
        expect(textarea).to_be_visible()
        assert page.get_by_test_id("editor").count() == 0  # no CodeMirror without scripts
        textarea.fill(FIXED_LAYER_NORM)
        page.get_by_test_id("submit").click()
        expect(page).to_have_url(server.url + "/app/exercises/layer_norm#results")
        expect(page.get_by_test_id("verdict-status")).to_have_text("passed")
        assert page.input_value("#code") == FIXED_LAYER_NORM
        # A quiz answer works the same way.
        page.goto(server.url + "/app/quiz/ln-mean-shape")
        page.locator("input[name=choice]").first.check()
        page.get_by_role("button", name="Answer").click()
        expect(page.get_by_test_id("feedback")).to_be_visible()
        watch.assert_clean()
    finally:
        context.close()

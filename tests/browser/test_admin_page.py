"""The operator's page in a real Chromium against a real server (registration by invite): an
invite made on the page and used on the sign-up page, the learner's mistake in the cohort view
and its example verdict, a new token that shuts the old one out, disable, the page in Chinese,
deletion; the learner refused the page; no request leaving 127.0.0.1, no console error."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect

from tests.admin.conftest import Deployment, deploy
from tests.browser.watch import Watch, axe_violations, shoot
from tests.support import REPO, stop_server

UNBIASED = (
    REPO / "exercises" / "layer_norm" / "variants" / "failed_unbiased_variance.py"
).read_text()


@pytest.fixture(scope="module")
def group(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployment]:
    data = tmp_path_factory.mktemp("admin-page")
    d = deploy(data, f"sqlite:///{data / 'addnorm.db'}", ADDNORM_REGISTRATION="invite")
    yield d
    stop_server(d.server)


def sign_in(page: Page, url: str, token: str) -> None:
    page.goto(url + "/app/signin")
    page.fill("#token", token)
    page.get_by_role("button", name="Sign in", exact=True).click()


def learner_row(page: Page, name: str):  # type: ignore[no-untyped-def]
    return page.get_by_test_id("learners").locator("tr", has_text=name)


def test_the_operator_runs_the_group_from_the_page(
    group: Deployment, browser: Browser, axe_source: str, screenshots: Path
) -> None:
    url = group.server.url
    watch = Watch()
    operator_ctx = browser.new_context(locale="en-GB")
    learner_ctx = browser.new_context(locale="en-GB")
    for ctx in (operator_ctx, learner_ctx):
        watch.attach(ctx)
    try:
        op = operator_ctx.new_page()
        sign_in(op, url, group.operator)
        op.get_by_test_id("nav-admin").click()
        expect(op).to_have_url(url + "/app/admin")
        expect(op.get_by_role("heading", level=1)).to_have_text("Cohort")
        expect(op.get_by_test_id("registration-mode")).to_have_text("by invite code")

        # An invite made on the page...
        op.fill("#uses", "1")
        op.fill("#days", "1")
        op.get_by_test_id("create-invite").click()
        code = op.get_by_test_id("new-invite-code").inner_text().strip()
        assert len(code) >= 20

        # ...used on the sign-up page, once.
        me = learner_ctx.new_page()
        me.goto(url + "/app/signin")
        me.fill("#name", "Browser Learner")
        me.fill("#invite", code)
        me.get_by_role("button", name="Create and sign in").click()
        old_token = me.get_by_test_id("token").inner_text().strip()
        with httpx.Client(base_url=url, timeout=30) as c:
            again = c.post("/users", json={"name": "second", "invite": code})
            assert again.status_code == 403
        # The learner is refused the operator's page.
        me.goto(url + "/app/admin")
        expect(me.get_by_test_id("error-text")).to_contain_text("for the operator")
        assert me.get_by_test_id("nav-admin").count() == 0

        # A named mistake, made over the API with the learner's token.
        with group.server.client(old_token) as c:
            r = c.post("/exercises/layer_norm/submissions", json={"code": UNBIASED})
            assert r.json()["diagnosis"]["name"] == "unbiased_variance"

        op.goto(url + "/app/admin")
        bar = op.get_by_test_id("cohort-exercise-chart").locator('g[data-slug="layer_norm"]')
        expect(bar).to_have_attribute("data-attempted", "1")
        expect(bar).to_have_attribute("data-solved", "0")
        mistake = op.get_by_test_id("cohort-mistake-chart").locator(
            'g[data-mistake="layer_norm:unbiased_variance"]'
        )
        expect(mistake).to_have_attribute("data-count", "1")
        expect(op.get_by_test_id("cohort-topic-chart")).to_be_visible()
        op.wait_for_load_state("networkidle")
        assert axe_violations(op, axe_source) == []
        assert op.evaluate("document.querySelectorAll('script:not([src])').length") == 0
        shoot(op, screenshots, "admin-cohort")

        # The example verdict behind the count.
        op.get_by_test_id("cohort-exercises").get_by_test_id("example-link").first.click()
        expect(op.get_by_test_id("owner")).to_have_text("Browser Learner")
        expect(op.locator("body")).to_contain_text("Unbiased variance")
        op.go_back()

        # A lost token: a new one, shown once; the old one signs nobody in any more.
        row = learner_row(op, "Browser Learner")
        row.locator("summary").click()
        row.get_by_test_id("reissue-token").click()
        new_token = op.get_by_test_id("new-token").inner_text().strip()
        assert new_token and new_token != old_token
        me.goto(url + "/app/exercises")
        expect(me).to_have_url(url + "/app/signin?next=/app/exercises")
        sign_in(me, url, old_token)
        expect(me.get_by_role("alert")).to_contain_text("not known")
        sign_in(me, url, new_token)
        expect(me).to_have_url(url + "/app/exercises")

        # Disabled: the learner is told why, not that the token is wrong.
        op.goto(url + "/app/admin")
        row = learner_row(op, "Browser Learner")
        row.locator("summary").click()
        row.get_by_test_id("toggle-disabled").click()
        expect(learner_row(op, "Browser Learner").get_by_test_id("disabled")).to_be_visible()
        sign_in(me, url, new_token)
        expect(me.get_by_role("alert")).to_contain_text("disabled by the operator")

        # The page in Chinese: the interface, the charts' labels, the mistake's title.
        op.get_by_test_id("switch-lang").click()
        expect(op.get_by_role("heading", level=1)).to_have_text("学习小组")
        body = op.locator("main").inner_text()
        for words in (
            "各题人数",
            "小组最常见的错误",
            "使用了无偏方差",
            "改名、停用、新令牌",
            "学习者人数：1",
        ):
            assert words in body, words
        for english in ("Learners per exercise", "most common", "Rename", "Invitations"):
            assert english not in body, english
        # Chinese typography: a full-width colon is never followed by a space.
        assert "： " not in body and "学习者人数: " not in body
        shoot(op, screenshots, "admin-cohort-zh")
        op.get_by_test_id("switch-lang").click()

        # Deleting asks for the name; a wrong one deletes nothing.
        row = learner_row(op, "Browser Learner")
        row.locator("summary").click()
        row.get_by_role("textbox", name="Type the learner's name").fill("someone else")
        row.get_by_test_id("delete-learner").click()
        expect(op.get_by_role("alert")).to_contain_text("Nothing was deleted")
        row = learner_row(op, "Browser Learner")
        row.locator("summary").click()
        row.get_by_role("textbox", name="Type the learner's name").fill("Browser Learner")
        row.get_by_test_id("delete-learner").click()
        expect(op).to_have_url(url + "/app/admin#learners")
        expect(learner_row(op, "Browser Learner")).to_have_count(0)
        with group.server.client(new_token) as c:
            assert c.get("/users/me").status_code == 401
        assert watch.requests and not watch.outside, watch.outside
        # Chromium logs every 4xx page as a console error: those this test provoked on purpose
        # (the learner refused /app/admin, a bad and a disabled sign-in, a mistyped name).
        provoked = ("status of 403", "status of 401", "status of 422")
        unexpected = [
            e
            for e in watch.console_errors
            if not ("Failed to load resource" in e and any(p in e for p in provoked))
        ]
        assert not unexpected, unexpected
    finally:
        operator_ctx.close()
        learner_ctx.close()


def test_a_learner_downloads_their_own_data(group: Deployment, browser: Browser) -> None:
    _, token = group.new_learner("Downloader")
    with group.server.client(token) as c:
        assert c.put("/exercises/layer_norm/draft", json={"code": "# mine"}).status_code == 200
    ctx = browser.new_context(accept_downloads=True)
    try:
        page = ctx.new_page()
        sign_in(page, group.server.url, token)
        page.goto(group.server.url + "/app/progress")
        with page.expect_download() as info:
            page.get_by_test_id("export-mine").click()
        data = Path(info.value.path()).read_text()
        assert '"name":"Downloader"' in data and '"code":"# mine"' in data
    finally:
        ctx.close()

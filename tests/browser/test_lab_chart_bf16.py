"""The second lab's page (``bf16_norm_precision``): four curves of log10 errors, most of them
negative, the learner's beside the reference's. Over plain HTTP: a right answer draws all eight
lines with their labels, in English and in Chinese; a mistake's curve is drawn where it went
wrong. In a real Chromium on a 390x844 phone: every curve drawn inside the plot, the legend
readable, no overflow, no accessibility violation."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, expect

from tests.browser.test_learner_flow import VIEWPORTS, Visit, submit_and_wait, type_code
from tests.browser.test_pages_http import csrf_of, sign_up, submit
from tests.browser.watch import Watch
from tests.support import REPO, Server

SLUG = "bf16_norm_precision"
SOLUTION = (REPO / "solutions" / f"{SLUG}.py").read_text(encoding="utf-8")
NOT_UPCAST = (
    REPO / "exercises" / SLUG / "variants" / "failed_float32_arm_not_upcast.py"
).read_text(encoding="utf-8")
SERIES = re.compile(r'<g class="lab-series [^"]*" data-series="([^"]*)" data-learner="(\w+)"')
ARMS = ("bf16 two-pass", "bf16 one-pass", "float32 statistics", "bf16 RMSNorm")


@pytest.fixture
def client(server: Server) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.url, timeout=120, follow_redirects=True) as c:
        sign_up(c, "precision learner")
        yield c


def _chart(html: str) -> str:
    start = html.index('data-testid="lab-chart"')
    return html[start : html.index("</svg>", start)]


def test_a_right_answer_draws_the_four_arms_beside_the_reference(client: httpx.Client) -> None:
    r = submit(client, SOLUTION, SLUG)
    assert r.status_code == 200, r.text
    assert 'data-status="passed"' in r.text
    chart = _chart(r.text)
    assert SERIES.findall(chart) == [
        (f"{arm}, {who}", learner)
        for arm in ARMS
        for who, learner in (("reference", "false"), ("yours", "true"))
    ]
    assert chart.count("<polyline") == 8
    assert "LayerNorm in bfloat16 as the mean grows" in chart
    assert "log10 median relative error" in chart
    # The learner's curves lie on the reference's: the same numbers, the same points.
    points = re.findall(r'<polyline points="([^"]+)" class="line"/>', chart)
    assert points[0::2] == points[1::2]


def test_the_chart_speaks_chinese_in_a_chinese_verdict(client: httpx.Client) -> None:
    page = client.get("/app/exercises")
    chosen = client.post("/app/lang", data={"lang": "zh", "csrf": csrf_of(page.text)})
    assert chosen.status_code == 200, chosen.status_code  # followed to the page it names
    r = submit(client, SOLUTION, SLUG)
    assert 'data-status="passed"' in r.text
    chart = _chart(r.text)
    labels = [label for label, _ in SERIES.findall(chart)]
    assert any(label.startswith("bf16 单遍") for label in labels), labels
    assert "log10 相对误差的中位数" in chart


def test_a_float32_arm_left_in_bfloat16_is_drawn_on_the_two_pass_curve(
    client: httpx.Client,
) -> None:
    r = submit(client, NOT_UPCAST, SLUG)
    assert 'data-status="failed"' in r.text and 'data-mistake="float32_arm_not_upcast"' in r.text
    points = re.findall(r'<polyline points="([^"]+)" class="line"/>', _chart(r.text))
    # Row 2 (yours) is the two-pass reference's curve, not the flat float32 one.
    assert points[5] == points[0] and points[5] != points[4]


def test_the_phone_shows_the_four_arms_readably(
    server: Server, browser: Browser, axe_source: str, screenshots: Path
) -> None:
    watch = Watch()
    context = browser.new_context(**VIEWPORTS["phone"], locale="en-US")  # type: ignore[arg-type]
    watch.attach(context)
    page = context.new_page()
    visit = Visit(page, axe_source, screenshots, "lab-bf16-phone")
    try:
        page.goto(server.url + "/app/signin")
        page.get_by_label("Your name").fill("precision phone")
        page.get_by_role("button", name="Create and sign in").click()
        page.goto(server.url + f"/app/exercises/{SLUG}")
        type_code(page, SOLUTION)
        submit_and_wait(page, shortcut=False)
        expect(page.get_by_test_id("verdict")).to_have_attribute("data-status", "passed")
        chart = page.get_by_test_id("lab-chart")
        chart.scroll_into_view_if_needed()
        expect(chart).to_be_visible()
        expect(chart.locator("g.lab-series")).to_have_count(8)
        expect(chart.locator("g.lab-yours circle")).to_have_count(32)  # 8 offsets, 4 arms
        for name in ("bf16 one-pass, yours", "float32 statistics, reference"):
            expect(chart.locator("text.legend", has_text=name)).to_be_visible()
        box = chart.bounding_box()
        assert box is not None and 300 <= box["width"] <= 390, box
        for polyline in chart.locator("g.lab-series > polyline").all():
            b = polyline.bounding_box()
            assert b is not None and b["width"] > box["width"] / 2, b
            assert b["y"] >= box["y"] and b["y"] + b["height"] <= box["y"] + box["height"], b
        visit.check("lab-bf16-passed")
        watch.assert_clean()
    finally:
        context.close()

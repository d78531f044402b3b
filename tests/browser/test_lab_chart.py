"""A lab's page after a submission: the learner's measured curves beside the reference's, as an
inline SVG the server drew from numbers (``data-testid="lab-chart"``). Over plain HTTP: what
the page holds for a right answer, for an answer that is no curve, and that a learner's output
never reaches the page as markup; in a real Chromium on a 390x844 phone: both curves drawn,
readable, no overflow, no accessibility violation."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, expect

from tests.browser.test_learner_flow import VIEWPORTS, Visit, submit_and_wait, type_code
from tests.browser.test_pages_http import sign_up, submit
from tests.browser.watch import Watch
from tests.support import REPO, Server

SLUG = "pre_post_ln_gradients"
SOLUTION = (REPO / "solutions" / f"{SLUG}.py").read_text(encoding="utf-8")
SWAPPED = (REPO / "exercises" / SLUG / "variants" / "failed_variants_swapped.py").read_text(
    encoding="utf-8"
)
SERIES = re.compile(r'<g class="lab-series [^"]*" data-series="([^"]*)" data-learner="(\w+)"')


@pytest.fixture
def client(server: Server) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.url, timeout=120, follow_redirects=True) as c:
        sign_up(c, "lab learner")
        yield c


def _chart(html: str) -> str:
    start = html.index('data-testid="lab-chart"')
    return html[start : html.index("</svg>", start)]


def test_a_right_answer_draws_both_curves_of_both_placements(client: httpx.Client) -> None:
    r = submit(client, SOLUTION, SLUG)
    assert r.status_code == 200, r.text
    assert 'data-status="passed"' in r.text
    chart = _chart(r.text)
    assert SERIES.findall(chart) == [
        ("Pre-LN, reference", "false"),
        ("Pre-LN, yours", "true"),
        ("Post-LN, reference", "false"),
        ("Post-LN, yours", "true"),
    ]
    assert chart.count("<polyline") == 4  # one curve per series; the legend swatches are lines
    assert '<title id="lab-chart-title">Gradient norm per layer at initialisation' in chart
    assert "layer (1 = next to the input)" in chart and "gradient norm of ff2.weight" in chart
    assert 'data-testid="lab-chart-note"' not in r.text


def test_a_wrong_answer_is_drawn_beside_the_reference(client: httpx.Client) -> None:
    r = submit(client, SWAPPED, SLUG)
    assert 'data-status="failed"' in r.text and 'data-mistake="variants_swapped"' in r.text
    chart = _chart(r.text)
    assert [learner for _, learner in SERIES.findall(chart)] == ["false", "true"] * 2
    # The learner's Pre-LN curve is the reference's Post-LN curve: the swap shows.
    points = re.findall(r'<polyline points="([^"]+)" class="line"/>', chart)
    assert points[1] == points[2] and points[3] == points[0]


@pytest.mark.parametrize(
    "answer",
    [
        "torch.full((2, depth), float('nan'))",
        "torch.ones(depth, 2)",
        "torch.ones(2, 1000)",
    ],
)
def test_an_answer_that_is_no_curve_leaves_the_reference_alone(
    client: httpx.Client, answer: str
) -> None:
    head = "import torch\n\n\ndef pre_post_ln_gradients(x, target, depth, seed):\n"
    code = f"{head}    return {answer}\n"
    r = submit(client, code, SLUG)
    assert 'data-status="failed"' in r.text
    chart = _chart(r.text)
    assert [learner for _, learner in SERIES.findall(chart)] == ["false", "false"]
    assert 'data-testid="lab-chart-note"' in r.text


def test_what_the_child_prints_never_reaches_the_chart(client: httpx.Client) -> None:
    code = SOLUTION + '\nprint("<svg><script>alert(1)</script></svg>")\n'
    code = code.replace(
        "    return torch.stack(rows).detach()",
        '    print("</svg><b id=injected>")\n    return torch.stack(rows).detach()',
    )
    r = submit(client, code, SLUG)
    assert 'data-status="passed"' in r.text
    chart = _chart(r.text)
    assert "injected" not in chart and "script" not in chart
    assert "<b id=injected>" not in r.text  # stdout is shown escaped, elsewhere on the page


def test_the_phone_shows_both_curves_readably(
    server: Server, browser: Browser, axe_source: str, screenshots: Path
) -> None:
    watch = Watch()
    context = browser.new_context(**VIEWPORTS["phone"], locale="en-US")  # type: ignore[arg-type]
    watch.attach(context)
    page = context.new_page()
    visit = Visit(page, axe_source, screenshots, "lab-phone")
    try:
        page.goto(server.url + "/app/signin")
        page.get_by_label("Your name").fill("lab phone")
        page.get_by_role("button", name="Create and sign in").click()
        page.goto(server.url + f"/app/exercises/{SLUG}")
        type_code(page, SOLUTION)
        submit_and_wait(page, shortcut=False)
        expect(page.get_by_test_id("verdict")).to_have_attribute("data-status", "passed")
        chart = page.get_by_test_id("lab-chart")
        chart.scroll_into_view_if_needed()
        expect(chart).to_be_visible()
        lines = chart.locator("g.lab-series")
        expect(lines).to_have_count(4)
        expect(chart.locator("g.lab-yours circle")).to_have_count(48)  # 24 layers, 2 curves
        for name in ("Pre-LN, yours", "Post-LN, yours", "Pre-LN, reference"):
            expect(chart.locator("text.legend", has_text=name)).to_be_visible()
        box = chart.bounding_box()
        assert box is not None and 300 <= box["width"] <= 390, box
        # Each curve spans the plot, and its text is drawn at a readable size on the phone.
        for polyline in chart.locator("g.lab-series > polyline").all():
            b = polyline.bounding_box()
            assert b is not None and b["width"] > box["width"] / 2, b
        tick = chart.locator("text.tick").first.bounding_box()
        assert tick is not None and tick["height"] >= 10, tick
        visit.check("lab-passed")
        watch.assert_clean()
    finally:
        context.close()


def test_a_lab_with_planes_draws_one_curve_per_layer(client: httpx.Client) -> None:
    """training_monitor answers (3, layers, steps); its page draws plane 0 (the ratios), the
    learner's curve and the reference's for each of the four layers, in the reader's language."""
    slug = "training_monitor"
    solution = (REPO / "solutions" / f"{slug}.py").read_text(encoding="utf-8")
    r = submit(client, solution, slug)
    assert r.status_code == 200, r.text
    assert 'data-status="passed"' in r.text
    chart = _chart(r.text)
    assert SERIES.findall(chart) == [
        (f"layer {i}, {who}", learner)
        for i in range(1, 5)
        for who, learner in (("reference", "false"), ("yours", "true"))
    ]
    assert chart.count("<polyline") == 8
    assert "Update-to-weight ratio per layer" in chart and "SGD step (1 = the first)" in chart
    wrong = (REPO / "exercises" / slug / "variants" / "failed_ratio_inverted.py").read_text(
        encoding="utf-8"
    )
    r = submit(client, wrong, slug)
    assert 'data-status="failed"' in r.text and 'data-mistake="ratio_inverted"' in r.text
    assert [learner for _, learner in SERIES.findall(_chart(r.text))] == ["false", "true"] * 4

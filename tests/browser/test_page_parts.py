"""The page's pure parts, without a server: how the verdict card writes its numbers, which
check it leads with, how formulas survive Markdown, and the solution's diff."""

from __future__ import annotations

import math

from api.web.help import solution_diff
from api.web.render import markdown
from api.web.verdicts import error_figure, tolerance_figure, verdict_view


def test_figures_say_nan_inf_and_any() -> None:
    assert error_figure(0.0123456) == "0.0123"
    assert error_figure(None, "output NaN where the reference is finite") == "NaN"
    assert error_figure(None, "output inf where the reference is finite") == "inf"
    assert error_figure(math.nan) == "NaN" and error_figure(-math.inf) == "-inf"
    assert error_figure(None) == "–" and error_figure(True) == "–"
    assert tolerance_figure(1.8e308, "any") == "any"
    assert tolerance_figure(math.inf, "不限") == "不限"
    assert tolerance_figure(1.5e-6, "any") == "1.5e-06"
    assert tolerance_figure(None, "any") == "–" and tolerance_figure("x", "any") == "–"


def _check(case: str, passed: bool, target: str = "output") -> dict[str, object]:
    return {
        "case": case,
        "description": f"{case} in words",
        "target": target,
        "passed": passed,
        "message": "differs",
        "max_abs_error": 0.5,
        "allowed_abs_error": 1e-5,
    }


def test_the_card_leads_with_the_case_the_message_names() -> None:
    checks = [_check("a", True), _check("b", False), _check("c", False, "grad of input")]
    public = {
        "id": 1,
        "state": "done",
        "verdict": "failed",
        "cases_total": 3,
        "cases_passed": 1,
        "message": "2 of 3 cases failed. First: 'c' (c in words): grad of input differs.",
        "checks": checks,
    }
    for lang in ("en", "zh"):
        view = verdict_view(public, lang)  # type: ignore[arg-type]
        assert view.first_failure is not None and view.first_failure["case"] == "c"
        # Failing cases first in the folded table, each with its counts.
        assert [(g.case, g.passed, g.failed) for g in view.cases] == [
            ("b", 0, 1),
            ("c", 0, 1),
            ("a", 1, 0),
        ]
    # No case named (or an odd message): the first failing check.
    public["message"] = "something else"
    assert verdict_view(public, "en").first_failure["case"] == "b"  # type: ignore[index]
    # A hostile row (checks that are not objects) is shown without them, never a 5xx.
    public["checks"] = ["x", 3, None]
    assert verdict_view(public, "en").first_failure is None


def test_formulas_survive_markdown_and_code_is_left_alone() -> None:
    html = str(
        markdown(
            "Mean $\\mu = \\frac{1}{n}\\sum_i x_i$ and *em*.\n\n"
            "$$y = a_1 * b_2 * c$$\n\n`cost $5 $6` and\n\n```\nx = '$a_b$'\n```\n"
        )
    )
    assert "$\\mu = \\frac{1}{n}\\sum_i x_i$" in html
    assert "$$y = a_1 * b_2 * c$$" in html  # the stars are not emphasis
    assert "<em>em</em>" in html
    assert "<code>cost $5 $6</code>" in html
    assert "x = '$a_b$'" in html
    # A formula is escaped like any text.
    assert "&lt;script&gt;" in str(markdown("$<script>$"))


def test_solution_diff_marks_theirs_and_the_solutions_lines() -> None:
    theirs = "".join(f"{c}\n" for c in "abcdefghijklmn")
    solution = theirs.replace("f\n", "F\n").replace("n\n", "N\n")
    lines = solution_diff(theirs, solution)
    assert ("del", "f") in lines and ("add", "F") in lines
    assert ("del", "n") in lines and ("add", "N") in lines
    assert ("ctx", "d") in lines and ("ctx", "a") not in lines  # two lines of context
    assert ("gap", "…") in lines  # between the two changes, far apart
    assert solution_diff("same\n", "same\n") == []

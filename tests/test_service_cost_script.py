"""``scripts/service_cost.py`` starts the real service, counts inside it while a learner
submits over HTTP, and prints figures that nest as the calls do."""

from __future__ import annotations

import re

from tests.support import run_script


def _ms(text: str, label: str) -> float:
    found = re.search(rf"{re.escape(label)}\s+(\d+\.\d+) ms", text)
    assert found is not None, f"no figure for {label!r} in:\n{text}"
    return float(found.group(1))


def test_service_cost_counts_nested_parts_of_real_verdicts() -> None:
    out = run_script("service_cost.py", "-n", "20", "--failing")
    assert "known mistakes, 20 submissions back to back" in out
    assert _ms(out, "the service process in all") > 0
    request = _ms(out, "http.grade_submission")
    grading = _ms(out, "grader.grade_for_record")
    judge = _ms(out, "grader.judge")
    diagnosis = _ms(out, "diagnosis")
    assert request > grading > judge > diagnosis > 0
    assert _ms(out, "db: verdict and review card") > 0
    assert re.search(r"machine: sum\(range\(10000\)\) takes \d+ µs", out)

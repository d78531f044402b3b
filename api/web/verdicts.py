"""A stored submission as a page shows it: the verdict in the reader's language.

The grader writes its message in English; the page leads with a short summary in the chosen
language (status and case counts), the diagnosis in that language (known mistakes carry both),
and keeps the grader's own message as the detail beneath.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

from api.learning.verdict_i18n import render
from api.web.charts import LabChartView, lab_chart
from api.web.i18n import Lang, text

STATUSES = ("passed", "failed", "error", "timeout", "crashed", "rejected")

# The grader's English message names the case it quotes (the one that shows the diagnosed
# mistake best): "... First: 'case name' (...)". The card leads with that case's failing check.
_FIRST_CASE = re.compile(r"First: '([^']{1,200})'")
# A tolerance this large admits any value: the grader's way of saying "not compared".
_UNBOUNDED = 1e300


def error_figure(value: object, message: str = "") -> str:
    """An error as a learner reads it: NaN and inf said as such (JSON carries them as null, the
    check's message names them), never a dash that could mean zero."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        if "nan" in message.lower():
            return "NaN"
        if "inf" in message.lower():
            return "inf"
        return "–"
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return f"{value:.3g}"


def value_figure(value: object) -> str:
    """One value of ``Check.values``: a number to six significant digits, or NaN and inf as
    such (the verdict JSON carries those as the strings "nan", "inf", "-inf")."""
    if isinstance(value, str):
        return {"nan": "NaN", "inf": "inf", "-inf": "-inf"}.get(value, "–")
    if isinstance(value, bool) or not isinstance(value, int | float):
        return "–"
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return f"{value:.6g}"


def tolerance_figure(value: object, any_word: str) -> str:
    """The allowed error; ``any_word`` ("any") where the tolerance bounds nothing."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return "–"
    if math.isnan(value):
        return "NaN"
    if math.isinf(value) or abs(value) >= _UNBOUNDED:
        return any_word
    return f"{value:.3g}"


@dataclass
class CaseGroup:
    """The checks of one case, for the folded table: counts first, rows on demand."""

    case: str
    description: str
    checks: list[dict[str, Any]]
    passed: int
    failed: int


@dataclass
class VerdictView:
    id: int | None
    status: str  # one of STATUSES, or not_graded
    label: str
    summary: str
    message: str
    checks: list[dict[str, Any]] = field(default_factory=list)
    diagnosis_name: str | None = None
    diagnosis_title: str | None = None
    diagnosis_explanation: str | None = None
    error: dict[str, Any] | None = None
    stdout: str = ""
    stderr: str = ""
    created_at: str | None = None
    first_failure: dict[str, Any] | None = None
    cases: list[CaseGroup] = field(default_factory=list)
    chart: LabChartView | None = None  # a lab's figure: the learner's curves and the reference's


def _first_failure(checks: list[dict[str, Any]], english_message: str) -> dict[str, Any] | None:
    failing = [c for c in checks if isinstance(c, dict) and not c.get("passed")]
    if not failing:
        return None
    quoted = _FIRST_CASE.search(english_message)
    if quoted is not None:
        named = [c for c in failing if c.get("case") == quoted.group(1)]
        if named:
            return named[0]
    return failing[0]


def _case_groups(checks: list[dict[str, Any]]) -> list[CaseGroup]:
    groups: dict[str, CaseGroup] = {}
    for c in checks:
        if not isinstance(c, dict):
            continue
        name = str(c.get("case") or "")
        group = groups.get(name)
        if group is None:
            group = groups[name] = CaseGroup(name, str(c.get("description") or ""), [], 0, 0)
        group.checks.append(c)
        if c.get("passed"):
            group.passed += 1
        else:
            group.failed += 1
    # Failing cases first: the table is read for what went wrong.
    return sorted(groups.values(), key=lambda g: g.failed == 0)


def verdict_view(public: dict[str, Any], lang: Lang) -> VerdictView:
    """From ``api.learning.submissions.public(row)``, the JSON the API answers."""
    english_message = str(public.get("message") or "")
    public = render(public, lang)  # message, checks and diagnosis in the page's language
    checks = [c for c in public.get("checks") or [] if isinstance(c, dict)]
    status = public.get("verdict") if public.get("state") == "done" else None
    status = status if status in STATUSES else "not_graded"
    total, passed = int(public.get("cases_total") or 0), int(public.get("cases_passed") or 0)
    summary = text(f"summary_{status}", lang).format(total=total, passed=passed)
    diagnosis = public.get("diagnosis") or {}
    zh = lang == "zh"
    return VerdictView(
        id=public.get("id"),
        status=status,
        label=text(f"verdict_{status}", lang),
        summary=summary,
        message=str(public.get("message") or ""),
        checks=checks,
        diagnosis_name=diagnosis["name"] if diagnosis else None,
        diagnosis_title=(diagnosis["title_zh"] if zh else diagnosis["title"])
        if diagnosis
        else None,
        diagnosis_explanation=(
            (diagnosis["explanation_zh"] if zh else diagnosis["explanation"]) if diagnosis else None
        ),
        error=public.get("error") or None,
        stdout=str(public.get("stdout") or ""),
        stderr=str(public.get("stderr") or ""),
        created_at=public.get("created_at"),
        first_failure=_first_failure(checks, english_message),
        cases=_case_groups(checks),
        chart=lab_chart(
            public.get("chart"), zh, text("lab_yours", lang), text("lab_reference", lang)
        ),
    )

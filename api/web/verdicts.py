"""A stored submission as a page shows it: the verdict in the reader's language.

The grader writes its message in English; the page leads with a short summary in the chosen
language (status and case counts), the diagnosis in that language (known mistakes carry both),
and keeps the grader's own message as the detail beneath.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from api.verdict_i18n import render
from api.web.i18n import Lang, text

STATUSES = ("passed", "failed", "error", "timeout", "crashed", "rejected")


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


def verdict_view(public: dict[str, Any], lang: Lang) -> VerdictView:
    """From ``api.submissions.public(row)``, the JSON the API answers."""
    public = render(public, lang)  # message, checks and diagnosis in the page's language
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
        checks=list(public.get("checks") or []),
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
    )

"""``addnorm interview show``: a report's columns line up in Chinese as in English.

Python's ``:<9`` pads by characters; a CJK character takes two terminal columns, so the
Chinese kind and result words pushed the clock column right by as many columns as they had
characters. Padding by cells keeps one column per field.
"""

from __future__ import annotations

from typing import Any

import pytest
from rich.cells import cell_len

from addnorm_client.cli import interview
from addnorm_client.cli.commands import out


def _report(lang: str) -> dict[str, Any]:
    items = [
        {"position": 1, "kind": "question", "result": "right"},
        {"position": 3, "kind": "exercise", "result": "passed"},
        {"position": 9, "kind": "explain", "result": "not_answered"},
    ]
    return {
        "lang": lang,
        "recommendation_name": "Lean hire",
        "score": {"right": 2, "total": 3},
        "reasons": [],
        "rubric": [{"name": "Correctness", "score": 3, "max_score": 4, "evidence": []}],
        "items": [
            {**it, "time_spent_seconds": 61, "budget_seconds": 600, "max_attempts": None}
            for it in items
        ],
        "review": [{"id": "np-1"}],
        "trend": [],
    }


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_report_columns_line_up(lang: str) -> None:
    with out.capture() as captured:
        interview._print_report(_report(lang))
    lines = [ln for ln in captured.get().splitlines() if "/10:00" in ln]
    assert len(lines) == 3
    # The clock ("1:01/10:00") starts at the same terminal column on every item line.
    starts = {cell_len(ln[: ln.index("1:01/")]) for ln in lines}
    assert len(starts) == 1, lines


def test_chinese_report_uses_full_width_colons() -> None:
    with out.capture() as captured:
        interview._print_report(_report("zh"))
    text = captured.get()
    assert "：" in text
    assert ": " not in text, text

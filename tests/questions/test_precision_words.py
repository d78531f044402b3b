"""Binary precision in the right words. 有效数字 reads as *decimal* significant digits (bfloat16 has
two or three of those), so "bfloat16 只保留 8 位有效数字" told a Chinese reader something false: a
count of bits is 有效二进制位. And float16 keeps 11 significant bits (10 stored, one implicit),
not 10. Checked over every text a learner reads: prompts, hints, model answers, follow-ups,
questions, the specs' mistake explanations."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support import REPO

EXERCISES = REPO / "exercises"

# A digit count before 有效数字 ("8 位有效数字", "24位有效数字"): always a bit count in this
# material. Written-out counts ("四位有效数字") ask for a decimal rounding of an answer: allowed.
_ZH_DECIMAL_FOR_BITS = re.compile(r"\d+\s*位有效数字")
# float16 credited with 10 significant bits (its mantissa stores 10; with the implicit bit, 11).
_F16_TEN_SIGNIFICANT = re.compile(
    r"(float16|fp16|half)[^.。\n]{0,40}?\b10\s*(significant bits|位有效|个有效二进制位)",
    re.IGNORECASE,
)


def _texts() -> list[Path]:
    kinds = ("*.md", "*.yaml", "spec.py", "starter*.py")
    return sorted(p for kind in kinds for p in EXERCISES.rglob(kind) if "variants" not in p.parts)


def offences(text: str) -> list[str]:
    found = [m.group(0) for m in _ZH_DECIMAL_FOR_BITS.finditer(text)]
    return found + [m.group(0) for m in _F16_TEN_SIGNIFICANT.finditer(text)]


def test_the_lint_sees_both_slips() -> None:
    assert offences("bfloat16 只保留 8 位有效数字。") == ["8 位有效数字"]
    assert offences("Run it in float16 (10 significant bits, max 65504)") != []
    assert offences("float16 有 11 个有效二进制位；请给出四位有效数字。") == []
    assert offences("float16 stores 10 mantissa bits (11 significant bits)") == []


@pytest.mark.parametrize("path", _texts(), ids=lambda p: str(p.relative_to(EXERCISES)))
def test_binary_precision_in_the_right_words(path: Path) -> None:
    assert offences(path.read_text(encoding="utf-8")) == []

"""Turning what a learner types at the quiz prompt into the answer the API takes.

Pure functions: the prompt loop lives in the commands, the grading on the server.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

TRUE_WORDS = {"t", "true", "y", "yes", "1", "对", "正确", "是"}
FALSE_WORDS = {"f", "false", "n", "no", "0", "错", "错误", "否"}


class NotAnAnswer(ValueError):
    """The text does not fit the question; ``str()`` says what would."""


def _indices(text: str, count: int) -> list[int]:
    parts = [p for p in re.split(r"[\s,，]+", text.strip()) if p]
    if not parts:
        raise NotAnAnswer("type one or more choice numbers")
    try:
        values = [int(p) for p in parts]
    except ValueError:
        raise NotAnAnswer(f"choice numbers are 0..{count - 1}") from None
    if any(not 0 <= v < count for v in values):
        raise NotAnAnswer(f"choice numbers are 0..{count - 1}")
    return values


def parse_answer(question: Mapping[str, Any], text: str) -> Any:
    """The JSON answer for ``text``: an index, a list of indices, a bool or a number."""
    kind = question.get("type")
    text = text.strip()
    count = len(question.get("choices") or [])
    if kind in ("single_choice", "code_reading"):
        values = _indices(text, count)
        if len(values) != 1:
            raise NotAnAnswer("this question takes exactly one choice")
        return values[0]
    if kind == "multiple_select":
        values = _indices(text, count)
        if len(set(values)) != len(values):
            raise NotAnAnswer("name each choice once")
        return sorted(values)
    if kind == "true_false":
        word = text.lower()
        if word in TRUE_WORDS:
            return True
        if word in FALSE_WORDS:
            return False
        raise NotAnAnswer("answer true or false (t/f)")
    if kind == "numeric":
        try:
            number = float(text)
        except ValueError:
            raise NotAnAnswer("answer with a number, e.g. 0.5 or 1e-5") from None
        if not math.isfinite(number):
            raise NotAnAnswer("answer with a finite number")
        return number
    raise NotAnAnswer(f"this CLI cannot answer questions of type {kind!r}; use the notebook")

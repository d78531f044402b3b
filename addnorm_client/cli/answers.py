"""Turning what a learner types at the quiz prompt into the answer the API takes.

Pure functions: the prompt loop lives in the commands, the grading on the server. What does not
fit is said in the learner's language (``lang``: en or zh).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

TRUE_WORDS = {"t", "true", "y", "yes", "1", "对", "正确", "是"}
FALSE_WORDS = {"f", "false", "n", "no", "0", "错", "错误", "否"}
# Between choice numbers: spaces, commas (ASCII or full-width) and the enumeration comma "、"
# a Chinese keyboard types for a list.
SEPARATORS = re.compile(r"[\s,，、]+")

_ZH = {
    "type one choice number": "请输入一个选项编号",
    "type one or more choice numbers": "请输入一个或多个选项编号",
    "choice numbers are 0..{last}": "选项编号是 0..{last}",
    "this question takes exactly one choice": "这道题只能选一个选项",
    "name each choice once": "每个选项只能写一次",
    "answer true or false (t/f)": "请回答 对 或 错（t/f）",
    "answer with a number, e.g. 0.5 or 1e-5": "请回答一个数，例如 0.5 或 1e-5",
    "answer with a finite number": "请回答一个有限的数",
    "this CLI cannot answer questions of type {kind!r}; use the notebook": (
        "命令行不能回答 {kind!r} 类型的题目；请用 notebook"
    ),
}


class NotAnAnswer(ValueError):
    """The text does not fit the question; ``str()`` says what would."""


def _say(lang: str, text: str, **values: Any) -> str:
    return (_ZH.get(text, text) if lang == "zh" else text).format(**values)


def _indices(text: str, count: int, *, one: bool, lang: str) -> list[int]:
    parts = [p for p in SEPARATORS.split(text.strip()) if p]
    if not parts:
        wanted = "type one choice number" if one else "type one or more choice numbers"
        raise NotAnAnswer(_say(lang, wanted))
    try:
        values = [int(p) for p in parts]
    except ValueError:
        raise NotAnAnswer(_say(lang, "choice numbers are 0..{last}", last=count - 1)) from None
    if any(not 0 <= v < count for v in values):
        raise NotAnAnswer(_say(lang, "choice numbers are 0..{last}", last=count - 1))
    return values


def parse_answer(question: Mapping[str, Any], text: str, lang: str = "en") -> Any:
    """The JSON answer for ``text``: an index, a list of indices, a bool or a number."""
    kind = question.get("type")
    text = text.strip()
    count = len(question.get("choices") or [])
    if kind in ("single_choice", "code_reading"):
        values = _indices(text, count, one=True, lang=lang)
        if len(values) != 1:
            raise NotAnAnswer(_say(lang, "this question takes exactly one choice"))
        return values[0]
    if kind == "multiple_select":
        values = _indices(text, count, one=False, lang=lang)
        if len(set(values)) != len(values):
            raise NotAnAnswer(_say(lang, "name each choice once"))
        return sorted(values)
    if kind == "true_false":
        word = text.lower()
        if word in TRUE_WORDS:
            return True
        if word in FALSE_WORDS:
            return False
        raise NotAnAnswer(_say(lang, "answer true or false (t/f)"))
    if kind == "numeric":
        try:
            number = float(text)
        except ValueError:
            raise NotAnAnswer(_say(lang, "answer with a number, e.g. 0.5 or 1e-5")) from None
        if not math.isfinite(number):
            raise NotAnAnswer(_say(lang, "answer with a finite number"))
        return number
    raise NotAnAnswer(
        _say(lang, "this CLI cannot answer questions of type {kind!r}; use the notebook", kind=kind)
    )

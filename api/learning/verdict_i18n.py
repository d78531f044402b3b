"""A stored verdict in the reader's language: the public view of a submission, every text in
English or in Chinese.

A verdict is stored with both languages (each phrase written in both where the grader makes it:
``api.grading.phrase``), so a submission
made in English reads in Chinese and back. A verdict stored before that has only English: its
Chinese is derived here from the English texts and the structured fields, and whatever has no
known Chinese wording stays English. Nothing here may fail on an old or odd row: a field of the
wrong type is passed through as it is, never a 5xx.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from api import plaintext
from api.content.catalog import Lang
from api.grading import verdict_zh

# Per-check texts with a Chinese twin stored beside them as ``<field>_zh``.
_CHECK_TEXTS = ("description", "step_description", "message")
_CHECK_DERIVED = {
    "description": verdict_zh.description,
    "step_description": verdict_zh.step,
    "message": verdict_zh.check_message,
}


def _pick(item: Mapping[str, Any], field: str, lang: Lang) -> Any:
    """``item[field]`` in ``lang``: the stored Chinese, else derived, else the English."""
    en = item.get(field)
    if lang != "zh":
        return en
    zh = item.get(f"{field}_zh")
    if isinstance(zh, str) and zh:
        return zh
    if isinstance(en, str) and en and field in _CHECK_DERIVED:
        return _CHECK_DERIVED[field](en)
    return en


def _check(raw: Any, lang: Lang) -> Any:
    if not isinstance(raw, Mapping):
        return raw
    shown = {k: v for k, v in raw.items() if not (k.endswith("_zh") and k[:-3] in _CHECK_TEXTS)}
    for field in _CHECK_TEXTS:
        if field in raw:
            shown[field] = _pick(raw, field, lang)
    target = raw.get("target")
    said = shown.pop("target_zh", None)
    if isinstance(target, str):
        # What the check is about, in words; ``target`` stays the English key clients match on.
        # Written with the check since it has its Chinese; derived for one stored before.
        if lang == "zh":
            shown["target_text"] = (
                said if isinstance(said, str) and said else verdict_zh.target(target)
            )
        else:
            shown["target_text"] = target
    return shown


def _diagnosis(raw: Any, lang: Lang) -> Any:
    """Known mistakes carry both languages already: every text with a ``<field>_zh`` twin
    (title, explanation, evidence, advice, and each scope entry's title and text) becomes the
    reader's; the ``_zh`` fields stay for clients that pick themselves."""
    if lang != "zh":
        return raw
    return _twins_in_zh(raw, depth=0)


def _twins_in_zh(raw: Any, depth: int) -> Any:
    if depth > 4:  # a diagnosis nests two levels; anything deeper passes as it is
        return raw
    if isinstance(raw, list):
        return [_twins_in_zh(item, depth + 1) for item in raw]
    if not isinstance(raw, Mapping):
        return raw
    shown = {k: _twins_in_zh(v, depth + 1) for k, v in raw.items()}
    for field, en in raw.items():
        zh = raw.get(f"{field}_zh")
        if isinstance(en, str) and isinstance(zh, str) and zh:
            shown[field] = zh
    return shown


def _finding(raw: Any, lang: Lang) -> Any:
    """A structured finding (``text`` and ``text_zh``): its ``text`` in the reader's language."""
    if not isinstance(raw, Mapping) or lang != "zh":
        return raw
    zh = raw.get("text_zh")
    return {**raw, "text": zh} if isinstance(zh, str) and zh else dict(raw)


def render(view: Mapping[str, Any], lang: Lang) -> dict[str, Any]:
    """``api.learning.submissions.public(row)`` (or its withheld form) with every text in
    ``lang``."""
    shown = {k: v for k, v in view.items() if k != "message_zh"}
    shown["lang"] = lang
    if lang == "zh":
        stored = view.get("message_zh")
        if isinstance(stored, str) and stored:
            shown["message"] = stored
        else:
            shown["message"] = verdict_zh.message(view) or view.get("message", "")
        shown["message"] = plaintext.capped(str(shown["message"]), plaintext.MAX_MESSAGE)
    checks = view.get("checks")
    if isinstance(checks, list):
        shown["checks"] = [_check(c, lang) for c in checks]
    if "diagnosis" in view:
        shown["diagnosis"] = _diagnosis(view["diagnosis"], lang)
    findings = view.get("findings")
    if isinstance(findings, list):
        shown["findings"] = [_finding(f, lang) for f in findings]
    if "chart" in view and lang == "zh":
        # A lab's figure carries both languages (title, axes, each series' label).
        shown["chart"] = _twins_in_zh(view["chart"], depth=0)
    return shown

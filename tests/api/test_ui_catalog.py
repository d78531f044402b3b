"""The interface's message catalog (``api/web/locale/zh/LC_MESSAGES/messages.po``), read by
Babel as gettext: every entry translated, with the placeholders of its English, in Chinese
typography, passing Babel's own checks; every key a template asks for is in it."""

from __future__ import annotations

import re
from pathlib import Path

from api.web import i18n
from tests.support import REPO

CJK = "\u4e00-\u9fff"
_FIELD = re.compile(r"\{(\w*)[^{}]*\}")


def test_every_entry_is_translated_with_the_same_placeholders() -> None:
    catalog = i18n.read_catalog()
    entries = [m for m in catalog if m.id]
    assert len(entries) == len(i18n.UI) + len(i18n.TOPIC_NAMES) > 300
    assert len({m.context for m in entries}) == len(entries), "a key twice"
    problems = []
    for m in entries:
        if not m.context or not m.string or m.fuzzy:
            problems.append(f"{m.context}: untranslated or fuzzy")
        elif sorted(_FIELD.findall(str(m.id))) != sorted(_FIELD.findall(str(m.string))):
            problems.append(f"{m.context}: placeholders {m.id!r} vs {m.string!r}")
    assert problems == []
    assert [e for m, errors in catalog.check() for e in errors] == []


def test_chinese_typography() -> None:
    """Full-width punctuation after a Chinese word, no space between two Chinese characters."""
    slips = re.compile(rf"[{CJK}][,:;!?](?:\s|$)|[{CJK}] +[{CJK}]|[，。；：] ")
    assert [bool(slips.search(t)) for t in ("结果: 未通过", "结果 未通过", "结果：未通过")] == [
        True,
        True,
        False,
    ]
    found = [f"{k}: {zh!r}" for k, (_, zh) in i18n.UI.items() if slips.search(zh)]
    assert found == []


def test_every_key_a_template_asks_for_is_in_the_catalog() -> None:
    asked = set()
    for template in (REPO / "api" / "web" / "templates").glob("*.html"):
        asked |= set(re.findall(r"\bt\('(\w+)'\)", template.read_text()))
    assert len(asked) > 100
    assert sorted(asked - set(i18n.UI)) == []


def test_lookups_go_through_the_catalog(tmp_path: Path) -> None:
    """A changed msgstr is what the page says: the catalog is the source, not a copy."""
    path = i18n.CATALOG
    text = path.read_text(encoding="utf-8")
    assert 'msgctxt "verdict"\nmsgid "Verdict"\nmsgstr "评测结果"' in text
    edited = tmp_path / "messages.po"
    edited.write_text(text.replace('msgstr "评测结果"', 'msgstr "结果"'), encoding="utf-8")
    changed = i18n._translations(i18n.read_catalog(edited))
    assert changed.pgettext("verdict", "Verdict") == "结果"
    assert i18n.text("verdict", "zh") == "评测结果" and i18n.text("verdict", "en") == "Verdict"

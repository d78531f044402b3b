"""The pages' own words in English and Chinese. Content (prompts, questions, diagnoses) carries
its own translations; this is only the interface around it.

The words live in a gettext message catalog, ``locale/zh/LC_MESSAGES/messages.po``: each entry's
``msgctxt`` is the key a template asks for (``t('verdict')``), its ``msgid`` the English and its
``msgstr`` the Chinese. Babel reads the catalog and compiles it in memory, and lookups go
through gettext (``pgettext``), so a translator edits the ``.po`` with any gettext tool. A new
interface string is a new entry there; ``tests/api/test_ui_catalog.py`` holds every entry to a
translation with the same placeholders.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Literal

from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.support import Translations

Lang = Literal["en", "zh"]

CATALOG = Path(__file__).resolve().parent / "locale" / "zh" / "LC_MESSAGES" / "messages.po"
_TOPIC = "topic:"  # the context prefix of a topic's name


def read_catalog(path: Path = CATALOG) -> Catalog:
    with path.open("rb") as f:
        return read_po(f, locale="zh_Hans_CN")


def _translations(catalog: Catalog) -> Translations:
    mo = io.BytesIO()
    write_mo(mo, catalog)
    mo.seek(0)
    return Translations(mo)


_catalog = read_catalog()
_zh = _translations(_catalog)
# The English of each key (the catalog's msgid), in the catalog's order.
# (No entry has plural forms, so each msgid is one string.)
_ENGLISH: dict[str, str] = {
    m.context: m.id for m in _catalog if isinstance(m.id, str) and m.id and m.context
}


def _pair(key: str) -> tuple[str, str]:
    en = _ENGLISH[key]
    return en, str(_zh.pgettext(key, en))


# Every key with its two languages, for code and tests that list the interface's words.
UI: dict[str, tuple[str, str]] = {k: _pair(k) for k in _ENGLISH if not k.startswith(_TOPIC)}
TOPIC_NAMES: dict[str, tuple[str, str]] = {
    k.removeprefix(_TOPIC): _pair(k) for k in _ENGLISH if k.startswith(_TOPIC)
}


def text(key: str, lang: Lang) -> str:
    en, zh = UI[key]
    return zh if lang == "zh" else en


def topic_name(topic: str, lang: Lang) -> str:
    en, zh = TOPIC_NAMES.get(topic, (topic, topic))
    return zh if lang == "zh" else en


def lang_from(cookie: str | None, accept_language: str | None) -> Lang:
    """The learner's choice, else the browser's first preference, else English."""
    if cookie in ("en", "zh"):
        return "zh" if cookie == "zh" else "en"
    first = (accept_language or "").split(",")[0].strip().lower()
    return "zh" if first.startswith("zh") else "en"

"""Text and JSON trees from outside, made safe to store and to send: valid Unicode, capped.

A learner's code, what their code printed and what the grader says about it all reach SQLite and
JSON responses. A lone surrogate (``"\\ud800"``, legal in a JSON string, not encodable as UTF-8)
broke SQLite writes and every later listing of the learner's submissions; a forged answer made
an 8 MB verdict that was stored and listed again and again. Everything passes through here.
"""

from __future__ import annotations

import math
import re
from typing import Any

from api import jsonbody

# Per string in a stored verdict (stdout and stderr are capped at 8 KiB by the child already).
MAX_TEXT = 10_000
MAX_MESSAGE = 4_000
# Items per list or object, and nesting, in a stored verdict.
MAX_ITEMS = 200
MAX_DEPTH = 8
# A whole stored verdict, as JSON: far above a real one (a few KiB to tens of KiB).
MAX_RESULT_BYTES = 256 << 10
TRUNCATED = "[... truncated]"


_SURROGATE = re.compile("[\ud800-\udfff]")


def capped(text: object, limit: int = MAX_TEXT) -> str:
    """``text`` as valid Unicode, at most ``limit`` characters (plus a marker when cut)."""
    s = text if isinstance(text, str) else str(text)
    if len(s) > limit:
        s = s[:limit] + TRUNCATED
    return sanitised(s)


def sanitised(text: str) -> str:
    """Lone surrogates replaced by U+FFFD; text that is already valid comes back as it is."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return _SURROGATE.sub("\ufffd", text)
    return text


def bounded(value: Any, *, text: int = MAX_TEXT, items: int = MAX_ITEMS, depth: int = 0) -> Any:
    """A copy of a JSON tree with every string sanitised and capped, lists and objects cut to
    ``items``, nesting cut at ``MAX_DEPTH``, integers beyond 64 bits and non-finite floats
    (which a JSON response refuses) replaced by None."""
    return _bound(value, text, items, depth)


_INT_LOW, _INT_HIGH = -(1 << 63), 1 << 63


def _bound(value: Any, text: int, items: int, depth: int) -> Any:
    # A verdict is a tree of about a thousand nodes, bounded on every submission: exact types
    # first (one comparison each), the general isinstance chain for anything else (subclasses).
    kind = type(value)
    if kind is str:
        # Most strings of a verdict are short ASCII: nothing to replace or cut.
        return value if len(value) <= text and value.isascii() else capped(value, text)
    if kind is float:
        return value if math.isfinite(value) else None
    if kind is int:
        return value if _INT_LOW <= value < _INT_HIGH else None
    if kind is dict:
        if depth >= MAX_DEPTH:
            return None
        out = {}
        for i, (k, v) in enumerate(value.items()):
            if i >= items:
                break
            key = k if type(k) is str and len(k) <= 200 and k.isascii() else capped(k, 200)
            out[key] = _bound(v, text, items, depth + 1)
        return out
    if kind is list:
        if depth >= MAX_DEPTH:
            return None
        return [_bound(v, text, items, depth + 1) for v in value[:items]]
    return _bound_other(value, text, items, depth)


def _bound_other(value: Any, text: int, items: int, depth: int) -> Any:
    """Anything but the exact JSON types: None and bools as they are, subclasses (an IntEnum, a
    str or dict subclass, a tuple) as their base type, any other object as its text."""
    if value is None or isinstance(value, bool):
        return value
    base: type[Any]
    for base in (str, int, float, dict):
        if isinstance(value, base):
            return _bound(base(value), text, items, depth)
    if isinstance(value, list | tuple):
        return _bound(list(value[:items]), text, items, depth)
    return capped(value, text)


def bounded_result(result: Any) -> dict[str, Any]:
    """A verdict's stored details, within ``MAX_RESULT_BYTES`` whatever the child forged: cut
    harder until it fits, and say so."""
    if not isinstance(result, dict):
        return {}
    tree: dict[str, Any] = bounded(result)
    for text, items in ((2_000, 50), (500, 10)):
        if len(jsonbody.dumps(tree)) <= MAX_RESULT_BYTES:
            return tree
        tree = bounded(result, text=text, items=items)
    if len(jsonbody.dumps(tree)) <= MAX_RESULT_BYTES:
        return tree
    return {"truncated": "the details of this verdict were too large to keep"}

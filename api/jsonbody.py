"""JSON for what the service stores and answers: orjson, one encoder for both.

A verdict is a tree of tens of KiB (a check per case and target, each in two languages) that is
encoded up to three times per submission: to measure it against its bound, into its database
column, and into the response. The standard library's encoder was about a tenth of the
service's Python time under load (sampled); orjson does the same work in a fraction of that.
It also writes UTF-8 rather than ``\\uXXXX`` escapes, so the Chinese half of a stored verdict
is half the size.

Where it differs from ``json.dumps``: a non-finite float becomes ``null`` (JSON has no NaN; the
standard encoder writes an invalid ``NaN`` into a column and refuses it in a response with a
500), and integers beyond 64 bits are refused (``plaintext.bounded`` replaces them first).
"""

from __future__ import annotations

from typing import Any

import orjson
from fastapi.responses import JSONResponse

# Keys that are not strings (an int key from a Python dict) are written as strings, as
# ``json.dumps`` does; without the option orjson refuses them.
_OPTIONS = orjson.OPT_NON_STR_KEYS


def dumps(value: Any) -> bytes:
    return orjson.dumps(value, option=_OPTIONS)


def dumps_text(value: Any) -> str:
    """For SQLAlchemy's JSON columns, whose serializer must return text."""
    return orjson.dumps(value, option=_OPTIONS).decode()


def loads(data: str | bytes | int | float) -> Any:
    """A JSON column's value. SQLite gives a column declared JSON numeric affinity: a document
    that is a bare number (an answer of -6.416) is stored and read back as a number."""
    if isinstance(data, int | float):
        return data
    return orjson.loads(data)


class Body(JSONResponse):
    """A JSON response encoded by orjson: the app's default, and the verdict routes' own."""

    def render(self, content: Any) -> bytes:
        return dumps(content)

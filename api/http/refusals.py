"""The 422 a malformed request gets, made safe to send whatever the request held.

FastAPI's own handler echoes each offending value back (``"input"``) and serialises it with
strict JSON, so a body like ``{"name": NaN}`` (which Python's JSON parser accepts) made the
refusal itself fail: a 500. It also echoed values of any size. Here every echoed value is
reduced to JSON that always serialises: non-finite floats become the strings ``"NaN"`` /
``"Infinity"``, long text is cut, and deep or wide containers are summarised.
"""

from __future__ import annotations

import math
from typing import Any

from fastapi import Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse

# What a refusal repeats of the request: enough to recognise the value, never the whole body.
ECHO_CHARS = 200
ECHO_ITEMS = 20
ECHO_DEPTH = 4


def _echo(value: Any, depth: int = 0) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value).replace("inf", "Infinity").replace("nan", "NaN")
    if isinstance(value, bool | int | float) or value is None:
        return value
    if isinstance(value, str):
        return value if len(value) <= ECHO_CHARS else value[:ECHO_CHARS] + "…"
    if depth >= ECHO_DEPTH:
        return "…"
    if isinstance(value, dict):
        items = list(value.items())[:ECHO_ITEMS]
        return {str(k)[:ECHO_CHARS]: _echo(v, depth + 1) for k, v in items}
    if isinstance(value, list | tuple):
        return [_echo(v, depth + 1) for v in list(value)[:ECHO_ITEMS]]
    return _echo(str(value), depth)


async def invalid_request(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    errors = [_echo(jsonable_encoder(error)) for error in exc.errors()]
    return JSONResponse({"detail": errors}, status_code=422)

"""The published schema (``/openapi.json``) says everything a route can answer, not only its
success: a client generated from it, or a tool that holds the service to it, meets no status
and no body the schema does not describe.

FastAPI documents each route's success and its request validation (422 with a list of
problems). The service also refuses in words: 401 without a valid token, 404, 409, 413, 429
with ``Retry-After``, 503 when the grader is busy, and 422s of its own (a quiz answer of the
wrong shape), each as ``{"detail": "..."}``. So every operation gets a ``default`` response of
that shape, and its 422 admits either form.

FastAPI passes the schema through its OpenAPI model, whose bounds are floats: ``le=10`` on an
integer field came out as ``10.0``, and a large one rounded (a client that compared in floats then
sent values the service refused). Integer fields get their bounds back as integers; a bound above
2**53, which a float may already have rounded, stops the schema from being built at all.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI

REFUSAL = "Refusal"
_REFUSAL_SCHEMA: dict[str, Any] = {
    "title": REFUSAL,
    "type": "object",
    "description": "Why the request was refused, in one sentence (some refusals add fields,"
    " such as the submission's ``id`` when the grader is busy).",
    "properties": {"detail": {"type": "string", "title": "Detail"}},
    "required": ["detail"],
}
_REF = {"$ref": f"#/components/schemas/{REFUSAL}"}
_DEFAULT = {
    "description": "A refusal: its status says which (401, 403, 404, 409, 413, 429 with"
    " Retry-After, 503), its detail says why",
    "content": {"application/json": {"schema": _REF}},
}


def with_refusals(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` (FastAPI's) with the refusals every operation can answer, in place."""
    schema.setdefault("components", {}).setdefault("schemas", {})[REFUSAL] = _REFUSAL_SCHEMA
    for item in schema.get("paths", {}).values():
        for operation in item.values():
            if not isinstance(operation, dict) or "responses" not in operation:
                continue
            responses = operation["responses"]
            responses.setdefault("default", _DEFAULT)
            invalid = responses.get("422", {}).get("content", {}).get("application/json")
            if invalid is not None and "schema" in invalid:
                invalid["schema"] = {"anyOf": [invalid["schema"], _REF]}
    return schema


_BOUNDS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")
# The largest integer every float (and every JavaScript client) holds exactly.
EXACT_IN_A_FLOAT = 2**53


def integer_bounds(node: Any) -> None:
    """Every integer schema under ``node`` with its bounds as integers, in place."""
    if isinstance(node, list):
        for item in node:
            integer_bounds(item)
        return
    if not isinstance(node, dict):
        return
    if node.get("type") == "integer":
        for key in _BOUNDS:
            bound = node.get(key)
            if not isinstance(bound, float):
                continue
            if not bound.is_integer() or abs(bound) > EXACT_IN_A_FLOAT:
                raise ValueError(f"integer bound {key}={bound!r} cannot be published exactly")
            node[key] = int(bound)
    for value in node.values():
        integer_bounds(value)


def install(app: FastAPI) -> None:
    """``app.openapi()`` as FastAPI builds it (once), with the refusals."""
    build = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            schema = with_refusals(build())
            integer_bounds(schema)
            app.openapi_schema = schema
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]

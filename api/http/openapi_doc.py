"""The published schema (``/openapi.json``) says everything a route can answer, not only its
success: a client generated from it, or a tool that holds the service to it, meets no status
and no body the schema does not describe.

FastAPI documents each route's success and its request validation (422 with a list of
problems). The service also refuses in words: 401 without a valid token, 404, 409, 413, 429
with ``Retry-After``, 503 when the grader is busy, and 422s of its own (a quiz answer of the
wrong shape), each as ``{"detail": "..."}``. So every operation gets a ``default`` response of
that shape, and its 422 admits either form.
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


def install(app: FastAPI) -> None:
    """``app.openapi()`` as FastAPI builds it (once), with the refusals."""
    build = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = with_refusals(build())
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]

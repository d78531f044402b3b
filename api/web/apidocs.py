"""The API reference at ``/docs``: rendered on the server from the app's own OpenAPI schema.

FastAPI's built-in pages load Swagger UI and ReDoc from a CDN, script from another origin
running beside the learner's session; this page is HTML and the site's stylesheet, under the
same policy as every page, and works offline. ``/redoc`` leads here. ``/openapi.json`` stays
for tools that want the schema itself. ADDNORM_API_DOCS=false turns the pages off.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response

from api.http.deps import AppDep
from api.web.render import render
from api.web.session import PageNotFound, WebDep

router = APIRouter(include_in_schema=False)

_METHODS = ("get", "post", "put", "patch", "delete")


def _type(schema: dict[str, Any]) -> str:
    """A schema in a few words: ``integer``, ``array of Foo``, ``string | null``."""
    if "$ref" in schema:
        return str(schema["$ref"]).rsplit("/", 1)[-1]
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return " | ".join(_type(s) for s in schema[key])
    kind = schema.get("type")
    if kind == "array":
        return f"array of {_type(schema.get('items', {}))}"
    if "enum" in schema:
        return " | ".join(repr(v) for v in schema["enum"])
    return str(kind or "any")


def operations(schema: dict[str, Any]) -> list[dict[str, Any]]:
    found = []
    for path, item in schema.get("paths", {}).items():
        for method in _METHODS:
            op = item.get(method)
            if op is None:
                continue
            body = op.get("requestBody", {}).get("content", {}).get("application/json", {})
            found.append(
                {
                    "id": f"{method}-{path}".replace("/", "-").replace("{", "").replace("}", ""),
                    "method": method.upper(),
                    "path": path,
                    "tag": (op.get("tags") or ["other"])[0],
                    "summary": op.get("summary", ""),
                    "description": op.get("description", ""),
                    "parameters": [
                        {
                            "name": p.get("name", ""),
                            "in": p.get("in", ""),
                            "required": bool(p.get("required")),
                            "type": _type(p.get("schema", {})),
                        }
                        for p in op.get("parameters", [])
                    ],
                    "body": _type(body["schema"]) if "schema" in body else None,
                    "responses": [
                        (code, r.get("description", ""))
                        for code, r in op.get("responses", {}).items()
                    ],
                }
            )
    return found


def models(schema: dict[str, Any]) -> list[dict[str, Any]]:
    found = []
    for name, model in sorted(schema.get("components", {}).get("schemas", {}).items()):
        required = set(model.get("required", []))
        found.append(
            {
                "name": name,
                "fields": [
                    (field, _type(spec), field in required)
                    for field, spec in model.get("properties", {}).items()
                ],
            }
        )
    return found


@router.get("/docs")
def read_api_docs(request: Request, web: WebDep, ctx: AppDep) -> Response:
    if not ctx.settings.api_docs:
        raise PageNotFound()
    schema = request.app.openapi()
    return render(
        request,
        web,
        "apidocs.html",
        info=schema.get("info", {}),
        operations=operations(schema),
        models=models(schema),
    )


@router.get("/redoc")
def read_redoc(ctx: AppDep) -> Response:
    if not ctx.settings.api_docs:
        raise PageNotFound()
    return RedirectResponse("/docs", status_code=308)

"""Where the rate limits meet HTTP: the client's key for every request, the per-address request
limit, and the 429 every ``Limited`` becomes (JSON for the API, a page in the reader's language
for the browser), always with ``Retry-After``."""

from __future__ import annotations

from html import escape

from fastapi import Request
from fastapi.responses import HTMLResponse, JSONResponse, Response
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from api.clients import client_address
from api.clients import client_key as key_of
from api.http.ratelimits import Limited

_STATE_KEY = "addnorm_client"

_BOTH_LANGUAGES = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>429 Too many requests</title>
<link rel="stylesheet" href="/static/style.css"></head>
<body><main><h1>Too many requests</h1><p>{en}. Please wait a little and try again.</p>
<h1 lang="zh-CN">请求过多</h1><p lang="zh-CN">{zh}。请稍等片刻再试。</p></main></body></html>
"""


def _scope_key(scope: Scope) -> str:
    state = scope.setdefault("state", {})
    key = state.get(_STATE_KEY)
    if key is None:
        ctx = scope["app"].state.ctx
        peer = scope.get("client")
        headers = Headers(scope=scope)
        address = client_address(
            peer[0] if peer else None, headers.getlist("x-forwarded-for"), ctx.settings.proxies
        )
        key = state[_STATE_KEY] = key_of(address)
    return str(key)


def client_key(request: Request) -> str:
    """The key this request's client is counted under (api.clients)."""
    return _scope_key(request.scope)


def _wants_page(path: str) -> bool:
    return path == "/" or path.startswith("/app")


def refusal(request: Request, exc: Limited) -> Response:
    headers = {"Retry-After": str(exc.retry_after)}
    if _wants_page(request.url.path):
        from api.web.render import render
        from api.web.session import page_session

        web = page_session(request)
        reason = exc.reason_zh if web.lang == "zh" else exc.reason
        page = render(request, web, "error.html", status=429, kind="limited", reason=reason)
        page.headers.update(headers)
        return page
    return JSONResponse(
        {"detail": f"Too many {exc.subject}: {exc.reason}", "retry_after": exc.retry_after},
        status_code=429,
        headers=headers,
    )


async def limited(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, Limited)
    return refusal(request, exc)


class AddressLimit:
    """Every HTTP request counts against its client address (ADDNORM_REQUESTS_PER_MINUTE).
    Plain ASGI, like api.http.httpguard.BodyGuard. Counted in memory or Redis: a microsecond or a
    round trip, no database."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        ctx = scope["app"].state.ctx
        try:
            ctx.client_limits.hit("requests", _scope_key(scope))
        except Limited as exc:
            # Both languages: no page session is read for a client already over its limit.
            headers = {"Retry-After": str(exc.retry_after)}
            if _wants_page(scope["path"]):
                page = HTMLResponse(
                    _BOTH_LANGUAGES.format(en=escape(exc.reason), zh=escape(exc.reason_zh)),
                    status_code=429,
                    headers=headers,
                )
                await page(scope, receive, send)
                return
            body = {
                "detail": f"Too many requests: {exc.reason}",
                "detail_zh": f"请求过多：{exc.reason_zh}",
                "retry_after": exc.retry_after,
            }
            answer = JSONResponse(body, status_code=429, headers=headers)
            await answer(scope, receive, send)
            return
        await self.app(scope, receive, send)

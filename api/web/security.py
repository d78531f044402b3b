"""Browser-facing security: the Content Security Policy and other headers, cookies, CSRF.

A signed-in browser holds a session id in an ``HttpOnly`` cookie, naming a server-side session
(api.learning.sessions) that signing out ends; never the API token. A browser that has not
signed in holds a random visitor nonce. The CSRF token of every form is an HMAC of the session's
own secret (or of the visitor nonce): a page on another origin can neither read the cookie nor
compute the token, and ``SameSite`` stops the cookie travelling with its requests in the first
place.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

SESSION_COOKIE = "addnorm_session"
VISITOR_COOKIE = "addnorm_visitor"
LANG_COOKIE = "addnorm_lang"

# A year: the visitor nonce and the language choice are not secrets worth expiring sooner; the
# session cookie ends with the browser session unless the learner asks to stay signed in.
LONG_LIVED = 365 * 24 * 3600


def content_security_policy(style_nonce: str | None = None) -> str:
    """No inline script at all, no other origin: everything the pages need is served by this app.

    Styles: the app's stylesheets, plus, on a page, the one <style> element CodeMirror writes its
    generated rules into, admitted by a per-response nonce (``EditorView.cspNonce``). Inline
    style *attributes* stay forbidden; scripts setting ``element.style`` (CodeMirror, KaTeX) are
    not governed by CSP; the SVG charts use presentation attributes and classes."""
    style = "style-src 'self'" + (f" 'nonce-{style_nonce}'" if style_nonce else "")
    return "; ".join(
        [
            "default-src 'none'",
            "script-src 'self'",
            style,
            "img-src 'self' data:",
            "font-src 'self'",
            "connect-src 'self'",
            "form-action 'self'",
            "base-uri 'none'",
            "frame-ancestors 'none'",
        ]
    )


CONTENT_SECURITY_POLICY = content_security_policy()

# Every response, pages and JSON alike (the API reference too: api.web.apidocs, no script).
SECURITY_HEADERS: list[tuple[bytes, bytes]] = [
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
    (b"x-frame-options", b"DENY"),
    (b"cross-origin-opener-policy", b"same-origin"),
]


class SecurityHeaders:
    """Adds the policy headers to every HTTP response. Plain ASGI, like main.BodySizeLimit."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in SECURITY_HEADERS:
                    if name.decode() not in headers:
                        headers.append(name.decode(), value.decode())
            await send(message)

        await self.app(scope, receive, send_with_headers)


def new_nonce(size: int = 32) -> str:
    return secrets.token_urlsafe(size)


def csrf_token(secret: str) -> str:
    """The token every form of a browser carries, bound to its session (or visitor) cookie."""
    return hmac.new(secret.encode(), b"addnorm-form", hashlib.sha256).hexdigest()


def csrf_valid(secret: str, submitted: str) -> bool:
    # Compared as bytes: compare_digest refuses str with non-ASCII characters (a TypeError, so
    # a 500 for any form posted with such a token), and a lone surrogate cannot encode strictly.
    given = submitted.encode("utf-8", "surrogatepass")
    return bool(given) and hmac.compare_digest(csrf_token(secret).encode(), given)


def same_origin(origin: str | None, host: str | None, scheme: str) -> bool:
    """A POST's Origin header, when the browser sends one, must name this very server."""
    if origin is None:
        return True
    return host is not None and origin == f"{scheme}://{host}"


def safe_next(target: str | None, default: str) -> str:
    """Only a path on this site: no scheme, no host, no protocol-relative `//evil`."""
    if not target or not target.startswith("/") or target.startswith("//") or "\\" in target:
        return default
    return target

"""The browser UI: server-rendered pages over the same services as the JSON API.

``install(app)`` adds the pages, the static files (the committed editor bundle), the security
headers and the page error handlers to the app that ``api.main.create_app`` builds.

May import: ``api.http`` (the guards, the dependencies and the routes' service helpers the pages
share), ``api.queue``, ``api.learning``, ``api.content``, ``api.grading`` and the bottom
(``api.config``, ``api.models``, ``api.db``, ``api.jsonbody``, ``api.plaintext``,
``api.clients``). Nothing imports it but ``api.http``'s guards (an error page), ``api.main`` and
``api.cli``.
"""

from __future__ import annotations

from urllib.parse import quote

from fastapi import FastAPI, Request
from fastapi.responses import RedirectResponse, Response

from api.web import account, admin, apidocs, exercises, help, interviews, progress, quiz
from api.web.assets import STATIC, CompressedStatic
from api.web.render import render
from api.web.security import SecurityHeaders
from api.web.session import (
    FormRejected,
    OperatorOnly,
    PageNotFound,
    SignInRequired,
    page_session,
)


async def _sign_in_first(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, SignInRequired)
    return RedirectResponse(f"/app/signin?next={quote(exc.next_path)}", status_code=303)


def _not_found(request: Request, exc: Exception) -> Response:
    return render(request, page_session(request), "error.html", status=404, kind="not_found")


def _form_rejected(request: Request, exc: Exception) -> Response:
    return render(request, page_session(request), "error.html", status=403, kind="forbidden")


def _operator_only(request: Request, exc: Exception) -> Response:
    return render(request, page_session(request), "error.html", status=403, kind="operator_only")


def install(app: FastAPI) -> None:
    app.add_middleware(SecurityHeaders)
    app.mount("/static", CompressedStatic(directory=STATIC), name="static")
    for module in (account, apidocs, exercises, help, interviews, quiz, progress, admin):
        app.include_router(module.router)
    app.add_exception_handler(SignInRequired, _sign_in_first)
    app.add_exception_handler(PageNotFound, _not_found)
    app.add_exception_handler(FormRejected, _form_rejected)
    app.add_exception_handler(OperatorOnly, _operator_only)

"""The pause on practice, applied to every route of the app by default.

``practice_hold`` is an app-wide dependency (``FastAPI(dependencies=...)``), so a route added
tomorrow is held without anyone remembering to hold it. Only the routes in ``SAFE_DURING_INTERVIEW``
run while the learner's interview does: the interview's own routes, signing in and out, the
language switch, the learner's own record, health and the API docs. Nothing on that list shows a
verdict, a key, progress or a review. Everything else answers with a pointer to the interview:
409 with a ``detail`` naming it (JSON) or a bilingual page linking to it (``/app`` pages).
"""

from __future__ import annotations

from datetime import UTC, datetime

from fastapi import Request
from fastapi.responses import Response
from fastapi.routing import APIRoute
from sqlmodel import Session

from api.http.deps import SessionDep, token_user
from api.jsonbody import Body
from api.learning import sessions
from api.learning.practice_pause import PracticePaused, ensure_open
from api.web.security import SESSION_COOKIE

# (method, path template). Reviewed by hand: adding a route here is a claim that it gives
# nothing of a running interview away (tests/interviews/test_holds.py tries every other route).
SAFE_DURING_INTERVIEW: frozenset[tuple[str, str]] = frozenset(
    {
        ("GET", "/openapi.json"),
        ("GET", "/docs"),
        ("GET", "/redoc"),
        ("GET", "/health"),
        ("POST", "/users"),
        ("GET", "/users/me"),
        ("PATCH", "/users/me"),
        # A new API token (and the account page that makes one) shows no feedback of any kind.
        ("POST", "/users/me/token"),
        ("GET", "/app/account"),
        ("POST", "/app/account/token"),
        ("POST", "/interviews"),
        ("GET", "/interviews"),
        ("GET", "/interviews/{interview_id}"),
        ("POST", "/interviews/{interview_id}/finish"),
        ("POST", "/interviews/{interview_id}/self-rating"),
        ("POST", "/interviews/{interview_id}/items/{position}/open"),
        ("POST", "/interviews/{interview_id}/items/{position}/leave"),
        ("POST", "/interviews/{interview_id}/items/{position}/answers"),
        ("POST", "/interviews/{interview_id}/items/{position}/submissions"),
        ("GET", "/"),
        ("GET", "/app/signin"),
        ("POST", "/app/signup"),
        ("POST", "/app/signin"),
        ("POST", "/app/signout"),
        ("POST", "/app/lang"),
        ("GET", "/app/interviews"),
        ("POST", "/app/interviews"),
        ("GET", "/app/interviews/{interview_id}"),
        ("GET", "/app/interviews/{interview_id}/finish"),
        ("POST", "/app/interviews/{interview_id}/finish"),
        ("POST", "/app/interviews/{interview_id}/self-rating"),
        ("GET", "/app/interviews/{interview_id}/items/{position}"),
        ("POST", "/app/interviews/{interview_id}/items/{position}/answers"),
        ("POST", "/app/interviews/{interview_id}/items/{position}/submissions"),
    }
)


def is_safe(route: APIRoute | object, method: str) -> bool:
    path = getattr(route, "path", None)
    return (method.upper() if method.upper() != "HEAD" else "GET", path) in SAFE_DURING_INTERVIEW


def _learner_id(request: Request, session: Session) -> int | None:
    auth = request.headers.get("authorization", "")
    scheme, _, token = auth.partition(" ")
    if scheme.lower() == "bearer" and token.strip():
        user = token_user(request, session, token.strip())
    else:
        # A page: the cookie names a browser session (api.learning.sessions), never the token
        # itself.
        cookie = request.cookies.get(SESSION_COOKIE)
        found = sessions.find(
            session, cookie if cookie and len(cookie) <= 128 else None, now=datetime.now(UTC)
        )
        user = found[1] if found else None
    # A learner an operator disabled is no one here (the route then refuses them itself).
    return user.id if user is not None and user.disabled_at is None else None


def practice_hold(request: Request, session: SessionDep) -> None:
    """Refuse the request (PracticePaused) while its learner has an interview running, unless
    the route is on the allow-list. Anonymous requests pass: the route's own sign-in applies.

    It reads on the request's own session (FastAPI hands every dependency of one request the
    same ``SessionDep``), so the route's sign-in finds the learner it looked up
    (``deps.token_user``) instead of opening a session and asking again."""
    if is_safe(request.scope.get("route"), request.method):
        return
    user_id = _learner_id(request, session)
    if user_id is not None:
        ensure_open(session, user_id=user_id, now=datetime.now(UTC))


def _learner_lang(request: Request) -> str:
    from api.web.i18n import lang_from
    from api.web.security import LANG_COOKIE

    return lang_from(request.cookies.get(LANG_COOKIE), request.headers.get("accept-language"))


async def paused_answer(request: Request, exc: Exception) -> Response:
    """JSON: 409 naming the interview. Pages: the bilingual notice with a link to it."""
    assert isinstance(exc, PracticePaused)
    if request.url.path.startswith("/app"):
        from api.web.interviews import paused_page

        return paused_page(request, exc)
    zh = request.query_params.get("lang") == "zh" or (
        "lang" not in request.query_params and _learner_lang(request) == "zh"
    )
    return Body(
        {
            "detail": exc.detail_zh() if zh else str(exc),
            "interview_id": exc.interview_id,
            "interview_url": exc.url,
            "page_url": exc.page,
            "deadline": exc.deadline.isoformat(),
        },
        status_code=409,
    )

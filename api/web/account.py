"""Sign up, sign in (with the API token), sign out, the account page (token rotation), and the
language switch. Signing in begins a server-side session (api.learning.sessions); the cookie
names it and never holds the token."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated

from fastapi import APIRouter, Form, Request
from fastapi.responses import RedirectResponse, Response
from pydantic import ValidationError

from api.http.deps import AppDep, SessionDep
from api.http.limited import client_key
from api.http.users import add_learner
from api.learning import learners, registration, sessions
from api.models import User, UserCreate
from api.web.render import render, set_cookie
from api.web.security import LANG_COOKIE, LONG_LIVED, SESSION_COOKIE, safe_next
from api.web.session import (
    CheckedFormDep,
    LearnerDep,
    WebDep,
    WebSession,
    learner_for,
    user_for,
)

router = APIRouter(include_in_schema=False)

HOME = "/app/exercises"


@router.get("/")
def read_root(web: WebDep) -> RedirectResponse:
    return RedirectResponse(HOME if web.user is not None else "/app/signin", status_code=303)


@router.get("/app")
def read_app(web: WebDep) -> RedirectResponse:
    """The app's own root: where a signed-in learner works, else where a stranger starts."""
    return RedirectResponse(HOME if web.user is not None else "/app/signin", status_code=303)


@router.get("/app/signin")
def read_signin(request: Request, web: WebDep, next: str | None = None) -> Response:
    if web.user is not None:
        return RedirectResponse(safe_next(next, HOME), status_code=303)
    return render(
        request, web, "signin.html", next=safe_next(next, HOME), registration=_mode(request)
    )


def _mode(request: Request) -> str:
    mode: str = request.app.state.ctx.settings.registration
    return mode


_REFUSALS = {
    registration.INVITE_NEEDED: "invite_needed",
    registration.INVITE_INVALID: "invite_invalid",
    registration.CLOSED: "registration_closed_text",
}


def _sign_in(
    request: Request, web: WebSession, session: SessionDep, ctx: AppDep, user: User
) -> str:
    """Begin a fresh session for ``user`` on this browser, ending the one its cookie named (a
    new id on every sign-in: a cookie planted before it opens nothing after). The new cookie."""
    assert user.id is not None
    now = datetime.now(UTC)
    sessions.end(session, request.cookies.get(SESSION_COOKIE), now=now)
    begun = sessions.begin(session, user_id=user.id, hours=ctx.settings.session_hours, now=now)
    web.user, web.browser, web.cookie = user, begun.row, begun.cookie
    return begun.cookie


def _session_seconds(ctx: AppDep) -> int:
    return int(ctx.settings.session_hours * 3600)


@router.post("/app/signup")
def create_learner(
    request: Request,
    web: CheckedFormDep,
    session: SessionDep,
    ctx: AppDep,
    name: Annotated[str, Form(max_length=200)] = "",
    invite: Annotated[str, Form(max_length=200)] = "",
) -> Response:
    shown = {"next": HOME, "name": name, "invite": invite, "registration": _mode(request)}
    try:
        body = UserCreate(name=name.strip(), invite=invite.strip() or None)
    except ValidationError:
        return render(request, web, "signin.html", status=422, error="bad_name", **shown)
    ctx.client_limits.hit("signups", client_key(request))
    try:
        registration.admit(session, mode=shown["registration"], invite=body.invite)
    except registration.RegistrationRefused as exc:
        session.rollback()
        error = _REFUSALS.get(str(exc), "invite_invalid")
        return render(request, web, "signin.html", status=403, error=error, **shown)
    created = add_learner(session, name=body.name)
    user = learner_for(session, created.token)
    assert user is not None
    cookie = _sign_in(request, web, session, ctx, user)
    response = render(request, web, "welcome.html", created=created)
    set_cookie(request, response, SESSION_COOKIE, cookie, max_age=None)
    return response


@router.post("/app/signin")
def create_session(
    request: Request,
    web: CheckedFormDep,
    session: SessionDep,
    ctx: AppDep,
    token: Annotated[str, Form(max_length=200)] = "",
    remember: Annotated[bool, Form()] = False,
    next: Annotated[str, Form(max_length=2000)] = HOME,
) -> Response:
    ctx.client_limits.hit("signins", client_key(request))
    token = token.strip()
    user = user_for(session, token) if token else None
    if user is None or user.disabled_at is not None:
        return render(
            request,
            web,
            "signin.html",
            status=401 if user is None else 403,
            next=safe_next(next, HOME),
            error="bad_token" if user is None else "disabled",
            registration=_mode(request),
        )
    cookie = _sign_in(request, web, session, ctx, user)
    response = RedirectResponse(safe_next(next, HOME), status_code=303)
    # Remembered: the cookie lasts as long as the session can; else it ends with the browser.
    set_cookie(
        request,
        response,
        SESSION_COOKIE,
        cookie,
        max_age=_session_seconds(ctx) if remember else None,
    )
    return response


@router.post("/app/signout")
def delete_session(request: Request, web: CheckedFormDep, session: SessionDep) -> Response:
    # Ended on the server: a copy of the cookie (or a form token it issued) opens nothing now.
    sessions.end(session, web.cookie, now=datetime.now(UTC))
    response = RedirectResponse("/app/signin", status_code=303)
    response.delete_cookie(SESSION_COOKIE, path="/", httponly=True, samesite="lax")
    return response


@router.get("/app/account")
def read_account(request: Request, web: WebDep, user: LearnerDep) -> Response:
    return render(request, web, "account.html", rotated=None)


@router.post("/app/account/token")
def update_token(
    request: Request, web: CheckedFormDep, session: SessionDep, ctx: AppDep, user: LearnerDep
) -> Response:
    """A new API token, the old one refused at once; every session of the learner ends (a
    leaked token may have opened some) and this browser gets a fresh one."""
    token = learners.rotate_token(session, user)
    if token is None:
        # Another tab rotated the token first, ending this session with it; its page shows the
        # new token, and this browser carries that tab's fresh session.
        return RedirectResponse("/app/account", status_code=303)
    cookie = _sign_in(request, web, session, ctx, user)
    response = render(request, web, "account.html", rotated=token)
    set_cookie(request, response, SESSION_COOKIE, cookie, max_age=None)
    return response


@router.post("/app/lang")
def update_lang(
    request: Request,
    web: CheckedFormDep,
    lang: Annotated[str, Form(max_length=8)] = "en",
    next: Annotated[str, Form(max_length=2000)] = HOME,
) -> Response:
    del web
    response = RedirectResponse(safe_next(next, HOME), status_code=303)
    set_cookie(request, response, LANG_COOKIE, "zh" if lang == "zh" else "en", max_age=LONG_LIVED)
    return response

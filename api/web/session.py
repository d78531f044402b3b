"""Who is at the browser: the signed-in learner (if any), the CSRF secret, the language."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Annotated

from fastapi import Depends, Form, Request
from sqlmodel import Session

from api.http.deleted import remember_user
from api.http.deps import SessionDep, user_by_token
from api.learning import sessions
from api.models import BrowserSession, User
from api.web.i18n import Lang, lang_from
from api.web.security import (
    LANG_COOKIE,
    SESSION_COOKIE,
    VISITOR_COOKIE,
    csrf_token,
    csrf_valid,
    new_nonce,
    same_origin,
)

# The longest value a cookie of ours can legitimately hold (tokens and nonces are 43 chars).
_MAX_COOKIE = 128


class SignInRequired(Exception):
    """A page that needs a learner was opened without a session: redirect to the sign-in page."""

    def __init__(self, next_path: str) -> None:
        self.next_path = next_path


class FormRejected(Exception):
    """A POST without a valid CSRF token or from another origin: answered 403, nothing done."""


class PageNotFound(Exception):
    """A page for something that does not exist, or belongs to another learner."""


@dataclass
class WebSession:
    user: User | None
    # The live server-side session (api.learning.sessions) when signed in, and the cookie naming it.
    browser: BrowserSession | None
    cookie: str | None
    visitor: str
    new_visitor: bool
    lang: Lang

    @property
    def csrf_secret(self) -> str:
        # Signed in: the session's own secret, so an ended session's form tokens die with it.
        if self.user is not None and self.browser is not None:
            return self.browser.csrf_secret
        return self.visitor

    @property
    def csrf(self) -> str:
        return csrf_token(self.csrf_secret)


def _cookie(request: Request, name: str) -> str | None:
    value = request.cookies.get(name)
    return value if value and len(value) <= _MAX_COOKIE else None


def user_for(session: Session, token: str | None) -> User | None:
    """The user a token belongs to, disabled or not."""
    return None if token is None else user_by_token(session, token)


def learner_for(session: Session, token: str | None) -> User | None:
    """The signed-in user, unless an operator disabled them (then the browser is signed out)."""
    user = user_for(session, token)
    return user if user is not None and user.disabled_at is None else None


def page_session(request: Request) -> WebSession:
    # Error pages need the language and a CSRF token for the header's forms, but must not fail
    # themselves: build the session with a short-lived database session of its own.
    from sqlmodel import Session

    with Session(request.app.state.ctx.engine, expire_on_commit=False) as session:
        return web_session(request, session)


def web_session(request: Request, session: SessionDep) -> WebSession:
    cookie = _cookie(request, SESSION_COOKIE)
    found = sessions.find(session, cookie, now=datetime.now(UTC))
    if found:
        remember_user(request, found[1])
    visitor = _cookie(request, VISITOR_COOKIE)
    lang = lang_from(request.cookies.get(LANG_COOKIE), request.headers.get("accept-language"))
    return WebSession(
        user=found[1] if found else None,
        browser=found[0] if found else None,
        cookie=cookie if found else None,
        visitor=visitor or new_nonce(),
        new_visitor=visitor is None,
        lang=lang,
    )


WebDep = Annotated[WebSession, Depends(web_session)]


def signed_in(request: Request, web: WebDep) -> User:
    if web.user is None:
        path = request.url.path + (f"?{request.url.query}" if request.url.query else "")
        raise SignInRequired(path)
    return web.user


LearnerDep = Annotated[User, Depends(signed_in)]


class OperatorOnly(Exception):
    """An operator's page opened by a learner: answered 403, nothing shown."""


def signed_in_operator(user: LearnerDep) -> User:
    if user.role != "operator":
        raise OperatorOnly()
    return user


OperatorPageDep = Annotated[User, Depends(signed_in_operator)]


def checked_form(
    request: Request, web: WebDep, csrf: Annotated[str, Form(max_length=128)] = ""
) -> WebSession:
    """Every POST from a page: the token must match this browser's cookie, the origin this site."""
    if not same_origin(
        request.headers.get("origin"), request.headers.get("host"), request.url.scheme
    ):
        raise FormRejected()
    if not csrf_valid(web.csrf_secret, csrf):
        raise FormRejected()
    return web


CheckedFormDep = Annotated[WebSession, Depends(checked_form)]

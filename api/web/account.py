"""Sign up, sign in (with the API token), sign out, and the language switch."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form, Request
from fastapi.responses import RedirectResponse, Response
from pydantic import ValidationError

from api.deps import SessionDep
from api.models import UserCreate
from api.routes.users import create_user
from api.web.render import render, set_cookie
from api.web.security import LANG_COOKIE, LONG_LIVED, SESSION_COOKIE, safe_next
from api.web.session import CheckedFormDep, WebDep, learner_for

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
    return render(request, web, "signin.html", next=safe_next(next, HOME))


@router.post("/app/signup")
def create_learner(
    request: Request,
    web: CheckedFormDep,
    session: SessionDep,
    name: Annotated[str, Form(max_length=200)] = "",
) -> Response:
    try:
        body = UserCreate(name=name.strip())
    except ValidationError:
        return render(
            request, web, "signin.html", status=422, next=HOME, error="bad_name", name=name
        )
    created = create_user(body, session)
    web.user = learner_for(session, created.token)
    web.token = created.token
    response = render(request, web, "welcome.html", created=created)
    set_cookie(request, response, SESSION_COOKIE, created.token, max_age=None)
    return response


@router.post("/app/signin")
def create_session(
    request: Request,
    web: CheckedFormDep,
    session: SessionDep,
    token: Annotated[str, Form(max_length=200)] = "",
    remember: Annotated[bool, Form()] = False,
    next: Annotated[str, Form(max_length=2000)] = HOME,
) -> Response:
    token = token.strip()
    user = learner_for(session, token) if token else None
    if user is None:
        return render(
            request, web, "signin.html", status=401, next=safe_next(next, HOME), error="bad_token"
        )
    response = RedirectResponse(safe_next(next, HOME), status_code=303)
    set_cookie(request, response, SESSION_COOKIE, token, max_age=LONG_LIVED if remember else None)
    return response


@router.post("/app/signout")
def delete_session(web: CheckedFormDep) -> Response:
    del web
    response = RedirectResponse("/app/signin", status_code=303)
    response.delete_cookie(SESSION_COOKIE, path="/", httponly=True, samesite="lax")
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

"""A learner deleted while one of their requests ran: the answer their next request would get,
not a 500.

An operator may delete a learner whose code is being graded or whose answer is being stored.
The request's write then refers to a user no longer there (a foreign key refuses it), finds its
own row gone, or is the one PostgreSQL ends to break a deadlock with the deletion. When the
request's user is indeed gone, it is answered as an unknown token (401; a page sends the
browser to sign in); any other database error stays a server error.
"""

from __future__ import annotations

from fastapi import Request
from fastapi.responses import JSONResponse, RedirectResponse, Response
from sqlmodel import Session
from starlette.concurrency import run_in_threadpool

from api.models import User


class LearnerGone(Exception):
    """Raised where a request finds its own row gone with its learner; answered below."""


def remember_user(request: Request, user: User) -> None:
    """Note who the request acts for (a token's or a browser session's user)."""
    request.state.user_id = user.id


def _exists(request: Request, user_id: int) -> bool:
    with Session(request.app.state.ctx.engine) as session:
        return session.get(User, user_id) is not None


async def learner_deleted(request: Request, exc: Exception) -> Response:
    user_id = getattr(request.state, "user_id", None)
    if user_id is None or await run_in_threadpool(_exists, request, user_id):
        raise exc
    if request.url.path.startswith("/app"):
        return RedirectResponse("/app/signin", status_code=303)
    return JSONResponse(
        {"detail": "This learner was deleted"},
        status_code=401,
        headers={"WWW-Authenticate": "Bearer"},
    )

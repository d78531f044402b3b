"""Dependencies named as types: ``SessionDep``, ``CurrentUser``, ``AppDep``."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated

from fastapi import Depends, HTTPException, Path, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sqlalchemy import Engine
from sqlmodel import Session, select

from api.config import Settings
from api.content.catalog import Exercise
from api.content.questions import QuestionBank
from api.grading.grader import Grader
from api.http.deleted import remember_user
from api.http.fairness import GradingLimits, GradingTurns
from api.http.ratelimits import ClientLimits
from api.learning.tokens import hash_token as hash_token  # re-exported: routes import it from here
from api.models import User

if TYPE_CHECKING:
    from api.queue.client import GradingQueue


# A row id in a path. SQLite and PostgreSQL keep 64-bit signed integers: a larger number must be
# refused here (422), not reach the driver, which raises OverflowError (a 500) binding it.
INT64_MAX = 2**63 - 1
RowId = Annotated[int, Path(ge=1, le=INT64_MAX)]


@dataclass
class AppContext:
    settings: Settings
    engine: Engine
    catalog: dict[str, Exercise]
    # The in-process grader (embedded mode); None in queue mode, where workers grade.
    grader: Grader | None
    limits: GradingLimits
    questions: QuestionBank
    # Rate limits by client address and by learner (api.http.ratelimits).
    client_limits: ClientLimits
    # Embedded mode: the grading slots, handed out fairly between addresses and learners.
    turns: GradingTurns | None = None
    # Queue mode (ADDNORM_BROKER_URL): where submissions are sent for grading.
    queue: GradingQueue | None = None


# Dependencies that do no I/O are `async def`: a sync one costs a thread-pool hop. Those that
# touch the database stay sync, off the event loop (SQLite may wait for a writer's lock).


async def get_context(request: Request) -> AppContext:
    ctx: AppContext = request.app.state.ctx
    return ctx


AppDep = Annotated[AppContext, Depends(get_context)]


def get_session(ctx: AppDep) -> Iterator[Session]:
    with Session(ctx.engine, expire_on_commit=False) as session:
        yield session


SessionDep = Annotated[Session, Depends(get_session)]

_bearer = HTTPBearer(auto_error=False)


def user_by_token(session: Session, token: str) -> User | None:
    """The user a token belongs to, disabled or not: the one lookup of a token, for the API's
    sign-in and the pages' (``api.web.session.user_for``)."""
    user = session.exec(select(User).where(User.token_hash == hash_token(token))).first()
    # End the read transaction now: a SQLite transaction that read and later writes fails at
    # once ("database is locked") if another connection wrote in between.
    session.commit()
    return user


def token_user(request: Request, session: Session, token: str) -> User | None:
    """``user_by_token``, asked once per request and session: the practice hold
    (api.http.hold) asks first, on the request's session, and the route's sign-in
    (``current_user``) finds the answer instead of asking the database again."""
    known = getattr(request.state, "token_user", None)
    if known is not None and known[0] == token and known[1] is session:
        user: User | None = known[2]
        return user
    user = user_by_token(session, token)
    request.state.token_user = (token, session, user)
    if user is not None:
        remember_user(request, user)
    return user


def current_user(
    request: Request,
    session: SessionDep,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> User:
    if credentials is None or credentials.scheme.lower() != "bearer":
        raise HTTPException(
            401,
            detail="Missing token: send 'Authorization: Bearer <token>'",
            headers={"WWW-Authenticate": "Bearer"},
        )
    user = token_user(request, session, credentials.credentials)
    if user is None:
        raise HTTPException(401, detail="Invalid token", headers={"WWW-Authenticate": "Bearer"})
    if user.disabled_at is not None:
        # The token is right, the account is switched off: say so, so the learner asks the
        # operator instead of hunting for a typo in the token.
        raise HTTPException(403, detail=DISABLED)
    return user


DISABLED = "This learner has been disabled by the operator: ask them to enable it again"

CurrentUser = Annotated[User, Depends(current_user)]


async def current_operator(user: CurrentUser) -> User:
    """A token of the operator role (made on the host): 401 without a token, 403 for learners."""
    if user.role != "operator":
        raise HTTPException(403, detail="This needs an operator's token")
    return user


CurrentOperator = Annotated[User, Depends(current_operator)]


async def get_exercise(ctx: AppDep, slug: str) -> Exercise:
    exercise = ctx.catalog.get(slug)
    if exercise is None:
        raise HTTPException(404, detail="Exercise not found")
    return exercise


ExerciseDep = Annotated[Exercise, Depends(get_exercise)]

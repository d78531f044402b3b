from __future__ import annotations

import secrets

from fastapi import APIRouter, Request
from sqlmodel import Session, SQLModel

from api import sessions
from api.deps import AppDep, CurrentUser, SessionDep, hash_token
from api.limited import client_key
from api.models import LearnerLang, User, UserCreate, UserCreated, UserPublic, UserUpdate

router = APIRouter(tags=["users"])


def learner_lang(user: User) -> LearnerLang:
    """The learner's stored preference; anything unexpected in the row reads as English."""
    return "zh" if user.lang == "zh" else "en"


class TokenRotated(SQLModel):
    token: str


@router.post(
    "/users",
    status_code=201,
    response_model=UserCreated,
    responses={429: {"description": "Too many learners created from this address"}},
)
def create_learner(
    body: UserCreate, request: Request, session: SessionDep, ctx: AppDep
) -> UserCreated:
    """Create a learner. The token is shown once, here; only its hash is stored. Limited per
    client address (ADDNORM_SIGNUPS_PER_HOUR)."""
    ctx.client_limits.hit("signups", client_key(request))
    return create_user(body, session)


def create_user(body: UserCreate, session: Session) -> UserCreated:
    token = secrets.token_urlsafe(32)
    user = User(name=body.name.strip() or body.name, token_hash=hash_token(token))
    session.add(user)
    session.commit()
    session.refresh(user)
    assert user.id is not None
    return UserCreated(id=user.id, name=user.name, token=token, lang=learner_lang(user))


@router.get("/users/me", response_model=UserPublic)
def read_me(user: CurrentUser) -> UserPublic:
    assert user.id is not None
    return UserPublic(id=user.id, name=user.name, lang=learner_lang(user))


@router.patch("/users/me", response_model=UserPublic)
def update_me(body: UserUpdate, user: CurrentUser, session: SessionDep) -> UserPublic:
    """Change the learner's preferences: ``lang`` is what verdicts and starters default to."""
    assert user.id is not None
    if body.lang is not None:
        user.lang = body.lang
        session.add(user)
        session.commit()
        session.refresh(user)
    return UserPublic(id=user.id, name=user.name, lang=learner_lang(user))


def rotate_token(session: Session, user: User) -> str:
    """Give the learner a new API token: the old one is refused from the next request on, and
    every browser session of theirs ends (one may have been opened with the old token)."""
    assert user.id is not None
    token = secrets.token_urlsafe(32)
    user.token_hash = hash_token(token)
    session.add(user)
    session.commit()
    sessions.end_sessions(session, user.id)
    return token


@router.post("/users/me/token", response_model=TokenRotated)
def update_token(user: CurrentUser, session: SessionDep) -> TokenRotated:
    """A new token for the learner (shown once, here); the one this request carried stops
    working at once, and the learner's browser sessions end."""
    return TokenRotated(token=rotate_token(session, user))

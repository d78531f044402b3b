from __future__ import annotations

import secrets

from fastapi import APIRouter

from api.deps import CurrentUser, SessionDep, hash_token
from api.models import LearnerLang, User, UserCreate, UserCreated, UserPublic, UserUpdate

router = APIRouter(tags=["users"])


def learner_lang(user: User) -> LearnerLang:
    """The learner's stored preference; anything unexpected in the row reads as English."""
    return "zh" if user.lang == "zh" else "en"


@router.post("/users", status_code=201, response_model=UserCreated)
def create_user(body: UserCreate, session: SessionDep) -> UserCreated:
    """Create a learner. The token is shown once, here; only its hash is stored."""
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

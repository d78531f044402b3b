from __future__ import annotations

import secrets

from fastapi import APIRouter

from api.deps import CurrentUser, SessionDep, hash_token
from api.models import User, UserCreate, UserCreated, UserPublic

router = APIRouter(tags=["users"])


@router.post("/users", status_code=201, response_model=UserCreated)
def create_user(body: UserCreate, session: SessionDep) -> UserCreated:
    """Create a learner. The token is shown once, here; only its hash is stored."""
    token = secrets.token_urlsafe(32)
    user = User(name=body.name.strip() or body.name, token_hash=hash_token(token))
    session.add(user)
    session.commit()
    session.refresh(user)
    assert user.id is not None
    return UserCreated(id=user.id, name=user.name, token=token)


@router.get("/users/me", response_model=UserPublic)
def read_me(user: CurrentUser) -> UserPublic:
    assert user.id is not None
    return UserPublic(id=user.id, name=user.name)

from __future__ import annotations

import secrets

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field
from sqlmodel import Session, SQLModel

from api.http.deps import AppDep, CurrentUser, SessionDep, hash_token
from api.http.downloads import AS_FILE, learner_export
from api.http.limited import client_key
from api.learning import export, learners, registration
from api.learning.tokens import token_proof
from api.models import LearnerLang, User, UserCreate, UserCreated, UserPublic, UserUpdate

router = APIRouter(tags=["users"])


def learner_lang(user: User) -> LearnerLang:
    """The learner's stored preference; anything unexpected in the row reads as English."""
    return "zh" if user.lang == "zh" else "en"


class TokenRotated(SQLModel):
    token: str


class TokenProofAsked(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    # No id comes near it; a bound the published schema can state exactly (openapi_doc).
    user: int = Field(ge=1, le=2**53)
    nonce: str = Field(min_length=32, max_length=128, pattern="^[0-9a-f]+$")


class TokenProof(SQLModel):
    proof: str


# An unknown or disabled learner gets a proof under a key nobody holds: the answer says nothing
# of which learners exist.
_NOBODY = secrets.token_hex(32)


@router.post(
    "/users",
    status_code=201,
    response_model=UserCreated,
    responses={
        403: {"description": "Registration needs an invite, or is closed"},
        429: {"description": "Too many learners created from this address"},
    },
)
def create_learner(
    body: UserCreate, request: Request, session: SessionDep, ctx: AppDep
) -> UserCreated:
    """Create a learner. The token is shown once, here; only its hash is stored. Limited per
    client address (ADDNORM_SIGNUPS_PER_HOUR).

    ADDNORM_REGISTRATION decides who may: anyone (open), the holder of an operator's invite code
    (invite: ``{"name", "invite"}``), or nobody (closed: the operator's POST /admin/learners)."""
    ctx.client_limits.hit("signups", client_key(request))
    try:
        registration.admit(session, mode=ctx.settings.registration, invite=body.invite)
    except registration.RegistrationRefused as exc:
        session.rollback()
        raise HTTPException(403, detail=str(exc)) from None
    return add_learner(session, name=body.name)


def add_learner(session: Session, *, name: str) -> UserCreated:
    """Insert a learner (in the caller's transaction, an invite's use included) and commit."""
    token = secrets.token_urlsafe(32)
    user = User(name=name.strip() or name, token_hash=hash_token(token))
    session.add(user)
    session.commit()
    session.refresh(user)
    assert user.id is not None
    return UserCreated(id=user.id, name=user.name, token=token, lang=learner_lang(user))


@router.post("/users/token-proof", response_model=TokenProof)
def prove_token(body: TokenProofAsked, session: SessionDep) -> TokenProof:
    """Prove this server holds learner ``user``'s token without anyone sending it:
    ``HMAC-SHA256(key = hex SHA-256 of the token, msg = "addnorm-same-server\\n" + nonce)``.
    The CLI asks it of a new address before carrying over the token it saved for an old one
    (the same server on another port, the same data directory); no other server can answer."""
    user = session.get(User, body.user)
    key = user.token_hash if user is not None and user.disabled_at is None else _NOBODY
    return TokenProof(proof=token_proof(key, body.nonce))


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


@router.get("/users/me/export", response_model=None, responses=AS_FILE)
def export_me(
    user: CurrentUser,
    session: SessionDep,
    format: export.Format = "json",
    table: str | None = None,
) -> Response:
    """Everything stored about you: JSON, or one table as CSV (``table=submission``, ...)."""
    return learner_export(session, user, format, table)


@router.post("/users/me/token", response_model=TokenRotated)
def update_token(user: CurrentUser, session: SessionDep) -> TokenRotated:
    """A new token for the learner (shown once, here); the one this request carried stops
    working at once, and the learner's browser sessions end."""
    token = learners.rotate_token(session, user)
    if token is None:
        raise HTTPException(
            401,
            detail="This token was replaced by another request",
            headers={"WWW-Authenticate": "Bearer"},
        )
    return TokenRotated(token=token)

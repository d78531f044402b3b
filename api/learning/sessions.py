"""Browser sessions: begun on sign-in, found by their cookie, ended by sign-out, by token
rotation or by the operator (``end_sessions``), and expired after ADDNORM_SESSION_HOURS.

The cookie is 256 random bits; the table keeps its SHA-256 only (nothing to brute-force, as
with API tokens), so a copy of the database opens no browser. Each session has its own CSRF
secret: a form token from an ended session is refused with it.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import update
from sqlmodel import Session, col, select

from api.learning.tokens import hash_token
from api.models import BrowserSession, User


@dataclass(frozen=True)
class Begun:
    cookie: str
    row: BrowserSession


def _aware(moment: datetime) -> datetime:
    # Columns are naive UTC on both databases (see api.db).
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def begin(session: Session, *, user_id: int, hours: float, now: datetime) -> Begun:
    """A new session for the learner; the caller sets ``cookie`` on the response."""
    cookie = secrets.token_urlsafe(32)
    row = BrowserSession(
        id_hash=hash_token(cookie),
        user_id=user_id,
        csrf_secret=secrets.token_urlsafe(32),
        created_at=now,
        expires_at=now + timedelta(hours=hours),
    )
    session.add(row)
    session.commit()
    session.refresh(row)
    return Begun(cookie=cookie, row=row)


def find(
    session: Session, cookie: str | None, *, now: datetime
) -> tuple[BrowserSession, User] | None:
    """The live session this cookie names and its learner; None when unknown, ended, expired,
    or the learner is disabled."""
    if not cookie:
        return None
    found = session.exec(
        select(BrowserSession, User)
        .join(User, col(User.id) == col(BrowserSession.user_id))
        .where(BrowserSession.id_hash == hash_token(cookie))
    ).first()
    # End the read transaction at once (see api.http.deps.current_user: SQLite's lock upgrade).
    session.commit()
    if found is None:
        return None
    row, user = found
    if row.ended_at is not None or _aware(row.expires_at) <= now:
        return None
    # A learner an operator disabled is signed out everywhere, whatever their sessions say.
    if user.disabled_at is not None:
        return None
    return row, user


def end(session: Session, cookie: str | None, *, now: datetime) -> bool:
    """End the session this cookie names (signing out); whether one was live."""
    if not cookie:
        return False
    ended = session.execute(
        update(BrowserSession)
        .where(
            col(BrowserSession.id_hash) == hash_token(cookie),
            col(BrowserSession.ended_at).is_(None),
        )
        .values(ended_at=now)
    )
    session.commit()
    return bool(ended.rowcount)  # type: ignore[attr-defined]


def end_sessions(db: Session, user_id: int, *, now: datetime | None = None) -> int:
    """End every live session of the learner (token rotation, an operator disabling or deleting
    them); how many were live. Expired ones are counted too: they were not yet marked ended."""
    ended = db.execute(
        update(BrowserSession)
        .where(
            col(BrowserSession.user_id) == user_id,
            col(BrowserSession.ended_at).is_(None),
        )
        .values(ended_at=now or datetime.now(UTC))
    )
    db.commit()
    return int(ended.rowcount)  # type: ignore[attr-defined]

"""Who may create a learner, and the invite codes operators hand out.

``ADDNORM_REGISTRATION`` chooses the mode: ``open`` (anyone who reaches the server), ``invite``
(a code from an operator, each good for a number of sign-ups until it expires) or ``closed``
(only an operator creates learners). Codes are secrets like tokens: only their hash is stored,
and a code is shown once, when it is made.
"""

from __future__ import annotations

import secrets
from datetime import UTC, datetime, timedelta

from sqlalchemy import update
from sqlmodel import Session, col, select

from api.learning.tokens import hash_token
from api.models import Invite, utcnow

MAX_USES = 10_000
# The longest an invite may stay valid: a code is a password to the server, not a permanent link.
MAX_LIFETIME = timedelta(days=366)


class RegistrationRefused(Exception):
    """A sign-up the registration mode does not allow; the message is the API's ``detail``."""


INVITE_NEEDED = (
    'Registration here is by invitation: send {"name", "invite"} with a code from the operator'
)
INVITE_INVALID = "This invite code is not valid: unknown, used up, revoked or expired"
CLOSED = "Registration here is closed: ask the operator to create your learner"


def _aware(moment: datetime) -> datetime:
    # SQLite hands back naive datetimes; everything stored is UTC.
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def create_invite(session: Session, *, uses: int, expires_at: datetime) -> tuple[Invite, str]:
    """A new code good for ``uses`` sign-ups until ``expires_at``; returns the row and the code
    (which is not stored)."""
    code = secrets.token_urlsafe(18)
    row = Invite(code_hash=hash_token(code), uses=uses, expires_at=expires_at.astimezone(UTC))
    session.add(row)
    session.commit()
    session.refresh(row)
    return row, code


def redeem(session: Session, *, code: str, now: datetime | None = None) -> None:
    """Use up one sign-up of ``code`` in the caller's transaction, or refuse.

    One conditional UPDATE: two sign-ups racing for an invite's last use cannot both win, and
    the use is rolled back with the learner if the insert that follows fails."""
    now = now or utcnow()
    taken = session.execute(
        update(Invite)
        .where(
            col(Invite.code_hash) == hash_token(code),
            col(Invite.used) < col(Invite.uses),
            col(Invite.expires_at) > now.astimezone(UTC),
            col(Invite.revoked_at).is_(None),
        )
        .values(used=col(Invite.used) + 1)
    )
    if taken.rowcount != 1:  # type: ignore[attr-defined]
        raise RegistrationRefused(INVITE_INVALID)


def revoke(session: Session, *, invite_id: int) -> Invite | None:
    row = session.get(Invite, invite_id)
    if row is None:
        return None
    if row.revoked_at is None:
        row.revoked_at = utcnow()
        session.add(row)
        session.commit()
        session.refresh(row)
    return row


def invites(session: Session) -> list[Invite]:
    return list(session.exec(select(Invite).order_by(col(Invite.id).desc()).limit(500)))


def state(row: Invite, now: datetime | None = None) -> str:
    """open, used_up, expired or revoked: what the operator's list says of a code."""
    now = now or utcnow()
    if row.revoked_at is not None:
        return "revoked"
    if row.used >= row.uses:
        return "used_up"
    if _aware(row.expires_at) <= now:
        return "expired"
    return "open"


def admit(session: Session, *, mode: str, invite: str | None) -> None:
    """The check ``POST /users`` makes before it creates a learner, in its transaction."""
    if mode == "open":
        return
    if mode == "closed":
        raise RegistrationRefused(CLOSED)
    if not invite or not invite.strip():
        raise RegistrationRefused(INVITE_NEEDED)
    redeem(session, code=invite.strip())

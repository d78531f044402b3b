"""A learner's unsubmitted code per exercise, kept on the server so it follows them to another
browser or device. One row per (learner, exercise), overwritten on every save."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import LargeBinary, cast, func
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from api import plaintext
from api.grading.static import MAX_CODE_BYTES
from api.models import Draft

# The same bound as a submission: a draft is code that is meant to be submitted.
MAX_DRAFT_BYTES = MAX_CODE_BYTES


class DraftTooLarge(ValueError):
    def __init__(self, size: int) -> None:
        super().__init__(f"The draft is {size} bytes; the limit is {MAX_DRAFT_BYTES // 1024} KiB")


@dataclass(frozen=True)
class Quota:
    """What one learner's drafts may hold in all: how many, and how many bytes of code."""

    count: int
    total_bytes: int


class OverQuota(ValueError):
    pass


def _check_quota(session: Session, *, user_id: int, exercise: str, size: int, quota: Quota) -> None:
    """Refuse a save that would take the learner's other drafts plus this one past the quota."""
    # Bytes, not characters, on both databases (SQLite's length() of a BLOB counts bytes).
    if session.get_bind().dialect.name == "postgresql":
        stored = func.octet_length(Draft.code)
    else:
        stored = func.length(cast(Draft.code, LargeBinary))
    others = session.exec(
        select(func.count(), func.coalesce(func.sum(stored), 0)).where(
            Draft.user_id == user_id, col(Draft.exercise) != exercise
        )
    ).one()
    session.commit()
    count, total = int(others[0]), int(others[1])
    if count + 1 > quota.count:
        raise OverQuota(f"You have {count} drafts; the limit is {quota.count}")
    if total + size > quota.total_bytes:
        raise OverQuota(
            f"Your drafts would hold {total + size} bytes; the limit is {quota.total_bytes}"
        )


def load(session: Session, *, user_id: int, exercise: str) -> Draft | None:
    row = session.exec(
        select(Draft).where(Draft.user_id == user_id, Draft.exercise == exercise)
    ).first()
    # End the read transaction (see api.http.deps.current_user: SQLite's lock upgrade).
    session.commit()
    return row


def save(
    session: Session,
    *,
    user_id: int,
    exercise: str,
    code: str,
    now: datetime,
    quota: Quota | None = None,
) -> Draft:
    """Store the draft (sanitised like submitted code); raises DraftTooLarge, or OverQuota
    when ``quota`` is given and the learner's drafts would exceed it."""
    # A lone surrogate is valid JSON but not UTF-8: replaced before anything encodes it.
    code = plaintext.sanitised(code)
    size = len(code.encode())
    if size > MAX_DRAFT_BYTES:
        raise DraftTooLarge(size)
    if quota is not None:
        _check_quota(session, user_id=user_id, exercise=exercise, size=size, quota=quota)
    for _ in range(2):
        row = load(session, user_id=user_id, exercise=exercise)
        if row is None:
            row = Draft(user_id=user_id, exercise=exercise, code=code, updated_at=now)
        else:
            row.code, row.updated_at = code, now
        session.add(row)
        try:
            session.commit()
        except IntegrityError:
            # Two first saves at once (the editor's and a tab closing): the other one created
            # the row; overwrite it.
            session.rollback()
            continue
        session.refresh(row)
        return row
    raise RuntimeError("the draft could not be saved")
